"""Reference semantics follow the PTX ISA pseudocode for bfe, bfi, bfind, lop3 and prmt."""

import numpy as np


def _bit(v, k):
    return (v >> k) & 1


def bfe(a, pos, length, bits, signed):
    msb = bits - 1
    pos &= 0xFF
    length &= 0xFF
    sbit = _bit(a, min(pos + length - 1, msb)) if signed and length else 0
    d = 0
    for k in range(bits):
        b = _bit(a, pos + k) if (k < length and pos + k <= msb) else sbit
        d |= b << k
    return d


def bfi(a, b, pos, length, bits):
    msb = bits - 1
    pos &= 0xFF
    length &= 0xFF
    f = b
    k = 0
    while k < length and pos + k <= msb:
        f = (f & ~(1 << (pos + k))) | (_bit(a, k) << (pos + k))
        k += 1
    return f


def bfind_u32(a):
    return a.bit_length() - 1 if a else 0xFFFFFFFF


def bfind_s32(a):  # a as a 32-bit pattern; position of the most significant non-sign bit
    if a & 0x80000000:
        a = ~a & 0xFFFFFFFF
    return bfind_u32(a)


def lop3(a, b, c, lut):
    r = 0
    for k in range(32):
        idx = (_bit(a, k) << 2) | (_bit(b, k) << 1) | _bit(c, k)
        r |= _bit(lut, idx) << k
    return r


def prmt(a, b, c):
    v = (b << 32) | a
    r = 0
    for k in range(4):
        sel = (c >> (4 * k)) & 0xF
        byte = (v >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        r |= byte << (8 * k)
    return r


def _sar32(x, s):  # (int)x >> s as a 32-bit pattern
    sx = x - (1 << 32) if x & 0x80000000 else x
    return (sx >> s) & 0xFFFFFFFF


def bitfield32(args, spec):
    a, b, p, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, y, q = int(a[i]), int(b[i]), int(p[i])
        pa, la = q & 0x3F, (q >> 8) & 0x3F
        s = q & 31
        vals = [
            bfe(x, pa, la, 32, False),
            bfe(x, pa, la, 32, True),
            bfe(x, q, q >> 8, 32, False),
            bfe(x, q >> 16, q >> 24, 32, True),
            bfe(x, 8, 8, 32, False),
            bfe(x, 4, 12, 32, True),
            bfi(x, y, pa, la, 32),
            bfi(x, y, q, q >> 8, 32),
            bfi(x, y, 16, 8, 32),
            bfind_u32(x >> s),
            bfind_s32(_sar32(x, s)),
            (31 - bfind_u32(x >> s)) if (x >> s) else 0xFFFFFFFF,
            lop3(x, y, q, 0xE8),
            lop3(x, y, q, 0x96),
            lop3(x, y, q, 0xCA),
            lop3(x, y, q, 0x80) ^ lop3(x, y, q, 0xFE),
            lop3(x, y, q, 0x01),
            lop3(x, y, q, 0x6A),
            prmt(x, y, q),
            prmt(x, y, 0x89AB),
        ]
        for k, v in enumerate(vals):
            res[k * n + i] = v
    return {3: res}


def bitfield64(args, spec):
    a, b, p, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, y, q = int(a[i]), int(b[i]), int(p[i])
        pa, la = q & 0x7F, (q >> 8) & 0x7F
        vals = [
            bfe(x, pa, la, 64, False),
            bfe(x, pa, la, 64, True),
            bfe(x, q, q >> 8, 64, False),
            bfe(x, 40, 20, 64, True),
            bfi(x, y, pa, la, 64),
            bfi(x, y, q >> 16, q >> 24, 64),
            bfi(x, y, 28, 8, 64),
        ]
        for k, v in enumerate(vals):
            res[k * n + i] = v
    return {3: res}
