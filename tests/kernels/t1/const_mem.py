import numpy as np

F = np.float32
HASH = np.array([(k * 2654435761) & 0xFFFFFFFF for k in range(64)], dtype=np.uint32).view(np.int32)
SCALE = 3
MAT = np.array(
    [
        [0.5, -1.25, 2.0, 0.75],
        [-0.375, 1.0, 0.125, -2.5],
        [3.0, 0.0625, -0.5, 1.5],
        [-1.0, 2.25, 0.25, -0.875],
    ],
    dtype=F,
)
MASKS = np.array(
    [0x00000000FFFFFFFF, 0xFFFF0000FFFF0000, 0x0F0F0F0F0F0F0F0F, 0x8000000000000001], dtype=np.uint64
)


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


def const_lookup(args, spec):
    idx, out, n = args
    n = int(n[0])
    res = out.copy()
    i = np.arange(n)
    v = idx[:n]
    res[0 : 4 * n : 4] = HASH[v & 63]
    res[1 : 4 * n : 4] = HASH[(i // spec.block[0]) & 63]
    res[2 : 4 * n : 4] = HASH[5] ^ HASH[60]
    res[3 : 4 * n : 4] = (HASH[(v >> 8) & 63].view(np.uint32) * np.uint32(SCALE)).view(np.int32)
    return {1: res}


def const_matvec(args, spec):
    v, out, n = args
    n = int(n[0])
    p = v[: 4 * n].reshape(n, 4)
    res = out.copy().reshape(-1, 4)
    for j in range(4):
        m = MAT[j]
        r = fma32(m[3], p[:, 3], fma32(m[2], p[:, 2], fma32(m[1], p[:, 1], m[0] * p[:, 0])))
        res[:n, j] = r
    return {1: res.reshape(-1)}


def const_masks(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy().reshape(-1, 5)
    x = a[:n]
    for k in range(4):
        res[:n, k] = x & MASKS[k]
    res[:n, 4] = x ^ MASKS[np.arange(n) & 3]
    return {1: res.reshape(-1)}
