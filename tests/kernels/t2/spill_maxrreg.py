import numpy as np

from openptxas.testing import refmath as R

NW = 40


def _rotl(x, r):
    return ((x << np.uint32(r)) | (x >> np.uint32(32 - r))).astype(np.uint32)


def spill_maxrreg_int(args, spec):
    data, _ = args
    nt = spec.threads * spec.ctas
    w = [data[j * nt : (j + 1) * nt].copy() for j in range(NW)]
    with np.errstate(over="ignore"):
        for _ in range(4):
            for j in range(NW):
                w[j] = (w[j] ^ _rotl(w[(j + 3) % NW], j % 31 + 1)) + w[(j + 17) % NW] * np.uint32(
                    2654435761
                )
    return {1: np.concatenate(w).astype(np.uint32)}


def spill_maxrreg_acc(args, spec):
    x, coef, _, steps = args
    acc = [np.full(64, coef[k], dtype=np.float32) for k in range(32)]
    for s in range(int(steps[0])):
        xv = x[s * 64 : (s + 1) * 64]
        for k in range(32):
            acc[k] = R.fma(acc[k], xv, acc[(k + 1) % 32], R.Fmt.F32)
    total = np.zeros(64, dtype=np.float32)
    for k in range(32):
        total = (total + acc[k]).astype(np.float32)
    return {2: total}
