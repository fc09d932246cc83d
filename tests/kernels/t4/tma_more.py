import numpy as np


def _box(t, coords, box):
    """The box of ``t`` (numpy order: outermost first) at ``coords`` (innermost first), zero
    outside the tensor."""
    out = np.zeros(box[::-1], dtype=t.dtype)
    for idx in np.ndindex(*out.shape):
        pos = [c + i for c, i in zip(coords[::-1], idx, strict=True)]
        if all(0 <= p < s for p, s in zip(pos, t.shape, strict=True)):
            out[idx] = t[tuple(pos)]
    return out.reshape(-1)


def tma_1d(args, spec):
    _, src, _ = args
    return {2: np.concatenate([_box(src[:200], [64 * b - 16], [64]) for b in range(4)])}


COORDS3 = [(-2, -1, 0), (6, 3, 1), (8, 4, 4), (0, 0, 2)]


def tma_3d(args, spec):
    _, src, _ = args
    t = src[: 5 * 6 * 12].reshape(5, 6, 12)
    return {2: np.concatenate([_box(t, list(c), [8, 4, 2]) for c in COORDS3])}


def tma_reduce_add(args, spec):
    _, vals, acc = args
    res = acc.astype(np.int64).reshape(20, 40)
    for b in range(spec.grid[0]):
        box = vals[b * 128 : b * 128 + 128].reshape(8, 16)
        x0, y0 = 8 * b - 4, 3 * b - 2
        for r in range(8):
            for c in range(16):
                y, x = y0 + r, x0 + c
                if 0 <= y < 20 and 0 <= x < 40:
                    res[y, x] += int(box[r, c])
    res = (res + (1 << 31)) % (1 << 32) - (1 << 31)
    return {2: res.astype(np.int32).reshape(-1)}


def _swizzle(args, spec, w):
    _, src, _ = args
    t = src.reshape(16, 64)
    cols = w // 4
    res = [_box(t, [cols * (b & 1), 8 * (b >> 1)], [cols, 8]) for b in range(spec.grid[0])]
    return {2: np.concatenate(res)}


def tma_swizzle_128b(args, spec):
    return _swizzle(args, spec, 128)


def tma_swizzle_64b(args, spec):
    return _swizzle(args, spec, 64)


def tma_swizzle_32b(args, spec):
    return _swizzle(args, spec, 32)
