import numpy as np

F = np.float32
POLY = np.array([1.0, -0.5, 0.25, -0.125, 0.0625, 1.5, -2.25, 0.75], dtype=F)


def fma32(a, b, c):
    """Correctly rounded float32 fma (see t1/f32_arith.py)."""
    a, b, c = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    bits = np.atleast_1d(s.view(np.int64).copy())
    s1 = np.atleast_1d(s)
    e1 = np.atleast_1d(err)
    fix = np.isfinite(s1) & (e1 != 0) & ((bits & 1) == 0)
    up = (e1 > 0) == (s1 > 0)
    bits[fix & up] += 1
    bits[fix & ~up] -= 1
    return bits.view(np.float64).astype(np.float32).reshape(np.shape(s))


def horner(args, spec):
    x, out, n = args
    n = int(n[0])
    v = x[:n]
    acc = np.full(n, POLY[7], dtype=F)
    for k in range(6, -1, -1):
        acc = fma32(acc, v, POLY[k])
    res = out.copy()
    res[:n] = acc
    return {1: res}


def dot_rows(args, spec):
    m, v, out, n = args
    n = int(n[0])
    rows = m[: 16 * n].reshape(n, 16)
    acc = np.zeros(n, dtype=F)
    for k in range(16):
        acc = fma32(rows[:, k], v[k], acc)
    res = out.copy()
    res[:n] = acc
    return {2: res}


def kahan_rows(args, spec):
    m, out, n = args
    n = int(n[0])
    rows = m[: 16 * n].reshape(n, 16)
    s = np.zeros(n, dtype=F)
    c = np.zeros(n, dtype=F)
    for k in range(16):
        y = rows[:, k] - c
        t = s + y
        c = (t - s) - y
        s = t
    res = out.copy()
    res[0 : 2 * n : 2] = s
    res[1 : 2 * n : 2] = c
    return {1: res}


def cmul(args, spec):
    a, b, out, n = args
    n = int(n[0])
    px, py = a[0 : 2 * n : 2], a[1 : 2 * n : 2]
    qx, qy = b[0 : 2 * n : 2], b[1 : 2 * n : 2]
    re = fma32(px, qx, -(py * qy))
    im = fma32(px, qy, py * qx)
    res = out.copy()
    res[0 : 2 * n : 2] = re
    res[1 : 2 * n : 2] = im
    return {2: res}
