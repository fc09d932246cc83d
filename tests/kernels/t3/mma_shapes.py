import numpy as np

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def _bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _wrap32(v):
    return ((v + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


def _s4(v):
    return ((v.astype(np.int64) & 0xF) ^ 8) - 8


def mma_m16n8k8_bf16(args, spec):
    """bf16 operands with few significant bits (see the spec): products and sums are exact."""
    a, b, c, _ = args
    d = _bf16(a).reshape(16, 8) @ _bf16(b).reshape(8, 8) + c.astype(np.float64).reshape(16, 8)
    return {3: d.astype(np.float32).reshape(-1)}


def mma_m16n8k16_s8_sat(args, spec):
    a, b, c, _, _ = args
    d = a.astype(np.int64).reshape(16, 16) @ b.astype(np.int64).reshape(16, 8)
    d = d + c.astype(np.int64).reshape(16, 8)
    return {3: _wrap32(d).reshape(-1), 4: np.clip(d, I32_MIN, I32_MAX).astype(np.int32).reshape(-1)}


def mma_m16n8k32_s4(args, spec):
    a, b, c, _ = args
    d = _s4(a).reshape(16, 32) @ _s4(b).reshape(32, 8) + c.astype(np.int64).reshape(16, 8)
    return {3: _wrap32(d).reshape(-1)}


def mma_m16n8k64_u4s4(args, spec):
    a, b, c, _ = args
    ua = a.astype(np.int64) & 0xF
    d = ua.reshape(16, 64) @ _s4(b).reshape(64, 8) + c.astype(np.int64).reshape(16, 8)
    return {3: _wrap32(d).reshape(-1)}


def _popc(x):
    return np.array([bin(int(v)).count("1") for v in x.reshape(-1)]).reshape(x.shape)


def mma_m16n8k256_b1(args, spec):
    a, bt, c, _, _ = args
    a8, b8 = a.reshape(16, 1, 8), bt.reshape(1, 8, 8)
    cc = c.astype(np.int64).reshape(16, 8)
    dand = _popc(a8 & b8).sum(axis=2) + cc
    dxor = _popc(a8 ^ b8).sum(axis=2) + cc
    return {3: _wrap32(dand).reshape(-1), 4: _wrap32(dxor).reshape(-1)}
