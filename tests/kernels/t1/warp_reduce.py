"""The reductions are simulated lane by lane with shfl.down semantics (a lane whose source is past
lane 31 reads its own value), so float sums come out in exactly the kernel's order."""

import numpy as np

F = np.float32
M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def _down(vals, o):
    return [vals[k + o] if k + o < 32 else vals[k] for k in range(32)]


def _tree(vals, op):
    for o in (16, 8, 4, 2, 1):
        p = _down(vals, o)
        vals = [op(u, v) for u, v in zip(vals, p)]
    return vals[0]


def _fadd(u, v):
    return F(F(u) + F(v))


def block_sum(args, spec):
    f, u, fout, uout, warp_out = args
    bs = spec.block[0]
    r_f, r_u, r_w = fout.copy(), uout.copy(), warp_out.copy()
    for b in range(spec.grid[0]):
        fw, uw = [], []
        for w in range(bs // 32):
            base = b * bs + 32 * w
            fw.append(_tree(list(f[base : base + 32]), _fadd))
            uw.append(_tree([int(v) for v in u[base : base + 32]], lambda x, y: (x + y) & M32))
            r_w[base // 32] = fw[-1]
        r_f[b] = _tree(fw + [F(0)] * (32 - len(fw)), _fadd)
        r_u[b] = _tree(uw + [0] * (32 - len(uw)), lambda x, y: (x + y) & M32)
    return {2: r_f, 3: r_u, 4: r_w}


def warp_argmax_sum64(args, spec):
    a, l, best, sum64 = args
    r_b, r_s = best.copy(), sum64.copy()
    n = spec.grid[0] * spec.block[0]
    for w in range(n // 32):
        v = [int(x) for x in a[32 * w : 32 * w + 32]]
        idx = list(range(32))
        s = [int(x) & M64 for x in l[32 * w : 32 * w + 32]]
        for o in (16, 8, 4, 2, 1):
            ov, oi, os_ = _down(v, o), _down(idx, o), _down(s, o)
            for k in range(32):
                if ov[k] > v[k] or (ov[k] == v[k] and oi[k] < idx[k]):
                    v[k], idx[k] = ov[k], oi[k]
                s[k] = (s[k] + os_[k]) & M64
        r_b[2 * w], r_b[2 * w + 1] = v[0], idx[0]
        r_s[w] = s[0] - (1 << 64) if s[0] >> 63 else s[0]
    return {2: r_b, 3: r_s}
