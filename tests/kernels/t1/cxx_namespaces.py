import numpy as np

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


def cross_all(args, spec):
    a, b, out, n = args
    n = int(n[0])
    p, q = a.reshape(-1, 3)[:n], b.reshape(-1, 3)[:n]
    ax, ay, az = p[:, 0], p[:, 1], p[:, 2]
    bx, by, bz = q[:, 0], q[:, 1], q[:, 2]
    res = out.copy().reshape(-1, 3)
    res[:n, 0] = fma32(ay, bz, -(az * by))
    res[:n, 1] = fma32(az, bx, -(ax * bz))
    res[:n, 2] = fma32(ax, by, -(ay * bx))
    return {2: res.reshape(-1)}


def scale_vec3(args, spec):
    v, s, n = args
    n = int(n[0])
    res = v.copy()
    res[: 3 * n] = v[: 3 * n] * F(s[0])
    return {0: res}


def scale_int(args, spec):
    v, s, n = args
    n = int(n[0])
    res = v.copy()
    res[:n] = (v[:n].view(np.uint32) * np.int32(s[0]).view(np.uint32)).view(np.int32)
    return {0: res}
