"""Operand order and small fusions (part of ptxas's GeneralOptimize algebraic simplification).

Pre: virtual IR after constant propagation. Post: same semantics;
- commutative operations carry a constant in their immediate slot (the B source): ``IADD3``,
  ``IMAD`` (a*b), ``FADD``, ``FMUL``, ``FFMA`` (a*b), ``VIMNMX``, ``FMNMX`` swap A and B, ``ISETP``
  also reverses its comparison, ``LOP3`` permutes its truth table;
- ``t = SHF.L.U32 a, k, RZ`` whose only use is ``IADD3 d, t, b, RZ`` becomes ``LEA d, a, b, k``;
  a logical (arithmetic) shift right by k so used becomes ``LEA.HI d, a, b, RZ, 32-k``
  (``LEA.HI.SX32 d, a, b, 32-k``);
- ``t = IADD3 a, b, RZ`` whose only use is ``IADD3 d, t, c, RZ`` becomes ``IADD3 d, a, b, c``;
- ``t = IMAD a, b, RZ`` whose only use is ``IADD3 d, [-]t, c, RZ`` becomes ``IMAD d, a, [-]b, c``
  (``mul.lo`` then ``add``/``sub``, as ptxas: ``IMAD R5, R5, -0x28, R0``; a subtracted product
  only when b is an immediate, which takes the sign);
- ``p = ISETP.cmp.AND a, b, PT`` whose only use is ``q = PLOP3 x | p`` (or ``x & p``, ``x ^ p``)
  becomes ``q = ISETP.cmp.OR a, b, x`` (``.AND``, ``.XOR``): the compare's accumulate input
  (ptxas's bitonic compare-exchange: ``ISETP.EQ.XOR P0, PT, R5, RZ, P0``);
- ``t = LOP3 a, b, c, f`` whose only use is ``LOP3 d, .., t, .., g`` becomes one ``LOP3`` of the
  two's inputs when they are three at most (all-zero and all-one constants go into the truth
  table, one other immediate, constant or uniform register takes the B slot), as ptxas:
  ``(v & 0xedb88320) ^ w`` is ``LOP3.LUT d, v, 0xedb88320, w, 0x78``.
"""

from __future__ import annotations

from openptxas.ir.analysis import DefInfo, def_info, unchanged_since, use_counts
from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Function,
    Guard,
    Imm,
    ImmKind,
    Instr,
    Operand,
    Part,
    Reg,
    Src,
    VReg,
    operand_regs,
    reg_class,
)
from openptxas.passes.manager import PassContext

COMMUTE_AB = frozenset(
    {"IADD3", "IMAD", "FADD", "FMUL", "FFMA", "VIMNMX", "FMNMX", "ISETP", "LOP3"}
)
REVERSED = {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE", "EQ": "EQ", "NE": "NE"}


def peephole(fn: Function, ctx: PassContext) -> None:
    info = def_info(fn)
    consts = _constant_regs(info)
    uses = use_counts(fn)
    dead: set[int] = set()
    guards: dict[int, int] = {}  # predicate id -> instructions it guards
    for ins in fn.instrs():
        if ins.guard is not None and isinstance(ins.guard.pred, VReg):
            guards[ins.guard.pred.id] = guards.get(ins.guard.pred.id, 0) + 1
    flip: set[int] = set()
    alias: dict[int, tuple[VReg, bool]] = {}  # predicate -> the one it equals (True: inverted)
    other = _read_elsewhere(fn)
    fuse_add_minmax = ctx.target.has_op("VIADDMNMX")  # (sm_90's; sm_80 keeps the IADD3)
    pack_halves = ctx.target.has_op("F2FP")  # (sm_75 converts each half with F2F)
    for blk in fn.blocks:
        for k, ins in enumerate(blk.instrs):
            if ins.op in COMMUTE_AB:
                _commute(ins, consts)
            if ins.op == "IADD3":
                _lea(ins, blk.instrs, k, info, uses, dead)
            if ins.op == "IADD3":  # (not if it just became a LEA)
                _mad(ins, blk.instrs, k, info, uses, dead)
            if ins.op == "IADD3":  # (nor an IMAD)
                _add3(ins, blk.instrs, k, info, uses, dead)
            if ins.op == "PLOP3":
                _setp_combine(ins, blk.instrs, k, info, uses, dead)
            if ins.op == "LOP3":
                _lop3_fuse(ins, blk.instrs, k, info, uses, dead)
            if ins.op == "ISETP":
                _sel_test(ins, info, dead, alias, other)
            if ins.op == "ISETP" and ins.uid not in dead:
                _lop3_test(ins, blk.instrs, k, info, uses, dead, guards, flip)
            if ins.op == "SEL":
                _fsel_neg(ins, info, uses, dead)
            if ins.op == "PRMT" and pack_halves:
                _f2fp_pack(ins, blk.instrs, k, info, uses, dead)
            if ins.op == "PRMT":
                _prmt_fuse(ins, blk.instrs, k, info, uses, dead)
            if ins.op == "SHF":
                _shift_wrap(ins, blk.instrs, k, info, uses, dead)
            if ins.op in HALF_OPS:
                _half_select(ins, blk.instrs, k, info)
            if ins.op == "VIMNMX" and fuse_add_minmax:
                _add_minmax(ins, blk.instrs, k, info, uses, dead)
    _float_modifiers(fn, info)
    _share_multipliers(fn, consts, info)
    if alias:
        _read_aliases(fn, alias)
    if flip:  # the tests that became LOP3's "result != 0" where they asked "== 0"
        for ins in fn.instrs():
            g = ins.guard
            if g is not None and isinstance(g.pred, VReg) and g.pred.id in flip:
                ins.guard = Guard(g.pred, not g.inv)
    if dead:
        for b in fn.blocks:
            b.instrs = [i for i in b.instrs if i.uid not in dead]


HALF_OPS = frozenset({"HADD2", "HMUL2", "HFMA2", "HSET2", "HMNMX2"})


def _half_of(x: VReg, h: int, block: list[Instr], k: int, info: DefInfo) -> tuple[VReg, int]:
    """The register and half that half ``h`` of ``x`` (read at position ``k`` of ``block``)
    is a copy of: through ``x = PRMT a, sel, b`` (default mode, immediate selector) whose
    bytes of that half are a whole half of ``a`` or ``b``, that register unchanged since,
    repeatedly; else (x, h)."""
    for _ in range(4):
        sites = info.defs(x)
        if len(sites) != 1:
            break
        d = sites[0]
        if d.op != "PRMT" or d.mods or d.guard is not None or len(d.srcs) != 3:
            break
        a, sel, b = d.srcs
        if not isinstance(sel, Imm):
            break
        n0, n1 = (sel.value >> (8 * h)) & 0xF, (sel.value >> (8 * h + 4)) & 0xF
        if n0 % 2 or n1 != n0 + 1:
            break
        src = a if n0 < 4 else b
        if not isinstance(src, VReg) or src.width != 1 or src.rc is not RC.R:
            break
        if not unchanged_since(block, [d], k, {src.id}):
            break
        x, h = src, (n0 % 4) // 2
    return x, h


def _half_select(ins: Instr, block: list[Instr], k: int, info: DefInfo) -> None:
    """A half-precision source read as one half in both lanes (``y.H0_H0``) of ``y = PRMT
    x, 0x4432, RZ`` (nvcc's ``mov.b32 {lo, hi}, x`` unpacking) reads ``x.H1_H1`` instead,
    as ptxas (``HADD2.F32 R3, -RZ, R19.H1_H1``): the PRMT goes with DCE when that was its
    only read. Through packing PRMTs (``0x5410``) too."""
    for j, s in enumerate(ins.srcs):
        if not isinstance(s, Src) or s.sel not in ("H0_H0", "H1_H1") or s.inv:
            continue
        if not isinstance(s.x, VReg) or s.x.width != 1 or s.x.rc is not RC.R:
            continue
        h = 0 if s.sel == "H0_H0" else 1
        x, h2 = _half_of(s.x, h, block, k, info)
        if x is not s.x or h2 != h:
            ins.srcs[j] = Src(x, neg=s.neg, abs=s.abs, sel=f"H{h2}_H{h2}")


def _add_minmax(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``t = IADD3 a, b, RZ`` read once, by ``d = VIMNMX t, c, p`` (either order) later in the
    block with a and b unchanged: ``VIADDMNMX d, a, b, c, p`` (min or max of a + b and c, as
    ptxas clamps ``i - 1`` to ``[0, 7]``: ``VIADDMNMX R10, R4, 0xffffffff, RZ, !PT``). c must be
    a register (0 is RZ); b an immediate or a plain register."""
    if ins.guard is not None or ins.mods not in ((), ("U32",)) or len(ins.srcs) != 3:
        return
    if len(ins.dsts) != 1:
        return
    for ti in (0, 1):
        t, c = ins.srcs[ti], ins.srcs[1 - ti]
        if isinstance(c, Imm) and c.kind == ImmKind.INT and c.value & M32 == 0:
            c = RZ
        if not _general(c) or isinstance(c, Src) or c == PT:
            continue
        if not isinstance(t, VReg) or t.width != 1 or uses.get(t.id, 0) != 1:
            continue
        sites = info.defs(t)
        if len(sites) != 1 or sites[0].uid in dead:
            continue
        add = sites[0]
        if add.op != "IADD3" or add.mods or add.guard is not None or len(add.dsts) != 1:
            continue
        if len(add.srcs) != 3:
            continue
        a, b, z = add.srcs
        if z != RZ or not _general(a) or isinstance(a, Src) or isinstance(b, Src):
            continue
        if not (isinstance(b, Imm) and b.kind == ImmKind.INT) and not _general(b):
            continue
        vids = {
            (x.v if isinstance(x, Part) else x).id for x in (a, b) if isinstance(x, VReg | Part)
        }
        if not unchanged_since(block, [add], k, vids):
            continue
        ins.op = "VIADDMNMX"
        ins.srcs = [a, b, c, ins.srcs[2]]
        dead.add(add.uid)
        return


def _constant_regs(info: DefInfo) -> set[int]:
    out = set()
    for vid, sites in info.sites.items():
        if len(sites) == 1:
            d = sites[0]
            if d.op == "MOV" and d.guard is None and isinstance(d.srcs[0], Imm) and not d.mods:
                out.add(vid)
    return out


def _is_const(op: Operand, consts: set[int]) -> bool:
    return isinstance(op, Imm) or (isinstance(op, VReg) and op.id in consts)


def _is_reg(op: Operand) -> bool:
    """A general (R) register: one that A, which takes no UR, can hold."""
    x = op.x if isinstance(op, Src) else op
    return isinstance(x, VReg | Part | Reg) and x != RZ and reg_class(x) is RC.R


def _commute(ins: Instr, consts: set[int]) -> None:
    """Put a constant A source into B when B is a plain register."""
    if len(ins.srcs) < 2:
        return
    a, b = ins.srcs[0], ins.srcs[1]
    if not _is_const(a, consts) or _is_const(b, consts) or not _is_reg(b):
        return
    if isinstance(a, Imm) and a.kind not in (ImmKind.INT, ImmKind.F32):
        return
    if ins.op in ("IMAD", "FFMA", "FMUL", "FADD", "IADD3", "VIMNMX", "FMNMX"):
        if ins.op in ("IMAD", "FFMA") and ins.mods[:1] == ("WIDE",):
            return  # IMAD.WIDE's A and B have their own signedness; keep them
    elif ins.op == "ISETP":
        cmp = ins.mods[0] if ins.mods else ""
        if cmp not in REVERSED or any(m == "EX" for m in ins.mods):
            return
        ins.mods = (REVERSED[cmp], *ins.mods[1:])
    elif ins.op == "LOP3":
        if ins.mods != ("LUT",) or len(ins.srcs) < 4 or not isinstance(ins.srcs[3], Imm):
            return
        lut = ins.srcs[3].value
        new = 0
        for idx in range(8):
            x, y, z = idx >> 2 & 1, idx >> 1 & 1, idx & 1
            new |= (lut >> (y << 2 | x << 1 | z) & 1) << idx
        ins.srcs[3] = Imm(new)
    ins.srcs[0], ins.srcs[1] = b, a


def _lea(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``t = SHF.L.U32 a, k, RZ`` used once by ``IADD3 d, t, b, RZ``: ``LEA d, a, b, k``; a
    shift right (``SHF.R.U32.HI t, RZ, k, a``, or ``.S32``) the same way: ``LEA.HI d, a, b, RZ,
    32-k`` (``LEA.HI.SX32 d, a, b, 32-k``), as ptxas rounds a signed quotient toward zero
    (``LEA.HI R7, R0, R0, RZ, 0x1``: R0 + (R0 >>> 31)). An add with a carry out keeps it
    (``LEA.HI R14, P1, R11, R10, RZ, 0x1``: the low word of a 64-bit x + (x >>> 63)), except
    into ``.SX32``."""
    if ins.mods or ins.guard is not None or len(ins.srcs) != 3:
        return
    carry = len(ins.dsts) == 2
    if not (len(ins.dsts) == 1 or (carry and isinstance(ins.dsts[1], VReg))):
        return
    if ins.srcs[2] != RZ:
        return
    for ti, bi in ((0, 1), (1, 0)):
        t, b = ins.srcs[ti], ins.srcs[bi]
        # t: a register, or the low word of a pair whose high word nothing writes (a 64-bit
        # shift right by 63 after dead-code elimination), read once
        tv = t.v if isinstance(t, Part) and t.k == 0 and t.n == 1 else t
        if not isinstance(tv, VReg) or (tv is t and tv.width != 1):
            continue
        if uses.get(tv.id, 0) != 1 or isinstance(b, Src):
            continue
        sites = info.defs(tv)
        if len(sites) != 1:
            continue
        shf = sites[0]
        if shf.op != "SHF" or shf.guard is not None or len(shf.srcs) != 3:
            continue
        if shf.mods == ("L", "U32"):
            a, n, zz = shf.srcs
        elif shf.mods in (("R", "U32", "HI"), ("R", "S32", "HI")):
            zz, n, a = shf.srcs  # a >> n: the high word of a << (32 - n)
        else:
            continue
        if not (isinstance(n, Imm) and 0 < n.value < 32 and zz == RZ):
            continue
        if not isinstance(a, VReg | Part) or not _unchanged(block, shf, k, a):
            continue
        if carry and "S32" in shf.mods:
            continue
        if shf.mods[0] == "L":
            ins.op, ins.mods, ins.srcs = "LEA", (), [a, b, Imm(n.value)]
        elif shf.mods[1] == "U32":
            ins.op, ins.mods, ins.srcs = "LEA", ("HI",), [a, b, RZ, Imm(32 - n.value)]
        else:
            ins.op, ins.mods, ins.srcs = "LEA", ("HI", "SX32"), [a, b, Imm(32 - n.value)]
        dead.add(shf.uid)
        return


def _general(op: Operand) -> bool:
    """A general register (a virtual one, a word of one, or RZ), not negated."""
    if isinstance(op, VReg | Part):
        return (op.v if isinstance(op, Part) else op).rc == RC.R
    return op == RZ


def _add3(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``t = IADD3 a, b, RZ`` used once, by ``IADD3 d, t, c, RZ`` later in the block with ``a``
    and ``b`` unchanged: ``IADD3 d, a, b, c`` (ptxas's three-input adds). At most one source may
    be other than a general register (an immediate, a constant, a uniform register): it goes
    to B, the only slot that takes one; negated sources are left alone."""
    if ins.mods or len(ins.dsts) != 1 or len(ins.srcs) != 3 or ins.srcs[2] != RZ:
        return
    for ti, ci in ((0, 1), (1, 0)):
        t, c = ins.srcs[ti], ins.srcs[ci]
        add = _sole_def(t, "IADD3", info, uses)
        if add is None:
            continue
        srcs = [add.srcs[0], add.srcs[1], c]
        if any(isinstance(x, Src) for x in srcs):
            continue
        regs = [x for x in srcs if _general(x)]
        imms = [x.value for x in srcs if isinstance(x, Imm) and x.kind == ImmKind.INT]
        if len(regs) == 3:
            new = srcs
        elif len(regs) == 2:  # the one other source to B
            new = [regs[0], next(x for x in srcs if not _general(x)), regs[1]]
        elif len(regs) == 1 and len(imms) == 2:  # (a + i) + j: a + (i + j)
            new = [regs[0], Imm((imms[0] + imms[1]) & 0xFFFFFFFF), RZ]
        else:
            continue
        # a and b hold at k what they held at the add
        vids = {
            (x.v if isinstance(x, Part) else x).id
            for x in add.srcs[:2]
            if isinstance(x, VReg | Part)
        }
        if not unchanged_since(block, [add], k, vids):
            continue
        ins.srcs = new
        dead.add(add.uid)
        return


def _sole_def(t: Operand, op: str, info: DefInfo, uses: dict[int, int]) -> Instr | None:
    """The one definition of ``t`` (a general register read once), when it is a plain
    two-source ``op`` (``op d, a, b, RZ``: no modifiers, no guard)."""
    if not isinstance(t, VReg) or t.rc != RC.R or t.width != 1 or uses.get(t.id, 0) != 1:
        return None
    sites = info.defs(t)
    if len(sites) != 1:
        return None
    d = sites[0]
    if (
        d.op != op
        or d.mods
        or d.guard is not None
        or len(d.dsts) != 1
        or len(d.srcs) != 3
        or d.srcs[2] != RZ
    ):
        return None
    return d


def _mad(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``t = IMAD a, b, RZ`` used once, by ``IADD3 d, [-]t, c, RZ`` later in the block with
    ``a`` and ``b`` unchanged: ``IMAD d, a, [-]b, c``. IMAD holds one non-register source (B
    or C), and negates only through an immediate B."""
    if ins.mods or ins.guard is not None or len(ins.dsts) != 1 or len(ins.srcs) != 3:
        return
    if ins.srcs[2] != RZ:
        return
    for ti, ci in ((0, 1), (1, 0)):
        t, c = ins.srcs[ti], ins.srcs[ci]
        neg = isinstance(t, Src) and t.neg and not t.abs and not t.inv and not t.sel
        tv = t.x if neg and isinstance(t, Src) else t
        mul = _sole_def(tv, "IMAD", info, uses)
        if mul is None:
            continue
        a, b = mul.srcs[0], mul.srcs[1]
        if not _general(a) or a == RZ or isinstance(b, Src):
            continue
        if neg:
            if not (isinstance(b, Imm) and b.kind == ImmKind.INT):
                continue
            b = Imm(-b.value & 0xFFFFFFFF)
        if not (_general(c) or (isinstance(c, Imm) and c.kind == ImmKind.INT)):
            continue
        if not _general(c) and not _general(b):
            continue  # one immediate (or constant, uniform register) at most
        vids = {
            (x.v if isinstance(x, Part) else x).id for x in (a, b) if isinstance(x, VReg | Part)
        }
        if not unchanged_since(block, [mul], k, vids):
            continue
        ins.op, ins.srcs = "IMAD", [a, b, c]
        dead.add(mul.uid)
        return


# 32-bit shifts by a register and their wrapping forms (the amount taken mod 32)
_WRAPS = {("L", "U32"): ("L", "W", "U32"), ("R", "U32", "HI"): ("R", "W", "U32", "HI")}


def _shift_wrap(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``t = LOP3 n & 0x1f`` read once, as the amount of a 32-bit ``SHF.L.U32`` or
    ``SHF.R.U32.HI``: the wrapping shift by ``n`` (``SHF.L.W.U32``, ``SHF.R.W.U32.HI``), which
    takes the amount mod 32 itself, as ptxas writes ``x << (n & 31)`` (a rotate's halves)."""
    wrap = _WRAPS.get(ins.mods)
    if wrap is None or ins.guard is not None or len(ins.srcs) != 3:
        return
    t = ins.srcs[1]
    if not isinstance(t, VReg) or t.rc != RC.R or t.width != 1 or uses.get(t.id, 0) != 1:
        return
    sites = info.defs(t)
    if len(sites) != 1:
        return
    mask = sites[0]
    if not _plain_lop3(mask):
        return
    n, m, c, lut, _ = mask.srcs
    if m != Imm(0x1F) or c != RZ or lut != Imm(0xC0):
        return
    if not _general(n) or n == RZ:
        return
    nv = {(n.v if isinstance(n, Part) else n).id} if isinstance(n, VReg | Part) else set()
    if not unchanged_since(block, [mask], k, nv):
        return
    ins.mods = wrap
    ins.srcs = [ins.srcs[0], n, ins.srcs[2]]
    dead.add(mask.uid)


def _share_multipliers(fn: Function, consts: set[int], info: DefInfo) -> None:
    """IMADs of one block that multiply by the same immediate and add a constant register
    (``MOV r, i``; an unrolled ``h = h * K + i``): one ``MOV k, K`` before the first, and each
    IMAD reads ``k`` with its addend as the immediate (``IMAD d, a, k, i``), as ptxas writes
    them: one MOV for the block instead of one per IMAD. Needs two IMADs at least."""
    for blk in fn.blocks:
        found: dict[int, list[tuple[int, Instr, int]]] = {}
        for k, ins in enumerate(blk.instrs):
            if ins.op != "IMAD" or ins.mods or ins.guard is not None or len(ins.srcs) != 3:
                continue
            a, b, c = ins.srcs
            if not (isinstance(b, Imm) and b.kind == ImmKind.INT) or not _general(a):
                continue
            if not isinstance(c, VReg) or c.id not in consts:
                continue
            cv = info.sites[c.id][0].srcs[0]
            assert isinstance(cv, Imm)
            if cv.kind != ImmKind.INT:
                continue
            found.setdefault(b.value, []).append((k, ins, cv.value))
        inserts: list[tuple[int, Instr]] = []
        for value, sites in found.items():
            if len(sites) < 2:
                continue
            reg = fn.new_vreg(RC.R)
            inserts.append(
                (sites[0][0], Instr("MOV", (), [reg], [Imm(value)], line=sites[0][1].line))
            )
            for _, ins, cval in sites:
                ins.srcs = [ins.srcs[0], reg, Imm(cval)]
        for k, mov in sorted(inserts, key=lambda x: -x[0]):
            blk.instrs.insert(k, mov)


# LOP3's truth-table inputs: A, B and C as the bit patterns of the eight rows
_ROWS = (0xF0, 0xCC, 0xAA)
M32 = 0xFFFFFFFF


def _plain_lop3(ins: Instr) -> bool:
    """``LOP3.LUT d, a, b, c, lut, !PT``: one general result, no predicate result, unguarded."""
    return (
        ins.op == "LOP3"
        and ins.mods == ("LUT",)
        and ins.guard is None
        and len(ins.dsts) == 1
        and isinstance(ins.dsts[0], VReg | Part)
        and len(ins.srcs) == 5
        and isinstance(ins.srcs[3], Imm)
        and isinstance(ins.srcs[4], Src)
        and ins.srcs[4].inv
        and ins.srcs[4].x == PT
    )


def _apply(lut: int, rows: list[int]) -> int:
    """The truth table ``lut`` applied bitwise to three inputs' row patterns."""
    out = 0
    for bit in range(8):
        i = (rows[0] >> bit & 1) << 2 | (rows[1] >> bit & 1) << 1 | (rows[2] >> bit & 1)
        out |= (lut >> i & 1) << bit
    return out


def _row(x: Operand, slots: list[Operand]) -> int | None:
    """The row pattern of a LOP3 input: the slot's it sits in, or a constant's (RZ, 0 and ~0
    as all-zero and all-one); None for a register in no slot."""
    if x == RZ or (isinstance(x, Imm) and x.kind == ImmKind.INT and x.value & M32 == 0):
        return 0
    if isinstance(x, Imm) and x.kind == ImmKind.INT and x.value & M32 == M32 and x not in slots:
        return 0xFF
    if x in slots:
        return _ROWS[slots.index(x)]
    return None


def _lop3_fuse(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``t = LOP3 a, b, c, f`` read once, by this LOP3 later in the block with its inputs
    unchanged: one LOP3 of the inputs of both when they are at most three distinct registers
    (or two and one other source for the B slot), the truth table composed."""
    if not _plain_lop3(ins):
        return
    for ti in range(3):
        t = ins.srcs[ti]
        if not isinstance(t, VReg) or t.rc != RC.R or t.width != 1 or uses.get(t.id, 0) != 1:
            continue
        sites = info.defs(t)
        if len(sites) != 1 or not _plain_lop3(sites[0]) or sites[0].uid in dead:
            continue
        inner = sites[0]
        # the inputs: registers (general, unmodified), the one special source, or 0 / ~0
        regs: list[Operand] = []
        special: list[Operand] = []
        ok = True
        for x in [*inner.srcs[:3], *(y for j, y in enumerate(ins.srcs[:3]) if j != ti)]:
            if _row(x, []) is not None:  # RZ, 0 or ~0: into the table
                continue
            if isinstance(x, VReg | Part) and _general(x):
                if x not in regs:
                    regs.append(x)
            elif isinstance(x, Src):
                ok = False
            elif x not in special:
                special.append(x)
        if not ok or len(special) > 1 or len(regs) + len(special) > 3:
            continue
        # slots: the special source in B, registers in A, C, then B
        slots: list[Operand] = [RZ, RZ, RZ]
        order = [0, 2, 1]
        if special:
            slots[1] = special[0]
            order = [0, 2]
        for j, r in zip(order, regs, strict=False):
            slots[j] = r

        def row(x: Operand, slots: list[Operand] = slots) -> int:
            r = _row(x, slots)
            assert r is not None
            return r

        inner_lut = inner.srcs[3]
        outer_lut = ins.srcs[3]
        assert isinstance(inner_lut, Imm) and isinstance(outer_lut, Imm)
        t_rows = _apply(inner_lut.value, [row(x) for x in inner.srcs[:3]])
        rows = [t_rows if j == ti else row(x) for j, x in enumerate(ins.srcs[:3])]
        vids = {
            (x.v if isinstance(x, Part) else x).id
            for x in inner.srcs[:3]
            if isinstance(x, VReg | Part)
        }
        if not unchanged_since(block, [inner], k, vids):
            continue
        ins.srcs = [*slots, Imm(_apply(outer_lut.value, rows)), ins.srcs[4]]
        dead.add(inner.uid)
        return


# float operations whose sources take a negation, and those that take an absolute value too
_TAKE_NEG = frozenset({"FADD", "FMUL", "FFMA", "FSETP", "FMNMX"})
_TAKE_ABS = frozenset({"FADD", "FMUL", "FSETP", "FMNMX"})
_FLOAT_SRCS = {"FADD": 2, "FMUL": 2, "FFMA": 3, "FSETP": 2, "FMNMX": 2}


def _float_modifiers(fn: Function, info: DefInfo) -> None:
    """``t = FADD -a, -RZ`` / ``FADD |a|, -RZ`` (neg.f32 / abs.f32, no .ftz) whose every reader
    is a float operation that takes the modifier on that source: the readers read ``-a`` /
    ``|a|`` themselves (``FSETP.GE.AND P0, PT, |R14|, 105615, PT``, as ptxas), and t dies. ``a``
    is written once, so it holds the same value at every reader."""
    users: dict[int, list[Instr]] = {}
    for ins in fn.instrs():
        for r in ins.use_regs():
            if isinstance(r, VReg):
                users.setdefault(r.id, []).append(ins)
            elif isinstance(r, Part):
                users.setdefault(r.v.id, []).append(ins)
    for ins in fn.instrs():
        if ins.op != "FADD" or ins.mods or ins.guard is not None or len(ins.srcs) != 2:
            continue
        x, z = ins.srcs
        if not (isinstance(z, Src) and z.neg and not z.abs and z.x == RZ):
            continue
        if not (isinstance(x, Src) and isinstance(x.x, VReg) and (x.neg or x.abs)):
            continue
        a, t = x.x, ins.dsts[0] if len(ins.dsts) == 1 else None
        if x.inv or x.sel or a.rc != RC.R or a.width != 1 or not isinstance(t, VReg):
            continue
        da = info.defs(a)
        if len(da) != 1 or da[0].guard is not None or len(info.defs(t)) != 1:
            continue
        readers = users.get(t.id, [])
        new: list[tuple[Instr, int, Src]] = []
        for u in readers:
            n = _FLOAT_SRCS.get(u.op)
            if n is None or (u.guard is not None and u.guard.pred == t):
                break
            spots = [j for j, y in enumerate(u.srcs) if _reads(y, t)]
            if not spots or any(j >= n for j in spots):
                break
            for j in spots:
                y = u.srcs[j]
                un, ua = (y.neg, y.abs) if isinstance(y, Src) else (False, False)
                if isinstance(y, Src) and (y.inv or y.sel):
                    break
                # the reader's |.| and -. over t = [-](|a| or a)
                if ua:
                    m = Src(a, neg=un, abs=True)
                else:
                    m = Src(a, neg=x.neg != un, abs=x.abs)
                if (m.abs and u.op not in _TAKE_ABS) or (m.neg and u.op not in _TAKE_NEG):
                    break
                new.append((u, j, m))
            else:
                continue
            break
        else:
            if readers:
                for u, j, m in new:
                    u.srcs[j] = m if (m.neg or m.abs) else a


def _fsel_neg(ins: Instr, info: DefInfo, uses: dict[int, int], dead: set[int]) -> None:
    """``SEL d, x, t, p`` (either order) of ``t = FADD -y, -RZ`` read only there: ``FSEL d, x,
    -y, p``, as ptxas selects a value or its negation (``FSEL R6, R6, -R6, !P0``). ``y`` written
    once."""
    if ins.mods or ins.guard is not None or len(ins.srcs) != 3 or len(ins.dsts) != 1:
        return
    for j in (0, 1):
        t = ins.srcs[j]
        if not isinstance(t, VReg) or uses.get(t.id, 0) != 1 or len(info.defs(t)) != 1:
            continue
        f = info.defs(t)[0]
        if f.op != "FADD" or f.mods or f.guard is not None or len(f.srcs) != 2 or f.uid in dead:
            continue
        x, z = f.srcs
        if not (isinstance(z, Src) and z.neg and not z.abs and z.x == RZ):
            continue
        if not (isinstance(x, Src) and x.neg and not (x.abs or x.inv or x.sel)):
            continue
        y = x.x
        if not isinstance(y, VReg) or y.rc != RC.R or y.width != 1 or len(info.defs(y)) != 1:
            continue
        other = ins.srcs[1 - j]
        if j == 1 and not _general(other):
            continue  # (FSEL's A is a register)
        if isinstance(other, Imm) and other.kind == ImmKind.INT:  # (the same bits, as a float)
            ins.srcs[1 - j] = Imm(other.value & 0xFFFFFFFF, ImmKind.F32)
        elif not (_general(other) or isinstance(other, Imm)):
            continue
        ins.op = "FSEL"
        ins.srcs[j] = Src(y, neg=True)
        dead.add(f.uid)
        return


def _plain_prmt(ins: Instr) -> bool:
    """``PRMT d, a, sel, b``: the default byte mode, an immediate selector, unguarded."""
    return (
        ins.op == "PRMT"
        and not ins.mods
        and ins.guard is None
        and len(ins.dsts) == 1
        and len(ins.srcs) == 3
        and isinstance(ins.srcs[1], Imm)
        and ins.srcs[1].kind == ImmKind.INT
        and all(_general(x) for x in (ins.srcs[0], ins.srcs[2]))
    )


def _prmt_fuse(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``t = PRMT a, s1, b`` read once, by this PRMT later in the block with a and b unchanged:
    one PRMT of the bytes both take when they come from two registers at most (zero bytes from
    RZ need a slot of their own), as ptxas packs halves (``PRMT R3, R12, 0x5410, R11``)."""
    for ti in (0, 2):
        if not _plain_prmt(ins):
            return
        t = ins.srcs[ti]
        if not isinstance(t, VReg) or t.width != 1 or uses.get(t.id, 0) != 1:
            continue
        sites = info.defs(t)
        if len(sites) != 1 or not _plain_prmt(sites[0]) or sites[0].uid in dead:
            continue
        inner = sites[0]
        vids = {
            (x.v if isinstance(x, Part) else x).id
            for x in (inner.srcs[0], inner.srcs[2])
            if isinstance(x, VReg | Part)
        }
        if not unchanged_since(block, [inner], k, vids):
            continue
        sel, isel = ins.srcs[1], inner.srcs[1]
        assert isinstance(sel, Imm) and isinstance(isel, Imm)
        refs: list[tuple[Operand, int, bool]] = []  # (register, byte, sign-replicated)
        for i in range(4):
            n = sel.value >> (4 * i) & 0xF
            src, byte, sign = ins.srcs[0 if n & 7 < 4 else 2], n & 3, bool(n & 8)
            if src == t:
                n1 = isel.value >> (4 * byte) & 0xF
                src, byte = inner.srcs[0 if n1 & 7 < 4 else 2], n1 & 3
                sign = sign or bool(n1 & 8)
            refs.append((src, byte, sign))
        regs: list[Operand] = []
        for src, _, _ in refs:
            if src != RZ and src not in regs:
                regs.append(src)
        if len(regs) > 2 or (len(regs) == 2 and any(src == RZ for src, _, _ in refs)):
            continue
        slots = [*regs, RZ, RZ][:2]
        new = 0
        for i, (src, byte, sign) in enumerate(refs):
            n = (4 * slots.index(src) + byte) | (8 if sign else 0)
            new |= n << (4 * i)
        ins.srcs = [slots[0], Imm(new), slots[1]]
        dead.add(inner.uid)


def _f2fp_pack(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    """``d = PRMT a, 0x5410, b`` of two conversions to one half each, ``a = F2FP.F16.F32.PACK_AB
    RZ, x`` and ``b = F2FP... RZ, y``, each read only here: one ``F2FP... d, y, x`` converts
    both (nvcc's ``cvt.rn.f16.f32`` twice then ``mov.b32 r, {lo, hi}``; ptxas: ``F2FP.F16.F32.
    PACK_AB R12, R9, R12``)."""
    if not _plain_prmt(ins) or ins.srcs[1] != Imm(0x5410):
        return
    defs = []
    for t in (ins.srcs[0], ins.srcs[2]):
        if not isinstance(t, VReg) or t.width != 1 or uses.get(t.id, 0) != 1:
            return
        sites = info.defs(t)
        if len(sites) != 1:
            return
        d = sites[0]
        if d.op != "F2FP" or "PACK_AB" not in d.mods or d.guard is not None or d.uid in dead:
            return
        if len(d.srcs) != 2 or d.srcs[0] != RZ or len(d.dsts) != 1:
            return
        defs.append(d)
    lo, hi = defs
    if lo.mods != hi.mods:
        return
    vids = {
        (x.v if isinstance(x, Part) else x).id
        for d in defs
        for x in d.srcs
        if isinstance(x, VReg | Part)
    }
    if not unchanged_since(block, defs, k, vids):
        return
    ins.op, ins.mods = "F2FP", lo.mods
    ins.srcs = [hi.srcs[1], lo.srcs[1]]
    dead.update((lo.uid, hi.uid))


def _reads(y: Operand, t: VReg) -> bool:
    return y == t or (isinstance(y, Src) and y.x == t)


# ISETP forms that test a value against zero (the sign does not matter for EQ/NE)
_ZERO_TESTS = {
    ("NE", "U32", "AND"): False,
    ("NE", "AND"): False,
    ("EQ", "U32", "AND"): True,
    ("EQ", "AND"): True,
}


def _bool_of(x: Operand, info: DefInfo) -> tuple[VReg, bool] | None:
    """``x = SEL a, b, q`` with constants a and b, one of them 0 (through an ``SGXT`` that keeps
    them): x != 0 exactly when ``q`` (False) or when not ``q`` (True), with ``q`` written once."""
    if not isinstance(x, VReg) or x.width != 1 or len(info.defs(x)) != 1:
        return None
    d = info.defs(x)[0]
    if d.guard is not None or len(d.dsts) != 1:
        return None
    if d.op == "SGXT" and not d.mods and len(d.srcs) == 2 and isinstance(d.srcs[1], Imm):
        bits = d.srcs[1].value
        inner = d.srcs[0]
        got = _bool_of(inner, info) if bits >= 2 else None
        if got is None or not isinstance(inner, VReg):
            return None
        sel = info.defs(inner)[0]  # its values: below 2^(bits-1), unchanged by SGXT
        vals = [_const_int(s) for s in sel.srcs[:2]]
        if any(v is None or v >= 1 << (bits - 1) for v in vals):
            return None
        return got
    if d.op != "SEL" or d.mods or len(d.srcs) != 3:
        return None
    a, b, q = (_const_int(d.srcs[0]), _const_int(d.srcs[1]), d.srcs[2])
    if a is None or b is None or (a == 0) == (b == 0):
        return None
    inv = False
    if isinstance(q, Src) and q.inv and not (q.neg or q.abs or q.sel):
        q, inv = q.x, True
    if not isinstance(q, VReg) or q.rc is not RC.P or len(info.defs(q)) != 1:
        return None
    if info.defs(q)[0].guard is not None:
        return None
    # x != 0: q ? a : b is the nonzero one
    return q, inv ^ (a == 0)


def _const_int(x: Operand) -> int | None:
    if x == RZ:
        return 0
    if isinstance(x, Imm) and x.kind == ImmKind.INT:
        return x.value
    return None


def _sel_test(
    ins: Instr,
    info: DefInfo,
    dead: set[int],
    alias: dict[int, tuple[VReg, bool]],
    other: set[int],
) -> None:
    """``p = ISETP.NE x, 0`` (or ``.EQ``) of ``x = SEL 1, 0, q`` (``selp`` then ``setp`` of the
    result, as nvcc writes a half-precision compare's result): ``p`` is ``q`` (or ``!q``), read
    as that where it is read (guards and SEL/FSEL predicates, ``_read_aliases``), and the
    compare goes (the SEL and a sign extension between, unread, go with DCE), as ptxas does."""
    eq = _ZERO_TESTS.get(ins.mods)
    if eq is None or ins.guard is not None or len(ins.srcs) != 3 or len(ins.dsts) != 2:
        return
    x, z, acc = ins.srcs
    if acc != PT or _const_int(z) != 0 or ins.dsts[1] != PT:
        return
    p = ins.dsts[0]
    if not isinstance(p, VReg) or len(info.defs(p)) != 1 or p.id in other or p.id in alias:
        return
    got = _bool_of(x, info)
    if got is None:
        return
    q, inv = got
    while q.id in alias:  # q's own compare went the same way
        q, more = alias[q.id]
        inv ^= more
    alias[p.id] = (q, inv ^ eq)
    dead.add(ins.uid)


def _pred_slot(ins: Instr) -> int | None:
    """The source slot of ``ins`` that reads a predicate, inverted or not: a SEL/FSEL's
    selector, a barrier reduction's or a vote's input (ptxas: ``BAR.RED.OR.DEFER_BLOCKING
    0x0, !P1`` where nvcc wrote ``selp`` then ``setp.ne`` of its result)."""
    if ins.op in ("SEL", "FSEL") and len(ins.srcs) == 3:
        return 2
    if ins.op == "BAR" and "RED" in ins.mods and len(ins.srcs) == 2:
        return 1
    if ins.op == "VOTE" and len(ins.srcs) == 1:
        return 0
    return None


def _read_elsewhere(fn: Function) -> set[int]:
    """The predicates read other than as a guard or in a ``_pred_slot`` (where a read of
    another predicate, inverted or not, could not take their place)."""
    out: set[int] = set()
    for ins in fn.instrs():
        slot = _pred_slot(ins)
        for j, s in enumerate(ins.srcs):
            for r in operand_regs(s):
                v = r.v if isinstance(r, Part) else r
                if isinstance(v, VReg) and v.rc is RC.P and j != slot:
                    out.add(v.id)
    return out


def _read_aliases(fn: Function, alias: dict[int, tuple[VReg, bool]]) -> None:
    """Each read of an aliased predicate (a guard, a ``_pred_slot``) as the predicate it
    equals."""
    for ins in fn.instrs():
        g = ins.guard
        if g is not None and isinstance(g.pred, VReg) and g.pred.id in alias:
            q, inv = alias[g.pred.id]
            ins.guard = Guard(q, g.inv ^ inv)
        slot = _pred_slot(ins)
        if slot is not None:
            s = ins.srcs[slot]
            v, i = (s.x, s.inv) if isinstance(s, Src) else (s, False)
            if isinstance(v, VReg) and v.id in alias:
                q, inv = alias[v.id]
                ins.srcs[slot] = Src(q, inv=True) if i ^ inv else q


def _lop3_test(
    ins: Instr,
    block: list[Instr],
    k: int,
    info: DefInfo,
    uses: dict[int, int],
    dead: set[int],
    guards: dict[int, int],
    flip: set[int],
) -> None:
    """``p = ISETP.NE t, 0`` (or ``.EQ``) of ``t = LOP3 a, b, c, f`` read only there, ``p`` read
    only by guards: LOP3's own predicate result (``LOP3.LUT P0, RZ, a, b, c, f``: result != 0),
    the guards flipped for ``.EQ``, as ptxas tests bits (``LOP3.LUT P0, RZ, R0, 0xfffffffe, RZ,
    0xc0, !PT`` then ``@!P0 BRA``)."""
    eq = _ZERO_TESTS.get(ins.mods)
    if eq is None or ins.guard is not None or len(ins.srcs) != 3 or len(ins.dsts) != 2:
        return
    t, z, acc = ins.srcs
    zero = z == RZ or (isinstance(z, Imm) and z.kind == ImmKind.INT and z.value == 0)
    if acc != PT or not zero or ins.dsts[1] != PT:
        return
    p = ins.dsts[0]
    if not isinstance(p, VReg) or not isinstance(t, VReg) or t.width != 1:
        return
    if uses.get(t.id, 0) != 1 or len(info.defs(p)) != 1 or p.id in flip:
        return
    if guards.get(p.id, 0) != uses.get(p.id, 0):
        return  # read other than as a guard (a guard is flipped, a source would not be)
    sites = info.defs(t)
    if len(sites) != 1 or not _plain_lop3(sites[0]) or sites[0].uid in dead:
        return
    lop = sites[0]
    vids = {
        (x.v if isinstance(x, Part) else x).id for x in lop.srcs[:3] if isinstance(x, VReg | Part)
    }
    if not unchanged_since(block, [lop], k, vids):
        return
    ins.op, ins.mods = "LOP3", ("LUT",)
    ins.dsts = [p, RZ]
    ins.srcs = list(lop.srcs)
    dead.add(lop.uid)
    if eq:
        flip.add(p.id)


def _unchanged(block: list[Instr], d: Instr, k: int, a: VReg | Part) -> bool:
    """d sits earlier in this block and nothing between it and position k writes a."""
    return unchanged_since(block, [d], k, {(a.v if isinstance(a, Part) else a).id})


# PLOP3 truth tables (of A and B, C = PT) an ISETP's accumulate input computes
_PLOP3_COMBINE = {0xC0: "AND", 0xFC: "OR", 0x3C: "XOR"}


def _setp_combine(
    ins: Instr, block: list[Instr], k: int, info: DefInfo, uses: dict[int, int], dead: set[int]
) -> None:
    if ins.mods != ("LUT",) or ins.guard is not None or len(ins.srcs) != 5:
        return
    lut = ins.srcs[3]
    if not isinstance(lut, Imm) or lut.value not in _PLOP3_COMBINE:
        return
    if ins.srcs[2] != PT:
        return
    for pi, xi in ((1, 0), (0, 1)):
        p, x = ins.srcs[pi], ins.srcs[xi]
        if not isinstance(p, VReg) or uses.get(p.id, 0) != 1:
            continue
        sites = info.defs(p)
        if len(sites) != 1:
            continue
        st = sites[0]
        acc = st.srcs[2] if len(st.srcs) == 3 else None
        if (
            st.op != "ISETP"
            or st.guard is not None
            or not st.mods
            or st.mods[-1] != "AND"
            or "EX" in st.mods
            or acc != PT
            or len(st.dsts) != 2
        ):
            continue
        if not all(
            not isinstance(o, VReg | Part) or _unchanged(block, st, k, o) for o in st.srcs[:2]
        ):
            continue
        ins.op = "ISETP"
        ins.mods = (*st.mods[:-1], _PLOP3_COMBINE[lut.value])
        ins.srcs = [st.srcs[0], st.srcs[1], x]
        dead.add(st.uid)
        return
