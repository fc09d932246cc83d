"""Compile driver: runs the pipeline stages in order.

PTX -> IR -> passes -> register allocation -> scheduling -> encoding -> ELF.

``compile_ptx`` is the library entry point (``openptxas.compile`` wraps it); the CLI renders its
result and diagnostics. Stages are imported lazily so that ``--version`` and usage errors stay
fast.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from openptxas.diag import (
    Diagnostic,
    OpenPtxasError,
    PtxSyntaxError,
    Severity,
    UnsupportedFeature,
    UsageError,
)
from openptxas.options import Options

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from openptxas.ir.core import Function
    from openptxas.passes.manager import PassContext, Phase
    from openptxas.ptx import ast
    from openptxas.ptx.ast import Module
    from openptxas.regalloc.budget import Budget
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
    standalone: bool = False  # -c: a device function compiled on its own (own compile time)


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
    # False for a virtual target (compute_XX, lto_XX): the PTX was only checked, no cubin
    generated: bool = True
    # warnings ptxas prints after those notes (--warn-on-spills, --warn-on-local-memory-usage)
    late_warnings: list[Diagnostic] = field(default_factory=list)

    def verbose_report(self) -> str:
        """The ``-v`` report in ptxas 13.0.88's format."""
        lines = [f"ptxas info    : {n}" for n in self.notes]
        lines += [d.render() for d in self.late_warnings]
        lines.append(f"ptxas info    : {self.gmem} bytes gmem")
        for f in self.functions:
            if not f.is_entry:
                lines.append(f"ptxas info    : Function properties for {f.name}")
                lines.append(
                    f"    {f.stack_frame} bytes stack frame, {f.spill_stores} bytes spill "
                    f"stores, {f.spill_loads} bytes spill loads"
                )
                if f.standalone:
                    lines.append(f"ptxas info    : Compile time = {f.compile_ms:.3f} ms")
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
    on_checked: Callable[[list[Diagnostic]], None] | None = None,
) -> CompileResult:
    """Compile PTX text to a cubin. Raises OpenPtxasError (with diagnostics) on bad input or
    unsupported features; never writes files. ``on_dump`` receives each function's phase dumps
    as soon as its phases ran, so a dump reaches the user even when a later stage (another
    function, or encoding) fails; without it they are collected in ``CompileResult.dumps``.
    ``on_checked`` runs once the PTX parsed and checked, before code generation, with the
    warnings found so far (the CLI prints them and checks its output path there, where ptxas
    does); they are in ``CompileResult.diagnostics`` too."""
    return compile_sources([(filename, text)], options, on_dump, on_checked)


def compile_sources(
    sources: Sequence[tuple[str, str]],
    options: Options,
    on_dump: Callable[[str], None] | None = None,
    on_checked: Callable[[list[Diagnostic]], None] | None = None,
) -> CompileResult:
    """Compile one or several PTX modules ``(filename, text)`` into one cubin, as ptxas does
    with several input files: their functions and variables form one program (a name defined
    in two of them is a duplicate definition), compiled in reverse order of definition."""
    from openptxas.passes.manager import check_phase_names
    from openptxas.pipeline import pipeline
    from openptxas.ptx import remap_syntax_error
    from openptxas.ptx.linemap import LineMap, body_lines, remap_error
    from openptxas.ptx.parser import parse
    from openptxas.targets import get_target

    if not options.generates_code:
        # compute_XX / lto_XX: ptxas parses and checks for that SM, and writes nothing
        options = options.with_(arch="sm_" + options.arch.split("_", 1)[1])
        return _check_only(sources, options)
    target = get_target(options.arch)
    if options.compile_only and target.sm != 90:  # the targets checked against nvlink
        raise UnsupportedFeature(
            f"relocatable output (-c) for {target.name} is not supported by openptxas yet"
        )
    if options.device_debug:
        if options.compile_only:
            raise UnsupportedFeature(
                "debug information (-g) with relocatable output (-c) is not supported by "
                "openptxas yet"
            )
        if target.sm != 90:  # the -g layout observed on sm_90
            raise UnsupportedFeature(
                f"debug information (-g) for {target.name} is not supported by openptxas yet"
            )
        options = options.with_(opt_level=0)  # ptxas: -g compiles at -O0
    phases = pipeline()
    check_phase_names(phases, options)
    modules = []
    for filename, text in sources:
        try:
            modules.append(parse(text, filename))
        except PtxSyntaxError as exc:
            remap_syntax_error(exc)
            raise
    module = modules[0] if len(modules) == 1 else _merge(modules)
    # line information keeps the PTX text of a single input (several: no .nv_debug_ptx_txt yet)
    source = sources[0][1] if len(sources) == 1 else None
    if isinstance(module.line_map, LineMap):  # `#line` markers: report their lines and files
        try:
            return _compile_module(module, options, on_dump, on_checked, target, phases, source)
        except OpenPtxasError as exc:
            remap_error(exc, module.line_map, body_lines(module))
            raise
    return _compile_module(module, options, on_dump, on_checked, target, phases, source)


def _merge(modules: list[Module]) -> Module:
    """Several parsed modules as one program: the first one's header, then every module's
    other items in order."""
    from openptxas.ptx.ast import AddressSizeDirective, Module, TargetDirective, VersionDirective

    header = (VersionDirective, TargetDirective, AddressSizeDirective)
    items = list(modules[0].items)
    for m in modules[1:]:
        items.extend(it for it in m.items if not isinstance(it, header))
    return Module(tuple(items), modules[0].file, modules[0].span)


def _check_only(sources: Sequence[tuple[str, str]], options: Options) -> CompileResult:
    from openptxas.ptx import remap_syntax_error
    from openptxas.ptx.parser import parse

    modules = []
    for filename, text in sources:
        try:
            modules.append(parse(text, filename))
        except PtxSyntaxError as exc:
            remap_syntax_error(exc)
            raise
    module = modules[0] if len(modules) == 1 else _merge(modules)
    _check(module, options)
    return CompileResult(b"", options.arch, generated=False)


def _lower_and_run(
    module: ast.Module,
    func: ast.Function,
    target: SMInfo,
    pass_target: SMInfo,
    options: Options,
    phases: list[Phase],
    budget: Budget,
) -> tuple[Function, PassContext]:
    """Lower ``func`` and run the phases on it. Uniform registers live over a whole divergent
    region: a function whose uniform values do not fit UR0-UR62 even after spilling them to
    general registers is compiled again without ConvertToUniformReg (its code then keeps
    those values in general registers, as ptxas does in divergent code)."""
    from openptxas.diag import RegAllocError
    from openptxas.lower import lower_function
    from openptxas.passes.manager import PassContext, run_phases

    for attempt in (options, replace(options, disable_phases=(*options.disable_phases,
                                                              "ConvertToUniformReg"))):  # fmt: skip
        fn = lower_function(
            module,
            func,
            target,
            relocatable=options.compile_only,
            debug=options.device_debug,
            unoptimized=options.opt_level == 0,
        )
        fn.maxnreg = budget.registers
        ctx = PassContext(pass_target, attempt)
        try:
            run_phases(fn, ctx, phases)
        except RegAllocError as exc:
            if "too many UR registers" not in str(exc) or attempt is not options:
                raise
            continue
        return fn, ctx
    raise AssertionError("unreachable")  # the second attempt returns or raises


def _compile_module(
    module: Module,
    options: Options,
    on_dump: Callable[[str], None] | None,
    on_checked: Callable[[list[Diagnostic]], None] | None,
    target: SMInfo,
    phases: list[Phase],
    source: str | None = None,
) -> CompileResult:
    from openptxas.regalloc.budget import Budget, register_budget, spill_warnings

    _check(module, options)
    _check_entries(module, options)
    result = CompileResult(b"", target.name)
    maxrreg = _maxrregcount(options, target, result)  # its warnings come first (ptxas)
    if options.has("warn-on-double-precision-use"):
        result.diagnostics.extend(_double_warnings(module))
    if options.device_debug:  # ptxas -g on PTX without nvcc -G's DWARF (with its two spaces)
        from openptxas.ptx.ast import Section

        have = {it.name for it in module.items if isinstance(it, Section)}
        for name in (".debug_abbrev", ".debug_info"):
            if name not in have:
                result.diagnostics.append(
                    Diagnostic(Severity.WARNING, f" {name} section not found")
                )
    if on_checked is not None:
        on_checked(list(result.diagnostics))
    tmem = ("g-tensor-memory-access-check", "gno-tensor-memory-access-check")
    if any(options.has(name) for name in tmem) and not _has_tcgen05(module.target):
        # ptxas 13.0.88's info line; it names the PTX's .target, not -arch
        result.diagnostics.append(
            Diagnostic(
                Severity.INFO,
                "Command line option '--g-tensor-memory-access-check / "
                f"--gno-tensor-memory-access-check' not supported for '.target {module.target}', "
                "will be ignored",
            )
        )
    target.require_codegen()
    compiled = []
    if options.compile_only:  # calls to other objects' functions may change more registers
        from openptxas.lower.relocs import call_target

        pass_target = call_target(target)
    else:
        pass_target = target
    # ptxas compiles (and reports) functions in reverse order of definition.
    for func in reversed(module.entries):
        if options.entries and func.name not in options.entries:
            continue
        budget = register_budget(func, maxrreg, target) if func.is_entry else Budget(maxrreg)
        result.diagnostics += budget.warnings
        result.notes += budget.notes
        t0 = time.perf_counter()
        fn, ctx = _lower_and_run(module, func, target, pass_target, options, phases, budget)
        result.diagnostics.extend(Diagnostic(Severity.INFO, n) for n in fn.notes)
        _hand_dumps(ctx.dumps, on_dump, result)
        for k, v in ctx.timings.items():
            result.timings[k] = result.timings.get(k, 0.0) + v
        compiled.append((func, fn))
        result.late_warnings += spill_warnings(
            fn.name,
            fn.local_bytes + fn.call_stack,
            fn.spill_stores,
            fn.spill_loads,
            local=options.has("warn-on-local-memory-usage"),
            spills=options.has("warn-on-spills"),
        )
        result.functions.append(
            FunctionReport(
                fn.name,
                func.is_entry,
                # -c: ptxas's floor for a function with calls (lower.relocs.relocatable_module)
                registers=max(fn.registers, 24)
                if options.compile_only and fn.externs
                else fn.registers,
                barriers=fn.barriers,
                # ptxas counts the subroutines' frames in the kernel's (whole program)
                stack_frame=fn.local_bytes + fn.call_stack,
                cumulative_stack=fn.local_bytes + fn.call_stack,
                spill_stores=fn.spill_stores,
                spill_loads=fn.spill_loads,
                smem=fn.shared_static,
                compile_ms=(time.perf_counter() - t0) * 1000.0,
            )
        )
    alone: set[str] = set()
    if options.compile_only:  # -c: the device functions other objects may call
        _compile_standalone(module, options, pass_target, phases, compiled, result, on_dump)
        alone = {f.name for f in result.functions if f.standalone}
    # then each device function a kernel calls (ptxas: by name), whose frame the kernels' include
    from openptxas.lower.calls import taken_functions

    called = {
        name
        for _, fn in compiled
        for name, _entry in fn.subroutines
        if not name.startswith("$__cuda")  # lower/fpslow.py's slow paths: no report
        and name not in alone  # -c: reported as compiled on their own
    }
    taken = taken_functions(module)
    # ptxas: by name, the functions reached through their address first
    own = {n: v for _, fn in compiled for n, v in fn.sub_frames.items()}
    spilled: dict[str, tuple[int, int]] = {}  # the allocator's spill code in its blocks
    for _, fn in compiled:
        for n, figs in fn.sub_spills.items():
            if figs > spilled.get(n, (0, 0)):  # compiled with each kernel calling it
                spilled[n] = figs
    for name in sorted(called, key=lambda n: (n not in taken, n)):
        frame, saved = own.get(name, (0, 0))
        stores, loads = spilled.get(name, (0, 0))
        # a recursive function's own frame (its saves: the spill figures), as ptxas reports
        result.functions.append(
            FunctionReport(
                name,
                False,
                stack_frame=frame,
                spill_stores=saved + stores,
                spill_loads=saved + loads,
            )
        )
        result.late_warnings += spill_warnings(
            name,
            frame,
            saved + stores,
            saved + loads,
            local=options.has("warn-on-local-memory-usage"),
            spills=options.has("warn-on-spills"),
        )
    from openptxas.codegen import build_cubin

    if not compiled and not options.compile_only:
        _refuse_global_data_without_kernels(module)
    result.cubin = build_cubin(module, compiled, target, options, source)
    result.gmem = _gmem(module)
    return result


def _compile_standalone(
    module: Module,
    options: Options,
    target: SMInfo,
    phases: list[Phase],
    compiled: list[tuple[ast.Function, Function]],
    result: CompileResult,
    on_dump: Callable[[str], None] | None,
) -> None:
    """``-c``: compile each ``.visible``/``.weak`` device function on its own
    (lower/standalone.py)."""
    from openptxas.lower.standalone import check_convention, lower_standalone, standalone_functions
    from openptxas.passes.manager import PassContext, run_phases

    reports: list[FunctionReport] = []
    for func in standalone_functions(module):
        t0 = time.perf_counter()
        fn = lower_standalone(module, func, target)
        ctx = PassContext(target, options)
        run_phases(fn, ctx, phases)
        _hand_dumps(ctx.dumps, on_dump, result)
        check_convention(fn, func)
        compiled.append((func, fn))
        reports.append(
            FunctionReport(
                fn.name,
                False,
                registers=fn.registers,
                stack_frame=fn.local_bytes + fn.call_stack,
                spill_stores=fn.spill_stores,
                spill_loads=fn.spill_loads,
                standalone=True,
                compile_ms=(time.perf_counter() - t0) * 1000.0,
            )
        )
    # ptxas -v reports them before the kernels
    result.functions[:0] = reports


def _hand_dumps(
    dumps: list[str], on_dump: Callable[[str], None] | None, result: CompileResult
) -> None:
    """A function's phase dumps to ``on_dump`` as they come, else into the result."""
    if on_dump is not None:
        for dump in dumps:
            on_dump(dump)
    else:
        result.dumps.extend(dumps)


def _gmem(module: Module) -> int:
    """ptxas's ``N bytes gmem``: the size of the module's .global data (.nv.global and
    .nv.global.init as laid out)."""
    from openptxas.lower.layout import module_layout

    ends: dict[str, int] = {}
    for v in module_layout(module):
        if v.section != "const" and v.offset is not None:
            ends[v.section] = max(ends.get(v.section, 0), v.offset + v.size)
    return sum(ends.values())


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
    if n > target.gpr_count or n < 0:  # ptxas reads a negative count as a huge one
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


def _double_warnings(module: Module) -> list[Diagnostic]:
    """``--warn-on-double-precision-use``: ptxas 13.0.88 warns at each instruction with an f64
    type, in source order (twice for a cvt to or from f64); moves of .b64 do not count."""
    from openptxas.ptx.types import PtxType

    out: list[Diagnostic] = []
    for fn in module.functions:
        if fn.body is None:
            continue
        for ins in fn.body.instructions():
            if PtxType.F64 in ins.types or ins.type is PtxType.F64:
                d = Diagnostic(
                    Severity.WARNING, "Program is doing double precision computations.", ins.span
                )
                out.extend([d, d] if ins.opcode == "cvt" else [d])
    return out


def _has_tcgen05(arch: str | None) -> bool:
    digits = "".join(c for c in (arch or "") if c.isdigit())
    return bool(digits) and int(digits) >= 100


def _check_entries(module: Module, options: Options) -> None:
    """``-e NAME`` must name an entry of the program; ``--compile-as-tools-patch`` allows none
    (ptxas 13.0.88's messages; the trailing blank is ptxas's)."""
    names = {f.name for f in module.entries}
    for name in options.entries:
        if name not in names:
            raise UsageError(f"Unknown function {name}")
    if options.has("compile-as-tools-patch"):
        if module.entries:
            msg = (
                "Entry function is not allowed when command line option "
                "'--compile-as-tools-patch' is specified "
            )
            raise OpenPtxasError(msg, diagnostics=[Diagnostic(Severity.ERROR, msg)])
        raise UnsupportedFeature(
            "patch code for CUDA tools (--compile-as-tools-patch) is not supported by openptxas yet"
        )


def _check(module: Module, options: Options, filename: str = "") -> None:
    """Run the PTX checker; collect its errors."""
    from openptxas.ptx import check as checker

    diags = checker.check(module, options.arch, relocatable=options.compile_only)
    errors = [d for d in diags if d.severity in (Severity.ERROR, Severity.FATAL)]
    if errors:
        raise OpenPtxasError(errors[0].message, errors[0].span, errors)
