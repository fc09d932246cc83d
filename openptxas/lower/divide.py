"""32-bit integer division and remainder, as ptxas 13.0 computes them on sm_90.

The quotient comes from a float reciprocal refined in integer arithmetic::

    f  = I2F.U32.RP b                 (|b| for signed; rounded up)
    f  = MUFU.RCP f
    r  = F2I.FTZ.U32.TRUNC.NTZ (bits(f) + 0x0ffffffe)      ~ 2^32 / b, never too large
    r  = IMAD.HI.U32 r, -r*b, {0, r}                       one Newton step (64-bit C = r << 32)
    q  = IMAD.HI.U32 r, a, RZ;  rem = a - q*b
    two corrections: rem >= b -> rem -= b, q += 1

then the signs are applied and a zero divisor gives ``~b`` (0xffffffff), as ptxas's code does.
Division by a constant uses the same sequence with immediates (ptxas does too; nvcc usually has
already turned such divisions into multiplications).

64-bit division and remainder are calls of ptxas's shared subroutines (lower/div64.py).
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Guard, Imm, Operand, RegLike, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.div64 import emit_call
from openptxas.lower.int_rules import half
from openptxas.lower.rules import Rule, is_signed, types
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType
LUT_XOR, LUT_NOT_B = 0x3C, 0x33


def _divisor_key(b: Operand) -> tuple[object, ...] | None:
    if isinstance(b, Imm):
        return ("imm", b.value & 0xFFFFFFFF)
    if isinstance(b, VReg) and b.width == 1:
        return ("reg", b.id)
    return None


def _cached(c: LowerCtx, key: tuple[object, ...], b: Operand) -> tuple[VReg, Operand] | None:
    """The reciprocal (and divisor magnitude) an earlier division by ``b`` in this block left,
    when it still holds (``LowerCtx.recall``). ptxas computes one reciprocal per divisor
    (t1/loops_dynamic's four ``rem.u32 ..., %n`` of nvcc's unrolled loop: ours computed four,
    and LICM could hoist only the first within its register allowance)."""
    hit = c.recall(("recip", *key), (b,))
    if hit is None:
        return None
    r, mag = hit
    assert isinstance(r, VReg)
    return r, mag


def _reciprocal(c: LowerCtx, b: Operand) -> VReg:
    """``r ~ 2^32 / b`` (never too large), refined by one Newton step."""
    f = c.new()
    c.emit("I2F", ("U32", "RP"), [f], [b])
    c.emit("MUFU", ("RCP",), [f], [f])
    t = c.new()
    c.emit("IADD3", (), [t], [f, Imm(0x0FFFFFFE), RZ])
    pair = c.new(RC.R, 2)
    c.emit("MOV", (), [pair.lo], [RZ])
    c.emit("F2I", ("FTZ", "U32", "TRUNC", "NTZ"), [pair.hi], [t])
    m = c.new()
    if isinstance(b, Imm):
        c.emit("IMAD", (), [m], [pair.hi, Imm((-b.value) & 0xFFFFFFFF), RZ])
    else:
        nr = c.new()
        c.emit("IADD3", (), [nr], [RZ, Src(pair.hi, neg=True), RZ])
        c.emit("IMAD", (), [m], [nr, b, RZ])
    r = c.new()
    c.emit("IMAD", ("HI", "U32"), [r], [pair.hi, m, pair])
    return r


def _udivmod(c: LowerCtx, a: Operand, b: Operand, want_rem: bool, r: VReg) -> tuple[VReg, VReg]:
    """Unsigned (quotient, remainder) from the reciprocal ``r`` of ``b``, before the final
    corrections' second step is applied to the requested one; returns (q, rem) after one
    correction."""
    q = c.new()
    c.emit("IMAD", ("HI", "U32"), [q], [r, a, RZ])
    nq = c.new()
    c.emit("IADD3", (), [nq], [RZ, Src(q, neg=True), RZ])
    rem = c.new()
    c.emit("IMAD", (), [rem], [nq, b, a])
    p = c.new(RC.P)
    c.emit("ISETP", ("GE", "U32", "AND"), [p, PT], [rem, b, PT])
    neg_b: Operand = Imm((-b.value) & 0xFFFFFFFF) if isinstance(b, Imm) else Src(b, neg=True)  # type: ignore[arg-type]
    c.emit("IADD3", (), [rem], [rem, neg_b, RZ], guard=Guard(p))
    if not want_rem:
        c.emit("IADD3", (), [q], [q, Imm(1), RZ], guard=Guard(p))
    p2 = c.new(RC.P)
    c.emit("ISETP", ("GE", "U32", "AND"), [p2, PT], [rem, b, PT])
    if want_rem:
        c.emit("IADD3", (), [rem], [rem, neg_b, RZ], guard=Guard(p2))
    else:
        c.emit("IADD3", (), [q], [q, Imm(1), RZ], guard=Guard(p2))
    return q, rem


def _remember(
    c: LowerCtx, key: tuple[object, ...] | None, start: int, r: VReg, mag: Operand
) -> None:
    if key is not None:
        c.remember(("recip", *key), start, (r, mag))


def divrem32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a_op, b_op = ins.operands
    t = ins.type
    assert t is not None
    emit_divrem32(
        c, c.dst(d), c.rvalue(a_op, t), c.value(b_op, t), is_signed(t), ins.opcode == "rem"
    )


def emit_divrem32(
    c: LowerCtx, dv: VReg, a: RegLike, bval: Operand, signed: bool, want_rem: bool
) -> None:
    """``dv = a / b`` (or ``a % b``) on 32-bit values."""
    if isinstance(bval, Imm) and bval.value & 0xFFFFFFFF == 0:
        c.emit("MOV", (), [dv], [Imm(0xFFFFFFFF)])  # ptxas: x / 0 = ~0
        return
    divisor = _divisor_key(bval)
    key = None if divisor is None else ("s" if signed else "u", *divisor)
    hit = None if key is None else _cached(c, key, bval)
    if not signed:
        if hit is not None:
            r = hit[0]
        else:
            start = len(c.block.instrs) if c.block is not None else 0
            r = _reciprocal(c, bval)
            _remember(c, key, start, r, bval)
        q, rem = _udivmod(c, a, bval, want_rem, r)
        res = rem if want_rem else q
        if not isinstance(bval, Imm):
            z = c.new(RC.P)
            c.emit("ISETP", ("NE", "U32", "AND"), [z, PT], [bval, RZ, PT])
            c.emit(
                "LOP3",
                ("LUT",),
                [res],
                [RZ, bval, RZ, Imm(LUT_NOT_B), Src(PT, inv=True)],
                guard=Guard(z, inv=True),
            )
        c.emit("MOV", (), [dv], [res])
        return
    # signed: work on magnitudes, then fix the sign
    abs_a = c.new()
    c.emit("IABS", (), [abs_a], [a]).contract_fence = True  # as ptxas: passes/fma.py
    if hit is not None:
        r, abs_b = hit
    else:
        start = len(c.block.instrs) if c.block is not None else 0
        if isinstance(bval, Imm):
            bs = bval.value & 0xFFFFFFFF
            bs = bs - (1 << 32) if bs & 0x80000000 else bs
            abs_b = Imm(abs(bs) & 0xFFFFFFFF)
        else:
            ab = c.new()
            c.emit("IABS", (), [ab], [bval])
            abs_b = ab
        r = _reciprocal(c, abs_b)
        _remember(c, key, start, r, abs_b)
    q, rem = _udivmod(c, abs_a, abs_b, want_rem, r)
    pos = c.new(RC.P)
    if want_rem:
        c.emit("ISETP", ("GE", "AND"), [pos, PT], [a, RZ, PT])
        res = rem
    else:
        sgn = c.new()
        c.emit("LOP3", ("LUT",), [sgn], [a, bval, RZ, Imm(LUT_XOR), Src(PT, inv=True)])
        c.emit("ISETP", ("GE", "AND"), [pos, PT], [sgn, RZ, PT])
        res = q
    c.emit("IADD3", (), [res], [Src(res, neg=True), RZ, RZ], guard=Guard(pos, inv=True))
    if not isinstance(bval, Imm):
        z = c.new(RC.P)
        c.emit("ISETP", ("NE", "AND"), [z, PT], [bval, RZ, PT])
        c.emit(
            "LOP3",
            ("LUT",),
            [res],
            [RZ, bval, RZ, Imm(LUT_NOT_B), Src(PT, inv=True)],
            guard=Guard(z, inv=True),
        )
    c.emit("MOV", (), [dv], [res])


def divrem64(ins: ast.Instruction, c: LowerCtx) -> None:
    """``div/rem.{u64,s64}``: a call of the kernel's shared subroutine (lower/div64.py), with
    constant operands in registers; a predicated one branches around the call (lower_body
    leaves the guard to it)."""
    d, a_op, b_op = ins.operands
    t = ins.type
    assert t is not None

    def reg64(op: ast.Operand) -> VReg:
        v = c.rvalue(op, t)
        if isinstance(v, VReg) and v.width == 2:
            return v
        w = c.new(RC.R, 2)
        c.emit("MOV", (), [w.lo], [half(v, 0)])
        c.emit("MOV", (), [w.hi], [half(v, 1)])
        return w

    a, b = reg64(a_op), reg64(b_op)
    g = ins.guard
    guard = Guard(c.reg(g.reg), g.negated) if g is not None else None
    emit_call(c, f"{ins.opcode}.{'s64' if is_signed(t) else 'u64'}", a, b, c.dst(d), guard)


divrem64.own_guard = True  # type: ignore[attr-defined]


RULES: list[Rule] = [
    Rule("div.64", "div", types(T.S64, T.U64), divrem64, "div.s64 %rd1, %rd2, %rd3;"),
    Rule("rem.64", "rem", types(T.S64, T.U64), divrem64, "rem.u64 %rd1, %rd2, %rd3;"),
    Rule("div.32", "div", types(T.S32, T.U32), divrem32, "div.s32 %r1, %r2, %r3;"),
    Rule("rem.32", "rem", types(T.S32, T.U32), divrem32, "rem.u32 %r1, %r2, 7;"),
]
