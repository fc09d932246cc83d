import numpy as np


def bitonic_sort_keys(args, spec):
    inp, out = args
    return {1: np.sort(inp.reshape(-1, 256), axis=1).reshape(-1)}


def bitonic_sort_pairs(args, spec):
    keys, out_keys, out_idx = args
    rk, ri = out_keys.copy(), out_idx.copy()
    for b in range(spec.grid[0]):
        k = keys[b * 256 : (b + 1) * 256] >> np.uint32(24)
        order = np.lexsort((np.arange(256), k))  # by key, then by index
        rk[b * 256 : (b + 1) * 256] = k[order]
        ri[b * 256 : (b + 1) * 256] = order
    return {1: rk, 2: ri}
