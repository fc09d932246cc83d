"""Integer, bit-manipulation, min/max and packed-half instructions against references written
from the PTX ISA's definitions (Python integers and numpy bit patterns), one ptxas-compiled
kernel with every operation, each thread on its own inputs (random words and edge cases).

Covers FLO (bfind), BREV, POPC, BMSK, SGXT (szext), IDP (dp4a/dp2a), VABSDIFF (sad), IMAD
(mul24/mad24), PRMT (every mode), SHF (funnel shifts), FMNMX (.NaN, .xorsign.abs), HMNMX2 (f16x2,
bf16x2, .NaN, .xorsign.abs), HFMA2 .relu, LOP3, ISETP/FSETP (testp), SEL.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from openptxas.emu.launch import launch
from tests.emu.floatref import round_magnitude
from tests.emu.harness import filled_decoder
from tests.emu.ptxrun import cubin, ptx_header

NDArray = np.ndarray[Any, Any]
M32 = 0xFFFFFFFF


def s32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def sext(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def msb(v: int) -> int:
    return v.bit_length() - 1 if v else -1


def f32(bits: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", bits & M32))[0])


def f16(bits: int) -> float:
    return float(np.array([bits & 0xFFFF], dtype=np.uint16).view(np.float16)[0])


def bf16(bits: int) -> float:
    return f32((bits & 0xFFFF) << 16)


def is_nan32(b: int) -> bool:
    return (b & 0x7FFFFFFF) > 0x7F800000


def minmax_bits(a: int, b: int, is_min: bool, width: int = 32) -> int:
    """PTX min/max on bit patterns: a NaN operand yields the other (both NaN: canonical NaN),
    -0 < +0."""
    exp_mask = {32: 0x7F800000, 16: 0x7C00, -16: 0x7F80}[width]
    w = abs(width)
    sign = 1 << (w - 1)
    mag = sign - 1

    def nan(x: int) -> bool:
        return (x & mag) > exp_mask

    def key(x: int) -> int:
        return -(x & mag) - 1 if x & sign else (x & mag)

    if nan(a) and nan(b):
        return mag if w == 32 else 0x7FFF
    if nan(a):
        return b
    if nan(b):
        return a
    pick_a = key(a) < key(b) if is_min else key(a) > key(b)
    return a if pick_a else b


def prmt(a: int, b: int, c: int, mode: str) -> int:
    data = (b & M32) << 32 | (a & M32)
    byte = [(data >> (8 * i)) & 0xFF for i in range(8)]
    sel = c & 0xFFFF
    if mode == "":
        out = 0
        for i in range(4):
            s = (c >> (4 * i)) & 0xF
            v = byte[s & 7]
            if s & 8:
                v = 0xFF if v & 0x80 else 0
            out |= v << (8 * i)
        return out
    s0 = sel & 3
    idx = {
        "f4e": [s0, (s0 + 1) & 7, (s0 + 2) & 7, (s0 + 3) & 7],
        "b4e": [s0, (s0 - 1) & 7, (s0 - 2) & 7, (s0 - 3) & 7],
        "rc8": [s0, s0, s0, s0],
        "ecl": [s0, max(s0, 1), max(s0, 2), 3],
        "ecr": [0, min(s0, 1), min(s0, 2), s0],
        "rc16": [2 * (s0 & 1), 2 * (s0 & 1) + 1, 2 * (s0 & 1), 2 * (s0 & 1) + 1],
    }[mode]
    return sum(byte[j] << (8 * i) for i, j in enumerate(idx))


def bfe(a: int, pos: int, ln: int, signed: bool) -> int:
    pos &= 0xFF
    ln &= 0xFF
    sbit = 0 if not signed or ln == 0 else (a >> min(pos + ln - 1, 31)) & 1
    d = 0
    for i in range(32):
        bit = (a >> (pos + i)) & 1 if i < ln and pos + i <= 31 else sbit
        d |= bit << i
    return d


def bfi(a: int, b: int, pos: int, ln: int) -> int:
    pos &= 0xFF
    ln &= 0xFF
    f = b
    for i in range(ln):
        if pos + i > 31:
            break
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return f & M32


def bmsk(a: int, b: int, clamp: bool) -> int:
    a1, b1 = a & 31, b & 31
    mask0 = (M32 << a1) & M32
    sm = a1 + b1
    mask1 = (M32 << sm) & M32 if sm < 32 else 0
    over = sm >= 32
    if clamp and a >= 32:
        mask0 = 0
        over = True
    if clamp and b >= 32:
        over = True
    if over:
        mask1 = 0
    elif b1 == 0:
        mask1 = M32
    return mask0 & ~mask1 & M32


def szext(a: int, b: int, clamp: bool, signed: bool) -> int:
    b1 = b & 31
    too_large = b >= 32 and clamp
    mask = 0 if too_large else (M32 << b1) & M32
    sign = False if (b1 == 0 or too_large or not signed) else bool((a >> ((b1 - 1) & 31)) & 1)
    return ((a & ~mask) | (mask if sign else 0)) & M32


def xorsign(a: int, b: int, is_min: bool, width: int) -> int:
    w = abs(width)
    sign = 1 << (w - 1)
    r = minmax_bits(a & (sign - 1), b & (sign - 1), is_min, width)
    exp_mask = {32: 0x7F800000, 16: 0x7C00, -16: 0x7F80}[width]
    if (r & (sign - 1)) > exp_mask:
        return r
    return r | ((a ^ b) & sign)


def nan_mode(a: int, b: int, is_min: bool, width: int) -> int:
    w = abs(width)
    mag = (1 << (w - 1)) - 1
    exp_mask = {32: 0x7F800000, 16: 0x7C00, -16: 0x7F80}[width]
    if (a & mag) > exp_mask or (b & mag) > exp_mask:
        return 0x7FFFFFFF if w == 32 else 0x7FFF
    return minmax_bits(a, b, is_min, width)


def halves(fn: Callable[[int, int], int], a: int, b: int) -> int:
    return fn(a & 0xFFFF, b & 0xFFFF) | fn(a >> 16, b >> 16) << 16


def relu_fma_f16(a: int, b: int, c: int) -> int:
    """fma.rn.relu.f16x2: a*b+c rounded once (exact Fraction, then nearest even), negative
    results and -0 to +0, NaN to the canonical NaN."""
    out = 0
    for sh in (0, 16):
        xa, xb, xc = f16(a >> sh), f16(b >> sh), f16(c >> sh)
        x = xa * xb + xc  # for the special cases only (inf, NaN)
        if math.isnan(x):
            v = 0x7FFF
        elif math.isinf(x):
            v = 0 if x < 0 else 0x7C00
        else:
            exact = Fraction(xa) * Fraction(xb) + Fraction(xc)
            v = 0 if exact <= 0 else round_magnitude(exact, "f16")
        out |= v << sh
    return out


def _testp(bits: int, kind: str) -> int:
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    r = {
        "finite": e != 0xFF,
        "infinite": e == 0xFF and m == 0,
        "number": not (e == 0xFF and m != 0),
        "notanumber": e == 0xFF and m != 0,
        # PTX: "not NaN, not infinity, not subnormal" (so zero counts as normal, as ptxas
        # compiles it)
        "normal": e != 0xFF and not (e == 0 and m != 0),
        "subnormal": e == 0 and m != 0,
    }[kind]
    return int(r)


def _nan_max16(a: int, b: int) -> int:
    return nan_mode(a, b, False, 16)


def _min16(a: int, b: int) -> int:
    return minmax_bits(a, b, True, 16)


def _max_bf16(a: int, b: int) -> int:
    return minmax_bits(a, b, False, -16)


# (PTX computing %o from %x, %y, %z, %w (b32), reference(x, y, z, w) -> u32)
OPS: list[tuple[str, Callable[[int, int, int, int], int]]] = [
    ("bfind.u32 %o, %x;", lambda x, y, z, w: msb(x) & M32),
    ("bfind.s32 %o, %y;", lambda x, y, z, w: msb(~s32(y) & M32 if s32(y) < 0 else y) & M32),
    ("bfind.shiftamt.u32 %o, %x;", lambda x, y, z, w: (31 - msb(x)) & M32 if x else M32),
    ("brev.b32 %o, %x;", lambda x, y, z, w: int(f"{x:032b}"[::-1], 2)),
    ("popc.b32 %o, %x;", lambda x, y, z, w: bin(x).count("1")),
    ("clz.b32 %o, %x;", lambda x, y, z, w: 32 - x.bit_length()),
    ("bmsk.clamp.b32 %o, %z, %w;", lambda x, y, z, w: bmsk(z, w, True)),
    ("bmsk.wrap.b32 %o, %z, %w;", lambda x, y, z, w: bmsk(z, w, False)),
    ("szext.clamp.s32 %o, %x, %w;", lambda x, y, z, w: szext(x, w, True, True)),
    ("szext.wrap.u32 %o, %x, %w;", lambda x, y, z, w: szext(x, w, False, False)),
    ("szext.wrap.s32 %o, %y, %z;", lambda x, y, z, w: szext(y, z, False, True)),
    (
        "dp4a.s32.u32 %o, %x, %y, %z;",
        lambda x, y, z, w: (
            (z + sum(sext(x >> 8 * i, 8) * ((y >> 8 * i) & 0xFF) for i in range(4))) & M32
        ),
    ),
    (
        "dp4a.u32.s32 %o, %x, %y, %z;",
        lambda x, y, z, w: (
            (z + sum(((x >> 8 * i) & 0xFF) * sext(y >> 8 * i, 8) for i in range(4))) & M32
        ),
    ),
    (
        "dp2a.lo.s32.u32 %o, %x, %y, %z;",
        lambda x, y, z, w: (
            (z + sum(sext(x >> 16 * i, 16) * ((y >> 8 * i) & 0xFF) for i in range(2))) & M32
        ),
    ),
    (
        "dp2a.hi.u32.s32 %o, %x, %y, %z;",
        lambda x, y, z, w: (
            (z + sum(((x >> 16 * i) & 0xFFFF) * sext(y >> (16 + 8 * i), 8) for i in range(2))) & M32
        ),
    ),
    ("sad.u32 %o, %x, %y, %z;", lambda x, y, z, w: (abs(x - y) + z) & M32),
    ("sad.s32 %o, %x, %y, %z;", lambda x, y, z, w: (abs(s32(x) - s32(y)) + z) & M32),
    ("mul24.lo.u32 %o, %x, %y;", lambda x, y, z, w: ((x & 0xFFFFFF) * (y & 0xFFFFFF)) & M32),
    ("mul24.hi.s32 %o, %x, %y;", lambda x, y, z, w: ((sext(x, 24) * sext(y, 24)) >> 16) & M32),
    (
        "mad24.lo.s32 %o, %x, %y, %z;",
        lambda x, y, z, w: (sext(x, 24) * sext(y, 24) + z) & M32,
    ),
    ("prmt.b32 %o, %x, %y, %z;", lambda x, y, z, w: prmt(x, y, z, "")),
    ("prmt.b32.f4e %o, %x, %y, %w;", lambda x, y, z, w: prmt(x, y, w, "f4e")),
    ("prmt.b32.b4e %o, %x, %y, %w;", lambda x, y, z, w: prmt(x, y, w, "b4e")),
    ("prmt.b32.rc8 %o, %x, %y, %w;", lambda x, y, z, w: prmt(x, y, w, "rc8")),
    ("prmt.b32.ecl %o, %x, %y, %w;", lambda x, y, z, w: prmt(x, y, w, "ecl")),
    ("prmt.b32.ecr %o, %x, %y, %w;", lambda x, y, z, w: prmt(x, y, w, "ecr")),
    ("prmt.b32.rc16 %o, %x, %y, %w;", lambda x, y, z, w: prmt(x, y, w, "rc16")),
    (
        "shf.l.clamp.b32 %o, %x, %y, %w;",
        lambda x, y, z, w: ((((y << 32) | x) << min(w, 32)) >> 32) & M32,
    ),
    (
        "shf.r.wrap.b32 %o, %x, %y, %w;",
        lambda x, y, z, w: (((y << 32) | x) >> (w & 31)) & M32,
    ),
    (
        "shf.r.clamp.b32 %o, %x, %y, %w;",
        lambda x, y, z, w: (((y << 32) | x) >> min(w, 32)) & M32,
    ),
    ("bfe.s32 %o, %x, %z, %w;", lambda x, y, z, w: bfe(x, z, w, True)),
    ("bfe.u32 %o, %x, %w, %z;", lambda x, y, z, w: bfe(x, w, z, False)),
    ("bfi.b32 %o, %x, %y, %z, %w;", lambda x, y, z, w: bfi(x, y, z, w)),
    ("cnot.b32 %o, %x;", lambda x, y, z, w: int(x == 0)),
    ("min.xorsign.abs.f32 %o, %x, %y;", lambda x, y, z, w: xorsign(x, y, True, 32)),
    ("max.xorsign.abs.f32 %o, %x, %y;", lambda x, y, z, w: xorsign(x, y, False, 32)),
    ("max.NaN.f32 %o, %x, %y;", lambda x, y, z, w: nan_mode(x, y, False, 32)),
    ("min.f32 %o, %x, %y;", lambda x, y, z, w: minmax_bits(x, y, True)),
    ("copysign.f32 %o, %x, %y;", lambda x, y, z, w: (y & 0x7FFFFFFF) | (x & 0x80000000)),
    (
        "max.NaN.f16x2 %o, %x, %y;",
        lambda x, y, z, w: halves(lambda a, b: nan_mode(a, b, False, 16), x, y),
    ),
    (
        "min.f16x2 %o, %x, %y;",
        lambda x, y, z, w: halves(lambda a, b: minmax_bits(a, b, True, 16), x, y),
    ),
    (
        "min.xorsign.abs.f16x2 %o, %x, %y;",
        lambda x, y, z, w: halves(lambda a, b: xorsign(a, b, True, 16), x, y),
    ),
    (
        "max.bf16x2 %o, %x, %y;",
        lambda x, y, z, w: halves(lambda a, b: minmax_bits(a, b, False, -16), x, y),
    ),
    (
        "min.NaN.bf16x2 %o, %x, %y;",
        lambda x, y, z, w: halves(lambda a, b: nan_mode(a, b, True, -16), x, y),
    ),
    ("fma.rn.relu.f16x2 %o, %x, %y, %z;", lambda x, y, z, w: relu_fma_f16(x, y, z)),
]
TESTP = ("finite", "infinite", "number", "notanumber", "normal", "subnormal")
for _k in TESTP:
    OPS.append(
        (
            f"testp.{_k}.f32 %p, %x;\nselp.b32 %o, 1, 0, %p;",
            lambda x, y, z, w, _k=_k: _testp(x, _k),
        )
    )


def _ptx() -> str:
    body = []
    for j, (code, _ref) in enumerate(OPS):
        body.append("{\n  .reg .b32 %o;\n  .reg .pred %p;\n  " + code)
        body.append(f"  st.global.b32 [%q+{4 * j}], %o;\n}}")
    return (
        ptx_header()
        + f""".visible .entry k(.param .u64 pa, .param .u64 pb)
{{
  .reg .u64 %a, %b, %off, %q;
  .reg .b32 %x, %y, %z, %w;
  .reg .u32 %t, %cta, %nt;
  ld.param.u64 %a, [pa];
  ld.param.u64 %b, [pb];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  mov.u32 %t, %tid.x;
  mov.u32 %cta, %ctaid.x;
  mov.u32 %nt, %ntid.x;
  mad.lo.u32 %t, %cta, %nt, %t;
  mul.wide.u32 %off, %t, 16;
  add.u64 %a, %a, %off;
  ld.global.v4.b32 {{%x, %y, %z, %w}}, [%a];
  mul.wide.u32 %off, %t, {4 * len(OPS)};
  add.u64 %q, %b, %off;
"""
        + "\n".join(body)
        + "\n  ret;\n}\n"
    )


def _inputs(n: int) -> NDArray:
    rng = np.random.default_rng(11)
    v = rng.integers(0, 2**32, size=(n, 4), dtype=np.uint64).astype(np.uint32)
    special = [
        0,
        1,
        0x80000000,
        0x7FFFFFFF,
        0xFFFFFFFF,
        0x7F800000,
        0xFF800000,
        0x7FC00000,
        0x00000001,
        0x80000000,
        0x7F7FFFFF,
        0x3F800000,
        0xBF800000,
        0x7C007C00,
        0xFC00FE00,
        0x7E008000,
        0x00010001,
        0x7F807F81,
        0xFF80FFC0,
        0x7BFF3C00,
        0x80008000,
        0x00007C01,
    ]
    k = len(special)
    for col in range(4):
        idx = rng.integers(0, n, size=n // 3)
        v[idx, col] = np.array(special, dtype=np.uint32)[rng.integers(0, k, size=idx.size)]
    v[: n // 2, 2:] %= 40  # small positions, widths and selectors
    return v


@pytest.fixture(scope="module")
def alu() -> tuple[NDArray, NDArray]:
    n = 1024
    inp = _inputs(n)
    out = np.zeros((n, len(OPS)), dtype=np.uint32)
    blob = cubin(_ptx())
    spec = {
        "kernel": "k",
        "grid": [n // 128],
        "block": [128],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": inp.size},
            {"kind": "buffer", "dtype": "u32", "count": out.size, "role": "out"},
        ],
    }
    res = launch(blob, spec, inputs={"arg0": inp.ravel()}, decoder=filled_decoder(blob))
    return inp, res.args[1].reshape(n, len(OPS))


@pytest.mark.parametrize("j", range(len(OPS)), ids=[o[0].split()[0] for o in OPS])
def test_alu(j: int, alu: tuple[NDArray, NDArray]) -> None:
    inp, out = alu
    ref = OPS[j][1]
    bad = []
    for t in range(inp.shape[0]):
        x, y, z, w = (int(v) for v in inp[t])
        want = ref(x, y, z, w) & M32
        if int(out[t, j]) != want:
            bad.append((t, hex(x), hex(y), hex(z), hex(w), hex(int(out[t, j])), hex(want)))
    assert not bad, (OPS[j][0], len(bad), bad[:5])
