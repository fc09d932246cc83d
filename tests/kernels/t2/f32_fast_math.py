import numpy as np

from openptxas.testing import refmath as R


def _ftz(v):
    """Flush float32 subnormals to zero, keeping the sign (what .ftz does to results)."""
    v = v.astype(np.float32)
    tiny = (v != 0) & (np.abs(v) < np.float32(2.0**-126))
    return np.where(tiny, np.copysign(np.float32(0.0), v), v).astype(np.float32)


def f32_fast_math(args, spec):
    a, b, c, _, _, _, n = args
    n = int(n[0])
    a, b, c = a[:n], b[:n], c[:n]
    x, y = a.astype(np.float64), b.astype(np.float64)
    ax = np.abs(x)
    f = lambda v: np.asarray(v, dtype=np.float64).astype(np.float32)  # noqa: E731
    base = (np.abs(a) + np.float32(0.5)).astype(np.float64)
    rel = [x / y, np.sqrt(ax), 1.0 / y, np.exp(x), np.exp2(y), 1.0 / np.sqrt(ax), base**y]
    half = (a * np.float32(0.5)).astype(np.float64)
    abs_ = [np.log(ax), np.log2(ax), np.sin(x), np.cos(y), np.tan(half)]
    exact = [
        a + b,
        a * c,
        R.fma(a, b, c, R.Fmt.F32),
        np.fmax(a, c) - np.fmin(b, c),
        _ftz(a * np.float32(1e-30)) * np.float32(1e-10),
    ]
    # every result is flushed (.ftz); the inputs are normal numbers
    return {3: f(np.concatenate(rel)), 4: f(np.concatenate(abs_)), 5: _ftz(np.concatenate(exact))}
