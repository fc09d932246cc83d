import numpy as np


def _i(v):
    return v.astype(np.int64)


def wmma_f16_f32(args, spec):
    a, b, c, _ = args
    am = a.astype(np.float64).reshape(16, 16)
    bm = b.astype(np.float64).reshape(32, 16).T  # stored [n][k]
    d = am @ bm + c.reshape(16, 32)
    return {3: d.astype(np.float32).reshape(-1)}


def wmma_f16_f16(args, spec):
    a, b, _ = args
    d = (_i(a) >> 4).reshape(32, 16) @ (_i(b) >> 4).reshape(16, 8) + 3
    return {2: d.T.astype(np.float16).reshape(-1)}  # stored column-major


def wmma_bf16(args, spec):
    a, b, _ = args
    d = _i(a).reshape(8, 16) @ _i(b).reshape(16, 32) * 2
    return {2: d.astype(np.float32).reshape(-1)}


def wmma_tf32(args, spec):
    a, b, _ = args
    am = np.floor(a * np.float32(16.0)).astype(np.float64).reshape(16, 8)
    bm = np.floor(b * np.float32(16.0)).astype(np.float64).reshape(16, 8).T  # stored [n][k]
    return {2: (am @ bm - 1.0).astype(np.float32).reshape(-1)}


def wmma_int8(args, spec):
    a, b, c, _, _ = args
    bm = _i(b).reshape(16, 16).T  # stored [n][k]
    cm = _i(c).reshape(16, 16).T  # stored [n][m]
    d = _i(a).reshape(16, 16) @ bm + cm
    du = _i(a.view(np.uint8)).reshape(16, 16) @ _i(b.view(np.uint8)).reshape(16, 16).T
    return {3: d.astype(np.int32).reshape(-1), 4: du.astype(np.int32).reshape(-1)}


def wmma_f64(args, spec):
    a, b, c, _ = args
    d = np.floor(a * 8.0).reshape(8, 4) @ np.floor(b * 8.0).reshape(4, 8) + np.floor(c * 64.0).reshape(8, 8)
    return {3: d.reshape(-1)}
