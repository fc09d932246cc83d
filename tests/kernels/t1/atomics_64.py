import numpy as np

M64 = (1 << 64) - 1


def _s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def atom_global_64(args, spec):
    a, uacc, sacc, own, old_out, n = args
    n = int(n[0])
    x = [int(v) for v in a[:n]]
    ux = [v & M64 for v in x]
    u = [int(v) for v in uacc]
    s = [int(v) for v in sacc]
    u[0] = (u[0] + sum(ux)) & M64
    u[1] = (u[1] + n) & M64
    u[2] = min([u[2], *ux])
    u[3] = max([u[3], *ux])
    for v in ux:
        u[4] &= v | 0x8000000000000001
        u[5] |= v & 0x00FF00FF00FF00FF
        u[6] ^= v
    for k in range(min(4, n)):
        u[7 + k] = 0x1234567800000000 + k
    s[0] = min([s[0], *x])
    s[1] = max([s[1], *x])
    for i, v in enumerate(x):
        s[2 + (i & 1)] = _s64(s[2 + (i & 1)] + (v >> 20))
    r_own, r_old = own.copy(), old_out.copy()
    for i in range(n):
        old = int(own[i])
        r_old[i] = old
        if old == i * 3:
            r_own[i] = ux[i]
    return {
        1: np.array(u, dtype=np.uint64),
        2: np.array(s, dtype=np.int64),
        3: r_own,
        4: r_old,
    }
