import numpy as np


def _i(v):
    return v.astype(np.int64)


def mma_m16n8k16_f16_f32(args, spec):
    a, b, c, _ = args
    d = a.astype(np.float64).reshape(16, 16) @ b.astype(np.float64).reshape(16, 8)
    return {3: (d + c.reshape(16, 8)).astype(np.float32).reshape(-1)}


def mma_m16n8k16_f16_f16(args, spec):
    a, b, c, _ = args
    d = (_i(a) >> 4).reshape(16, 16) @ (_i(b) >> 4).reshape(16, 8) + (_i(c) >> 4).reshape(16, 8)
    return {3: d.astype(np.float16).reshape(-1)}


def mma_m16n8k8_f16_f32(args, spec):
    a, b, _ = args
    d = _i(a).reshape(16, 8) @ _i(b).reshape(8, 8)
    return {2: d.astype(np.float32).reshape(-1)}


def mma_m16n8k16_bf16_f32(args, spec):
    a, b, c, _ = args
    cf = np.floor(c * np.float32(64.0)).astype(np.float64)
    d = _i(a).reshape(16, 16) @ _i(b).reshape(16, 8) + cf.reshape(16, 8)
    return {3: d.astype(np.float32).reshape(-1)}


def mma_m16n8k8_tf32_f32(args, spec):
    a, b, _, _ = args
    af = (a.astype(np.float64) * 0.5).reshape(16, 8)
    bf = b.astype(np.float64).reshape(8, 8)
    d = af @ bf
    dk4 = af[:, :4] @ bf[:4, :]
    return {2: d.astype(np.float32).reshape(-1), 3: dk4.astype(np.float32).reshape(-1)}


def mma_m16n8k32_s8_s32(args, spec):
    a, b, c, _, _ = args
    bb = _i(b).reshape(32, 8)
    cc = (_i(c) >> 4).reshape(16, 8)
    d = _i(a).reshape(16, 32) @ bb + cc
    du = _i(a.view(np.uint8)).reshape(16, 32) @ bb + cc
    return {3: d.astype(np.int32).reshape(-1), 4: du.astype(np.int32).reshape(-1)}


def mma_m8n8k4_f64(args, spec):
    a, b, c, _ = args
    cf = np.floor(c * 1024.0).reshape(8, 8)
    d = (a.astype(np.float64) * 0.25).reshape(8, 4) @ b.astype(np.float64).reshape(4, 8) + cf
    return {3: d.reshape(-1)}


def mma_m8n8k16_s8_s32(args, spec):
    a, b, _ = args
    d = _i(a).reshape(8, 16) @ _i(b).reshape(16, 8)
    return {2: d.astype(np.int32).reshape(-1)}
