"""Forms of issue 19's Deliver list that scripts/fp_audit.py found ptxas 13.0 accepting for sm_90
and openptxas refusing, as ptxas compiles them (observed with scripts/fpmath_probe.py):

- modifiers ptxas accepts and ignores: ``.ftz`` of integer -> f32 conversions (``I2FP``/``I2F``
  as without it), of ``rcp.<rnd>.ftz.f64`` (the f64 sequence), ``.ftz`` with ``.sat`` of
  ``cvt.f32.f16``; a rounding of the exact widenings ``cvt.<rnd>.f32|f64.bf16``; no rounding of
  ``cvt.f16.bf16``/``cvt.bf16.f16`` (``F2F`` as ``.rn``).
- ``.ftz`` with bf16 and f32: ``F2F.FTZ.F32.BF16 d, a``, ``F2F.FTZ.BF16.F32[.RZ|.RM|.RP] d, a``.
- ``.sat`` of an f64 result: the conversion, then ``max.f64(0, d)`` and ``min.f64(d, 1)``
  (ptxas's ``DSETP.MAX``/``DSETP.MIN`` sequences, lower/fp_extras.dminmax_values).
- ``cvt.sat.f16.f16``: ``HADD2.SAT d, a.H0_H0, -RZ.H0_H0``; with ``.rni/.rzi/.rmi/.rpi``
  ``FRND.F16`` first.
- ``mad.<rnd>.f64``: ``DFMA`` (as ``fma``).
- ``slct[.ftz].<t>.f32 d, a, b, c``: ``[FADD.FTZ c, c, -RZ;] FSETP.GE p, c, RZ; SEL d, a, b, p``
  (ptxas's ``FSEL``); ``slct.<t>.s32``: ``ISETP.GE p, c, RZ``; 64-bit data: one SEL per word.
"""

from __future__ import annotations

from dataclasses import replace

from openptxas.ir.core import PT, RC, RZ, Imm, ImmKind, Src
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, Rounding

T = PtxType
_INTS = (T.S8, T.U8, T.S16, T.U16, T.S32, T.U32, T.S64, T.U64)
_FRND = {
    Rounding.RNI: (),
    Rounding.RZI: ("TRUNC",),
    Rounding.RMI: ("FLOOR",),
    Rounding.RPI: ("CEIL",),
}
_RND = {Rounding.RZ: ("RZ",), Rounding.RM: ("RM",), Rounding.RP: ("RP",), Rounding.RN: ()}


def _types(ins: ast.Instruction) -> tuple[PtxType, PtxType] | None:
    if ins.opcode != "cvt" or len(ins.types) != 2 or len(ins.operands) != 2:
        return None
    return ins.types[0], ins.types[1]


def _without(
    ins: ast.Instruction, drop: set[str], rnd: Rounding | bool | None = False
) -> ast.Instruction:
    """``ins`` without the modifiers ``drop`` (a rounding among them: ``rnd``, or none)."""
    raw = tuple(m for m in ins.mods.raw if m not in drop)
    mods = replace(ins.mods, raw=raw, flags=ins.mods.flags - drop)
    if rnd is not False:
        if isinstance(rnd, Rounding):
            raw = (rnd.value, *raw)
            mods = replace(mods, raw=raw)
        mods = replace(mods, rnd=rnd if isinstance(rnd, Rounding) else None)
    return replace(ins, mods=mods)


def _redispatch(plain: ast.Instruction, ins: ast.Instruction, c: LowerCtx) -> None:
    from openptxas.lower import rule_table

    rule = rule_table().select(plain)
    if rule is None or rule.emit is _emit_ignored:
        raise c.unsupported(ins.name)
    rule.emit(plain, c)


# -- modifiers ptxas ignores --------------------------------------------------------------------


def _ignored(ins: ast.Instruction) -> ast.Instruction | None:
    """The equivalent form without what ptxas ignores, or None."""
    if ins.opcode == "rcp" and ins.type is T.F64 and ins.has("ftz") and not ins.has("approx"):
        return _without(ins, {"ftz"})
    ts = _types(ins)
    if ts is None:
        return None
    dt, st = ts
    if dt is T.F32 and st in _INTS and ins.has("ftz"):
        return _without(ins, {"ftz"})
    if dt is T.F32 and st is T.F16 and ins.has("ftz") and ins.has("sat"):
        return _without(ins, {"ftz"})
    if dt in (T.F32, T.F64) and st is T.BF16 and not ins.has("ftz") and ins.rnd is not None:
        return _without(ins, {r.value for r in Rounding}, rnd=None)
    if {dt, st} == {T.F16, T.BF16} and ins.rnd is None:
        return _without(ins, set(), rnd=Rounding.RN)
    return None


def _is_ignored(ins: ast.Instruction) -> bool:
    return _ignored(ins) is not None


def _emit_ignored(ins: ast.Instruction, c: LowerCtx) -> None:
    plain = _ignored(ins)
    assert plain is not None
    _redispatch(plain, ins, c)


# -- bf16 with .ftz -----------------------------------------------------------------------------


def _is_bf16_ftz(ins: ast.Instruction) -> bool:
    ts = _types(ins)
    if ts is None or not ins.has("ftz") or any(ins.has(m) for m in ("sat", "relu", "satfinite")):
        return False
    if ts == (T.F32, T.BF16):
        return ins.rnd in (None, *_RND)
    return ts == (T.BF16, T.F32) and ins.rnd in _RND


def cvt_bf16_ftz(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    dt, st = ins.types
    rnd = _RND[ins.rnd] if dt is T.BF16 and ins.rnd is not None else ()
    c.emit("F2F", ("FTZ", dt.value.upper(), st.value.upper(), *rnd), [c.dst(d)], [c.rvalue(a, st)])


# -- .sat -----------------------------------------------------------------------------------------


def _is_sat_f64(ins: ast.Instruction) -> bool:
    ts = _types(ins)
    return ts is not None and ts[0] is T.F64 and ins.has("sat")


def cvt_sat_f64(ins: ast.Instruction, c: LowerCtx) -> None:
    from openptxas.lower.fp_extras import dminmax_values

    _redispatch(_without(ins, {"sat"}), ins, c)
    dv = c.dst(ins.operands[0])
    zero = c.materialize(0, T.F64)
    one = c.materialize(0x3FF0000000000000, T.F64)
    dminmax_values(c, "MAX", zero, dv, dv)
    dminmax_values(c, "MIN", dv, one, dv)


def _is_sat_f16_f16(ins: ast.Instruction) -> bool:
    return _types(ins) == (T.F16, T.F16) and ins.has("sat") and ins.rnd in (None, *_FRND)


def cvt_sat_f16_f16(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    dv = c.dst(d)
    src = c.rvalue(a, T.F16)
    if ins.rnd is not None:
        c.emit("FRND", ("F16", *_FRND[ins.rnd]), [dv], [src])
        src = dv
    c.emit("HADD2", ("SAT",), [dv], [Src(src, sel="H0_H0"), Src(RZ, neg=True, sel="H0_H0")])


# -- mad.f64, slct --------------------------------------------------------------------------------


def mad_f64(ins: ast.Instruction, c: LowerCtx) -> None:
    from openptxas.lower.fp_rules import dop

    dop(ins, c)


def slct(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b, cc = ins.operands
    dt, ct = ins.types
    p = c.new(RC.P)
    if ct is T.F32:
        x = c.rvalue(cc, T.F32)
        if ins.has("ftz"):  # FADD.FTZ x, -RZ flushes a subnormal c first (ptxas)
            y = c.new()
            c.emit("FADD", ("FTZ",), [y], [x, Src(RZ, neg=True)])
            x = y
        c.emit("FSETP", ("GE", "AND"), [p, PT], [x, RZ, PT])
    else:
        c.emit("ISETP", ("GE", "AND"), [p, PT], [c.rvalue(cc, T.S32), RZ, PT])
    dv = c.dst(d)
    if dt.size == 8:
        from openptxas.lower.int_rules import half

        wa, wb = c.rvalue(a, dt), c.rvalue(b, dt)
        for k in range(2):
            c.emit("SEL", (), [dv.part(k)], [half(wa, k), half(wb, k), p])
        return
    ra, rb = c.value(a, dt), c.value(b, dt)
    if isinstance(ra, Imm):
        ra = c.materialize(ra.value, dt)
    c.emit("SEL", (), [dv], [ra, rb, p])


RULES: list[Rule] = [
    Rule("fp_forms.ignored", "cvt", _is_ignored, _emit_ignored, "cvt.rn.ftz.f32.s32 %f1, %r1;"),
    Rule("fp_forms.rcp.ftz.f64", "rcp", _is_ignored, _emit_ignored, "rcp.rn.ftz.f64 %fd1, %fd2;"),
    Rule("fp_forms.bf16.ftz", "cvt", _is_bf16_ftz, cvt_bf16_ftz, "cvt.ftz.f32.bf16 %f1, %rs1;"),
    Rule("fp_forms.sat.f64", "cvt", _is_sat_f64, cvt_sat_f64, "cvt.sat.f64.f32 %fd1, %f1;"),
    Rule(
        "fp_forms.sat.f16", "cvt", _is_sat_f16_f16, cvt_sat_f16_f16, "cvt.sat.f16.f16 %rs1, %rs2;"
    ),
    Rule(
        "fp_forms.mad.f64",
        "mad",
        lambda ins: ins.type is T.F64,
        mad_f64,
        "mad.rn.f64 %fd1, %fd2, %fd3, %fd4;",
    ),
    Rule("fp_forms.slct", "slct", lambda ins: True, slct, "slct.f32.s32 %f1, %f2, %f3, %r1;"),
]
_ = ImmKind
