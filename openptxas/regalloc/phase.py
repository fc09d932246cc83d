"""The AllocateRegisters phase: fat-point allocation, the independent checker (with
``--verify``), and the rewrite to physical registers.

The register budget is the driver's (``Function.maxnreg``: ``.maxnreg``, ``.maxntid`` with
``.minnctapersm``, see regalloc/budget.py) or ``-maxrregcount``, else the target's register count;
ptxas raises budgets below the target's minimum (24 on sm_90) to it. When R registers run out,
values are spilled to local memory (regalloc/spill.py) and allocation runs again; predicates go
to R registers (regalloc/predspill.py), and so do uniform registers (regalloc/urspill.py).
"""

from __future__ import annotations

from openptxas.diag import RegAllocError
from openptxas.ir.core import RC, RZ, Function, Instr, Reg, VReg
from openptxas.passes.manager import PassContext, verify_enabled
from openptxas.regalloc.check import check_allocation
from openptxas.regalloc.clobbers import forbidden_registers, live_across_all_predicates
from openptxas.regalloc.coalesce import (
    Snapshot,
    defs_into_group_words,
    share_group_copies,
    snapshot,
)
from openptxas.regalloc.fatpoint import (
    Allocation,
    ClassExhausted,
    ClassLimits,
    _pressure_estimate,
    allocate,
    limits_for,
    occupancy,
    rewrite,
)
from openptxas.regalloc.predspill import spill_predicate
from openptxas.regalloc.remat import remat_across_calls
from openptxas.regalloc.spill import (
    SpillState,
    choose_spills,
    frame_with_spills,
    spill,
    spill_frames,
)
from openptxas.regalloc.urspill import spill_uniform
from openptxas.targets.latency import lat_key


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
    shared: Snapshot | None = None
    if ctx.options.ra != "naive":
        remat_across_calls(fn)  # constants read after slow-path calls: loaded again there
        if ctx.options.opt_level >= 1:
            shared = snapshot(fn)  # to undo the sharing if the registers run out
            if not share_group_copies(fn):  # a group built twice from the same values: once
                shared = None
            defs_into_group_words(fn)  # a group's words computed in place (regalloc/coalesce)
    calls = any(i.op == "CALL" and "ABS" in i.mods for i in fn.instrs())
    for _ in range(64 if calls else 0):  # predicates live across a call go to general registers
        occ, order = occupancy(fn)
        across = live_across_all_predicates(forbidden_registers(fn, occ, order, abi))
        if not across:
            break
        spill_predicate(fn, across[0])
    state = SpillState()
    before_spills: Snapshot | None = None
    sp = Reg(RC.R, ctx.target.abi.stack_pointer)
    spilled_ur: set[int] = set()  # uniform registers made by spill_uniform (not chosen again)
    for _ in range(256):
        try:
            alloc = allocate(fn, limits, naive=ctx.options.ra == "naive", abi=abi)
            break
        except ClassExhausted as exc:
            if shared is not None and exc.rc == RC.R:
                # a shared group lives longer than its copies did: where that makes the
                # registers run out (t2/bf16TensorCoreGemm at 250), build them again instead
                # of spilling
                shared.restore()
                shared = None
                defs_into_group_words(fn)
                continue
            if exc.rc in (RC.P, RC.UP):
                spill_predicate(fn, _longest_lived(fn, exc.rc))
            elif exc.rc == RC.R and ctx.options.ra != "naive":
                if before_spills is None:
                    before_spills = snapshot(fn)
                try:
                    _spill_general(fn, limits[RC.R], state, sp, exc)
                except ClassExhausted:
                    if not state.keep:
                        raise
                    # the values kept in registers between their uses took registers the
                    # allocation could not give (calls, alignment): spill again from the
                    # start, reloading before each use
                    before_spills.restore()
                    state = SpillState(window=6, keep=False)
                    spilled_ur.clear()
            elif exc.rc == RC.UR:
                # as many of the longest-lived as the pressure exceeds the registers by
                occ, _ = occupancy(fn)
                lim = limits[RC.UR]
                over = _pressure_estimate(occ, RC.UR) - (
                    lim.last - lim.first + 1 - len(lim.reserved)
                )
                first = fn.next_vreg
                for v in _longest_lived_n(occ, RC.UR, max(1, over), spilled_ur):
                    spill_uniform(fn, v)
                spilled_ur.update(range(first, fn.next_vreg))
            else:
                raise
    else:
        raise RegAllocError(
            f"Register allocation failed for function '{fn.name}': too many values live at once"
        )
    if ctx.options.opt_level >= 1 and ctx.options.ra != "naive":
        alloc = _spread(fn, limits, alloc, ctx)
    frame_with_spills(fn, state, sp)
    # each subroutine's spill code is reported in its own -v block, as ptxas does
    subs = state.sub_bytes
    fn.spill_stores = state.stores - sum(st for st, _ in subs.values())
    fn.spill_loads = state.loads - sum(ld for _, ld in subs.values())
    fn.sub_spills = {name: (st, ld) for name, (st, ld) in subs.items() if st or ld}
    if verify_enabled(ctx.options):
        check_allocation(fn, alloc)
    if ctx.options.device_debug:  # -g: where each PTX register lives (openptxas.debuginfo)
        from openptxas.regalloc.debughomes import record_homes

        record_homes(fn, alloc.regs)
    rewrite(fn, alloc)
    abi = ctx.target.abi
    # registers the code names itself count too (a driver call's R20:R21 return address, the
    # argument registers), as ptxas counts them: the hardware grants only the count
    fn.registers = max(alloc.registers(abi), _highest_named_r(fn) + 1 + abi.regcount_extra)


def _highest_named_r(fn: Function) -> int:
    """The highest general register an instruction of ``fn`` names (after allocation)."""
    top = -1
    for ins in fn.instrs():
        for r in (*ins.def_regs(), *ins.use_regs()):
            if isinstance(r, Reg) and r.rc is RC.R and r.index < RZ.index:
                top = max(top, r.index + r.width - 1)
    return top


# Spreading rounds the register count up to a multiple of this (tests/kernels, 117 files,
# ours/ptxas: emulator cycles 0.946 and registers 0.954 at 8, 0.969 and 0.880 at 4; a 60-file
# public sample's registers 1.068 at 8, 1.005 at 4): most of the gain for half the registers.
# Measured again in the twelfth session: at 2, cycles 0.947 and registers 0.861 (at 4: 0.921,
# 0.902), the public sample's registers 0.989 (1.021): kept at 4, the occupancy is the same
# within the hardware's unit and the stalls fewer.
SPREAD_UNIT = 4


def _spread(
    fn: Function, limits: dict[RC, ClassLimits], alloc: Allocation, ctx: PassContext
) -> Allocation:
    """The allocation again, spreading values over the registers up to the first one's count
    rounded up to ``SPREAD_UNIT`` (within the unit the hardware grants anyway: the same
    occupancy), the uniform registers and the predicates (``fatpoint.allocate``'s ``spread``,
    ``late``: the readers a quick rewrite would make wait); the first allocation where that
    does not fit."""
    abi = ctx.target.abi
    unit = min(SPREAD_UNIT, ctx.target.reg_alloc_unit)
    granted = -(-alloc.registers(abi) // unit) * unit
    spread = {
        RC.R: min(limits[RC.R].last, granted - 1 - abi.regcount_extra),
        RC.UR: limits[RC.UR].last,
        RC.P: limits[RC.P].last,
        RC.UP: limits[RC.UP].last,
    }
    model = ctx.target.latency

    def late(ins: Instr) -> bool:
        return lat_key(ins.op, ins.mods) in model.war_readers or not model.reads_at_issue(ins.op)

    try:
        again = allocate(fn, limits, abi=abi, spread=spread, late=late)
    except ClassExhausted:
        return alloc
    return again if again.registers(abi) <= granted else alloc


def _spill_general(
    fn: Function, lim: ClassLimits, state: SpillState, sp: Reg, exc: ClassExhausted
) -> None:
    """Spill R registers to local memory until the pressure fits the budget (one round)."""
    barred: set[int] = set()
    frames = spill_frames(fn, sp)
    if frames is not None and frames.readers is not None:
        # recursion: each function's values go to its own frame; one that two functions use
        # (a recursive call's parameters) has no one frame
        barred = {i for i, names in frames.readers.items() if len(names) > 1}
    capacity = sum(1 for i in range(lim.first, lim.last + 1) if i not in lim.reserved)
    occ, order = occupancy(fn)
    victims = choose_spills(fn, occ, order, capacity - state.slack, state, barred)
    if (
        not victims
        and exc.constrained
        and exc.value is not None
        and exc.value.id not in state.temps
    ):
        # the pressure fits, but the value lives across a call with the registers the callee
        # may write barred to it, and those left are taken (the spiller counts every register
        # in the pressure): it goes to the stack
        victims = [exc.value]
    if not victims:
        # the pressure fits but the allocator did not (alignment, fat points): keep more free
        state.slack += 1
        state.window //= 2
        if capacity - state.slack < 8:
            raise exc
        victims = choose_spills(fn, occ, order, capacity - state.slack, state, barred)
    if victims:
        spill(fn, victims, state, sp, occ, capacity - state.slack, frames)


def _longest_lived(fn: Function, rc: RC) -> VReg:
    occ, _ = occupancy(fn)
    return max((v for v in occ if v.rc == rc), key=lambda v: (bin(occ[v]).count("1"), -v.id))


def _longest_lived_n(occ: dict[VReg, int], rc: RC, n: int, made: set[int]) -> list[VReg]:
    """The ``n`` registers of class ``rc`` live at the most program points, the spiller's own
    (``made``) left out."""
    pool = sorted(
        (v for v in occ if v.rc == rc and v.id not in made),
        key=lambda v: (-bin(occ[v]).count("1"), v.id),
    )
    if not pool:
        raise RegAllocError(
            f"Register allocation failed: too many {rc.name} registers live at once"
        )
    return pool[:n]
