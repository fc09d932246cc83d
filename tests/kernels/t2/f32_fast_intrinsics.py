import numpy as np


def f32_fast_intrinsics(args, spec):
    a, b, _, _, _, _, n = args
    n = int(n[0])
    x, y = a[:n].astype(np.float64), b[:n].astype(np.float64)
    ax = np.abs(x)
    f = lambda v: np.asarray(v, dtype=np.float64).astype(np.float32)  # noqa: E731
    rel = [x / y, np.exp(x), 10.0**x, 1.0 / np.sqrt(ax)]
    abs_ = [np.log(ax), np.log2(ax), np.log10(ax), np.sin(x), np.cos(x), np.sin(y), np.cos(y),
            np.tan(f(x * 0.5).astype(np.float64))]
    base = (np.abs(a[:n]) + np.float32(0.5)).astype(np.float64)
    pw = base**y
    exact = [np.clip(a[:n], 0, 1), np.clip(b[:n] * np.float32(0.5), 0, 1)]
    return {
        2: f(np.concatenate(rel)),
        3: f(np.concatenate(abs_)),
        4: f(pw),
        5: np.concatenate(exact).astype(np.float32),
    }
