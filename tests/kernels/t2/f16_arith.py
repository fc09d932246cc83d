import numpy as np

from openptxas.testing import refmath as R

H = R.Fmt.F16


def _sat(v):
    return np.clip(v, np.float16(0.0), np.float16(1.0)).astype(np.float16)


def f16_arith(args, spec):
    x, y, z, _, _, _, n = args
    n = int(n[0])
    x, y, z = x[:n], y[:n], z[:n]
    rows = [
        R.add(x, y, H),
        R.sub(x, y, H),
        R.mul(x, y, H),
        R.fma(x, y, z, H),
        -x,
        np.abs(y),
        np.maximum(x, y),
        np.minimum(x, z),
        _sat(R.fma(x, y, z, H)),
        _sat(R.add(x, y, H)),
        _sat(R.mul(x, z, H)),
        _sat(R.sub(y, z, H)),
        R.add(x, z, H),
        R.mul(R.mul(x, y, H), z, H),
    ]
    quot = (x.astype(np.float64) / y.astype(np.float64)).astype(np.float16)
    b = lambda v: v.astype(np.int32)  # noqa: E731
    cmp = (
        b(x == y) | (b(x != z) << 1) | (b(x < y) << 2) | (b(y <= z) << 3) | (b(x > z) << 4)
        | (b(y >= x) << 5) | (b(np.isnan(x)) << 6) | (b(np.isinf(y)) << 7)
    )
    return {3: np.concatenate(rows), 4: quot, 5: cmp}
