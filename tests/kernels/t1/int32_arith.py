import numpy as np

U = np.uint32


def _u(x):
    return x.view(np.uint32)


def i32_arith(args, spec):
    a, b, c, out, n = args
    n = int(n[0])
    ua, ub, uc = _u(a[:n]), _u(b[:n]), _u(c[:n])
    x, y = a[:n].astype(np.int64), b[:n].astype(np.int64)
    rows = [
        ua + ub,
        ua - ub,
        ua * ub,
        ua * ub + uc,
        uc - ua * ub,
        ((x * y) >> 32).astype(np.int32),
        ((ua.astype(np.uint64) * ub.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32),
        ua * U(12345) + U(678),
        U(0) - ua,
        ua * U(9) - ub * U(7) + U(3),
    ]
    res = out.copy()
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = np.asarray(r).view(np.int32)
    return {3: res}


def i32_shift_logic(args, spec):
    a, b, out, n = args
    n = int(n[0])
    x, y = a[:n], b[:n]
    sx = x.view(np.int32)
    s = y & U(31)
    rows = [
        x << U(5),
        x >> U(7),
        (sx >> 9).view(np.uint32),
        x << s,
        x >> s,
        (sx >> s.astype(np.int32)).view(np.uint32),
        (x << s) | (x >> ((U(32) - s) & U(31))),
        x & y,
        x | y,
        x ^ y,
        ~x,
        x & ~y,
        (x ^ y) | (x & U(0xF0F0F0F0)),
        (sx >> 31).view(np.uint32),
        ((x & y) | (~x & (y >> U(3)))) ^ (x << U(1)),
        (x >> U(16)) | (x << U(16)),
    ]
    res = out.copy()
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = r
    return {2: res}


def i32_minmax_abs(args, spec):
    a, b, out, lo, hi, n = args
    n = int(n[0])
    lo, hi = int(lo[0]), int(hi[0])
    x, y = a[:n].astype(np.int64), b[:n].astype(np.int64)
    assert not np.any(a[:n] == np.iinfo(np.int32).min), "abs(INT_MIN) is undefined in C++"
    ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
    rows = [
        np.minimum(x, y),
        np.maximum(x, y),
        np.minimum(ux, uy),
        np.maximum(ux, uy),
        np.abs(x),
        np.minimum(np.maximum(x, lo), hi),
        np.where(x < y, y - (y >> 1), x >> 2),
        np.where((x >= 0) == (y >= 0), 1, -1),
        np.maximum(np.abs(x >> 1), np.abs(y >> 1)),
        np.where(ux > uy, ux - uy, uy - ux),
    ]
    res = out.copy()
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = np.asarray(r, dtype=np.int64).astype(np.int32)
    return {2: res}
