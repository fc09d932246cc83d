"""LateVectorization: neighbouring 32-bit shared-memory loads become one LDS.64 or LDS.128.

ptxas 13.0 reads a row of a shared tile with vector loads: t1/matmul_tiled's ``As[ty][k]`` for
k = 0..15 is four ``LDS.128`` in its code, sixteen ``LDS`` in ours (1.075 times its
warp-instructions). This pass does the same for loads it can prove may be merged:

- 32-bit ``LDS`` (no size or sign modifier), unguarded, in one block, from one base register
  at offsets o, o+4 (a pair) or o, o+4, o+8, o+12 (a quad), each result a register written
  only there and not read between the first load and its own;
- no instruction between them but pure arithmetic and other loads (a store, atomic, barrier,
  call or branch ends the group), and the base not written in between;
- base + o aligned to the vector's size: the base's known alignment (``known_alignment``, the
  trailing zero bits of every value it can hold: constants, the shared window base, shifts,
  LEA, additions and products of aligned values) and o a multiple of it.

Post: the first load of each group is the vector load into a new register pair or quad, the
others are gone, and every read of their results reads the vector's word instead.

Constant-bank loads pair the same way (``pair_constant_loads``): two 32-bit ``LDC`` of one
bank at offsets o and o+4, o a multiple of 8 (no register index), in one block, become one
``LDC.64`` at the first (constants do not change: nothing between matters). ptxas reads
t1/const_mem's matrix row by row with ``ULDC.64 UR20, c[0x3][0x110]`` (nine loads for
seventeen words; ours were seventeen) and two f32 parameters side by side with one ``LDC.64``.
Not under ``-c``: a bank-3 offset there is relocated per variable.
"""

from __future__ import annotations

from openptxas.ir.analysis import DefInfo, def_info, map_regs, word_renamer
from openptxas.ir.core import (
    RC,
    Addr,
    CBank,
    Function,
    Imm,
    ImmKind,
    Instr,
    Operand,
    Part,
    Reg,
    Src,
    VReg,
    is_zero_reg,
)
from openptxas.passes.cse import PURE
from openptxas.passes.manager import PassContext

# instructions that may sit between the loads of a group: they read or write no memory that a
# shared load could see change
BETWEEN = PURE | frozenset({"LDS", "LDG", "LDC", "ULDC", "LD", "LDL", "F2FP", "HADD2", "HMUL2"})
TOP = 32  # alignment bits of zero (and of a value not yet seen in the fixed point)


def _tz(x: int) -> int:
    x &= 0xFFFFFFFF
    return TOP if x == 0 else (x & -x).bit_length() - 1


def known_alignment(info: DefInfo) -> dict[int, int]:
    """For each 32-bit R or UR virtual register (``info``: the function's definitions), how
    many low bits are zero in every value it holds (a fixed point over all its definitions; 0
    when unknown)."""
    words = {
        vid: sites
        for vid, sites in info.sites.items()
        if all(
            len(s.dsts) >= 1 and isinstance(s.dsts[0], VReg) and s.dsts[0].id == vid for s in sites
        )
    }
    tz: dict[int, int] = dict.fromkeys(words, TOP)

    def of(op: Operand) -> int:
        if isinstance(op, Imm):
            return _tz(op.value) if op.kind == ImmKind.INT else 0
        if isinstance(op, Reg):
            return TOP if is_zero_reg(op) else 0
        if isinstance(op, VReg):
            return tz.get(op.id, 0) if op.width == 1 and op.rc in (RC.R, RC.UR) else 0
        if isinstance(op, Src) and op.neg and not (op.abs or op.inv or op.sel):
            return of(op.x)  # -x has x's trailing zeros
        return 0

    def value(ins: Instr) -> int:
        op, mods, s = ins.op, ins.mods, ins.srcs
        if op in ("MOV", "UMOV") and not mods and len(s) == 1:
            return of(s[0])
        if op in ("IADD3", "UIADD3") and not mods and len(s) == 3:
            return min(of(x) for x in s)
        if op in ("LEA", "ULEA") and not mods and len(s) == 3 and isinstance(s[2], Imm):
            return min(of(s[0]) + s[2].value, of(s[1]), TOP)
        if op in ("IMAD", "UIMAD") and not mods and len(s) == 3:
            return min(of(s[0]) + of(s[1]), of(s[2]), TOP)
        if (
            op in ("SHF", "USHF")
            and mods == ("L", "U32")
            and len(s) == 3
            and isinstance(s[1], Imm)
            and of(s[2]) == TOP
        ):
            return min(of(s[0]) + (s[1].value & 31), TOP)
        return 0

    changed = True
    while changed:
        changed = False
        for vid, sites in words.items():
            new = min(value(ins) for ins in sites)
            if new < tz[vid]:
                tz[vid] = new
                changed = True
    return tz


def _candidate(ins: Instr) -> tuple[VReg, VReg, int] | None:
    """(result, base, offset) of a plain 32-bit shared load from a virtual register."""
    if ins.op != "LDS" or ins.mods or ins.guard is not None or len(ins.dsts) != 1:
        return None
    d, a = ins.dsts[0], ins.srcs[0] if ins.srcs else None
    if not (isinstance(d, VReg) and d.rc == RC.R and d.width == 1 and isinstance(a, Addr)):
        return None
    b = a.base
    if a.ubase is not None or a.desc is not None or a.wide or not isinstance(b, VReg):
        return None
    if b.rc != RC.R or b.width != 1:
        return None
    return d, b, a.offset


def vectorize_shared_loads(fn: Function, ctx: PassContext) -> None:
    _ = ctx
    if not any(i.op == "LDS" for b in fn.blocks for i in b.instrs):
        return
    info = def_info(fn)
    align = known_alignment(info)
    rename: dict[int, Part] = {}
    for blk in fn.blocks:
        blk.instrs = _vectorize_block(fn, blk.instrs, align, info, rename)
    if rename:
        conv = word_renamer(rename)
        for ins in fn.instrs():
            map_regs(ins, conv)


def _vectorize_block(
    fn: Function,
    code: list[Instr],
    align: dict[int, int],
    info: DefInfo,
    rename: dict[int, Part],
) -> list[Instr]:
    groups: dict[int, list[int]] = {}  # base id -> positions of its loads
    merged: dict[int, Instr] = {}  # position -> the vector load that replaces it
    gone: set[int] = set()

    def flush(bid: int) -> None:
        loads = groups.pop(bid, [])
        if len(loads) > 1:
            _merge(fn, code, loads, align.get(bid, 0), info, rename, merged, gone)

    for pos, ins in enumerate(code):
        c = _candidate(ins)
        if c is not None:
            groups.setdefault(c[1].id, []).append(pos)
        elif ins.op not in BETWEEN:
            for bid in list(groups):
                flush(bid)
        for r in ins.def_regs():
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg) and v.id in groups:
                flush(v.id)  # (a load into its own base read the old value: kept in)
    for bid in list(groups):
        flush(bid)
    if not merged and not gone:
        return code
    return [merged.get(pos, ins) for pos, ins in enumerate(code) if pos not in gone]


def _merge(
    fn: Function,
    code: list[Instr],
    loads: list[int],
    base_align: int,
    info: DefInfo,
    rename: dict[int, Part],
    merged: dict[int, Instr],
    gone: set[int],
) -> None:
    at: dict[int, int] = {}  # offset -> position (the first load of each offset)
    for pos in loads:
        c = _candidate(code[pos])
        assert c is not None
        at.setdefault(c[2], pos)
    used: set[int] = set()
    for width, size in ((4, 16), (2, 8)):
        if base_align < size.bit_length() - 1:
            continue
        for o in sorted(at):
            offs = [o + 4 * k for k in range(width)]
            if o % size or any(x not in at or at[x] in used for x in offs):
                continue
            poss = [at[x] for x in offs]
            first = min(poss)
            dsts = [code[p].dsts[0] for p in poss]
            if not all(_movable(code, info, d, first, p) for d, p in zip(dsts, poss, strict=True)):
                continue
            if len({d.id for d in dsts if isinstance(d, VReg)}) != width:
                continue
            base = code[first].srcs[0]
            assert isinstance(base, Addr)
            vec = fn.new_vreg(RC.R, width)
            mods = ("128",) if width == 4 else ("64",)
            merged[first] = Instr("LDS", mods, [vec], [Addr(base.base, o)], line=code[first].line)
            for k, (d, p) in enumerate(zip(dsts, poss, strict=True)):
                assert isinstance(d, VReg)
                rename[d.id] = Part(vec, k)
                used.add(p)
                if p != first:
                    gone.add(p)


def _movable(code: list[Instr], info: DefInfo, d: Operand, first: int, pos: int) -> bool:
    """Whether load result ``d`` (at ``pos``) may be written at ``first`` instead: written only
    there, and not read in between."""
    if not isinstance(d, VReg) or len(info.defs(d)) != 1:
        return False
    for ins in code[first:pos]:
        for r in ins.use_regs():
            v = r.v if isinstance(r, Part) else r
            if v == d:
                return False
    return True


def pair_constant_loads(fn: Function, ctx: PassContext) -> None:
    if ctx.options.compile_only:
        return
    info = def_info(fn)
    rename: dict[int, Part] = {}
    for blk in fn.blocks:
        code = blk.instrs
        at: dict[tuple[int, int], int] = {}  # (bank, offset) -> position of its first load
        for pos, ins in enumerate(code):
            c = _const_load(ins, info)
            if c is not None:
                at.setdefault(c, pos)
        merged: dict[int, Instr] = {}
        gone: set[int] = set()
        for (bank, o), p0 in sorted(at.items()):
            p1 = at.get((bank, o + 4))
            if o % 8 or p1 is None or p0 in gone or p1 in gone or p0 in merged or p1 in merged:
                continue
            first = min(p0, p1)
            d0, d1 = code[p0].dsts[0], code[p1].dsts[0]
            assert isinstance(d0, VReg) and isinstance(d1, VReg)
            if not (_movable(code, info, d0, first, p0) and _movable(code, info, d1, first, p1)):
                continue
            pair = fn.new_vreg(RC.R, 2)
            merged[first] = Instr("LDC", ("64",), [pair], [CBank(bank, o)], line=code[first].line)
            gone.add(max(p0, p1))
            rename[d0.id], rename[d1.id] = pair.part(0), pair.part(1)
        if merged:
            blk.instrs = [merged.get(p, x) for p, x in enumerate(code) if p not in gone]
    if rename:
        conv = word_renamer(rename)
        for ins in fn.instrs():
            map_regs(ins, conv)


def _const_load(ins: Instr, info: DefInfo) -> tuple[int, int] | None:
    """(bank, offset) of a plain 32-bit constant load into a register written only there."""
    if ins.op != "LDC" or ins.mods or ins.guard is not None or len(ins.dsts) != 1:
        return None
    d, s = ins.dsts[0], ins.srcs[0] if len(ins.srcs) == 1 else None
    if not isinstance(d, VReg) or d.rc != RC.R or d.width != 1 or len(info.defs(d)) != 1:
        return None
    if not isinstance(s, CBank) or s.reg is not None:
        return None
    return s.bank, s.offset
