import numpy as np

SPARSE = [3, 17, 100, 1000, 65536, -5, 2147483647, -2147483648, 4, 99, 1001, -6]


def switch_sparse(args, spec):
    sel, a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        s = int(sel[i])
        x = SPARSE[(s >> 1) % 12] if s & 1 else int(a[i])
        table = {3: 30, 17: 34, 100: -100, 1000: s >> 8, 65536: 7, -5: 55, 2147483647: 1,
                 -2147483648: 2}
        r = table.get(x, x >> 24)
        r &= 0xFFFFFFFF
        res[i] = r - (1 << 32) if r >> 31 else r
    return {2: res}


def switch_sparse64(args, spec):
    sel, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        s = int(sel[i])
        x = (s % 6) << (16 * (s % 4))
        table = {0: -1, 1: 11, 2 << 16: 22, 3 << 32: 33, 4 << 48: 44, 5: 55}
        res[i] = table.get(x, x ^ 0x5555)
    return {1: res}
