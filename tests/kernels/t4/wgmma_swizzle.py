import numpy as np


def wgmma_swizzle(args, spec):
    a, b, _ = args
    d = (a.astype(np.int64) >> 1).reshape(64, 64) @ (b.astype(np.int64) >> 1).reshape(64, 8)
    return {2: d.astype(np.float32).reshape(-1)}
