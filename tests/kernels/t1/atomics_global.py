import numpy as np

M32 = 0xFFFFFFFF


def _s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def atom_global_i32(args, spec):
    a, acc, uacc, slots, own, old_out, n = args
    n = int(n[0])
    x = [int(v) for v in a[:n]]
    ux = [v & M32 for v in x]
    r_acc = [int(v) for v in acc]
    r_u = [int(v) for v in uacc]
    r_slots = [int(v) for v in slots]
    r_acc[0] = _s32(r_acc[0] + sum(v >> 10 for v in x))
    r_acc[1] = _s32(r_acc[1] - sum(v >> 10 for v in x))
    r_acc[2] = min([r_acc[2], *x])
    r_acc[3] = max([r_acc[3], *x])
    r_acc[4] = _s32(r_acc[4] + n)
    r_u[0] = min([r_u[0], *ux])
    r_u[1] = max([r_u[1], *ux])
    for v in ux:
        r_u[2] &= v | 0x80000001
        r_u[3] |= v & 0x0F0F0F0F
        r_u[4] ^= v
        r_u[5] = 0 if r_u[5] >= 100 else r_u[5] + 1
        r_u[6] = 37 if (r_u[6] == 0 or r_u[6] > 37) else r_u[6] - 1
    r_u[7] = (r_u[7] + sum(ux)) & M32
    for k in range(8):
        if k < n:
            r_u[8 + k] = 0xABCD0000 | k
    for i, v in enumerate(x):
        r_slots[i % 16] = _s32(r_slots[i % 16] + ((v >> 16) | 1))
    r_own = own.copy()
    r_old = old_out.copy()
    for i in range(n):
        old = int(own[i])
        r_old[2 * i] = old
        if old == i:
            r_own[i] = ux[i]
        r_old[2 * i + 1] = int(own[n + i])
        r_own[n + i] = (int(own[n + i]) + 5) & M32
    return {
        1: np.array(r_acc, dtype=np.int32),
        2: np.array(r_u, dtype=np.uint32),
        3: np.array(r_slots, dtype=np.int32),
        4: r_own,
        5: r_old,
    }
