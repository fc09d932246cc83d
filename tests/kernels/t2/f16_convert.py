import numpy as np

from openptxas.testing import refmath as R

MODES = (R.Rnd.RN, R.Rnd.RZ, R.Rnd.RM, R.Rnd.RP)
F, H, D = R.Fmt.F32, R.Fmt.F16, R.Fmt.F64


def f16_convert(args, spec):
    a, k, _, _, _, _, scale, n = args
    n = int(n[0])
    a, ki = a[:n], k[:n]
    x = a * scale[0]
    big = x * np.float32(100.0)
    tiny = x * np.float32(1e-9)
    d = x.astype(np.float64) * 1.0000001
    ks = ki >> 16
    oh = []
    for src in (x, big, tiny):
        oh += [R.convert(src, F, H, m) for m in MODES]
    oh.append(R.convert(d, D, H))
    oh += [R.from_ints(ks, H, m) for m in MODES]
    oh += [R.from_ints(ki, H, R.Rnd.RN), R.from_ints(ki, H, R.Rnd.RZ)]
    oh.append(R.from_ints(ks.astype(np.int16), H, R.Rnd.RN))
    oh.append(R.from_ints(ki.view(np.uint32), H, R.Rnd.RM))
    oh.append(R.from_ints(ki.astype(np.int64) * 3, H, R.Rnd.RP))
    h = R.convert(x, F, H)
    hb = R.convert(big, F, H)
    of = [h.astype(np.float32), R.convert(tiny, F, H).astype(np.float32)]
    oi = [R.to_ints(h, H, m, "int32") for m in MODES]
    oi += [
        R.to_ints(hb, H, R.Rnd.RZ, "int16").astype(np.int32),
        R.to_ints(h, H, R.Rnd.RN, "uint16").astype(np.int32),
        R.to_ints(h, H, R.Rnd.RZ, "int8").astype(np.int32),
        R.to_ints(h, H, R.Rnd.RZ, "uint8").astype(np.int32),
        R.to_ints(hb, H, R.Rnd.RP, "uint32").view(np.int32),
    ]
    oll = [R.to_ints(hb, H, R.Rnd.RM, "int64"), R.to_ints(h, H, R.Rnd.RN, "uint64").view(np.int64)]
    return {
        2: np.concatenate(oh),
        3: np.concatenate(of),
        4: np.concatenate(oi),
        5: np.concatenate(oll),
    }
