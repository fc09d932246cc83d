"""``min``/``max`` on f64, ``set`` with f32/f64 sources and ``testp`` on f32 and f64.

``set.<cmp>[.bop].f32.f32`` is ``FSET.BF.<cmp>.<bop> d, a, b, q`` (1.0 or 0.0), as ptxas; the
other forms (``.ftz``, f64 sources, integer destinations) a ``FSETP``/``DSETP`` and a ``SEL``
of 0xffffffff (integer) or 1.0 (f32) and 0.

``testp`` on f32 and f64: integer compares of the magnitude's bits (the sign cleared with a
LOP3), as ptxas 13.0 computes them for sm_90 (``ISETP[.EX]`` chains; the exact compares ptxas
picks differ, the predicate is the same for every input: scripts/fpmath_diff.py).

- finite: ``|x| < inf``; infinite: ``|x| == inf``; number: ``|x| <= inf``; notanumber:
  ``|x| > inf``; normal: ``min_normal <= |x| < inf`` or ``|x| == 0`` (ptxas's code counts
  zeros as normal); subnormal: ``0 < |x| < min_normal`` (``|x|`` the bits of the magnitude,
  unsigned).
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Guard, Imm, Operand, RegLike, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.fp_rules import _FCMP
from openptxas.lower.int_rules import half, isetp64
from openptxas.lower.rules import Rule, types
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType
# (compare, bound, how it joins the compares before it): 'inf' and 'min' are the format's bit
# patterns of infinity and the smallest normal number
_TESTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "finite": (("LT", "inf", "AND"),),
    "infinite": (("EQ", "inf", "AND"),),
    "number": (("LE", "inf", "AND"),),
    "notanumber": (("GT", "inf", "AND"),),
    "normal": (("GE", "min", "AND"), ("LT", "inf", "AND"), ("EQ", "zero", "OR")),
    "subnormal": (("NE", "zero", "AND"), ("LT", "min", "AND")),
}


def testp(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    kind = next((k for k in _TESTS if ins.has(k)), None)
    if kind is None:
        raise c.unsupported(f"testp.{'.'.join(ins.mods.raw)}")
    x = c.rvalue(a, t)
    dv = c.dst(d)
    wide = t is T.F64
    bounds = (
        {"inf": 0x7FF0000000000000, "min": 0x0010000000000000, "zero": 0}
        if wide
        else {"inf": 0x7F800000, "min": 0x00800000, "zero": 0}
    )
    mag = c.new()
    top = half(x, 1) if wide else x
    c.emit("LOP3", ("LUT",), [mag], [top, Imm(0x7FFFFFFF), RZ, Imm(0xC0), Src(PT, inv=True)])
    q: Operand = PT
    tests = _TESTS[kind]
    for k, (cmp, name, bop) in enumerate(tests):
        b = bounds[name]
        p = dv if k == len(tests) - 1 else c.new(RC.P)
        if wide:
            words = (Imm(b & 0xFFFFFFFF), Imm(b >> 32))
            isetp64(c, cmp, (half(x, 0), mag), words, True, (p, PT), bop, q)
        else:
            c.emit("ISETP", (cmp, "U32", bop), [p, PT], [mag, Imm(b), q])
        q = p


def fset(ins: ast.Instruction, c: LowerCtx) -> None:
    dt, st = ins.types[0], ins.types[-1]
    assert ins.cmp is not None
    ops = ins.operands
    if dt not in (T.F32, T.U32, T.S32, T.B32):
        raise c.unsupported(f"set.{dt.value}.{st.value}")
    bop, q = "AND", PT
    qv: Operand = q
    if ins.boolop is not None and len(ops) == 4:
        bop, qv = ins.boolop.value.upper(), c.value(ops[3], T.PRED)
    ftz = ("FTZ",) if ins.has("ftz") and st is T.F32 else ()
    dv = c.dst(ops[0])
    a = c.rvalue(ops[1], st)
    cmp = _FCMP[ins.cmp]
    if st is T.F32 and dt is T.F32 and not ftz:
        c.emit("FSET", ("BF", cmp, bop), [dv], [a, c.value(ops[2], st), qv])
        return
    p = c.new(RC.P)
    if st is T.F64:
        c.emit("DSETP", (cmp, bop), [p, PT], [a, c.rvalue(ops[2], st), qv])
    else:
        c.emit("FSETP", (cmp, *ftz, bop), [p, PT], [a, c.value(ops[2], st), qv])
    one = Imm(0x3F800000 if dt is T.F32 else 0xFFFFFFFF)
    c.emit("SEL", (), [dv], [c.materialize(one.value, T.U32), RZ, p])


def dminmax(ins: ast.Instruction, c: LowerCtx) -> None:
    """min/max.f64 as ptxas: ``DSETP.MIN|MAX p, q, a, b`` (p: a is the result, q: a NaN is
    involved), each word selected by p, and with q the high word ``b.hi | 0x80000`` (the
    quieted NaN)."""
    d, a, b = ins.operands
    ra, rb = c.rvalue(a, T.F64), c.rvalue(b, T.F64)
    dminmax_values(c, "MIN" if ins.opcode == "min" else "MAX", ra, rb, c.dst(d))


def dminmax_values(c: LowerCtx, op: str, ra: RegLike, rb: RegLike, dv: Operand) -> None:
    """dminmax's sequence on values (``op`` MIN or MAX; dv may be ra or rb)."""
    assert isinstance(dv, VReg)
    p, q = c.new(RC.P), c.new(RC.P)
    c.emit("DSETP", (op, "AND"), [p, q], [ra, rb, PT])
    # the high word first, into a temporary: d may be a or b
    h = c.new()
    c.emit("SEL", (), [h], [half(ra, 1), half(rb, 1), p])
    c.emit(
        "LOP3",
        ("LUT",),
        [h],
        [half(rb, 1), Imm(0x80000), RZ, Imm(0xFC), Src(PT, inv=True)],
        guard=Guard(q),
    )
    c.emit("SEL", (), [dv.lo], [half(ra, 0), half(rb, 0), p])
    c.emit("MOV", (), [dv.hi], [h])


def _float_set(ins: ast.Instruction) -> bool:
    return len(ins.types) == 2 and ins.types[1] in (T.F32, T.F64)


RULES: list[Rule] = [
    Rule("min.f64", "min", types(T.F64), dminmax, "min.f64 %fd1, %fd2, %fd3;"),
    Rule("max.f64", "max", types(T.F64), dminmax, "max.f64 %fd1, %fd2, %fd3;"),
    Rule("set.float", "set", _float_set, fset, "set.lt.u32.f64 %r1, %fd1, %fd2;"),
    Rule("testp", "testp", types(T.F32, T.F64), testp, "testp.normal.f32 %p1, %f1;"),
]
