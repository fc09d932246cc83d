"""Exact IEEE-754 arithmetic for the kernel corpus's numpy references.

numpy computes float16/float32/float64 add, mul, div and sqrt correctly rounded to nearest, but it
has no fused multiply-add, no directed rounding modes (``__fadd_rz``, ``__dsqrt_ru``, ...) and no
bfloat16. This module computes such results exactly: operands become ``fractions.Fraction``\\ s,
the exact result is rounded once to the target format in the requested mode. It is slow (a Python
loop per element) and meant for the corpus's small arrays only.

Formats are given by :class:`Fmt`; values travel in their numpy storage dtype (bf16 as its
uint16 bit pattern, tf32 as a float32 whose low 13 mantissa bits are zero).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

import numpy as np

NDArray = np.ndarray[Any, Any]


@dataclass(frozen=True, slots=True)
class _Layout:
    exp_bits: int
    mant_bits: int
    storage: str  # numpy dtype name of the storage
    width: int  # bits of the storage word


class Fmt(Enum):
    F16 = _Layout(5, 10, "float16", 16)
    BF16 = _Layout(8, 7, "uint16", 16)
    TF32 = _Layout(8, 10, "float32", 32)
    F32 = _Layout(8, 23, "float32", 32)
    F64 = _Layout(11, 52, "float64", 64)

    @property
    def bias(self) -> int:
        return int((1 << (self.value.exp_bits - 1)) - 1)

    @property
    def emin(self) -> int:
        return 1 - self.bias

    @property
    def emax(self) -> int:
        return self.bias


class Rnd(Enum):
    """IEEE rounding attributes, named as PTX names them."""

    RN = "rn"  # to nearest, ties to even
    RZ = "rz"  # toward zero
    RM = "rm"  # toward -inf ("_rd" in CUDA intrinsic names)
    RP = "rp"  # toward +inf ("_ru")


@dataclass(frozen=True, slots=True)
class Value:
    """A decoded floating-point datum: a finite rational with a sign (for zeros), or special."""

    q: Fraction
    neg: bool  # sign bit (meaningful for zeros and infinities)
    kind: str  # "finite", "inf" or "nan"

    @property
    def is_finite(self) -> bool:
        return self.kind == "finite"


# ----------------------------------------------------------------------------------------------
# Encoding and decoding


def _storage_bits(x: Any, fmt: Fmt) -> int:
    lay = fmt.value
    if fmt is Fmt.BF16:
        return int(x) & 0xFFFF
    arr = np.asarray(x, dtype=lay.storage).reshape(1)
    bits = int(arr.view(f"u{lay.width // 8}")[0])
    if fmt is Fmt.TF32:
        return bits >> 13  # as a 19-bit tf32 pattern
    return bits


def _bits_to_storage(bits: int, fmt: Fmt) -> Any:
    lay = fmt.value
    if fmt is Fmt.BF16:
        return np.uint16(bits)
    if fmt is Fmt.TF32:
        bits <<= 13
    return np.array([bits], dtype=f"u{lay.width // 8}").view(lay.storage)[0]


def decode_bits(bits: int, fmt: Fmt) -> Value:
    lay = fmt.value
    mb, eb = lay.mant_bits, lay.exp_bits
    neg = bool(bits >> (mb + eb) & 1)
    e = (bits >> mb) & ((1 << eb) - 1)
    m = bits & ((1 << mb) - 1)
    if e == (1 << eb) - 1:
        return Value(Fraction(0), neg, "nan" if m else "inf")
    q = (
        Fraction(m, 1 << mb) * Fraction(2) ** fmt.emin
        if e == 0
        else (Fraction((1 << mb) | m, 1 << mb) * Fraction(2) ** (e - fmt.bias))
    )
    return Value(-q if neg else q, neg, "finite")


def decode(x: Any, fmt: Fmt) -> Value:
    """Decode one stored element (a numpy scalar, or a bf16 bit pattern)."""
    return decode_bits(_storage_bits(x, fmt), fmt)


def _floor_log2(a: Fraction) -> int:
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    return e


def _round_int(m: int, sticky: bool, guard: int, rnd: Rnd, neg: bool) -> int:
    """Drop ``guard`` low bits of ``m`` (``sticky``: nonzero bits below m) in mode ``rnd``."""
    keep = m >> guard
    rest = m & ((1 << guard) - 1)
    inexact = rest != 0 or sticky
    if not inexact:
        return keep
    if rnd is Rnd.RN:
        half = 1 << (guard - 1)
        if rest > half or (rest == half and (sticky or keep & 1)):
            keep += 1
    elif (rnd is Rnd.RP and not neg) or (rnd is Rnd.RM and neg):
        keep += 1
    return keep


def _encode_scaled(neg: bool, n: int, k: int, fmt: Fmt, rnd: Rnd) -> int:
    """Encode ``(-1)^neg * n * 2^k`` (n already rounded to at most mant_bits+1 bits, or exactly
    one more when rounding carried) as bits, handling overflow per ``rnd``."""
    lay = fmt.value
    mb, eb = lay.mant_bits, lay.exp_bits
    sign = int(neg) << (mb + eb)
    if n == 0:
        return sign
    if n >> (mb + 1):  # rounding carried into a new binade
        n >>= 1
        k += 1
    if n >> mb:  # normal
        e = k + mb + fmt.bias
        if e >= (1 << eb) - 1:  # overflow
            to_inf = rnd is Rnd.RN or (rnd is Rnd.RP and not neg) or (rnd is Rnd.RM and neg)
            if to_inf:
                return sign | (((1 << eb) - 1) << mb)
            return sign | (((1 << eb) - 2) << mb) | ((1 << mb) - 1)
        return sign | (e << mb) | (n - (1 << mb))
    return sign | n  # subnormal: k == emin - mb


def round_fraction(q: Fraction, fmt: Fmt, rnd: Rnd = Rnd.RN, zero_neg: bool = False) -> int:
    """Round the exact rational ``q`` to ``fmt`` in mode ``rnd``; the bits. ``zero_neg`` gives
    the sign of an exact zero."""
    if q == 0:
        return int(zero_neg) << (fmt.value.mant_bits + fmt.value.exp_bits)
    neg = q < 0
    a = -q if neg else q
    mb = fmt.value.mant_bits
    k = max(_floor_log2(a), fmt.emin) - mb  # weight of the result's last mantissa bit
    guard = 2
    scaled = a / Fraction(2) ** (k - guard)
    m = scaled.numerator // scaled.denominator
    sticky = m * scaled.denominator != scaled.numerator
    return _encode_scaled(neg, _round_int(m, sticky, guard, rnd, neg), k, fmt, rnd)


def round_sqrt(a: Fraction, fmt: Fmt, rnd: Rnd = Rnd.RN) -> int:
    """Correctly rounded sqrt of a positive rational."""
    mb = fmt.value.mant_bits
    k = max(_floor_log2(a) // 2, fmt.emin) - mb
    guard = 2
    x = a / Fraction(4) ** (k - guard)  # sqrt(x) = sqrt(a) / 2^(k-guard)
    fl = x.numerator // x.denominator
    m = math.isqrt(fl)
    sticky = Fraction(m * m) != x
    return _encode_scaled(False, _round_int(m, sticky, guard, rnd, False), k, fmt, rnd)


def to_storage(bits: int, fmt: Fmt) -> Any:
    return _bits_to_storage(bits, fmt)


# ----------------------------------------------------------------------------------------------
# Elementwise operations on arrays


def _nan_bits(fmt: Fmt) -> int:
    lay = fmt.value
    return (((1 << lay.exp_bits) - 1) << lay.mant_bits) | (1 << (lay.mant_bits - 1))


def _inf_bits(fmt: Fmt, neg: bool) -> int:
    lay = fmt.value
    sign = int(neg) << (lay.mant_bits + lay.exp_bits)
    return sign | (((1 << lay.exp_bits) - 1) << lay.mant_bits)


def _signed(v: Value) -> float:
    """A special or zero value as a float (for IEEE sign and NaN rules)."""
    if v.kind == "nan":
        return math.nan
    if v.kind == "inf":
        return -math.inf if v.neg else math.inf
    return float(v.q) if v.q else (-0.0 if v.neg else 0.0)


def _from_float_special(x: float, fmt: Fmt) -> int:
    if math.isnan(x):
        return _nan_bits(fmt)
    if math.isinf(x):
        return _inf_bits(fmt, x < 0)
    assert x == 0.0
    return int(math.copysign(1.0, x) < 0) << (fmt.value.mant_bits + fmt.value.exp_bits)


def _add(a: Value, b: Value, fmt: Fmt, rnd: Rnd) -> int:
    if not (a.is_finite and b.is_finite):
        return _from_float_special(_signed(a) + _signed(b), fmt)
    s = a.q + b.q
    if s == 0:
        # Exact zero: -0 only for (-0)+(-0), or for opposite signs when rounding down.
        both_zero = a.q == 0 and b.q == 0
        neg = (a.neg and b.neg) if both_zero and a.neg == b.neg else rnd is Rnd.RM
        return round_fraction(s, fmt, rnd, neg)
    return round_fraction(s, fmt, rnd)


def _mul(a: Value, b: Value, fmt: Fmt, rnd: Rnd) -> int:
    if not (a.is_finite and b.is_finite):
        return _from_float_special(_signed(a) * _signed(b), fmt)
    return round_fraction(a.q * b.q, fmt, rnd, a.neg != b.neg)


def _fma(a: Value, b: Value, c: Value, fmt: Fmt, rnd: Rnd) -> int:
    if a.is_finite and b.is_finite and not c.is_finite:
        return _from_float_special(_signed(c), fmt)  # the exact product is finite
    if not (a.is_finite and b.is_finite and c.is_finite):
        return _from_float_special(_signed(a) * _signed(b) + _signed(c), fmt)
    prod = a.q * b.q
    total = prod + c.q
    if total == 0:
        pneg = a.neg != b.neg
        if prod == 0 and c.q == 0 and pneg == c.neg:
            return round_fraction(total, fmt, rnd, pneg)
        return round_fraction(total, fmt, rnd, rnd is Rnd.RM)
    return round_fraction(total, fmt, rnd)


def _div(a: Value, b: Value, fmt: Fmt, rnd: Rnd) -> int:
    if not (a.is_finite and b.is_finite) or b.q == 0:
        x, y = _signed(a), _signed(b)
        if y == 0.0:
            if x == 0.0 or math.isnan(x):
                return _nan_bits(fmt)
            return _inf_bits(fmt, (x < 0) != (math.copysign(1.0, y) < 0))
        return _from_float_special(x / y, fmt)
    return round_fraction(a.q / b.q, fmt, rnd, a.neg != b.neg)


def _sqrt(a: Value, fmt: Fmt, rnd: Rnd) -> int:
    if not a.is_finite:
        return _nan_bits(fmt) if a.kind == "nan" or a.neg else _inf_bits(fmt, False)
    if a.q == 0:
        return round_fraction(Fraction(0), fmt, rnd, a.neg)
    if a.q < 0:
        return _nan_bits(fmt)
    return round_sqrt(a.q, fmt, rnd)


def _map(
    fn: Callable[..., int], arrays: Sequence[NDArray], in_fmt: Fmt, out_fmt: Fmt, *extra: Any
) -> NDArray:
    n = len(arrays[0])
    out = np.empty(n, dtype=out_fmt.value.storage)
    for i in range(n):
        vals = [decode(arr[i], in_fmt) for arr in arrays]
        out[i] = to_storage(fn(*vals, out_fmt, *extra), out_fmt)
    return out


def add(a: NDArray, b: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN, out: Fmt | None = None) -> NDArray:
    return _map(_add, [a, b], fmt, out or fmt, rnd)


def sub(a: NDArray, b: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN, out: Fmt | None = None) -> NDArray:
    return _map(lambda x, y, f, r: _add(x, _neg(y), f, r), [a, b], fmt, out or fmt, rnd)


def mul(a: NDArray, b: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN, out: Fmt | None = None) -> NDArray:
    return _map(_mul, [a, b], fmt, out or fmt, rnd)


def fma(
    a: NDArray, b: NDArray, c: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN, out: Fmt | None = None
) -> NDArray:
    if fmt is Fmt.F32 and out in (None, Fmt.F32) and rnd is Rnd.RN:
        fast = _fma_f32_rn(a, b, c)
        if fast is not None:
            return fast
    return _map(_fma, [a, b, c], fmt, out or fmt, rnd)


def _fma_f32_rn(a: NDArray, b: NDArray, c: NDArray) -> NDArray | None:
    """Vectorised exact f32 fma (rn) through f64: the product is exact in f64, the sum is
    s + e exactly (TwoSum), and e can only matter when s lies exactly on an f32 midpoint.
    None when an operand or the result is not a normal finite number (the slow path decides)."""
    a64, b64, c64 = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a64 * b64
        s = p + c64
        bb = s - p
        e = (p - (s - bb)) + (c64 - bb)
        r = s.astype(np.float32)
        r64 = r.astype(np.float64)
        toward = np.nextafter(r, np.where(s > r64, np.float32(np.inf), np.float32(-np.inf)))
        mid = (r64 + toward.astype(np.float64)) * 0.5
    tiny = np.float64(np.finfo(np.float32).tiny)
    if not (np.all(np.isfinite(r)) and np.all((np.abs(r64) >= tiny) | (r64 == 0))):
        return None
    if np.any((r64 == 0) | (p == 0)):
        return None  # signed-zero rules: slow path
    # s on the midpoint between r (its rn rounding, the even candidate) and the other neighbour:
    # a non-zero e decides, toward the neighbour when it points past the midpoint.
    at_mid = (s == mid) & (s != r64) & (e != 0)
    past = at_mid & (np.sign(e) == np.sign(toward.astype(np.float64) - r64))
    return np.where(past, toward, r).astype(np.float32)


def div(a: NDArray, b: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN, out: Fmt | None = None) -> NDArray:
    return _map(_div, [a, b], fmt, out or fmt, rnd)


def sqrt(a: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN, out: Fmt | None = None) -> NDArray:
    return _map(_sqrt, [a], fmt, out or fmt, rnd)


def _rsqrt(a: Value, fmt: Fmt, rnd: Rnd) -> int:
    if a.kind == "inf" and not a.neg:
        return round_fraction(Fraction(0), fmt, rnd)
    if not a.is_finite or a.q < 0:
        return _nan_bits(fmt)
    if a.q == 0:
        return _inf_bits(fmt, a.neg)
    return round_sqrt(1 / a.q, fmt, rnd)


def rsqrt(a: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN) -> NDArray:
    """Correctly rounded 1/sqrt(x) (as ``__frsqrt_rn``)."""
    return _map(_rsqrt, [a], fmt, fmt, rnd)


def rcp(a: NDArray, fmt: Fmt, rnd: Rnd = Rnd.RN) -> NDArray:
    one = np.ones(len(a), dtype=fmt.value.storage)
    if fmt is Fmt.BF16:
        one[:] = 0x3F80
    return div(one, a, fmt, rnd)


def convert(a: NDArray, src: Fmt, dst: Fmt, rnd: Rnd = Rnd.RN) -> NDArray:
    """Float-to-float conversion (cvt.rnd.dst.src); NaN becomes the canonical quiet NaN."""

    def one(v: Value, f: Fmt, r: Rnd) -> int:
        if not v.is_finite:
            return _nan_bits(f) if v.kind == "nan" else _inf_bits(f, v.neg)
        return round_fraction(v.q, f, r, v.neg)

    return _map(one, [a], src, dst, rnd)


def _neg(v: Value) -> Value:
    return Value(-v.q, not v.neg, v.kind)


def from_ints(a: NDArray, dst: Fmt, rnd: Rnd = Rnd.RN) -> NDArray:
    """Integer-to-float conversion (cvt.rnd.dst.sNN/uNN)."""
    out = np.empty(len(a), dtype=dst.value.storage)
    for i, x in enumerate(a.tolist()):
        out[i] = to_storage(round_fraction(Fraction(int(x)), dst, rnd), dst)
    return out


def to_ints(a: NDArray, src: Fmt, rnd: Rnd, dtype: str) -> NDArray:
    """Float-to-integer conversion (cvt.rnii.sNN/uNN.fXX): rounds in ``rnd``, saturates to the
    integer type's range, NaN gives 0 (PTX semantics)."""
    info = np.iinfo(dtype)
    out = np.empty(len(a), dtype=dtype)
    for i in range(len(a)):
        v = decode(a[i], src)
        if v.kind == "nan":
            out[i] = 0
            continue
        if v.kind == "inf":
            out[i] = info.min if v.neg else info.max
            continue
        out[i] = min(max(round_to_integer(v.q, rnd), int(info.min)), int(info.max))
    return out


def round_to_integer(q: Fraction, rnd: Rnd) -> int:
    fl = math.floor(q)
    if fl == q:
        return fl
    if rnd is Rnd.RM:
        return fl
    if rnd is Rnd.RP:
        return fl + 1
    if rnd is Rnd.RZ:
        return fl if q > 0 else fl + 1
    rest = q - fl
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and fl & 1):
        return fl + 1
    return fl


def bf16_to_f32(bits: NDArray) -> NDArray:
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
