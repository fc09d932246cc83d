import numpy as np


def bulk_roundtrip(args, spec):
    x, _ = args
    i = np.tile(np.arange(256, dtype=np.uint32), spec.grid[0])
    return {1: (x * np.uint32(3) + i).astype(np.uint32)}


def bulk_phases(args, spec):
    x, out = args
    x = x.astype(np.uint64)
    p0 = np.concatenate([x[496:512], x[0:48], x[48:496]])
    p1 = np.concatenate([x[768:1024], x[512:768]])
    w = np.arange(1, 513, dtype=np.uint64)
    bd = int(np.prod(spec.block))
    res = out.copy()
    for t in range(bd):
        idx = np.arange(t, 512, bd)
        res[2 * t] = int((p0[idx] * w[idx]).sum()) & 0xFFFFFFFF
        res[2 * t + 1] = int((p1[idx] * w[idx]).sum()) & 0xFFFFFFFF
    return {1: res}


def bulk_reduce(args, spec):
    x, acc_add, acc_max, acc_xor = args
    blocks = x.reshape(spec.grid[0], 128)
    add = (acc_add.astype(np.uint64) + blocks.astype(np.uint64).sum(axis=0)) & 0xFFFFFFFF
    mx = np.maximum(acc_max, blocks.view(np.int32).max(axis=0))
    xr = acc_xor.copy()
    for b in blocks:
        xr ^= b
    return {1: add.astype(np.uint32), 2: mx.astype(np.int32), 3: xr}


def bulk_dsmem(args, spec):
    x, _ = args
    t = np.arange(128, dtype=np.uint32)
    res = []
    for b in range(spec.grid[0]):
        partner = x[(b ^ 1) * 128 : (b ^ 1) * 128 + 128] ^ (t << np.uint32(16))
        res.append(partner[(t + 5) & 127] + t)
    return {1: np.concatenate(res).astype(np.uint32)}
