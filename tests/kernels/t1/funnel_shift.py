import numpy as np

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def _fl(lo, hi, s):  # shift amount already reduced
    return (((hi << 32) | lo) << s >> 32) & M32


def _fr(lo, hi, s):
    return (((hi << 32) | lo) >> s) & M32


def funnel(args, spec):
    lo, hi, sh, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        l, h, s = int(lo[i]), int(hi[i]), int(sh[i])
        s2 = s % 40
        vals = [
            _fl(l, h, s & 31),
            _fr(l, h, s & 31),
            _fl(l, h, min(s, 32)),
            _fr(l, h, min(s, 32)),
            _fl(l, h, s2 & 31),
            _fr(l, h, s2 & 31),
            _fl(l, h, min(s2, 32)),
            _fr(l, h, min(s2, 32)),
            _fl(l, h, 0),
            _fl(l, h, 13),
            _fr(l, h, 31),
            _fl(l, h, 32),
            _fr(l, h, 32),
            _fr(l, h, 0),
            _fl(l, l, s2 & 31),
            _fr(h, h, 7),
        ]
        for k, v in enumerate(vals):
            res[k * n + i] = v
    return {3: res}


def _rotl(x, s):
    s &= 63
    return ((x << s) | (x >> (64 - s))) & M64 if s else x


def rotate64(args, spec):
    a, sh, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, s = int(a[i]), int(sh[i]) & 63
        vals = [_rotl(x, s), _rotl(x, 64 - s), _rotl(x, 17), _rotl(x, 32), _rotl(x, 19), _rotl(x, 1)]
        for k, v in enumerate(vals):
            res[k * n + i] = v
    return {2: res}
