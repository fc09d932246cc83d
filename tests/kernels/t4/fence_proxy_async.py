import numpy as np

N = 256


def fence_proxy_async(args, spec):
    src, _, _, _ = args
    i = np.arange(N)
    with np.errstate(over="ignore"):
        scratch = (src * np.uint32(2654435761)).astype(np.uint32)
        staged = (scratch[(i * 5) % N] ^ i.astype(np.uint32)).astype(np.uint32)
        out = (staged[(i + 1) % N] + staged).astype(np.uint32)
    return {1: scratch, 2: staged, 3: out}
