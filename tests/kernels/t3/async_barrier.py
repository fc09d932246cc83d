import numpy as np

M32 = 0xFFFFFFFF


def barrier_memcpy(args, spec):
    src, _ = args
    v = src.reshape(3, 128, 4).astype(np.int64) & M32
    out = np.zeros(128, dtype=np.int64)
    for t in range(128):
        acc = 0
        for r in range(3):
            x, y, z, w = (int(e) for e in v[r, (t + 5 * r + 1) % 128])
            acc = (acc * 31 + (x ^ y) + (z - w)) & M32
        out[t] = acc
    return {1: out.astype(np.uint32).view(np.int32)}


def mbarrier_handoff(args, spec):
    src, _ = args
    out = np.zeros(64, dtype=np.uint32)
    lane = np.arange(32)
    for r in range(2):
        data = src[r * 32 : (r + 1) * 32] ^ np.uint32((r * 0x9E3779B9) & M32)
        with np.errstate(over="ignore"):
            out[r * 32 : (r + 1) * 32] = data[(lane + 7) & 31] + data
    return {1: out}
