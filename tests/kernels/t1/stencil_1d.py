import numpy as np

F = np.float32
TAPS = np.array([0.0625, -0.25, 0.5, 1.0, 0.5, -0.25, 0.0625], dtype=F)


def fma32(a, b, c):
    """Correctly rounded float32 fma (see t1/f32_arith.py)."""
    a, b, c = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    bits = np.atleast_1d(s.view(np.int64).copy())
    s1, e1 = np.atleast_1d(s), np.atleast_1d(err)
    fix = np.isfinite(s1) & (e1 != 0) & ((bits & 1) == 0)
    up = (e1 > 0) == (s1 > 0)
    bits[fix & up] += 1
    bits[fix & ~up] -= 1
    return bits.view(np.float64).astype(np.float32).reshape(np.shape(s))


def stencil_1d(args, spec):
    inp, out, n = args
    n = int(n[0])
    padded = np.concatenate([np.zeros(3, F), inp[:n], np.zeros(3, F)])
    acc = np.zeros(n, dtype=F)
    for k in range(7):
        acc = fma32(TAPS[k], padded[k : k + n], acc)
    res = out.copy()
    res[:n] = acc
    return {1: res}
