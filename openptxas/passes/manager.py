"""The pass manager: named phases run in ptxas's order, each dumpable and (unless essential)
switchable.

Phase names are ptxas's own (from the seeds' phase table, e.g. ``GeneralOptimizeEarly``,
``AllocateRegisters``), plus a few openptxas names where ptxas's table has no single phase for the
job (e.g. ``InsertConvergenceBarriers``). ``--dump-phase NAME`` prints the IR after a phase
(``all`` after every one), ``--disable-phase NAME`` skips a non-essential one, and with
``--verify`` (always on in tests) the IR verifier runs after every phase.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from openptxas.diag import UsageError
from openptxas.ir.core import Function
from openptxas.ir.printer import format_function
from openptxas.ir.verify import verify
from openptxas.options import Options
from openptxas.targets import SMInfo


@dataclass
class PassContext:
    target: SMInfo
    options: Options
    # Text the CLI prints (phase dumps); the manager never prints itself.
    dumps: list[str] = field(default_factory=list)
    # Per-phase wall time in seconds (for --compiler-stats style profiles).
    timings: dict[str, float] = field(default_factory=dict)


PhaseFn = Callable[[Function, PassContext], None]


@dataclass(frozen=True, slots=True)
class Phase:
    name: str
    run: PhaseFn
    min_opt: int = 0  # runs only at -O >= min_opt
    essential: bool = False  # required for correct output: cannot be disabled
    allocated: bool = False  # the IR has physical registers after this phase
    doc: str = ""


def verify_enabled(options: Options) -> bool:
    return options.verify or os.environ.get("OPENPTXAS_VERIFY", "") not in ("", "0")


def check_phase_names(phases: list[Phase], options: Options) -> None:
    """Phase names of --dump-phase / --disable-phase, checked as ptxas checks option values
    (``Value 'x' is not defined for option 'y'``), with the list of phases."""
    names = {p.name for p in phases}
    listing = ", ".join(p.name for p in phases)
    for n in options.dump_phases:
        if n != "all" and n not in names:
            raise UsageError(
                f"Value '{n}' is not defined for option 'dump-phase' (phases: all, {listing})"
            )
    for n in options.disable_phases:
        if n not in names:
            raise UsageError(
                f"Value '{n}' is not defined for option 'disable-phase' (phases: {listing})"
            )
        if next(p for p in phases if p.name == n).essential:
            raise UsageError(f"Phase '{n}' is required and cannot be disabled")


def run_phases(fn: Function, ctx: PassContext, phases: list[Phase]) -> None:
    import time

    opts = ctx.options
    check = verify_enabled(opts)
    allocated = False
    for ph in phases:
        if opts.opt_level < ph.min_opt or ph.name in opts.disable_phases:
            continue
        # CPU time: a phase's figure should not depend on what else the machine runs
        t0 = time.process_time()
        ph.run(fn, ctx)
        ctx.timings[ph.name] = ctx.timings.get(ph.name, 0.0) + time.process_time() - t0
        allocated = allocated or ph.allocated
        if check:
            verify(fn, allocated=allocated)
        if "all" in opts.dump_phases or ph.name in opts.dump_phases:
            ctx.dumps.append(f"// ---- {fn.name} after {ph.name}\n" + format_function(fn))
