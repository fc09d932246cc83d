"""cvt forms beyond lower/fp_rules.py's, and integer helpers, as ptxas 13.0 compiles them for
sm_90 (observed with scripts/fpmath_probe.py). Each rule here matches only the forms it
implements; everything else falls through to fp_rules' ``cvt``.

- ``cvt.<rnd>.ftz.f32.f64``: ``F2F.F32.F64[.rnd] d, a`` and a flush of a result that is
  subnormal in f32 (``FMUL d, d, 2^-126`` gives the signed zero): ``.rn`` when
  ``|a| < 0x380fffff_f0000000`` (DSETP.GEU), ``.rz`` when ``|d| < 2^-126`` (FSETP.GEU),
  ``.rm``/``.rp`` when ``k > |a|`` (DSETP.GT), ``k`` 0x380fffff_e0000000 for a negative source
  with .rm or a positive one with .rp, else 0x38100000_00000000 (two FSELs on the sign).
- integer -> f16, bf16 (every rounding), -> f64 (``.rz/.rm/.rp``; 8/16-bit sources with every
  rounding), 8/16-bit -> f32 with ``.rm/.rp``: ``I2F[.F16|.F64][.<int>][.rnd] d, a``.
- f16, bf16 -> every integer type, f64 -> 8/16-bit integers and ``.sat`` f64 -> integer:
  ``F2I[.<int>].F16|F64[.TRUNC|.FLOOR|.CEIL][.NTZ]`` (F2I saturates as PTX's cvt does).
- ``cvt.{rn,rz}[.relu][.satfinite].{f16,bf16}x2.f32 d, a, b``:
  ``F2FP[.SATFINITE][.RELU].F16|BF16.F32.PACK_AB[.RZ] d, a, b`` (a in the high half);
  the one-source ``.relu``/``.satfinite`` forms ``F2FP...MERGE_C d, a, RZ``.
- ``cvt.rn.satfinite[.relu].{e4m3,e5m2}x2.f32 d, a, b``: ``F2FP...PACK_AB_MERGE_C d, a, b, RZ``;
  ``.f16x2`` source: ``F2FP...F16.UNPACK_B_MERGE_C d, a, RZ``;
  ``cvt.rn[.relu].f16x2.{e4m3,e5m2}x2``: ``F2FP[.RELU].F16.E4M3|E5M2.UNPACK_B d, a``.
- ``cvt.rn|rz[.relu].tf32.f32``: ``F2FP[.RELU].TF32.F32.PACK_B[.RZ]``; ``cvt.rna[.satfinite]
  .tf32.f32``: add 0x1000 unless |a| is inf/NaN, clear the low 13 bits (and with .satfinite an
  infinity result steps back to the largest finite value).
- between f16, bf16 and f64: ``F2F.<dt>.<st>[.rnd]``; to the same type with ``.rni/.rzi/.rmi/
  .rpi``: ``FRND.F16|BF16|F64[.TRUNC|.FLOOR|.CEIL]``, without: a copy (f64) or the
  canonicalising ``HADD2 x, -0`` (f16) / ``HFMA2.BF16_V2 -0, 0, x`` (bf16).
- ``.sat`` to f16: the conversion, then ``HADD2.SAT d, d.H0_H0, -RZ.H0_H0`` (to f32 from
  f16/bf16: ``FADD.SAT``); ``.ftz`` between f16 and f32 has no effect (ptxas drops it).
- ``bmsk.clamp|wrap.b32``: ``BMSK[.W] d, a, b`` (a in a register).
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Guard, Imm, ImmKind, Operand, RegLike, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, Rounding

T = PtxType
MIN_NORMAL = Imm(0x00800000, ImmKind.F32)  # 2^-126
_RND = {Rounding.RZ: "RZ", Rounding.RM: "RM", Rounding.RP: "RP"}
_FP8 = {T.E4M3X2: "E4M3", T.E5M2X2: "E5M2"}


def _types(ins: ast.Instruction) -> tuple[PtxType, PtxType] | None:
    if ins.opcode != "cvt" or len(ins.types) != 2:
        return None
    return ins.types[0], ins.types[1]


def _is_ftz_f32_f64(ins: ast.Instruction) -> bool:
    return _types(ins) == (T.F32, T.F64) and ins.has("ftz")


def cvt_ftz_f32_f64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    x = c.rvalue(a, T.F64)
    assert isinstance(x, VReg)
    dv = c.dst(d)
    rnd = ins.rnd or Rounding.RN
    if rnd not in (Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP):
        raise c.unsupported(f"cvt.{rnd.value}.ftz.f32.f64")
    mods = (_RND[rnd],) if rnd in _RND else ()
    c.emit("F2F", ("F32", "F64", *mods), [dv], [x])
    if ins.has("sat"):  # clamped before the flush (ptxas: FADD.SAT, then the tests below)
        c.emit("FADD", ("SAT",), [dv], [RZ, dv])
    p = c.new(RC.P)
    if rnd is Rounding.RN:
        k = c.materialize(0x380FFFFFF0000000, T.F64)
        c.emit("DSETP", ("GEU", "AND"), [p, PT], [Src(x, abs=True), k, PT])
        c.emit("FMUL", (), [dv], [dv, MIN_NORMAL], guard=Guard(p, inv=True))
        return
    if rnd is Rounding.RZ:
        c.emit("FSETP", ("GEU", "AND"), [p, PT], [Src(dv, abs=True), MIN_NORMAL, PT])
        c.emit("FMUL", (), [dv], [dv, MIN_NORMAL], guard=Guard(p, inv=True))
        return
    # the threshold 0x38100000_00000000 or (one f32 half-ulp below) 0x380fffff_e0000000,
    # the lower one for negative sources with .rm and for positive ones with .rp
    neg = c.new(RC.P)
    sign = c.new()
    c.emit("SHF", ("R", "U32", "HI"), [sign], [RZ, Imm(0x1F), x.hi])
    c.emit("ISETP", ("NE", "AND"), [neg, PT], [sign, RZ, PT])
    low = Src(neg, inv=True) if rnd is Rounding.RP else neg
    k2 = c.new(RC.R, 2)
    c.emit("SEL", (), [k2.hi], [c.materialize(0x380FFFFF, T.U32), Imm(0x38100000), low])
    c.emit("SEL", (), [k2.lo], [c.materialize(0xE0000000, T.U32), RZ, low])
    c.emit("DSETP", ("GT", "AND"), [p, PT], [k2, Src(x, abs=True), PT])
    c.emit("FMUL", (), [dv], [dv, MIN_NORMAL], guard=Guard(p))


_INTS = {
    T.S8: "S8",
    T.U8: "U8",
    T.S16: "S16",
    T.U16: "U16",
    T.S32: "S32",
    T.U32: "U32",
    T.S64: "S64",
    T.U64: "U64",
}
_F2I_RND = {Rounding.RZI: "TRUNC", Rounding.RMI: "FLOOR", Rounding.RPI: "CEIL", Rounding.RNI: ""}


def _is_int_to_float(ins: ast.Instruction) -> bool:
    """int -> f16 (every rounding), int -> f64 (.rz/.rm/.rp; 8/16-bit sources every rounding),
    8/16-bit int -> f32 (.rm/.rp)."""
    ts = _types(ins)
    if ts is None or ts[1] not in _INTS or ins.has("ftz") or ins.has("sat"):
        return False
    dt, st = ts
    if ins.rnd not in (Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP):
        return False
    if dt in (T.F16, T.BF16):
        return True
    if dt is T.F64:
        return st.size < 4 or ins.rnd is not Rounding.RN
    return dt is T.F32 and st.size < 4 and ins.rnd in (Rounding.RM, Rounding.RP)


def cvt_int_to_float(ins: ast.Instruction, c: LowerCtx) -> None:
    """``I2F[.F16|.F64][.<int>][.RZ|.RM|.RP] d, a`` (``.S32`` and the F32 destination are the
    defaults the listing leaves out)."""
    d, a = ins.operands
    dt, st = ins.types[0], ins.types[1]
    kind = () if st is T.S32 else (_INTS[st],)
    rnd = (_RND[ins.rnd],) if ins.rnd in _RND else ()
    fmt = () if dt is T.F32 else (dt.value.upper(),)
    c.emit("I2F", (*fmt, *kind, *rnd), [c.dst(d)], [c.rvalue(a, st)])


def _is_float_to_int(ins: ast.Instruction) -> bool:
    """f16 -> every int, f64 -> 8/16-bit ints, and f64 -> int with .sat (F2I saturates: PTX's
    float-to-integer conversions clamp to the destination's range with or without .sat)."""
    ts = _types(ins)
    if ts is None or ts[0] not in _INTS or ins.has("ftz") or ins.rnd not in _F2I_RND:
        return False
    dt, st = ts
    if st in (T.F16, T.BF16):
        return True
    return st is T.F64 and (dt.size < 4 or ins.has("sat"))


def cvt_float_to_int(ins: ast.Instruction, c: LowerCtx) -> None:
    """``F2I[.<int>].F16|F64[.TRUNC|.FLOOR|.CEIL][.NTZ]`` (``.NTZ`` with an f16 source, as
    ptxas writes it)."""
    d, a = ins.operands
    dt, st = ins.types[0], ins.types[1]
    assert ins.rnd is not None
    kind = () if dt is T.S32 else (_INTS[dt],)
    r = _F2I_RND[ins.rnd]
    ntz = ("NTZ",) if st in (T.F16, T.BF16) else ()
    mods = (*kind, st.value.upper(), *((r,) if r else ()), *ntz)
    c.emit("F2I", mods, [c.dst(d)], [c.rvalue(a, st)])


_FLOAT3 = (T.F16, T.BF16, T.F64)
_FRND = {
    Rounding.RNI: (),
    Rounding.RZI: ("TRUNC",),
    Rounding.RMI: ("FLOOR",),
    Rounding.RPI: ("CEIL",),
}


def _is_float_float(ins: ast.Instruction) -> bool:
    """Between f16, bf16 and f64 (f32 ones are fp_rules'), and f16/bf16/f64 to themselves."""
    ts = _types(ins)
    if ts is None or ts[0] not in _FLOAT3 or ts[1] not in _FLOAT3:
        return False
    if any(ins.has(m) for m in ("ftz", "sat", "relu", "satfinite")):
        return False
    if ts[0] is ts[1]:
        return ins.rnd is None or ins.rnd in _FRND
    return ins.rnd in (None, Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP)


def cvt_float_float(ins: ast.Instruction, c: LowerCtx) -> None:
    """``F2F.<dt>.<st>[.RZ|.RM|.RP] d, a``; to the same type ``FRND.<t>[.TRUNC|.FLOOR|.CEIL]``
    with an integer rounding, else a copy (as ptxas)."""
    d, a = ins.operands
    dt, st = ins.types[0], ins.types[1]
    src = c.rvalue(a, st)
    dv = c.dst(d)
    if dt is st:
        if ins.rnd is None:
            if dt is T.F64:
                c.emit("MOV", (), [dv.lo], [src.part(0) if isinstance(src, VReg) else src])
                c.emit("MOV", (), [dv.hi], [src.part(1) if isinstance(src, VReg) else src])
            elif dt is T.F16:  # x + -0: a NaN becomes the canonical NaN
                x = Src(src, sel="H0_H0")
                c.emit("HADD2", (), [dv], [x, Src(RZ, neg=True, sel="H0_H0")])
            else:  # -0 * 0 + x
                x = Src(src, sel="H0_H0")
                zero = Src(RZ, sel="H0_H0")
                c.emit("HFMA2", ("BF16_V2",), [dv], [Src(RZ, neg=True, sel="H0_H0"), zero, x])
            return
        c.emit("FRND", (dt.value.upper(), *_FRND[ins.rnd]), [dv], [src])
        return
    rnd = (_RND[ins.rnd],) if ins.rnd in _RND else ()
    c.emit("F2F", (dt.value.upper(), st.value.upper(), *rnd), [dv], [src])


def _is_half_sat_ftz(ins: ast.Instruction) -> bool:
    """``.sat`` to f16 (from f32, f64 or an integer) and to f32 from f16/bf16, ``.ftz``
    between f16 and f32 (no effect: ptxas drops it)."""
    ts = _types(ins)
    if ts is None or any(ins.has(m) for m in ("relu", "satfinite")):
        return False
    dt, st = ts
    if ins.has("sat") and dt is T.F16 and st not in (T.F16, T.BF16):
        return True
    if ins.has("sat") and dt is T.F32 and st is T.F16 and not ins.has("ftz"):
        return True
    return ins.has("ftz") and not ins.has("sat") and {dt, st} == {T.F16, T.F32}


def cvt_half_sat_ftz(ins: ast.Instruction, c: LowerCtx) -> None:
    """The conversion without ``.sat``/``.ftz`` (by the rule table), then for ``.sat``
    ``HADD2.SAT d, d.H0_H0, -RZ.H0_H0`` (f16) or ``FADD.SAT d, RZ, d`` (f32): clamps to [0, 1],
    NaN -> 0, as ptxas at -O3 (at -O0 ptxas writes cvt.sat.f32.f16 as ``HADD2.F32.SAT``, which
    keeps the sign of -0: its two levels disagree there, and openptxas follows -O3)."""
    from dataclasses import replace

    from openptxas.lower import rule_table

    drop = {"sat", "ftz"}
    raw = tuple(m for m in ins.mods.raw if m not in drop)
    plain = replace(ins, mods=replace(ins.mods, raw=raw, flags=ins.mods.flags - drop))
    rule = rule_table().select(plain)
    if rule is None:
        raise c.unsupported(_form(ins))
    rule.emit(plain, c)
    if not ins.has("sat"):
        return
    dv = c.dst(ins.operands[0])
    if ins.types[0] is T.F32:
        c.emit("FADD", ("SAT",), [dv], [RZ, dv])
        return
    c.emit("HADD2", ("SAT",), [dv], [Src(dv, sel="H0_H0"), Src(RZ, neg=True, sel="H0_H0")])


def _form(ins: ast.Instruction) -> str:
    return "cvt." + ".".join(ins.mods.raw)


def _f2fp_mods(ins: ast.Instruction) -> tuple[str, ...]:
    return (
        *(("SATFINITE",) if ins.has("satfinite") else ()),
        *(("RELU",) if ins.has("relu") else ()),
    )


def _is_half_pack(ins: ast.Instruction) -> bool:
    ts = _types(ins)
    if ts is None or ts[1] is not T.F32 or ins.has("ftz") or ins.has("sat"):
        return False
    if ins.rnd not in (Rounding.RN, Rounding.RZ):
        return False
    if ts[0] in (T.F16X2, T.BF16X2):
        return len(ins.operands) == 3
    # one source: only the relu/satfinite forms (the plain ones are fp_rules' _cvt_half);
    # F2FP[.SATFINITE][.RELU].F16.F32.MERGE_C.RZ: scripts/isa_src/conversions.ptx, f2fp_rz
    return ts[0] in (T.F16, T.BF16) and (ins.has("relu") or ins.has("satfinite"))


def cvt_half_pack(ins: ast.Instruction, c: LowerCtx) -> None:
    dt = ins.types[0]
    kind = "BF16" if dt in (T.BF16, T.BF16X2) else "F16"
    rz = ("RZ",) if ins.rnd is Rounding.RZ else ()
    if len(ins.operands) == 3:
        d, a, b = ins.operands
        c.emit(
            "F2FP",
            (*_f2fp_mods(ins), kind, "F32", "PACK_AB", *rz),
            [c.dst(d)],
            [c.rvalue(a, T.F32), c.rvalue(b, T.F32)],
        )
        return
    d, a = ins.operands
    c.emit(
        "F2FP",
        (*_f2fp_mods(ins), kind, "F32", "MERGE_C", *rz),
        [c.dst(d)],
        [c.rvalue(a, T.F32), RZ],
    )


def _is_fp8(ins: ast.Instruction) -> bool:
    ts = _types(ins)
    if ts is None or ins.rnd is not Rounding.RN or ins.has("ftz") or ins.has("sat"):
        return False
    dt, st = ts
    if dt in _FP8 and ins.has("satfinite"):
        return (st is T.F32 and len(ins.operands) == 3) or (
            st is T.F16X2 and len(ins.operands) == 2
        )
    return dt is T.F16X2 and st in _FP8 and len(ins.operands) == 2 and not ins.has("satfinite")


def cvt_fp8(ins: ast.Instruction, c: LowerCtx) -> None:
    dt, st = ins.types[0], ins.types[1]
    mods = _f2fp_mods(ins)
    if dt is T.F16X2:
        d, a = ins.operands
        c.emit("F2FP", (*mods, "F16", _FP8[st], "UNPACK_B"), [c.dst(d)], [c.rvalue(a, st)])
        return
    if st is T.F32:
        d, a, b = ins.operands
        srcs: list[Operand] = [c.rvalue(a, T.F32), c.rvalue(b, T.F32), RZ]
        c.emit("F2FP", (*mods, _FP8[dt], "F32", "PACK_AB_MERGE_C"), [c.dst(d)], srcs)
        return
    d, a = ins.operands
    c.emit("F2FP", (*mods, _FP8[dt], "F16", "UNPACK_B_MERGE_C"), [c.dst(d)], [c.rvalue(a, st), RZ])


def _is_tf32(ins: ast.Instruction) -> bool:
    ts = _types(ins)
    if ts != (T.TF32, T.F32) or ins.has("ftz") or ins.has("sat") or len(ins.operands) != 2:
        return False
    if ins.rnd is Rounding.RNA:
        return not ins.has("relu")
    return ins.rnd in (Rounding.RN, Rounding.RZ) and not ins.has("satfinite")


def cvt_tf32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    x = c.rvalue(a, T.F32)
    dv = c.dst(d)
    if ins.rnd in (Rounding.RN, Rounding.RZ):
        rz = ("RZ",) if ins.rnd is Rounding.RZ else ()
        c.emit("F2FP", (*_f2fp_mods(ins), "TF32", "F32", "PACK_B", *rz), [dv], [x])
        return
    inf = Imm(0x7F800000, ImmKind.F32)
    p = c.new(RC.P)
    t: RegLike = c.new()
    c.emit("FSETP", ("GEU", "AND"), [p, PT], [Src(x, abs=True), inf, PT])
    c.emit("MOV", (), [t], [x])  # after the test: x dying here shares t's register
    c.emit("IADD3", (), [t], [t, Imm(0x1000), RZ], guard=Guard(p, inv=True))
    c.emit("LOP3", ("LUT",), [dv], [t, Imm(0xFFFFE000), RZ, Imm(0xC0), Src(PT, inv=True)])
    if ins.has("satfinite"):
        q = c.new(RC.P)
        c.emit("FSETP", ("GEU", "AND"), [q, PT], [Src(dv, abs=True), inf, PT])
        c.emit("IADD3", (), [dv], [dv, Imm(0xFFFFE000), RZ], guard=Guard(q))


def bmsk(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    mods = ("W",) if ins.has("wrap") else ()
    c.emit("BMSK", mods, [c.dst(d)], [c.rvalue(a, T.U32), c.value(b, T.U32)])


RULES: list[Rule] = [
    Rule(
        "cvt.half.sat.ftz",
        "cvt",
        _is_half_sat_ftz,
        cvt_half_sat_ftz,
        "cvt.rn.sat.f16.f32 %rs1, %f1;",
    ),
    Rule(
        "cvt.ftz.f32.f64", "cvt", _is_ftz_f32_f64, cvt_ftz_f32_f64, "cvt.rn.ftz.f32.f64 %f1, %fd1;"
    ),
    Rule("cvt.float.int", "cvt", _is_int_to_float, cvt_int_to_float, "cvt.rm.f16.u8 %rs1, %rs2;"),
    Rule("cvt.int.float", "cvt", _is_float_to_int, cvt_float_to_int, "cvt.rzi.s8.f16 %rs1, %rs2;"),
    Rule(
        "cvt.half.pack",
        "cvt",
        _is_half_pack,
        cvt_half_pack,
        "cvt.rn.relu.f16x2.f32 %r1, %f1, %f2;",
    ),
    Rule("cvt.float.float", "cvt", _is_float_float, cvt_float_float, "cvt.rn.f16.f64 %rs1, %fd1;"),
    Rule("cvt.fp8", "cvt", _is_fp8, cvt_fp8, "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;"),
    Rule("cvt.tf32", "cvt", _is_tf32, cvt_tf32, "cvt.rna.tf32.f32 %r1, %f1;"),
    Rule("bmsk", "bmsk", lambda ins: True, bmsk, "bmsk.clamp.b32 %r1, %r2, %r3;"),
]
