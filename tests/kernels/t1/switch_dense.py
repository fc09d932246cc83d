import numpy as np

M32 = 0xFFFFFFFF


def _brev(v):
    return int(format(v, "032b")[::-1], 2)


def switch_dense(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        k = x & 7
        r = [
            x + 1,
            x * 3,
            x ^ 0xDEADBEEF,
            x >> 5,
            bin(x).count("1"),
            ~x,
            (x << 2) | 1,
            _brev(x),
        ][k]
        res[i] = r & M32
    return {1: res}


def switch_fallthrough(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        k = abs(x) % 10 * (1 if x >= 0 else -1)  # C++ remainder takes the dividend's sign
        r = 0
        if k in (0, 1, 2):
            r = {0: 111, 1: 110, 2: 100}[k]
        elif k in (3, 4):
            r = -k
        elif k == 5:
            r = 25 + 1000
        else:
            r = 1000
        res[i] = r
    return {1: res}


def switch_stores(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        o = [int(v) for v in res[4 * i : 4 * i + 4]]
        k = x % 20
        if k == 0:
            o[0] = x
        elif k == 1:
            o[1] = x + 1
        elif k == 2:
            o[2] = x * 5
        elif k == 3:
            o[3] = x >> 3
        elif k == 4:
            o[0], o[1] = x ^ 4, 4
        elif k == 5:
            o[1], o[2] = x | 5, 5
        elif k == 6:
            o[2], o[3] = x & 0xFF, 6
        elif k == 7:
            o[3], o[0] = x - 7, 7
        elif k == 8:
            o[0] = x << 8
        elif k == 9:
            o[1] = 32 - x.bit_length()
        elif k == 10:
            o[2] = x * x
        elif k == 11:
            o[3] = x // 11
        elif k == 12:
            o[0] = o[1] = x
        elif k == 13:
            o[2] = o[3] = ~x
        elif k == 14:
            o[1], o[3] = x >> 14, x << 14
        elif k == 15:
            o[0], o[2] = 15, x + 15
        else:
            o = [M32] * 4
        res[4 * i : 4 * i + 4] = [v & M32 for v in o]
    return {1: res}
