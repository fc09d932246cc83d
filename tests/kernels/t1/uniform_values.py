import numpy as np

M32 = 0xFFFFFFFF


def uniform_mix(args, spec):
    table, data, out, seed, stride = args
    seed, stride = int(seed[0]), int(stride[0])
    bs, nb = spec.block[0], spec.grid[0]
    res = out.copy()
    for b in range(nb):
        h = seed ^ ((b * 0x9E3779B9) & M32)
        for k in range(b + 3):
            h = ((h << 5) & M32) ^ (h >> 27) ^ int(table[(b * stride + k) & 63])
        for t in range(bs):
            v = int(data[b * bs + t])
            r = (v * h) & M32 if b & 1 else v ^ h ^ nb
            res[b * bs + t] = (r + int(table[(h >> 26) & 63])) & M32
    return {2: res}
