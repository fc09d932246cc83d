"""IEEE floating-point arithmetic on bit patterns, vectorised, with the GPU's conventions.

- Every result that is NaN is the canonical NaN (f32 ``0x7fffffff``, f64
  ``0x7fffffffffffffff``, f16/bf16 ``0x7fff``), as NVIDIA GPUs produce it.
- ``ftz``: subnormal inputs and results become zero of the same sign.
- Rounding modes: ``RN`` (nearest even), ``RZ``, ``RM`` (towards -inf), ``RP`` (towards +inf).

Exactness: sums and products are computed exactly as an unevaluated pair ``hi + lo`` of float64
(TwoSum; TwoProduct by Veltkamp/Dekker splitting), then rounded once through round-to-odd, which
makes every f32/f16/bf16/f64 result correctly rounded in every mode (Boldo & Melquiond's
emulation of FMA). float64 FMA operands whose product or sum would overflow or underflow the
splitting fall back to exact rational arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

NDArray = np.ndarray[Any, Any]
U16 = np.uint16
U32 = np.uint32
U64 = np.uint64
F16 = np.float16
F32 = np.float32
F64 = np.float64

CANON_F16 = U16(0x7FFF)
CANON_F32 = U32(0x7FFFFFFF)
CANON_F64 = U64(0x7FFFFFFFFFFFFFFF)


def f32(bits: Any) -> NDArray:
    return np.asarray(bits, dtype=U32).view(F32)


def f64(bits: Any) -> NDArray:
    return np.asarray(bits, dtype=U64).view(F64)


def bits32(x: Any) -> NDArray:
    return np.asarray(x, dtype=F32).view(U32)


def bits64(x: Any) -> NDArray:
    return np.asarray(x, dtype=F64).view(U64)


def canon32(r: NDArray) -> NDArray:
    """float32 array -> bits with NaNs canonical."""
    b = np.asarray(r, dtype=F32).view(U32)
    nan = r != r
    if np.any(nan):
        b = np.where(nan, CANON_F32, b)
    return b


def canon64(r: NDArray) -> NDArray:
    b = np.asarray(r, dtype=F64).view(U64)
    nan = r != r
    if np.any(nan):
        b = np.where(nan, CANON_F64, b)
    return b


def ftz32(bits: Any) -> NDArray:
    """Flush f32 subnormals (bit patterns) to signed zero."""
    b = np.asarray(bits, dtype=U32)
    sub = (b & U32(0x7F800000)) == 0
    return np.where(sub, b & U32(0x80000000), b)


def ftz64(bits: Any) -> NDArray:
    b = np.asarray(bits, dtype=U64)
    sub = (b & U64(0x7FF0000000000000)) == 0
    return np.where(sub, b & U64(1 << 63), b)


# -- exact arithmetic helpers --------------------------------------------------------------


def two_sum(a: NDArray, b: NDArray) -> tuple[NDArray, NDArray]:
    """s + e == a + b exactly (s = fl(a + b)); e is 0 where s is not finite."""
    with np.errstate(all="ignore"):
        s = a + b
        bb = s - a
        e = (a - (s - bb)) + (b - bb)
    fin = np.isfinite(s)
    if not np.all(fin):
        e = np.where(fin, e, 0.0)
    return s, e


_SPLIT = F64(134217729.0)  # 2**27 + 1


def two_prod(a: NDArray, b: NDArray) -> tuple[NDArray, NDArray]:
    """p + e == a * b exactly, for products and operands away from overflow and underflow."""
    with np.errstate(all="ignore"):
        p = a * b
        ta = _SPLIT * a
        ah = ta - (ta - a)
        al = a - ah
        tb = _SPLIT * b
        bh = tb - (tb - b)
        bl = b - bh
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def round_odd(s: NDArray, e: NDArray) -> NDArray:
    """Round the exact value s + e (|e| <= ulp(s)/2) to float64 with round-to-odd."""
    inexact = (e != 0) & np.isfinite(s)
    if not np.any(inexact):
        return s
    sb = s.view(U64)
    even = (sb & U64(1)) == 0
    fix = inexact & even
    if not np.any(fix):
        return s
    toward = np.where(e > 0, np.inf, -np.inf)
    return np.where(fix, np.nextafter(s, toward), s)


def _directed(r: NDArray, exact: NDArray, mode: str, dtype: Any) -> NDArray:
    """Adjust r (RN-rounded ``exact`` in ``dtype``) for a directed rounding mode."""
    if mode == "RN":
        return r
    with np.errstate(all="ignore"):
        rd = r.astype(F64)
        if mode == "RZ":
            step = np.abs(rd) > np.abs(exact)
            tgt = np.zeros_like(r)
        elif mode == "RM":
            step = rd > exact
            tgt = np.full_like(r, -np.inf)
        else:  # RP
            step = rd < exact
            tgt = np.full_like(r, np.inf)
        step &= np.isfinite(exact) | (np.isinf(rd) & np.isfinite(exact))
        step &= ~np.isnan(exact)
        if np.any(step):
            r = np.where(step, np.nextafter(r, tgt.astype(dtype)), r)
    return r


def round_to_f32(s: NDArray, e: NDArray, mode: str = "RN") -> NDArray:
    """Correctly rounded float32 (as float32 values) of the exact value s + e."""
    o = round_odd(s, e)
    with np.errstate(all="ignore"):
        r = o.astype(F32)
    if mode != "RN":
        r = _directed(r, o, mode, F32)
    return r


def round_to_f64(s: NDArray, e: NDArray, mode: str) -> NDArray:
    """Correctly rounded float64 of the exact value s + e for a directed mode (s is RN)."""
    if mode == "RN":
        return s
    step: NDArray
    if mode == "RZ":
        step = (e != 0) & (np.sign(e) != np.sign(s)) & (s != 0)
        tgt = np.zeros_like(s)
    elif mode == "RM":
        step = e < 0
        tgt = np.full_like(s, -np.inf)
    else:
        step = e > 0
        tgt = np.full_like(s, np.inf)
    # Overflow: RN gave inf where the directed mode keeps the largest finite value.
    inf = np.isinf(s)
    if np.any(inf):
        if mode == "RZ":
            step = step | inf
        elif mode == "RM":
            step = step | (inf & (s > 0))
        else:
            step = step | (inf & (s < 0))
    if np.any(step):
        s = np.where(step, np.nextafter(s, tgt), s)
    return s


# -- f32 ---------------------------------------------------------------------------------------


def f32_add_bits(a: NDArray, b: NDArray, ftz: bool = False, mode: str = "RN") -> NDArray:
    if ftz:
        a, b = ftz32(a), ftz32(b)
    if mode == "RN":
        with np.errstate(all="ignore"):
            r = f32(a) + f32(b)
    else:
        x, y = f32(a).astype(F64), f32(b).astype(F64)
        s, e = two_sum(x, y)
        r = round_to_f32(s, e, mode)
        if mode == "RM":
            r = _rm_zero(r, x, y).astype(F32)
    out = canon32(r)
    return ftz32(out) if ftz else out


def _rm_zero(r: NDArray, x: NDArray, y: NDArray) -> NDArray:
    """The sign of an exact zero sum x + y in round-toward-minus mode: -0 unless both operands
    are +0 (IEEE 754; the other modes give +0 unless both are -0, as round-to-nearest does)."""
    with np.errstate(all="ignore"):
        exact0 = (x + y == 0) & (x == -y)
    if not np.any(exact0):
        return r
    both_pos = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
    return np.where(exact0 & ~both_pos, np.copysign(np.zeros_like(r), -1.0), r)


def f32_mul_bits(a: NDArray, b: NDArray, ftz: bool = False, mode: str = "RN") -> NDArray:
    if ftz:
        a, b = ftz32(a), ftz32(b)
    if mode == "RN":
        with np.errstate(all="ignore"):
            r = f32(a) * f32(b)
    else:
        with np.errstate(all="ignore"):
            p = f32(a).astype(F64) * f32(b).astype(F64)  # exact
        r = round_to_f32(p, np.zeros_like(p), mode)
    out = canon32(r)
    return ftz32(out) if ftz else out


def f32_fma_bits(
    a: NDArray, b: NDArray, c: NDArray, ftz: bool = False, mode: str = "RN"
) -> NDArray:
    if ftz:
        a, b, c = ftz32(a), ftz32(b), ftz32(c)
    with np.errstate(all="ignore"):
        p = f32(a).astype(F64) * f32(b).astype(F64)  # exact: 48 significant bits
        z = f32(c).astype(F64)
        s, e = two_sum(p, z)
    r = round_to_f32(s, e, mode)
    if mode == "RM":
        r = _rm_zero(r, p, z).astype(F32)
    out = canon32(r)
    return ftz32(out) if ftz else out


def sat32(bits: NDArray) -> NDArray:
    """Clamp f32 to [+0, 1] (CUDA's __saturatef: -0 becomes +0); NaN -> +0."""
    x = f32(bits)
    with np.errstate(all="ignore"):
        r = np.where(x != x, F32(0), np.clip(x, F32(0), F32(1))) + F32(0)  # -0 -> +0
    return bits32(r.astype(F32))


def f32_minmax_bits(a: NDArray, b: NDArray, is_min: bool, ftz: bool = False) -> NDArray:
    """min/max: a NaN operand yields the other; -0 < +0."""
    if ftz:
        a, b = ftz32(a), ftz32(b)
    a = np.asarray(a, dtype=U32)
    b = np.asarray(b, dtype=U32)
    # Order as signed-magnitude integers: maps floats to a monotone integer key.
    ka = np.where(a & U32(0x80000000), ~a, a | U32(0x80000000))
    kb = np.where(b & U32(0x80000000), ~b, b | U32(0x80000000))
    pick_a = ka < kb if is_min else ka > kb
    r = np.where(pick_a, a, b)
    an = (a & U32(0x7FFFFFFF)) > U32(0x7F800000)
    bn = (b & U32(0x7FFFFFFF)) > U32(0x7F800000)
    r = np.where(an, b, np.where(bn, a, r))
    return np.where(an & bn, CANON_F32, r)


# -- f64 ---------------------------------------------------------------------------------------

_BIG = 2.0**960
_SMALL = 2.0**-960


def f64_add_bits(a: NDArray, b: NDArray, mode: str = "RN") -> NDArray:
    x, y = f64(a), f64(b)
    s, e = two_sum(x, y)
    r = round_to_f64(s, e, mode)
    if mode != "RN":
        # an infinite operand gives an exact infinity, not an overflow to clamp
        r = np.where(np.isinf(x) | np.isinf(y), s, r)
    if mode == "RM":
        r = _rm_zero(r, x, y)
    return canon64(r)


def f64_mul_bits(a: NDArray, b: NDArray, mode: str = "RN") -> NDArray:
    x, y = f64(a), f64(b)
    if mode == "RN":
        with np.errstate(all="ignore"):
            return canon64(x * y)
    r = f64(f64_fma_bits(a, b, np.zeros_like(np.asarray(a, dtype=U64)), mode))
    # a zero product (exact or underflowed) has the XOR of the operands' signs in every mode
    zsign = np.signbit(x) ^ np.signbit(y)
    r = np.where(r == 0, np.where(zsign, -0.0, 0.0), r)
    return canon64(r)


def _fma_exact_scalar(x: float, y: float, z: float, mode: str) -> float:
    """Correctly rounded x*y+z for finite operands through rationals (rare lanes only)."""
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:
        # Sign of an exact zero: -0 only if both x*y and z are -0 (or RM).
        prod_neg = (np.signbit(x) != np.signbit(y)) and x * y == 0
        if x * y == 0 and z == 0:
            neg = prod_neg and bool(np.signbit(z))
            if mode == "RM":
                neg = prod_neg or bool(np.signbit(z))
            return -0.0 if neg else 0.0
        return -0.0 if mode == "RM" else 0.0
    try:
        r = float(exact)  # correctly rounded to nearest
    except OverflowError:
        r = math.inf if exact > 0 else -math.inf
    if mode == "RN":
        return r
    fr = Fraction(r) if np.isfinite(r) else None
    if mode == "RZ":
        if fr is None or abs(fr) > abs(exact):
            r = float(np.nextafter(r, 0.0))
    elif mode == "RM":
        if fr is None or fr > exact:
            r = float(np.nextafter(r, -np.inf))
    elif fr is None or fr < exact:
        r = float(np.nextafter(r, np.inf))
    return r


def f64_fma_bits(a: NDArray, b: NDArray, c: NDArray, mode: str = "RN") -> NDArray:
    x, y, z = (np.atleast_1d(f64(v)) for v in (a, b, c))
    x, y, z = np.broadcast_arrays(x, y, z)
    with np.errstate(all="ignore"):
        p, pe = two_prod(x, y)
        th, tl = two_sum(z, p)
        v_s, v_e = two_sum(tl, pe)
        v = round_odd(v_s, v_e)
        s, e = two_sum(th, v)
    r = round_to_f64(s, e, mode)
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    risky = (
        (ax > _BIG)
        | (ay > _BIG)
        | (az > _BIG)
        | (np.abs(p) > _BIG)
        | ((np.abs(p) < _SMALL) & (p != 0))
        | ((ax < _SMALL) & (ax != 0))
        | ((ay < _SMALL) & (ay != 0))
        | ((az < _SMALL) & (az != 0))
        | ((np.abs(r) < _SMALL) & (r != 0))
        | ((p == 0) & (x != 0) & (y != 0))  # the product underflowed
        | (r == 0)  # zero results: the sign rules of exact zeros, and underflow
    )
    special = ~(np.isfinite(x) & np.isfinite(y) & np.isfinite(z))
    slow = risky & ~special
    if np.any(slow):
        r = r.copy()
        for i in np.flatnonzero(slow):
            r[i] = _fma_exact_scalar(float(x[i]), float(y[i]), float(z[i]), mode)
    if np.any(special):
        with np.errstate(all="ignore"):
            r = np.where(special, x * y + z, r)
    # exact zero results: IEEE sign rules (x*y + z == 0 exactly)
    return canon64(r)


def f64_minmax_bits(a: NDArray, b: NDArray, is_min: bool) -> NDArray:
    a = np.asarray(a, dtype=U64)
    b = np.asarray(b, dtype=U64)
    sign = U64(1 << 63)
    ka = np.where(a & sign, ~a, a | sign)
    kb = np.where(b & sign, ~b, b | sign)
    pick_a = ka < kb if is_min else ka > kb
    r = np.where(pick_a, a, b)
    an = (a & ~sign) > U64(0x7FF0000000000000)
    bn = (b & ~sign) > U64(0x7FF0000000000000)
    r = np.where(an, b, np.where(bn, a, r))
    return np.where(an & bn, CANON_F64, r)


# -- half precision -------------------------------------------------------------------------


def f16_to_f32(h: NDArray) -> NDArray:
    return np.asarray(h, dtype=U16).view(F16).astype(F32)


def bf16_to_f32(h: NDArray) -> NDArray:
    return (np.asarray(h, dtype=U32) << U32(16)).view(F32)


def f64_to_f16_bits(x: NDArray, mode: str = "RN", ftz: bool = False) -> NDArray:
    """float64 -> f16 bits, correctly rounded (x exact or already round-to-odd at 53 bits)."""
    x = np.asarray(x, dtype=F64)
    with np.errstate(all="ignore"):
        r = x.astype(F16)
    if mode != "RN":
        r = _directed(r, x, mode, F16)
    b = r.view(U16)
    nan = x != x
    if np.any(nan):
        b = np.where(nan, CANON_F16, b)
    if ftz:
        b = np.where((b & U16(0x7C00)) == 0, b & U16(0x8000), b)
    return b


def f64_to_f32_odd_bits(x: NDArray) -> NDArray:
    """float64 -> float32 bit pattern rounded to odd (exact values unchanged)."""
    x = np.asarray(x, dtype=F64)
    with np.errstate(all="ignore"):
        t = x.astype(F32)
        back = t.astype(F64)
    inexact = (back != x) & np.isfinite(x)
    if not np.any(inexact):
        return t.view(U32)
    with np.errstate(all="ignore"):
        tz = np.where(np.abs(back) > np.abs(x), np.nextafter(t, F32(0)), t)
    b = tz.view(U32)
    return np.where(inexact, b | U32(1), t.view(U32))


def f64_to_bf16_bits(x: NDArray, mode: str = "RN", ftz: bool = False) -> NDArray:
    """float64 -> bf16 bits, correctly rounded (x exact, or rounded to odd at 53 bits)."""
    x = np.asarray(x, dtype=F64)
    u = f64_to_f32_odd_bits(x).astype(U64)
    sign = u & U64(0x80000000)
    mag = u & U64(0x7FFFFFFF)
    neg = sign != 0
    if mode == "RN":
        rnd = mag + U64(0x7FFF) + ((mag >> U64(16)) & U64(1))
    elif mode == "RZ":
        rnd = mag
    elif mode == "RP":
        rnd = np.where(neg, mag, mag + U64(0xFFFF))
    else:  # RM
        rnd = np.where(neg, mag + U64(0xFFFF), mag)
    rnd = np.where(mag >= U64(0x7F800000), mag, rnd)  # inf stays inf
    res = ((sign | rnd) >> U64(16)).astype(U16)
    nan = x != x
    if np.any(nan):
        res = np.where(nan, CANON_F16, res)
    if ftz:
        res = np.where((res & U16(0x7F80)) == 0, res & U16(0x8000), res)
    return res


def h2_op_bits(op: str, a: NDArray, b: NDArray, kind: str) -> NDArray:
    """Packed add of two f16x2 / bf16x2 words (atomics)."""
    a = np.asarray(a, dtype=U32)
    b = np.asarray(b, dtype=U32)
    out = np.zeros(np.broadcast(a, b).shape, dtype=U32)
    for sh in (0, 16):
        ha = (a >> U32(sh)) & U32(0xFFFF)
        hb = (b >> U32(sh)) & U32(0xFFFF)
        with np.errstate(invalid="ignore"):  # signalling NaNs, inf - inf
            if kind == "f16":
                x = f16_to_f32(ha.astype(U16)).astype(F64) + f16_to_f32(hb.astype(U16)).astype(F64)
                r = f64_to_f16_bits(x).astype(U32)
            else:
                x = bf16_to_f32(ha).astype(F64) + bf16_to_f32(hb).astype(F64)
                r = f64_to_bf16_bits(x).astype(U32)
        out |= r << U32(sh)
    return out


def h_minmax_bits(a: NDArray, b: NDArray, is_min: bool, kind: str) -> NDArray:
    """min/max of f16 or bf16 bit patterns (uint16): a NaN operand yields the other (two NaNs:
    the canonical NaN); -0 < +0, as min/max.f16/.bf16."""
    a = np.asarray(a, dtype=U16)
    b = np.asarray(b, dtype=U16)
    ka = np.where(a & U16(0x8000), ~a, a | U16(0x8000))
    kb = np.where(b & U16(0x8000), ~b, b | U16(0x8000))
    r = np.where(ka < kb if is_min else ka > kb, a, b)
    inf = U16(0x7C00 if kind == "f16" else 0x7F80)
    an = (a & U16(0x7FFF)) > inf
    bn = (b & U16(0x7FFF)) > inf
    r = np.where(an, b, np.where(bn, a, r))
    return np.where(an & bn, CANON_F16, r)


# -- 8-bit floats (cvt .e4m3x2 / .e5m2x2) -----------------------------------------------------

# format: (mantissa bits, exponent bias, largest finite value, encoding of +infinity or None)
FP8_FORMATS: dict[str, tuple[int, int, float, int | None]] = {
    "E4M3": (3, 7, 448.0, None),  # no infinity: S.1111.111 is NaN
    "E5M2": (2, 15, 57344.0, 0x7C),
}
FP8_NAN = 0x7F  # the NaN cvt writes (cuda_fp8.hpp's conversions agree)


def _fp8_code(v: float, m: int, bias: int) -> int:
    """The encoding of a positive normal value exactly representable in the format."""
    mant, exp = np.frexp(v)
    return int(((int(exp) - 1 + bias) << m) | int((float(mant) * 2 - 1) * (1 << m)))


def f64_to_fp8_bits(x: NDArray, fmt: str, mode: str = "RN", satfinite: bool = True) -> NDArray:
    """float64 values -> 8-bit float bit patterns (uint32), rounded to nearest even (or toward
    zero), subnormals kept. ``satfinite``: a result beyond the largest finite value, infinity
    included, becomes that value with its sign; otherwise infinity (E5M2) or NaN (E4M3). NaN ->
    0x7F."""
    m, bias, top, inf = FP8_FORMATS[fmt]
    x = np.asarray(x, dtype=F64)
    sign = np.signbit(x)
    ax = np.abs(x)
    nan = x != x
    emin = 1 - bias
    with np.errstate(all="ignore"):
        safe = np.where(np.isfinite(ax) & (ax > 0), ax, 1.0)
        e = np.maximum(np.frexp(safe)[1] - 1, emin)
        q = np.ldexp(1.0, e - m)
        t = safe / q  # exact: q is a power of two
        r = (np.trunc(t) if mode == "RZ" else np.rint(t)) * q
        r = np.where(ax == 0, 0.0, r)
        over = (r > top) | np.isinf(ax)
        r = np.where(over, 0.0, r)
        e2 = np.maximum(np.frexp(np.where(r > 0, r, 1.0))[1] - 1, emin)
        normal = r >= np.ldexp(1.0, emin)
        frac = np.where(normal, r / np.ldexp(1.0, e2) - 1.0, r / np.ldexp(1.0, emin))
        mant = np.rint(frac * (1 << m)).astype(np.int64)
        bits = np.where(normal, (e2 + bias) << m, 0) + mant
    ovf = _fp8_code(top, m, bias) if satfinite else (inf if inf is not None else FP8_NAN)
    bits = np.where(over, ovf, bits)
    bits = np.where(sign, bits | 0x80, bits)
    bits = np.where(nan, FP8_NAN, bits)
    return np.asarray(bits, dtype=U32)


def fp8_to_f64(bits: NDArray, fmt: str) -> NDArray:
    """8-bit float bit patterns -> exact float64 values (NaN for NaN encodings)."""
    m, bias, _top, inf = FP8_FORMATS[fmt]
    b = np.asarray(bits, dtype=np.int64) & 0xFF
    sign = np.where(b & 0x80, -1.0, 1.0)
    e = (b >> m) & (0x7F >> m)
    f = b & ((1 << m) - 1)
    v = np.where(
        e == 0,
        np.ldexp(f.astype(F64), 1 - bias - m),
        np.ldexp((f | (1 << m)).astype(F64), e - bias - m),
    )
    mag = b & 0x7F
    if inf is None:
        v = np.where(mag == 0x7F, np.nan, v)
    else:
        v = np.where(mag == inf, np.inf, v)
        v = np.where(mag > inf, np.nan, v)
    return np.asarray(sign * v, dtype=F64)
