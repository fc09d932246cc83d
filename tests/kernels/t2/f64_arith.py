import numpy as np

from openptxas.testing import refmath as R


def f64_arith(args, spec):
    x, y, z, _, _, _, n = args
    n = int(n[0])
    x, y, z = x[:n], y[:n], z[:n]
    out = np.concatenate(
        [
            x + y,
            x - y,
            x * y,
            R.fma(x, y, z, R.Fmt.F64),
            R.fma(-x, y, z, R.Fmt.F64),
            np.fmax(x, y),
            np.fmin(x, z),
            np.copysign(np.abs(y), x),
            x * x + y * y,
        ]
    )
    outf = (x * z).astype(np.float32)
    cmp = (
        (x < y).astype(np.int32)
        | ((x == z).astype(np.int32) << 1)
        | ((x >= 0.0).astype(np.int32) << 2)
        | ((np.abs(z) > 1.5).astype(np.int32) << 3)
    )
    return {3: out, 4: outf, 5: cmp}
