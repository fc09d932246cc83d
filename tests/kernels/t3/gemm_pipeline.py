import numpy as np


def gemm_pipeline(args, spec):
    a8, b8, _, _, _ = args
    c = a8.astype(np.int64).reshape(32, 64) @ b8.astype(np.int64).reshape(64, 32)
    return {2: a8.astype(np.float16), 3: b8.astype(np.float16), 4: c.astype(np.float32).reshape(-1)}
