import numpy as np

M32 = 0xFFFFFFFF


def atom_shared(args, spec):
    a, out, fout = args
    n = spec.block[0]
    res, fres = out.copy(), fout.copy()
    for b in range(spec.grid[0]):
        x = [int(v) for v in a[b * n : (b + 1) * n]]
        ux = [v & M32 for v in x]
        s_and, s_or, s_xor, s_inc = M32, 0, 0, 0
        for v in ux:
            s_and &= v | 0xFF00FF00
            s_or |= v & 0x00010001
            s_xor ^= v
            s_inc = 0 if s_inc >= 50 else s_inc + 1
        s_or |= 0x80000000
        add64 = sum(ux) & ((1 << 64) - 1)
        bins = [0] * 8
        for v in ux:
            bins[v >> 29] += 1
        vals = [
            sum(v >> 12 for v in x),
            min(x),
            max(x),
            sum(v & 1 for v in x),
            s_and,
            s_or,
            s_xor,
            s_inc,
            add64 & M32,
            add64 >> 32,
            1,
            *bins,
        ]
        for k, v in enumerate(vals):
            v &= M32
            res[20 * b + k] = v - (1 << 32) if v >> 31 else v
        # Each term is a multiple of 0.25 below 2**7; every partial sum is exact in float32.
        fres[b] = np.float32(sum((v >> 24) * 0.25 for v in x))
    return {1: res, 2: fres}
