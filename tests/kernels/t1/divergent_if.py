import numpy as np

M32 = 0xFFFFFFFF
F = np.float32


def fma32(a, b, c):
    """Correctly rounded float32 fma (see t1/f32_arith.py)."""
    a, b, c = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    bits = s.view(np.int64).copy()
    fix = np.isfinite(s) & (err != 0) & ((bits & 1) == 0)
    up = (err > 0) == (s > 0)
    bits[fix & up] += 1
    bits[fix & ~up] -= 1
    return bits.view(np.float64).astype(np.float32)


def diverge_nested(args, spec):
    a, out, n = args
    n = int(n[0])
    bs = spec.block[0]
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        tid = i % bs
        if x & 1:
            if x & 2:
                r = (x >> 3) & M32
            else:
                r = 0
                for k in range((x & 0x1C) >> 2):
                    r = (r + k * (x & M32)) & M32
        elif tid & 4:
            r = ~x & M32
        else:
            r = (x ^ (x << 1)) & M32
        v = (r + tid) & M32
        res[i] = v - (1 << 32) if v >> 31 else v
    return {1: res}


def diverge_float(args, spec):
    a, out, n = args
    n = int(n[0])
    x = a[:n]
    y = np.where(x > F(0.5), x * x, np.where(x < F(-0.5), fma32(x, F(0.25), F(1)), -x))
    res = out.copy()
    res[:n] = y.astype(F) + F(1)
    return {1: res}


def diverge_lane(args, spec):
    a, out = args
    nt = spec.block[0]
    res = out.copy()
    for t in range(nt):
        x = int(a[t])
        lane = t & 31
        if lane % 3 == 0:
            res[t] = (x * 3) & M32
        elif lane % 3 == 1:
            res[t] = x >> (lane & 15)
            res[t + nt] = lane
        else:
            v = x
            for _ in range(lane):
                v = (v >> 1) ^ (0xEDB88320 if v & 1 else 0)
            res[t] = v
    return {1: res}
