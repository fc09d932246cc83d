"""Integer helpers that share the conversion paths, as ptxas 13.0 compiles them for sm_90
(observed with scripts/fpmath_probe.py):

- ``mul24.lo``/``mad24.lo``: the low 24 bits of each factor (``PRMT x, 0x7210, RZ`` unsigned,
  ``SGXT x, 0x18`` signed), then ``IMAD``; ``.hi``: ``IMAD.WIDE[.U32]`` of those, bits 16..47 of
  the 48-bit product (``SHF.R.{S,U}32.HI`` of the low word by 16, ``PRMT .., 0x5410, hi``),
  plus ``c`` for mad24.
- ``add.cc``/``addc[.cc]``/``sub.cc``/``subc[.cc]`` (32/64-bit): ``IADD3`` / ``IADD3.X`` through one
  carry predicate (the PTX condition code ``CC.CF``, kept as the function's ``%%cc`` register;
  for a subtraction it is "no borrow", as ptxas's code keeps it); ``mad.cc``/``madc`` (32-bit):
  the product's word, then the same add.
- ``szext.clamp|wrap.{s32,u32}``: ``SGXT[.W][.U32] d, a, b``.
- ``add.sat.s32``/``sub.sat.s32`` (and the ``.satfinite`` s32 sums of the s4/u4 mma forms):
  the wrapped sum, clamped when the operands' signs make it overflow (ptxas: ``PLOP3`` on the
  ``.SIGN`` of the three and two ``SEL``; here ``LOP3``, ``ISETP``, ``SEL``). (Before, ``.sat``
  was dropped: a plain ``IADD3``.)
- ``cvt.pack.sat.{s16,u16}.s32 d, a, b``: ``I2IP.S16|U16.S32.SAT d, a, b, RZ``;
  ``cvt.pack.sat.{s8,u8}.s32.b32 d, a, b, c``: ``I2IP.S8|U8.S32.SAT d, a, b, c``.
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Imm, Operand, Part, Reg, RegLike, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import half
from openptxas.lower.rules import Rule, has, is_signed
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType
CC = "%%cc"  # not a PTX identifier: the carry flag's predicate in LowerCtx.regs


def _low24(c: LowerCtx, op: ast.Operand, signed: bool) -> Operand:
    v = c.value(op, T.U32)
    if isinstance(v, Imm):
        x = v.value & 0xFFFFFF
        if signed and x & 0x800000:
            x -= 1 << 24
        return Imm(x & 0xFFFFFFFF)
    r = c.new()
    if signed:
        c.emit("SGXT", (), [r], [v, Imm(0x18)])
    else:
        c.emit("PRMT", (), [r], [v, Imm(0x7210), RZ])
    return r


def mul24(ins: ast.Instruction, c: LowerCtx) -> None:
    signed = is_signed(ins.type)
    d, a, b, *rest = ins.operands
    x = _low24(c, a, signed)
    if isinstance(x, Imm):
        x = c.materialize(x.value, T.U32)
    y = _low24(c, b, signed)
    dv = c.dst(d)
    e: Operand = c.value(rest[0], T.U32) if rest else RZ
    if ins.has("lo"):
        c.emit("IMAD", (), [dv], [x, y, e])
        return
    w = c.new(RC.R, 2)
    c.emit("IMAD", ("WIDE",) if signed else ("WIDE", "U32"), [w], [x, y, RZ])
    t = c.new()
    c.emit("SHF", ("R", "S32" if signed else "U32", "HI"), [t], [RZ, Imm(0x10), w.lo])
    if not rest:
        c.emit("PRMT", (), [dv], [t, Imm(0x5410), w.hi])
        return
    h = c.new()
    c.emit("PRMT", (), [h], [t, Imm(0x5410), w.hi])
    if not ins.has("sat"):
        c.emit("IADD3", (), [dv], [h, e, RZ])
        return
    # mad24.hi.sat.s32: the sum saturates (ptxas: PLOP3 on the three signs, two SELs)
    s = c.new()
    c.emit("IADD3", (), [s], [h, e, RZ])
    pos, neg = c.new(RC.P), c.new(RC.P)
    for p, lut in ((pos, 0x02), (neg, 0x40)):  # +,+ -> - ; -,- -> +
        f = c.new()
        c.emit("LOP3", ("LUT",), [f], [h, e, s, Imm(lut), Src(PT, inv=True)])
        c.emit("ISETP", ("LT", "AND"), [p, PT], [f, RZ, PT])
    t2 = c.new()
    c.emit("SEL", (), [t2], [s, c.materialize(0x7FFFFFFF, T.U32), Src(pos, inv=True)])
    c.emit("SEL", (), [dv], [t2, c.materialize(0x80000000, T.U32), Src(neg, inv=True)])


def _carry_in(c: LowerCtx) -> VReg:
    p = c.regs.get(CC)
    if p is None:
        raise c.unsupported("addc/subc without a preceding .cc instruction")
    return p


def add_cc(ins: ast.Instruction, c: LowerCtx) -> None:
    """add.cc / addc / sub.cc / subc on 32- or 64-bit integers: one IADD3[.X] per word, the
    carry running from word to word and, with .cc, out of the last one."""
    d, a, b = ins.operands
    t = T.U64 if ins.type in (T.U64, T.S64, T.B64) else T.U32
    ra = c.rvalue(a, t)
    rb = c.value(b, t, allow_imm=t is T.U32)
    _add_words(ins, c, c.dst(d), ra, rb, t, ins.opcode in ("sub", "subc"))


def mad_cc(ins: ast.Instruction, c: LowerCtx) -> None:
    """mad{.lo,.hi}.cc / madc{.lo,.hi}[.cc] on 32-bit integers: the product's low or high word
    (``IMAD`` / ``IMAD.HI[.U32]``), then the add of c as add.cc/addc (ptxas fuses the two into
    ``IMAD.X`` or ``IMAD.HI.U32`` with a carry; the same value)."""
    d, a, b, e = ins.operands
    t = ins.type or T.U32
    if t in (T.U64, T.S64) and (ins.has("lo") or ins.has("hi")):
        _mad_cc64(ins, c)
        return
    if t not in (T.U32, T.S32, T.B32) or not (ins.has("lo") or ins.has("hi")):
        raise c.unsupported(f"{ins.opcode}.{'.'.join(ins.mods.raw)}")
    prod = c.new()
    hi = ("HI",) if is_signed(t) else ("HI", "U32")
    c.emit("IMAD", hi if ins.has("hi") else (), [prod], [c.rvalue(a, t), c.value(b, t), RZ])
    _add_words(ins, c, c.dst(d), prod, c.value(e, t), T.U32, False)


def _mad_cc64(ins: ast.Instruction, c: LowerCtx) -> None:
    """mad{.lo,.hi}.cc / madc on 64-bit integers: the product's 64-bit word as ``mul.lo`` /
    ``mul.hi`` lowers it (by the rule table), then the add of c word by word as add.cc/addc
    (ptxas computes the same sum and carry; for mad.hi.cc it also folds c into the high
    product for the value and adds again for the carry)."""
    from dataclasses import replace

    from openptxas.lower import rule_table
    from openptxas.ptx.modifiers import decode

    d, a, b, e = ins.operands
    t = ins.type
    assert t is not None
    name = "%%mad.prod"  # not a PTX identifier
    prod = c.new(RC.R, 2)
    c.regs[name] = prod
    mode = "hi" if ins.has("hi") else "lo"
    mul = replace(
        ins,
        opcode="mul",
        mods=decode("mul", (mode, t.value)),
        operands=(ast.Reg(name), a, b),
    )
    rule = rule_table().select(mul)
    if rule is None:
        raise c.unsupported(f"{ins.opcode}.{'.'.join(ins.mods.raw)}")
    rule.emit(mul, c)
    del c.regs[name]
    _add_words(ins, c, c.dst(d), prod, c.rvalue(e, T.U64), T.U64, False)


def _add_words(
    ins: ast.Instruction,
    c: LowerCtx,
    dv: VReg,
    ra: RegLike,
    rb: Operand,
    t: PtxType,
    sub: bool,
) -> None:
    words = 2 if t is T.U64 else 1
    carry: VReg | None = _carry_in(c) if ins.opcode in ("addc", "subc", "madc") else None
    for k in range(words):
        last = k == words - 1
        x = half(ra, k) if words == 2 else ra
        y: Operand = rb
        if words == 2 and isinstance(rb, VReg | Part | Reg):
            y = half(rb, k)
        if sub:
            if carry is None:
                y = Imm((-y.value) & 0xFFFFFFFF) if isinstance(y, Imm) else Src(y, neg=True)  # type: ignore[arg-type]
            else:
                y = Imm(~y.value & 0xFFFFFFFF) if isinstance(y, Imm) else Src(y, inv=True)  # type: ignore[arg-type]
        dsts: list[Operand] = [dv.part(k) if words == 2 else dv]
        cout = c.new(RC.P) if not last or ins.has("cc") else None
        if cout is not None:
            dsts.append(cout)
        if carry is None:
            c.emit("IADD3", (), dsts, [x, y, RZ])
        else:
            c.emit("IADD3", ("X",), dsts, [x, y, RZ, carry, Src(PT, inv=True)])
        carry = cout
    if ins.has("cc"):
        assert carry is not None
        c.regs[CC] = carry


def szext(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    mods = (*(("W",) if ins.has("wrap") else ()), *(("U32",) if ins.type is T.U32 else ()))
    c.emit("SGXT", mods, [c.dst(d)], [c.rvalue(a, T.U32), c.value(b, T.U32)])


def cvt_pack_sat(ins: ast.Instruction, c: LowerCtx) -> None:
    dt = ins.types[0]
    name = {T.S16: "S16", T.U16: "U16", T.S8: "S8", T.U8: "U8"}.get(dt)
    if name is None or ins.types[1] is not T.S32:
        raise c.unsupported("cvt.pack.sat." + ".".join(t.value for t in ins.types))
    d, a, b, *rest = ins.operands
    e: Operand = c.rvalue(rest[0], T.U32) if rest else RZ
    c.emit(
        "I2IP",
        (name, "S32", "SAT"),
        [c.dst(d)],
        [c.rvalue(a, T.S32), c.rvalue(b, T.S32), e],
    )


def _cc_form(ins: ast.Instruction) -> bool:
    return ins.has("cc") and ins.type in (T.U32, T.S32, T.B32, T.U64, T.S64, T.B64)


def saturating_add(c: LowerCtx, a: RegLike, b: RegLike, sub: bool = False) -> VReg:
    """``a + b`` (``sub``: ``a - b``) in s32 clamped to [INT_MIN, INT_MAX]: overflow when the
    sum's sign differs from ``a``'s and from ``b``'s (sub: ``a``'s and ``b``'s signs differ and
    the difference's is not ``a``'s); the clamp has the sign of ``a``."""
    s, x, m, v, out = (c.new() for _ in range(5))
    p = c.new(RC.P)
    c.emit("IADD3", (), [s], [a, Src(b, neg=True) if sub else b, RZ])
    # LUT over (s, a, b) = (0xF0, 0xCC, 0xAA): add (s ^ a) & (s ^ b); sub (a ^ b) & (a ^ s)
    c.emit("LOP3", ("LUT",), [x], [s, a, b, Imm(0x24 if sub else 0x18), Src(PT, inv=True)])
    c.emit("ISETP", ("LT", "AND"), [p, PT], [x, RZ, PT])
    c.emit("SHF", ("R", "S32", "HI"), [m], [RZ, Imm(31), a])
    c.emit("LOP3", ("LUT",), [v], [m, Imm(0x7FFFFFFF), RZ, Imm(0x3C), Src(PT, inv=True)])
    c.emit("SEL", (), [out], [v, s, p])
    return out


def _sat_s32(ins: ast.Instruction) -> bool:
    return ins.has("sat") and ins.type is T.S32


def add_sat(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    if ins.type is not T.S32:
        raise c.unsupported(f"instruction '{ins.name}'")
    r = saturating_add(c, c.rvalue(a, T.S32), c.rvalue(b, T.S32), ins.opcode == "sub")
    c.emit("MOV", (), [c.dst(d)], [r])


RULES: list[Rule] = [
    Rule("mul24", "mul24", has("lo"), mul24, "mul24.lo.s32 %r1, %r2, %r3;"),
    Rule("mul24.hi", "mul24", has("hi"), mul24, "mul24.hi.u32 %r1, %r2, %r3;"),
    Rule("mad24", "mad24", lambda ins: True, mul24, "mad24.hi.s32 %r1, %r2, %r3, %r4;"),
    Rule("add.cc", "add", _cc_form, add_cc, "add.cc.u32 %r1, %r2, %r3;"),
    Rule("sub.cc", "sub", _cc_form, add_cc, "sub.cc.s32 %r1, %r2, %r3;"),
    Rule("addc", "addc", lambda ins: True, add_cc, "addc.cc.u32 %r1, %r2, %r3;"),
    Rule("subc", "subc", lambda ins: True, add_cc, "subc.u32 %r1, %r2, %r3;"),
    Rule("mad.cc", "mad", has("cc"), mad_cc, "mad.lo.cc.u32 %r1, %r2, %r3, %r4;"),
    Rule("madc", "madc", lambda ins: True, mad_cc, "madc.hi.cc.u32 %r1, %r2, %r3, %r4;"),
    Rule("add.sat", "add", _sat_s32, add_sat, "add.sat.s32 %r1, %r2, %r3;"),
    Rule("sub.sat", "sub", _sat_s32, add_sat, "sub.sat.s32 %r1, %r2, -5;"),
    Rule("szext", "szext", lambda ins: True, szext, "szext.wrap.u32 %r1, %r2, %r3;"),
    Rule(
        "cvt.pack.sat", "cvt.pack", has("sat"), cvt_pack_sat, "cvt.pack.sat.u16.s32 %r1, %r2, %r3;"
    ),
]
