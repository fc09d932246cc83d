import numpy as np

from openptxas.testing import refmath as R

B = R.Fmt.BF16
ONE, ZERO = np.uint16(0x3F80), np.uint16(0x0000)


def _f(v):
    return R.bf16_to_f32(v)


def _relu(v):
    return np.where(_f(v) < 0, ZERO, v).astype(np.uint16)


def _sat(v):
    f = _f(v)
    return np.where(f < 0, ZERO, np.where(f > 1, ONE, v)).astype(np.uint16)


def _pick(cond, p, q):
    return np.where(cond, p, q).astype(np.uint16)


def _neg(v):
    return (v ^ np.uint16(0x8000)).astype(np.uint16)


def _abs(v):
    return (v & np.uint16(0x7FFF)).astype(np.uint16)


def bf16_arith(args, spec):
    x, y, z, _, _, n = args
    n = int(n[0])
    x, y, z = x[:n], y[:n], z[:n]
    fx, fy, fz = _f(x), _f(y), _f(z)
    rows = [
        R.add(x, y, B),
        R.sub(x, y, B),
        R.mul(x, y, B),
        R.fma(x, y, z, B),
        _relu(R.fma(x, y, z, B)),
        _sat(R.fma(x, y, z, B)),
        _pick(fx >= fy, x, y),
        _pick(fx <= fz, x, z),
        _neg(_abs(y)),
        R.div(x, y, B),
    ]
    b = lambda v: v.astype(np.int32)  # noqa: E731
    cmp = b(fx == fy) | (b(fx < fy) << 1) | (b(fy >= fz) << 2) | (b(fx > fz) << 3)
    return {3: np.concatenate(rows), 4: cmp}


def bf162_arith(args, spec):
    x, y, z, _, _, _, n = args
    n = int(n[0])
    x, y, z = x[: 2 * n], y[: 2 * n], z[: 2 * n]
    fx, fy, fz = _f(x), _f(y), _f(z)
    nx = _neg(x)
    swapped = np.empty_like(nx)
    swapped[0::2], swapped[1::2] = nx[1::2], nx[0::2]
    rows = [
        R.add(x, y, B),
        R.sub(x, y, B),
        R.mul(x, y, B),
        R.fma(x, y, z, B),
        _relu(R.fma(x, z, y, B)),
        _pick(fx >= fy, x, y),
        _pick(fy <= fz, y, z),
        swapped,
        R.div(x, z, B),
        R.mul(R.add(x, y, B), R.sub(y, z, B), B),
    ]
    outf = _f(R.fma(x, x, y, B))
    lt = fx < fy
    m0 = np.where(lt[0::2], 0xFFFF, 0).astype(np.uint32) | np.where(lt[1::2], 0xFFFF0000, 0).astype(np.uint32)
    ge = fy >= fz
    ne = fx != fy
    m1 = (ge[0::2] & ge[1::2]).astype(np.uint32) | ((ne[0::2] & ne[1::2]).astype(np.uint32) << 1)
    return {3: np.concatenate(rows), 4: outf, 5: np.concatenate([m0, m1])}
