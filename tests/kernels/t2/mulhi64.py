import numpy as np

M64 = (1 << 64) - 1
U_CONSTS = [
    0xFFFFFFFFFFFFFFFF,
    0xAAAAAAAAAAAAAAAB,
    0xCCCCCCCCCCCCCCCD,
    0x8000000000000001,
    0x0000000100000001,
    0xFFFFFFFF00000001,
    0x00000000FFFFFFFF,
    0x123456789ABCDEF1,
]
S_CONSTS = [
    -1,
    -3,
    0x5555555555555556,
    -(1 << 63),
    (1 << 63) - 1,
    -0x100000000,
    7,
    -0x123456789ABCDEF,
]


def _ints(a):
    return [int(v) for v in a.tolist()]


def _hi(p, signed):
    h = p >> 64  # floor: the high word of the two's complement 128-bit product
    return h if signed else h & M64


def _arr(vals, dtype):
    return np.array([v & M64 for v in vals], dtype=np.uint64).view(dtype)


def mulhi_u64_const(args, spec):
    a, _, n = args
    xs = _ints(a[: int(n[0])])
    return {1: _arr([_hi(x * c, False) for c in U_CONSTS for x in xs], np.uint64)}


def mulhi_s64_const(args, spec):
    a, _, n = args
    xs = _ints(a[: int(n[0])])
    return {1: _arr([_hi(x * c, True) for c in S_CONSTS for x in xs], np.int64)}


def mulhi_u64_var(args, spec):
    a, b, c, _, n = args
    n = int(n[0])
    xs, ys, zs = _ints(a[:n]), _ints(b[:n]), _ints(c[:n])
    hi = [_hi(x * y, False) for x, y in zip(xs, ys, strict=True)]
    mad = [(h + z) & M64 for h, z in zip(hi, zs, strict=True)]
    lo = [x * y for x, y in zip(xs, ys, strict=True)]
    return {3: _arr(hi + mad + lo, np.uint64)}


def mulhi_s64_var(args, spec):
    a, b, c, _, n = args
    n = int(n[0])
    xs, ys, zs = _ints(a[:n]), _ints(b[:n]), _ints(c[:n])
    hi = [_hi(x * y, True) for x, y in zip(xs, ys, strict=True)]
    mad = [h + z for h, z in zip(hi, zs, strict=True)]
    return {3: _arr(hi + mad, np.int64)}


def mul128_acc(args, spec):
    a, b, _, _, n = args
    n = int(n[0])
    xs, ys = _ints(a[:n]), _ints(b[:n])
    s = [sum(xs[i] * ys[(i + j) % n] for j in range(4)) % (1 << 128) for i in range(n)]
    return {2: _arr(s, np.uint64), 3: _arr([v >> 64 for v in s], np.uint64)}
