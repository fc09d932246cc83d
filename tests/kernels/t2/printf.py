import re

import numpy as np

_SPEC = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGcs%])")


def cprintf(fmt, *args):
    """C printf formatting through Python's % operator (the same conversions; Python rejects
    length modifiers, which carry no information once the values are Python numbers)."""
    return _SPEC.sub(lambda m: "%" + m.group(1) + m.group(2), fmt) % args


def _c_rem(a, m):
    """C's truncating remainder."""
    r = abs(a) % m
    return -r if a < 0 else r


def printf_single(args, spec):
    iv, _, _, out = args
    return {3: (iv.astype(np.int64) * 3).astype(np.int32)}


def printf_single_text(args, spec):
    iv, fv, dv, _ = args
    i = [int(v) for v in iv]
    u = [v & 0xFFFFFFFF for v in i]
    f = [float(v) for v in fv]
    lines = [
        cprintf("hello from block %d thread %d of %d\n", 0, 0, 64),
        cprintf("ints: %d %i %u %x %X %o|%5d|%-6d|%+05d|%%\n", i[1], i[2], u[3], u[4],
                u[5] & 0xFFFF, u[6] & 0o777, _c_rem(i[7], 1000), _c_rem(i[8], 100),
                _c_rem(i[9], 1000)),
        cprintf("long: %lld %llu %ld %#llx\n", i[10] * 1000003, u[11] << 20, i[12],
                0xDEADBEEFCAFE),
        cprintf("char %c%c%c str [%s] [%8s] [%-8s]\n", "o", "k", chr(65 + (i[13] & 15)), "txt",
                "right", "left"),
        cprintf("float: %f %.3f %10.4f %e %.2E %g %G\n", f[0], f[1], f[2], f[3], f[4],
                float(fv[5] * np.float32(1e-6)), float(fv[6] * np.float32(1e8))),
        cprintf("double: %.17g %.10e %f %g\n", float(dv[0]), float(dv[1] * 1e100), float(dv[2]),
                1.0 / 3.0),
        "special: inf -inf 0.000000e+00\n",
    ]
    return "".join(lines)


def _sums(iv):
    return [int(np.sum(iv[b * 64 : (b + 1) * 64].astype(np.int64))) for b in range(3)]


def _wrap32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def printf_blocks(args, spec):
    iv, _ = args
    return {1: np.array([_wrap32(s) for s in _sums(iv)], dtype=np.int32)}


def printf_blocks_text(args, spec):
    iv, _ = args
    return "".join(
        cprintf("block %d/%d: sum=%d first=%08x\n", b, 3, _wrap32(s), int(iv[b * 64]) & 0xFFFFFFFF)
        for b, s in enumerate(_sums(iv))
    )
