import numpy as np


def _ballot(preds, mask):
    return sum(1 << k for k in range(32) if (mask >> k) & 1 and preds[k])


def vote_full(args, spec):
    a, out = args
    bs = spec.block[0]
    N = spec.grid[0] * bs
    res = out.copy()
    full = 0xFFFFFFFF
    for w0 in range(0, N, 32):
        x = [int(v) for v in a[w0 : w0 + 32]]
        warp = (w0 % bs) // 32
        if warp == 0:
            p = [v > 0 for v in x]
        elif warp == 1:
            p = [True] * 32
        else:
            p = [lane == 7 for lane in range(32)]
        b = _ballot(p, full)
        anyv = int(any(v > 2000000000 for v in x))
        allp = int(all(p))
        allnz = int(all(v != 0 for v in x))
        uni = int(all(p) or not any(p))
        b2 = _ballot([v & 1 for v in x], full) ^ _ballot([lane < 5 for lane in range(32)], full)
        for lane in range(32):
            g = w0 + lane
            vals = [b, anyv, allp, allnz, uni, bin(b).count("1"),
                    bin(b & ((1 << lane) - 1)).count("1"), b2]
            for k, v in enumerate(vals):
                res[k * N + g] = v
    return {1: res}


def vote_partial(args, spec):
    a, out = args
    bs = spec.block[0]
    N = spec.grid[0] * bs
    res = out.copy()
    for blk in range(spec.grid[0]):
        for w0 in range(0, bs, 32):
            nl = min(32, bs - w0)
            m = (1 << nl) - 1
            base = blk * bs + w0
            x = [int(v) for v in a[base : base + nl]] + [0] * (32 - nl)
            b = _ballot([v < 0 for v in x], m)
            anyv = int(any(x[k] == 12345 for k in range(nl)))
            allv = int(all(x[k] > -2147483648 for k in range(nl)))
            lo = _ballot([v & 2 for v in x], m & 0x0000FFFF)
            hi = _ballot([v & 4 for v in x], m & 0xFFFF0000) | 1
            for lane in range(nl):
                g = base + lane
                vals = [m, b, anyv, allv, bin(b).count("1"), lo if lane < 16 else hi]
                for k, v in enumerate(vals):
                    res[k * N + g] = v
    return {1: res}
