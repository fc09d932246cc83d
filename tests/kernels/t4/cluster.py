from functools import reduce

import numpy as np

M32 = 0xFFFFFFFF


def cluster_dsmem(args, spec):
    src, _ = args
    buf = src.reshape(4, 128).astype(np.int64) & M32
    t = np.arange(128)
    out = np.empty((4, 128), dtype=np.int64)
    for b in range(4):
        out[b] = (buf[b ^ 1][(t + 3) & 127] * 2 + buf[b]) & M32
    return {1: out.astype(np.uint32).view(np.int32).reshape(-1)}


def cluster_reduce(args, spec):
    v, _, _ = args
    vals = [int(x) for x in v]
    sums = np.array(
        [sum(vals) & M32, reduce(lambda a, b: a ^ b, vals), max(vals), min(vals)], dtype=np.uint32
    )
    info = np.array([[b, 4, 4, b] for b in range(4)], dtype=np.int32).reshape(-1)
    return {1: sums, 2: info}


def cluster_2d(args, spec):
    src, _, _ = args
    buf = src.reshape(8, 64).astype(np.int64) & M32
    t = np.arange(64)
    out = np.empty((8, 64), dtype=np.int64)
    regs = np.empty((8, 9), dtype=np.uint32)
    for by in range(2):
        for bx in range(4):
            cta = by * 4 + bx
            vx = buf[by * 4 + (bx ^ 1)][(t + 1) & 63]
            vy = buf[(by ^ 1) * 4 + bx][(t + 1) & 63]
            out[cta] = vx ^ ((vy << 1) & M32)
            rank = (bx % 2) + 2 * (by % 2)
            regs[cta] = [rank, 4, bx % 2, by % 2, bx // 2, by // 2, 2, 1, 2]
    return {1: out.astype(np.uint32).view(np.int32).reshape(-1), 2: regs.reshape(-1)}
