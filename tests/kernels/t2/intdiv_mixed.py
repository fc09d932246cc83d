"""Reference for intdiv_mixed.cu: C++ truncating division on Python integers."""

import math

import numpy as np

M32 = 0xFFFFFFFF


def _tdiv(x, d):
    q = abs(x) // abs(d)
    if (x < 0) != (d < 0):
        q = -q
    return q, x - q * d


def div_in_context(args, spec):
    a, b, u, h, c, out, out64, n = args
    n = int(n[0])
    res, r64 = out.copy(), out64.copy()
    for i in range(n):
        x = int(a[i])
        bi = int(b[i])
        y = bi >> (bi & 15)
        if y == 0 or (x == -(1 << 31) and y == -1):
            y = 3
        q, r = _tdiv(x, y)
        hs, hd = int(h[i]), int(h[n + i])
        if hd == 0:
            hd = 1
        cs = int(c[i])
        cd = int(c[n + i]) | 1  # two's complement or: stays in int8 range
        v = abs(x)
        digits, dsum = 0, 0
        while True:
            dsum += v % 10
            v //= 10
            digits += 1
            if v == 0:
                break
        ui, un = int(u[i]), int(u[n + i])
        g0, g1 = ui | 1, un >> (un & 15)
        while g1:
            g0, g1 = g1, g0 % g1
        num, den = ui >> 1, (un & 0xFFFF) + 1
        vals = [
            q,
            r,
            0,
            _tdiv(hs, hd)[0],
            _tdiv(hs, hd)[1],
            _tdiv(cs, cd)[0],
            (cs & 0xFF) % (cd & 0xFF),
            _tdiv(x, 8)[0],
            _tdiv(x, 8)[1],
            _tdiv(x, -16)[0],
            _tdiv(x, -16)[1],
            digits,
            dsum,
            g0,
            ((num + den - 1) & M32) // den,
            int(num // den * den == num),
        ]
        for k, val in enumerate(vals):
            val &= M32
            res[16 * i + k] = val - (1 << 32) if val >> 31 else val
        m = int(u[(i + 1) % n]) | 0x80000000
        acc = 0
        for k in range(4):
            p = int(u[(i + k) % n]) * int(u[n + (i + 2 * k) % n])
            acc = (acc + p % m) % m
        r64[i] = acc
    return {5: res, 6: r64}
