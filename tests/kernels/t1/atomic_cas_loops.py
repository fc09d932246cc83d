import numpy as np

M32 = 0xFFFFFFFF


def _key(f):
    u = int(np.float32(f).view(np.uint32))
    return (~u & M32) if u & 0x80000000 else (u | 0x80000000)


def cas_loops(args, spec):
    f, u, fmax_out, argmax_out, prod_out, pairs, flag, n = args
    n = int(n[0])
    v = f[:n]
    r_fmax = fmax_out.copy()
    r_fmax[0] = max(r_fmax[0], v.max())
    r_fmax[1] = max(r_fmax[1], (-v[0::2]).max())
    r_fmax[2] = max(r_fmax[2], (-v[1::2]).max())
    r_arg = argmax_out.copy()
    quant = (v * np.float32(4)).astype(np.int32).astype(np.float32)
    for slot, vals in ((0, v), (1, quant)):
        best = int(r_arg[slot])
        for i in range(n):
            mine = (_key(vals[i]) << 32) | (M32 - i)
            best = max(best, mine)
        r_arg[slot] = best
    r_prod = prod_out.copy()
    for i in range(n):
        r_prod[i & 3] = (int(r_prod[i & 3]) * (int(u[i]) | 1)) & M32
    r_pairs = pairs.copy()
    for i in range(n):
        k = 2 * (i % 5) + ((int(u[i]) >> 7) & 1)
        r_pairs[k] = (int(r_pairs[k]) + 1) & 0xFFFF
    r_flag = np.ones_like(flag)
    return {2: r_fmax, 3: r_arg, 4: r_prod, 5: r_pairs, 6: r_flag}
