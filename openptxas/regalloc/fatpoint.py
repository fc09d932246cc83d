"""Register allocation: a fat-point allocator over occupancy bitsets.

Each virtual register gets one physical register (group) for its whole life. Its *occupancy* is
the set of program points where it holds a value (live after the point, or written at it); two
registers may share a physical register exactly when their occupancies are disjoint. Registers are
taken in order of their first definition, wide ones first at equal points, and each gets the
lowest-numbered free register of its class (aligned: pairs even, quads multiple of four) — the
point of greatest pressure (the "fat point") then decides the register count, as in ptxas
(see the seeds' fat-point allocator). A copy's destination prefers its source's register so that
the copy disappears after allocation.

``naive`` mode gives every virtual register its own registers (trivially correct; for bisecting).

ptxas reports "Used N registers" as the highest R index + 1 + ``Abi.regcount_extra``: registers
beyond those the code names are always counted (two on every ptxas 13.0.88 sm_90 kernel).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from openptxas.diag import RegAllocError
from openptxas.ir.core import (
    RC,
    Function,
    Instr,
    Label,
    Operand,
    Part,
    Reg,
    Src,
    VReg,
    operand_regs,
)
from openptxas.ir.liveness import call_conflicts, compute_liveness, defs_mask, live_after_each
from openptxas.regalloc.clobbers import forbidden_registers
from openptxas.targets import Abi, SMInfo


class ClassExhausted(RegAllocError):
    """No register of class ``rc`` is free for some value (the caller may spill and retry).
    ``value``: that value; ``constrained``: whether registers were barred to it (call clobbers)."""

    def __init__(
        self, rc: RC, message: str, value: VReg | None = None, constrained: bool = False
    ) -> None:
        super().__init__(message)
        self.rc = rc
        self.value = value
        self.constrained = constrained


COPY_OPS = frozenset({"MOV", "UMOV", "IMAD.MOV.U32", "IMAD.MOV"})


@dataclass(frozen=True, slots=True)
class ClassLimits:
    first: int
    last: int  # inclusive
    reserved: frozenset[int] = frozenset()


@dataclass
class Allocation:
    regs: dict[VReg, Reg] = field(default_factory=dict)
    max_index: dict[RC, int] = field(default_factory=dict)  # highest index used per class

    def registers(self, abi: Abi) -> int:
        """The figure ptxas reports as "Used N registers"."""
        # The stack pointer is always written at entry, so it always counts.
        return max(self.max_index.get(RC.R, -1), abi.stack_pointer) + 1 + abi.regcount_extra


def limits_for(gpr_budget: int, target: SMInfo) -> dict[RC, ClassLimits]:
    """``gpr_budget`` is the register count the function may report (maxrregcount, or the
    target's register count); the ABI's reserved registers are never handed out."""
    abi = target.abi
    return {
        RC.R: ClassLimits(0, gpr_budget - abi.regcount_extra - 1, abi.reserved_gprs),
        RC.UR: ClassLimits(abi.first_ur, target.ugpr_count - 1),
        RC.P: ClassLimits(0, 6),
        RC.UP: ClassLimits(0, 6),
        RC.B: ClassLimits(0, 15),
    }


def _copy_pairs(fn: Function) -> dict[VReg, list[VReg]]:
    """For each register, the registers it is copied from or to (allocation preferences)."""
    prefs: dict[VReg, list[VReg]] = {}
    for ins in fn.instrs():
        if ins.guard is not None or ins.name not in COPY_OPS:
            continue
        if len(ins.dsts) != 1 or not ins.srcs:
            continue
        d = ins.dsts[0]
        s = _plain_src(ins)
        if isinstance(d, VReg) and isinstance(s, VReg) and d.rc == s.rc and d.width == s.width:
            prefs.setdefault(d, []).append(s)
            prefs.setdefault(s, []).append(d)
    return prefs


def _word_copies(fn: Function) -> dict[VReg, list[tuple[VReg, int]]]:
    """Copies between a word of a group and a single register (``%p.0 = MOV %r``): for each
    register, (the other register, the offset of the single one in the group's registers)."""
    prefs: dict[VReg, list[tuple[VReg, int]]] = {}
    for ins in fn.instrs():
        if ins.guard is not None or ins.name not in COPY_OPS or len(ins.dsts) != 1:
            continue
        d, s = ins.dsts[0], _plain_src(ins)
        ok = isinstance(d, Part) and d.n == 1 and isinstance(s, VReg) and s.width == 1
        if ok and isinstance(d, Part) and isinstance(s, VReg) and d.v.rc == s.rc:
            prefs.setdefault(d.v, []).append((s, -d.k))
            prefs.setdefault(s, []).append((d.v, d.k))
    return prefs


def _group_copies(
    points: list[Instr],
) -> tuple[dict[VReg, list[tuple[VReg, int]]], dict[tuple[int, int, int], int]]:
    """Word copies between two groups (``%a.0 = MOV %b.0; %a.1 = MOV %b.1``, ``%q.1 = MOV
    %p.1``): for each register, (the other register, the offset of its first register from the
    other's when the copied words share a register), and the points of the copies by the two
    registers' ids and that offset (both orders). The source is live at a copy, where the
    destination is written, so their occupancies meet there; when the words share registers
    those copies are self-moves and the points do not keep the two apart within the source's
    registers."""
    prefs: dict[VReg, list[tuple[VReg, int]]] = {}
    pts: dict[tuple[int, int, int], int] = {}
    for p, ins in enumerate(points):
        if ins.guard is not None or ins.name not in COPY_OPS or len(ins.dsts) != 1:
            continue
        d, s = ins.dsts[0], _plain_src(ins)
        if not (isinstance(d, Part) and isinstance(s, Part) and d.n == s.n == 1):
            continue
        if d.v.rc != s.v.rc or d.v == s.v:
            continue
        for a, b, off in ((d.v, s.v, s.k - d.k), (s.v, d.v, d.k - s.k)):
            if (b, off) not in prefs.get(a, ()):
                prefs.setdefault(a, []).append((b, off))
            pts[(a.id, b.id, off)] = pts.get((a.id, b.id, off), 0) | 1 << p
    return prefs, pts


def _plain_src(ins: Instr) -> Operand | None:
    """The copied register (or word of a group) of a MOV-like instruction, if it is plain."""
    if ins.op in ("MOV", "UMOV"):
        s = ins.srcs[0]
    elif ins.op == "IMAD" and len(ins.srcs) == 3:
        s = ins.srcs[2]  # IMAD.MOV.U32 d, RZ, RZ, s
    else:
        return None
    return s if isinstance(s, VReg | Part) else None


def occupancy(fn: Function) -> tuple[dict[VReg, int], list[Instr]]:
    """Occupancy bitset of every virtual register over the linear program points."""
    lv = compute_liveness(fn)
    after = live_after_each(fn, lv)
    vregs: dict[int, VReg] = {}
    for ins in fn.instrs():
        for op in (*ins.dsts, *ins.srcs):
            for r in operand_regs(op):
                v = r.v if isinstance(r, Part) else r
                if isinstance(v, VReg):
                    vregs[v.id] = v
        if ins.guard is not None:
            g = ins.guard.pred
            v = g.v if isinstance(g, Part) else g
            if isinstance(v, VReg):
                vregs[v.id] = v
    occ: dict[int, int] = {}
    order: list[Instr] = []
    p = 0
    starts: dict[str, int] = {}
    bssy: list[tuple[int, str]] = []
    for bi, b in enumerate(fn.blocks):
        starts[b.name] = p
        for k, ins in enumerate(b.instrs):
            written, _ = defs_mask(ins)
            m = after[bi][k] | written
            bit = 1 << p
            while m:
                low = m & -m
                vid = low.bit_length() - 1
                occ[vid] = occ.get(vid, 0) | bit
                m ^= low
            if ins.op == "BSSY":
                label = next((o for o in ins.srcs if isinstance(o, Label)), None)
                if label is not None:
                    bssy.append((p, label.block))
            order.append(ins)
            p += 1
    regions = [(s, starts[name]) for s, name in bssy if name in starts and starts[name] > s]
    out = {vregs[i]: occ.get(i, 0) for i in sorted(vregs)}
    if regions:
        for v, m in out.items():
            if v.rc in (RC.UR, RC.UP) and m:
                out[v] = _uniform_regions(m, regions)
    return out, order


def _uniform_regions(mask: int, regions: list[tuple[int, int]]) -> int:
    """A uniform register is one per warp: while a value in one is live anywhere in a divergent
    region (BSSY .. its reconvergence point), code of the region's other paths, which the warp
    runs before, after or interleaved with it, must not reuse the register. (Fuzz seed 170028:
    a loop count kept in UR6 was overwritten by the other side of an if.)"""
    changed = True
    while changed:
        changed = False
        for s, e in regions:
            span = ((1 << (e - s + 1)) - 1) << s
            if mask & span and mask & span != span:
                mask |= span
                changed = True
    return mask


def _first_point(mask: int) -> int:
    return (mask & -mask).bit_length() - 1 if mask else 1 << 30


def allocate(
    fn: Function,
    limits: dict[RC, ClassLimits],
    *,
    naive: bool = False,
    abi: Abi | None = None,
    spread: dict[RC, int] | None = None,
    late: Callable[[Instr], bool] | None = None,
) -> Allocation:
    """With ``spread`` (class -> highest index it may use), a value with no copy preference
    takes, among the free registers up to that index, the lowest one whose last occupant was
    not last read by a ``late`` instruction (readers that take their operands late, stores,
    loads and the like) in the ``SPREAD_GAP`` points before the value's definition, else the
    one left the longest: a register such a reader has just read is not written again at once,
    so the reader costs no write-after-read wait and the post-allocation scheduler may reorder
    the two."""
    occ, points = occupancy(fn)
    late_points = 0  # a bit per program point of a late reader
    if spread is not None and late is not None:
        for p, ins in enumerate(points):
            if late(ins):
                late_points |= 1 << p
    # registers written by fixed-register code a value lives across (calls: regalloc/clobbers)
    avoid = {} if abi is None else forbidden_registers(fn, occ, points, abi)
    extra, first = call_conflicts(fn)  # calls of shared slow paths (ir/liveness.py)
    prefs = _copy_pairs(fn)
    words = _word_copies(fn)
    groups, copy_points = _group_copies(points)
    alloc = Allocation()
    # phys[rc][index] = occupancy of that physical register so far
    phys: dict[RC, dict[int, int]] = {rc: {} for rc in RC}
    order = sorted(
        occ, key=lambda v: (v.id not in first, _first_point(occ[v]), -v.width, v.rc, v.id)
    )
    for v in order:
        lim = limits[v.rc]
        align = tuple_alignment(v.width)
        mask = (occ[v] | extra.get(v.id, 0)) if not naive else -1
        table = phys[v.rc]

        if v in avoid:
            lim = ClassLimits(lim.first, lim.last, lim.reserved | avoid[v])
        chosen = None
        for other in prefs.get(v, ()):
            r = alloc.regs.get(other)
            if r is not None and _fits(r.index, v, mask, lim, table):
                chosen = r.index
                break
        for other, off in groups.get(v, ()) if chosen is None else ():
            r = alloc.regs.get(other)
            if r is None:
                continue
            shared = range(r.index, r.index + other.width)
            m = mask & ~copy_points.get((v.id, other.id, off), 0)
            if _fits(r.index + off, v, mask, lim, table, shared, m):
                chosen = r.index + off
                break
        for other, off in words.get(v, ()) if chosen is None else ():
            r = alloc.regs.get(other)
            if r is not None and _fits(r.index + off, v, mask, lim, table):
                chosen = r.index + off
                break
        cap = spread.get(v.rc) if spread is not None and not naive else None
        if chosen is None and cap is not None:
            chosen = _spread_choice(v, _first_point(occ[v]), mask, lim, table, cap, late_points)
        if chosen is None:
            base = lim.first - lim.first % align
            while base + v.width - 1 <= lim.last:
                if _fits(base, v, mask, lim, table):
                    chosen = base
                    break
                base += align
        if chosen is None:
            need = _pressure_estimate(occ, v.rc)
            raise ClassExhausted(
                v.rc,
                f"Register allocation failed for function '{fn.name}': {v.rc.name} registers "
                f"exhausted (about {need} live at once, at most {lim.last - lim.first + 1} "
                "available); spilling is not supported yet",
                v,
                v in avoid,
            )
        for j in range(v.width):
            table[chosen + j] = table.get(chosen + j, 0) | (occ[v] if not naive else -1)
        alloc.regs[v] = Reg(v.rc, chosen, v.width)
        top = chosen + v.width - 1
        if top > alloc.max_index.get(v.rc, -1):
            alloc.max_index[v.rc] = top
    return alloc


# Points a register stays unwritten after its last use before the spreading choice takes it
# (see ``allocate``).
SPREAD_GAP = 8


def tuple_alignment(width: int) -> int:
    """The first register of a group of ``width``: even for pairs, a multiple of four for
    three and four words, of eight for eight words and more, and of sixteen for sixteen (as
    ptxas places DMMA's: ``DMMA.16x8x16 R8, R16, R32, R8``). Our ``DMMA.16x8x8 R12, R24, R16,
    R32``, its 8-word result at R12, stopped an H200 with CUDA error 715, an illegal
    instruction, whatever its control codes (scripts/gpu_control_probe.py, t3/matrix_sm90)."""
    if width <= 2:
        return width
    if width < 8:
        return 4
    return 16 if width == 16 else 8


def _spread_choice(
    v: VReg, first: int, mask: int, lim: ClassLimits, table: dict[int, int], cap: int, late: int
) -> int | None:
    align = tuple_alignment(v.width)
    before = (1 << first) - 1 if first < 1 << 30 else 0
    best: tuple[int, int] | None = None  # (last point any word was occupied, base)
    base = lim.first - lim.first % align
    while base + v.width - 1 <= min(cap, lim.last):
        if _fits(base, v, mask, lim, table):
            ends = [(table.get(base + j, 0) & before).bit_length() - 1 for j in range(v.width)]
            last = max(ends)
            # (a value last occupies the point before its last reader)
            if all(e < first - SPREAD_GAP or e < 0 or not late >> (e + 1) & 1 for e in ends):
                return base
            if best is None or last < best[0]:
                best = (last, base)
        base += align
    return None if best is None else best[1]


def _fits(
    base: int,
    v: VReg,
    mask: int,
    lim: ClassLimits,
    table: dict[int, int],
    shared: range = range(0),
    shared_mask: int = 0,
) -> bool:
    """Whether registers ``base .. base+width-1`` are free over ``mask`` (those in ``shared``
    over ``shared_mask``) and well aligned."""
    align = tuple_alignment(v.width)
    if base % align or base < lim.first or base + v.width - 1 > lim.last:
        return False
    return all(
        base + j not in lim.reserved
        and not table.get(base + j, 0) & (shared_mask if base + j in shared else mask)
        for j in range(v.width)
    )


def _pressure_estimate(occ: dict[VReg, int], rc: RC) -> int:
    counts: dict[int, int] = {}
    for v, m in occ.items():
        if v.rc != rc:
            continue
        while m:
            low = m & -m
            p = low.bit_length() - 1
            counts[p] = counts.get(p, 0) + v.width
            m ^= low
    return max(counts.values(), default=0)


def rewrite(fn: Function, alloc: Allocation) -> None:
    """Replace virtual registers by their allocated physical registers, and drop copies that
    became self-moves."""

    def phys(x: Operand) -> Operand:
        if isinstance(x, VReg):
            return alloc.regs[x]
        if isinstance(x, Part):
            r = alloc.regs[x.v]
            return Reg(r.rc, r.index + x.k, x.n)
        return x

    from dataclasses import replace

    from openptxas.ir.core import Addr, CBank, Guard

    def conv(op: Operand) -> Operand:
        if isinstance(op, VReg | Part):
            return phys(op)
        if isinstance(op, Src):
            return replace(op, x=phys(op.x))  # type: ignore[arg-type]
        if isinstance(op, Addr):
            return Addr(
                base=phys(op.base) if op.base is not None else None,  # type: ignore[arg-type]
                offset=op.offset,
                ubase=phys(op.ubase) if op.ubase is not None else None,  # type: ignore[arg-type]
                desc=phys(op.desc) if op.desc is not None else None,  # type: ignore[arg-type]
                wide=op.wide,
            )
        if isinstance(op, CBank) and op.reg is not None:
            return CBank(op.bank, op.offset, phys(op.reg))  # type: ignore[arg-type]
        return op

    for b in fn.blocks:
        new: list[Instr] = []
        for ins in b.instrs:
            ins.dsts = [conv(d) for d in ins.dsts]
            ins.srcs = [conv(s) for s in ins.srcs]
            if ins.guard is not None:
                ins.guard = Guard(phys(ins.guard.pred), ins.guard.inv)  # type: ignore[arg-type]
            if ins.name in COPY_OPS and ins.guard is None and _is_self_move(ins):
                continue
            new.append(ins)
        b.instrs = new


def _is_self_move(ins: Instr) -> bool:
    d = ins.dsts[0] if ins.dsts else None
    if ins.op in ("MOV", "UMOV"):
        s: Operand | None = ins.srcs[0]
    elif ins.op == "IMAD" and len(ins.srcs) == 3:
        s = ins.srcs[2]
    else:
        return False
    return isinstance(d, Reg) and isinstance(s, Reg) and d == s
