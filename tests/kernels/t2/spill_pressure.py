import numpy as np

from openptxas.testing import refmath as R

NV, ND, ROUNDS = 48, 12, 3


def pressure(args, spec):
    fin, din, _, _ = args
    nt = spec.threads * spec.ctas
    v = [fin[j * nt : (j + 1) * nt].copy() for j in range(NV)]
    d = [din[j * nt : (j + 1) * nt].copy() for j in range(ND)]
    for r in range(ROUNDS):
        for j in range(NV):
            v[j] = R.fma(v[j], v[(j + 7) % NV], v[(j + 13) % NV], R.Fmt.F32)
        for j in range(ND):
            d[j] = R.fma(d[j], v[(j * 5 + r) % NV].astype(np.float64), d[(j + 5) % ND], R.Fmt.F64)
    return {2: np.concatenate(v), 3: np.concatenate(d)}
