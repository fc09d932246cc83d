import numpy as np

from openptxas.testing import refmath as R

F = R.Fmt.F32
f32 = np.float32

SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0**-126, 2.0**-149, 2.0**-127,
     np.finfo(np.float32).max, -np.finfo(np.float32).max, 3.0, f32(0.1), -2.5, f32(1e30)],
    dtype=np.float32,
)


def f32_div_sqrt(args, spec):
    x, y, _, n = args
    n = int(n[0])
    x, y = x[:n], y[:n]
    with np.errstate(over="ignore"):
        return {2: np.concatenate(_rows(x, y)).astype(np.float32)}


def _rows(x, y):
    return [
        x / y,
        np.sqrt(np.abs(x)),
        f32(1.0) / y,
        x / (y * f32(3.0)),
        np.sqrt(np.abs(y)),
        f32(1.0) / x,
        R.rsqrt(np.abs(x), F),
        (x * f32(1e-30)) / (y * f32(1e10)),
        np.sqrt(np.abs(x) * f32(1e-40)),
        f32(1.0) / (y * f32(1e38)),
    ]


def f32_special_values(args, spec):
    i = np.arange(256)
    x, y = SPECIAL[i & 15], SPECIAL[i >> 4]
    with np.errstate(all="ignore"):
        rows = [x / y, np.sqrt(x), f32(1.0) / x, x * y, x + y,
                R.fma(x, y, np.ones(256, np.float32), F), R.rsqrt(x, F)]
        q = x / y
    b = lambda v: v.astype(np.int32)  # noqa: E731
    flags = (
        b(x < y) | (b(x == y) << 1) | (b(x != y) << 2) | (b(np.isnan(x)) << 3)
        | (b(np.isinf(y)) << 4) | (b(np.signbit(x)) << 5) | (b(np.isfinite(q)) << 6)
        | (b(x <= y) << 7)
    )
    return {0: np.concatenate(rows).astype(np.float32), 1: flags}
