import numpy as np


def _i(v):
    return v.astype(np.int64)


def wgmma_f16_ss(args, spec):
    a, b, _ = args
    d = (_i(a) >> 2).reshape(64, 32) @ (_i(b) >> 2).reshape(32, 16)
    return {2: d.astype(np.float32).reshape(-1)}


def wgmma_bf16_rs(args, spec):
    a, b, c, _ = args
    cf = np.floor(c * np.float32(100.0)).astype(np.float64).reshape(64, 8)
    d = cf - (_i(a).reshape(64, 16) @ _i(b).reshape(16, 8))
    return {3: d.astype(np.float32).reshape(-1)}


def wgmma_tf32_ss(args, spec):
    a, b, _ = args
    d = (a.astype(np.float64) * 0.25).reshape(64, 8) @ b.astype(np.float64).reshape(8, 8)
    return {2: d.astype(np.float32).reshape(-1)}


def wgmma_s8_ss(args, spec):
    a, b, _, _ = args
    bb = _i(b).reshape(32, 8)
    d = _i(a).reshape(64, 32) @ bb
    du = _i(a.view(np.uint8)).reshape(64, 32) @ bb
    return {2: d.astype(np.int32).reshape(-1), 3: du.astype(np.int32).reshape(-1)}


def wgmma_f16_trans_b(args, spec):
    a, b, _ = args
    d = _i(a).reshape(64, 16) @ _i(b).reshape(16, 16)
    return {2: d.astype(np.float32).reshape(-1)}
