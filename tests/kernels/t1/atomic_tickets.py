import numpy as np


def tickets_simple(args, spec):
    counter, marks, n = args
    n = int(n[0])
    r_m = marks.copy()
    start = int(counter[0])
    r_m[start : start + n] += 1
    return {0: np.array([start + n], dtype=np.uint32), 1: r_m}


def tickets_warp_aggregated(args, spec):
    counter, marks, per_warp = args
    bs = spec.block[0]
    total = 0
    r_w = per_warp.copy()
    for b in range(spec.grid[0]):
        for w in range(bs // 32):
            cnt = sum(1 for lane in range(32) if ((w * 32 + lane) * 7 + b) % 3 != 0)
            r_w[(b * bs) // 32 + w] = cnt
            total += cnt
    start = int(counter[0])
    r_m = marks.copy()
    r_m[start : start + total] += 1
    return {0: np.array([start + total], dtype=np.uint32), 1: r_m, 2: r_w}


def tickets_wrap(args, spec):
    (out,) = args
    nt, nb = spec.block[0], spec.grid[0]
    res = out.copy()
    for b in range(nb):
        seen = [0] * 16
        ctr = 0
        for _ in range(nt):
            seen[ctr] += 1
            ctr = 0 if ctr >= 15 else ctr + 1
        res[16 * b : 16 * b + 16] = seen
        res[16 * nb + b] = ctr
    return {0: res}
