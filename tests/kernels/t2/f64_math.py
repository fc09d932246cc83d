import math
from decimal import Decimal, localcontext

import numpy as np


def _m(fn, *cols):
    """Apply a Python math function (glibc libm) elementwise; NaN for domain errors."""

    def one(*v):
        try:
            return fn(*v)
        except (ValueError, OverflowError):
            return math.nan

    return np.array([one(*v) for v in zip(*(c.tolist() for c in cols))], dtype=np.float64)


def _cbrt(v):
    with localcontext() as ctx:
        ctx.prec = 60
        r = abs(Decimal(v)) ** (Decimal(1) / 3)
    return math.copysign(float(r), v)


def f64_math(args, spec):
    x, y, _, n = args
    n = int(n[0])
    x, y = x[:n], y[:n]
    ax = np.abs(x)
    rows = [
        _m(math.exp, x),
        _m(math.log, ax),
        _m(math.sin, x),
        _m(math.cos, x),
        _m(math.sin, x * 1000.0),
        _m(math.tan, x),
        _m(math.atan2, x, y),
        _m(math.pow, ax, y),
        _m(_cbrt, x),
        _m(math.log1p, ax),
        _m(math.expm1, x),
        _m(math.tanh, x),
        _m(math.asin, x * 0.25),
        _m(math.acos, x * 0.25),
        _m(lambda v: 2.0**v, y),
        _m(math.log10, ax),
        _m(math.hypot, x, y),
        _m(math.erf, x),
        _m(math.cosh, x),
        x * 8.0,
        _m(math.log2, ax),
    ]
    return {2: np.concatenate(rows)}
