"""Reference for intdiv_s32_var.cu: C++ integer division (truncating toward zero; the remainder takes
the dividend's sign) on Python integers, wrapped to 32 bits."""

import numpy as np

BITS = 32
SIGNED = True
DIVS = [1, -1, 2, -2, 3, -7, 1000, -65536, 2147483647, -2147483647, -2147483648]
NUMS = [0, 1, -1, 2147483647, -2147483647, -2147483648]
MASK = (1 << BITS) - 1
MIN = -(1 << (BITS - 1))


def _wrap(v):
    v &= MASK
    return v - (1 << BITS) if SIGNED and v >> (BITS - 1) else v


def _div(x, d):
    if SIGNED and d == -1 and x == MIN:
        return MIN, 0  # the kernel's select: the wrapped PTX value
    q = abs(x) // abs(d)
    if (x < 0) != (d < 0):
        q = -q
    return q, x - q * d


def div_var(args, spec):
    a, b, out, ud, n = args
    n, ud = int(n[0]), int(ud[0])
    res = out.copy()
    for i in range(n):
        x = NUMS[(i >> 3) % len(NUMS)] if i & 4 else int(a[i])
        r = int(b[i])
        if i & 2:
            d = DIVS[((i >> 3) + (i & 1) * 5) % len(DIVS)]
        else:
            s = r & (BITS - 1)
            d = _wrap((_wrap(r) >> s) if SIGNED else (r >> s))
        if d == 0:
            d = 1
        q, rem = _div(x, d)
        uq, urem = _div(x, ud)
        res[5 * i : 5 * i + 5] = [_wrap(q), _wrap(rem), _wrap(uq), _wrap(urem), d]
    return {2: res}
