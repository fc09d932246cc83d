import numpy as np


def hist_bytes(args, spec):
    data, bins, nwords = args
    nw = int(nwords[0])
    res = bins.copy()
    res += np.bincount(data[: 4 * nw], minlength=256).astype(np.uint32)
    return {1: res}


def hist_warp_private(args, spec):
    data, bins, n = args
    n = int(n[0])
    v = data[:n].view(np.uint32)
    keys = (v ^ (v >> np.uint32(13))) & np.uint32(63)
    res = bins.copy()
    res += np.bincount(keys, minlength=64).astype(np.uint32)
    return {1: res}
