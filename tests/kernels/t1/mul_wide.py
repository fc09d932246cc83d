import numpy as np


def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _sext24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v & 0x800000 else v


def mul_wide(args, spec):
    a, b, c, h, uh, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        vals = [
            x * y,
            _wrap(ux * uy, 64, True),
            _wrap(x * y + int(c[i]), 64, True),
            x * 1000003,
            _wrap(ux * 0xFFFFFFFF, 64, True),
            int(h[i]) * int(h[i + n]),
            int(uh[i]) * int(uh[i + n]),
            _wrap(_sext24(x) * _sext24(y), 32, True),
            (ux & 0xFFFFFF) * (uy & 0xFFFFFF) & 0xFFFFFFFF,
            _wrap((ux << 32) | uy, 64, True),
            (x * y) >> 16,
            (ux * uy) >> 7,
        ]
        for k, v in enumerate(vals):
            res[k * n + i] = v
    return {5: res}


def mul_128(args, spec):
    a, b, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        p = int(a[i]) * int(b[i])
        res[3 * i] = p & 0xFFFFFFFFFFFFFFFF
        res[3 * i + 1] = p >> 64
        res[3 * i + 2] = 0
    return {2: res}
