"""-g: where each PTX register lives, recorded by the allocator for openptxas.debuginfo's
``.nv_debug_info_reg_sass`` (here, below the ELF layer, so that the allocator need not import
the debug-section writer)."""

from __future__ import annotations

from openptxas.ir.core import RC, Function, Reg, VReg


def record_homes(fn: Function, regs: dict[VReg, Reg]) -> None:
    """Before the allocator rewrites ``fn``: each PTX register's register and the instructions
    where its value is live (openptxas.regalloc.phase calls it with -g)."""
    from openptxas.regalloc.fatpoint import occupancy

    occ, order = occupancy(fn)
    wanted = set(fn.debug_regs.values())
    for sub_regs, _frame, ra in fn.debug_subs.values():
        wanted.update(sub_regs.values())
        wanted.add(ra)
    fn.debug_homes = []
    for v, mask in occ.items():
        if v not in wanted or v not in regs or not mask:
            continue
        uids = frozenset(order[p].uid for p in range(mask.bit_length()) if mask >> p & 1)
        fn.debug_homes.append((v, regs[v], uids))
    fn.debug_homes.append((VReg(RC.R, -1), Reg(RC.R, 0), frozenset(i.uid for i in order)))
