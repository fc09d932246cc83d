"""BranchOpt: simplify branches (ptxas phase 15).

Pre: virtual IR. Post: same semantics, with
- a branch to a block that only exits replaced by the exit itself (``@P0 BRA L; ... L: EXIT``
  becomes ``@P0 EXIT``, which is what ptxas emits and needs no convergence barrier),
- branches to a block that only branches on retargeted (jump threading),
- unconditional branches to the next block removed,
- blocks unreachable from the entry removed.
"""

from __future__ import annotations

from openptxas.ir.core import Function, Instr, Label, block_index, successors
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
        # unconditional branch to the next block
        for i, b in enumerate(fn.blocks[:-1]):
            t = b.terminator()
            if t is not None and t.op == "BRA" and t.guard is None:
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
        changed |= _remove_unreachable(fn)
        if not changed:
            return


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
