"""Reference rounding for the small float formats (e4m3, e5m2, f16, bf16), written from their
definitions: every finite value enumerated as a ``fractions.Fraction``, rounding by exact
comparison (nearest with ties to the even encoding, or toward zero), E4M3 without infinities
(S.1111.111 is its NaN). NaN results are 0x7F (8-bit) and 0x7FFF (16-bit), the canonical NaNs.
"""

from __future__ import annotations

import bisect
import functools
import math
from fractions import Fraction

# name: (exponent bits, mantissa bits, bias, has inf/nan encodings IEEE-style)
FORMATS = {
    "e4m3": (4, 3, 7, False),
    "e5m2": (5, 2, 15, True),
    "f16": (5, 10, 15, True),
    "bf16": (8, 7, 127, True),
}
NAN8, NAN16 = 0x7F, 0x7FFF


@functools.cache
def finite_values(fmt: str) -> tuple[list[Fraction], list[int]]:
    """Every finite non-negative value of the format, sorted, with its encoding."""
    e_bits, m_bits, bias, ieee = FORMATS[fmt]
    out: list[tuple[Fraction, int]] = []
    for e in range(1 << e_bits):
        for m in range(1 << m_bits):
            if ieee and e == (1 << e_bits) - 1:
                continue  # inf / NaN
            if not ieee and e == (1 << e_bits) - 1 and m == (1 << m_bits) - 1:
                continue  # E4M3's NaN
            if e == 0:
                v = Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias)
            else:
                v = (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias)
            out.append((v, (e << m_bits) | m))
    out.sort()
    return [v for v, _ in out], [c for _, c in out]


def decode(fmt: str, code: int) -> float:
    e_bits, m_bits, _bias, ieee = FORMATS[fmt]
    sign = -1.0 if code >> (e_bits + m_bits) & 1 else 1.0
    mag = code & ((1 << (e_bits + m_bits)) - 1)
    if ieee and mag >> m_bits == (1 << e_bits) - 1:
        return sign * math.inf if mag & ((1 << m_bits) - 1) == 0 else math.nan
    if not ieee and mag == (1 << (e_bits + m_bits)) - 1:
        return math.nan
    vals, codes = finite_values(fmt)
    return sign * float(vals[codes.index(mag)])


def encode(
    x: float, fmt: str, rz: bool = False, satfinite: bool = False, relu: bool = False
) -> int:
    e_bits, m_bits, _bias, ieee = FORMATS[fmt]
    nan = NAN8 if e_bits + m_bits == 7 else NAN16
    sbit = 1 << (e_bits + m_bits)
    if math.isnan(x):
        return nan
    if relu and (x < 0 or (x == 0 and math.copysign(1.0, x) < 0)):
        x = 0.0
    neg = math.copysign(1.0, x) < 0
    _vals, codes = finite_values(fmt)
    inf_code = ((1 << e_bits) - 1) << m_bits if ieee else nan
    if math.isinf(x):
        c = codes[-1] if satfinite else inf_code
        return c | (sbit if neg else 0)
    return round_magnitude(abs(Fraction(x)), fmt, rz, satfinite) | (sbit if neg else 0)


def round_magnitude(ax: Fraction, fmt: str, rz: bool = False, satfinite: bool = False) -> int:
    """The encoding of the non-negative exact value ``ax`` rounded to the format (nearest even,
    or toward zero), overflowing to infinity (NaN for E4M3) or, with ``satfinite``, clamped."""
    e_bits, m_bits, _bias, ieee = FORMATS[fmt]
    nan = NAN8 if e_bits + m_bits == 7 else NAN16
    vals, codes = finite_values(fmt)
    top = vals[-1]
    inf_code = ((1 << e_bits) - 1) << m_bits if ieee else nan
    if satfinite:
        ax = min(ax, top)
    if ax > top:
        ulp = top - vals[-2]
        return codes[-1] if rz or ax < top + ulp / 2 else inf_code
    i = bisect.bisect_left(vals, ax)
    if vals[i] == ax or rz:
        return codes[i] if vals[i] == ax else codes[i - 1]
    lo, hi = vals[i - 1], vals[i]
    d = (ax - lo) - (hi - ax)
    return codes[i - 1] if d < 0 or (d == 0 and codes[i - 1] % 2 == 0) else codes[i]


def exponent(a: Fraction) -> int:
    """floor(log2(a)) of a positive exact value."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def round_ieee(v: Fraction, prec: int, emin: int, emax: int, mode: str) -> Fraction | float:
    """``v`` rounded to a binary format with ``prec`` significand bits (hidden bit included),
    normal exponents ``emin..emax`` and subnormals, in mode RN (ties to even), RZ, RM or RP.
    Returns the exact result, or ±inf (a float) on overflow. Zero results carry no sign here."""
    if v == 0:
        return Fraction(0)
    neg = v < 0
    a = -v if neg else v
    e = max(exponent(a), emin)
    q = Fraction(2) ** (e - prec + 1)
    n = a / q
    fl = n.numerator // n.denominator
    rem = n - fl
    up = False
    if rem:
        if mode == "RN":
            up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1)
        elif mode == "RP":
            up = not neg
        elif mode == "RM":
            up = neg
    r = (fl + (1 if up else 0)) * q
    top = (2 - Fraction(2) ** (1 - prec)) * Fraction(2) ** emax
    if r > top:
        to_inf = mode == "RN" or (mode == "RP" and not neg) or (mode == "RM" and neg)
        if to_inf:
            return -math.inf if neg else math.inf
        r = top
    return -r if neg else r


F32_FMT = (24, -126, 127)
F64_FMT = (53, -1022, 1023)
F16_FMT = (11, -14, 15)
