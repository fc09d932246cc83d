import numpy as np

from openptxas.testing import refmath as R

MODES = (R.Rnd.RN, R.Rnd.RZ, R.Rnd.RM, R.Rnd.RP)
D = R.Fmt.F64


def f64_convert(args, spec):
    a, l, _, _, _, _, _, _, n = args
    n = int(n[0])
    a, l = a[:n], l[:n]
    x = a * 1e9
    big = a * 1e18
    kul = l.view(np.uint64)
    words = a.view(np.uint32).reshape(-1, 2)  # little-endian: [lo, hi]
    oi = [R.to_ints(x, D, m, "int32") for m in MODES]
    oi += [words[:, 1].view(np.int32), words[:, 0].view(np.int32)]
    ou = [R.to_ints(x, D, m, "uint32") for m in MODES]
    oll = [R.to_ints(big, D, m, "int64") for m in MODES] + [x.view(np.int64)]
    oull = [R.to_ints(big, D, m, "uint64") for m in MODES]
    od = [R.from_ints(l, D, m) for m in MODES] + [R.from_ints(kul, D, m) for m in MODES]
    od.append(l.astype(np.int32).astype(np.float64))
    od.append((l >> 32).astype(np.uint32).astype(np.float64))
    hi = ((l >> 32) & np.int64(0x800FFFFF)) | np.int64(0x3FF00000)
    od.append(((hi << 32) | (l & np.int64(0xFFFFFFFF))).view(np.float64))
    od.append(a.astype(np.float32).astype(np.float64))
    t = a * 1e-40
    h = a * 1e38
    of = []
    for src in (a, t, h):
        of += [R.convert(src, D, R.Fmt.F32, m) for m in MODES]
    return {
        2: np.concatenate(oi),
        3: np.concatenate(ou),
        4: np.concatenate(oll),
        5: np.concatenate(oull),
        6: np.concatenate(od),
        7: np.concatenate(of),
    }
