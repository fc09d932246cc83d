"""Floating-point immediates in nvdisasm's notation, both ways.

nvdisasm 13.2 prints a finite value with C's ``%.20g``, except that values of magnitude 1e9 and
above use ``%.20e`` (all 20 decimals kept); ``-0.0``, infinities and NaNs are written ``-0.0 ``,
``+INF ``, ``-INF ``, ``+QNAN ``, ``-QNAN ``, ``+SNAN ``, ``-SNAN `` *with* a trailing blank
(checked over thousands of f16/f32/f64 patterns by ``scripts/isa_learn.py``). Twenty significant
digits identify every f16, f32 and f64 value, so finite values parse back to the exact bits; a NaN
loses its payload in the text, and parses back to the payload ptxas uses (see ``_NAN_BITS``).
"""

from __future__ import annotations

import math
import struct

from openptxas.isa.model import ImmKind

# (sign bit, exponent mask, quiet bit) per format; the value bits of each kind.
_LAYOUT: dict[ImmKind, tuple[int, int, int, int]] = {
    # kind: (width, exponent mask, mantissa mask, quiet bit)
    ImmKind.F16: (16, 0x7C00, 0x03FF, 0x0200),
    ImmKind.F32: (32, 0x7F800000, 0x007FFFFF, 0x00400000),
    ImmKind.F64: (64, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF, 0x0008000000000000),
}

# The bit pattern a NaN literal parses to: the all-ones payload CUDA's NaN constants use
# (CUDART_NAN_F = 0x7fffffff) and a minimal signalling payload.
_NAN_BITS: dict[tuple[ImmKind, str], int] = {
    (ImmKind.F16, "+QNAN"): 0x7FFF,
    (ImmKind.F16, "-QNAN"): 0xFFFF,
    (ImmKind.F16, "+SNAN"): 0x7C01,
    (ImmKind.F16, "-SNAN"): 0xFC01,
    (ImmKind.F32, "+QNAN"): 0x7FFFFFFF,
    (ImmKind.F32, "-QNAN"): 0xFFFFFFFF,
    (ImmKind.F32, "+SNAN"): 0x7F800001,
    (ImmKind.F32, "-SNAN"): 0xFF800001,
    (ImmKind.F64, "+QNAN"): 0x7FFFFFFFFFFFFFFF,
    (ImmKind.F64, "-QNAN"): 0xFFFFFFFFFFFFFFFF,
    (ImmKind.F64, "+SNAN"): 0x7FF0000000000001,
    (ImmKind.F64, "-SNAN"): 0xFFF0000000000001,
}


def bits_to_float(bits: int, kind: ImmKind) -> float:
    if kind is ImmKind.F16:
        return float(struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0])
    if kind is ImmKind.F32:
        return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    return float(struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0])


def float_to_bits(value: float, kind: ImmKind) -> int:
    if kind is ImmKind.F16:
        return int(struct.unpack("<H", struct.pack("<e", value))[0])
    if kind is ImmKind.F32:
        return int(struct.unpack("<I", struct.pack("<f", value))[0])
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def format_float(bits: int, kind: ImmKind) -> str:
    """The text nvdisasm prints for a floating-point immediate with bit pattern ``bits``."""
    width, exp_mask, man_mask, quiet = _LAYOUT[kind]
    sign = "-" if bits >> (width - 1) & 1 else "+"
    if bits & exp_mask == exp_mask:
        if bits & man_mask == 0:
            return f"{sign}INF "
        return f"{sign}{'QNAN' if bits & quiet else 'SNAN'} "
    v = bits_to_float(bits, kind)
    if v == 0.0:
        return "-0.0 " if sign == "-" else "0"
    e = f"{v:.20e}"
    if int(e[e.index("e") + 1 :]) >= 9:
        return e
    return f"{v:.20g}"


def parse_float(text: str, kind: ImmKind) -> int:
    """The bit pattern of a floating-point literal in nvdisasm's notation."""
    t = text.strip()
    if t.lstrip("+-") in ("INF", "QNAN", "SNAN"):
        if t[0] not in "+-":
            t = "+" + t
        if t.endswith("INF"):
            return float_to_bits(-math.inf if t[0] == "-" else math.inf, kind)
        return _NAN_BITS[(kind, t)]
    v = float(t)
    bits = float_to_bits(v, kind)
    if bits_to_float(bits, kind) != v and not math.isinf(bits_to_float(bits, kind)):
        raise ValueError(f"{text} is not exactly representable as {kind.value}")
    return bits
