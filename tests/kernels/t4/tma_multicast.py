import numpy as np

W, H, D = 20, 12, 6
BX, BY, BZ = 8, 4, 2


def tma_multicast_3d(args, spec):
    _, src, out = args
    t = src.reshape(D, H, W)
    res = np.zeros((4, 2, BZ, BY, BX), dtype=np.float32)
    for cta in range(4):
        cluster = cta // 2
        for r in range(2):  # box loaded by rank r, multicast to both CTAs of the cluster
            x, y, z = BX * r, BY * cluster, BZ * r
            res[cta, r] = t[z : z + BZ, y : y + BY, x : x + BX]
    return {2: res.reshape(-1)}
