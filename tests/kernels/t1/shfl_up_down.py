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


def shfl_up_down(args, spec):
    a, f, l, out, fout, lout = args
    N = spec.grid[0] * spec.block[0]
    res, fres, lres = out.copy(), fout.copy(), lout.copy()
    for w in range(N // 32):
        s = slice(32 * w, 32 * w + 32)
        x = [int(v) for v in a[s]]
        y = list(f[s])
        z = [int(v) for v in l[s]]
        rows = [
            shfl(x, "up", 1, 32),
            shfl(x, "up", 5, 32),
            shfl(x, "up", 3, 8),
            shfl(x, "up", 0, 32),
            shfl(x, "up", 16, 16),
            shfl(x, "up", 31, 32),
            shfl(x, "down", 1, 32),
            shfl(x, "down", 7, 32),
            shfl(x, "down", 2, 4),
            shfl(x, "down", 31, 32),
            shfl(x, "down", 1, 2),
            shfl(x, "down", 5, 16),
        ]
        for k, r in enumerate(rows):
            res[k * N + 32 * w : k * N + 32 * w + 32] = r
        fres[32 * w : 32 * w + 32] = shfl(y, "up", 2, 32)
        fres[N + 32 * w : N + 32 * w + 32] = shfl(y, "down", 3, 8)
        lres[32 * w : 32 * w + 32] = shfl(z, "down", 4, 32)
        lres[N + 32 * w : N + 32 * w + 32] = shfl(z, "up", 1, 16)
    return {3: res, 4: fres, 5: lres}
