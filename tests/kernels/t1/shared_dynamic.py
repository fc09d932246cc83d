import numpy as np


def dyn_rotate(args, spec):
    inp, out, shift = args
    n = spec.block[0]
    s = int(shift[0])
    blocks = inp.reshape(-1, n)
    t = np.arange(n)
    return {1: blocks[:, (t + s) % n].reshape(-1).copy()}


def dyn_carve(args, spec):
    a, out64, out32 = args
    n = spec.block[0]
    t = np.arange(n)
    u, v = (t + 1) % n, (n - 1) - t
    r64, r32 = out64.copy(), out32.copy()
    for b in range(spec.grid[0]):
        x = a[b * n : (b + 1) * n].astype(np.int64)
        s64 = x << 8
        s32 = (x ^ 0x5A5A5A5A) >> 1
        s16 = (x >> 16).astype(np.int16).astype(np.int64)
        r64[b * n : (b + 1) * n] = s64[u] + s16[v]
        r32[b * n : (b + 1) * n] = (s32[v] - s16[u]).astype(np.int32)
    return {1: r64, 2: r32}


def pairsum(args, spec):
    inp, out = args
    n = spec.block[0]
    blocks = inp.reshape(-1, n)
    return {1: (blocks + blocks[:, ::-1]).reshape(-1)}
