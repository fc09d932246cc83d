import numpy as np

from openptxas.testing import refmath as R

MODES = (R.Rnd.RN, R.Rnd.RZ, R.Rnd.RM, R.Rnd.RP)
F, B, D = R.Fmt.F32, R.Fmt.BF16, R.Fmt.F64
f32 = np.float32


def bf16_convert(args, spec):
    a, k, _, _, _, n = args
    n = int(n[0])
    x, ki = a[:n], k[:n]
    with np.errstate(over="ignore"):
        big = x * f32(3e38)
        t = R.fma(-np.abs(x), np.full(n, 0.001, np.float32), np.ones(n, np.float32), F)
        huge = np.copysign(f32(3.4e38), x) * t
    tiny = x * f32(1e-38)
    d = x.astype(np.float64) * 1.00000001
    ob = []
    for src in (x, huge, tiny):
        ob += [R.convert(src, F, B, m) for m in MODES]
    ob.append(R.convert(big, F, B))
    ob.append(R.convert(d, D, B))
    ob += [R.from_ints(ki, B, m) for m in MODES]
    ob.append(R.from_ints((ki >> 16).astype(np.int16), B, R.Rnd.RN))
    ob.append(R.from_ints(ki.view(np.uint32), B, R.Rnd.RZ))
    ob += [R.convert(x, F, B), R.convert(tiny, F, B)]
    b = R.convert(x * f32(1000.0), F, B)
    bt = R.convert(tiny, F, B)
    of = [R.bf16_to_f32(b), R.bf16_to_f32(b) + R.bf16_to_f32(bt)]
    oi = [R.to_ints(b, B, m, "int32") for m in MODES]
    oi += [
        R.to_ints(R.convert(big, F, B), B, R.Rnd.RZ, "int16").astype(np.int32),
        R.to_ints(b, B, R.Rnd.RN, "uint16").astype(np.int32),
        R.to_ints(b, B, R.Rnd.RZ, "uint32").view(np.int32),
        R.to_ints(b, B, R.Rnd.RM, "int64").astype(np.int32),
        b.view(np.int16).astype(np.int32),
    ]
    return {2: np.concatenate(ob), 3: np.concatenate(of), 4: np.concatenate(oi)}
