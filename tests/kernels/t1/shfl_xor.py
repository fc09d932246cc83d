"""Shuffle semantics follow the PTX ISA pseudocode of shfl.sync (see t1/shfl_idx.py)."""

import numpy as np


def shfl(vals, mode, b, width):
    seg = (32 - width) & 31
    cval = 0 if mode == "up" else 31
    out = []
    for lane in range(32):
        bval = (b[lane] if hasattr(b, "__len__") else b) & 31
        max_lane = (lane & seg) | (cval & ~seg & 31)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~seg & 31)
            ok = j <= max_lane
        out.append(vals[j] if ok else vals[lane])
    return out


def shfl_xor(args, spec):
    a, f, out, fout = args
    N = spec.grid[0] * spec.block[0]
    res, fres = out.copy(), fout.copy()
    for w in range(N // 32):
        s = slice(32 * w, 32 * w + 32)
        x = [int(v) for v in a[s]]
        rows = [
            shfl(x, "bfly", 1, 32),
            shfl(x, "bfly", 16, 32),
            shfl(x, "bfly", 31, 32),
            shfl(x, "bfly", 5, 8),
            shfl(x, "bfly", 8, 8),
            shfl(x, "bfly", 20, 16),
            shfl(x, "bfly", 3, 4),
        ]
        sm = [v >> 8 for v in x]
        mn, mx = list(x), list(x)
        for m in (16, 8, 4, 2, 1):
            p = shfl(sm, "bfly", m, 32)
            sm = [u + v for u, v in zip(sm, p)]
            p = shfl(mn, "bfly", m, 32)
            mn = [min(u, v) for u, v in zip(mn, p)]
            p = shfl(mx, "bfly", m, 32)
            mx = [max(u, v) for u, v in zip(mx, p)]
        rows += [sm, mn, mx]
        for k, r in enumerate(rows):
            res[k * N + 32 * w : k * N + 32 * w + 32] = r
        v = list(f[s])
        for m in (1, 2, 4, 8, 16):
            p = shfl(v, "bfly", m, 32)
            v = [np.float32(u) + np.float32(q) for u, q in zip(v, p)]
        fres[32 * w : 32 * w + 32] = v
    return {2: res, 3: fres}
