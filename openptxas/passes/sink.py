"""SinkCodeIntoBlock: computations an early exit skips move past it (ptxas phase 77).

nvcc loads every parameter at a kernel's top; ``if (i >= n) return;`` then exits some threads.
ptxas loads the pointers after the exit (examples/vec_add: ``@P0 EXIT`` then ``LDC.64 R2,
c[0x0][0x210]``), so a thread that leaves runs none of it; ours loaded them all first (t1/
vec_add: 1.037 times ptxas's warp-instructions).

Pre: virtual IR. Post: same semantics; in a block ending with a guarded ``EXIT`` that falls
through to a block it alone precedes, every pure instruction (no side effect, not a volatile
special register, only virtual-register results) whose results nothing after it in the block
reads, and whose sources and results nothing after it that stays writes, moves to the start of
the next block, in order. The exit path leaves the kernel: nothing it moved is needed there.
"""

from __future__ import annotations

from openptxas.ir.analysis import has_side_effects
from openptxas.ir.core import Function, Instr, Part, RegLike, SReg, VReg, predecessors
from openptxas.passes.manager import PassContext

VOLATILE = frozenset({"SR_CLOCKLO", "SR_CLOCKHI", "SR_GLOBALTIMERLO", "SR_GLOBALTIMERHI"})
MOVABLE = frozenset(
    {
        "LDC", "ULDC", "S2R", "S2UR", "MOV", "UMOV", "IADD3", "UIADD3", "IMAD", "UIMAD", "LEA",
        "ULEA", "SHF", "USHF", "LOP3", "ULOP3", "SEL", "USEL", "PRMT", "UPRMT", "VIADD", "CS2R",
        "I2FP", "FADD", "FMUL", "FFMA", "IABS", "SGXT", "BMSK", "POPC", "FLO", "BREV",
    }
)  # fmt: skip


def _ids(regs: list[RegLike]) -> set[int]:
    out = set()
    for r in regs:
        v = r.v if isinstance(r, Part) else r
        if isinstance(v, VReg):
            out.add(v.id)
    return out


def _movable(ins: Instr) -> bool:
    if ins.op not in MOVABLE or ins.guard is not None or has_side_effects(ins) or not ins.dsts:
        return False
    if any(isinstance(s, SReg) and s.name in VOLATILE for s in ins.srcs):
        return False
    return all(isinstance(r.v if isinstance(r, Part) else r, VReg) for r in ins.def_regs())


def sink_past_exits(fn: Function, ctx: PassContext) -> None:
    _ = ctx
    preds = predecessors(fn)
    for i, b in enumerate(fn.blocks[:-1]):
        t = b.instrs[-1] if b.instrs else None
        if t is None or t.op != "EXIT" or t.guard is None or preds[i + 1] != [i]:
            continue
        stay_reads = _ids(t.use_regs())
        stay_writes: set[int] = set()
        moved: list[Instr] = []
        kept: list[Instr] = [t]
        for ins in reversed(b.instrs[:-1]):
            d, u = _ids(ins.def_regs()), _ids(ins.use_regs())
            if _movable(ins) and not d & (stay_reads | stay_writes) and not u & stay_writes:
                moved.append(ins)
                continue
            kept.append(ins)
            stay_reads |= u
            stay_writes |= d
        if moved:
            b.instrs = kept[::-1]
            fn.blocks[i + 1].instrs[:0] = moved[::-1]
