import numpy as np

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def _fold(inp, out, n, w, op):
    res = out.copy()
    for i in range(n):
        acc = inp[w * i]
        for k in range(1, w):
            acc = op(acc, inp[w * i + k])
        res[i] = acc
    return res


def fold_plus_u32_4(args, spec):
    inp, out, n = args
    return {1: _fold([int(v) for v in inp], out, int(n[0]), 4, lambda a, b: (a + b) & M32)}


def fold_plus_f32_3(args, spec):
    inp, out, n = args
    return {1: _fold(inp, out, int(n[0]), 3, lambda a, b: np.float32(a + b))}


def fold_xorshift_5(args, spec):
    inp, out, n = args
    op = lambda a, b: (a ^ ((b << 3) & M32) ^ (b >> 2)) & M32  # noqa: E731
    return {1: _fold([int(v) for v in inp], out, int(n[0]), 5, op)}


def scale_add_u64_81(args, spec):
    a, b, c, n = args
    n = int(n[0])
    res = c.copy()
    res[:n] = a[:n] * np.uint64(81) + b[:n]
    return {2: res}


def scale_add_u32_m7(args, spec):
    a, b, c, n = args
    n = int(n[0])
    res = c.copy()
    res[:n] = a[:n] * np.uint32((1 << 32) - 7) + b[:n]
    return {2: res}
