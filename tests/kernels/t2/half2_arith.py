import numpy as np

from openptxas.testing import refmath as R

H = R.Fmt.F16


def _pairs(v):
    """Interleaved (low, high) lanes -> (lo, hi) arrays."""
    return v[0::2], v[1::2]


def _join(lo, hi):
    out = np.empty(2 * len(lo), dtype=lo.dtype)
    out[0::2], out[1::2] = lo, hi
    return out


def half2_arith(args, spec):
    a, b, c, f, _, _, _, _, n = args
    n = int(n[0])
    x, y, z, f = a[: 2 * n], b[: 2 * n], c[: 2 * n], f[: 2 * n]
    xl, xh = _pairs(x)
    yl, yh = _pairs(y)
    zl, zh = _pairs(z)
    fl, fh = _pairs(f)
    one, zero = np.float16(1.0), np.float16(0.0)
    rows = [
        R.add(x, y, H),
        R.sub(x, y, H),
        R.mul(x, y, H),
        R.fma(x, y, z, H),
        np.clip(R.fma(x, y, z, H), zero, one),
        np.maximum(x, z),
        np.minimum(y, z),
        -np.abs(x),
        _join(xh, xl),
        _join(xl, yl),
        _join(yh, zh),
        _join(zh, xl),
        f.astype(np.float16),
        _join(fh.astype(np.float16), fl.astype(np.float16)),
        R.add((x == y).astype(np.float16), (x < z).astype(np.float16), H),
        R.mul(R.add(x, z, H), R.sub(y, z, H), H),
    ]
    outf = R.mul(x, z, H).astype(np.float32)

    def mask(lo, hi):
        return np.where(lo, 0xFFFF, 0).astype(np.uint32) | np.where(hi, 0xFFFF0000, 0).astype(np.uint32)

    def both(lo, hi):
        return (lo & hi).astype(np.uint32)

    masks = [
        mask(xl < yl, xh < yh),
        mask(yl >= zl, yh >= zh),
        both(xl == xl, xh == xh) | (both(xl < yl, xh < yh) << 1) | (both(yl > zl, yh > zh) << 2),
    ]
    quot = (x.astype(np.float64) / y.astype(np.float64)).astype(np.float16)
    return {4: np.concatenate(rows), 5: outf, 6: np.concatenate(masks), 7: quot}
