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
"""

from __future__ import annotations

from openptxas.ir.core import RC, Function, Guard, Instr, Label, Part, Reg, VReg, predecessors
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


def _guard(instrs: list[Instr], g: Guard) -> None:
    for ins in instrs:
        ins.guard = g


def if_convert(fn: Function, ctx: PassContext) -> None:
    _convert(fn)
    _merge_straight(fn)


def _merge_straight(fn: Function) -> None:
    """Join a block to the one before it when that one only falls through to it and nothing
    else reaches it (what if-conversion leaves behind)."""
    i = 1
    while i < len(fn.blocks):
        preds = predecessors(fn)
        prev = fn.blocks[i - 1]
        if preds[i] == [i - 1] and prev.terminator() is None:
            prev.instrs.extend(fn.blocks[i].instrs)
            del fn.blocks[i]
            continue
        i += 1


def _convert(fn: Function) -> None:
    changed = True
    while changed:
        changed = False
        preds = predecessors(fn)
        names = [b.name for b in fn.blocks]
        for i, h in enumerate(fn.blocks[:-1]):
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
            if (
                j + 1 < len(fn.blocks)
                and names[j + 1] == target
                and last is None
                and _predicable(then.instrs, t.guard.pred)
            ):
                h.instrs.pop()
                _guard(then.instrs, keep)
                changed = True
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
                    changed = True
                    break
