import struct

import numpy as np

from openptxas.testing import refmath as R


def _unpack_params(raw):
    n, scale, bias, tag, f0, f1, f2, mask = struct.unpack("<ifdh3B3xq", raw.tobytes())
    return n, np.float32(scale), bias, tag, (f0, f1, f2), mask


def struct_param_small(args, spec):
    raw, x, out, tags = args
    n, scale, bias, tag, flags, mask = _unpack_params(raw)
    out, tags = out.copy(), tags.copy()
    out[:n] = (x[:n] * scale).astype(np.float64) + bias
    for i in range(n):
        v = (tag * flags[i % 3]) ^ ((mask >> (i % 64)) & 0xFFFFFFFF)
        tags[i] = np.uint32(v & 0xFFFFFFFF).view(np.int32)
    return {2: out, 3: tags}


def struct_param_mixed(args, spec):
    k, v, q, out = args
    vx, vy = struct.unpack("<2f", v.tobytes())
    quad = struct.unpack("<4i", q.tobytes())
    k = int(k[0])
    i = np.arange(32)
    w = np.array([quad[(j + k) & 3] for j in i], dtype=np.float32)
    prod = np.float32(vy) * i.astype(np.float32)
    res = R.fma(w, np.full(32, vx, np.float32), prod.astype(np.float32), R.Fmt.F32)
    return {3: res}
