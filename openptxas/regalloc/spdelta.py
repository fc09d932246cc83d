"""Where the stack pointer stands in each block, relative to the kernel's after its entry.

Spill slots lie in the kernel's frame, addressed from the stack pointer. A subroutine with a
frame of its own (``.local`` variables, parameters whose address it takes) lowers the stack
pointer at its entry (``IADD3 R1, R1, -F, RZ``) and raises it again before its return, so in
its code a slot at kernel offset ``s`` is ``[R1 + s + F]``. ``stack_deltas`` follows the
stack pointer through the control flow (calls into their subroutines, returns to their return
sites) and gives, for each block, the stack pointer's offset at its start from the kernel's;
None when a block is reached with two offsets (a function on a cycle of calls: each
activation has its own) or the stack pointer is written otherwise than by a constant.

With recursion, ``activation_deltas`` measures each function on its own instead: a block's
offset from the stack pointer at its function's entry (a call returns with the stack pointer it
was made with), so that each function's spill slots can lie in its own frame.
"""

from __future__ import annotations

from openptxas.ir.core import RZ, Function, Imm, Instr, Reg, block_index, successors


def step(ins: Instr, delta: int, sp: Reg) -> int | None:
    """The offset after ``ins``; None for a write of the stack pointer that is not a constant
    adjustment. A guarded adjustment is a release before a return under the same guard (the
    only ones lowering, recursion and convergence make): the threads that go on past the
    return keep the offset."""
    if sp not in ins.def_regs():
        return delta
    if ins.op == "IADD3" and len(ins.srcs) >= 2 and ins.srcs[0] == sp:
        imm = ins.srcs[1]
        if isinstance(imm, Imm) and all(s == RZ for s in ins.srcs[2:]):
            if ins.guard is not None:
                return delta
            v = imm.value & 0xFFFFFFFF
            return delta + (v - (1 << 32) if v & 0x80000000 else v)
    return None


def advance(ins: Instr, delta: int, sp: Reg, entry: bool) -> int | None:
    """``step``, where in the entry block (``entry``) the kernel's own load and lowering of the
    stack pointer leave the offset at 0."""
    if entry and sp in ins.def_regs() and (ins.op == "LDC" or step(ins, delta, sp) is not None):
        return delta
    return step(ins, delta, sp)


def stack_deltas(fn: Function, sp: Reg) -> list[int] | None:
    """The stack pointer's offset from the kernel's at the start of each block (0 for the
    entry block, whose load and lowering of the stack pointer set the kernel's own; 0 for
    blocks never reached), or None when it is not one constant per block."""
    if not fn.blocks:
        return []
    found = _walk(fn, sp, [("", 0)], block_index(fn), over_calls=False)
    return None if found is None else found[1]


def activation_deltas(fn: Function, sp: Reg) -> tuple[list[str], list[int]] | None:
    """Each block's function (``""`` for the kernel, else the subroutine's name) and the stack
    pointer's offset at the block's start from the one at the function's entry (the kernel's:
    as ``stack_deltas``, after its own load and lowering); None when a block belongs to two
    functions or an offset is not one constant per block."""
    index = block_index(fn)
    roots = [("", 0), *((s, index[e]) for s, e in fn.subroutines)]
    return _walk(fn, sp, roots, index, over_calls=True)


def _walk(
    fn: Function,
    sp: Reg,
    roots: list[tuple[str, int]],
    index: dict[str, int],
    *,
    over_calls: bool,
) -> tuple[list[str], list[int]] | None:
    """From each root block (named), the offset at the start of every block it reaches from
    the stack pointer at the root's start (successors ``over_calls`` or through them); None
    where a block is reached twice with two offsets or from two roots."""
    n = len(fn.blocks)
    owner: list[str | None] = [None] * n
    start: list[int | None] = [None] * n
    for name, root in roots:
        if owner[root] is not None:
            return None
        owner[root], start[root] = name, 0
        work = [root]
        while work:
            i = work.pop()
            d = start[i]
            assert d is not None
            for ins in fn.blocks[i].instrs:
                nd = advance(ins, d, sp, i == 0)
                if nd is None:
                    return None
                d = nd
            for s in successors(fn, i, over_calls=over_calls, index=index):
                if owner[s] is None:
                    owner[s], start[s] = name, d
                    work.append(s)
                elif owner[s] != name or start[s] != d:
                    return None
    # (blocks no root reaches never run: the kernel's, at 0)
    return [o or "" for o in owner], [0 if d is None else d for d in start]
