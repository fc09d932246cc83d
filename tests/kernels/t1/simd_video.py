"""Per-lane semantics of the CUDA SIMD intrinsics (CUDA Math API, 'SIMD Intrinsics')."""

import numpy as np

M32 = 0xFFFFFFFF


def _lanes(x, y, w, f):
    m = (1 << w) - 1
    r = 0
    for k in range(0, 32, w):
        r |= (f((x >> k) & m, (y >> k) & m) & m) << k
    return r


def _sx(v, w):
    return v - (1 << w) if v >> (w - 1) else v


def _s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def _bytes(v, signed):
    bs = [(v >> (8 * k)) & 0xFF for k in range(4)]
    return [_sx(b, 8) for b in bs] if signed else bs


def simd_video(args, spec):
    a, b, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        if i % 3 == 0:
            y = (x & 0xFF00FF00) | (y & 0x00FF00FF)
        sx, sy = _s32(x), _s32(y)
        xb, yb = _bytes(x, True), _bytes(y, True)
        vals = [
            _lanes(x, y, 16, lambda p, q: p + q),
            _lanes(x, y, 8, lambda p, q: p + q),
            _lanes(x, y, 16, lambda p, q: p - q),
            _lanes(x, y, 8, lambda p, q: p - q),
            _lanes(x, y, 16, lambda p, q: max(-32768, min(32767, _sx(p, 16) + _sx(q, 16)))),
            _lanes(x, y, 8, lambda p, q: min(255, p + q)),
            _lanes(x, y, 8, lambda p, q: abs(p - q)),
            _lanes(x, y, 8, lambda p, q: (p + q + 1) >> 1),
            _lanes(x, y, 16, lambda p, q: (p + q) >> 1),
            _lanes(x, y, 8, lambda p, q: 0xFF if p > q else 0),
            _lanes(x, y, 16, lambda p, q: 0xFFFF if p == q else 0),
            _lanes(x, y, 16, lambda p, q: max(_sx(p, 16), _sx(q, 16))),
            _lanes(x, y, 8, lambda p, q: min(p, q)),
            _lanes(x, 0, 8, lambda p, q: -p),
            _lanes(x, 0, 8, lambda p, q: min(127, abs(_sx(p, 8)))),
            sum(abs(p - q) for p, q in zip(_bytes(x, False), _bytes(y, False))),
            abs(sx - sy) + 7,
            abs(x - y) + 0xFFFFFFF0,
            (sx + sy) >> 1,
            (sx + sy + 1) >> 1,
            (x + y) >> 1,
            (x + y + 1) >> 1,
            i + sum(p * q for p, q in zip(xb, yb)),
            5 + sum(p * q for p, q in zip(_bytes(x, False), _bytes(y, False))),
            -1000 + _sx(x & 0xFFFF, 16) * yb[0] + _sx(x >> 16, 16) * yb[1],
            1000 + _sx(x & 0xFFFF, 16) * yb[2] + _sx(x >> 16, 16) * yb[3],
        ]
        for k, v in enumerate(vals):
            res[k * n + i] = v & M32
    return {2: res}
