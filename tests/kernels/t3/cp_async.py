import numpy as np


def cp_async_ptx(args, spec):
    src, _ = args
    words = src[:64].copy()
    pairs = src[64:192].copy()
    quads = src[192:448].copy()
    qb = quads.view(np.uint8).reshape(64, 16).copy()
    for t in range(1, 64, 2):
        qb[t, t % 17 :] = 0  # zero fill past the source size
    quads = qb.reshape(-1).view(np.uint32)
    t = np.arange(64)
    with np.errstate(over="ignore"):
        x = words * np.uint32(3)
        x ^= pairs[2 * t] + pairs[2 * t + 1]
        q = quads.reshape(64, 4)
        x += q[:, 0] ^ q[:, 1] ^ q[:, 2] ^ q[:, 3]
        y = words[63 - t] + pairs[(2 * t + 5) % 128]
    z = q[(t + 1) % 64].reshape(-1)
    return {1: np.concatenate([x, y, z]).astype(np.uint32)}


def cp_async_pipeline(args, spec):
    src, _ = args
    v = src.reshape(6, 64, 4)
    acc = np.zeros(64, dtype=np.float32)
    for s in range(6):
        acc = acc + ((v[s, :, 0] + v[s, :, 1]) + (v[s, :, 2] + v[s, :, 3]))
    return {1: acc.astype(np.float32)}


def cp_async_cg(args, spec):
    src, _ = args
    out = np.empty(1024, dtype=np.int32)
    for b in range(2):
        tile = src[b * 512 : (b + 1) * 512]
        i = np.arange(512)
        out[b * 512 + i] = (tile[511 - i].astype(np.int64) - (i % 8)).astype(np.int32)
    return {1: out}
