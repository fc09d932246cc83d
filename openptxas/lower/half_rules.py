"""f16, f16x2, bf16 and bf16x2 arithmetic, as ptxas 13.0 compiles it for sm_90 (observed with
scripts/fpmath_probe.py). A 16-bit value lives in the low half of a 32-bit register (its high
half is undefined); the scalar forms read ``.H0_H0`` of each source and write both halves.

- ``add``/``sub``/``mul``/``fma`` (``.rn``, ``.ftz``, ``.sat``, ``.relu``): ``HADD2`` (``-b``
  for sub), ``HMUL2``, ``HFMA2`` with ``.BF16_V2`` for bf16. ptxas places some on the MMA pipe
  (``HFMA2.MMA d, a, 1, 1, b`` for an add, ``HFMA2.MMA d, a, b, -RZ`` for a multiply): the same
  values, exactly (a*1 + b and a*b + -0 round once, like a + b and a*b).
- ``min``/``max`` (``.ftz``, ``.NaN``): ``HMNMX2[.NAN] d, a, b, PT`` (min) or ``!PT`` (max).
- ``neg``/``abs``: f16 ``HADD2[.FTZ] d, -a|abs(a), -RZ``; bf16
  ``HFMA2.BF16_V2 d, -RZ, RZ, -a|abs(a)`` (exact for every number and signed zero).
- ``setp``: ``HSETP2[.BF16_V2].<cmp>[.FTZ].<bop> p, q, a, b, r``; the x2 forms set one predicate
  per half (``setp.lt.f16x2 p|q``: p for the low half).
- ``set.<cmp>.f16x2.f16x2``: ``HSET2.BF`` (1.0 per half that compares true);
  ``set.<cmp>.u32.f16x2``: ``HSET2`` (0xffff per half).
"""

from __future__ import annotations

from openptxas.ir.core import PT, RZ, Operand, Src
from openptxas.lower.context import LowerCtx
from openptxas.lower.fp_rules import _FCMP
from openptxas.lower.rules import Rule, types
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType
HALF = (T.F16, T.F16X2, T.BF16, T.BF16X2)
SCALAR = (T.F16, T.BF16)
BF = (T.BF16, T.BF16X2)


def _src(c: LowerCtx, op: ast.Operand, t: PtxType, neg: bool = False, absv: bool = False) -> Src:
    r = c.rvalue(op, t)
    return Src(r, neg=neg, abs=absv, sel="H0_H0" if t in SCALAR else "")


def _kind(t: PtxType) -> tuple[str, ...]:
    return ("BF16_V2",) if t in BF else ()


def _mods(ins: ast.Instruction, *names: str) -> tuple[str, ...]:
    t = ins.type
    assert t is not None
    m = list(_kind(t))
    for n in names:
        if ins.has(n.lower()):
            m.append(n)
    return tuple(m)


def harith(ins: ast.Instruction, c: LowerCtx) -> None:
    t = ins.type
    assert t is not None
    if ins.rnd is not None and ins.rnd.value != "rn":
        raise c.unsupported(f"{ins.opcode}.{ins.rnd.value}.{t.value}")
    d, *srcs = ins.operands
    mods = _mods(ins, "FTZ", "OOB", "SAT", "RELU")  # HFMA2[.BF16_V2].OOB[.SAT|.RELU] as ptxas
    dv = c.dst(d)
    if ins.opcode in ("add", "sub"):
        a = _src(c, srcs[0], t)
        b = _src(c, srcs[1], t, neg=ins.opcode == "sub")
        out = c.emit("HADD2", mods, [dv], [a, b])
    elif ins.opcode == "mul":
        out = c.emit("HMUL2", mods, [dv], [_src(c, srcs[0], t), _src(c, srcs[1], t)])
    else:
        a, b, e = (_src(c, s, t) for s in srcs)
        c.emit("HFMA2", mods, [dv], [a, b, e])
        return
    out.contract = ins.rnd is None and not ins.has("sat")


def hminmax(ins: ast.Instruction, c: LowerCtx) -> None:
    t = ins.type
    assert t is not None
    d, a, b = ins.operands
    sel = PT if ins.opcode == "min" else Src(PT, inv=True)
    mods = _mods(ins, "FTZ")
    if ins.has("NaN"):
        mods = (*mods, "NAN")
    xs = ins.has("xorsign")  # HMNMX2[.NAN].XORSIGN d, |a|, |b| (as ptxas)
    if xs:
        mods = (*mods, "XORSIGN")
    c.emit("HMNMX2", mods, [c.dst(d)], [_src(c, a, t, absv=xs), _src(c, b, t, absv=xs), sel])


def hneg_abs(ins: ast.Instruction, c: LowerCtx) -> None:
    t = ins.type
    assert t is not None
    d, a = ins.operands
    neg = ins.opcode == "neg"
    x = _src(c, a, t, neg=neg, absv=not neg)
    zsel = "H0_H0"
    if t in BF:
        c.emit(
            "HFMA2",
            ("BF16_V2",),
            [c.dst(d)],
            [Src(RZ, neg=True, sel=zsel), Src(RZ, sel=zsel), x],
        )
        return
    c.emit("HADD2", _mods(ins, "FTZ"), [c.dst(d)], [x, Src(RZ, neg=True, sel=zsel)])


def hsetp(ins: ast.Instruction, c: LowerCtx) -> None:
    t = ins.type
    assert t is not None and ins.cmp is not None
    ops = ins.operands
    bop, q = "AND", PT
    qv: Operand = q
    if ins.boolop is not None and len(ops) == 4:
        bop, qv = ins.boolop.value.upper(), c.value(ops[3], T.PRED)
    d = ops[0]
    if isinstance(d, ast.Pair):
        p1: Operand = c.dst(d.first)
        p2: Operand = c.dst(d.second)
    else:
        if t not in SCALAR:
            raise c.unsupported(f"setp.{t.value} with one destination")
        p1, p2 = c.dst(d), PT
    mods = (*_kind(t), _FCMP[ins.cmp], *(("FTZ",) if ins.has("ftz") else ()), bop)
    c.emit("HSETP2", mods, [p1, p2], [_src(c, ops[1], t), _src(c, ops[2], t), qv])


def hset(ins: ast.Instruction, c: LowerCtx) -> None:
    dt, st = ins.types[0], ins.types[-1]
    assert ins.cmp is not None
    ops = ins.operands
    if st not in (T.F16X2, T.BF16X2) or dt not in (st, T.U32, T.S32, T.B32):
        raise c.unsupported(f"set.{dt.value}.{st.value}")
    bop, qv = "AND", PT
    qop: Operand = qv
    if ins.boolop is not None and len(ops) == 4:
        bop, qop = ins.boolop.value.upper(), c.value(ops[3], T.PRED)
    mods = (
        *_kind(st),
        *(("BF",) if dt is st else ()),
        _FCMP[ins.cmp],
        *(("FTZ",) if ins.has("ftz") else ()),
        bop,
    )
    c.emit("HSET2", mods, [c.dst(ops[0])], [_src(c, ops[1], st), _src(c, ops[2], st), qop])


def _half_set(ins: ast.Instruction) -> bool:
    return len(ins.types) == 2 and ins.types[1] in (T.F16X2, T.BF16X2)


RULES: list[Rule] = [
    Rule("add.half", "add", types(*HALF), harith, "add.rn.f16x2 %r1, %r2, %r3;"),
    Rule("sub.half", "sub", types(*HALF), harith, "sub.bf16 %rs1, %rs2, %rs3;"),
    Rule("mul.half", "mul", types(*HALF), harith, "mul.ftz.f16 %rs1, %rs2, %rs3;"),
    Rule("fma.half", "fma", types(*HALF), harith, "fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;"),
    Rule("min.half", "min", types(*HALF), hminmax, "min.NaN.f16x2 %r1, %r2, %r3;"),
    Rule("max.half", "max", types(*HALF), hminmax, "max.bf16 %rs1, %rs2, %rs3;"),
    Rule("neg.half", "neg", types(*HALF), hneg_abs, "neg.f16x2 %r1, %r2;"),
    Rule("abs.half", "abs", types(*HALF), hneg_abs, "abs.bf16 %rs1, %rs2;"),
    Rule("setp.half", "setp", types(*HALF), hsetp, "setp.lt.f16x2 %p1|%p2, %r1, %r2;"),
    Rule("set.half", "set", _half_set, hset, "set.lt.u32.f16x2 %r1, %r2, %r3;"),
]
