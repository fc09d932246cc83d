import numpy as np

M32 = 0xFFFFFFFF


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


def loop_full(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, h = int(a[i]), 0
        for k in range(16):
            h = (((h ^ (x >> k)) * 0x01000193) + k) & M32
        res[i] = h
    return {1: res}


def loop_partial(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, h = int(a[i]), 7
        for k in range(37):
            s1, s2 = k & 31, (32 - k) & 31
            rot = ((x << s1) & M32) | (x >> s2)
            h = (h * 31 + rot) & M32
        res[i] = h
    return {1: res}


def loop_kept(args, spec):
    a, f, out, fout, n = args
    n = int(n[0])
    res, fres = out.copy(), fout.copy()
    for i in range(n):
        x = int(a[i])
        res[i] = sum((x >> (k & 31)) & 1 for k in range(64))
    acc = np.zeros(n, dtype=np.float32)
    for _ in range(64):
        acc = fma32(acc, np.float32(0.5), f[:n])
    fres[:n] = acc
    return {2: res, 3: fres}


def loop_default(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, s = int(a[i]), 0
        for k in range(100):
            s = (s + (((x >> (k % 29)) & M32) ^ k)) & M32
        res[i] = s - (1 << 32) if s >> 31 else s
    return {1: res}


def loop_nested(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        for r in range(4):
            row = (x + r * 0x9E3779B9) & M32
            for c in range(8):
                row = ((row << 3) & M32) ^ (row >> 5) ^ c
                res[32 * i + 8 * r + c] = row
    return {1: res}
