import math

import numpy as np


def _m(fn, *cols):
    """Apply a Python math function (glibc libm, f64) elementwise, round the result to f32."""

    def one(*v):
        try:
            return fn(*v)
        except (ValueError, OverflowError):
            return math.nan

    vals = [one(*v) for v in zip(*(c.astype(np.float64).tolist() for c in cols))]
    return np.array(vals, dtype=np.float64).astype(np.float32)


def f32_libm(args, spec):
    a, b, _, n = args
    n = int(n[0])
    x, y = a[:n], b[:n]
    ax = np.abs(x)
    f32 = np.float32
    rows = [
        _m(math.exp, x),
        _m(math.log, ax),
        _m(math.sin, x),
        _m(math.cos, x),
        _m(math.sin, x * f32(10000.0)),
        _m(math.cos, y * f32(1e6)),
        _m(math.tan, x),
        _m(math.atan2, x, y),
        _m(math.pow, ax, y),
        _m(math.erf, x),
        _m(math.tanh, y),
        _m(lambda v: math.copysign(abs(v) ** (1.0 / 3.0), v), x),
        _m(math.log1p, ax),
        _m(math.expm1, y),
        _m(math.asin, x * f32(0.25)),
        _m(math.acos, y * f32(0.25)),
        _m(math.atan, x),
        _m(math.sinh, y),
        _m(math.cosh, x),
        _m(lambda v: 2.0**v, y),
        _m(math.log2, ax),
        _m(math.log10, ax),
        _m(math.hypot, x, y),
        _m(lambda v: 10.0**v, y),
    ]
    return {2: np.concatenate(rows)}
