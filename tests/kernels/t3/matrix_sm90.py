import numpy as np


def _mma(args, k):
    a, b, c, _ = args
    d = a.reshape(16, k) @ b.reshape(k, 8) + c.reshape(16, 8)  # integer-valued: exact
    return {3: d.reshape(-1)}


def mma_m16n8k8_f64(args, spec):
    return _mma(args, 8)


def mma_m16n8k16_f64(args, spec):
    return _mma(args, 16)


def stmatrix(args, spec):
    """Fragment of matrix j: lane l, register j holds elements (l // 4, 2 (l % 4)) (low half)
    and (l // 4, 2 (l % 4) + 1) (high half). Matrix j is stored at rows 8j .. 8j + 7 of a 32 x
    24 array of halves (only columns 0 .. 7 written; .trans stores the transpose)."""
    inp, out = args
    res = out.copy().reshape(6, 32, 24)
    res[:] = 0xFFFF
    regs = inp.reshape(4, 32)
    mats = np.zeros((4, 8, 8), dtype=np.uint16)
    for j in range(4):
        for lane in range(32):
            r, c = lane // 4, 2 * (lane % 4)
            mats[j, r, c] = regs[j, lane] & 0xFFFF
            mats[j, r, c + 1] = regs[j, lane] >> 16
    for k, (count, trans) in enumerate(
        [(1, False), (2, False), (4, False), (1, True), (2, True), (4, True)]
    ):
        for j in range(count):
            m = mats[j].T if trans else mats[j]
            res[k, 8 * j : 8 * j + 8, 0:8] = m
    return {1: res.reshape(-1)}
