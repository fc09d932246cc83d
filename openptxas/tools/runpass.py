"""Run one pass (or one pipeline phase) on IR text and print the IR after it.

    python -m openptxas.tools.runpass PASS FILE.ir [-arch sm_90] [-O3] [--fmad=false] [-o OUT]

PASS is a pass of ``openptxas/passes`` (``const_fold``, ``copy_prop``, ``cse``, ``dce``, ``fma``,
``peephole``, ``predication``, ``branch_opt``, ``addr_fold``, ``uniform_regs``, ``wide_add``,
``convergence``), ``regalloc`` or ``sched``, or a phase name of the pipeline (``GeneralOptimize``,
``AllocateRegisters``, ...: the phase's whole job, e.g. the copy propagation, folding and dead-code
elimination rounds of GeneralOptimize). FILE is IR text as ``--dump-phase`` prints it
(``openptxas.ir.printer``; ``-`` reads stdin); its ``.target`` line, if any, sets the target
unless ``-arch`` is given (default sm_90). The IR verifier runs before and after the pass.
Malformed IR text is reported as ``runpass FILE, line N; error   : ...`` with exit status 255.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from openptxas.diag import Diagnostic, OpenPtxasError, Severity
from openptxas.ir.core import Function
from openptxas.passes.manager import PassContext

PassFn = Callable[[Function, PassContext], None]
EXIT_ERROR = 255
TOOL = "runpass"


def _single(module: str, name: str) -> PassFn:
    def run(fn: Function, ctx: PassContext) -> None:
        import importlib

        getattr(importlib.import_module(f"openptxas.passes.{module}"), name)(fn, ctx)

    return run


def _regalloc(fn: Function, ctx: PassContext) -> None:
    from openptxas.regalloc.phase import allocate_registers

    allocate_registers(fn, ctx)


def _sched(fn: Function, ctx: PassContext) -> None:
    from openptxas.sched.control import assign_control

    assign_control(fn, ctx.target, serial=ctx.options.sched == "serial")


def _postsched(fn: Function, ctx: PassContext) -> None:
    from openptxas.sched.listsched import post_schedule

    post_schedule(fn, ctx.target)


def _presched(fn: Function, ctx: PassContext) -> None:
    from openptxas.sched.listsched import pre_schedule

    pre_schedule(fn, ctx.target)


# One pass each (no dead-code clean-up after it, unlike the pipeline's phases).
PASSES: dict[str, PassFn] = {
    "addr_fold": _single("addr_fold", "addr_fold"),
    "branch_opt": _single("branch_opt", "branch_opt"),
    "bulk_uniform": _single("bulk_uniform", "hoist_bulk_operands"),
    "const_fold": _single("const_fold", "const_fold"),
    "convergence": _single("convergence", "insert_convergence_barriers"),
    "copy_prop": _single("copy_prop", "copy_prop"),
    "cse": _single("cse", "cse"),
    "dce": _single("dce", "dce"),
    "demanded": _single("demanded", "drop_useless_masks"),
    "fma": _single("fma", "fma_contraction"),
    "legalize": _single("legalize", "legalize"),
    "licm": _single("licm", "hoist_invariants"),
    "peephole": _single("peephole", "peephole"),
    "predication": _single("predication", "if_convert"),
    "sink": _single("sink", "sink_past_exits"),
    "uniform_regs": _single("uniform_regs", "convert_to_uniform"),
    "uniform_base": _single("addr_fold", "fold_uniform_base"),
    "unroll": _single("unroll", "loop_unroll"),
    "vectorize": _single("vectorize", "vectorize_shared_loads"),
    "pair_constants": _single("vectorize", "pair_constant_loads"),
    "webs": _single("webs", "split_local_webs"),
    "wide_add": _single("wide_add", "wide_add"),
    "regalloc": _regalloc,
    "sched": _sched,
    "postsched": _postsched,
    "presched": _presched,
}
# Passes whose output has physical registers only.
ALLOCATED_AFTER = frozenset({"regalloc", "AllocateRegisters"})


def pass_names() -> list[str]:
    from openptxas.pipeline import pipeline

    return sorted(PASSES) + [p.name for p in pipeline()]


def run_pass(name: str, fn: Function, ctx: PassContext) -> None:
    """Run pass or phase ``name`` on ``fn``, with the verifier before and after (raises
    KeyError for an unknown name, InternalError when the verifier rejects the IR)."""
    from openptxas.ir.core import Reg, VReg, operand_regs
    from openptxas.ir.verify import verify
    from openptxas.pipeline import pipeline

    run: PassFn | None = PASSES.get(name)
    if run is None:
        run = next((p.run for p in pipeline() if p.name == name), None)
    if run is None:
        raise KeyError(name)
    # allocated input (physical registers only, as the scheduler expects): verify as such
    allocated = not any(
        isinstance(r, VReg) or not isinstance(r, Reg)
        for ins in fn.instrs()
        for op in (*ins.dsts, *ins.srcs)
        for r in operand_regs(op)
    )
    verify(fn, allocated=allocated)
    run(fn, ctx)
    verify(fn, allocated=allocated or name in ALLOCATED_AFTER)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from openptxas.ir.printer import format_functions
    from openptxas.ir.reader import read_ir
    from openptxas.options import Options
    from openptxas.targets import get_target

    ap = argparse.ArgumentParser(
        prog="python -m openptxas.tools.runpass", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("pass_name", metavar="PASS")
    ap.add_argument("file", metavar="FILE")
    ap.add_argument("-arch", "--gpu-name", dest="arch")
    ap.add_argument("-O", dest="opt", type=int, default=3, choices=range(4))
    ap.add_argument("--fmad", choices=("true", "false"), default="true")
    ap.add_argument("-o", dest="output")
    a = ap.parse_args(argv)

    def fail(msg: str, diag: list[Diagnostic] | None = None) -> int:
        for d in diag or [Diagnostic(Severity.ERROR, msg)]:
            print(d.render(TOOL), file=sys.stderr)
        return EXIT_ERROR

    if a.pass_name not in pass_names():
        return fail(f"Unknown pass '{a.pass_name}' (passes: {', '.join(pass_names())})")
    try:
        if a.file == "-":
            text = sys.stdin.read()
        else:
            with open(a.file, encoding="utf-8", errors="replace") as f:
                text = f.read()
    except OSError:
        return fail(f"Input file '{a.file}' could not be opened")
    try:
        ir = read_ir(text, a.file)
        target = get_target(a.arch or ir.target or "sm_90")
        opts = Options(arch=target.name, opt_level=a.opt, fmad=a.fmad == "true", verify=True)
        for fn in ir.functions:
            run_pass(a.pass_name, fn, PassContext(target, opts))
    except OpenPtxasError as exc:
        return fail(exc.message, exc.diagnostics)
    out = format_functions(ir.functions, ir.target)
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
