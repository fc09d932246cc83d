"""Shuffle semantics follow the PTX ISA pseudocode of shfl.sync (CUDA passes c = ((32 - width) << 8)
| 0x1f for idx/down/xor and (32 - width) << 8 for up)."""

import numpy as np


def shfl(vals, mode, b, width):
    """One warp: vals[32] -> the 32 results; b is a scalar or a per-lane sequence."""
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


def shfl_idx(args, spec):
    a, f, l, out, fout, lout = args
    N = spec.grid[0] * spec.block[0]
    res, fres, lres = out.copy(), fout.copy(), lout.copy()
    lanes = list(range(32))
    for w in range(N // 32):
        s = slice(32 * w, 32 * w + 32)
        x = [int(v) for v in a[s]]
        y = list(f[s])
        z = [int(v) for v in l[s]]
        rows = [
            shfl(x, "idx", 0, 32),
            shfl(x, "idx", [31 - k for k in lanes], 32),
            shfl(x, "idx", [k + 1 for k in lanes], 32),
            shfl(x, "idx", [k ^ 5 for k in lanes], 16),
            shfl(x, "idx", 3, 8),
            shfl(x, "idx", -1, 4),
            shfl(x, "idx", [v & 31 for v in x], 32),
            shfl(x, "idx", [3 * k for k in lanes], 32),
            shfl(x, "idx", [k + 9 for k in lanes], 8),
            shfl(x, "idx", 1, 2),
        ]
        for k, r in enumerate(rows):
            res[k * N + 32 * w : k * N + 32 * w + 32] = r
        fres[32 * w : 32 * w + 32] = shfl(y, "idx", [(k + 7) & 31 for k in lanes], 32)
        fres[N + 32 * w : N + 32 * w + 32] = shfl(y, "idx", [2 * k for k in lanes], 16)
        lres[32 * w : 32 * w + 32] = shfl(z, "idx", [31 - k for k in lanes], 32)
        lres[N + 32 * w : N + 32 * w + 32] = shfl(z, "idx", [k >> 1 for k in lanes], 4)
    return {3: res, 4: fres, 5: lres}
