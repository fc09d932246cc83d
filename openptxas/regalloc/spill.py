"""Spilling general registers to local memory.

When the fat-point allocator runs out of R registers (``-maxrregcount``, ``.maxnreg``,
``.maxntid``/``.minnctapersm``), some virtual registers are kept in stack slots instead: each
definition is followed by an ``STL [SP+slot]`` of a fresh short-lived register and each use is
preceded by an ``LDL`` into another (spill everywhere). A value defined once from constants
(``MOV``/``IMAD.MOV.U32`` of an immediate, ``LDC`` of a fixed bank address) is *rematerialised*
instead: its definition is repeated before each use and nothing goes to memory.

Which values: at every program point where more R registers are live than the budget holds,
the live values not written there are candidates; the cheapest per register freed is taken
first, cost being the uses and definitions weighted by loop depth (10 per level, as ptxas's
spill cost heuristics) and divided by the length of the live range (long, rarely used ranges go
first; rematerialisable values cost a quarter). The rewrite adds short ranges of its own, so
the phase allocates again and spills more while the allocator still fails.

The slots follow the function's ``.local`` variables in its frame (the stack pointer, lowered
once at entry, addresses both); a pair is stored with ``STL.64`` at an 8-byte aligned slot, a
quad with ``STL.128`` at a 16-byte one. With recursion each activation of a function needs its
own slots: a subroutine's values are then kept in its own frame, which grows by their slots
(a lowering of the stack pointer at its entry, a release before each return), and a value two
functions use (a recursive call's shared parameters) is not spilled. The spill instructions'
bytes are the ``-v`` figures "N bytes spill stores, M bytes spill loads".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openptxas.diag import RegAllocError
from openptxas.ir.core import (
    RC,
    RZ,
    Addr,
    CBank,
    Function,
    Guard,
    Imm,
    Instr,
    Part,
    Reg,
    VReg,
    block_index,
    successors,
)
from openptxas.ir.liveness import defs_mask
from openptxas.regalloc.spdelta import activation_deltas, advance, stack_deltas

_SIZE = {1: (), 2: ("64",), 4: ("128",)}
_REMAT_OPS = frozenset({"MOV", "IMAD.MOV.U32", "LDC"})


@dataclass
class SlotArea:
    """A frame's spill slots: ``area`` bytes from offset ``base`` (after the frame's own
    contents), the widest slot aligned to ``align``."""

    base: int = -1
    area: int = 0
    align: int = 8


@dataclass
class SpillState:
    """What the spiller has done to a function so far (kept across allocation attempts)."""

    temps: set[int] = field(default_factory=set)  # ids of its own short-lived registers
    slots: dict[int, int] = field(default_factory=dict)  # vreg id -> frame offset
    frame: SlotArea = field(default_factory=SlotArea)  # the kernel's (after .local variables)
    # with recursion, each subroutine's own frame (stack_deltas None: activation_deltas)
    own: dict[str, SlotArea] = field(default_factory=dict)
    stores: int = 0  # bytes of spill stores (STL)
    loads: int = 0  # bytes of spill loads (LDL)
    slack: int = 0  # registers kept free beyond the pressure estimate
    # instructions over which a reloaded value is reused (shrinks on failure); ``keep``: as
    # far as the pressure leaves room for it (else within the window only: the fallback)
    window: int = 48
    keep: bool = True
    # bytes of spill stores and loads in each subroutine's code (-v, as ptxas: its own block)
    sub_bytes: dict[str, list[int]] = field(default_factory=dict)


def loop_depths(fn: Function) -> list[int]:
    """Loop depth of each block: how many back edges (a branch to itself or an earlier block)
    span it in layout order."""
    n = len(fn.blocks)
    depth = [0] * n
    index = block_index(fn)
    for i in range(n):
        for s in successors(fn, i, index=index):
            if s <= i:
                for j in range(s, i + 1):
                    depth[j] += 1
    return depth


def _vreg(x: object) -> VReg | None:
    if isinstance(x, VReg):
        return x
    if isinstance(x, Part):
        return x.v
    return None


def remat_defs(fn: Function) -> dict[int, Instr]:
    """The virtual R registers defined once, unguarded, from constants only (a ``MOV`` or
    ``IMAD.MOV.U32`` of an immediate, an ``LDC`` of a fixed bank address): their definitions."""
    defs: dict[int, Instr | None] = {}
    for ins in fn.instrs():
        for r in ins.def_regs():
            v = _vreg(r)
            if v is not None and v.rc == RC.R:
                defs[v.id] = None if v.id in defs else ins
    out: dict[int, Instr] = {}
    for vid, d in defs.items():
        if d is None or d.guard is not None or d.name not in _REMAT_OPS or len(d.dsts) != 1:
            continue
        dst = d.dsts[0]
        if not isinstance(dst, VReg) or dst.id != vid:
            continue
        if all(
            isinstance(s, Imm) or s == RZ or (isinstance(s, CBank) and s.reg is None)
            for s in d.srcs
        ):
            out[vid] = d
    return out


def choose_spills(
    fn: Function,
    occ: dict[VReg, int],
    order: list[Instr],
    capacity: int,
    state: SpillState,
    barred: set[int] | None = None,
) -> list[VReg]:
    """Virtual R registers to spill so that at most ``capacity`` registers are live at any
    point (as far as the spill code's own short ranges allow); never those in ``barred``."""
    npts = len(order)
    depth_of_block = loop_depths(fn)
    point_depth: list[int] = []
    for bi, b in enumerate(fn.blocks):
        point_depth += [depth_of_block[bi]] * len(b.instrs)
    written_at: dict[int, int] = {}  # vreg id -> points that write it
    cost: dict[int, float] = {}
    # a wgmma's accumulator is written asynchronously until its WARPGROUP.DEPBAR: spill code
    # next to the wgmma would store or reload it while the tensor core owns it (ptxas spills
    # around the pipeline stage; not built): never a candidate
    pinned: set[int] = set(barred or ())
    for p, ins in enumerate(order):
        w = 10.0 ** min(point_depth[p], 4)
        seen: set[int] = set()
        if ins.op.endswith("GMMA"):
            pinned.update(v.id for r in (*ins.def_regs(), *ins.use_regs()) if (v := _vreg(r)))
        for r in (*ins.def_regs(), *ins.use_regs()):
            v = _vreg(r)
            if v is not None and v.rc == RC.R and v.id not in seen:
                seen.add(v.id)
                cost[v.id] = cost.get(v.id, 0.0) + w
        wm, _ = defs_mask(ins)
        m = wm
        while m:
            low = m & -m
            vid = low.bit_length() - 1
            written_at[vid] = written_at.get(vid, 0) | (1 << p)
            m ^= low
    pressure = [0] * npts
    cands: list[VReg] = []
    for v, m in occ.items():
        if v.rc != RC.R:
            continue
        if v.id not in state.temps and v.id not in pinned:
            cands.append(v)
        mm = m
        while mm:
            low = mm & -mm
            pressure[low.bit_length() - 1] += v.width
            mm ^= low
    remat = remat_defs(fn)
    freed = {v.id: occ[v] & ~written_at.get(v.id, 0) for v in cands}
    over = 0  # the points still above the capacity
    for p in range(npts):
        if pressure[p] > capacity:
            over |= 1 << p
    chosen: list[VReg] = []
    left = sorted(cands, key=lambda v: v.id)
    while over:
        best: VReg | None = None
        best_score = 0.0
        for v in left:
            gain = (freed[v.id] & over).bit_count()
            if not gain:
                continue
            c = cost.get(v.id, 1.0) * (0.25 if v.id in remat else 1.0)
            score = c / (gain * v.width)
            if best is None or score < best_score:
                best, best_score = v, score
        if best is None:
            break
        chosen.append(best)
        left.remove(best)
        m = freed[best.id]
        while m:
            low = m & -m
            p = low.bit_length() - 1
            pressure[p] -= best.width
            if pressure[p] <= capacity:
                over &= ~low
            m ^= low
    return chosen


def _slot(slots: dict[int, int], frame: SlotArea, v: VReg) -> int:
    if v.id not in slots:
        size = 4 * v.width
        align = min(size, 16)  # the widest access is 16 bytes (wider groups: several)
        off = (frame.area + align - 1) // align * align
        slots[v.id] = frame.base + off
        frame.area = off + size
        frame.align = max(frame.align, align)
    return slots[v.id]


def spill(
    fn: Function,
    victims: list[VReg],
    state: SpillState,
    sp: Reg,
    occ: dict[VReg, int] | None = None,
    capacity: int | None = None,
    frames: Frames | None = None,
) -> None:
    """Rewrite ``fn`` so that each of ``victims`` lives in a stack slot (or is recomputed).
    ``occ`` (their occupancy in ``fn``): victims whose ranges are disjoint share a slot; with
    ``capacity`` (the registers the allocation has), a loaded or defined value stays in its
    register for the uses that follow while the other values leave room for it. ``frames``:
    ``spill_frames(fn, sp)`` where the caller has it already."""
    kernel = state.frame
    if kernel.base < 0:
        kernel.base = (fn.local_bytes + 15) // 16 * 16 if fn.local_bytes else 0
    every = remat_defs(fn)
    remat = {v.id: every[v.id] for v in victims if v.id in every}
    kept = [v for v in victims if v.id not in remat]
    if frames is None:
        frames = spill_frames(fn, sp)
    if frames is None:
        raise RegAllocError(
            f"Register allocation failed for function '{fn.name}': spilling where the "
            "stack pointer is not one constant per block of a function is not supported "
            "by openptxas yet"
        )
    owners, deltas, where = frames.owners, frames.deltas, frames.readers
    if where is None:
        # the slots are the kernel's: [sp + slot - delta] in a subroutine's frame
        _assign_slots(kept, state.slots, kernel, occ)
    else:
        # recursion: each function's values in its own frame, [sp + slot - delta] from the
        # stack pointer at its entry (the slots lie just below it: frame_with_spills)
        mine: dict[str, list[VReg]] = {}
        for v in kept:
            names = where.get(v.id, {""})
            if len(names) != 1:
                raise RegAllocError(
                    f"Register allocation failed for function '{fn.name}': spilling a value "
                    f"that {' and '.join(sorted(n or fn.name for n in names))} both use is "
                    "not supported by openptxas yet"
                )
            mine.setdefault(next(iter(names)), []).append(v)
        for name, vs in sorted(mine.items()):
            frame = state.own.setdefault(name, SlotArea(base=0)) if name else kernel
            _assign_slots(vs, state.slots, frame, occ)
    ids = {v.id for v in victims}
    dropped = {id(d) for d in remat.values()}
    room = None
    if state.keep and occ is not None and capacity is not None:
        room = _room(fn, occ, ids, capacity)
    made = _copy_before_release(fn, ids, state, sp)
    point = 0  # (occupancy's program points: every instruction before the rewrite)
    for b, owner, delta in zip(fn.blocks, owners, deltas, strict=True):
        before = state.stores, state.loads
        rw = _BlockRewriter(fn, ids, remat, state, sp, room)
        rw.delta = delta
        for ins in b.instrs:
            rw.point = point
            point += id(ins) not in made  # (a copy made here: at the next one's point)
            if id(ins) in dropped:
                continue  # every use recomputes it
            rw.rewrite(ins)
            nd = advance(ins, rw.delta, sp, b is fn.blocks[0])
            assert nd is not None, "stack_deltas checked every write of the stack pointer"
            rw.delta = nd
        b.instrs, dead = dead_spill_stores(rw.out, rw.stored, sp)
        state.stores -= dead
        if owner:
            acc = state.sub_bytes.setdefault(owner, [0, 0])
            acc[0] += state.stores - before[0]
            acc[1] += state.loads - before[1]


# registers left free beside a value kept in its register for the spill code's own
# temporaries (scripts/spill_figures.py, spill-load bytes of ptxas's: 1.56 at 0, 1.66 at 1,
# 1.71 at 2; where the allocation fails after all, the spill rounds start again: phase.py)
_MARGIN = 0


def _room(fn: Function, occ: dict[VReg, int], ids: set[int], capacity: int) -> list[int]:
    """Registers free at each program point once ``ids`` are spilled (``capacity`` less the R
    registers the other values occupy there, less ``_MARGIN``); none at a call (a value kept
    across it may not take the registers the callee writes: the allocation could fail where
    the count fits, and a kept temporary cannot be spilled again)."""
    room = [capacity - _MARGIN if ins.op != "CALL" else 0 for ins in fn.instrs()]
    for v, m in occ.items():
        if v.rc != RC.R or v.id in ids:
            continue
        while m:
            low = m & -m
            room[low.bit_length() - 1] -= v.width
            m ^= low
    return room


def _copy_before_release(fn: Function, ids: set[int], state: SpillState, sp: Reg) -> set[int]:
    """A return that reads a value being spilled (its return address) after the release of the
    frame reads a copy made before the release: a guarded release (before a guarded return)
    leaves the stack pointer of the threads that go on where it was, so that a reload between
    the two would read one slot for both (difffuzz --pressure --calls seed 93). Returns the
    copies (their ``id``)."""
    made: set[int] = set()
    for b in fn.blocks:
        k = 0
        while k < len(b.instrs):
            ins = b.instrs[k]
            j = k
            while ins.op == "RET" and j and sp in b.instrs[j - 1].def_regs():
                j -= 1
            copies: list[Instr] = []
            for n, src in enumerate(ins.srcs if j < k else ()):
                if isinstance(src, VReg) and src.id in ids:
                    t = fn.new_vreg(RC.R, src.width)
                    state.temps.add(t.id)
                    for w in range(src.width):
                        a, c = (t, src) if src.width == 1 else (Part(t, w), Part(src, w))
                        copies.append(Instr("MOV", (), [a], [c], line=ins.line))
                    ins.srcs[n] = t
            b.instrs[j:j] = copies
            made.update(id(c) for c in copies)
            k += len(copies) + 1
    return made


def _bytes(ins: Instr) -> int:
    """The bytes an ``LDL``/``STL`` moves."""
    return 16 if "128" in ins.mods else 8 if "64" in ins.mods else 4


# what may read any stack slot (a subroutine reads the kernel's slots), or leave the block
# for code that may (a branch within a block)
_READS_ANY = frozenset({"LD", "LDL", "ATOM", "RED", "CALL", "BRA", "BRX", "JMP", "JMX", "RET"})


def dead_spill_stores(instrs: list[Instr], stored: set[int], sp: Reg) -> tuple[list[Instr], int]:
    """``instrs`` (one block) without the spill stores (``stored``) whose bytes are all stored
    again further on in the block before anything may read them, and the bytes dropped. Reads:
    a load from the stack pointer plus an offset (its bytes), and of all of them the others of
    ``_READS_ANY`` (generic or register-addressed loads and atomics, calls, branches); a write
    of the stack pointer moves every offset."""
    later: set[int] = set()  # stack-pointer offsets stored again below, not read in between
    keep: list[Instr] = []
    dropped = 0
    for ins in reversed(instrs):
        a = ins.srcs[0] if ins.op in ("LDL", "STL") and ins.srcs else None
        own = isinstance(a, Addr) and a.base == sp and a.ubase is None
        if ins.op == "STL" and id(ins) in stored and ins.guard is None and own:
            assert isinstance(a, Addr)
            span = range(a.offset, a.offset + _bytes(ins))
            if all(x in later for x in span):
                dropped += _bytes(ins)
                continue
            later.update(span)
        elif ins.op == "LDL" and own:
            assert isinstance(a, Addr)
            later.difference_update(range(a.offset, a.offset + _bytes(ins)))
        elif ins.op in _READS_ANY or sp in ins.def_regs():
            later.clear()
        keep.append(ins)
    keep.reverse()
    return keep, dropped


@dataclass(frozen=True)
class Frames:
    """Where a function's spill slots are: each block's function (``owners``, "" for the
    kernel) and the stack pointer's offset there (``deltas``) from the kernel's, or with
    recursion from its own function's entry; then ``readers`` (the functions using each value)
    is set: each function's values go to its own frame."""

    owners: list[str]
    deltas: list[int]
    readers: dict[int, set[str]] | None


def spill_frames(fn: Function, sp: Reg) -> Frames | None:
    """The slot layout spilling takes in ``fn``; None where the stack pointer is not one
    constant per block of a function (spilling is refused)."""
    deltas = stack_deltas(fn, sp)
    if deltas is not None:
        entries = {entry: name for name, entry in fn.subroutines}
        owners: list[str] = []
        for b in fn.blocks:
            owners.append(entries.get(b.name, owners[-1] if owners else ""))  # in layout
        return Frames(owners, deltas, None)
    found = activation_deltas(fn, sp)
    if found is None:
        return None
    owners, deltas = found
    return Frames(owners, deltas, functions_reading(fn, owners))


def functions_reading(fn: Function, owners: list[str]) -> dict[int, set[str]]:
    """Virtual register id -> the functions (``owners``: each block's) whose code reads or
    writes it."""
    out: dict[int, set[str]] = {}
    for b, owner in zip(fn.blocks, owners, strict=True):
        for ins in b.instrs:
            for r in (*ins.def_regs(), *ins.use_regs()):
                v = _vreg(r)
                if v is not None:
                    out.setdefault(v.id, set()).add(owner)
    return out


def _assign_slots(
    victims: list[VReg], slots: dict[int, int], frame: SlotArea, occ: dict[VReg, int] | None
) -> None:
    """Slots in ``frame`` for this round's victims: a victim takes the slot of an earlier one of
    the same size whose range it does not overlap, else a new one."""
    shared: list[tuple[int, int, int]] = []  # (offset, size, occupancy so far)
    for v in sorted(victims, key=lambda v: (-v.width, v.id)):
        size = 4 * v.width
        m = occ.get(v, -1) if occ is not None else -1
        for k, (off, sz, busy) in enumerate(shared):
            if sz == size and not busy & m:
                shared[k] = (off, sz, busy | m)
                slots[v.id] = off
                break
        else:
            off = _slot(slots, frame, v)
            shared.append((off, size, m))


class _BlockRewriter:
    """The spill code of one block: loads before uses, stores after definitions, and reuse of
    a value still held in a temporary from a recent load or definition."""

    def __init__(
        self,
        fn: Function,
        ids: set[int],
        remat: dict[int, Instr],
        state: SpillState,
        sp: Reg,
        room: list[int] | None = None,
    ) -> None:
        self.fn, self.ids, self.remat, self.state, self.sp = fn, ids, remat, state, sp
        self.room = room  # free registers at each program point (spill's _room), shared
        self.out: list[Instr] = []
        # vreg id -> (temp, position it was set or last reused, its program point)
        self.held: dict[int, tuple[VReg, int, int]] = {}
        self.pos = 0
        self.point = 0  # the program point of the instruction being rewritten
        self.stored: set[int] = set()  # the spill stores it made (their id)
        self.delta = 0  # the stack pointer's offset from the kernel's here (regalloc/spdelta)

    def _kept(self, vid: int) -> VReg | None:
        """The temporary that holds ``vid`` since a recent load or definition, if it may live
        on to here: within the window and, where the free registers are known, with room for
        it at every point in between (which it then takes)."""
        h = self.held.get(vid)
        if h is None or self.pos - h[1] > self.state.window:
            return None
        t, _pos, since = h
        if self.room is not None:
            between = range(since + 1, self.point)
            if any(self.room[q] < t.width for q in between):
                return None
            for q in between:
                self.room[q] -= t.width
        self.held[vid] = (t, self.pos, self.point)
        return t

    def _new(self, n: int) -> VReg:
        t = self.fn.new_vreg(RC.R, n)
        self.state.temps.add(t.id)
        return t

    def _addr(self, v: VReg, k: int) -> Addr:
        return Addr(self.sp, self.state.slots[v.id] + 4 * k - self.delta)

    def _mem(
        self, op: str, v: VReg, k: int, t: VReg, n: int, line: int, guard: Guard | None = None
    ) -> list[Instr]:
        """``LDL``/``STL`` of words ``k .. k+n-1`` of ``v``'s slot from/to ``t``: one access of
        up to four words at a time (a wgmma accumulator group is 32 or 64 words)."""
        out = []
        for j in range(0, n, 4):
            c = min(4, n - j)
            r: VReg | Part = t if c == n else Part(t, j, c)
            addr = self._addr(v, k + j)
            if op == "LDL":
                out.append(Instr("LDL", _SIZE[c], [r], [addr], line=line))
            else:
                out.append(Instr("STL", _SIZE[c], [], [addr, r], guard=guard, line=line))
        return out

    def rewrite(self, ins: Instr) -> None:
        from openptxas.ir.analysis import map_regs

        self.pos += 1
        before: list[Instr] = []
        after: list[Instr] = []
        whole = {v.id for r in ins.use_regs() if isinstance(r, VReg) and (v := r).id in self.ids}
        loaded: dict[tuple[int, int, int], VReg] = {}

        def load(v: VReg, k: int, n: int) -> VReg:
            key = (v.id, k, n)
            if key in loaded:
                return loaded[key]
            h = self._kept(v.id) if (k, n) == (0, v.width) else None
            if h is not None:
                loaded[key] = h
                return h
            t = self._new(n)
            d = self.remat.get(v.id)
            if d is not None:
                before.append(Instr(d.op, d.mods, [t], list(d.srcs), line=ins.line))
            else:
                before.extend(self._mem("LDL", v, k, t, n, ins.line))
                self.state.loads += 4 * n
            if (k, n) == (0, v.width):
                self.held[v.id] = (t, self.pos, self.point)
            loaded[key] = t
            return t

        def use(x: VReg | Part | Reg) -> VReg | Part | Reg:
            v = _vreg(x)
            if v is None or v.id not in self.ids:
                return x
            if v.id in whole or (isinstance(x, Part) and self._kept(v.id) is not None):
                t = load(v, 0, v.width)
                return Part(t, x.k, x.n) if isinstance(x, Part) else t
            assert isinstance(x, Part)
            return load(v, x.k, x.n)

        map_regs(ins, use)
        defined: list[tuple[int, VReg | None]] = []

        def define(x: VReg | Part | Reg) -> VReg | Part | Reg:
            v = _vreg(x)
            if v is None or v.id not in self.ids:
                return x
            k, n = (x.k, x.n) if isinstance(x, Part) else (0, v.width)
            t = self._new(n)
            if ins.guard is not None:
                # a skipped definition keeps the slot's value: the temporary starts as it (a
                # copy of the value loaded for this instruction or held, else a load), so that
                # its range starts here and not at the function's entry
                src = loaded.get((v.id, 0, v.width))
                if src is None:
                    src = self._kept(v.id)
                if src is not None and n == 1 == v.width:
                    # (a pair copied word by word would be partly written, not killed)
                    before.append(Instr("MOV", (), [t], [src], line=ins.line))
                else:
                    before.extend(self._mem("LDL", v, k, t, n, ins.line))
                    self.state.loads += 4 * n
            # (unguarded: a guarded write's temporary started as the value, and a store that
            # every thread makes lets dead_spill_stores drop an earlier one)
            stores = self._mem("STL", v, k, t, n, ins.line)
            self.stored.update(id(st) for st in stores)
            after.extend(stores)
            self.state.stores += 4 * n
            # (a guarded write's temporary started as the value: it holds the value after it
            # whether the write happened or not)
            defined.append((v.id, t if (k, n) == (0, v.width) else None))
            return t

        map_regs(ins, define, dsts=True, srcs=False)
        for vid, whole_def in defined:
            if whole_def is not None:
                self.held[vid] = (whole_def, self.pos, self.point)
            else:
                # a partial write: a copy held from before (or loaded for this very
                # instruction) is stale
                self.held.pop(vid, None)
        self.out += before
        self.out.append(ins)
        self.out += after


def frame_with_spills(fn: Function, state: SpillState, sp: Reg) -> None:
    """Grow the function's frame by the spill area and lower the stack pointer by the new size
    (the adjustment after the stack pointer's load at entry); with recursion, each subroutine's
    own frame by its slots."""
    for name, own in sorted(state.own.items()):
        if own.area:
            _grow_own_frame(fn, name, (own.area + 15) // 16 * 16, sp)
    kernel = state.frame
    if not kernel.area:
        return
    a = kernel.align
    frame = (kernel.base + kernel.area + a - 1) // a * a
    entry = fn.blocks[0].instrs
    for k, ins in enumerate(entry):
        if ins.op == "IADD3" and ins.dsts == [sp] and ins.srcs and ins.srcs[0] == sp:
            entry[k] = Instr("IADD3", (), [sp], [sp, Imm((-frame) & 0xFFFFFFFF), RZ], line=ins.line)
            break
    else:
        at = next(
            (k + 1 for k, ins in enumerate(entry) if ins.op == "LDC" and ins.dsts == [sp]), None
        )
        if at is None:
            raise RegAllocError(
                f"Register allocation failed for function '{fn.name}': spilling in a function "
                "without its own stack pointer is not supported by openptxas yet"
            )
        entry.insert(at, Instr("IADD3", (), [sp], [sp, Imm((-frame) & 0xFFFFFFFF), RZ]))
    fn.local_bytes = frame


def _grow_own_frame(fn: Function, name: str, size: int, sp: Reg) -> None:
    """Lower the stack pointer by ``size`` first thing in subroutine ``name`` and raise it again
    right before each of its returns (under the return's guard): its spill slots, addressed from
    the stack pointer at its entry (activation_deltas), are those bytes."""
    found = activation_deltas(fn, sp)
    assert found is not None, "spill() measured the function before"
    owners, _ = found
    index = block_index(fn)
    e = index[dict(fn.subroutines)[name]]
    if any(
        e in successors(fn, i, over_calls=True, index=index)
        for i, owner in enumerate(owners)
        if owner == name
    ):
        raise RegAllocError(
            f"Register allocation failed for function '{fn.name}': spilling in '{name}', whose "
            "first block is a branch target, is not supported by openptxas yet"
        )
    fn.blocks[e].instrs.insert(0, Instr("IADD3", (), [sp], [sp, Imm((-size) & 0xFFFFFFFF), RZ]))
    for b, owner in zip(fn.blocks, owners, strict=True):
        if owner != name:
            continue
        for k in range(len(b.instrs) - 1, -1, -1):
            ret = b.instrs[k]
            if ret.op == "RET":
                pop = Instr("IADD3", (), [sp], [sp, Imm(size), RZ], guard=ret.guard, line=ret.line)
                b.instrs.insert(k, pop)
    frame, saved = fn.sub_frames.get(name, (0, 0))
    fn.sub_frames[name] = (frame + size, saved)  # its -v block
    fn.call_stack += size
