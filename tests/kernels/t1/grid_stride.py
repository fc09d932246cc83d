import numpy as np


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


def saxpy_grid_stride(args, spec):
    a, x, y, n = args
    n = int(n[0])
    res = y.copy()
    res[:n] = fma32(a[0], x[:n], y[:n])
    return {2: res}


def xform_grid_stride64(args, spec):
    inp, out, n = args
    n = int(n[0])
    v = inp[:n]
    i = np.arange(n, dtype=np.uint64)
    res = out.copy()
    res[:n] = (v * np.uint32(2654435761)) ^ (i >> np.uint64(2)).astype(np.uint32) ^ (v >> np.uint32(7))
    return {1: res}


def gather_strided(args, spec):
    inp, out, stride, m, n = args
    stride, m, n = int(stride[0]), int(m[0]), int(n[0])
    idx = (np.arange(m, dtype=np.int64) * stride) % n
    res = out.copy()
    res[:m] = inp[idx]
    return {1: res}
