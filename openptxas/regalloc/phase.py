"""The AllocateRegisters phase: fat-point allocation, the independent checker (with
``--verify``), and the rewrite to physical registers.

The register budget is ``.maxnreg`` if the function has one, else ``-maxrregcount``, else the
target's register count; ptxas raises budgets below the target's minimum (24 on sm_90) to it.
"""

from __future__ import annotations

from openptxas.diag import RegAllocError
from openptxas.ir.core import RC, Function, VReg
from openptxas.passes.manager import PassContext, verify_enabled
from openptxas.regalloc.check import check_allocation
from openptxas.regalloc.clobbers import forbidden_registers, live_across_all_predicates
from openptxas.regalloc.fatpoint import ClassExhausted, allocate, limits_for, occupancy, rewrite
from openptxas.regalloc.predspill import spill_predicate


def register_budget(fn: Function, ctx: PassContext) -> int:
    most = ctx.target.gpr_count
    budget = most
    if fn.maxnreg is not None:
        budget = fn.maxnreg
    elif ctx.options.maxrregcount is not None and ctx.options.maxrregcount <= most:
        budget = ctx.options.maxrregcount
    return max(ctx.target.min_maxrregcount, min(budget, most))


def allocate_registers(fn: Function, ctx: PassContext) -> None:
    limits = limits_for(register_budget(fn, ctx), ctx.target)
    abi = ctx.target.abi
    calls = any(i.op == "CALL" and "ABS" in i.mods for i in fn.instrs())
    for _ in range(64 if calls else 0):  # predicates live across a call go to general registers
        occ, order = occupancy(fn)
        across = live_across_all_predicates(forbidden_registers(fn, occ, order, abi))
        if not across:
            break
        spill_predicate(fn, across[0])
    for _ in range(64):
        try:
            alloc = allocate(fn, limits, naive=ctx.options.ra == "naive", abi=abi)
            break
        except ClassExhausted as exc:
            if exc.rc not in (RC.P, RC.UP):
                raise
            spill_predicate(fn, _longest_lived(fn, exc.rc))
    else:
        raise RegAllocError(
            f"Register allocation failed for function '{fn.name}': too many predicates live at once"
        )
    if verify_enabled(ctx.options):
        check_allocation(fn, alloc)
    rewrite(fn, alloc)
    fn.registers = alloc.registers(ctx.target.abi)


def _longest_lived(fn: Function, rc: RC) -> VReg:
    occ, _ = occupancy(fn)
    return max((v for v in occ if v.rc == rc), key=lambda v: (bin(occ[v]).count("1"), -v.id))
