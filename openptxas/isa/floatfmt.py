"""Floating-point immediates in nvdisasm's notation, both ways.

nvdisasm 13.2 prints a finite value with C's ``%.20g``, except that values of magnitude 1e9 and
above use ``%.20e`` (all 20 decimals kept); ``-0.0``, infinities and NaNs are written ``-0.0 ``,
``+INF ``, ``-INF ``, ``+QNAN ``, ``-QNAN ``, ``+SNAN ``, ``-SNAN `` *with* a trailing blank
(checked over thousands of f16/f32/f64 patterns by ``scripts/isa_learn.py``). Twenty significant
digits identify every f16, f32 and f64 value, so finite values parse back to the exact bits; a NaN
loses its payload in the text and parses back to the payload ptxas uses: a quiet NaN with every
mantissa bit the field holds set (CUDA's ``0x7fffffff``), a signalling NaN with the lowest.
"""

from __future__ import annotations

import math
import re
import struct

from openptxas.isa.model import ImmKind

# (sign bit, exponent mask, quiet bit) per format; the value bits of each kind.
_LAYOUT: dict[ImmKind, tuple[int, int, int, int]] = {
    # kind: (width, exponent mask, mantissa mask, quiet bit)
    ImmKind.F16: (16, 0x7C00, 0x03FF, 0x0200),
    ImmKind.F32: (32, 0x7F800000, 0x007FFFFF, 0x00400000),
    ImmKind.F64: (64, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF, 0x0008000000000000),
}


def bits_to_float(bits: int, kind: ImmKind) -> float:
    if kind is ImmKind.F16:
        return float(struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0])
    if kind is ImmKind.F32:
        return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    return float(struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0])


def float_to_bits(value: float, kind: ImmKind) -> int:
    """The bit pattern of ``value`` in ``kind``; ValueError if it does not fit."""
    try:
        if kind is ImmKind.F16:
            return int(struct.unpack("<H", struct.pack("<e", value))[0])
        if kind is ImmKind.F32:
            return int(struct.unpack("<I", struct.pack("<f", value))[0])
        return int(struct.unpack("<Q", struct.pack("<d", value))[0])
    except (OverflowError, struct.error):
        raise ValueError(f"{value!r} does not fit {kind.value}") from None


def format_float(bits: int, kind: ImmKind, exact: bool = False, low_bits: int = 0) -> str:
    """The text nvdisasm prints for a floating-point immediate with bit pattern ``bits``.

    ``exact``: a NaN whose payload is not the one its plain text parses back to (for a field
    without its ``low_bits`` low bits) is written ``+QNAN(0x7ff00000)``, an openptxas extension
    that the parser accepts, so that the text identifies the bits."""
    width, exp_mask, man_mask, quiet = _LAYOUT[kind]
    sign = "-" if bits >> (width - 1) & 1 else "+"
    if bits & exp_mask == exp_mask:
        if bits & man_mask == 0:
            return f"{sign}INF "
        text = f"{sign}{'QNAN' if bits & quiet else 'SNAN'}"
        if exact and parse_float(text, kind, low_bits) != bits:
            return f"{text}({bits:#x})"
        return text + " "
    v = bits_to_float(bits, kind)
    if v == 0.0:
        return "-0.0 " if sign == "-" else "0"
    e = f"{v:.20e}"
    if int(e[e.index("e") + 1 :]) >= 9:
        return e
    return f"{v:.20g}"


def parse_float(text: str, kind: ImmKind, low_bits: int = 0) -> int:
    """The bit pattern of a floating-point literal in nvdisasm's notation.

    ``low_bits``: how many low bits the field does not hold (MUFU keeps only the top 10 bits of
    an f32); a NaN's payload is chosen within the rest.
    """
    t = text.strip()
    m = re.fullmatch(r"([-+]?(?:QNAN|SNAN))\((0x[0-9a-fA-F]+)\)", t)
    if m:
        bits = int(m.group(2), 16)
        if format_float(bits, kind).strip() != (
            m.group(1) if m.group(1)[0] in "+-" else "+" + m.group(1)
        ):
            raise ValueError(f"{text}: the bits are not such a NaN")
        return bits
    if t.lstrip("+-") in ("INF", "QNAN", "SNAN"):
        if t[0] not in "+-":
            t = "+" + t
        if t.endswith("INF"):
            return float_to_bits(-math.inf if t[0] == "-" else math.inf, kind)
        width, exp_mask, man_mask, quiet = _LAYOUT[kind]
        sign = (1 << (width - 1)) if t[0] == "-" else 0
        if t.endswith("QNAN"):
            payload = man_mask & ~((1 << low_bits) - 1)
        else:
            payload = 1 << low_bits
            if payload & quiet:
                raise ValueError(f"{text} does not fit a field without the low {low_bits} bits")
        return sign | exp_mask | payload
    v = float(t)
    bits = float_to_bits(v, kind)
    if bits_to_float(bits, kind) != v and not math.isinf(bits_to_float(bits, kind)):
        raise ValueError(f"{text} is not exactly representable as {kind.value}")
    return bits
