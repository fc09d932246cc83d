import numpy as np


def _mm(args, n):
    a, b, _ = args
    av = (a.astype(np.int64) >> 1).reshape(64, 32)
    bv = (b.astype(np.int64) >> 1).reshape(32, n)
    return {2: (av @ bv).astype(np.float32).reshape(-1)}  # small integers: exact


def wgmma_k_sw64(args, spec):
    return _mm(args, 32)


def wgmma_k_sw32(args, spec):
    return _mm(args, 16)


def wgmma_mn_sw128(args, spec):
    return _mm(args, 64)


def wgmma_mn_sw64(args, spec):
    return _mm(args, 32)


def wgmma_mn_sw32(args, spec):
    return _mm(args, 16)


def wgmma_k_mn_sw128(args, spec):
    return _mm(args, 64)


def wgmma_mn_none(args, spec):
    return _mm(args, 16)
