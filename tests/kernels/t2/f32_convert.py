import numpy as np

from openptxas.testing import refmath as R

MODES = (R.Rnd.RN, R.Rnd.RZ, R.Rnd.RM, R.Rnd.RP)
F = R.Fmt.F32


def f32_convert(args, spec):
    a, k, l, _, _, _, _, _, scale, n = args
    n = int(n[0])
    a, k, l = a[:n], k[:n], l[:n]
    x = a * scale[0]
    big = x * np.float32(1e12)
    huge = x * np.float32(1e16)
    ku = k.view(np.uint32)
    kul = l.view(np.uint64)
    oi = [R.to_ints(x, F, m, "int32") for m in MODES]
    oi += [R.to_ints(x * np.float32(1e6), F, R.Rnd.RZ, "int32"), x.view(np.int32)]
    ou = [R.to_ints(x, F, m, "uint32") for m in MODES]
    oll = [
        R.to_ints(big, F, R.Rnd.RN, "int64"),
        R.to_ints(huge, F, R.Rnd.RZ, "int64"),
        R.to_ints(big, F, R.Rnd.RM, "int64"),
        R.to_ints(big, F, R.Rnd.RP, "int64"),
    ]
    oull = [
        R.to_ints(big, F, R.Rnd.RN, "uint64"),
        R.to_ints(huge, F, R.Rnd.RZ, "uint64"),
        R.to_ints(huge, F, R.Rnd.RM, "uint64"),
        R.to_ints(big, F, R.Rnd.RP, "uint64"),
    ]
    of = []
    for src in (k, ku, l, kul):
        of += [R.from_ints(src, F, m) for m in MODES]
    of.append(((k & np.int32(-0x7F800001)) | np.int32(0x3F000000)).view(np.float32))
    of.append((k >> 12).astype(np.float32))
    return {
        3: np.concatenate(oi),
        4: np.concatenate(ou),
        5: np.concatenate(oll),
        6: np.concatenate(oull),
        7: np.concatenate(of),
    }
