import numpy as np


def _classify(x):
    if x < -1000000:
        return -1
    if x > 1000000:
        return 1
    if x & 1:
        return 2
    return 0


def early_exit(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        res[i] = _classify(x)
        if x < -1500000000:
            continue
        res[n + i] = x >> 4
        k = next((k for k in range(32) if (x >> k) == 0), 32)
        res[2 * n + i] = k
    return {1: res}


def early_exit_warps(args, spec):
    a, out = args
    res = out.copy()
    for t in range(spec.block[0]):
        warp, lane = t // 32, t % 32
        if warp == 1:
            continue
        if warp == 2 and lane not in (5, 31):
            continue
        if lane == 0:
            res[t] = 0xC0FFEE
            continue
        res[t] = (int(a[t]) * lane + warp) & 0xFFFFFFFF
    return {1: res}
