"""The phase table: openptxas's passes under ptxas's phase names, in ptxas's order.

Names follow the seeds' phase table (``../shared/seeds``, phases 0-158); where ptxas's table has no
single phase for a job, the name is ours (``InsertConvergenceBarriers``). At ``-O0`` only phases
with ``min_opt`` 0 run.
"""

from __future__ import annotations

import functools

from openptxas.ir.core import Function
from openptxas.passes.manager import PassContext, Phase


def _general_optimize(fn: Function, ctx: PassContext) -> None:
    """GeneralOptimize: copy propagation, constant folding, constant address offsets into
    memory operands, dead-code elimination."""
    from openptxas.passes.addr_fold import addr_fold
    from openptxas.passes.const_fold import const_fold
    from openptxas.passes.copy_prop import copy_prop
    from openptxas.passes.dce import dce
    from openptxas.passes.demanded import drop_useless_masks
    from openptxas.passes.peephole import peephole
    from openptxas.passes.webs import split_local_webs

    split_local_webs(fn, ctx)
    copy_prop(fn, ctx)
    const_fold(fn, ctx)
    copy_prop(fn, ctx)
    addr_fold(fn, ctx)
    peephole(fn, ctx)
    drop_useless_masks(fn, ctx)
    const_fold(fn, ctx)
    dce(fn, ctx)


def _fma(fn: Function, ctx: PassContext) -> None:
    if not ctx.options.fmad:
        return
    from openptxas.passes.dce import dce
    from openptxas.passes.fma import fma_contraction

    fma_contraction(fn, ctx)
    dce(fn, ctx)


def _licm(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.licm import hoist_invariants

    hoist_invariants(fn, ctx)


def _cse(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.copy_prop import copy_prop
    from openptxas.passes.cse import cse
    from openptxas.passes.dce import dce

    cse(fn, ctx)
    copy_prop(fn, ctx)
    dce(fn, ctx)


def _unroll(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.unroll import loop_unroll

    loop_unroll(fn, ctx)


def _dce(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.dce import dce

    dce(fn, ctx)


def _sink(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.sink import sink_past_exits

    sink_past_exits(fn, ctx)


def _wide_add(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.wide_add import wide_add

    wide_add(fn, ctx)


def _legalize(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.legalize import legalize

    legalize(fn, ctx)


def _predication(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.predication import if_convert

    if_convert(fn, ctx)


def _convergence(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.convergence import drop_converged_warpsyncs, insert_convergence_barriers

    insert_convergence_barriers(fn, ctx)
    if drop_converged_warpsyncs(fn):  # (after the barriers: a BSYNC reconverges the warp)
        _dce(fn, ctx)  # the masks they read


def _vectorize(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.vectorize import pair_constant_loads, vectorize_shared_loads

    vectorize_shared_loads(fn, ctx)
    pair_constant_loads(fn, ctx)


def _uniform(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.addr_fold import fold_uniform_base
    from openptxas.passes.bulk_uniform import hoist_bulk_operands
    from openptxas.passes.uniform_regs import convert_to_uniform

    convert_to_uniform(fn, ctx)
    hoist_bulk_operands(fn, ctx)  # the copy engines' uniform operands out of their ELECT loops
    fold_uniform_base(fn, ctx)  # [r + ur] shared addresses


def _branch_opt(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.branch_opt import branch_opt

    branch_opt(fn, ctx)


def _allocate(fn: Function, ctx: PassContext) -> None:
    from openptxas.regalloc.phase import allocate_registers

    allocate_registers(fn, ctx)


def _pre_schedule(fn: Function, ctx: PassContext) -> None:
    if ctx.options.sched != "prera":
        return
    from openptxas.sched.listsched import pre_schedule

    pre_schedule(fn, ctx.target)


def _post_schedule(fn: Function, ctx: PassContext) -> None:
    if ctx.options.sched == "serial":
        return  # today's order, for bisecting
    from openptxas.sched.listsched import post_schedule

    post_schedule(fn, ctx.target)


def _control(fn: Function, ctx: PassContext) -> None:
    from openptxas.sched import control

    if ctx.options.compile_only:  # -c: address-table loads become relocated moves
        from openptxas.lower.relocs import expand_symbol_addresses

        expand_symbol_addresses(fn)
        if not fn.is_entry:  # a device function of its own (lower/standalone.py)
            from openptxas.lower.standalone import save_callee_saved

            save_callee_saved(fn, ctx.target.abi.stack_pointer)
    # the target's latency model (a family without one is refused by SMInfo.latency)
    control.assign_control(fn, ctx.target, serial=ctx.options.sched == "serial")


@functools.cache
def pipeline() -> list[Phase]:
    return [
        Phase("EarlyOriSimpleLiveDead", _dce, 0, doc="dead-code elimination"),
        Phase("BranchOpt", _branch_opt, 1, doc="exit branches, jump threading, dead blocks"),
        Phase("OriLoopUnrolling", _unroll, 2, doc="full unrolling of counted one-block loops"),
        Phase(
            "GeneralOptimizeEarly",
            _general_optimize,
            1,
            doc="copy propagation and dead-code elimination",
        ),
        Phase(
            "FmaContraction",
            _fma,
            1,
            doc="mul+add into FFMA/DFMA (--fmad=true, ptxas's default)",
        ),
        Phase("GeneralOptimize", _general_optimize, 1),
        Phase(
            "HoistInvariantsEarly",
            _licm,
            1,
            doc="loop-invariant code motion into the loops' preheaders",
        ),
        Phase("GvnCse", _cse, 2, doc="common-subexpression elimination"),
        Phase(
            "LateVectorization",
            _vectorize,
            1,
            doc="neighbouring 32-bit shared and constant loads into LDS.64/LDS.128/LDC.64",
        ),
        Phase(
            "ConvertToUniformReg",
            _uniform,
            1,
            doc="move warp-uniform values to the uniform datapath (UR/UP)",
        ),
        Phase(
            "LateArchOptimizeFirst",
            _wide_add,
            1,
            doc="fold 64-bit adds of widening multiplies into IMAD.WIDE",
        ),
        Phase(
            "LateExpansionUnsupportedOps",
            _legalize,
            0,
            essential=True,
            doc="instructions the target lacks in the forms it has (VIMNMX as IMNMX)",
        ),
        Phase(
            "OriDoPredication",
            _predication,
            1,
            doc="if-conversion: short branch regions become predicated code",
        ),
        Phase("LiveDeadThird", _dce, 1),
        Phase(
            "SinkCodeIntoBlock",
            _sink,
            1,
            doc="computations an early exit skips move past it",
        ),
        Phase(
            "InsertConvergenceBarriers",
            _convergence,
            0,
            essential=True,
            doc="BSSY/BSYNC around divergent regions",
        ),
        Phase(
            "ScheduleInstructions",
            _pre_schedule,
            1,
            doc="list scheduling within the register pressure (--sched=prera)",
        ),
        Phase(
            "AllocateRegisters",
            _allocate,
            0,
            essential=True,
            allocated=True,
            doc="fat-point register allocation (checked)",
        ),
        Phase(
            "PostSchedule",
            _post_schedule,
            1,
            doc="list scheduling of the allocated code (--sched=serial: the lowering's order)",
        ),
        Phase(
            "ScoreboardsAndOpexes",
            _control,
            0,
            essential=True,
            doc="stall counts, yield, scoreboards and wait masks",
        ),
    ]
