"""OriDoPredication: if-conversion of short branch regions (ptxas phase 63).

Pre: virtual IR after uniform conversion. Post: same semantics; a header block ending in
``@P BRA L`` whose skipped side is short straight-line code becomes predicated code:

- triangle: ``H: @P BRA M; T: ...; M:`` (T's only predecessor is H, T falls through to M)
  becomes ``H: @!P ...; M:``;
- diamond: ``H: @P BRA E; T: ... BRA M; E: ...; M:`` becomes ``H: @!P T...; @P E...; M:``.

No branch, no convergence barrier (BSSY/BSYNC), no divergence: ptxas does the same for short
regions. A side is predicable when it has at most MAX_INSTRS instructions, none already
guarded, none a branch, barrier, warp-collective or uniform-datapath instruction (uniform ops
take only uniform guards), and none writes the branch predicate.

A pure uniform-datapath instruction of a side (``UMOV UR6, UR8``: the shared window's base
copied for an address) whose results are written nowhere else and whose sources the side does
not write before it runs before the branch instead, unguarded: it only computes a uniform
value nothing else holds (t1/warp_scan's ``if (lane == 31) totals[warp] = x``: ptxas stores
with ``@!P5 STS [R10], R3``; ours kept a branch and a convergence barrier for it).
"""

from __future__ import annotations

from bisect import insort

from openptxas.ir.analysis import write_counts
from openptxas.ir.core import (
    RC,
    Function,
    Guard,
    Instr,
    Label,
    Part,
    Reg,
    VReg,
    all_successors,
    block_index,
    invert,
    predecessors,
    successors,
)
from openptxas.passes.manager import PassContext

MAX_INSTRS = 8
NOT_PREDICABLE = frozenset(
    {
        "BRA", "BRX", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "BAR", "SHFL", "VOTE",
        "MATCH", "REDUX", "ELECT", "ATOMG", "ATOMS", "ATOM", "REDG", "RED", "MEMBAR", "FENCE",
        "NOP", "KILL", "BREAK",
    }
)  # fmt: skip


def _reg_class(r: object) -> RC | None:
    v = r.v if isinstance(r, Part) else r
    if isinstance(v, VReg | Reg):
        return v.rc
    return None


def _predicable(instrs: list[Instr], pred: object) -> bool:
    if len(instrs) > MAX_INSTRS:
        return False
    pv = pred.v if isinstance(pred, Part) else pred
    for ins in instrs:
        if ins.guard is not None or ins.op in NOT_PREDICABLE or ins.op.startswith("U"):
            return False
        for r in ins.def_regs():
            if _reg_class(r) in (RC.UR, RC.UP):
                return False
            v = r.v if isinstance(r, Part) else r
            if v == pv:
                return False
    return True


SPECULABLE = frozenset(
    {"UMOV", "UIADD3", "ULEA", "USHF", "ULOP3", "UIMAD", "USEL", "ULDC", "UPRMT", "S2UR"}
)


def _speculate(instrs: list[Instr], writes: dict[int, int]) -> tuple[list[Instr], list[Instr]]:
    """(the side's pure uniform instructions that may run before the branch, the rest)."""
    early: list[Instr] = []
    rest: list[Instr] = []
    written: set[int] = set()  # registers the rest writes, so far
    for ins in instrs:
        dsts = [r.v if isinstance(r, Part) else r for r in ins.def_regs()]
        srcs = [r.v if isinstance(r, Part) else r for r in ins.use_regs()]
        if (
            ins.op in SPECULABLE
            and ins.guard is None
            and dsts
            and all(isinstance(d, VReg) and writes.get(d.id) == 1 for d in dsts)
            and not any(isinstance(x, VReg) and x.id in written for x in srcs)
        ):
            early.append(ins)
            continue
        rest.append(ins)
        written.update(d.id for d in dsts if isinstance(d, VReg))
    return early, rest


def _guard(instrs: list[Instr], g: Guard) -> None:
    for ins in instrs:
        ins.guard = g


def if_convert(fn: Function, ctx: PassContext) -> None:
    _convert(fn)
    _merge_straight(fn)


def _merge_straight(fn: Function) -> None:
    """Join a block to the one before it when that one only falls through to it and nothing
    else reaches it (what if-conversion leaves behind).

    One pass over the blocks with the predecessors computed once: a joined block's edges are
    those of its last part, so a predecessor index is mapped to the block it was joined into
    (``owner``) instead of recomputing every predecessor list after each join (quadratic in
    the blocks of a function with many converted regions)."""
    if len(fn.blocks) < 2:
        return
    preds = predecessors(fn)
    owner = list(range(len(fn.blocks)))
    kept = [fn.blocks[0]]
    for x in range(1, len(fn.blocks)):
        prev = kept[-1]
        if [owner[p] for p in preds[x]] == [owner[x - 1]] and prev.terminator() is None:
            prev.instrs.extend(fn.blocks[x].instrs)
            owner[x] = owner[x - 1]
        else:
            kept.append(fn.blocks[x])
    fn.blocks[:] = kept


def _convert(fn: Function) -> None:
    """Convert the first convertible header, then look again, until none is left.

    A conversion at header ``i`` changes only the ends of blocks ``i`` and ``i + 1``, the
    guards of ``i + 1`` and ``i + 2`` and the predecessors of ``i + 2`` and ``i + 3``; a header
    ``k`` reads blocks ``k .. k + 2`` and the predecessors of ``k + 1`` and ``k + 2``. So no
    header before ``i - 2`` can have become convertible: the search resumes there (not at the
    first block), and the predecessor lists are updated for the two blocks whose edges changed
    (not recomputed): the same conversions in the same order, in linear time."""
    names = [b.name for b in fn.blocks]
    index = block_index(fn)
    succ = all_successors(fn)
    preds = invert(succ)

    def reroute(x: int) -> None:
        for y in succ[x]:
            preds[y].remove(x)
        succ[x] = successors(fn, x, index=index)
        for y in succ[x]:
            insort(preds[y], x)  # as a full recomputation orders them: by source block

    writes = write_counts(fn)
    start = 0
    changed = True
    while changed:
        changed = False
        for i in range(start, len(fn.blocks) - 1):
            h = fn.blocks[i]
            t = h.terminator()
            if t is None or t.op != "BRA" or t.guard is None or _reg_class(t.guard.pred) != RC.P:
                continue
            target = next(s.block for s in t.srcs if isinstance(s, Label))
            j = i + 1
            then = fn.blocks[j]
            if preds[j] != [i] or then.name == target:
                continue
            keep = Guard(t.guard.pred, not t.guard.inv)  # runs when the branch is not taken
            last = then.terminator()
            # triangle: T falls through to the branch target
            if j + 1 < len(fn.blocks) and names[j + 1] == target and last is None:
                early, rest = _speculate(then.instrs, writes)
                if _predicable(rest, t.guard.pred):
                    h.instrs[-1:-1] = early
                    then.instrs[:] = rest
                    h.instrs.pop()
                    _guard(then.instrs, keep)
                    reroute(i)
                    start, changed = max(0, i - 2), True
                    break
            # diamond: T branches to M, E (the branch target) falls through to M
            if (
                last is not None
                and last.op == "BRA"
                and last.guard is None
                and j + 2 < len(fn.blocks)
                and names[j + 1] == target
                and preds[j + 1] == [i]
            ):
                merge = next(s.block for s in last.srcs if isinstance(s, Label))
                other = fn.blocks[j + 1]
                if (
                    names[j + 2] == merge
                    and other.terminator() is None
                    and _predicable(then.instrs[:-1], t.guard.pred)
                    and _predicable(other.instrs, t.guard.pred)
                ):
                    h.instrs.pop()
                    then.instrs.pop()
                    _guard(then.instrs, keep)
                    _guard(other.instrs, Guard(t.guard.pred, t.guard.inv))
                    reroute(i)
                    reroute(j)
                    start, changed = max(0, i - 2), True
                    break
