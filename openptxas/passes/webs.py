"""Block-local web splitting (part of ptxas's GeneralOptimize): a register written again in
its block before anything outside could read the first value gets a fresh name for it.

PTX reuses register names, and nvcc's inline-asm helpers reuse their scratch registers within
one block (``cuda_fp16.hpp``'s ``hexp2``: ``mov.b32 {hl, hu}, %r6`` then ``cvt.rn.f16.f32 hl,
fl``). Passes that fold a definition into its reader want it written once (the peephole's
``F2FP`` pack of two conversions: ptxas's ``F2FP.F16.F32.PACK_AB R12, R9, R12``; CSE), and
saw these registers written twice.

Pre: virtual IR. Post: same semantics; for each 32-bit R or P virtual register and each of its
unguarded writes followed, later in the same block, by another unguarded write of it (no
guarded write between), the first write and every read up to and including the second writer
(which may read the old value) name a new register. Nothing outside the block can read the
first value: the second write kills it on every path.
"""

from __future__ import annotations

import itertools

from openptxas.ir.analysis import has_side_effects, map_regs, renamer
from openptxas.ir.core import RC, Function, Instr, Part, VReg
from openptxas.passes.manager import PassContext


def split_local_webs(fn: Function, ctx: PassContext) -> None:
    _ = ctx
    for blk in fn.blocks:
        _split_block(fn, blk.instrs)


def _plain_dst(ins: Instr, j: int) -> VReg | None:
    d = ins.dsts[j]
    if isinstance(d, VReg) and d.width == 1 and d.rc in (RC.R, RC.P):
        return d
    return None


def _split_block(fn: Function, code: list[Instr]) -> None:
    # positions of each candidate register's writes in the block: (position, slot, guarded)
    writes: dict[int, list[tuple[int, int, bool]]] = {}
    for pos, ins in enumerate(code):
        for j in range(len(ins.dsts)):
            d = _plain_dst(ins, j)
            if d is not None:
                writes.setdefault(d.id, []).append((pos, j, ins.guard is not None))
        # a register written as part of something else (a word of a pair) is left alone
        for r in ins.def_regs():
            if isinstance(r, Part):
                writes.pop(r.v.id, None)
    for vid, ws in writes.items():
        for (p0, j0, g0), (p1, _j1, g1) in itertools.pairwise(ws):
            if g0 or g1 or has_side_effects(code[p0]) or len(_dsts_of(code[p0], vid)) != 1:
                continue
            old = code[p0].dsts[j0]
            assert isinstance(old, VReg)
            new = fn.new_vreg(old.rc, 1)
            code[p0].dsts[j0] = new
            f = renamer({vid: new})
            for k in range(p0 + 1, p1 + 1):
                map_regs(code[k], f)


def _dsts_of(ins: Instr, vid: int) -> list[int]:
    return [j for j, d in enumerate(ins.dsts) if isinstance(d, VReg) and d.id == vid]
