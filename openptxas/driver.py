"""Compile driver: runs the pipeline stages in order.

PTX -> IR -> passes -> register allocation -> scheduling -> encoding -> ELF.

``compile_ptx`` is the library entry point (``openptxas.compile`` wraps it); the CLI renders its
result and diagnostics. Stages are imported lazily so that ``--version`` and usage errors stay
fast.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from openptxas.diag import (
    Diagnostic,
    OpenPtxasError,
    PtxSyntaxError,
    Severity,
    UnsupportedFeature,
)
from openptxas.options import Options

if TYPE_CHECKING:
    from collections.abc import Callable

    from openptxas.passes.manager import Phase
    from openptxas.ptx.ast import Module
    from openptxas.targets import SMInfo


@dataclass
class FunctionReport:
    """The figures ptxas prints with ``-v`` for one function."""

    name: str
    is_entry: bool
    registers: int = 0
    barriers: int = 0
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    cumulative_stack: int = 0
    smem: int = 0
    compile_ms: float = 0.0


@dataclass
class CompileResult:
    cubin: bytes
    target: str
    functions: list[FunctionReport] = field(default_factory=list)
    gmem: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    dumps: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    # ``-v`` lines ptxas prints before the report (register-limit overrides, in compile order)
    notes: list[str] = field(default_factory=list)

    def verbose_report(self) -> str:
        """The ``-v`` report in ptxas 13.0.88's format."""
        lines = [f"ptxas info    : {n}" for n in self.notes]
        lines.append(f"ptxas info    : {self.gmem} bytes gmem")
        for f in self.functions:
            if not f.is_entry:
                lines.append(f"ptxas info    : Function properties for {f.name}")
                lines.append(
                    f"    {f.stack_frame} bytes stack frame, {f.spill_stores} bytes spill "
                    f"stores, {f.spill_loads} bytes spill loads"
                )
                continue
            kind = "entry function" if f.is_entry else "function"
            lines.append(f"ptxas info    : Compiling {kind} '{f.name}' for '{self.target}'")
            lines.append(f"ptxas info    : Function properties for {f.name}")
            lines.append(
                f"    {f.stack_frame} bytes stack frame, {f.spill_stores} bytes spill "
                f"stores, {f.spill_loads} bytes spill loads"
            )
            used = f"ptxas info    : Used {f.registers} registers, used {f.barriers} barriers"
            if f.cumulative_stack:
                used += f", {f.cumulative_stack} bytes cumulative stack size"
            if f.smem:
                used += f", {f.smem} bytes smem"
            lines.append(used)
            lines.append(f"ptxas info    : Compile time = {f.compile_ms:.3f} ms")
        return "\n".join(lines) + "\n"


def compile_ptx(
    text: str,
    options: Options,
    filename: str = "<input>",
    on_dump: Callable[[str], None] | None = None,
) -> CompileResult:
    """Compile PTX text to a cubin. Raises OpenPtxasError (with diagnostics) on bad input or
    unsupported features; never writes files. ``on_dump`` receives each function's phase dumps
    as soon as its phases ran, so a dump reaches the user even when a later stage (another
    function, or encoding) fails; without it they are collected in ``CompileResult.dumps``."""
    from openptxas.passes.manager import check_phase_names
    from openptxas.pipeline import pipeline
    from openptxas.ptx import remap_syntax_error
    from openptxas.ptx.linemap import LineMap, body_lines, remap_error
    from openptxas.ptx.parser import parse
    from openptxas.targets import get_target

    target = get_target(options.arch)
    if options.compile_only:
        raise UnsupportedFeature("relocatable output (-c) is not supported by openptxas yet")
    if options.device_debug:
        raise UnsupportedFeature("debug information (-g) is not supported by openptxas yet")
    phases = pipeline()
    check_phase_names(phases, options)
    try:
        module = parse(text, filename)
    except PtxSyntaxError as exc:
        remap_syntax_error(exc)
        raise
    if isinstance(module.line_map, LineMap):  # `#line` markers: report their lines and files
        try:
            return _compile_module(module, options, filename, on_dump, target, phases)
        except OpenPtxasError as exc:
            remap_error(exc, module.line_map, body_lines(module))
            raise
    return _compile_module(module, options, filename, on_dump, target, phases)


def _compile_module(
    module: Module,
    options: Options,
    filename: str,
    on_dump: Callable[[str], None] | None,
    target: SMInfo,
    phases: list[Phase],
) -> CompileResult:
    from openptxas.lower import lower_function
    from openptxas.passes.manager import PassContext, run_phases

    _check(module, options, filename)
    result = CompileResult(b"", target.name)
    maxrreg = _maxrregcount(options, target, result)
    compiled = []
    # ptxas compiles (and reports) functions in reverse order of definition.
    for func in reversed(module.entries):
        if options.entries and func.name not in options.entries:
            continue
        if maxrreg is not None and func.is_entry:
            if func.maxnreg is not None:
                result.notes.append(
                    f"Overriding global maxrregcount {maxrreg} with entry-specific value "
                    f"{func.maxnreg} of .maxnreg"
                )
            elif target.reports_regcount_override:
                result.notes.append(
                    f"Overriding maximum register limit 256 for '{func.name}' with  {maxrreg} "
                    "of maxrregcount option"
                )
        t0 = time.perf_counter()
        fn = lower_function(module, func, target)
        fn.maxnreg = func.maxnreg
        ctx = PassContext(target, options)
        run_phases(fn, ctx, phases)
        if on_dump is not None:
            for dump in ctx.dumps:
                on_dump(dump)
        else:
            result.dumps.extend(ctx.dumps)
        for k, v in ctx.timings.items():
            result.timings[k] = result.timings.get(k, 0.0) + v
        compiled.append((func, fn))
        result.functions.append(
            FunctionReport(
                fn.name,
                func.is_entry,
                registers=fn.registers,
                barriers=fn.barriers,
                # ptxas counts the subroutines' frames in the kernel's (whole program)
                stack_frame=fn.local_bytes + fn.call_stack,
                cumulative_stack=fn.local_bytes + fn.call_stack,
                smem=fn.shared_static,
                compile_ms=(time.perf_counter() - t0) * 1000.0,
            )
        )
    # then each device function a kernel calls (ptxas: by name), whose frame the kernels' include
    called = {
        name
        for _, fn in compiled
        for name, _entry in fn.subroutines
        if not name.startswith("$__cuda")  # lower/fpslow.py's slow paths: no report
    }
    for name in sorted(called):
        result.functions.append(FunctionReport(name, False))
    from openptxas.codegen import build_cubin

    if not compiled:
        _refuse_global_data_without_kernels(module)
    result.cubin = build_cubin(module, compiled, target, options)
    return result


def _refuse_global_data_without_kernels(module: Module) -> None:
    """A module that compiles no kernel but defines .global variables: ptxas still makes their
    sections and the address table (.nv.constant4); the ELF builder does not yet (it raised
    KeyError: found by scripts/ptx_fuzz.py --full)."""
    from openptxas.ptx.ast import VarDecl
    from openptxas.ptx.types import Linkage, StateSpace

    for it in module.items:
        if (
            isinstance(it, VarDecl)
            and it.space is StateSpace.GLOBAL
            and it.linkage is not Linkage.EXTERN
        ):
            raise UnsupportedFeature(
                f"global variable '{it.name}' in a module without kernels to compile is not "
                "supported by openptxas yet",
                it.span,
            )


def _maxrregcount(options: Options, target: SMInfo, result: CompileResult) -> int | None:
    """The effective ``-maxrregcount`` (None when not given), with ptxas's warnings: a value
    over the target's register count is ignored, one under its minimum is raised to it."""
    n = options.maxrregcount
    if n is None:
        return None
    if n > target.gpr_count:
        result.diagnostics.append(
            Diagnostic(
                Severity.WARNING, f"Too big maxrregcount value specified {n}, will be ignored"
            )
        )
        return target.gpr_count
    if n < target.min_maxrregcount:
        result.diagnostics.append(
            Diagnostic(
                Severity.WARNING,
                f"For profile {target.name} adjusting per thread register count of {n} to "
                f"lower bound of {target.min_maxrregcount}",
            )
        )
        return target.min_maxrregcount
    return n


def _check(module: Module, options: Options, filename: str) -> None:
    """Run the PTX checker; collect its errors."""
    from openptxas.ptx import check as checker

    diags = checker.check(module, options.arch)
    errors = [d for d in diags if d.severity in (Severity.ERROR, Severity.FATAL)]
    if errors:
        raise OpenPtxasError(errors[0].message, errors[0].span, errors)
