import numpy as np


def smem_reverse(args, spec):
    inp, out = args
    bs = spec.block[0]
    res = inp.reshape(-1, bs)[:, ::-1].reshape(-1).copy()
    return {1: res}


def smem_types(args, spec):
    inp, out, fout = args
    t = np.arange(256)
    x = inp.astype(np.int64)
    s8 = inp.astype(np.int8).astype(np.int64)
    u16 = (inp >> 8).astype(np.uint16).astype(np.int64)
    s64 = x * x[(t + 1) & 255]
    f32 = (inp >> 12).astype(np.float32)
    res = s8[(t * 5) & 255] + u16[255 - t] + (s64[(t + 17) & 255] >> 36)
    fres = f32[(t * 3) & 255] - f32[t ^ 1]
    return {1: res.astype(np.int32), 2: fres}


def smem_rotate_tile(args, spec):
    inp, out = args
    m = inp.reshape(32, 32)
    res = np.empty_like(m)
    for by in range(2):
        for bx in range(2):
            tile = m[by * 16 : by * 16 + 16, bx * 16 : bx * 16 + 16]
            # out[ty][tx] = tile[15 - tx][ty]
            ty, tx = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
            res[by * 16 : by * 16 + 16, bx * 16 : bx * 16 + 16] = tile[15 - tx, ty]
    return {1: res.reshape(-1)}
