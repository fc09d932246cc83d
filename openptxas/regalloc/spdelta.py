"""Where the stack pointer stands in each block, relative to the kernel's after its entry.

Spill slots lie in the kernel's frame, addressed from the stack pointer. A subroutine with a
frame of its own (``.local`` variables, parameters whose address it takes) lowers the stack
pointer at its entry (``IADD3 R1, R1, -F, RZ``) and raises it again before its return, so in
its code a slot at kernel offset ``s`` is ``[R1 + s + F]``. ``stack_deltas`` follows the
stack pointer through the control flow (calls into their subroutines, returns to their return
sites) and gives, for each block, the stack pointer's offset at its start from the kernel's;
None when a block is reached with two offsets (a function on a cycle of calls: each
activation has its own) or the stack pointer is written otherwise than by a constant.
"""

from __future__ import annotations

from openptxas.ir.core import RZ, Function, Imm, Instr, Reg, block_index, successors


def step(ins: Instr, delta: int, sp: Reg) -> int | None:
    """The offset after ``ins``; None for a write of the stack pointer that is not a constant
    adjustment."""
    if sp not in ins.def_regs():
        return delta
    if ins.op == "IADD3" and len(ins.srcs) >= 2 and ins.srcs[0] == sp:
        imm = ins.srcs[1]
        if isinstance(imm, Imm) and all(s == RZ for s in ins.srcs[2:]):
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
    n = len(fn.blocks)
    start: list[int | None] = [None] * n
    if not n:
        return []
    start[0] = 0
    work = [0]
    index = block_index(fn)
    while work:
        i = work.pop()
        d = start[i]
        assert d is not None
        for ins in fn.blocks[i].instrs:
            nd = advance(ins, d, sp, i == 0)
            if nd is None:
                return None
            d = nd
        for s in successors(fn, i, index=index):
            if start[s] is None:
                start[s] = d
                work.append(s)
            elif start[s] != d:
                return None
    return [0 if d is None else d for d in start]
