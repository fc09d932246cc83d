"""BranchOpt: simplify branches (ptxas phase 15).

Pre: virtual IR. Post: same semantics, with
- a branch to a block that only exits replaced by the exit itself (``@P0 BRA L; ... L: EXIT``
  becomes ``@P0 EXIT``, which is what ptxas emits and needs no convergence barrier),
- branches to a block that only branches on retargeted (jump threading),
- branches to the next block removed, conditional ones too (both ways lead there: what an
  if-else left empty by the front end comes to),
- a conditional branch over a block that only branches (``@P BRA L3; BRA L2; L3:``, nvcc's
  layout of an if-else) inverted to ``@!P BRA L2``, falling through to L3, as ptxas does,
- a block that only its fall-through predecessor reaches, and that nothing names, joined to it
  (so that the phases working within a block see the code on both sides: a multiply before an
  emptied if-else and the add after it contract, as ptxas does; difffuzz seed 121023),
- blocks unreachable from the entry removed.
"""

from __future__ import annotations

from openptxas.ir.core import (
    TERMINATORS,
    Function,
    Guard,
    Instr,
    Label,
    block_index,
    predecessors,
    successors,
)
from openptxas.passes.manager import PassContext


def _only(fn: Function, name: str, index: dict[str, int]) -> Instr | None:
    """The single instruction of block ``name`` (skipping empty blocks that fall through);
    ``index``: block name -> position (one map per pass over the blocks, not one per branch)."""
    i = index[name]
    while i < len(fn.blocks) and not fn.blocks[i].instrs:
        i += 1
    if i == len(fn.blocks) or len(fn.blocks[i].instrs) != 1:
        return None
    return fn.blocks[i].instrs[0]


def branch_opt(fn: Function, ctx: PassContext) -> None:
    for _ in range(4):
        changed = False
        index = block_index(fn)
        for b in fn.blocks:
            t = b.terminator()
            if t is None or t.op != "BRA":
                continue
            target = next(s for s in t.srcs if isinstance(s, Label))
            only = _only(fn, target.block, index)
            if only is not None and only.op in ("EXIT", "RET") and only.guard is None:
                b.instrs[-1] = Instr(only.op, only.mods, [], list(only.srcs), t.guard, line=t.line)
                changed = True
            elif only is not None and only.op == "BRA" and only.guard is None and only is not t:
                nt = next(s for s in only.srcs if isinstance(s, Label))
                if nt.block != target.block:
                    t.srcs = [nt if isinstance(s, Label) else s for s in t.srcs]
                    changed = True
        # a branch to the next block (guarded or not: both ways go there)
        for i, b in enumerate(fn.blocks[:-1]):
            t = b.terminator()
            if t is not None and t.op == "BRA" and not t.mods:
                target = next(s for s in t.srcs if isinstance(s, Label))
                j = i + 1
                while (
                    j < len(fn.blocks)
                    and not fn.blocks[j].instrs
                    and fn.blocks[j].name != target.block
                ):
                    j += 1
                if j < len(fn.blocks) and fn.blocks[j].name == target.block:
                    b.instrs.pop()
                    changed = True
        changed |= _branch_over_branch(fn)
        changed |= _remove_unreachable(fn)
        changed |= _join_fallthrough(fn)
        if not changed:
            return


def _named(fn: Function) -> set[str]:
    """Blocks something names: a branch, a call's return site, a subroutine's entry, a jump
    table, a frame, a nounroll pragma (their code cannot move into the block before)."""
    named = {s.block for ins in fn.instrs() for s in ins.srcs if isinstance(s, Label)}
    named.update(e for _, e in fn.subroutines)
    named.update(e for e, _ in fn.frames.values())
    named.update(t for table in fn.jump_tables for t in table)
    named.update(fn.nounroll)
    return named


def _branch_over_branch(fn: Function) -> bool:
    """``@P BRA L3`` ending a block, then a block nothing names holding only ``BRA L2``, then
    (past empty blocks) L3: the first becomes ``@!P BRA L2`` and the second is emptied."""
    named = _named(fn)
    changed = False
    for i in range(len(fn.blocks) - 2):
        t = fn.blocks[i].terminator()
        b = fn.blocks[i + 1]
        if t is None or t.op != "BRA" or t.mods or t.guard is None or b.name in named:
            continue
        if len(b.instrs) != 1 or b.instrs[0].op != "BRA" or b.instrs[0].mods:
            continue
        jump = b.instrs[0]
        if jump.guard is not None:
            continue
        target = next(s for s in t.srcs if isinstance(s, Label))
        over = next(s for s in jump.srcs if isinstance(s, Label))
        k = i + 2
        while k < len(fn.blocks) and not fn.blocks[k].instrs and fn.blocks[k].name != target.block:
            k += 1
        if k == len(fn.blocks) or fn.blocks[k].name != target.block or over.block == b.name:
            continue
        t.guard = Guard(t.guard.pred, not t.guard.inv)
        t.srcs = [over if isinstance(s, Label) else s for s in t.srcs]
        b.instrs = []
        changed = True
    return changed


def _join_fallthrough(fn: Function) -> bool:
    """Join each block that only the block before it reaches, by falling through, to that block,
    unless something names it (``_named``)."""
    named = _named(fn)
    preds = predecessors(fn)
    keep = [True] * len(fn.blocks)
    into = list(range(len(fn.blocks)))  # the block each one's code now lives in
    for j in range(1, len(fn.blocks)):
        b = fn.blocks[j]
        i = j - 1
        if b.name in named or preds[j] != [i]:
            continue
        head = into[i]
        prev = fn.blocks[head]
        last = prev.instrs[-1] if prev.instrs else None
        if last is not None and last.op in TERMINATORS:
            continue
        prev.instrs.extend(b.instrs)
        b.instrs = []
        keep[j] = False
        into[j] = head
    if all(keep):
        return False
    fn.blocks = [b for b, k in zip(fn.blocks, keep, strict=True) if k]
    return True


def _remove_unreachable(fn: Function) -> bool:
    # a block whose address is taken (a return address: MOV Rra, `(site); LEPC) stays, even
    # where no return can reach it (a function that never returns)
    index = {b.name: i for i, b in enumerate(fn.blocks)}
    taken = {
        index[s.block]
        for ins in fn.instrs()
        if ins.op in ("MOV", "LEPC")
        for s in ins.srcs
        if isinstance(s, Label) and s.block in index
    }
    seen = {0, *taken}
    stack = [0, *sorted(taken)]
    first = block_index(fn)  # a lookup per branch where successors() would search
    while stack:
        i = stack.pop()
        for s in successors(fn, i, index=first):
            if s not in seen:
                seen.add(s)
                stack.append(s)
    if len(seen) == len(fn.blocks):
        return False
    fn.blocks = [b for i, b in enumerate(fn.blocks) if i in seen]
    return True
