import numpy as np


def _popc(v):
    return bin(v).count("1")


def _clz(v, bits):
    return bits - v.bit_length()


def _ffs(v):
    return (v & -v).bit_length()


def _brev(v, bits):
    return int(format(v, f"0{bits}b")[::-1], 2)


def _byte_perm(x, y, s):
    v = (y << 32) | x
    r = 0
    for k in range(4):
        sel = (s >> (4 * k)) & 7
        r |= ((v >> (8 * sel)) & 0xFF) << (8 * k)
    return r


def bit_count(args, spec):
    a, b, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        x2 = x >> (i & 31)
        y = int(b[i])
        y2 = y >> (i & 63)
        vals = [
            _popc(x),
            _clz(x, 32),
            _ffs(x),
            _popc(x2),
            _clz(x2, 32),
            _ffs(x2),
            _popc(y),
            _clz(y, 64),
            _ffs(y),
            _popc(y2),
            _clz(y2, 64),
            _ffs(y2),
            31 - _clz(x2 | 1, 32),
            _popc(x & (x2 ^ 0x5555AAAA)) + _clz(~x2 & 0xFFFFFFFF, 32),
        ]
        for k, v in enumerate(vals):
            res[k * n + i] = v
    return {2: res}


def bit_permute(args, spec):
    a, b, c, out, out64, n = args
    n = int(n[0])
    res = out.copy()
    res64 = out64.copy()
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        vals = [
            _brev(x, 32),
            _byte_perm(x, y, 0x3210),
            _byte_perm(x, 0, 0x0123),
            _byte_perm(x, y, 0x5410),
            _byte_perm(x, y, 0x7654),
            _byte_perm(x, y, 0x1111),
            _byte_perm(x, y, 0x4321),
            _byte_perm(x, y, 0x7531),
            _byte_perm(x, y, y),
            _byte_perm(x, y, x >> 16),
        ]
        for k, v in enumerate(vals):
            res[k * n + i] = v
        z = int(c[i])
        res64[2 * i] = _brev(z, 64)
        res64[2 * i + 1] = int.from_bytes(z.to_bytes(8, "little"), "big")
    return {3: res, 4: res64}
