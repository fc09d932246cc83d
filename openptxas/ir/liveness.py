"""Liveness of virtual registers, as bitsets (Python ints indexed by virtual-register id).

A definition kills a register only when it writes all of it unconditionally: a guarded definition
(``@P0 MOV``) keeps the old value alive, and so does a partial one (the low half of a pair) unless
the other words are written too, unconditionally and in the same block, before the register is
read (``%r1x2.0 = MOV RZ; %r1x2.1 = MUFU.RCP64H ...`` kills ``%r1x2`` at its first write: a pair
built word by word is not live before it is built, in a loop too).

Guards are followed within a block, as ptxas does: a read under ``@P`` of a register written
under the same ``@P`` earlier in the block (``P`` not written in between) does not need the old
value (``@P0 FFMA R8, ...; @P0 MUFU.RSQ R3, R8``), and writes under ``@P`` and ``@!P`` together
kill it (``@!P0 MOV R3, R2; @P0 FMUL R3, ...``). Without this, the temporaries of predicated
code (the slow paths of lower/fpslow.py) were live from the function's entry to their block.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from openptxas.ir.core import (
    Function,
    Instr,
    Label,
    Part,
    VReg,
    all_successors,
    block_index,
    predecessors,
    successors,
)


def _bit(v: VReg) -> int:
    return 1 << v.id


def uses_mask(ins: Instr) -> int:
    m = 0
    for r in ins.use_regs():
        if isinstance(r, VReg):
            m |= _bit(r)
        elif isinstance(r, Part):
            m |= _bit(r.v)
    return m


def defs_mask(ins: Instr) -> tuple[int, int]:
    """(registers written, registers killed = written completely and unconditionally)."""
    written = killed = 0
    for r in ins.def_regs():
        if isinstance(r, VReg):
            written |= _bit(r)
            if ins.guard is None:
                killed |= _bit(r)
        elif isinstance(r, Part):
            written |= _bit(r.v)
            if ins.guard is None and r.k == 0 and r.n == r.v.width:
                killed |= _bit(r.v)
    return written, killed


GuardKey = tuple[int, bool]  # (predicate vreg id, inverted)


def guard_key(ins: Instr) -> GuardKey | None:
    """The guard of ``ins`` when it is a virtual predicate (the guards liveness follows)."""
    g = ins.guard
    if g is None or not isinstance(g.pred, VReg):
        return None
    return (g.pred.id, g.inv)


def guarded_writes(ins: Instr) -> int:
    """Registers a guarded ``ins`` writes completely when its guard holds."""
    m = 0
    for r in ins.def_regs():
        if isinstance(r, VReg):
            m |= _bit(r)
        elif isinstance(r, Part) and r.k == 0 and r.n == r.v.width:
            m |= _bit(r.v)
    return m


def part_writes(ins: Instr) -> list[tuple[int, int, int]]:
    """(vreg id, words written, all of its words) for the unguarded partial writes of ``ins``."""
    if ins.guard is not None:
        return []
    out = []
    for r in ins.def_regs():
        if isinstance(r, Part) and not (r.k == 0 and r.n == r.v.width):
            words = ((1 << r.n) - 1) << r.k
            out.append((r.v.id, words, (1 << r.v.width) - 1))
    return out


@dataclass
class Liveness:
    live_in: list[int]
    live_out: list[int]
    succs: list[list[int]]
    preds: list[list[int]]


def compute_liveness(fn: Function) -> Liveness:
    n = len(fn.blocks)
    succs = all_successors(fn)
    preds = predecessors(fn)
    gen = [0] * n
    kill = [0] * n
    for i, b in enumerate(fn.blocks):
        g = k = 0
        written: dict[int, int] = {}  # words of a vreg written (unguarded) so far in the block
        covered: dict[GuardKey, int] = {}  # registers written under each guard so far
        cov_preds = 0  # the guard predicates with an entry in ``covered`` (a bit per vreg)
        for ins in b.instrs:
            key = guard_key(ins)
            used = uses_mask(ins) & ~k
            if key is not None:
                used &= ~(covered.get(key, 0) & ~(1 << key[0]))
            g |= used
            wrote, killed = defs_mask(ins)
            for vid, words, full in part_writes(ins):
                written[vid] = written.get(vid, 0) | words
                if written[vid] == full:
                    killed |= 1 << vid
            if key is not None:
                full_w = guarded_writes(ins)
                killed |= full_w & covered.get((key[0], not key[1]), 0)
                covered[key] = covered.get(key, 0) | full_w
                cov_preds |= 1 << key[0]
            k |= killed
            if wrote & cov_preds:  # (a guard predicate rewritten: its entries no longer hold)
                for ck in [ck for ck in covered if wrote >> ck[0] & 1]:
                    del covered[ck]
                cov_preds &= ~wrote
        gen[i], kill[i] = g, k
    calls = _call_sites(fn)
    if not calls:
        live_in, live_out = _fixpoint(gen, kill, succs, {}, {}, {})
        return Liveness(live_in, live_out, succs, preds)
    # Calls of the shared slow paths of division (lower/fpslow.py), context by context: a call
    # needs its subroutine's reads (its arguments) and what is live at its own return site,
    # less what the subroutine always writes; a subroutine's return passes on only its own
    # results. The values live across a call are kept apart from the subroutine's registers by
    # the call's clobbers (every register the subroutine writes occupies the call point:
    # live_after_each). Following each return to every call's site instead made the values
    # live across any call live in the subroutine, so all of them interfered with each other
    # (t2/f32_div_sqrt: 48 registers, ptxas 20). The allocator keeps the values live across a
    # call out of the subroutine's registers (call_conflicts).
    entries = {e for e, _ in calls.values()}
    defs = {e: _sub_defs(fn, e) for e in entries}
    must = {e: _must_write(fn, e, kill) for e in entries}
    owner: dict[int, int] = {}
    for e in entries:
        for x in _sub_blocks(fn, e):
            t = fn.blocks[x].terminator()
            if t is not None and t.op == "RET":
                owner[x] = e
    ret_mask = {x: defs[e] for x, e in owner.items()}
    live_in, live_out = _fixpoint(gen, kill, succs, calls, must, ret_mask)
    return Liveness(live_in, live_out, succs, preds)


def call_conflicts(fn: Function) -> tuple[dict[int, int], set[int]]:
    """Extra program points (in the allocator's numbering: every instruction of fn.blocks in
    order) each register must be free over, for the calls of shared slow paths: a value live
    across a call (live at its return site, not written by the subroutine) over every point of
    the subroutine, and a register the subroutine writes over each call point of it. The two
    then never share a register, while values live across different calls, or the
    subroutine's registers among themselves, share as their own points allow. Also the
    subroutines' registers (allocated first, as ptxas: the low registers for the subroutine, the
    caller's values around them)."""
    calls = _call_sites(fn)
    if not calls:
        return {}, set()
    lv = compute_liveness(fn)
    first: list[int] = []
    p = 0
    for b in fn.blocks:
        first.append(p)
        p += len(b.instrs)
    out: dict[int, int] = {}
    sub_regs = 0

    def add(m: int, bits: int) -> None:
        while m:
            low = m & -m
            vid = low.bit_length() - 1
            out[vid] = out.get(vid, 0) | bits
            m ^= low

    for e in sorted({e for e, _ in calls.values()}):
        blocks = _sub_blocks(fn, e)
        inside = 0
        for x in blocks:
            n = len(fn.blocks[x].instrs)
            inside |= ((1 << n) - 1) << first[x]
        defs = _sub_defs(fn, e)
        at_calls = 0
        through = 0
        for i, (ee, r) in calls.items():
            if ee != e:
                continue
            at_calls |= 1 << (first[i] + len(fn.blocks[i].instrs) - 1)
            through |= lv.live_in[r] & ~defs
        add(through, inside)
        add(defs, at_calls)
        sub_regs |= defs
    return out, {k for k in range(sub_regs.bit_length()) if sub_regs >> k & 1}


def slow_path_entries(fn: Function) -> set[str]:
    """The entry blocks of the shared slow paths of division (lower/fpslow.py), ``$__cuda...``."""
    return {entry for name, entry in fn.subroutines if name.startswith("$__cuda")}


def _call_sites(fn: Function) -> dict[int, tuple[int, int]]:
    """Blocks that end in a call of a shared slow path -> (its entry, the return site)."""
    index = {b.name: i for i, b in enumerate(fn.blocks)}
    slow = slow_path_entries(fn)
    out: dict[int, tuple[int, int]] = {}
    for i, b in enumerate(fn.blocks):
        t = b.terminator()
        if t is None or t.op != "CALL" or len(t.srcs) < 2 or t.guard is not None:
            continue
        e, r = t.srcs[0], t.srcs[1]
        if isinstance(e, Label) and isinstance(r, Label) and e.block in slow:
            out[i] = (index[e.block], index[r.block])
    return out


def _sub_blocks(fn: Function, entry: int) -> set[int]:
    """The blocks of the subroutine at ``entry`` and of those it calls."""
    blocks = {entry}
    stack = [entry]
    index = block_index(fn)
    while stack:
        i = stack.pop()
        nxt = successors(fn, i, over_calls=True, index=index)
        t = fn.blocks[i].terminator()
        if t is not None and t.op == "CALL":
            nxt = nxt + successors(fn, i, index=index)
        for s in nxt:
            if s not in blocks:
                blocks.add(s)
                stack.append(s)
    return blocks


def _sub_defs(fn: Function, entry: int) -> int:
    m = 0
    for b in _sub_blocks(fn, entry):
        for ins in fn.blocks[b].instrs:
            m |= defs_mask(ins)[0]
    return m


def _must_write(fn: Function, entry: int, kill: list[int]) -> int:
    """Registers every path through the subroutine at ``entry`` writes completely (the
    intersection at its returns; none when it has no return)."""
    own = all_successors(fn, over_calls=True)
    blocks = {entry}
    stack = [entry]
    while stack:
        for s in own[stack.pop()]:
            if s not in blocks:
                blocks.add(s)
                stack.append(s)
    top = -1  # every register
    md_out = dict.fromkeys(blocks, top)
    inner_preds: dict[int, list[int]] = {b: [] for b in blocks}
    for b in blocks:
        for s in own[b]:
            if s in blocks:
                inner_preds[s].append(b)
    changed = True
    while changed:
        changed = False
        for b in sorted(blocks):
            md_in = 0
            if b != entry and inner_preds[b]:
                md_in = top
                for p in inner_preds[b]:
                    md_in &= md_out[p]
            new = md_in | kill[b]
            if new != md_out[b]:
                md_out[b] = new
                changed = True
    ends = [md_out[b] for b in blocks if (t := fn.blocks[b].terminator()) and t.op == "RET"]
    if not ends:
        return 0
    out = top
    for x in ends:
        out &= x
    return out if out != top else 0


def _fixpoint(
    gen: list[int],
    kill: list[int],
    succs: list[list[int]],
    calls: dict[int, tuple[int, int]],
    must: dict[int, int],
    ret_mask: dict[int, int],
) -> tuple[list[int], list[int]]:
    """Backward liveness to a fixed point; a call block's live-out is what its subroutine reads
    (the entry's live-in) and what is live at its return site that the subroutine does not
    always write; a return block's is what is live at the return
    sites, restricted to ``ret_mask`` (the subroutine's own registers)."""
    n = len(gen)
    deps: list[list[int]] = [[] for _ in range(n)]  # blocks whose live-out reads live_in[x]
    for i in range(n):
        if i in calls:
            e, r = calls[i]
            deps[e].append(i)
            deps[r].append(i)
        else:
            for s in succs[i]:
                deps[s].append(i)
    live_in = [0] * n
    live_out = [0] * n
    # Iterate in reverse layout order until nothing changes (reducible CFGs converge fast).
    work = deque(range(n - 1, -1, -1))
    in_work = [True] * n
    while work:
        i = work.popleft()
        in_work[i] = False
        out = 0
        if i in calls:
            e, r = calls[i]
            out = live_in[e] | (live_in[r] & ~must[e])
        else:
            for s in succs[i]:
                out |= live_in[s]
            if i in ret_mask:
                out &= ret_mask[i]
        new_in = gen[i] | (out & ~kill[i])
        live_out[i] = out
        if new_in != live_in[i]:
            live_in[i] = new_in
            for p in deps[i]:
                if not in_work[p]:
                    in_work[p] = True
                    work.append(p)
    return live_in, live_out


def live_after_each(
    fn: Function, lv: Liveness, drop: Callable[[Instr, int], bool] | None = None
) -> list[list[int]]:
    """For each block, the registers live after each of its instructions, restricted to those
    that may have been defined by then. ``drop(ins, live after it)``: True treats ``ins`` as
    already deleted (liveness flows past it), so dead-code elimination removes a whole chain of
    dead instructions in one walk instead of one link per liveness computation."""
    d_in, _ = maybe_defined(fn, lv)
    out: list[list[int]] = []
    for i, b in enumerate(fn.blocks):
        defined = [0] * len(b.instrs)
        d = d_in[i]
        for k, ins in enumerate(b.instrs):
            d |= defs_mask(ins)[0]
            defined[k] = d
        live = lv.live_out[i]  # needed whatever the guards below
        cond: dict[GuardKey, int] = {}  # needed only by reads under a guard (see the docstring)
        after = [0] * len(b.instrs)
        # words of a vreg written (unguarded) below this point and before its next use here
        pending: dict[int, int] = {}
        for k in range(len(b.instrs) - 1, -1, -1):
            ins = b.instrs[k]
            every = live
            for m in cond.values():
                every |= m
            after[k] = every & defined[k]
            if drop is not None and drop(ins, after[k]):
                continue
            wrote, killed = defs_mask(ins)
            for ck in [ck for ck in cond if wrote >> ck[0] & 1]:
                live |= cond.pop(ck)  # the guard below reads another value of the predicate
            for vid, words, full in part_writes(ins):
                pending[vid] = pending.get(vid, 0) | words
                if pending[vid] == full:
                    killed |= 1 << vid
            live &= ~killed
            if killed and cond:
                cond = {ck: m & ~killed for ck, m in cond.items()}
            key = guard_key(ins)
            used = uses_mask(ins)
            if key is not None:
                full_w = guarded_writes(ins)
                if key in cond:
                    cond[key] &= ~full_w
                other = (key[0], not key[1])
                if live & full_w:
                    cond[other] = cond.get(other, 0) | (live & full_w)
                live &= ~full_w
                live |= used & (1 << key[0])
                if used & ~(1 << key[0]):
                    cond[key] = cond.get(key, 0) | (used & ~(1 << key[0]))
            else:
                live |= used
            if cond:
                cond = {ck: m & ~live for ck, m in cond.items() if m & ~live}
            for vid in list(pending):
                if used >> vid & 1:
                    del pending[vid]
        out.append(after)
    return out


def maybe_defined(fn: Function, lv: Liveness) -> tuple[list[int], list[int]]:
    """Forward dataflow: registers written on some path from the entry (in, out per block).

    Liveness is intersected with this, so that a register whose only definitions are guarded
    (``@P0 LDS R4``) is not considered live all the way back to the function entry.
    """
    n = len(fn.blocks)
    gen = [0] * n
    for i, b in enumerate(fn.blocks):
        g = 0
        for ins in b.instrs:
            g |= defs_mask(ins)[0]
        gen[i] = g
    d_in = [0] * n
    d_out = [0] * n
    work = deque(range(n))
    in_work = [True] * n
    while work:
        i = work.popleft()
        in_work[i] = False
        x = 0
        for p in lv.preds[i]:
            x |= d_out[p]
        d_in[i] = x
        out = x | gen[i]
        if out != d_out[i]:
            d_out[i] = out
            for s in lv.succs[i]:
                if not in_work[s]:
                    in_work[s] = True
                    work.append(s)
    return d_in, d_out
