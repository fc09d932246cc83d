"""openptxas.testing.refmath: exact IEEE arithmetic for the corpus references, checked against
numpy's correctly rounded round-to-nearest operations and against the definitions of the
directed modes."""

from fractions import Fraction

import numpy as np
import pytest

from openptxas.spec import float_to_bf16_bits
from openptxas.testing import refmath as R

FORMATS = [(R.Fmt.F16, np.float16, 14), (R.Fmt.F32, np.float32, 40), (R.Fmt.F64, np.float64, 300)]


def _operands(dt, spread, n=1500, seed=0):
    rng = np.random.default_rng(seed)
    exps = rng.integers(-spread, spread, n)
    with np.errstate(over="ignore", under="ignore"):
        x = (rng.standard_normal(n) * np.exp2(exps.astype(np.float64))).astype(dt)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
    return x


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    bits = a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")
    return bool(np.all(bits | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("fmt,dt,spread", FORMATS)
def test_round_to_nearest_matches_numpy(fmt, dt, spread):
    x, y = _operands(dt, spread, seed=1), _operands(dt, spread, seed=2)
    y[:6] = [-0.0, -0.0, 1.0, np.inf, 2.0, 0.0]
    with np.errstate(all="ignore"):
        if dt is not np.float16:  # numpy's float16 arithmetic rounds twice (via float32)
            assert _same(R.add(x, y, fmt), x + y)
            assert _same(R.sub(x, y, fmt), x - y)
            assert _same(R.mul(x, y, fmt), x * y)
            assert _same(R.div(x, y, fmt), x / y)
        assert _same(R.sqrt(np.abs(x), fmt), np.sqrt(np.abs(x).astype(np.float64)).astype(dt))


def test_conversions_match_numpy():
    x = _operands(np.float64, 160, seed=3)
    with np.errstate(over="ignore"):
        assert _same(R.convert(x, R.Fmt.F64, R.Fmt.F32), x.astype(np.float32))
        assert _same(R.convert(x, R.Fmt.F64, R.Fmt.F16), x.astype(np.float16))
    z = _operands(np.float32, 20, seed=4)[6:]
    assert np.array_equal(R.convert(z, R.Fmt.F32, R.Fmt.BF16), float_to_bf16_bits(z))


@pytest.mark.parametrize("fmt,dt,spread", FORMATS)
def test_directed_modes_bracket_the_exact_value(fmt, dt, spread):
    x, y = _operands(dt, spread // 2, seed=5)[6:], _operands(dt, spread // 2, seed=6)[6:]
    for i in range(200):
        exact = Fraction(float(x[i])) * Fraction(float(y[i]))
        lo = Fraction(float(R.mul(x[i : i + 1], y[i : i + 1], fmt, R.Rnd.RM)[0]))
        hi = Fraction(float(R.mul(x[i : i + 1], y[i : i + 1], fmt, R.Rnd.RP)[0]))
        rz = Fraction(float(R.mul(x[i : i + 1], y[i : i + 1], fmt, R.Rnd.RZ)[0]))
        assert lo <= exact <= hi
        assert rz == (lo if exact >= 0 else hi)
        if lo != hi:  # inexact: adjacent values
            assert np.nextafter(dt(float(lo)), dt(np.inf)) == dt(float(hi))


def test_fma_single_rounding():
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: an f32 tie, broken by a tiny addend only in a fused op
    a = np.full(3, 1 + 2.0**-12, dtype=np.float32)
    c = np.array([2.0**-40, -(2.0**-40), 0.0], dtype=np.float32)
    got = R.fma(a, a, c, R.Fmt.F32)
    assert got[0] == np.float32(1 + 2.0**-11 + 2.0**-23)
    assert got[1] == np.float32(1 + 2.0**-11)
    assert got[2] == np.float32(1 + 2.0**-11)  # tie to even
    rng = np.random.default_rng(7)
    x, y, z = (rng.standard_normal(3000).astype(np.float32) for _ in range(3))
    z[:1000] = -(x[:1000] * y[:1000])  # heavy cancellation
    fast = R.fma(x, y, z, R.Fmt.F32)
    slow = np.empty(3000, dtype=np.float32)
    for i in range(3000):
        ops = [R.decode(v[i], R.Fmt.F32) for v in (x, y, z)]
        slow[i] = R.to_storage(R._fma(*ops, R.Fmt.F32, R.Rnd.RN), R.Fmt.F32)
    assert _same(fast, slow)


def test_signed_zeros_and_overflow():
    one, neg = np.array([1.0], np.float32), np.array([-1.0], np.float32)
    assert np.signbit(R.add(one, neg, R.Fmt.F32, R.Rnd.RM)[0])
    assert not np.signbit(R.add(one, neg, R.Fmt.F32, R.Rnd.RN)[0])
    big = np.array([3e38], np.float32)
    assert np.isinf(R.mul(big, big, R.Fmt.F32, R.Rnd.RN)[0])
    assert R.mul(big, big, R.Fmt.F32, R.Rnd.RZ)[0] == np.finfo(np.float32).max
    assert R.mul(big, -big, R.Fmt.F32, R.Rnd.RP)[0] == -np.finfo(np.float32).max


def test_integer_conversions_saturate():
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 3.5], dtype=np.float32)
    assert R.to_ints(x, R.Fmt.F32, R.Rnd.RN, "int32").tolist() == [
        0,
        2147483647,
        -2147483648,
        2147483647,
        -2147483648,
        2,
        -2,
        4,
    ]
    assert R.to_ints(x, R.Fmt.F32, R.Rnd.RZ, "uint32").tolist() == [
        0,
        4294967295,
        0,
        3000000000,
        0,
        2,
        0,
        3,
    ]
    ints = np.array([2**24 + 1, -(2**24) - 1, 16777219], dtype=np.int64)
    assert R.from_ints(ints, R.Fmt.F32, R.Rnd.RP).tolist() == [2**24 + 2, -(2**24), 16777220]
    assert R.from_ints(ints, R.Fmt.F32, R.Rnd.RM).tolist() == [2**24, -(2**24) - 2, 16777218]
