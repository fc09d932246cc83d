import numpy as np


def f32_mufu_approx(args, spec):
    a, b, d, _, _, _, _, _, n = args
    n = int(n[0])
    x, y = a[:n].astype(np.float64), b[:n].astype(np.float64)
    ax = np.abs(x)
    f = lambda v: np.concatenate(v).astype(np.float32)  # noqa: E731
    rel = [1.0 / y, 1.0 / np.sqrt(ax), np.sqrt(ax), np.exp2(y), x / y, x / y]
    abs_ = [np.log2(ax), np.sin(x), np.cos(y)]
    th = np.tanh(x)
    hx = a[:n].astype(np.float16).astype(np.float64)
    hy = b[:n].astype(np.float16).astype(np.float64)
    h = np.concatenate([np.exp2(hx), np.tanh(hx), np.exp2(hx), np.exp2(hy)]).astype(np.float16)
    v = d[:n]
    dd = np.concatenate([1.0 / v, 1.0 / np.sqrt(np.abs(v))])
    return {3: f(rel), 4: f(abs_), 5: th.astype(np.float32), 6: h, 7: dd}
