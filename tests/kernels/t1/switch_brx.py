import numpy as np

M32 = 0xFFFFFFFF


def _brev(v):
    return int(format(v, "032b")[::-1], 2)


def _jump8(sel, x):
    k = sel & 7
    return [
        x + 1,
        x * 3,
        x ^ 0x55AA55AA,
        x >> 2,
        ~x,
        x << 5,
        1000 - x,
        _brev(x),
    ][k] & M32


def switch_brx(args, spec):
    a, out, rounds, n = args
    rounds, n = int(rounds[0]), int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i])
        sel = x
        for k in range(rounds):
            x = (_jump8(sel, x) + k) & M32
            sel = (sel >> 3) ^ x
        res[i] = x
    return {1: res}
