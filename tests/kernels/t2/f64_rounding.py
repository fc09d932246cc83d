import numpy as np

from openptxas.testing import refmath as R

MODES = (R.Rnd.RN, R.Rnd.RZ, R.Rnd.RM, R.Rnd.RP)
F = R.Fmt.F64


def f64_rounding(args, spec):
    x, y, z, _, n = args
    n = int(n[0])
    x, y, z = x[:n], y[:n], z[:n]
    p = np.abs(y)
    rows = []
    rows += [R.add(x, y, F, m) for m in MODES]
    rows += [R.mul(x, y, F, m) for m in MODES]
    rows += [R.fma(x, y, z, F, m) for m in MODES]
    rows += [R.div(x, y, F, m) for m in MODES]
    rows += [R.sqrt(p, F, m) for m in MODES]
    rows += [R.rcp(z, F, m) for m in MODES]
    rows += [R.sub(x, z, F, m) for m in MODES]
    return {3: np.concatenate(rows)}
