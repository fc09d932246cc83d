"""Packed half-precision instructions: HADD2, HMUL2, HFMA2 (incl. ``.MMA``), HSET2, HSETP2,
HMNMX2, on f16x2 or (``.BF16_V2``) bf16x2 registers, every result correctly rounded.

Operand selectors: ``.H1_H0`` (default) keeps both halves, ``.H0_H0``/``.H1_H1`` replicate one,
``.H0_H1`` swaps them (high lane first in the name). A packed immediate is two f16 immediates in
nvdisasm order (high lane first) or one 32-bit immediate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from openptxas.emu import fp
from openptxas.emu.bind import U32, Bound, Ctx
from openptxas.emu.lanes import Sel
from openptxas.emu.model import Imm, ImmKind, Operand, Reg
from openptxas.emu.ops_fp import fcompare

NDArray = np.ndarray[Any, Any]
F64 = np.float64
Pair = tuple[NDArray, NDArray]  # (low lane, high lane) as float64 values


def _half_imm(o: Operand) -> bool:
    return isinstance(o, Imm) and o.kind in (ImmKind.F16, ImmKind.F32)


def _as_half(o: Imm, bf16: bool) -> Imm:
    """A half-precision immediate as its 16-bit pattern. The ISA decoder gives bf16 immediates
    as their (exact) f32 widening; nvdisasm's text gives 16-bit patterns."""
    if o.kind is ImmKind.F32:
        if bf16:
            return Imm((o.value >> 16) & 0xFFFF, ImmKind.F16)
        f = np.array([o.value & 0xFFFFFFFF], dtype=U32).view(np.float32)
        return Imm(int(f.astype(np.float16).view(np.uint16)[0]), ImmKind.F16)
    return o


def _pair_operands(ops: list[Operand], bf16: bool) -> list[Operand | tuple[Imm, Imm]]:
    """Group consecutive half-precision immediates into pairs (high lane first)."""
    out: list[Operand | tuple[Imm, Imm]] = []
    i = 0
    while i < len(ops):
        o = ops[i]
        nxt = ops[i + 1] if i + 1 < len(ops) else None
        if isinstance(o, Imm) and isinstance(nxt, Imm) and _half_imm(o) and _half_imm(nxt):
            out.append((_as_half(o, bf16), _as_half(nxt, bf16)))
            i += 2
        else:
            out.append(o)
            i += 1
    return out


def packed_src(ctx: Ctx, op: Operand | tuple[Imm, Imm], bf16: bool) -> Callable[[Sel], Pair]:
    """A packed operand as exact float64 (low, high) lane values."""
    conv: Callable[[NDArray], NDArray]
    if bf16:
        conv = lambda h: fp.bf16_to_f32(h).astype(F64)  # noqa: E731
    else:
        conv = lambda h: fp.f16_to_f32(h.astype(np.uint16)).astype(F64)  # noqa: E731
    if isinstance(op, tuple):
        hi_v = op[0].value & 0xFFFF
        lo_v = op[1].value & 0xFFFF
        lo = conv(np.array([lo_v], dtype=U32))
        hi = conv(np.array([hi_v], dtype=U32))
        return lambda sel: (lo, hi)
    if isinstance(op, Imm):
        v = op.value & 0xFFFFFFFF
        lo = conv(np.array([v & 0xFFFF], dtype=U32))
        hi = conv(np.array([v >> 16], dtype=U32))
        return lambda sel: (lo, hi)
    if not isinstance(op, Reg):
        raise ctx.unsupported(f"packed operand {op}")
    sel_name = op.sel or "H1_H0"
    plain = Reg(op.file, op.index)
    r = ctx.src(plain)
    neg, absv = op.neg, op.abs
    hi_from, _, lo_from = sel_name.partition("_")
    if sel_name == "F32":
        rf = ctx.src(Reg(op.file, op.index, op.neg, op.abs), fp=True)

        def rd32(sel: Sel) -> Pair:
            v = fp.f32(rf(sel)).astype(F64)
            return v, v

        return rd32

    def rd(sel: Sel) -> Pair:
        v = np.atleast_1d(np.asarray(r(sel), dtype=U32))
        if absv:
            v = v & U32(0x7FFF7FFF)
        if neg:
            v = v ^ U32(0x80008000)
        h0 = v & U32(0xFFFF)
        h1 = v >> U32(16)
        lo = h1 if lo_from == "H1" else h0
        hi = h0 if hi_from == "H0" else h1
        return conv(lo), conv(hi)

    return rd


def _round(v: NDArray, bf16: bool, mode: str = "RN", ftz: bool = False) -> NDArray:
    if bf16:
        return fp.f64_to_bf16_bits(v, mode, ftz).astype(U32)
    return fp.f64_to_f16_bits(v, mode, ftz).astype(U32)


def _post(v: NDArray, sat: bool, relu: bool) -> NDArray:
    if sat:
        v = np.where(v != v, 0.0, np.clip(v, 0.0, 1.0))
    if relu:
        v = np.where(v != v, v, np.maximum(v, 0.0))
    return v


def _srcs(ctx: Ctx) -> tuple[list[Operand], list[Operand | tuple[Imm, Imm]], list[Reg]]:
    dsts, _pd, srcs, psrc = ctx.split()
    return dsts, _pair_operands(srcs, "BF16_V2" in ctx.ins.mods), psrc


def bind_harith(ctx: Ctx) -> Bound:
    op = ctx.ins.opcode
    mods = ctx.ins.mods
    bf16 = "BF16_V2" in mods
    sat = "SAT" in mods
    relu = "RELU" in mods
    ftz = "FTZ" in mods
    f32out = "F32" in mods
    dsts, srcs, _ps = _srcs(ctx)
    n = {"HADD2": 2, "HMUL2": 2, "HFMA2": 3}[op]
    if len(srcs) != n:
        raise ctx.unsupported()
    rs = [packed_src(ctx, s, bf16) for s in srcs]
    wr = ctx.dst(dsts[0])

    def lane(vals: list[NDArray]) -> tuple[NDArray, NDArray]:
        """Exact (s, e) of the operation on one lane's float64 values."""
        with np.errstate(all="ignore"):
            if op == "HADD2":
                return fp.two_sum(vals[0], vals[1])
            if op == "HMUL2":
                p = vals[0] * vals[1]  # exact: 22 significant bits
                return p, np.zeros_like(p)
            p = vals[0] * vals[1]
            return fp.two_sum(p, vals[2])

    def fn(sel: Sel) -> None:
        pairs = [r(sel) for r in rs]
        lo_s, lo_e = lane([p[0] for p in pairs])
        lo = _post(fp.round_odd(lo_s, lo_e), sat, relu)
        if f32out:
            wr(sel, fp.canon32(fp.round_to_f32(lo, np.zeros_like(lo))))
            return
        hi_s, hi_e = lane([p[1] for p in pairs])
        hi = _post(fp.round_odd(hi_s, hi_e), sat, relu)
        wr(sel, _round(lo, bf16, "RN", ftz) | (_round(hi, bf16, "RN", ftz) << U32(16)))

    return Bound(fn)


_CMPS = {
    "EQ",
    "NE",
    "LT",
    "LE",
    "GT",
    "GE",
    "EQU",
    "NEU",
    "LTU",
    "LEU",
    "GTU",
    "GEU",
    "NUM",
    "NAN",
    "T",
    "F",
}


def bind_hset(ctx: Ctx) -> Bound:
    op = ctx.ins.opcode
    mods = ctx.ins.mods
    bf16 = "BF16_V2" in mods
    cmp = next((m for m in mods if m in _CMPS), None)
    bop = next((m for m in mods if m in ("AND", "OR", "XOR")), "AND")
    if cmp is None:
        raise ctx.unsupported()
    dsts, srcs, psrc = _srcs(ctx)
    _d, pdst, _s, _p = ctx.split()
    if len(srcs) != 2:
        raise ctx.unsupported()
    a_r, b_r = packed_src(ctx, srcs[0], bf16), packed_src(ctx, srcs[1], bf16)
    acc = ctx.psrc(psrc[0]) if psrc else (lambda sel: np.bool_(True))
    bfv = "BF" in mods
    hand = "H_AND" in mods

    def comb(c: NDArray, av: Any) -> NDArray:
        return c & av if bop == "AND" else c | av if bop == "OR" else c ^ av  # type: ignore[no-any-return]

    if op == "HSETP2":
        d0 = ctx.pdst(pdst[0])
        d1 = ctx.pdst(pdst[1]) if len(pdst) > 1 and not pdst[1].is_zero else None

        def pfn(sel: Sel) -> None:
            (al, ah), (bl, bh) = a_r(sel), b_r(sel)
            cl, _ = fcompare(cmp, np.atleast_1d(al), np.atleast_1d(bl))
            ch, _ = fcompare(cmp, np.atleast_1d(ah), np.atleast_1d(bh))
            av = acc(sel)
            if hand:
                both = cl & ch
                d0(sel, comb(both, av))
                if d1 is not None:
                    d1(sel, comb(~both, av))
                return
            d0(sel, comb(cl, av))
            if d1 is not None:
                d1(sel, comb(ch, av))

        return Bound(pfn)
    wr = ctx.dst(dsts[0])
    one = U32(0x3F80 if bf16 else 0x3C00) if bfv else U32(0xFFFF)

    def fn(sel: Sel) -> None:
        (al, ah), (bl, bh) = a_r(sel), b_r(sel)
        cl, _ = fcompare(cmp, np.atleast_1d(al), np.atleast_1d(bl))
        ch, _ = fcompare(cmp, np.atleast_1d(ah), np.atleast_1d(bh))
        av = acc(sel)
        lo = np.where(comb(cl, av), one, U32(0))
        hi = np.where(comb(ch, av), one, U32(0))
        wr(sel, lo | (hi << U32(16)))

    return Bound(fn)


def bind_hmnmx2(ctx: Ctx) -> Bound:
    """``HMNMX2[.BF16_V2][.NAN][.XORSIGN] Rd, a, b, Pmin``: per half, min (Pmin) or max as
    FMNMX (a NaN operand yields the other; ``.NAN``: the canonical NaN; ``.XORSIGN``: the sign
    is the XOR of the operands' signs before ``|x|``)."""
    mods = ctx.ins.mods
    bf16 = "BF16_V2" in mods
    nan_mode = "NAN" in mods
    xorsign = "XORSIGN" in mods
    dsts, srcs, psrc = _srcs(ctx)
    if len(srcs) != 2 or len(psrc) != 1:
        raise ctx.unsupported()
    absf = [isinstance(s, Reg) and s.abs for s in srcs]
    if xorsign:
        srcs = [
            Reg(s.file, s.index, s.neg, False, s.not_, s.sel, s.reuse) if isinstance(s, Reg) else s
            for s in srcs
        ]
    a_r, b_r = packed_src(ctx, srcs[0], bf16), packed_src(ctx, srcs[1], bf16)
    p_r = ctx.psrc(psrc[0])
    wr = ctx.dst(dsts[0])

    def mm(a: NDArray, b: NDArray, pmin: Any) -> NDArray:
        a = np.atleast_1d(a)
        b = np.atleast_1d(b)
        sign = np.signbit(a) ^ np.signbit(b)
        if xorsign:
            a = np.abs(a) if absf[0] else a
            b = np.abs(b) if absf[1] else b
        ba, bb = fp.bits64(a), fp.bits64(b)
        mn = fp.f64(fp.f64_minmax_bits(ba, bb, True))
        mx = fp.f64(fp.f64_minmax_bits(ba, bb, False))
        r = np.where(pmin, mn, mx)
        if xorsign:
            r = np.where(r != r, r, np.where(sign, -np.abs(r), np.abs(r)))
        if nan_mode:
            r = np.where((a != a) | (b != b), np.nan, r)
        return _round(r, bf16)

    def fn(sel: Sel) -> None:
        (al, ah), (bl, bh) = a_r(sel), b_r(sel)
        pm = p_r(sel)
        wr(sel, mm(al, bl, pm) | (mm(ah, bh, pm) << U32(16)))

    return Bound(fn)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "HADD2": bind_harith,
    "HMUL2": bind_harith,
    "HFMA2": bind_harith,
    "HSET2": bind_hset,
    "HSETP2": bind_hset,
    "HMNMX2": bind_hmnmx2,
}
