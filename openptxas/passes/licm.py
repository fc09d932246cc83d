"""HoistInvariantsEarly: loop-invariant code motion (ptxas's phase 35, after unrolling).

Pre: virtual IR, blocks in layout order. Post: same semantics; a pure instruction in a natural
loop whose sources are all defined outside the loop (or by instructions already hoisted) and
whose destinations have no other definition runs once, in the loop's preheader, instead of on
every iteration: the reciprocal of a loop-invariant divisor (``I2F.RP``, ``MUFU.RCP``,
``F2I``...) that nvcc's PTX computes in the body of ``a % n`` (t2/struct_param_large: ptxas
hoists it; ours ran it four times an iteration).

The instructions moved are arithmetic without side effects or faults (``HOISTABLE``; no loads
but constant-bank ones, nothing that reads the active lanes or the clock), unguarded. Moving
one out of a conditional part of the loop computes it where the loop did not: harmless for
those (no traps, the value is only read where the loop read it). The preheader is the loop's
single outside predecessor when that one leads only into the loop, else a new block laid out
right before the header that the outside predecessors branch to. Each loop takes at most
``MAX_VALUES`` new general registers live across it (distinct computations), the innermost
loops first, and none where the values already live in it come within ``HEADROOM`` of the
register budget (t2/bf16TensorCoreGemm's unrolled wmma loop, 226 registers, spilled with 12
more): the pass must not turn a loop that fitted the registers into one that spills.
"""

from __future__ import annotations

import itertools

from openptxas.ir.analysis import def_info, has_side_effects, map_regs, renamer, word_writes
from openptxas.ir.cfg import CFG, Dominance, dominators, natural_loops
from openptxas.ir.core import (
    RC,
    Block,
    CBank,
    Function,
    Instr,
    Label,
    Part,
    Reg,
    VReg,
    is_zero_reg,
    operand_regs,
)
from openptxas.ir.liveness import compute_liveness, live_after_each
from openptxas.passes.manager import PassContext

HOISTABLE = frozenset(
    {
        "IADD3", "IMAD", "LOP3", "SHF", "LEA", "SEL", "ISETP", "FSETP", "FADD", "FMUL", "FFMA",
        "MUFU", "I2F", "F2I", "I2FP", "F2F", "FRND", "IABS", "VIMNMX", "POPC", "FLO", "BREV",
        "PRMT", "BMSK", "SGXT", "MOV", "FSEL", "FMNMX", "DADD", "DMUL", "DFMA", "DSETP", "PLOP3",
        "HADD2", "HMUL2", "HFMA2", "LDC", "IMNMX", "VIADD", "F2FP",
    }
)  # fmt: skip
# New general registers a loop may keep live across it for hoisted values.
MAX_VALUES = 12
# Fraction of the register budget the values live in a loop (before hoisting) may reach for the
# loop to take hoisted values (the allocator needs room beyond the live count: alignment of
# pairs and quads, fat points).
HEADROOM = 0.6


def rename_local_redefinitions(fn: Function) -> int:
    """A register written twice in one block (whole, unguarded) gets a new name for the first
    value, read only up to the second write (``%r30 = I2F.U32.RP %r29; %r30 = MUFU.RCP %r30``
    becomes ``%r200 = I2F...; %r30 = MUFU.RCP %r200``): every value but a block's last has one
    definition, which code motion needs. Returns how many were renamed."""
    n = 0
    for blk in fn.blocks:
        writes: list[tuple[int, int]] = []  # (index, vreg id) of whole unguarded writes
        for k, ins in enumerate(blk.instrs):
            if ins.guard is not None:
                continue
            for d in ins.dsts:
                if isinstance(d, VReg):
                    writes.append((k, d.id))
        by_reg: dict[int, list[int]] = {}
        for k, vid in writes:
            by_reg.setdefault(vid, []).append(k)
        for vid, ks in by_reg.items():
            if len(ks) < 2:
                continue
            for a, b in itertools.pairwise(ks):
                n += _rename_between(fn, blk.instrs, a, b, vid)
    return n


def _rename_between(fn: Function, instrs: list[Instr], a: int, b: int, vid: int) -> int:
    """Rename the value ``instrs[a]`` writes to ``vid`` up to the next whole write at ``b``,
    unless something in between writes it in part or under a guard."""
    first = instrs[a]
    d = next(x for x in first.dsts if isinstance(x, VReg) and x.id == vid)
    for ins in instrs[a + 1 : b]:
        for r in ins.def_regs():
            if (r.v if isinstance(r, Part) else r) == d:
                return 0
    if any((r.v if isinstance(r, Part) else r) == d for r in instrs[b].def_regs() if r != d):
        return 0
    new = fn.new_vreg(d.rc, d.width)
    f = renamer({d.id: new})
    first.dsts = [new if x == d else x for x in first.dsts]
    for ins in instrs[a + 1 : b + 1]:
        map_regs(ins, f)
    return 1


def _pressure(fn: Function) -> dict[str, int]:
    """The most general-register words live at once in each block (by name)."""
    lv = compute_liveness(fn)
    after = live_after_each(fn, lv)
    width: dict[int, int] = {}
    for ins in fn.instrs():
        for op in (*ins.dsts, *ins.srcs):
            for r in operand_regs(op):
                v = r.v if isinstance(r, Part) else r
                if isinstance(v, VReg) and v.rc == RC.R:
                    width[v.id] = v.width
    out: dict[str, int] = {}
    for bi, blk in enumerate(fn.blocks):
        most = 0
        for m in after[bi]:
            words = 0
            while m:
                low = m & -m
                words += width.get(low.bit_length() - 1, 0)
                m ^= low
            most = max(most, words)
        out[blk.name] = most
    return out


def _budget(fn: Function, ctx: PassContext) -> int:
    most = ctx.target.gpr_count
    if fn.maxnreg is not None:
        return min(most, fn.maxnreg)
    m = ctx.options.maxrregcount
    return min(most, m) if m is not None else most


def hoist_invariants(fn: Function, ctx: PassContext) -> None:
    rename_local_redefinitions(fn)
    pressure: dict[str, int] | None = None  # (the liveness only for a function with loops)
    room = int(_budget(fn, ctx) * HEADROOM)
    done: set[str] = set()  # headers handled (by name: blocks move as preheaders appear)
    changed = True
    for _ in range(64):
        if changed:  # the loops again only after code moved (a preheader shifts the blocks)
            cfg = CFG.of(fn)
            dom = Dominance(dominators(cfg))
            loops = sorted(natural_loops(cfg, dom), key=lambda hb: len(hb[1]))  # innermost first
        todo = [(h, b) for h, b in loops if fn.blocks[h].name not in done]
        if not todo:
            return
        h, body = todo[0]
        done.add(fn.blocks[h].name)
        if pressure is None:
            pressure = _pressure(fn)
        live = max(pressure.get(fn.blocks[b].name, 0) for b in body)
        changed = live + MAX_VALUES <= room and _hoist_loop(fn, cfg, h, body)


def _hoist_loop(fn: Function, cfg: CFG, h: int, body: frozenset[int]) -> bool:
    """Move the loop's invariant instructions to its preheader; whether any moved."""
    entries = {e for _, e in fn.subroutines}
    if h == 0 or fn.blocks[h].name in entries:
        return False
    info = def_info(fn)
    written: dict[int, int] = {}  # vreg id -> instructions in the loop writing it
    for b in body:
        for ins in fn.blocks[b].instrs:
            for vid in {(r.v if isinstance(r, Part) else r).id for r in _vdefs(ins)}:
                written[vid] = written.get(vid, 0) + 1
    moved: list[Instr] = []
    moved_ids: set[int] = set()
    keys: set[tuple[object, ...]] = set()
    order = sorted(body)
    changed = True
    while changed:
        changed = False
        for b in order:
            for ins in fn.blocks[b].instrs:
                if id(ins) in moved_ids or not _invariant(ins, info.sites, written):
                    continue
                key = (ins.op, ins.mods, tuple(str(s) for s in ins.srcs))
                if key not in keys and any(_general(r) for r in ins.def_regs()):
                    if len(keys) >= MAX_VALUES:
                        continue
                    keys.add(key)
                moved.append(ins)
                moved_ids.add(id(ins))
                for vid in {(r.v if isinstance(r, Part) else r).id for r in _vdefs(ins)}:
                    written[vid] -= 1
                changed = True
    if not moved:
        return False
    blocks = [fn.blocks[b] for b in order]  # (a new preheader shifts the indices)
    pre = _preheader(fn, cfg, h, body)
    if pre is None:
        return False
    for blk in blocks:
        blk.instrs = [i for i in blk.instrs if id(i) not in moved_ids]
    t = pre.terminator()
    at = len(pre.instrs) - 1 if t is not None else len(pre.instrs)
    pre.instrs[at:at] = moved
    return True


def _general(r: object) -> bool:
    v = r.v if isinstance(r, Part) else r
    return isinstance(v, VReg) and v.rc == RC.R


def _vdefs(ins: Instr) -> list[VReg | Part]:
    return [r for r in ins.def_regs() if isinstance(r, VReg | Part)]


def _invariant(
    ins: Instr, sites: dict[int, list[Instr]], written: dict[int, int], *, siblings: bool = True
) -> bool:
    if ins.op not in HOISTABLE or ins.guard is not None or has_side_effects(ins):
        return False
    if not ins.dsts:
        return False
    for r in ins.def_regs():
        v = r.v if isinstance(r, Part) else r
        if isinstance(v, Reg):
            if not is_zero_reg(v):
                return False  # a fixed register (R1...)
            continue
        if not isinstance(v, VReg):
            return False
        if isinstance(r, Part):
            words = word_writes(v.id, sites.get(v.id, []))
            if any(words.get(w) != [ins] for w in range(r.k, r.k + r.n)):
                return False  # a word written elsewhere too: the order of the writes matters
            if siblings and written.get(v.id, 0) > 1:
                # another word written in the loop: only with it (the zero low word of
                # IMAD.HI.U32's 64-bit addend beside a high word computed per iteration,
                # hoisted alone, would hold a register across the loop and save nothing)
                others = [d for d in sites.get(v.id, []) if d is not ins]
                if not all(_invariant(d, sites, written, siblings=False) for d in others):
                    return False
        elif sites.get(v.id) != [ins]:
            return False
    for r in ins.use_regs():
        v = r.v if isinstance(r, Part) else r
        if isinstance(v, Reg):
            if not is_zero_reg(v):
                return False
            continue
        if not isinstance(v, VReg) or written.get(v.id, 0):
            return False
    if ins.op == "LDC":  # constant memory does not change; an index must be invariant (above)
        return all(isinstance(s, CBank) for s in ins.srcs)
    return True


def _preheader(fn: Function, cfg: CFG, h: int, body: frozenset[int]) -> Block | None:
    """The block the hoisted code goes to (made when the loop has none); None when the loop's
    entries cannot be given one (an indirect branch, a call, a body block falling into it)."""
    outside = [p for p in cfg.preds[h] if p not in body]
    if not outside:
        return None
    if len(outside) == 1:
        p = outside[0]
        t = fn.blocks[p].terminator()
        if cfg.succs[p] == [h] and (t is None or (t.op == "BRA" and t.guard is None)):
            return fn.blocks[p]
    head = fn.blocks[h]
    for p in outside:
        t = fn.blocks[p].terminator()
        if t is not None and t.op != "BRA":
            return None
    if h - 1 in body and h in cfg.succs[h - 1]:
        t = fn.blocks[h - 1].terminator()
        if t is None or t.guard is not None:
            return None  # a body block falls through into the header
    pre = Block(f"{head.name}.pre", [])
    for p in outside:
        t = fn.blocks[p].terminator()
        if t is not None:
            t.srcs = [
                Label(pre.name) if isinstance(s, Label) and s.block == head.name else s
                for s in t.srcs
            ]
    fn.blocks.insert(h, pre)
    return pre
