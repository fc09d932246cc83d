import numpy as np

from openptxas.testing import refmath as R

F = R.Fmt.F64

SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0**-1022, 2.0**-1074,
     1.4821969375237396e-308, np.finfo(np.float64).max, -np.finfo(np.float64).max,
     3.0, 0.1, -2.5, 1e300],
    dtype=np.float64,
)


def f64_div_sqrt(args, spec):
    x, y, _, _, n = args
    n = int(n[0])
    x, y = x[:n], y[:n]
    rows = [
        x / y,
        np.sqrt(np.abs(x)),
        1.0 / y,
        (x * 1e-300) / (y * 1e10),
        np.sqrt(np.abs(x) * 1e-310),
    ]
    approx = 1.0 / np.sqrt(np.abs(y))
    return {2: np.concatenate(rows), 3: approx}


def f64_special_values(args, spec):
    i = np.arange(256)
    x, y = SPECIAL[i & 15], SPECIAL[i >> 4]
    with np.errstate(all="ignore"):
        rows = [x / y, np.sqrt(x), 1.0 / x, x * y, x + y, R.fma(x, y, np.ones(256), F)]
        q = x / y
    b = lambda v: v.astype(np.int32)  # noqa: E731
    flags = (
        b(x < y) | (b(x == y) << 1) | (b(x != y) << 2) | (b(np.isnan(x)) << 3)
        | (b(np.isinf(y)) << 4) | (b(np.signbit(x)) << 5) | (b(np.isfinite(q)) << 6)
    )
    return {0: np.concatenate(rows), 1: flags}
