import numpy as np

M32, M64 = 0xFFFFFFFF, (1 << 64) - 1


def _block(spec):
    return int(np.prod(spec.block))


def uni_loop(args, spec):
    a, out, n, stride, reps = args
    n, stride, reps = int(n[0]), int(stride[0]), int(reps[0])
    bd = _block(spec)
    res = out.copy()
    for b in range(spec.grid[0]):
        for t in range(bd):
            s = sum(int(a[(b * stride + 3 * k + t) % n]) for k in range(reps))
            res[b * bd + t] = np.uint32(s & M32).view(np.int32)
    return {1: res}


def uni_hash(args, spec):
    out, p, q, s, rounds = args
    p, q, s, rounds = int(p[0]), int(q[0]), int(s[0]), int(rounds[0])
    bd = _block(spec)
    res = out.copy()
    for b in range(spec.grid[0]):
        h = (p * 0x9E3779B9 + q) & M32
        h ^= ((p >> (s & 31)) | (q << ((s + 7) & 31))) & M32
        w = (p * q + b) & M64
        h = (h + (((w >> (s & 31)) ^ (w >> 32)) & M32)) & M32
        for r in range(rounds):
            h = ((h * 33) & M32) ^ (h >> 5)
            h = (h & 0xFF00FF00) | (~h & 0x00FF00FF)
            h = (h + b * 0x1001 + r) & M32
        for t in range(bd):
            res[b * bd + t] = (h + t * (h | 1)) & M32
    return {0: res}


def uni_nested(args, spec):
    a, out, n, rows, cols, ld = args
    n, rows, cols, ld = (int(v[0]) for v in (n, rows, cols, ld))
    bd = _block(spec)
    res = out.copy()
    for b in range(spec.grid[0]):
        acc = sum(int(a[(r * ld + c + b) % n]) * (r + 1) for r in range(rows) for c in range(cols))
        for t in range(bd):
            res[b * bd + t] = np.uint32((acc + t) & M32).view(np.int32)
    return {1: res}


def uni_branch(args, spec):
    a, out, mode, k = args
    mode, k = int(mode[0]), int(k[0])
    bd = _block(spec)
    res = out.copy()
    for b in range(spec.grid[0]):
        m = (mode * 5 + b) & M32
        for t in range(bd):
            v = int(a[b * bd + t]) & M32
            if m % 3 == 0:
                u = v + k
            elif m % 3 == 1:
                u = v ^ (k << (m & 15))
            else:
                u = v * (k | 1)
            if mode > 2 and b != 1:
                u = ~u
            res[b * bd + t] = np.uint32(u & M32).view(np.int32)
    return {1: res}


def uni_wide(args, spec):
    a, out, k, sh = args
    k, sh = int(k[0]), int(sh[0])
    bd = _block(spec)
    res = out.copy()
    for b in range(spec.grid[0]):
        u = (k * 0x100000001 + b) & M64
        lft = (u << (sh & 63)) & M64
        r = u >> ((sh + 13) & 63)
        su = u - (1 << 64) if u >> 63 else u
        sr = (su >> ((sh * 3) & 63)) & M64
        for t in range(bd):
            i = b * bd + t
            x = int(a[i])
            res[4 * i : 4 * i + 4] = [(x + lft) & M64, x ^ r, (x - sr) & M64, (x * (u | 1)) & M64]
    return {1: res}
