import numpy as np

from openptxas.testing import refmath as R


def setmaxnreg_ws(args, spec):
    src, _ = args
    f32 = np.float32
    stage = (src.reshape(6, 128) * f32(1.5)).astype(np.float32)
    t = np.arange(128)
    acc = [np.full(128, k, dtype=np.float32) for k in range(32)]
    half = np.full(128, 0.5, dtype=np.float32)
    for s in range(6):
        v = stage[s][(t + s) & 127]
        for k in range(32):
            acc[k] = R.fma(acc[k], half, (v * f32(k + 1)).astype(np.float32), R.Fmt.F32)
    total = np.zeros(128, dtype=np.float32)
    for k in range(32):
        total = (total + acc[k]).astype(np.float32)
    return {1: total}
