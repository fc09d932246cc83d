"""f32 and f64 arithmetic, compares, min/max, FCHK and the MUFU approximations.

IEEE operations (FADD, FMUL, FFMA, DADD, DMUL, DFMA in every rounding mode, with ``.FTZ`` and
``.SAT``) are bit-exact (:mod:`openptxas.emu.fp`). MUFU is an approximation unit on the
hardware; the emulator returns the correctly rounded value of the exact function (computed in
float64, then rounded to the destination format), with MUFU's flush-to-zero of subnormal inputs
and outputs. docs/emu.md states this error model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from openptxas.emu import fp
from openptxas.emu.bind import F32_ABS, F32_SIGN, U32, U64, Bound, Ctx, Reader, uniform_twin
from openptxas.emu.lanes import Sel
from openptxas.emu.model import CBank, Imm, ImmKind, Operand, Reg

NDArray = np.ndarray[Any, Any]
F32 = np.float32
F64 = np.float64


def _rnd(mods: tuple[str, ...]) -> str:
    for m in mods:
        if m in ("RN", "RZ", "RM", "RP"):
            return m
    return "RN"


def _f64_src(ctx: Ctx, op: Operand) -> Reader:
    """A float64 operand: a register pair, a 64-bit constant, or an f64 immediate."""
    if isinstance(op, Imm) and op.kind is not ImmKind.F64:
        # a 32-bit immediate in an f64 slot holds the top 32 bits
        v = U64((op.value & 0xFFFFFFFF) << 32)
        return lambda sel: v
    return ctx.src64(op, fp=True)


# -- f32 -------------------------------------------------------------------------------------


def bind_fadd(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, _ps = ctx.split()
    if len(srcs) != 2:
        raise ctx.unsupported()
    mods = ctx.ins.mods
    ftz = "FTZ" in mods
    sat = "SAT" in mods
    mode = _rnd(mods)
    a_r, b_r = ctx.src(srcs[0], fp=True), ctx.src(srcs[1], fp=True)
    wr = ctx.dst(dsts[0])
    if not ftz and not sat and mode == "RN":

        def fast(sel: Sel) -> None:
            with np.errstate(all="ignore"):
                r = fp.f32(a_r(sel)) + fp.f32(b_r(sel))
            wr(sel, fp.canon32(r))

        return Bound(fast)

    def fn(sel: Sel) -> None:
        r = fp.f32_add_bits(a_r(sel), b_r(sel), ftz, mode)
        wr(sel, fp.sat32(r) if sat else r)

    return Bound(fn)


_FMUL_SCALE = {"D2": 0.5, "D4": 0.25, "D8": 0.125, "M2": 2.0, "M4": 4.0, "M8": 8.0}


def bind_fmul(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, _ps = ctx.split()
    if len(srcs) != 2:
        raise ctx.unsupported()
    mods = ctx.ins.mods
    ftz = "FTZ" in mods
    sat = "SAT" in mods
    mode = _rnd(mods)
    a_r, b_r = ctx.src(srcs[0], fp=True), ctx.src(srcs[1], fp=True)
    wr = ctx.dst(dsts[0])
    scale = next((m for m in mods if m in _FMUL_SCALE), None)
    if scale is not None:
        # FMUL.D2/.M4...: the exact product scaled by the power of two, then rounded once (ptxas
        # folds x*y*0.5 into FMUL.D2); with float64 the scaled product of two f32 is exact
        k = F64(_FMUL_SCALE[scale])

        def scaled(sel: Sel) -> None:
            a, b = a_r(sel), b_r(sel)
            if ftz:
                a, b = fp.ftz32(a), fp.ftz32(b)
            with np.errstate(all="ignore"):
                p = fp.f32(a).astype(F64) * fp.f32(b).astype(F64) * k
            r = fp.canon32(fp.round_to_f32(p, np.zeros_like(p), mode))
            if ftz:
                r = fp.ftz32(r)
            wr(sel, fp.sat32(r) if sat else r)

        return Bound(scaled)
    if not ftz and not sat and mode == "RN":

        def fast(sel: Sel) -> None:
            with np.errstate(all="ignore"):
                r = fp.f32(a_r(sel)) * fp.f32(b_r(sel))
            wr(sel, fp.canon32(r))

        return Bound(fast)

    def fn(sel: Sel) -> None:
        r = fp.f32_mul_bits(a_r(sel), b_r(sel), ftz, mode)
        wr(sel, fp.sat32(r) if sat else r)

    return Bound(fn)


def bind_ffma(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, _ps = ctx.split()
    if len(srcs) != 3:
        raise ctx.unsupported()
    mods = ctx.ins.mods
    ftz = "FTZ" in mods
    sat = "SAT" in mods
    mode = _rnd(mods)
    a_r, b_r, c_r = (ctx.src(s, fp=True) for s in srcs)
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        r = fp.f32_fma_bits(a_r(sel), b_r(sel), c_r(sel), ftz, mode)
        wr(sel, fp.sat32(r) if sat else r)

    return Bound(fn)


def bind_fmnmx(ctx: Ctx) -> Bound:
    """``FMNMX[.FTZ][.NAN][.XORSIGN] Rd, a, b, Pmin``: min (Pmin) or max, -0 < +0; a NaN operand
    yields the other one, or the canonical NaN with ``.NAN`` (both NaN: canonical NaN).
    ``.XORSIGN`` (min/max.xorsign.abs): the result's sign is the XOR of the operands' signs
    (before their ``|x|``), its magnitude the min/max of the magnitudes; a NaN result stays the
    canonical NaN."""
    dsts, _pd, srcs, psrc = ctx.split()
    if len(srcs) != 2 or len(psrc) != 1:
        raise ctx.unsupported()
    mods = ctx.ins.mods
    ftz = "FTZ" in mods
    nan_mode = "NAN" in mods
    xorsign = "XORSIGN" in mods
    if xorsign:
        raw = [replace(s, neg=False, abs=False) if isinstance(s, Reg | CBank) else s for s in srcs]
        a_r, b_r = ctx.src(raw[0], fp=True), ctx.src(raw[1], fp=True)
        absf = [isinstance(s, Reg | CBank) and s.abs for s in srcs]
    else:
        a_r, b_r = ctx.src(srcs[0], fp=True), ctx.src(srcs[1], fp=True)
        absf = [False, False]
    p_r = ctx.psrc(psrc[0])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        a = np.asarray(a_r(sel), dtype=U32)
        b = np.asarray(b_r(sel), dtype=U32)
        sign = (a ^ b) & F32_SIGN
        if absf[0]:
            a = a & F32_ABS
        if absf[1]:
            b = b & F32_ABS
        mn = fp.f32_minmax_bits(a, b, True, ftz)
        mx = fp.f32_minmax_bits(a, b, False, ftz)
        r = np.where(p_r(sel), mn, mx)
        isnan = (r & F32_ABS) > U32(0x7F800000)
        if xorsign:
            r = np.where(isnan, r, (r & F32_ABS) | sign)
        if nan_mode:
            anan = ((a & F32_ABS) > U32(0x7F800000)) | ((b & F32_ABS) > U32(0x7F800000))
            r = np.where(anan, fp.CANON_F32, r)
        wr(sel, r)

    return Bound(fn)


def bind_fmnmx3(ctx: Ctx) -> Bound:
    """``FMNMX3[.FTZ][.NAN] Rd, a, b, c, Pmin`` (Blackwell): FMNMX of FMNMX(a, b) and c (the
    rule is associative: -0 < +0, a NaN yields the others, ``.NAN`` any NaN the canonical NaN)."""
    dsts, _pd, srcs, psrc = ctx.split()
    mods = ctx.ins.mods
    if len(srcs) != 3 or len(psrc) != 1 or "XORSIGN" in mods:
        raise ctx.unsupported()
    ftz = "FTZ" in mods
    nan_mode = "NAN" in mods
    a_r, b_r, c_r = (ctx.src(x, fp=True) for x in srcs)
    p_r = ctx.psrc(psrc[0])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        a, b, c = (np.asarray(x(sel), dtype=U32) for x in (a_r, b_r, c_r))
        p = p_r(sel)
        ab = np.where(p, fp.f32_minmax_bits(a, b, True, ftz), fp.f32_minmax_bits(a, b, False, ftz))
        r = np.where(p, fp.f32_minmax_bits(ab, c, True, ftz), fp.f32_minmax_bits(ab, c, False, ftz))
        if nan_mode:
            anan = np.zeros(np.shape(r), dtype=bool)
            for x in (a, b, c):
                anan = anan | ((x & F32_ABS) > U32(0x7F800000))
            r = np.where(anan, fp.CANON_F32, r)
        wr(sel, r)

    return Bound(fn)


# -- compares ----------------------------------------------------------------------------------

_ORD = {"EQ", "NE", "LT", "LE", "GT", "GE"}
_UNORD = {"EQU", "NEU", "LTU", "LEU", "GTU", "GEU"}
_BOPS = ("AND", "OR", "XOR")


def fcompare(cmp: str, a: NDArray, b: NDArray) -> tuple[NDArray, NDArray | None]:
    """(result, second result or None) of a float compare on float arrays."""
    with np.errstate(all="ignore"):
        nan = np.isnan(a) | np.isnan(b)
        base = cmp[:2] if cmp in _UNORD else cmp
        f: dict[str, Callable[[NDArray, NDArray], NDArray]] = {
            "EQ": np.equal,
            "NE": np.not_equal,
            "LT": np.less,
            "LE": np.less_equal,
            "GT": np.greater,
            "GE": np.greater_equal,
        }
        if cmp in _ORD:
            return f[cmp](a, b) & ~nan, None
        if cmp in _UNORD:
            return f[base](a, b) | nan, None
        if cmp == "NUM":
            return ~nan, None
        if cmp == "NAN":
            return nan, None
        if cmp == "T":
            return np.ones(nan.shape, bool), None
        if cmp == "F":
            return np.zeros(nan.shape, bool), None
        if cmp in ("MAX", "MIN"):
            an, bn = np.isnan(a), np.isnan(b)
            ka = _total_key(a)
            kb = _total_key(b)
            pick = ka >= kb if cmp == "MAX" else ka <= kb
            pick = (pick & ~an & ~bn) | (bn & ~an)
            return pick, an & bn
    raise ValueError(cmp)


def _total_key(x: NDArray) -> NDArray:
    if x.dtype == F64:
        b = x.view(U64)
        return np.where(b >> U64(63), ~b, b | U64(1 << 63))
    b32 = x.view(U32)
    return np.where(b32 >> U32(31), ~b32, b32 | U32(1 << 31))


def bind_fsetp(ctx: Ctx) -> Bound:
    _d, pdst, srcs, psrc = ctx.split()
    mods = ctx.ins.mods
    op = ctx.ins.opcode
    is64 = op in ("DSETP",)
    cmp = next(
        (m for m in mods if m in _ORD | _UNORD | {"NUM", "NAN", "T", "F", "MAX", "MIN"}), None
    )
    bop = next((m for m in mods if m in _BOPS), "AND")
    if cmp is None or len(srcs) != 2 or not pdst:
        raise ctx.unsupported()
    ftz = "FTZ" in mods
    if is64:
        a_r, b_r = _f64_src(ctx, srcs[0]), _f64_src(ctx, srcs[1])
    else:
        a_r, b_r = ctx.src(srcs[0], fp=True), ctx.src(srcs[1], fp=True)
    acc = ctx.psrc(psrc[0]) if psrc else (lambda sel: np.bool_(True))
    d0 = ctx.pdst(pdst[0])
    d1 = ctx.pdst(pdst[1]) if len(pdst) > 1 and not pdst[1].is_zero else None
    bf: Callable[[Any, Any], Any] = {
        "AND": lambda x, y: x & y,
        "OR": lambda x, y: x | y,
        "XOR": lambda x, y: x ^ y,
    }[bop]

    def fn(sel: Sel) -> None:
        if is64:
            a, b = fp.f64(a_r(sel)), fp.f64(b_r(sel))
        else:
            ab, bb = a_r(sel), b_r(sel)
            if ftz:
                ab, bb = fp.ftz32(ab), fp.ftz32(bb)
            a, b = fp.f32(ab), fp.f32(bb)
        c, second = fcompare(cmp, np.atleast_1d(a), np.atleast_1d(b))
        av = acc(sel)
        d0(sel, bf(c, av))
        if d1 is not None:
            d1(sel, bf(~c if second is None else second, av))

    return Bound(fn)


def bind_fset(ctx: Ctx) -> Bound:
    """FSET.BF.cmp.bop Rd, a, b, P: 1.0f / 0 (BF) or all ones / 0."""
    dsts, _pd, srcs, psrc = ctx.split()
    mods = ctx.ins.mods
    cmp = next((m for m in mods if m in _ORD | _UNORD | {"NUM", "NAN", "T", "F"}), None)
    bop = next((m for m in mods if m in _BOPS), "AND")
    if cmp is None or len(srcs) != 2:
        raise ctx.unsupported()
    bfv = "BF" in mods
    ftz = "FTZ" in mods
    a_r, b_r = ctx.src(srcs[0], fp=True), ctx.src(srcs[1], fp=True)
    acc = ctx.psrc(psrc[0]) if psrc else (lambda sel: np.bool_(True))
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        ab, bb = a_r(sel), b_r(sel)
        if ftz:
            ab, bb = fp.ftz32(ab), fp.ftz32(bb)
        c, _ = fcompare(cmp, np.atleast_1d(fp.f32(ab)), np.atleast_1d(fp.f32(bb)))
        av = acc(sel)
        r = c & av if bop == "AND" else c | av if bop == "OR" else c ^ av
        one = U32(0x3F800000) if bfv else U32(0xFFFFFFFF)
        wr(sel, np.where(r, one, U32(0)))

    return Bound(fn)


def bind_fchk(ctx: Ctx) -> Bound:
    """FCHK P, a, b: true when a/b must take the careful division path.

    Conservative model: true unless a and b are normal, nonzero, finite, with exponents well
    inside the range where ptxas's reciprocal-and-refine sequence is exact. The careful path
    computes the same IEEE result, so extra ``true`` answers cost time, not accuracy.
    """
    _d, pdst, srcs, _ps = ctx.split()
    if len(srcs) != 2 or not pdst:
        raise ctx.unsupported()
    a_r, b_r = ctx.src(srcs[0], fp=True), ctx.src(srcs[1], fp=True)
    wr = ctx.pdst(pdst[0])

    def fn(sel: Sel) -> None:
        a = np.asarray(a_r(sel), dtype=U32)
        b = np.asarray(b_r(sel), dtype=U32)
        ea = ((a >> U32(23)) & U32(0xFF)).astype(np.int64)
        eb = ((b >> U32(23)) & U32(0xFF)).astype(np.int64)
        # (a zero numerator also takes the careful path: the fast path loses the sign of -0/x)
        ok = (ea >= 24) & (ea <= 230) & (eb >= 24) & (eb <= 230) & (np.abs(ea - eb) <= 100)
        wr(sel, ~ok)

    return Bound(fn)


# -- f64 -------------------------------------------------------------------------------------


def bind_dadd(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, _ps = ctx.split()
    mode = _rnd(ctx.ins.mods)
    a_r, b_r = _f64_src(ctx, srcs[0]), _f64_src(ctx, srcs[1])
    wr = ctx.dst64(dsts[0])
    if mode == "RN":

        def fast(sel: Sel) -> None:
            with np.errstate(all="ignore"):
                wr(sel, fp.canon64(fp.f64(a_r(sel)) + fp.f64(b_r(sel))))

        return Bound(fast)
    return Bound(lambda sel: wr(sel, fp.f64_add_bits(a_r(sel), b_r(sel), mode)))


def bind_dmul(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, _ps = ctx.split()
    mode = _rnd(ctx.ins.mods)
    a_r, b_r = _f64_src(ctx, srcs[0]), _f64_src(ctx, srcs[1])
    wr = ctx.dst64(dsts[0])
    return Bound(lambda sel: wr(sel, fp.f64_mul_bits(a_r(sel), b_r(sel), mode)))


def bind_dfma(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, _ps = ctx.split()
    if len(srcs) != 3:
        raise ctx.unsupported()
    mode = _rnd(ctx.ins.mods)
    a_r, b_r, c_r = (_f64_src(ctx, s) for s in srcs)
    wr = ctx.dst64(dsts[0])
    return Bound(lambda sel: wr(sel, fp.f64_fma_bits(a_r(sel), b_r(sel), c_r(sel), mode)))


def bind_dmnmx(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, psrc = ctx.split()
    a_r, b_r = _f64_src(ctx, srcs[0]), _f64_src(ctx, srcs[1])
    p_r = ctx.psrc(psrc[0])
    wr = ctx.dst64(dsts[0])

    def fn(sel: Sel) -> None:
        a, b = np.asarray(a_r(sel), U64), np.asarray(b_r(sel), U64)
        mn = fp.f64_minmax_bits(a, b, True)
        mx = fp.f64_minmax_bits(a, b, False)
        wr(sel, np.where(p_r(sel), mn, mx))

    return Bound(fn)


# -- MUFU --------------------------------------------------------------------------------------


def mufu_f32(func: str, x: NDArray) -> NDArray:
    """The emulator's MUFU: exact function in float64, rounded to float32; subnormal inputs and
    results flushed to zero; canonical NaN. TANH (tanh.approx.f32) supports subnormals: a
    subnormal input is returned unchanged (the PTX ISA's special-value table)."""
    x = np.asarray(x, dtype=U32)
    if func == "TANH":
        sub = ((x & U32(0x7F800000)) == 0) & ((x & U32(0x7FFFFF)) != 0)
        return np.where(sub, x, mufu_f32("TANH_NORMAL", x))
    xb = fp.ftz32(x)
    with np.errstate(all="ignore"):  # signalling NaNs, poles
        v = fp.f32(xb).astype(F64)
        if func == "RCP":
            r = 1.0 / v
        elif func == "RSQ":
            r = 1.0 / np.sqrt(v)
        elif func == "SQRT":
            r = np.sqrt(v)
        elif func == "EX2":
            r = np.exp2(v)
        elif func == "LG2":
            r = np.log2(v)
        elif func == "SIN":
            r = np.sin(v * (2.0 * np.pi))
        elif func == "COS":
            r = np.cos(v * (2.0 * np.pi))
        elif func == "TANH_NORMAL":  # TANH on an input that is not subnormal
            r = np.tanh(v)
        else:
            raise ValueError(func)
        out = r.astype(F32)
    return fp.ftz32(fp.canon32(out))


def mufu_64h(func: str, hi: NDArray) -> NDArray:
    """MUFU.RCP64H / RSQ64H: the high word of an approximation of 1/x or 1/sqrt(x), where x is
    the double whose high word is ``hi`` (low word zero)."""
    x = (np.asarray(hi, dtype=U32).astype(U64) << U64(32)).view(F64)
    with np.errstate(all="ignore"):
        r = 1.0 / x if func == "RCP64H" else 1.0 / np.sqrt(x)
    b = fp.canon64(r)
    return (b >> U64(32)).astype(U32)


def bind_mufu(ctx: Ctx) -> Bound:
    dsts, _pd, srcs, _ps = ctx.split()
    mods = ctx.ins.mods
    func = next(
        (
            m
            for m in mods
            if m in ("RCP", "RSQ", "SQRT", "EX2", "LG2", "SIN", "COS", "TANH", "RCP64H", "RSQ64H")
        ),
        None,
    )
    if func is None or not srcs:
        raise ctx.unsupported()
    wr = ctx.dst(dsts[0])
    if func in ("RCP64H", "RSQ64H"):
        r64 = ctx.src(srcs[0], fp=True)
        return Bound(lambda sel: wr(sel, mufu_64h(func, r64(sel))))
    if "F16" in mods or "BF16" in mods:
        bf16 = "BF16" in mods
        src = srcs[0]
        ctx.plain_constant(src)
        hsel = src.sel if isinstance(src, Reg) else ""
        plain = Reg(src.file, src.index, src.neg, src.abs) if isinstance(src, Reg) else src
        r16 = ctx.src(plain)

        def f16fn(sel: Sel) -> None:
            v = np.asarray(r16(sel), dtype=U32)
            h = (v >> U32(16)) if hsel == "H1" else v & U32(0xFFFF)
            if isinstance(src, Reg) and src.neg:
                h = h ^ U32(0x8000)
            if isinstance(src, Reg) and src.abs:
                h = h & U32(0x7FFF)
            if bf16 and func == "EX2":  # ex2.approx.ftz.bf16: subnormal inputs are zeros
                h = np.where((h & U32(0x7F80)) == 0, h & U32(0x8000), h)
            with np.errstate(all="ignore"):  # signalling NaNs
                if bf16:
                    x = fp.bf16_to_f32(h).astype(F64)
                else:
                    x = fp.f16_to_f32(h.astype(np.uint16)).astype(F64)
                y = np.exp2(x) if func == "EX2" else np.tanh(x)
            if not bf16:
                wr(sel, fp.f64_to_f16_bits(y).astype(U32))
                return
            r = fp.f64_to_bf16_bits(y).astype(U32)
            if func == "EX2":  # .ftz: subnormal results flushed (ex2 is positive)
                r = np.where((r & U32(0x7F80)) == 0, U32(0), r)
            wr(sel, r)

        if func not in ("EX2", "TANH"):
            raise ctx.unsupported()
        return Bound(f16fn)
    a_r = ctx.src(srcs[0], fp=True)
    return Bound(lambda sel: wr(sel, mufu_f32(func, a_r(sel))))


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "FADD": bind_fadd,
    "FMUL": bind_fmul,
    "UFMUL": uniform_twin(bind_fmul),  # (sm_120's uniform datapath)
    "FFMA": bind_ffma,
    "FMNMX": bind_fmnmx,
    "FMNMX3": bind_fmnmx3,
    "FSETP": bind_fsetp,
    "UFSETP": uniform_twin(bind_fsetp),
    "DSETP": bind_fsetp,
    "FSET": bind_fset,
    "FCHK": bind_fchk,
    "DADD": bind_dadd,
    "DMUL": bind_dmul,
    "DFMA": bind_dfma,
    "DMNMX": bind_dmnmx,
    "MUFU": bind_mufu,
}
