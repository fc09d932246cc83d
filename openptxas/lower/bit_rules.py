"""Selection rules for bit manipulation: popc, clz, brev, bfe, bfi, prmt, funnel shifts,
copysign, 16-bit arithmetic that needs clean upper bits, 64-bit min/max, and a few special
registers (forms as ptxas 13.0 emits them on sm_90)."""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Imm, Operand, Reg, RegLike, Src, SReg, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import half
from openptxas.lower.rules import I64, S32, Rule, always, both, has, is_signed, types
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType
NOT_PT = Src(PT, inv=True)


def popc(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    if t in I64:
        ra = c.rvalue(a, t)
        x, y = c.new(), c.new()
        c.emit("POPC", (), [x], [half(ra, 0)])
        c.emit("POPC", (), [y], [half(ra, 1)])
        c.emit("IADD3", (), [c.dst(d)], [x, y, RZ])
        return
    c.emit("POPC", (), [c.dst(d)], [c.rvalue(a, t)])


def clz(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    if t in I64:
        ra = c.rvalue(a, t)
        fh, fl, nz = c.new(), c.new(), c.new(RC.P)
        c.emit("FLO", ("U32",), [fh], [half(ra, 1)])
        c.emit("FLO", ("U32",), [fl], [half(ra, 0)])
        c.emit("ISETP", ("NE", "U32", "AND"), [nz, PT], [half(ra, 1), RZ, PT])
        # hi != 0: 31 - flo(hi); else 63 - flo(lo) (64 for zero: flo = ~0)
        lo_part, hi_part = c.new(), c.new()
        c.emit("IADD3", (), [hi_part], [Src(fh, neg=True), Imm(0x1F), RZ])
        c.emit("IADD3", (), [lo_part], [Src(fl, neg=True), Imm(0x3F), RZ])
        c.emit("SEL", (), [c.dst(d)], [hi_part, lo_part, nz])
        return
    f = c.new()
    c.emit("FLO", ("U32",), [f], [c.rvalue(a, t)])  # index of the highest set bit, ~0 for 0
    c.emit("IADD3", (), [c.dst(d)], [Src(f, neg=True), Imm(0x1F), RZ])


def brev(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    if t in I64:
        ra = c.rvalue(a, t)
        dv = c.dst(d)
        c.emit("BREV", (), [dv.lo], [half(ra, 1)])
        c.emit("BREV", (), [dv.hi], [half(ra, 0)])
        return
    c.emit("BREV", (), [c.dst(d)], [c.rvalue(a, t)])


def _byte(c: LowerCtx, v: Operand) -> Operand:
    """The low byte of a position/length operand (PTX uses only bits 0..7)."""
    if isinstance(v, Imm):
        return Imm(v.value & 0xFF)
    r = c.new()
    c.emit("LOP3", ("LUT",), [r], [v, Imm(0xFF), RZ, Imm(0xC0), NOT_PT])
    return r


def bfe(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, pos, ln = ins.operands
    t = ins.type
    assert t is not None
    if t in I64:
        raise c.unsupported("bfe.b64")
    p = _byte(c, c.value(pos, T.U32))
    n = _byte(c, c.value(ln, T.U32))
    x = c.new()
    if is_signed(t):
        c.emit("SHF", ("R", "S32", "HI"), [x], [RZ, p, c.rvalue(a, t)])
        c.emit("SGXT", (), [c.dst(d)], [x, n])
    else:
        c.emit("SHF", ("R", "U32", "HI"), [x], [RZ, p, c.rvalue(a, t)])
        c.emit("SGXT", ("U32",), [c.dst(d)], [x, n])


def bfi(ins: ast.Instruction, c: LowerCtx) -> None:
    d, f, b, pos, ln = ins.operands
    t = ins.type
    assert t is not None
    if t in I64:
        raise c.unsupported("bfi.b64")
    p = _byte(c, c.value(pos, T.U32))
    n = _byte(c, c.value(ln, T.U32))
    shifted, mask = c.new(), c.new()
    c.emit("SHF", ("L", "U32"), [shifted], [c.rvalue(f, t), p, RZ])
    pr = p if not isinstance(p, Imm) else c.materialize(p.value, T.U32)
    c.emit("BMSK", (), [mask], [pr, n])
    # (shifted & mask) | (base & ~mask)
    c.emit("LOP3", ("LUT",), [c.dst(d)], [shifted, mask, c.rvalue(b, t), Imm(0xE2), NOT_PT])


_PRMT_MODES = {"f4e": "F4E", "b4e": "B4E", "rc8": "RC8", "ecl": "ECL", "ecr": "ECR", "rc16": "RC16"}


def prmt(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b, sel = ins.operands
    mods = tuple(m for k, m in _PRMT_MODES.items() if ins.has(k))
    c.emit("PRMT", mods, [c.dst(d)], [c.rvalue(a, T.B32), c.value(sel, T.B32), c.rvalue(b, T.B32)])


def shf(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b, n = ins.operands
    wrap = "W" if ins.has("wrap") else None
    lo, hi, amt = c.rvalue(a, T.B32), c.rvalue(b, T.B32), c.value(n, T.U32)
    if ins.has("l"):
        mods = ("L", *((wrap,) if wrap else ()), "U32", "HI")
    else:
        mods = ("R", *((wrap,) if wrap else ()), "U32")
    c.emit("SHF", mods, [c.dst(d)], [lo, amt, hi])


def copysign(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    t = ins.type
    assert t is not None
    if t is T.F64:
        ra, rb = c.rvalue(a, t), c.rvalue(b, t)
        dv = c.dst(d)
        c.emit("MOV", (), [dv.lo], [half(rb, 0)])
        c.emit(
            "LOP3",
            ("LUT",),
            [dv.hi],
            [half(rb, 1), Imm(0x80000000), half(ra, 1), Imm(0xB8), NOT_PT],
        )
        return
    # sign of a, magnitude of b: LUT 0xB8 is "B ? C : A" with B the sign mask (as ptxas)
    c.emit(
        "LOP3",
        ("LUT",),
        [c.dst(d)],
        [c.rvalue(b, t), Imm(0x80000000), c.rvalue(a, t), Imm(0xB8), NOT_PT],
    )


def _ext16(c: LowerCtx, op: ast.Operand, signed: bool) -> Operand:
    """A 16-bit source widened to 32 bits (registers may hold garbage above bit 15)."""
    v = c.value(op, T.U32)
    if isinstance(v, Imm):
        x = v.value & 0xFFFF
        if signed and x & 0x8000:
            x -= 0x10000
        return Imm(x & 0xFFFFFFFF)
    r = c.new()
    if signed:
        c.emit("SGXT", (), [r], [v, Imm(16)])
    else:
        c.emit("LOP3", ("LUT",), [r], [v, Imm(0xFFFF), RZ, Imm(0xC0), NOT_PT])
    return r


def mul16(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    t = ins.type
    assert t is not None
    signed = is_signed(t)
    if ins.has("wide") or ins.has("hi"):
        ra, rb = _ext16(c, a, signed), _ext16(c, b, signed)
        if isinstance(ra, Imm):
            ra, rb = rb, ra
        if isinstance(ra, Imm):
            ra = c.materialize(ra.value, T.U32)
        if ins.has("hi"):
            p = c.new()
            c.emit("IMAD", (), [p], [ra, rb, RZ])
            c.emit("SHF", ("R", "S32" if signed else "U32", "HI"), [c.dst(d)], [RZ, Imm(16), p])
        else:
            c.emit("IMAD", (), [c.dst(d)], [ra, rb, RZ])
        return
    c.emit("IMAD", (), [c.dst(d)], [c.rvalue(a, t), c.value(b, t), RZ])


def arith16(ins: ast.Instruction, c: LowerCtx) -> None:
    """add/sub/and/or/xor/not/shl on 16-bit values: the low 16 bits of the 32-bit op."""
    d, a, b = ins.operands
    t = ins.type
    assert t is not None
    if ins.opcode in ("add", "sub"):
        vb = c.value(b, t)
        if ins.opcode == "sub":
            vb = Imm((-vb.value) & 0xFFFFFFFF) if isinstance(vb, Imm) else Src(vb, neg=True)  # type: ignore[arg-type]
        c.emit("IADD3", (), [c.dst(d)], [c.rvalue(a, t), vb, RZ])
    elif ins.opcode == "shl":
        c.emit("SHF", ("L", "U32"), [c.dst(d)], [c.rvalue(a, t), c.value(b, T.U32), RZ])
    else:
        raise c.unsupported(f"{ins.name}")


def shr16(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    t = ins.type
    assert t is not None
    signed = is_signed(t)
    x = _ext16(c, a, signed)
    if isinstance(x, Imm):
        x = c.materialize(x.value, T.U32)
    c.emit("SHF", ("R", "S32" if signed else "U32", "HI"), [c.dst(d)], [RZ, c.value(b, T.U32), x])


def cmp16(ins: ast.Instruction, c: LowerCtx) -> None:
    """setp/min/max on 16-bit values: widen, then the 32-bit instruction."""
    from openptxas.lower.int_rules import _CMP, _UNSIGNED_CMP, _combine, _setp_dsts

    t = ins.type
    assert t is not None
    signed = is_signed(t)
    if ins.opcode == "setp":
        assert ins.cmp is not None
        a = _ext16(c, ins.operands[1], signed and ins.cmp not in _UNSIGNED_CMP)
        b = _ext16(c, ins.operands[2], signed and ins.cmp not in _UNSIGNED_CMP)
        if isinstance(a, Imm):
            a = c.materialize(a.value, T.U32)
        cmp = _CMP[ins.cmp]
        unsigned = not signed or ins.cmp in _UNSIGNED_CMP
        bop, q = _combine(ins, c)
        p1, p2 = _setp_dsts(ins, c)
        mods = (cmp, "U32", bop) if unsigned else (cmp, bop)
        c.emit("ISETP", mods, [p1, p2], [a, b, q])
        return
    d = ins.operands[0]
    a = _ext16(c, ins.operands[1], signed)
    b = _ext16(c, ins.operands[2], signed)
    if isinstance(a, Imm):
        a, b = b, a
    if isinstance(a, Imm):
        a = c.materialize(a.value, T.U32)
    sel = PT if ins.opcode == "min" else NOT_PT
    c.emit("VIMNMX", () if signed else ("U32",), [c.dst(d)], [a, b, sel])


def minmax64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, b = ins.operands
    t = ins.type
    assert t is not None
    ra, rb = c.rvalue(a, t), c.rvalue(b, t)
    chain, p = c.new(RC.P), c.new(RC.P)
    cmp = "LT" if ins.opcode == "min" else "GT"
    c.emit("ISETP", (cmp, "U32", "AND"), [chain, PT], [half(ra, 0), half(rb, 0), PT])
    mods = (cmp, "AND", "EX") if is_signed(t) else (cmp, "U32", "AND", "EX")
    c.emit("ISETP", mods, [p, PT], [half(ra, 1), half(rb, 1), PT, chain])
    dv = c.dst(d)
    for k in range(2):
        c.emit("SEL", (), [dv.part(k)], [half(ra, k), half(rb, k), p])


def abs64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    ra = c.rvalue(a, t)
    dv = c.dst(d)
    neg, carry, p = c.new(RC.R, 2), c.new(RC.P), c.new(RC.P)
    c.emit("IADD3", (), [neg.lo, carry], [RZ, Src(half(ra, 0), neg=True), RZ])
    c.emit("IADD3", ("X",), [neg.hi], [RZ, Src(half(ra, 1), inv=True), RZ, carry, NOT_PT])
    c.emit("ISETP", ("GE", "AND"), [p, PT], [half(ra, 1), RZ, PT])
    for k in range(2):
        c.emit("SEL", (), [dv.part(k)], [half(ra, k), neg.part(k), p])


def mov_sreg_special(c: LowerCtx, name: str) -> object:
    """%warpid = (SR_VIRTID >> 8) & 0x7f, %nwarpid = (SR_VIRTCFG >> 8) & 0xff (ptxas)."""
    v = c.new()
    x = c.new()
    if name == "%warpid":
        c.emit("S2R", (), [x], [SReg("SR_VIRTID")])
        y = c.new()
        c.emit("SHF", ("R", "U32", "HI"), [y], [RZ, Imm(8), x])
        c.emit("SGXT", ("U32",), [v], [y, Imm(7)])
    else:
        c.emit("S2R", (), [x], [SReg("SR_VIRTCFG")])
        y = c.new()
        c.emit("SHF", ("R", "U32", "HI"), [y], [RZ, Imm(8), x])
        c.emit("SGXT", ("U32",), [v], [y, Imm(8)])
    return v


def bfind(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    if t in I64:
        raise c.unsupported("bfind.b64")
    mods = ("U32",) if not is_signed(t) else ()
    if ins.has("shiftamt"):
        mods = (*mods, "SH")
    c.emit("FLO", mods, [c.dst(d)], [c.rvalue(a, t)])


def _shl64_const(c: LowerCtx, lo: Operand, hi: Operand, n: int) -> tuple[Operand, Operand]:
    """(lo, hi) << n for a constant n (0..64): one word moves across at n >= 32."""
    if n == 0:
        return lo, hi
    if n >= 64:
        return RZ, RZ
    if n >= 32:
        if n == 32:
            return RZ, lo
        rh = c.new()
        c.emit("SHF", ("L", "U32"), [rh], [lo, Imm(n - 32), RZ])
        return RZ, rh
    return _shl64(c, lo, hi, Imm(n))


def _shl64(c: LowerCtx, lo: Operand, hi: Operand, n: Operand) -> tuple[Operand, Operand]:
    rl, rh = c.new(), c.new()
    c.emit("SHF", ("L", "U64", "HI"), [rh], [lo, n, hi])
    c.emit("SHF", ("L", "U32"), [rl], [lo, n, RZ])
    return rl, rh


def _mask64(c: LowerCtx, n: Operand) -> tuple[Operand, Operand]:
    """(1 << n) - 1 as a 64-bit pair (all ones for n >= 64)."""
    one = c.new()
    c.emit("MOV", (), [one], [Imm(1)])
    ml, mh = _shl64(c, one, RZ, n)
    rl, rh, carry = c.new(), c.new(), c.new(RC.P)
    c.emit("IADD3", (), [rl, carry], [ml, Imm(0xFFFFFFFF), RZ])
    c.emit("IADD3", ("X",), [rh], [mh, Imm(0xFFFFFFFF), RZ, carry, NOT_PT])
    return rl, rh


def _sar64(c: LowerCtx, lo: Operand, hi: Operand, n: Operand) -> tuple[Operand, Operand]:
    rl, rh = c.new(), c.new()
    c.emit("SHF", ("R", "S64"), [rl], [lo, n, hi])
    c.emit("SHF", ("R", "S32", "HI"), [rh], [RZ, n, hi])
    return rl, rh


def bfe64_signed(
    c: LowerCtx, d: ast.Operand, a: ast.Operand, p: Operand, n: Operand, t: PtxType
) -> None:
    """Signed 64-bit field extract: shift the field down arithmetically, then sign-extend from
    bit len-1 by shifting it to the top and back (len >= 64: as is; len == 0: zero)."""
    ra = c.rvalue(a, t)
    xl, xh = _sar64(c, half(ra, 0), half(ra, 1), p)
    nr = n if not isinstance(n, Imm) else c.materialize(n.value, T.U32)
    s, big, zero = c.new(), c.new(RC.P), c.new(RC.P)
    c.emit("IADD3", (), [s], [Src(nr, neg=True), Imm(64), RZ])  # type: ignore[arg-type]
    c.emit("ISETP", ("GT", "U32", "AND"), [big, PT], [nr, Imm(63), PT])
    c.emit("ISETP", ("EQ", "U32", "AND"), [zero, PT], [nr, RZ, PT])
    sc = c.new()
    c.emit("SEL", (), [sc], [RZ, s, big])
    yl, yh = _shl64(c, xl, xh, sc)
    zl, zh = _sar64(c, yl, yh, sc)
    dv = c.dst(d)
    c.emit("SEL", (), [dv.lo], [RZ, zl, zero])
    c.emit("SEL", (), [dv.hi], [RZ, zh, zero])


def bfe64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, pos, ln = ins.operands
    t = ins.type
    assert t is not None
    if is_signed(t):
        p = _byte(c, c.value(pos, T.U32))
        n = _byte(c, c.value(ln, T.U32))
        return bfe64_signed(c, d, a, p, n, t)
    p = _byte(c, c.value(pos, T.U32))
    n = _byte(c, c.value(ln, T.U32))
    ra = c.rvalue(a, t)
    xl, xh = c.new(), c.new()
    c.emit("SHF", ("R", "U64"), [xl], [half(ra, 0), p, half(ra, 1)])
    c.emit("SHF", ("R", "U32", "HI"), [xh], [RZ, p, half(ra, 1)])
    ml, mh = _mask64(c, n)
    dv = c.dst(d)
    c.emit("LOP3", ("LUT",), [dv.lo], [xl, ml, RZ, Imm(0xC0), NOT_PT])
    c.emit("LOP3", ("LUT",), [dv.hi], [xh, mh, RZ, Imm(0xC0), NOT_PT])


def bfi64(ins: ast.Instruction, c: LowerCtx) -> None:
    d, f, b, pos, ln = ins.operands
    t = ins.type
    assert t is not None
    p = _byte(c, c.value(pos, T.U32))
    n = _byte(c, c.value(ln, T.U32))
    rf, rb = c.rvalue(f, t), c.rvalue(b, t)
    if isinstance(p, Imm) and isinstance(n, Imm):
        # constant field: the shifted mask is an immediate per word
        m = (((1 << min(n.value, 64)) - 1) << p.value) & ((1 << 64) - 1)
        sl, sh = _shl64_const(c, half(rf, 0), half(rf, 1), p.value)
        dv = c.dst(d)
        for k, sk in ((0, sl), (1, sh)):
            mk = (m >> (32 * k)) & 0xFFFFFFFF
            c.emit(
                "LOP3",
                ("LUT",),
                [dv.part(k)],
                [sk, Imm(mk) if mk else RZ, half(rb, k), Imm(0xE2), NOT_PT],
            )
        return
    ml, mh = _mask64(c, n)
    fl, fh = c.new(), c.new()
    c.emit("LOP3", ("LUT",), [fl], [half(rf, 0), ml, RZ, Imm(0xC0), NOT_PT])
    c.emit("LOP3", ("LUT",), [fh], [half(rf, 1), mh, RZ, Imm(0xC0), NOT_PT])
    sfl, sfh = _shl64(c, fl, fh, p)
    sml, smh = _shl64(c, ml, mh, p)
    dv = c.dst(d)
    # (f & mask) << pos | (b & ~(mask << pos))
    c.emit("LOP3", ("LUT",), [dv.lo], [sfl, sml, half(rb, 0), Imm(0xF2), NOT_PT])
    c.emit("LOP3", ("LUT",), [dv.hi], [sfh, smh, half(rb, 1), Imm(0xF2), NOT_PT])


def _pair(c: LowerCtx, lo: Operand) -> VReg:
    """A 64-bit register pair (lo, 0)."""
    p = c.new(RC.R, 2)
    c.emit("MOV", (), [p.lo], [lo])
    c.emit("MOV", (), [p.hi], [RZ])
    return p


def mulhi_u64(
    c: LowerCtx,
    a: RegLike,
    b: RegLike,
    bhalves: tuple[Operand, Operand] | None = None,
    addend: RegLike | None = None,
) -> VReg:
    """The high 64 bits of the 128-bit product of two 64-bit values (unsigned), as ptxas: the
    two cross products summed with a carry out (``IMAD.WIDE.U32 R, P``), the carry of adding
    the low product's high word, and the high product accumulating both
    (``IMAD.WIDE.U32.X``). ``bhalves`` gives b as (lo, hi) operands, immediates allowed.
    ``addend`` (mad.hi) joins the word pair the high product accumulates, as ptxas does it:
    ``IADD3 w.lo, P, c.lo, u.hi`` and ``IADD3.X w.hi, RZ, c.hi, RZ, cu, P``."""
    al, ah = half(a, 0), half(a, 1)
    bl, bh = bhalves if bhalves is not None else (half(b, 0), half(b, 1))
    t = c.new(RC.R, 2)
    c.emit("IMAD", ("WIDE", "U32"), [t], [ah, bl, RZ])
    u = c.new(RC.R, 2)
    cu = c.new(RC.P)
    c.emit("IMAD", ("WIDE", "U32"), [u, cu], [al, bh, t])
    v = c.new(RC.R, 2)
    c.emit("IMAD", ("WIDE", "U32"), [v], [al, bl, RZ])
    w = c.new(RC.R, 2)
    if addend is None:
        c.emit("MOV", (), [w.lo], [u.hi])
        c.emit("IMAD", ("X",), [w.hi], [RZ, RZ, RZ, cu])
    else:
        cw = c.new(RC.P)
        c.emit("IADD3", (), [w.lo, cw], [half(addend, 0), u.hi, RZ])
        c.emit("IADD3", ("X",), [w.hi], [RZ, half(addend, 1), RZ, cu, cw])
    cv = c.new(RC.P)
    c.emit("IADD3", (), [RZ, cv], [v.hi, u.lo, RZ])
    r = c.new(RC.R, 2)
    c.emit("IMAD", ("WIDE", "U32", "X"), [r], [ah, bh, w, cv])
    return r


def _imm_or_rz(v: int) -> Operand:
    return Imm(v) if v else RZ


def mulhi64(ins: ast.Instruction, c: LowerCtx) -> None:
    """mul.hi and mad.hi on 64-bit integers (mad.hi: the addend joins the unsigned high
    product, then the signed corrections, as ptxas)."""
    d, a, b, *e = ins.operands
    t = ins.type
    assert t is not None
    ra, rb = c.rvalue(a, t), c.rvalue(b, t)
    halves: tuple[Operand, Operand] | None = None
    bits = c.known_int(b, t)
    if bits is None and c.known_int(a, t) is not None:
        a, b = b, a  # the product is symmetric: the constant goes where the immediates go
        ra, rb = rb, ra
        bits = c.known_int(b, t)
    if bits is not None:
        halves = (_imm_or_rz(bits & 0xFFFFFFFF), _imm_or_rz(bits >> 32))
    key = ("mulhi.u64", ra, rb, halves)
    hit = None if e else c.recall(key, (ra, rb))
    if hit is not None:
        (hi,) = hit
        assert isinstance(hi, VReg)
    else:
        assert c.block is not None
        start = len(c.block.instrs)
        hi = mulhi_u64(c, ra, rb, halves, c.rvalue(e[0], t) if e else None)
        if not e:
            c.remember(key, start, (hi,))
    dv = c.dst(d)
    if not is_signed(t):
        c.emit("MOV", (), [dv.lo], [half(hi, 0)])
        c.emit("MOV", (), [dv.hi], [half(hi, 1)])
        return
    if bits is not None:
        # constant b: hi(a*b) = hi_u - (a < 0 ? b : 0) - (b < 0 ? a : 0), the second known now
        nb = (-bits) & ((1 << 64) - 1)
        neg = c.new(RC.P)
        c.emit("ISETP", ("LT", "AND"), [neg, PT], [half(ra, 1), RZ, PT])
        t2 = c.new(RC.R, 2)
        carry = c.new(RC.P)
        c.emit("IADD3", (), [t2.lo, carry], [half(hi, 0), _imm_or_rz(nb & 0xFFFFFFFF), RZ])
        c.emit("IADD3", ("X",), [t2.hi], [half(hi, 1), _imm_or_rz(nb >> 32), RZ, carry, NOT_PT])
        cur = c.new(RC.R, 2)
        c.emit("SEL", (), [cur.lo], [t2.lo, half(hi, 0), neg])
        c.emit("SEL", (), [cur.hi], [t2.hi, half(hi, 1), neg])
        if bits >> 63:
            nxt = c.new(RC.R, 2)
            carry = c.new(RC.P)
            c.emit("IADD3", (), [nxt.lo, carry], [half(cur, 0), Src(half(ra, 0), neg=True), RZ])
            c.emit(
                "IADD3",
                ("X",),
                [nxt.hi],
                [half(cur, 1), Src(half(ra, 1), inv=True), RZ, carry, NOT_PT],
            )
            cur = nxt
        c.emit("MOV", (), [dv.lo], [half(cur, 0)])
        c.emit("MOV", (), [dv.hi], [half(cur, 1)])
        return
    # signed: hi(a*b) = hi_u(a, b) - (a < 0 ? b : 0) - (b < 0 ? a : 0)
    cur = hi
    for x, y in ((ra, rb), (rb, ra)):
        neg = c.new(RC.P)
        c.emit("ISETP", ("LT", "AND"), [neg, PT], [half(x, 1), RZ, PT])
        sl, sh = c.new(), c.new()
        c.emit("SEL", (), [sl], [half(y, 0), RZ, neg])
        c.emit("SEL", (), [sh], [half(y, 1), RZ, neg])
        nxt = c.new(RC.R, 2)
        carry = c.new(RC.P)
        c.emit("IADD3", (), [nxt.lo, carry], [half(cur, 0), Src(sl, neg=True), RZ])
        c.emit("IADD3", ("X",), [nxt.hi], [half(cur, 1), Src(sh, inv=True), RZ, carry, NOT_PT])
        cur = nxt
    c.emit("MOV", (), [dv.lo], [half(cur, 0)])
    c.emit("MOV", (), [dv.hi], [half(cur, 1)])


def lop3(ins: ast.Instruction, c: LowerCtx) -> None:
    ops = ins.operands
    if len(ops) != 5:
        raise c.unsupported("lop3 with a predicate result")
    d, a, b, e, lut = ops
    t = T.B32
    c.emit(
        "LOP3",
        ("LUT",),
        [c.dst(d)],
        [c.rvalue(a, t), c.value(b, t), c.rvalue(e, t), c.value(lut, t), NOT_PT],
    )


def divrem16(ins: ast.Instruction, c: LowerCtx) -> None:
    """16-bit div/rem: widen both operands to 32 bits and divide (the low half is the result)."""
    from openptxas.lower.divide import emit_divrem32

    d, a, b = ins.operands
    t = ins.type
    assert t is not None
    signed = is_signed(t)
    start = len(c.block.instrs) if c.block is not None else 0
    wa = _ext16(c, a, signed)
    if isinstance(wa, Imm):
        wa = c.materialize(wa.value, T.U32)
    assert isinstance(wa, VReg | Reg)
    emit_divrem32(c, c.dst(d), wa, _ext16(c, b, signed), signed, ins.opcode == "rem")
    # ptxas divides 16-bit values in floating point, signed or not; as after a signed 32-bit
    # division, no multiply before it is fused into an add after it (passes/fma.py)
    if c.block is not None and len(c.block.instrs) > start:
        c.block.instrs[start].contract_fence = True


def neg16(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    c.emit("IADD3", (), [c.dst(d)], [Src(c.rvalue(a, T.B32), neg=True), RZ, RZ])


def simd16x2(ins: ast.Instruction, c: LowerCtx) -> None:
    """Two-lane 16-bit SIMD: add/sub as ``VIADD.16x2`` (sub negates b), min/max as
    ``VIMNMX.S16x2``/``.U16x2`` (PT selects the minimum)."""
    d, a, b = ins.operands
    va, vb = c.rvalue(a, T.B32), c.rvalue(b, T.B32)
    if ins.opcode == "add":
        c.emit("VIADD", ("16x2",), [c.dst(d)], [va, vb])
    elif ins.opcode == "sub":
        c.emit("VIADD", ("16x2",), [c.dst(d)], [va, Src(vb, neg=True)])
    elif ins.opcode in ("min", "max"):
        kind = "S16x2" if ins.type is T.S16X2 else "U16x2"
        sel = PT if ins.opcode == "min" else Src(PT, inv=True)
        c.emit("VIMNMX", (kind,), [c.dst(d)], [va, vb, sel])
    else:
        raise c.unsupported(ins.name)


def warp_sync(ins: ast.Instruction, c: LowerCtx) -> None:
    (mask,) = ins.operands
    v = c.value(mask, T.B32)
    if isinstance(v, Imm) and v.value & 0xFFFFFFFF == 0xFFFFFFFF:
        c.emit("WARPSYNC", ("ALL",), [], [])  # the full-warp form
        return
    if isinstance(v, Imm):
        # no immediate form: ptxas moves any other constant mask into a register (MOV R0,
        # 0xffff; found by scripts/ptx_fuzz.py --full: an InternalError)
        v = c.materialize(v.value & 0xFFFFFFFF, T.B32)
    c.emit("WARPSYNC", (), [], [v])


S16 = (T.S16, T.U16, T.B16)


def vabsdiff4(ins: ast.Instruction, c: LowerCtx) -> None:
    """``vabsdiff4`` without byte selectors: ``VABSDIFF4.U8`` (``.S8`` for signed inputs); with
    ``.add`` the sum of the four differences accumulates into c (``.ACC``); without it every
    destination byte is selected, so c is unused (ptxas passes RZ)."""
    d, a, b, cc = ins.operands
    regs = (d, a, b, cc)
    if any(isinstance(o, ast.Reg) and o.comp for o in regs) or ins.has("min") or ins.has("max"):
        raise c.unsupported("vabsdiff4 with byte selectors or a secondary operation")
    ta, tb = (*ins.mods.types, T.U32, T.U32, T.U32)[1:3]
    if is_signed(ta) != is_signed(tb):
        raise c.unsupported("vabsdiff4 with mixed signedness")
    kind = "S8" if is_signed(ta) else "U8"
    va, vb = c.rvalue(a, T.U32), c.rvalue(b, T.U32)
    if ins.has("add"):
        c.emit("VABSDIFF4", (kind, "ACC"), [c.dst(d)], [va, vb, c.rvalue(cc, T.U32)])
    else:
        c.emit("VABSDIFF4", (kind,), [c.dst(d)], [va, vb, RZ])


def sad(ins: ast.Instruction, c: LowerCtx) -> None:
    """``sad d, a, b, c`` = c + |a - b|: ``VABSDIFF`` (``.U32`` when unsigned)."""
    d, a, b, cc = ins.operands
    t = ins.type
    assert t is not None
    mods = () if is_signed(t) else ("U32",)
    c.emit("VABSDIFF", mods, [c.dst(d)], [c.rvalue(a, t), c.rvalue(b, t), c.value(cc, t)])


def dot_product(ins: ast.Instruction, c: LowerCtx) -> None:
    """``dp4a``/``dp2a.lo|hi``: ``IDP.4A``/``IDP.2A.LO|HI`` with each input's signedness
    (a's elements are bytes for dp4a, 16-bit for dp2a; b's are bytes)."""
    d, a, b, cc = ins.operands
    ta, tb = (*ins.mods.types, T.U32, T.U32)[:2]
    sa = "S" if is_signed(ta) else "U"
    sb = "S" if is_signed(tb) else "U"
    if ins.opcode == "dp4a":
        mods: tuple[str, ...] = ("4A", sa + "8", sb + "8")
    else:
        mods = ("2A", "HI" if ins.has("hi") else "LO", sa + "16", sb + "8")
    t = T.S32 if sa == "S" or sb == "S" else T.U32
    c.emit("IDP", mods, [c.dst(d)], [c.rvalue(a, T.B32), c.rvalue(b, T.B32), c.value(cc, t)])


RULES: list[Rule] = [
    Rule("sad", "sad", always, sad, "sad.s32 %r1, %r2, %r3, %r4;"),
    Rule("dp4a", "dp4a", always, dot_product, "dp4a.s32.s32 %r1, %r2, %r3, %r4;"),
    Rule("dp2a", "dp2a", always, dot_product, "dp2a.lo.s32.u32 %r1, %r2, %r3, %r4;"),
    Rule("vabsdiff4", "vabsdiff4", always, vabsdiff4, "vabsdiff4.u32.u32.u32 %r1, %r2, %r3, %r4;"),
    Rule("popc", "popc", always, popc, "popc.b32 %r1, %r2;"),
    Rule("clz", "clz", always, clz, "clz.b32 %r1, %r2;"),
    Rule("brev", "brev", always, brev, "brev.b32 %r1, %r2;"),
    Rule("bfe.64", "bfe", types(*I64), bfe64, "bfe.u64 %rd1, %rd2, %r1, %r2;"),
    Rule("bfi.64", "bfi", types(*I64), bfi64, "bfi.b64 %rd1, %rd2, %rd3, %r1, %r2;"),
    Rule("bfe", "bfe", always, bfe, "bfe.u32 %r1, %r2, %r3, %r4;"),
    Rule("bfi", "bfi", always, bfi, "bfi.b32 %r1, %r2, %r3, 4, 8;"),
    Rule("prmt", "prmt", always, prmt, "prmt.b32 %r1, %r2, %r3, 0x3210;"),
    Rule("shf", "shf", always, shf, "shf.l.wrap.b32 %r1, %r2, %r3, %r4;"),
    Rule("copysign", "copysign", always, copysign, "copysign.f32 %f1, %f2, %f3;"),
    Rule("mul.16", "mul", types(*S16), mul16, "mul.wide.u16 %r1, %rs1, %rs2;"),
    Rule("add.16", "add", types(*S16), arith16, "add.s16 %rs1, %rs2, %rs3;"),
    Rule("sub.16", "sub", types(*S16), arith16, "sub.u16 %rs1, %rs2, 1;"),
    Rule("shl.16", "shl", types(*S16), arith16, "shl.b16 %rs1, %rs2, 3;"),
    Rule("shr.16", "shr", types(*S16), shr16, "shr.u16 %rs1, %rs2, 3;"),
    Rule("setp.16", "setp", types(*S16), cmp16, "setp.lt.s16 %p1, %rs1, %rs2;"),
    Rule("min.16", "min", types(*S16), cmp16, "min.u16 %rs1, %rs2, %rs3;"),
    Rule("max.16", "max", types(*S16), cmp16, "max.s16 %rs1, %rs2, %rs3;"),
    Rule("min.64", "min", types(*I64), minmax64, "min.s64 %rd1, %rd2, %rd3;"),
    Rule("max.64", "max", types(*I64), minmax64, "max.u64 %rd1, %rd2, %rd3;"),
    Rule("abs.64", "abs", types(T.S64), abs64, "abs.s64 %rd1, %rd2;"),
    Rule("div.16", "div", types(*S16), divrem16, "div.s16 %rs1, %rs2, %rs3;"),
    Rule("rem.16", "rem", types(*S16), divrem16, "rem.u16 %rs1, %rs2, %rs3;"),
    Rule("neg.16", "neg", types(T.S16), neg16, "neg.s16 %rs1, %rs2;"),
    Rule("add.16x2", "add", types(T.U16X2, T.S16X2), simd16x2, "add.u16x2 %r1, %r2, %r3;"),
    Rule("sub.16x2", "sub", types(T.U16X2, T.S16X2), simd16x2, "sub.s16x2 %r1, %r2, %r3;"),
    Rule("min.16x2", "min", types(T.U16X2, T.S16X2), simd16x2, "min.u16x2 %r1, %r2, %r3;"),
    Rule("max.16x2", "max", types(T.U16X2, T.S16X2), simd16x2, "max.s16x2 %r1, %r2, %r3;"),
    Rule("bar.warp.sync", "bar.warp.sync", always, warp_sync, "bar.warp.sync -1;"),
    Rule("lop3", "lop3", always, lop3, "lop3.b32 %r1, %r2, %r3, %r4, 0xe8;"),
    Rule("bfind", "bfind", always, bfind, "bfind.shiftamt.u32 %r1, %r2;"),
    Rule("mul.hi.64", "mul", both(types(*I64), has("hi")), mulhi64, "mul.hi.u64 %rd1, %rd2, %rd3;"),
    Rule(
        "mad.hi.64",
        "mad",
        both(types(*I64), has("hi")),
        mulhi64,
        "mad.hi.s64 %rd1, %rd2, %rd3, %rd4;",
    ),
]

_ = S32
