import numpy as np

U = np.uint64


def _mulhi(x, y, signed):
    if signed:
        vals = [(int(p) * int(q)) >> 64 for p, q in zip(x, y)]
        return np.array(vals, dtype=np.int64)
    vals = [(int(p) * int(q)) >> 64 for p, q in zip(x, y)]
    return np.array(vals, dtype=np.uint64)


def i64_arith(args, spec):
    a, b, c, out, n = args
    n = int(n[0])
    ua, ub, uc = a[:n].view(U), b[:n].view(U), c[:n].view(U)
    idx = np.arange(n, dtype=U)
    # (unsigned long long)(long long)(int)ub: low 32 bits, sign-extended
    ub_sext = (ub.astype(np.uint32).view(np.int32).astype(np.int64)).view(U)
    rows = [
        ua + ub,
        ua - ub,
        ua * ub,
        ua * ub + uc,
        uc - ua * ub,
        _mulhi(a[:n], b[:n], True),
        _mulhi(ua, ub, False),
        ua * U(0x9E3779B97F4A7C15) + U(12345),
        U(0) - ua,
        ua * U(3) - (ub << U(1)),
        ua + ub_sext,
        ua * idx,
    ]
    res = out.copy()
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = np.asarray(r).view(np.int64)
    return {3: res}


def i64_shift_logic(args, spec):
    a, b, out, n = args
    n = int(n[0])
    x, y = a[:n], b[:n]
    sx = x.view(np.int64)
    s = y & U(63)
    rows = [
        x << U(13),
        x >> U(29),
        (sx >> 40).view(U),
        x << U(32),
        x >> U(32),
        (sx >> 32).view(U),
        x << s,
        x >> s,
        (sx >> s.astype(np.int64)).view(U),
        (x << s) | (x >> ((U(64) - s) & U(63))),
        (sx >> 63).view(U),
        x & y,
        x | y,
        x ^ y,
        ~x & y,
        (x >> U(60)) | (x << U(4)),
    ]
    res = out.copy()
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = r
    return {2: res}


def i64_minmax_abs(args, spec):
    a, b, out, n = args
    n = int(n[0])
    x, y = a[:n], b[:n]
    assert not np.any(x == np.iinfo(np.int64).min), "llabs(LLONG_MIN) is undefined in C++"
    ux, uy = x.view(U), y.view(U)
    rows = [
        np.minimum(x, y),
        np.maximum(x, y),
        np.minimum(ux, uy).view(np.int64),
        np.maximum(ux, uy).view(np.int64),
        np.abs(x),
        np.where(x < y, 1, np.where(x == y, 0, -1)).astype(np.int64),
        np.where(ux > uy, ux - uy, uy - ux).view(np.int64),
        np.where((x >> 3) < (y >> 3), x, y),
    ]
    res = out.copy()
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = r
    return {2: res}
