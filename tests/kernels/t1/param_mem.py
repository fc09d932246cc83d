import struct

import numpy as np

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1


def _s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def param_mix(args, spec):
    out, inp, c, uc, s, us, i32, u32, i64, u64, f = args
    c, uc, s, us, i32, u32, i64, u64 = (int(v[0]) for v in (c, uc, s, us, i32, u32, i64, u64))
    f32 = np.float32(f[0])
    f_bits = struct.unpack("<i", struct.pack("<f", float(f32)))[0]
    res = out.copy()
    for t in range(64):
        x = int(inp[t])
        acc = (x * c) & M64
        acc = (acc + (uc * s)) & M64
        acc ^= us << 20
        acc = (acc + i32 * (t + 1)) & M64
        acc = (acc - u32) & M64
        acc = (acc + ((i64 & M64) >> (t & 63))) & M64
        acc ^= (u64 * (t | 1)) & M64
        acc = (acc + f_bits) & M64
        res[t] = _s64(acc)
        res[64 + t] = int(f32 * np.float32(t))
    return {0: res}


def param_many(args, spec):
    out = args[0]
    p = [int(v[0]) for v in args[1:25]]
    last = int(args[25][0])
    h = 2166136261
    for v in p:
        h = ((h ^ (v & M32)) * 16777619) & M32
    res = out.copy()
    for t in range(64):
        res[t] = (h + t * (p[7] & M32) + ((last >> (t & 63)) & M32)) & M32
    return {0: res}
