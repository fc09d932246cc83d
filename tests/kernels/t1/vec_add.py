import numpy as np


def vec_add(args, spec):
    a, b, c, n = args
    n = int(n[0])
    out = c.copy()
    out[:n] = (a[:n] + b[:n]).astype(np.float32)
    return {2: out}
