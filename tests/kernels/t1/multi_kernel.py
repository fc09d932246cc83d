import numpy as np

M32 = 0xFFFFFFFF
LUT = [5, -3, 8, 13, -21, 34, 55, -89, 144, 233, -377, 610, 987, -1597, 2584, 4181]
SALT = 0x5BD1E995


def _mix(x):
    x ^= x >> 15
    x = (x * SALT) & M32
    return x ^ (x >> 13)


def mk_lookup(args, spec):
    inp, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(inp[i])
        res[i] = LUT[_mix(x) & 15] + LUT[(x >> 28) & 15]
    return {1: res}


def mk_bucket(args, spec):
    inp, counts, n = args
    n = int(n[0])
    bs = spec.block[0]
    res = counts.copy()
    res[:] = 0
    for i in range(n):
        res[4 * (i // bs) + (_mix(int(inp[i])) & 3)] += 1
    return {1: res}


def mk_table(args, spec):
    (out,) = args
    res = out.copy()
    for t in range(spec.block[0]):
        res[t] = LUT[t & 15] * (t >> 4) + (SALT >> (t & 31))
    return {0: res}
