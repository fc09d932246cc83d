"""``set`` forms beyond lower/half_rules.py (x2 sources) and lower/fp_extras.py (f32/f64 sources
into u32/s32/f32), as ptxas 13.0 compiles them for sm_90 (observed with scripts/probe_fp19.py).

- scalar f16/bf16 sources (``set.<cmp>[.bop][.ftz].<d>.f16|bf16``): ``HSET2[.BF16_V2]`` on
  ``.H0_H0`` of both sources, so both halves hold the answer: into ``.f16``/``.bf16``
  ``HSET2.BF`` (1.0 or 0.0); into ``.u16/.s16`` ``HSET2`` (0xffff or 0); into ``.u32/.s32`` the
  same and ``PRMT d, d, 0x9910, RZ`` (the low half sign-extended, as ptxas; the high half
  already equals it).
- every other source into a f16/bf16 destination (``set.lt.f16.f32``, ``set.lt.bf16.f16``,
  ``set.eq.f16.s32`` ...), and integer sources into ``.u32/.s32/.f32``: the comparison as
  ``setp`` lowers it (by the rule table) and ``SEL d, one, RZ, p`` with one = 0xffffffff, 1.0f,
  or 1.0 of the half format. ptxas selects -1/0 and converts (``IABS``, ``I2F.F16``): the same
  value, in two instructions more.
"""

from __future__ import annotations

from dataclasses import replace

from openptxas.ir.core import PT, RC, RZ, Imm, Operand, Src
from openptxas.lower.context import LowerCtx
from openptxas.lower.fp_rules import _FCMP
from openptxas.lower.rules import Rule
from openptxas.ptx import ast
from openptxas.ptx.modifiers import decode
from openptxas.ptx.types import PtxType

T = PtxType
SCALAR_HALF = (T.F16, T.BF16)
INT_DST = (T.U16, T.S16, T.U32, T.S32, T.B16, T.B32)
# the value of "true" in each destination type
_ONE = {
    T.F16: 0x3C00,
    T.BF16: 0x3F80,
    T.F32: 0x3F800000,
    T.U32: 0xFFFFFFFF,
    T.S32: 0xFFFFFFFF,
    T.B32: 0xFFFFFFFF,
    T.U16: 0xFFFF,
    T.S16: 0xFFFF,
    T.B16: 0xFFFF,
}
_PRED = "%%set.p"  # not a PTX identifier: the compare's predicate in LowerCtx.regs


def _bool(ins: ast.Instruction, c: LowerCtx) -> tuple[str, Operand]:
    ops = ins.operands
    if ins.boolop is not None and len(ops) == 4:
        return ins.boolop.value.upper(), c.value(ops[3], T.PRED)
    return "AND", PT


def hset_scalar(ins: ast.Instruction, c: LowerCtx) -> None:
    """``set`` with a scalar f16/bf16 source into its own type or an integer."""
    dt, st = ins.types[0], ins.types[-1]
    assert ins.cmp is not None
    ops = ins.operands
    bop, q = _bool(ins, c)
    mods = (
        *(("BF16_V2",) if st is T.BF16 else ()),
        *(("BF",) if dt is st else ()),
        _FCMP[ins.cmp],
        *(("FTZ",) if ins.has("ftz") else ()),
        bop,
    )
    a = Src(c.rvalue(ops[1], st), sel="H0_H0")
    b = Src(c.rvalue(ops[2], st), sel="H0_H0")
    dv = c.dst(ops[0])
    if dt in (T.U32, T.S32, T.B32):
        h = c.new()
        c.emit("HSET2", mods, [h], [a, b, q])
        c.emit("PRMT", (), [dv], [h, Imm(0x9910), RZ])
        return
    c.emit("HSET2", mods, [dv], [a, b, q])


def set_by_setp(ins: ast.Instruction, c: LowerCtx) -> None:
    """``set`` as the ``setp`` of its source type into a predicate and a select of "true"."""
    from openptxas.lower import rule_table

    dt, st = ins.types[0], ins.types[-1]
    raw = list(ins.mods.raw)
    raw.remove(dt.value)  # the destination type (the first of the two)
    pname = _PRED
    p = c.new(RC.P)
    c.regs[pname] = p
    setp = replace(
        ins,
        opcode="setp",
        mods=decode("setp", tuple(raw)),
        operands=(ast.Reg(pname), *ins.operands[1:]),
    )
    rule = rule_table().select(setp)
    if rule is None:
        raise c.unsupported(f"set.{dt.value}.{st.value}")
    rule.emit(setp, c)
    del c.regs[pname]
    c.emit("SEL", (), [c.dst(ins.operands[0])], [c.materialize(_ONE[dt], T.U32), RZ, p])


def _scalar_half(ins: ast.Instruction) -> bool:
    if len(ins.types) != 2:
        return False
    dt, st = ins.types
    return st in SCALAR_HALF and (dt is st or dt in INT_DST)


def _other(ins: ast.Instruction) -> bool:
    """Into f16/bf16 from any other source; integer sources into u32/s32/f32."""
    if len(ins.types) != 2:
        return False
    dt, st = ins.types
    if st in (T.F16X2, T.BF16X2) or dt not in _ONE:
        return False
    if dt in SCALAR_HALF:
        return dt is not st
    return st not in (T.F32, T.F64, *SCALAR_HALF)


RULES: list[Rule] = [
    Rule("set.half.scalar", "set", _scalar_half, hset_scalar, "set.nan.u32.f16 %r1, %rs1, %rs2;"),
    Rule("set.by.setp", "set", _other, set_by_setp, "set.lt.u32.s32 %r1, %r2, %r3;"),
]
