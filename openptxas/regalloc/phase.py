"""The AllocateRegisters phase: fat-point allocation, the independent checker (with
``--verify``), and the rewrite to physical registers.

The register budget is the driver's (``Function.maxnreg``: ``.maxnreg``, ``.maxntid`` with
``.minnctapersm``, see regalloc/budget.py) or ``-maxrregcount``, else the target's register count;
ptxas raises budgets below the target's minimum (24 on sm_90) to it. When R registers run out,
values are spilled to local memory (regalloc/spill.py) and allocation runs again; predicates go
to R registers (regalloc/predspill.py); uniform registers are not spilled (refused).
"""

from __future__ import annotations

from openptxas.diag import RegAllocError
from openptxas.ir.core import RC, Function, Reg, VReg
from openptxas.passes.manager import PassContext, verify_enabled
from openptxas.regalloc.check import check_allocation
from openptxas.regalloc.clobbers import forbidden_registers, live_across_all_predicates
from openptxas.regalloc.fatpoint import (
    ClassExhausted,
    ClassLimits,
    allocate,
    limits_for,
    occupancy,
    rewrite,
)
from openptxas.regalloc.predspill import spill_predicate
from openptxas.regalloc.remat import remat_across_calls
from openptxas.regalloc.spill import SpillState, choose_spills, frame_with_spills, spill


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
    if ctx.options.ra != "naive":
        remat_across_calls(fn)  # constants read after slow-path calls: loaded again there
    calls = any(i.op == "CALL" and "ABS" in i.mods for i in fn.instrs())
    for _ in range(64 if calls else 0):  # predicates live across a call go to general registers
        occ, order = occupancy(fn)
        across = live_across_all_predicates(forbidden_registers(fn, occ, order, abi))
        if not across:
            break
        spill_predicate(fn, across[0])
    state = SpillState()
    sp = Reg(RC.R, ctx.target.abi.stack_pointer)
    for _ in range(256):
        try:
            alloc = allocate(fn, limits, naive=ctx.options.ra == "naive", abi=abi)
            break
        except ClassExhausted as exc:
            if exc.rc in (RC.P, RC.UP):
                spill_predicate(fn, _longest_lived(fn, exc.rc))
            elif exc.rc == RC.R and ctx.options.ra != "naive":
                _spill_general(fn, limits[RC.R], state, sp, exc)
            elif exc.rc == RC.UR:
                raise RegAllocError(
                    str(exc).replace(
                        "spilling is not supported yet",
                        "spilling uniform registers is not supported by openptxas yet",
                    )
                ) from exc
            else:
                raise
    else:
        raise RegAllocError(
            f"Register allocation failed for function '{fn.name}': too many values live at once"
        )
    frame_with_spills(fn, state, sp)
    fn.spill_stores, fn.spill_loads = state.stores, state.loads
    if verify_enabled(ctx.options):
        check_allocation(fn, alloc)
    rewrite(fn, alloc)
    fn.registers = alloc.registers(ctx.target.abi)


def _spill_general(
    fn: Function, lim: ClassLimits, state: SpillState, sp: Reg, exc: ClassExhausted
) -> None:
    """Spill R registers to local memory until the pressure fits the budget (one round)."""
    if fn.subroutines or any(i.op in ("CALL", "RET") for i in fn.instrs()):
        raise RegAllocError(
            f"Register allocation failed for function '{fn.name}': spilling in a function with "
            "subroutine calls is not supported by openptxas yet"
        ) from exc
    capacity = sum(1 for i in range(lim.first, lim.last + 1) if i not in lim.reserved)
    occ, order = occupancy(fn)
    victims = choose_spills(fn, occ, order, capacity - state.slack, state)
    if not victims:
        # the pressure fits but the allocator did not (alignment, fat points): keep more free
        state.slack += 1
        state.window //= 2
        if capacity - state.slack < 8:
            raise exc
        victims = choose_spills(fn, occ, order, capacity - state.slack, state)
    if victims:
        spill(fn, victims, state, sp, occ)


def _longest_lived(fn: Function, rc: RC) -> VReg:
    occ, _ = occupancy(fn)
    return max((v for v in occ if v.rc == rc), key=lambda v: (bin(occ[v]).count("1"), -v.id))
