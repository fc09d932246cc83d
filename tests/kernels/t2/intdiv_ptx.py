"""Reference for intdiv_ptx.cu: PTX div/rem truncate toward zero (the remainder takes the
dividend's sign), computed on Python integers."""

import numpy as np


def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _tdiv(x, d):
    q = abs(x) // abs(d)
    if (x < 0) != (d < 0):
        q = -q
    return q, x - q * d


def ptx_div(args, spec):
    a32, b32, a64, b64, out32, out64, n = args
    n = int(n[0])
    r32, r64 = out32.copy(), out64.copy()
    for i in range(n):
        x, bb = int(a32[i]), int(b32[i])
        y = bb >> (bb & 31)
        if y == 0 or (x == -(1 << 31) and y == -1):
            y = 7
        hx, hy = _wrap(x, 16, True), _wrap(y >> 4, 16, True)
        if hy == 0 or (hx == -32768 and hy == -1):
            hy = -5
        ux16, uy16 = x & 0xFFFF, (hy | 1) & 0xFFFF
        X, BB = int(a64[i]), int(b64[i])
        Y = BB >> (BB & 63)
        if Y == 0 or (X == -(1 << 63) and Y == -1):
            Y = 11
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        uX, uY = X & ((1 << 64) - 1), Y & ((1 << 64) - 1)
        q, r = _tdiv(x, y)
        hq, hr = _tdiv(hx, hy)
        vals32 = [q, r, ux // uy, ux % uy, hq, hr, ux16 // uy16, ux16 % uy16]
        r32[8 * i : 8 * i + 8] = [_wrap(v, 32, True) for v in vals32]
        Q, R = _tdiv(X, Y)
        vals64 = [Q, R, uX // uY, uX % uY]
        r64[4 * i : 4 * i + 4] = [_wrap(v, 64, True) for v in vals64]
    return {4: r32, 5: r64}
