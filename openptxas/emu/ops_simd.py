"""SIMD-within-a-word integer instructions (the PTX video instructions and dot products):
VABSDIFF, VABSDIFF4, IDP.4A / IDP.2A, and the packed 16x2 (and sm_120's 8x4) forms of VIADD /
VIMNMX.

Operand lists come in both shapes: nvdisasm's (``VABSDIFF4.U8 R28, R21, R0, RZ``) and the ISA
decoder's full form with its optional predicate destination (``VABSDIFF4.U8 R28, PT, R21, R0,
RZ``); the predicate output is not modelled, so only ``PT`` is accepted there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from openptxas.emu.bind import U32, Bound, Ctx, Kind, Reader
from openptxas.emu.lanes import Sel
from openptxas.emu.model import Operand, Reg

NDArray = np.ndarray[Any, Any]
I64 = np.int64


def _kind(ctx: Ctx) -> Kind:
    return Kind.UNIFORM if ctx.ins.opcode.startswith("U") else Kind.SIMPLE


def _operands(ctx: Ctx, nsrc: int) -> tuple[Operand, list[Operand]]:
    dsts, pdst, srcs, psrc = ctx.split()
    if len(dsts) != 1 or len(srcs) != nsrc or any(not p.is_zero for p in pdst) or psrc:
        raise ctx.unsupported()
    return dsts[0], srcs


def _lanes(v: NDArray, bits: int, signed: bool) -> list[NDArray]:
    """The ``32 // bits`` lanes of ``v`` (low first) as int64."""
    out = []
    mask = (1 << bits) - 1
    for i in range(32 // bits):
        x = (v.astype(I64) >> (bits * i)) & mask
        if signed:
            x = np.where(x >= 1 << (bits - 1), x - (1 << bits), x)
        out.append(x)
    return out


def _pack(lanes: list[NDArray], bits: int) -> NDArray:
    mask = (1 << bits) - 1
    r = np.zeros(np.broadcast(*lanes).shape, dtype=I64)
    for i, x in enumerate(lanes):
        r |= (x & mask) << (bits * i)
    return r.astype(U32)


def _u32(r: Reader, sel: Sel) -> NDArray:
    return np.atleast_1d(np.asarray(r(sel), dtype=U32))


def bind_vabsdiff(ctx: Ctx) -> Bound:
    """VABSDIFF[.U32] Rd, a, b, c: |a - b| + c (``__sad``/``__usad``)."""
    dst, srcs = _operands(ctx, 3)
    signed = "U32" not in ctx.ins.mods
    a_r, b_r, c_r = (ctx.src(s) for s in srcs)
    wr = ctx.dst(dst)

    def fn(sel: Sel) -> None:
        a, b = _u32(a_r, sel), _u32(b_r, sel)
        if signed:
            d = np.abs(a.view(np.int32).astype(I64) - b.view(np.int32).astype(I64))
        else:
            d = np.abs(a.astype(I64) - b.astype(I64))
        wr(sel, (d.astype(np.uint64).astype(U32) + _u32(c_r, sel)).astype(U32))

    return Bound(fn, _kind(ctx))


def bind_vabsdiff4(ctx: Ctx) -> Bound:
    """VABSDIFF4.{U8,S8} Rd, a, b, c: per byte |a_i - b_i|; ``.ACC``: their sum plus c."""
    dst, srcs = _operands(ctx, 3)
    mods = ctx.ins.mods
    signed = "S8" in mods
    acc = "ACC" in mods
    c_op = srcs[2]
    if not acc and not (isinstance(c_op, Reg) and c_op.is_zero):
        raise ctx.unsupported("VABSDIFF4 with a packed addend")
    a_r, b_r, c_r = (ctx.src(s) for s in srcs)
    wr = ctx.dst(dst)

    def fn(sel: Sel) -> None:
        la = _lanes(_u32(a_r, sel), 8, signed)
        lb = _lanes(_u32(b_r, sel), 8, signed)
        d = [np.abs(x - y) for x, y in zip(la, lb, strict=True)]
        if acc:
            s = d[0] + d[1] + d[2] + d[3]
            wr(sel, (s.astype(U32) + _u32(c_r, sel)).astype(U32))
        else:
            wr(sel, _pack(d, 8))

    return Bound(fn, _kind(ctx))


def bind_idp(ctx: Ctx) -> Bound:
    """IDP.4A.{S8,U8}.{S8,U8} Rd, a, b, c: dot product of the four bytes plus c (``__dp4a``);
    IDP.2A.{LO,HI}.{S16,U16}.{S8,U8}: the two halves of a times two bytes of b (low or high
    pair) plus c (``__dp2a_lo``/``__dp2a_hi``)."""
    dst, srcs = _operands(ctx, 3)
    mods = [m for m in ctx.ins.mods if m not in ("4A", "2A", "LO", "HI")]
    if len(mods) != 2:
        raise ctx.unsupported()
    four = "4A" in ctx.ins.mods
    hi = "HI" in ctx.ins.mods
    sa, sb = mods[0].startswith("S"), mods[1].startswith("S")
    a_r, b_r, c_r = (ctx.src(s) for s in srcs)
    wr = ctx.dst(dst)

    def fn(sel: Sel) -> None:
        b = _lanes(_u32(b_r, sel), 8, sb)
        if four:
            a = _lanes(_u32(a_r, sel), 8, sa)
            s = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
        else:
            a = _lanes(_u32(a_r, sel), 16, sa)
            b0, b1 = (b[2], b[3]) if hi else (b[0], b[1])
            s = a[0] * b0 + a[1] * b1
        c = _u32(c_r, sel).view(np.int32).astype(I64)
        wr(sel, ((s + c) & 0xFFFFFFFF).astype(U32))

    return Bound(fn, _kind(ctx))


def _width(mods: tuple[str, ...]) -> int:
    """The lane width of a packed form: 16 (``.16x2``), 8 (``.U8x4``, sm_120) or 32."""
    if any(m.endswith("16x2") for m in mods):
        return 16
    return 8 if any(m.endswith("8x4") for m in mods) else 32


def _packed_src(ctx: Ctx, op: Operand, bits: int) -> Callable[[Sel], NDArray]:
    """A packed source: ``-R`` negates each lane."""
    ctx.plain_constant(op)
    if isinstance(op, Reg) and op.neg:
        r = ctx.src(Reg(op.file, op.index))

        def neg(sel: Sel) -> NDArray:
            return _pack([-x for x in _lanes(_u32(r, sel), bits, False)], bits)

        return neg
    r2 = ctx.src(op)
    return lambda sel: _u32(r2, sel)


def bind_viadd_packed(ctx: Ctx) -> Bound:
    """VIADD.16x2 Rd, a, b: two wrapping 16-bit adds; VIADD.U8x4 (sm_120's ``__vabsdiffu4``:
    max - min): four wrapping 8-bit adds."""
    dst, srcs = _operands(ctx, 2)
    bits = _width(ctx.ins.mods)
    a_r, b_r = (_packed_src(ctx, s, bits) for s in srcs)
    wr = ctx.dst(dst)

    def fn(sel: Sel) -> None:
        a, b = _lanes(a_r(sel), bits, False), _lanes(b_r(sel), bits, False)
        wr(sel, _pack([x + y for x, y in zip(a, b, strict=True)], bits))

    return Bound(fn, _kind(ctx))


def bind_vimnmx_n(ctx: Ctx) -> Bound:
    """VIMNMX[.U32|.S16x2|.U16x2|.U8x4][.RELU] Rd, a, b, Pmin and VIMNMX3[...] Rd, a, b, c,
    Pmin: min (Pmin true) or max of two or three values, per 32-bit word, 16-bit half or byte
    (signed unless .U32/.U16x2/.U8x4); .RELU (min/max.relu) clamps negative results to 0."""
    dsts, _pd, srcs, psrc = ctx.split()
    n = 3 if ctx.ins.opcode.endswith("3") else 2
    if len(dsts) != 1 or len(srcs) != n or len(psrc) != 1:
        raise ctx.unsupported()
    mods = ctx.ins.mods
    width = _width(mods)
    signed = not {"U32", "U16x2", "U8x4"} & set(mods)
    relu = "RELU" in mods
    rs = [ctx.src(s) for s in srcs]
    pm = ctx.psrc(psrc[0])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        vals = [_lanes(_u32(r, sel), width, signed) for r in rs]
        p = pm(sel)
        out = []
        for parts in zip(*vals, strict=True):
            lo = functools.reduce(np.minimum, parts)
            hi = functools.reduce(np.maximum, parts)
            r = np.where(p, lo, hi)
            if relu:
                r = np.maximum(r, 0)
            out.append(r)
        wr(sel, _pack(out, width))

    return Bound(fn, _kind(ctx))


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "VABSDIFF": bind_vabsdiff,
    "VABSDIFF4": bind_vabsdiff4,
    "IDP": bind_idp,
    "VIMNMX3": bind_vimnmx_n,
}
# The packed 16x2 and 8x4 forms of VIADD / VIMNMX (ops_int's binders hand them over).
PACKED: dict[str, Callable[[Ctx], Bound]] = {
    "VIADD": bind_viadd_packed,
    "VIMNMX": bind_vimnmx_n,
}
