"""Selection rules for integer, bitwise, compare/select and move instructions.

SASS forms follow ptxas 13.0.88's output for sm_90 (observed with scripts/probe_ptxas.py):
32-bit adds are IADD3 with RZ, 64-bit adds an IADD3/IADD3.X carry pair, multiplies IMAD forms,
shifts SHF, bit operations LOP3.LUT, min/max VIMNMX, compares ISETP (64-bit: a .U32 compare of the
low halves chained into an .EX compare of the high halves).
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Imm, Operand, Part, RegLike, Src, VReg
from openptxas.lower.context import LowerCtx, is_imm
from openptxas.lower.rules import (
    I64,
    S32,
    Rule,
    always,
    both,
    has,
    imm_at,
    is_signed,
    types,
)
from openptxas.ptx import ast
from openptxas.ptx.types import CmpOp, PtxType

T = PtxType

# LOP3 truth tables for a op b (inputs a=0xF0, b=0xCC, c=0xAA).
LUT_AND, LUT_OR, LUT_XOR = 0xC0, 0xFC, 0x3C
LUT_NOT_B = 0x33


def _ops(ins: ast.Instruction) -> tuple[ast.Operand, ...]:
    return ins.operands


def _t(ins: ast.Instruction) -> PtxType:
    assert ins.type is not None
    return ins.type


def lo(x: Operand) -> Operand:
    if isinstance(x, VReg) and x.width == 2:
        return x.lo
    if isinstance(x, Imm):
        return x
    return x


def half(x: RegLike, k: int) -> RegLike:
    if isinstance(x, VReg):
        return x.part(k)
    if isinstance(x, Part):
        return Part(x.v, x.k + k)
    return x


def add_low(c: LowerCtx, base: RegLike, x: Operand) -> VReg:
    """The 64-bit pair ``base`` plus the 32-bit ``x`` (zero-extended): IADD3 with a carry out,
    IADD3.X with it into the high word."""
    out = c.new(RC.R, 2)
    carry = c.new(RC.P)
    c.emit("IADD3", (), [out.lo, carry], [half(base, 0), x, RZ])
    c.emit("IADD3", ("X",), [out.hi], [half(base, 1), RZ, RZ, carry, Src(PT, inv=True)])
    return out


def neg(x: Operand) -> Operand:
    if isinstance(x, Imm):
        return Imm((-x.value) & 0xFFFFFFFF, x.kind)
    if isinstance(x, Src):
        return Src(x.x, not x.neg, x.abs, x.inv, x.sel)
    assert isinstance(x, VReg | Part)
    return Src(x, neg=True)


def inv(x: Operand) -> Operand:
    if isinstance(x, Imm):
        return Imm((~x.value) & 0xFFFFFFFF, x.kind)
    assert isinstance(x, VReg | Part)
    return Src(x, inv=True)


# ------------------------------------------------------------------------------------ emitters


def add32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = _ops(ins)
    t = _t(ins)
    ra = c.rvalue(a, t)
    vb = c.value(b, t)
    if ins.opcode == "sub":
        vb = neg(vb)
    c.emit("IADD3", (), [c.dst(d)], [ra, vb, RZ])


def add64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = _ops(ins)
    t = _t(ins)
    ra = c.rvalue(a, t)
    rb = c.rvalue(b, t)
    dv = c.dst(d)
    carry = c.new(RC.P)
    if ins.opcode == "sub":
        c.emit("IADD3", (), [dv.lo, carry], [half(ra, 0), Src(half(rb, 0), neg=True), RZ])
        c.emit(
            "IADD3",
            ("X",),
            [dv.hi],
            [half(ra, 1), Src(half(rb, 1), inv=True), RZ, carry, Src(PT, inv=True)],
        )
    else:
        c.emit("IADD3", (), [dv.lo, carry], [half(ra, 0), half(rb, 0), RZ])
        c.emit("IADD3", ("X",), [dv.hi], [half(ra, 1), half(rb, 1), RZ, carry, Src(PT, inv=True)])


def mul32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = _ops(ins)
    t = _t(ins)
    ra = c.rvalue(a, t)
    vb = c.value(b, t)
    if ins.has("hi"):
        mods = ("HI",) if is_signed(t) else ("HI", "U32")
        c.emit("IMAD", mods, [c.dst(d)], [ra, vb, RZ])
    elif ins.has("wide"):
        mods = ("WIDE",) if is_signed(t) else ("WIDE", "U32")
        c.emit("IMAD", mods, [c.dst(d)], [ra, vb, RZ])
    else:
        c.emit("IMAD", (), [c.dst(d)], [ra, vb, RZ])


def mad32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b, e = _ops(ins)
    t = _t(ins)
    ra = c.rvalue(a, t)
    vb = c.value(b, t)
    if ins.has("wide"):
        mods = ("WIDE",) if is_signed(t) else ("WIDE", "U32")
        wide_t = T.S64 if is_signed(t) else T.U64
        c.emit("IMAD", mods, [c.dst(d)], [ra, vb, c.rvalue(e, wide_t)])
    elif ins.has("hi"):
        # IMAD.HI's C is a 64-bit register pair added to the full product: the addend goes in
        # its high register, with a zero low register (as ptxas: "IMAD.HI.U32 R5, R7, R0, R4"
        # with R4 = 0, R5 = c)
        mods = ("HI",) if is_signed(t) else ("HI", "U32")
        addend = c.new(width=2)
        c.emit("MOV", (), [addend.lo], [RZ])
        c.emit("MOV", (), [addend.hi], [c.rvalue(e, t)])
        c.emit("IMAD", mods, [c.dst(d)], [ra, vb, addend])
    else:
        c.emit("IMAD", (), [c.dst(d)], [ra, vb, c.rvalue(e, t)])


def mul64_lo(ins: ast.Instruction, c: LowerCtx) -> None:
    """(a.hi*2^32 + a.lo) * (b.hi*2^32 + b.lo) mod 2^64 as ptxas computes it."""
    d, a, b = _ops(ins)[:3]
    t = _t(ins)
    if c.known_int(b, t) is None and c.known_int(a, t) is not None:
        a, b = b, a
    bits = c.known_int(b, t)
    if bits is not None:
        _mul64_const(ins, c, c.rvalue(a, t), bits)
        return
    ra, rb = c.rvalue(a, t), c.rvalue(b, t)
    dv = c.dst(d)
    cross = c.new()
    c.emit("IMAD", (), [cross], [half(ra, 1), half(rb, 0), RZ])
    wide = c.new(RC.R, 2)
    if ins.opcode == "mad":
        c.emit(
            "IMAD", ("WIDE", "U32"), [wide], [half(ra, 0), half(rb, 0), c.rvalue(_ops(ins)[3], t)]
        )
    else:
        c.emit("IMAD", ("WIDE", "U32"), [wide], [half(ra, 0), half(rb, 0), RZ])
    cross2 = c.new()
    c.emit("IMAD", (), [cross2], [half(ra, 0), half(rb, 1), cross])
    c.emit("IADD3", (), [dv.hi], [wide.hi, cross2, RZ])
    c.emit("MOV", (), [dv.lo], [wide.lo])


def _mul64_const(ins: ast.Instruction, c: LowerCtx, ra: RegLike, bits: int) -> None:
    """a * b mod 2^64 for a constant b, its words as immediates (ptxas: ``IMAD.WIDE.U32 R22,
    R22, 0x3, R22`` then ``IADD3 R23, R3, R23, RZ``): the low product (plus a mad's addend)
    written to the result pair, then its high word plus a.hi * b.lo and a.lo * b.hi, a word
    of 1 or all ones a plain addition or subtraction, a word of 0 nothing (b.lo = 0: a shift
    or multiply of a.lo alone)."""
    d = _ops(ins)[0]
    t = _t(ins)
    blo, bhi = bits & 0xFFFFFFFF, (bits >> 32) & 0xFFFFFFFF
    dv = c.dst(d)
    mad = c.rvalue(_ops(ins)[3], t) if ins.opcode == "mad" else None
    alo, ahi = half(ra, 0), half(ra, 1)
    terms: list[Operand] = []  # added to the high word
    prods: list[tuple[Operand, int]] = []  # (word, multiplier) added to it
    for x, k in ((ahi, blo), (alo, bhi)):
        if k == 1:
            terms.append(x)
        elif k == 0xFFFFFFFF:
            terms.append(Src(x, neg=True))
        elif k:
            prods.append((x, k))
    if blo == 0 and mad is None:
        # only a.lo * b.hi reaches the high word
        if prods:
            c.emit("IMAD", (), [dv.hi], [prods[0][0], Imm(prods[0][1]), RZ])
        elif terms:
            c.emit("IADD3", (), [dv.hi], [terms[0], RZ, RZ])
        else:
            c.emit("MOV", (), [dv.hi], [RZ])
        c.emit("MOV", (), [dv.lo], [RZ])
        return
    if any(
        (x.v if isinstance(x, Part) else x) == dv for x in (ra, mad) if isinstance(x, VReg | Part)
    ):
        # the result overwrites a source (x = x * 3 + 1): what reads it comes first
        acc: Operand = RZ
        for w, k in prods:
            nxt = c.new()
            c.emit("IMAD", (), [nxt], [w, Imm(k), acc])
            acc = nxt
        if terms:
            nxt = c.new()
            c.emit("IADD3", (), [nxt], [acc, *terms, *([RZ] * (2 - len(terms)))])
            acc = nxt
        c.emit("IMAD", ("WIDE", "U32"), [dv], [alo, _imm(blo), mad if mad is not None else RZ])
        if acc != RZ:
            c.emit("IADD3", (), [dv.hi], [dv.hi, acc, RZ])
        return
    c.emit("IMAD", ("WIDE", "U32"), [dv], [alo, _imm(blo), mad if mad is not None else RZ])
    acc = dv.hi
    for n, (w, k) in enumerate(prods):
        last: VReg | Part = dv.hi if n == len(prods) - 1 and not terms else c.new()
        c.emit("IMAD", (), [last], [w, Imm(k), acc])
        acc = last
    if terms:
        c.emit("IADD3", (), [dv.hi], [acc, *terms, *([RZ] * (2 - len(terms)))])


def _imm(v: int) -> Operand:
    return Imm(v) if v else RZ


def shift32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = _ops(ins)
    t = _t(ins)
    ra = c.rvalue(a, t)
    vb = c.value(b, T.U32)
    if isinstance(vb, Imm):
        vb = Imm(min(vb.value, 32))
    if ins.opcode == "shl":
        c.emit("SHF", ("L", "U32"), [c.dst(d)], [ra, vb, RZ])
    elif is_signed(t):
        c.emit("SHF", ("R", "S32", "HI"), [c.dst(d)], [RZ, vb, ra])
    else:
        c.emit("SHF", ("R", "U32", "HI"), [c.dst(d)], [RZ, vb, ra])


def shift64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = _ops(ins)
    t = _t(ins)
    ra = c.rvalue(a, t)
    vb = c.value(b, T.U32)
    if isinstance(vb, Imm):
        vb = Imm(min(vb.value, 64))
    dv = c.dst(d)
    alo, ahi = half(ra, 0), half(ra, 1)
    if isinstance(vb, Imm) and vb.value >= 32:
        # the whole result comes from one word: a 32-bit shift (a move at exactly 32)
        k = vb.value - 32
        if ins.opcode == "shl":
            _shift_word(c, dv.hi, ("L", "U32"), [alo, Imm(k), RZ], alo, k)
            c.emit("MOV", (), [dv.lo], [RZ])
        elif is_signed(t):
            _shift_word(c, dv.lo, ("R", "S32", "HI"), [RZ, Imm(min(k, 31)), ahi], ahi, k)
            c.emit("SHF", ("R", "S32", "HI"), [dv.hi], [RZ, Imm(31), ahi])
        else:
            _shift_word(c, dv.lo, ("R", "U32", "HI"), [RZ, Imm(k), ahi], ahi, k)
            c.emit("MOV", (), [dv.hi], [RZ])
        return
    if ins.opcode == "shl":
        c.emit("SHF", ("L", "U64", "HI"), [dv.hi], [alo, vb, ahi])
        c.emit("SHF", ("L", "U32"), [dv.lo], [alo, vb, RZ])
    elif is_signed(t):
        c.emit("SHF", ("R", "S64"), [dv.lo], [alo, vb, ahi])
        c.emit("SHF", ("R", "S32", "HI"), [dv.hi], [RZ, vb, ahi])
    else:
        c.emit("SHF", ("R", "U64"), [dv.lo], [alo, vb, ahi])
        c.emit("SHF", ("R", "U32", "HI"), [dv.hi], [RZ, vb, ahi])


def _shift_word(
    c: LowerCtx, d: Operand, mods: tuple[str, ...], srcs: list[Operand], x: Operand, k: int
) -> None:
    if k == 0:
        c.emit("MOV", (), [d], [x])
    else:
        c.emit("SHF", mods, [d], srcs)


def logic(ins: ast.Instruction, c: LowerCtx) -> None:
    t = _t(ins)
    if t is T.PRED:
        return logic_pred(ins, c)
    d, a, b = _ops(ins)
    lut = {"and": LUT_AND, "or": LUT_OR, "xor": LUT_XOR}[ins.opcode]
    w = 2 if t in I64 else 1
    dv = c.dst(d)
    if w == 1:
        c.emit(
            "LOP3", ("LUT",), [dv], [c.rvalue(a, t), c.value(b, t), RZ, Imm(lut), Src(PT, inv=True)]
        )
        return
    ra, rb = c.rvalue(a, t), c.rvalue(b, t)
    for k in range(2):
        c.emit(
            "LOP3",
            ("LUT",),
            [dv.part(k)],
            [half(ra, k), half(rb, k), RZ, Imm(lut), Src(PT, inv=True)],
        )


def not_(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = _ops(ins)
    t = _t(ins)
    if t is T.PRED:
        c.emit("PLOP3", ("LUT",), [c.dst(d), PT], [c.rvalue(a, t), PT, PT, Imm(0x0F), Imm(0)])
        return
    dv = c.dst(d)
    ra = c.rvalue(a, t)
    for k in range(2 if t in I64 else 1):
        c.emit(
            "LOP3",
            ("LUT",),
            [dv.part(k) if t in I64 else dv],
            [RZ, half(ra, k) if t in I64 else ra, RZ, Imm(LUT_NOT_B), Src(PT, inv=True)],
        )


def cnot(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cnot``: 1 when the source is zero, else 0 (16-bit sources compare their low half)."""
    d, a = _ops(ins)
    t = _t(ins)
    dv = c.dst(d)
    ra = c.rvalue(a, t)
    p = c.new(RC.P)
    if t in I64:
        isetp64(c, "EQ", (half(ra, 0), half(ra, 1)), (RZ, RZ), True, (p, PT))
        c.emit("SEL", (), [dv.lo], [RZ, Imm(1), Src(p, inv=True)])
        c.emit("MOV", (), [dv.hi], [RZ])
        return
    x = extend(c, ra, 16, signed=False) if t.size == 2 else ra
    c.emit("ISETP", ("EQ", "U32", "AND"), [p, PT], [x, RZ, PT])
    c.emit("SEL", (), [dv], [RZ, Imm(1), Src(p, inv=True)])


def logic_pred(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = _ops(ins)
    # PLOP3.LUT d, PT, a, b, PT, lut, 0 : lut over (a=0xF0, b=0xCC, c=0xAA)
    lut = {"and": LUT_AND, "or": LUT_OR, "xor": LUT_XOR}[ins.opcode]
    c.emit(
        "PLOP3",
        ("LUT",),
        [c.dst(d), PT],
        [c.value(a, T.PRED), c.value(b, T.PRED), PT, Imm(lut), Imm(0)],
    )


def minmax32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = _ops(ins)
    t = _t(ins)
    mods = () if is_signed(t) else ("U32",)
    sel = PT if ins.opcode == "min" else Src(PT, inv=True)
    c.emit("VIMNMX", mods, [c.dst(d)], [c.rvalue(a, t), c.value(b, t), sel])


def abs32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = _ops(ins)
    c.emit("IABS", (), [c.dst(d)], [c.rvalue(a, _t(ins))])


def neg32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = _ops(ins)
    c.emit("IADD3", (), [c.dst(d)], [Src(c.rvalue(a, _t(ins)), neg=True), RZ, RZ])


def neg64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = _ops(ins)
    t = _t(ins)
    ra = c.rvalue(a, t)
    dv = c.dst(d)
    carry = c.new(RC.P)
    c.emit("IADD3", (), [dv.lo, carry], [RZ, Src(half(ra, 0), neg=True), RZ])
    c.emit("IADD3", ("X",), [dv.hi], [RZ, Src(half(ra, 1), inv=True), RZ, carry, Src(PT, inv=True)])


def isetp64(
    c: LowerCtx,
    cmp: str,
    a: tuple[Operand, Operand],
    b: tuple[Operand, Operand],
    unsigned: bool,
    dsts: tuple[Operand, Operand] = (PT, PT),
    bop: str = "AND",
    q: Operand = PT,
) -> None:
    """A 64-bit comparison of word pairs (low, high) into ``dsts``: an unsigned compare of the
    low words feeds the ``.EX`` compare of the high words (signed unless ``unsigned``)."""
    chain = c.new(RC.P)
    c.emit("ISETP", (cmp, "U32", "AND"), [chain, PT], [a[0], b[0], PT])
    mods: tuple[str, ...] = (cmp, "U32", bop, "EX") if unsigned else (cmp, bop, "EX")
    c.emit("ISETP", mods, list(dsts), [a[1], b[1], q, chain])


def extend(c: LowerCtx, x: Operand, bits: int, signed: bool, dst: VReg | None = None) -> VReg:
    """The low ``bits`` of ``x`` sign- (SGXT) or zero-extended (LOP3 mask) to 32 bits, into
    ``dst`` or a new register."""
    r = dst if dst is not None else c.new()
    if signed:
        c.emit("SGXT", (), [r], [x, Imm(bits)])
    else:
        c.emit("LOP3", ("LUT",), [r], [x, Imm((1 << bits) - 1), RZ, Imm(0xC0), Src(PT, inv=True)])
    return r


_CMP = {
    CmpOp.EQ: "EQ",
    CmpOp.NE: "NE",
    CmpOp.LT: "LT",
    CmpOp.LE: "LE",
    CmpOp.GT: "GT",
    CmpOp.GE: "GE",
    CmpOp.LO: "LT",
    CmpOp.LS: "LE",
    CmpOp.HI: "GT",
    CmpOp.HS: "GE",
}
_UNSIGNED_CMP = {CmpOp.LO, CmpOp.LS, CmpOp.HI, CmpOp.HS}


def _combine(ins: ast.Instruction, c: LowerCtx) -> tuple[str, Operand]:
    """The boolean combination of setp (``.and %q``) as (ISETP op, predicate operand)."""
    ops = ins.operands
    if ins.boolop is not None and len(ops) == 4:
        return ins.boolop.value.upper(), c.value(ops[3], T.PRED)
    return "AND", PT


def _setp_dsts(ins: ast.Instruction, c: LowerCtx) -> tuple[Operand, Operand]:
    d = ins.operands[0]
    if isinstance(d, ast.Pair):
        return c.dst(d.first) if not isinstance(d.first, ast.Sink) else PT, c.dst(d.second)
    return c.dst(d), PT


def setp_int(ins: ast.Instruction, c: LowerCtx) -> None:
    t = _t(ins)
    assert ins.cmp is not None
    cmp = _CMP[ins.cmp]
    unsigned = not is_signed(t) or ins.cmp in _UNSIGNED_CMP or cmp in ("EQ", "NE")
    a, b = ins.operands[1], ins.operands[2]
    bop, q = _combine(ins, c)
    p1, p2 = _setp_dsts(ins, c)
    if t in I64:
        ra, rb = c.rvalue(a, t), c.rvalue(b, t)
        words = ((half(ra, 0), half(ra, 1)), (half(rb, 0), half(rb, 1)))
        isetp64(c, cmp, *words, unsigned, (p1, p2), bop, q)
        return
    mods: tuple[str, ...] = (cmp, "U32", bop) if unsigned else (cmp, bop)
    c.emit("ISETP", mods, [p1, p2], [c.rvalue(a, t), c.value(b, t), q])


def selp(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b, p = ins.operands
    t = _t(ins)
    pv = c.value(p, T.PRED)
    dv = c.dst(d)
    if t in I64 or t is T.F64:
        ra, rb = c.rvalue(a, t), c.rvalue(b, t)
        for k in range(2):
            c.emit("SEL", (), [dv.part(k)], [half(ra, k), half(rb, k), pv])
        return
    c.emit("SEL", (), [dv], [c.rvalue(a, t), c.value(b, t), pv])


def mov_vector(ins: ast.Instruction, c: LowerCtx) -> None:
    """Packing and unpacking: ``mov.b64 {lo, hi}, %rd`` / ``mov.b64 %rd, {lo, hi}`` and the
    16-bit halves of a 32-bit register (``mov.b32 {%rs1, %rs2}, %r``)."""
    d, a = ins.operands
    t = _t(ins)
    if isinstance(d, ast.Vector):
        src = c.rvalue(a, t)
        n = len(d.items)
        if t in I64 and n == 2:
            for k, it in enumerate(d.items):
                if not isinstance(it, ast.Sink):
                    c.emit("MOV", (), [c.dst(it)], [half(src, k)])
            return
        if t in S32 and n == 2:
            for k, it in enumerate(d.items):
                if isinstance(it, ast.Sink):
                    continue
                # halfword k, zero-extended: PRMT d, src, 0x5410 / 0x7632 picks bytes
                sel = 0x0010 if k == 0 else 0x0032
                c.emit("PRMT", (), [c.dst(it)], [src, Imm(sel | 0x4400), RZ])
            return
        if t in I64 and n == 4:  # mov.b64 {%h0, %h1, %h2, %h3}, %rd: halfwords of each word
            for k, it in enumerate(d.items):
                if not isinstance(it, ast.Sink):
                    sel = 0x0010 if k % 2 == 0 else 0x0032
                    c.emit("PRMT", (), [c.dst(it)], [half(src, k // 2), Imm(sel | 0x4400), RZ])
            return
        raise c.unsupported(f"unpacking {ins.name} into {n} parts")
    assert isinstance(a, ast.Vector)
    dv = c.dst(d)
    n = len(a.items)
    if t in I64 and n == 2:
        for k, it in enumerate(a.items):
            c.emit("MOV", (), [dv.part(k)], [c.value(it, T.B32)])
        return
    if t in S32 and n == 2:
        lo = c.rvalue(a.items[0], T.B16)
        hi = c.rvalue(a.items[1], T.B16)
        c.emit("PRMT", (), [dv], [lo, Imm(0x5410), hi])
        return
    if t in I64 and n == 4:  # mov.b64 %rd, {%h0, %h1, %h2, %h3}: PRMT 0x5410 per word (ptxas)
        for k in range(2):
            lo = c.rvalue(a.items[2 * k], T.B16)
            hi = c.rvalue(a.items[2 * k + 1], T.B16)
            c.emit("PRMT", (), [dv.part(k)], [lo, Imm(0x5410), hi])
        return
    raise c.unsupported(f"packing {n} parts with {ins.name}")


def mov(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = _t(ins)
    if isinstance(d, ast.Vector) or isinstance(a, ast.Vector):
        return mov_vector(ins, c)
    if isinstance(a, ast.SpecialReg) and t is not T.PRED:
        v = c.special(a)
        dv = c.dst(d)
        for k in range(min(v.width, dv.width)):
            c.emit(
                "MOV", (), [dv.part(k) if dv.width > 1 else dv], [v.part(k) if v.width > 1 else v]
            )
        for k in range(v.width, dv.width):
            c.emit("MOV", (), [dv.part(k)], [RZ])
        return
    if isinstance(a, ast.Sym) and a.name == "WARP_SZ":
        c.emit("MOV", (), [c.dst(d)], [Imm(32)])
        return
    if isinstance(a, ast.Sym):
        dv = c.dst(d)
        if a.name in c.shared:
            lo = dv.lo if dv.width == 2 else dv
            c.shared_addr(lo, c.shared[a.name] + a.offset, a.name)
            if dv.width == 2:
                c.emit("MOV", (), [dv.hi], [RZ])
            return
        if a.name in c.locals:
            from openptxas.lower.local_rules import local_sym_addr

            local_sym_addr(c, dv, a.name, a.offset)
            return
        if a.name in c.params:
            from openptxas.lower.calls import kernel_param_addr

            kernel_param_addr(c, dv, a.name, a.offset)
            return
        if a.name in c.consts and dv.width == 2 and c.relocatable:
            from openptxas.lower.reldata import const_address

            const_address(c, dv, a.name, a.offset)
            return
        if a.name in c.consts and dv.width == 2:
            c.emit("MOV", (), [dv.lo], [Imm(c.consts[a.name] + a.offset)])
            c.emit("MOV", (), [dv.hi], [RZ])
            return
        if a.name in c.globals and dv.width == 2:
            ptr = c.global_address(a.name)
            if a.offset:
                carry = c.new(RC.P)
                c.emit("IADD3", (), [dv.lo, carry], [ptr.lo, Imm(a.offset), RZ])
                c.emit("IADD3", ("X",), [dv.hi], [ptr.hi, RZ, RZ, carry, Src(PT, inv=True)])
            else:
                c.emit("MOV", (), [dv.lo], [ptr.lo])
                c.emit("MOV", (), [dv.hi], [ptr.hi])
            return
        if dv.width == 2 and any(
            f.name == a.name and f.body and not f.is_entry for f in c.module.functions
        ):  # (a kernel's address is a function descriptor: refused below)
            from openptxas.lower.calls import function_address

            function_address(c, dv, a.name)
            return
        if (
            dv.width == 2
            and c.relocatable
            and any(f.name == a.name and f.is_entry for f in c.module.functions)
        ):  # -c: a kernel's function descriptor (device-side launches)
            from openptxas.lower.reldata import kernel_address

            kernel_address(c, dv, a.name)
            return
        raise c.unsupported(f"address of '{a.name}'")
    dv = c.dst(d)
    if t is T.PRED:
        src = c.value(a, t)
        c.emit("PLOP3", ("LUT",), [dv, PT], [src, PT, PT, Imm(0xF0), Imm(0)])
        return
    w = dv.width
    if w == 1:
        c.emit("MOV", (), [dv], [c.value(a, t)])
        return
    if is_imm(a):
        src = c.value(a, t, allow_imm=False)
    else:
        src = c.rvalue(a, t)
    assert isinstance(src, VReg | Part)
    for k in range(w):
        c.emit("MOV", (), [dv.part(k)], [half(src, k)])


RULES: list[Rule] = [
    Rule("add.s64", "add", types(*I64), add64, "add.s64 %rd1, %rd2, %rd3;"),
    Rule("sub.s64", "sub", types(*I64), add64, "sub.s64 %rd1, %rd2, %rd3;"),
    Rule("add.s32", "add", types(*S32), add32, "add.s32 %r1, %r2, %r3;"),
    Rule("sub.s32", "sub", types(*S32), add32, "sub.u32 %r1, %r2, 7;"),
    Rule(
        "mul.lo.s64", "mul", both(types(*I64), has("lo")), mul64_lo, "mul.lo.s64 %rd1, %rd2, %rd3;"
    ),
    Rule("mul.s32", "mul", types(*S32), mul32, "mul.lo.s32 %r1, %r2, %r3;"),
    Rule(
        "mad.lo.s64",
        "mad",
        both(types(*I64), has("lo")),
        mul64_lo,
        "mad.lo.s64 %rd1, %rd2, %rd3, %rd4;",
    ),
    Rule("mad.s32", "mad", types(*S32), mad32, "mad.lo.s32 %r1, %r2, %r3, %r4;"),
    Rule("shl.b64", "shl", types(*I64), shift64, "shl.b64 %rd1, %rd2, %r3;"),
    Rule("shr.b64", "shr", types(*I64), shift64, "shr.s64 %rd1, %rd2, 3;"),
    Rule("shl.b32", "shl", types(*S32), shift32, "shl.b32 %r1, %r2, 3;"),
    Rule("shr.b32", "shr", types(*S32), shift32, "shr.u32 %r1, %r2, %r3;"),
    Rule("and", "and", always, logic, "and.b32 %r1, %r2, %r3;"),
    Rule("or", "or", always, logic, "or.b64 %rd1, %rd2, %rd3;"),
    Rule("xor", "xor", always, logic, "xor.pred %p1, %p2, %p3;"),
    Rule("not", "not", always, not_, "not.b32 %r1, %r2;"),
    Rule("cnot", "cnot", always, cnot, "cnot.b32 %r1, %r2;"),
    Rule("min.s32", "min", types(*S32), minmax32, "min.s32 %r1, %r2, %r3;"),
    Rule("max.s32", "max", types(*S32), minmax32, "max.u32 %r1, %r2, 5;"),
    Rule("abs.s32", "abs", types(T.S32), abs32, "abs.s32 %r1, %r2;"),
    Rule("neg.s64", "neg", types(T.S64), neg64, "neg.s64 %rd1, %rd2;"),
    Rule("neg.s32", "neg", types(T.S32), neg32, "neg.s32 %r1, %r2;"),
    Rule(
        "setp.int",
        "setp",
        types(*S32, *I64, T.S16, T.U16, T.B16),
        setp_int,
        "setp.lt.s32 %p1, %r1, %r2;",
    ),
    Rule("selp", "selp", always, selp, "selp.b32 %r1, %r2, %r3, %p1;"),
    Rule("mov", "mov", always, mov, "mov.u32 %r1, %r2;"),
]

_ = imm_at  # (kept for rules that specialise on immediates)
