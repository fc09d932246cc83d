import numpy as np


def layernorm(args, spec):
    x, y, w, b, stride, n, eps, _, _ = args
    n, s = int(n[0]), int(stride[0])
    res = y.copy()
    for r in range(spec.grid[0]):
        v = x[r * s : r * s + n].astype(np.float64)
        xc = v - v.mean()
        rstd = 1.0 / np.sqrt((xc * xc).mean() + float(eps[0]))
        res[r * s : r * s + n] = (xc * rstd * w[:n] + b[:n]).astype(np.float32)
    return {1: res}
