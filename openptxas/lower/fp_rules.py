"""Selection rules for floating-point arithmetic, comparisons and conversions (f32, f64)."""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Imm, ImmKind, Operand, Part, Reg, RegLike, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import extend, half, isetp64
from openptxas.lower.rules import Rule, always, has, types
from openptxas.ptx import ast
from openptxas.ptx.types import CmpOp, PtxType, Rounding

T = PtxType

PT_OP: Operand = PT
_RND = {Rounding.RZ: "RZ", Rounding.RM: "RM", Rounding.RP: "RP"}
_FCMP = {
    CmpOp.EQ: "EQ",
    CmpOp.NE: "NE",
    CmpOp.LT: "LT",
    CmpOp.LE: "LE",
    CmpOp.GT: "GT",
    CmpOp.GE: "GE",
    CmpOp.EQU: "EQU",
    CmpOp.NEU: "NEU",
    CmpOp.LTU: "LTU",
    CmpOp.LEU: "LEU",
    CmpOp.GTU: "GTU",
    CmpOp.GEU: "GEU",
    CmpOp.NUM: "NUM",
    CmpOp.NAN: "NAN",
}


def _mods(ins: ast.Instruction, *, rnd: bool = True) -> tuple[str, ...]:
    m: list[str] = []
    if ins.has("ftz"):
        m.append("FTZ")
    if rnd and ins.rnd in _RND:
        m.append(_RND[ins.rnd])
    if ins.has("sat"):
        m.append("SAT")
    return tuple(m)


def _fneg(x: Operand) -> Operand:
    if isinstance(x, Imm):
        return Imm(x.value ^ 0x80000000, x.kind)
    if isinstance(x, Src):
        return Src(x.x, not x.neg, x.abs, x.inv, x.sel)
    assert isinstance(x, VReg | Part | Reg)
    return Src(x, neg=True)


def fadd(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    t = T.F32
    sub = ins.opcode == "sub"
    x: Operand
    if _is_imm(a) and not _is_imm(b):
        # a constant first operand goes to the immediate slot, as ptxas: ``imm - x`` is
        # ``FADD -x, imm`` (a later contraction then keeps the constant addend)
        y = c.value(a, t)
        x = c.rvalue(b, t)
        x = _fneg(x) if sub else x
    else:
        y = c.value(b, t)
        y = _fneg(y) if sub else y
        x = c.rvalue(a, t)
    out = c.emit("FADD", _mods(ins), [c.dst(d)], [x, y])
    out.contract = ins.rnd is None


def fmul(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    if _is_imm(a) and not _is_imm(b):
        a, b = b, a  # the constant in the immediate slot
    out = c.emit("FMUL", _mods(ins), [c.dst(d)], [c.rvalue(a, T.F32), c.value(b, T.F32)])
    out.contract = ins.rnd is None and not ins.has("sat")


def _is_imm(op: ast.Operand) -> bool:
    return isinstance(op, ast.IntImm | ast.FloatImm)


def ffma(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b, e = ins.operands
    t = T.F32
    # one immediate per FFMA: with both b and c constant, ptxas keeps b and moves c to a register
    cv = c.rvalue(e, t) if _is_imm(b) else c.value(e, t)
    c.emit("FFMA", _mods(ins), [c.dst(d)], [c.rvalue(a, t), c.value(b, t), cv])


def fneg_abs(ins: ast.Instruction, c: LowerCtx) -> None:
    """``FADD -x, -RZ`` / ``FADD |x|, -RZ`` as ptxas (``.ftz`` or not): exact for every number
    and signed zero; a NaN comes out as the canonical NaN, as from ptxas's code."""
    d, a = ins.operands
    ra = c.rvalue(a, T.F32)
    src = Src(ra, neg=True) if ins.opcode == "neg" else Src(ra, abs=True)
    c.emit("FADD", ("FTZ",) if ins.has("ftz") else (), [c.dst(d)], [src, Src(RZ, neg=True)])


def fminmax(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    sel = PT if ins.opcode == "min" else Src(PT, inv=True)
    mods = ("FTZ",) if ins.has("ftz") else ()
    if ins.has("NaN"):
        mods = (*mods, "NAN")
    if ins.has("xorsign"):  # |a| min/max |b|, its sign the XOR of a's and b's (as ptxas)
        mods = (*mods, "XORSIGN")
        ra, rb = c.rvalue(a, T.F32), c.rvalue(b, T.F32)
        c.emit("FMNMX", mods, [c.dst(d)], [Src(ra, abs=True), Src(rb, abs=True), sel])
        return
    c.emit("FMNMX", mods, [c.dst(d)], [c.rvalue(a, T.F32), c.value(b, T.F32), sel])


def setp_f32(ins: ast.Instruction, c: LowerCtx) -> None:
    assert ins.cmp is not None
    cmp = _FCMP[ins.cmp]
    ops = ins.operands
    bop, q = "AND", PT_OP
    if ins.boolop is not None and len(ops) == 4:
        bop, q = ins.boolop.value.upper(), c.value(ops[3], T.PRED)
    d = ops[0]
    if isinstance(d, ast.Pair):
        p1: Operand = c.dst(d.first)
        p2: Operand = c.dst(d.second)
    else:
        p1, p2 = c.dst(d), PT
    mods = (cmp, "FTZ", bop) if ins.has("ftz") else (cmp, bop)
    c.emit("FSETP", mods, [p1, p2], [c.rvalue(ops[1], T.F32), c.value(ops[2], T.F32), q])


def setp_f64(ins: ast.Instruction, c: LowerCtx) -> None:
    assert ins.cmp is not None
    cmp = _FCMP[ins.cmp]
    ops = ins.operands
    bop, q = "AND", PT_OP
    if ins.boolop is not None and len(ops) == 4:
        bop, q = ins.boolop.value.upper(), c.value(ops[3], T.PRED)
    d = ops[0]
    p1: Operand = c.dst(d.first) if isinstance(d, ast.Pair) else c.dst(d)
    p2: Operand = c.dst(d.second) if isinstance(d, ast.Pair) else PT
    c.emit("DSETP", (cmp, bop), [p1, p2], [c.rvalue(ops[1], T.F64), c.rvalue(ops[2], T.F64), q])


def dop(ins: ast.Instruction, c: LowerCtx) -> None:
    """f64 add/sub/mul/fma."""
    ops = ins.operands
    rnd = (_RND[ins.rnd],) if ins.rnd in _RND else ()
    regs = [c.rvalue(o, T.F64) for o in ops[1:]]
    srcs: list[Operand] = list(regs)
    if ins.opcode == "sub":
        srcs[1] = Src(regs[1], neg=True)
    op = {"add": "DADD", "sub": "DADD", "mul": "DMUL", "fma": "DFMA", "mad": "DFMA"}[ins.opcode]
    out = c.emit(op, rnd, [c.dst(ops[0])], srcs)
    out.contract = ins.rnd is None and op in ("DADD", "DMUL")


def dneg_abs(ins: ast.Instruction, c: LowerCtx) -> None:
    """``DADD d, -RZ, -x`` / ``DADD d, -RZ, |x|`` as ptxas: a NaN comes out as the canonical
    NaN (flipping the sign bit would keep its payload, which ptxas's code does not)."""
    d, a = ins.operands
    ra = c.rvalue(a, T.F64)
    src = Src(ra, neg=True) if ins.opcode == "neg" else Src(ra, abs=True)
    c.emit("DADD", (), [c.dst(d)], [Src(RZ, neg=True), src])


_I2F_RND = {Rounding.RZ: "RZ", Rounding.RM: "RM", Rounding.RP: "RP"}
_F2I_RND = {Rounding.RZI: "TRUNC", Rounding.RMI: "FLOOR", Rounding.RPI: "CEIL", Rounding.RNI: ""}


def _int_name(t: PtxType) -> str:
    return {
        T.S32: "S32",
        T.U32: "U32",
        T.S64: "S64",
        T.U64: "U64",
        T.S16: "S16",
        T.U16: "U16",
        T.S8: "S8",
        T.U8: "U8",
    }[t]


def cvt(ins: ast.Instruction, c: LowerCtx) -> None:
    if len(ins.operands) != 2:  # packing forms: cvt.rn.satfinite.e4m3x2.f32 d, a, b
        raise c.unsupported(
            f"cvt{''.join('.' + t.name.lower() for t in ins.types)} with two sources"
        )
    d, a = ins.operands
    dt, st = ins.types[0], ins.types[1]
    ints = (T.S32, T.U32, T.S64, T.U64, T.S16, T.U16, T.S8, T.U8, T.B32, T.B64, T.B16, T.B8)
    dv = c.dst(d)
    if dt in ints and st in ints:
        return cvt_int(ins, c, dv, a, dt, st)
    if ins.has("sat") and dt is T.F32 and not (st is T.F32 and ins.rnd not in _FRND):
        # .sat clamps a float result to [0, 1]: convert, then FADD.SAT d, RZ, t (as ptxas)
        t = c.new()
        _cvt_float(ins, c, t, a, dt, st, ints)
        c.emit("FADD", ("SAT",), [dv], [RZ, t])
        return
    if ins.has("sat") and dt is T.F64:
        raise c.unsupported(_cvt_form(dt, st, "sat"))
    _cvt_float(ins, c, dv, a, dt, st, ints)


_FRND = {Rounding.RNI: "", Rounding.RZI: "TRUNC", Rounding.RMI: "FLOOR", Rounding.RPI: "CEIL"}


def _cvt_float(
    ins: ast.Instruction,
    c: LowerCtx,
    dv: VReg,
    a: ast.Operand,
    dt: PtxType,
    st: PtxType,
    ints: tuple[PtxType, ...],
) -> None:
    """cvt with a floating-point source or destination (``.sat`` of an f32 result applied by
    the caller, except in FADD's own SAT)."""
    if dt is T.F32 and st in ints:
        rnd = (_I2F_RND[ins.rnd],) if ins.rnd in _I2F_RND else ()
        if st.size == 8:
            c.emit("I2F", (_int_name(st), *rnd), [dv], [c.rvalue(a, st)])
        elif not c.target.has_op("I2FP"):
            # before sm_86: I2F of every width and rounding (I2F R24, R9; I2F.U32; I2F.S16)
            kind = () if st is T.S32 else (_int_name(st),)
            c.emit("I2F", (*kind, *rnd), [dv], [c.rvalue(a, st)])
        elif st.size < 4:
            # I2FP converts 32-bit integers: widen (the register's upper bits are undefined)
            from openptxas.lower.bit_rules import _ext16

            signed = st in (T.S16, T.S8)
            if rnd and rnd != ("RZ",):
                # I2FP rounds only to nearest or toward zero: I2F.U16.RM d, a (as ptxas)
                c.emit("I2F", (_int_name(st), *rnd), [dv], [c.rvalue(a, st)])
                return
            x = _ext16(c, a, signed) if st.size == 2 else _ext8(c, a, signed)
            xr = x if not isinstance(x, Imm) else c.materialize(x.value, T.U32)
            c.emit("I2FP", ("F32", "S32" if signed else "U32", *rnd), [dv], [xr])
        else:
            if rnd and rnd != ("RZ",):
                # I2FP rounds only to nearest or toward zero: ptxas uses I2F.RM / I2F.U32.RP
                kind = () if st is T.S32 else (_int_name(st),)
                c.emit("I2F", (*kind, *rnd), [dv], [c.rvalue(a, st)])
            else:
                c.emit("I2FP", ("F32", _int_name(st), *rnd), [dv], [c.rvalue(a, st)])
        return
    if dt in ints and st is T.F32:
        r = _F2I_RND.get(ins.rnd) if ins.rnd is not None else "TRUNC"
        if r is None:
            raise c.unsupported(f"cvt rounding {ins.rnd}")
        mods: list[str] = []
        if ins.has("ftz"):
            mods.append("FTZ")
        if dt not in (T.S32,):
            mods.append(_int_name(dt))
        if r:
            mods.append(r)
        mods.append("NTZ")
        c.emit("F2I", tuple(mods), [dv], [c.rvalue(a, st)])
        return
    if dt is T.F64 and st is T.F32:
        src: RegLike = c.rvalue(a, st)
        if ins.has("ftz"):  # a subnormal f32 source is flushed first (FMUL.FTZ x, 1, as ptxas)
            flushed = c.new()
            c.emit("FMUL", ("FTZ",), [flushed], [src, Imm(0x3F800000, ImmKind.F32)])
            src = flushed
        c.emit("F2F", ("F64", "F32"), [dv], [src])
        return
    if T.F32 in (dt, st) and {dt, st} & {T.F16, T.BF16}:
        return _cvt_half(ins, c, dv, a, dt, st)
    full_ints = (T.S32, T.U32, T.S64, T.U64)
    if (dt in (T.F64, T.F16) and st in full_ints) or (dt in full_ints and st is T.F64):
        return _cvt_f64_f16_int(ins, c, dv, a, dt, st)
    if dt is T.F32 and st is T.F64:
        if ins.has("ftz"):
            raise c.unsupported(_cvt_form(dt, st, "ftz"))
        rnd = (_I2F_RND[ins.rnd],) if ins.rnd in _I2F_RND else ()
        c.emit("F2F", ("F32", "F64", *rnd), [dv], [c.rvalue(a, st)])
        return
    if dt is T.F32 and st is T.F32:
        rnd_i = _FRND.get(ins.rnd) if ins.rnd is not None else None
        if rnd_i is None and not ins.has("ftz") and not ins.has("sat"):
            if c.unoptimized:  # ptxas -O0: -0 + a (a NaN comes out as the canonical NaN)
                c.emit("FADD", (), [dv], [Src(RZ, neg=True), c.rvalue(a, st)])
            else:
                c.emit("MOV", (), [dv], [c.rvalue(a, st)])  # a copy (ptxas): NaN payloads kept
            return
        if rnd_i is None:
            c.emit(
                "FADD",
                (*(("FTZ",) if ins.has("ftz") else ()), *(("SAT",) if ins.has("sat") else ())),
                [dv],
                [c.rvalue(a, st), Src(RZ, neg=True)],
            )
            return
        mods2 = ("FTZ",) if ins.has("ftz") else ()
        c.emit("FRND", (*mods2, *((rnd_i,) if rnd_i else ())), [dv], [c.rvalue(a, st)])
        return
    raise c.unsupported(f"cvt.{dt}.{st}")


def _cvt_form(dt: PtxType, st: PtxType, *parts: str | None) -> str:
    """``cvt[.part...].dt.st``, the form a diagnostic names."""
    return ".".join(["cvt", *(p for p in parts if p), dt, st])


def _refuse_modifiers(
    ins: ast.Instruction, c: LowerCtx, dt: PtxType, st: PtxType, names: tuple[str, ...]
) -> None:
    """Modifiers of ``names`` the lowering of this cvt form does not implement: refused."""
    extra = [m for m in names if ins.has(m)]
    if extra:
        raise c.unsupported(_cvt_form(dt, st, *extra))


def _cvt_half(
    ins: ast.Instruction, c: LowerCtx, dv: VReg, a: ast.Operand, dt: PtxType, st: PtxType
) -> None:
    """f16/bf16 <-> f32, as ptxas 13.0 compiles them (a 16-bit value lives in the low half of
    a 32-bit register; its high half is undefined): ``cvt.f32.f16`` is ``HADD2.F32 d, -RZ,
    a.H0_H0``, ``cvt.f32.bf16`` ``IMAD.U32 d, a, 0x10000, RZ`` (exact), ``cvt.rn|rz.f16|bf16.f32``
    ``F2FP.<t>.F32.PACK_AB[.RZ] d, RZ, a``, ``cvt.rm|rp`` ``F2F.<t>.F32.RM|RP d, a``."""
    _refuse_modifiers(ins, c, dt, st, ("ftz", "sat", "relu", "satfinite"))
    src = c.rvalue(a, st)
    if dt is T.F32:
        if st is T.F16:
            c.emit("HADD2", ("F32",), [dv], [Src(RZ, neg=True), Src(src, sel="H0_H0")])
        else:
            c.emit("IMAD", ("U32",), [dv], [src, Imm(0x10000), RZ])
        return
    kind = "F16" if dt is T.F16 else "BF16"
    if ins.rnd in (Rounding.RM, Rounding.RP):  # F2FP rounds only to nearest or toward zero
        c.emit("F2F", (kind, "F32", "RM" if ins.rnd is Rounding.RM else "RP"), [dv], [src])
        return
    rnd = {Rounding.RN: (), Rounding.RZ: ("RZ",)}.get(ins.rnd) if ins.rnd is not None else None
    if rnd is None:
        raise c.unsupported(_cvt_form(dt, st, ins.rnd))
    c.emit("F2FP", (kind, "F32", "PACK_AB", *rnd), [dv], [RZ, src])


def _cvt_f64_f16_int(
    ins: ast.Instruction, c: LowerCtx, dv: VReg, a: ast.Operand, dt: PtxType, st: PtxType
) -> None:
    """Integer <-> f64 and integer -> f16, as ptxas 13.0 compiles them: ``I2F.F64[.U32|.S64|
    .U64] d, a``, ``I2F.F16[.U32] d, a`` (rn), ``F2I[.U32|.S64|.U64].F64[.TRUNC|.FLOOR|.CEIL]``.
    Other rounding and the ftz/sat forms are refused."""
    _refuse_modifiers(ins, c, dt, st, ("ftz", "sat"))
    src = c.rvalue(a, st)
    if st is T.F64:
        if ins.rnd is None or ins.rnd not in _F2I_RND:
            raise c.unsupported(_cvt_form(dt, st, ins.rnd))
        r = _F2I_RND[ins.rnd]
        kind = () if dt is T.S32 else (_int_name(dt),)
        c.emit("F2I", (*kind, "F64", *((r,) if r else ())), [dv], [src])
        return
    if ins.rnd is not Rounding.RN or (dt is T.F16 and st.size == 8):
        raise c.unsupported(_cvt_form(dt, st, ins.rnd))
    kind = () if st is T.S32 else (_int_name(st),)
    c.emit("I2F", ("F64" if dt is T.F64 else "F16", *kind), [dv], [src])


def _ext8(c: LowerCtx, op: ast.Operand, signed: bool) -> Operand:
    """An 8-bit source widened to 32 bits."""
    v = c.value(op, T.U32)
    if isinstance(v, Imm):
        x = v.value & 0xFF
        return Imm((x - 0x100 if signed and x & 0x80 else x) & 0xFFFFFFFF)
    r = c.new()
    if signed:
        c.emit("SGXT", (), [r], [v, Imm(8)])
    else:
        c.emit("LOP3", ("LUT",), [r], [v, Imm(0xFF), RZ, Imm(0xC0), Src(PT, inv=True)])
    return r


def cvt_int(
    ins: ast.Instruction, c: LowerCtx, dv: VReg, a: ast.Operand, dt: PtxType, st: PtxType
) -> None:
    src: RegLike = c.rvalue(a, st)
    signed_src = st in (T.S8, T.S16, T.S32, T.S64)
    if ins.has("sat"):
        src = _saturate_int(c, src, dt, st, signed_src)
    src_lo = half(src, 0) if st.size == 8 else src
    # narrow to the smaller of the two sizes, with the sign of the source
    n = min(dt.size, st.size)
    low: Operand = src_lo if n >= 4 else extend(c, src_lo, 8 * n, signed_src)
    if dt.size == 8:
        c.emit("MOV", (), [dv.lo], [low])
        if st.size == 8:
            c.emit("MOV", (), [dv.hi], [half(src, 1)])
        elif signed_src:
            c.emit("SHF", ("R", "S32", "HI"), [dv.hi], [RZ, Imm(0x1F), low])
        else:
            c.emit("MOV", (), [dv.hi], [RZ])
        return
    # 32-bit (or narrower) destination: sign/zero extend a narrow destination type
    if dt.size < 4 and dt.size < st.size:
        extend(c, low, 8 * dt.size, dt in (T.S8, T.S16), dv)
        return
    c.emit("MOV", (), [dv], [low])


def _int_range(t: PtxType) -> tuple[int, int]:
    bits = 8 * t.size
    if t in (T.S8, T.S16, T.S32, T.S64):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _saturate_int(c: LowerCtx, src: RegLike, dt: PtxType, st: PtxType, signed_src: bool) -> RegLike:
    """``cvt.sat`` between integer types: the source clamped to the destination's range (PTX:
    .sat limits the result to MININT..MAXINT of the destination), in the source's width. A
    narrow source is first extended with its own sign, so the clamp compares true values."""
    slo, shi = _int_range(st)
    dlo, dhi = _int_range(dt)
    lo = dlo if dlo > slo else None
    hi = dhi if dhi < shi else None
    if lo is None and hi is None:
        return src
    if st.size == 8:
        return _clamp64(c, src, lo, hi, signed_src)
    x: RegLike = extend(c, src, 8 * st.size, signed_src) if st.size < 4 else src
    mods = () if signed_src else ("U32",)
    # VIMNMX's predicate selects min (PT) or max (!PT)
    if lo is not None:
        y = c.new()
        c.emit("VIMNMX", mods, [y], [x, Imm(lo & 0xFFFFFFFF), Src(PT, inv=True)])
        x = y
    if hi is not None:
        y = c.new()
        c.emit("VIMNMX", mods, [y], [x, Imm(hi & 0xFFFFFFFF), PT])
        x = y
    return x


def _clamp64(c: LowerCtx, src: RegLike, lo: int | None, hi: int | None, signed: bool) -> RegLike:
    """A 64-bit value clamped to [lo, hi] (either bound may be absent): a 64-bit ISETP chain
    and a SEL of each half per bound."""
    x: RegLike = src
    for bound, cmp in ((lo, "LT"), (hi, "GT")):
        if bound is None:
            continue
        b = bound & 0xFFFFFFFFFFFFFFFF
        words = (Imm(b & 0xFFFFFFFF), Imm(b >> 32))
        p = c.new(RC.P)
        isetp64(c, cmp, (half(x, 0), half(x, 1)), words, not signed, (p, PT))
        y = c.new(width=2)
        for k in range(2):
            c.emit("SEL", (), [y.part(k)], [half(x, k), words[k], Src(p, inv=True)])
        x = y
    return x


RULES: list[Rule] = [
    Rule("add.f64", "add", types(T.F64), dop, "add.f64 %fd1, %fd2, %fd3;"),
    Rule("sub.f64", "sub", types(T.F64), dop, "sub.rn.f64 %fd1, %fd2, %fd3;"),
    Rule("mul.f64", "mul", types(T.F64), dop, "mul.f64 %fd1, %fd2, %fd3;"),
    Rule("fma.f64", "fma", types(T.F64), dop, "fma.rn.f64 %fd1, %fd2, %fd3, %fd4;"),
    Rule("add.f32", "add", types(T.F32), fadd, "add.f32 %f1, %f2, %f3;"),
    Rule("sub.f32", "sub", types(T.F32), fadd, "sub.ftz.f32 %f1, %f2, %f3;"),
    Rule("mul.f32", "mul", types(T.F32), fmul, "mul.rn.f32 %f1, %f2, 0f3F800000;"),
    Rule("fma.f32", "fma", types(T.F32), ffma, "fma.rn.f32 %f1, %f2, %f3, %f4;"),
    Rule("mad.f32", "mad", types(T.F32), ffma, "mad.rn.f32 %f1, %f2, %f3, %f4;"),
    Rule("neg.f64", "neg", types(T.F64), dneg_abs, "neg.f64 %fd1, %fd2;"),
    Rule("abs.f64", "abs", types(T.F64), dneg_abs, "abs.f64 %fd1, %fd2;"),
    Rule("neg.f32", "neg", types(T.F32), fneg_abs, "neg.f32 %f1, %f2;"),
    Rule("abs.f32", "abs", types(T.F32), fneg_abs, "abs.ftz.f32 %f1, %f2;"),
    Rule("min.f32", "min", types(T.F32), fminmax, "min.f32 %f1, %f2, %f3;"),
    Rule("max.f32", "max", types(T.F32), fminmax, "max.ftz.f32 %f1, %f2, %f3;"),
    Rule("setp.f32", "setp", types(T.F32), setp_f32, "setp.gtu.f32 %p1, %f1, %f2;"),
    Rule("setp.f64", "setp", types(T.F64), setp_f64, "setp.lt.f64 %p1, %fd1, %fd2;"),
    Rule("cvt", "cvt", always, cvt, "cvt.rn.f32.s32 %f1, %r1;"),
]

_ = (RC, has)
