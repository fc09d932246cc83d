import numpy as np

M32 = (1 << 32) - 1


def _s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def _rotl(a, b):
    a &= M32
    r = b & 31
    return _s32((a << r) | (a >> (32 - r))) if r else _s32(a)


OPS = [
    lambda a, b: _s32(a + b),
    lambda a, b: a ^ b,
    lambda a, b: (a * b) >> 32,
    min,
    _rotl,
]


def indirect_calls(args, spec):
    sel, vals, out = args
    out = out.copy()
    v = [int(x) for x in vals]
    for t in range(64):
        s = int(sel[t])
        acc = v[t]
        for step in range(8):
            acc = OPS[((s >> (4 * step)) & M32) % 5](acc, v[(t + step + 1) % 64])
        out[2 * t] = acc
        f = OPS[t % 5]
        out[2 * t + 1] = f(f(v[t], t * 7 + 1), t * 7 + 1)
    return {2: out}
