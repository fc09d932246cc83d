import numpy as np

F = np.float32


def cmp_int(args, spec):
    a, b, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        if i % 4 == 0:
            y = x
        elif i % 4 == 1:
            y = x + (x < 0) - (x > 0)
        else:
            y = int(b[i])
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        conds = [
            x < y, x <= y, x > y, x >= y, x == y, x != y,
            ux < uy, ux <= uy, ux > uy, ux >= uy,
            (x < y) and (ux < uy), (x < 0) or (y < 0), not (x & 1), (x ^ y) < 0,
            x < 1000, ux > 7,
        ]
        bits = sum(int(c) << k for k, c in enumerate(conds))
        vals = [
            bits,
            100 if x == y else (-1 if x < y else 1),
            (ux >> 1) if ux >= 0x80000000 else (ux << 1) & 0xFFFFFFFF,
            (x > 0) + (y > 0) + (x > y),
            (x ^ y) if x < y else (x & y),
            1 if ((-5 < x < 5) or (y & 0xFF) == 0x7F) else 0,
            -int(x > y),
        ]
        for k, v in enumerate(vals):
            v &= 0xFFFFFFFF
            res[k * n + i] = v - (1 << 32) if v >> 31 else v
    return {2: res}


def cmp_float(args, spec):
    a, b, out, fout, n = args
    n = int(n[0])
    res = out.copy()
    fres = fout.copy()
    i = np.arange(n)
    x = np.where(i % 7 == 3, F(np.nan), a[:n]).astype(F)
    y = np.where(i % 5 == 1, x, np.where(i % 11 == 2, F(np.nan), b[:n])).astype(F)
    conds = [
        x < y, x <= y, x > y, x >= y, x == y, x != y, ~(x < y), ~(x >= y), x != x,
        (x < y) | (y != y), x > F(0.5), y <= F(-0.25),
    ]
    res[:n] = sum(c.astype(np.int32) << k for k, c in enumerate(conds))
    rows = [
        np.where(x < y, x, y),
        np.fmin(x, y),
        np.fmax(x, y),
        np.where(x > 0, x, -x),
        np.where(x != x, F(0), x),
        np.where(~(x <= y), F(1), F(2)),
    ]
    for k, r in enumerate(rows):
        fres[k * n : (k + 1) * n] = r
    return {2: res, 3: fres}
