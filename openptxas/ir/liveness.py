"""Liveness of virtual registers, as bitsets (Python ints indexed by virtual-register id).

A definition kills a register only when it writes all of it unconditionally: a guarded definition
(``@P0 MOV``) keeps the old value alive, and so does a partial one (the low half of a pair) unless
the other words are written too, unconditionally and in the same block, before the register is
read (``%r1x2.0 = MOV RZ; %r1x2.1 = MUFU.RCP64H ...`` kills ``%r1x2`` at its first write: a pair
built word by word is not live before it is built, in a loop too).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from openptxas.ir.core import Function, Instr, Part, VReg, predecessors, successors


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
    succs = [successors(fn, i) for i in range(n)]
    preds = predecessors(fn)
    gen = [0] * n
    kill = [0] * n
    for i, b in enumerate(fn.blocks):
        g = k = 0
        written: dict[int, int] = {}  # words of a vreg written (unguarded) so far in the block
        for ins in b.instrs:
            g |= uses_mask(ins) & ~k
            _, killed = defs_mask(ins)
            for vid, words, full in part_writes(ins):
                written[vid] = written.get(vid, 0) | words
                if written[vid] == full:
                    killed |= 1 << vid
            k |= killed
        gen[i], kill[i] = g, k
    live_in = [0] * n
    live_out = [0] * n
    # Iterate in reverse layout order until nothing changes (reducible CFGs converge fast).
    work = deque(range(n - 1, -1, -1))
    in_work = [True] * n
    while work:
        i = work.popleft()
        in_work[i] = False
        out = 0
        for s in succs[i]:
            out |= live_in[s]
        new_in = gen[i] | (out & ~kill[i])
        live_out[i] = out
        if new_in != live_in[i]:
            live_in[i] = new_in
            for p in preds[i]:
                if not in_work[p]:
                    in_work[p] = True
                    work.append(p)
    return Liveness(live_in, live_out, succs, preds)


def live_after_each(fn: Function, lv: Liveness) -> list[list[int]]:
    """For each block, the registers live after each of its instructions, restricted to those
    that may have been defined by then."""
    d_in, _ = maybe_defined(fn, lv)
    out: list[list[int]] = []
    for i, b in enumerate(fn.blocks):
        defined = [0] * len(b.instrs)
        d = d_in[i]
        for k, ins in enumerate(b.instrs):
            d |= defs_mask(ins)[0]
            defined[k] = d
        live = lv.live_out[i]
        after = [0] * len(b.instrs)
        # words of a vreg written (unguarded) below this point and before its next use here
        pending: dict[int, int] = {}
        for k in range(len(b.instrs) - 1, -1, -1):
            ins = b.instrs[k]
            after[k] = live & defined[k]
            _, killed = defs_mask(ins)
            for vid, words, full in part_writes(ins):
                pending[vid] = pending.get(vid, 0) | words
                if pending[vid] == full:
                    killed |= 1 << vid
            used = uses_mask(ins)
            live = (live & ~killed) | used
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
