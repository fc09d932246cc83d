"""The ``openptxas`` command: ptxas-compatible command line.

This is the only module of the compiler that prints diagnostics or sets exit codes. As ptxas
13.0.88 does: diagnostics and the ``-v`` report go to stderr, errors end with
``ptxas fatal   : Ptx assembly aborted due to errors`` and exit status 255, and no output file is
written unless compilation succeeded (it is written atomically).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence

from openptxas import PTXAS_VERSION, __version__
from openptxas.diag import Diagnostic, InternalError, OpenPtxasError, Severity, UsageError

EXIT_ERROR = 255

VERSION_TEXT = f"""openptxas: an open Ptx optimizing assembler, version {__version__}
Compatible with: Cuda compilation tools, release 13.0, {PTXAS_VERSION}
"""

USAGE = """
Usage  : openptxas [options] <ptx file>,...

Options (as ptxas):
  --gpu-name <sm_XX>           (-arch)      target GPU (default sm_75)
  --opt-level <N>              (-O)         optimization level (default 3)
  --output-file <file>         (-o)         output file (default elf.o)
  --verbose                    (-v)         print code generation statistics
  --maxrregcount <N>           (-maxrregcount)
  --disable-warnings           (-w)
  --warning-as-error           (-Werror)
  --entry <name>,...           (-e)         compile only these entry functions
  --version                    (-V)
openptxas only:
  --dump-phase <name|all>      print the IR after a phase
  --disable-phase <name>       skip an optional phase
  --verify                     check the IR after every phase and re-prove the allocation
  --sched=list|serial          --ra=fatpoint|naive  (safe modes for bisecting)
"""


def _fatal(msg: str) -> str:
    return Diagnostic(Severity.FATAL, msg).render()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from openptxas.options import parse_args

    try:
        parsed = parse_args(args)
        if parsed.options.dump_phases or parsed.options.disable_phases:
            from openptxas.passes.manager import check_phase_names
            from openptxas.pipeline import pipeline

            check_phase_names(pipeline(), parsed.options)
    except UsageError as exc:
        print(_fatal(exc.message), file=sys.stderr)
        return EXIT_ERROR
    opts = parsed.options
    if parsed.show_version:
        sys.stdout.write(VERSION_TEXT)
        return 0
    if parsed.show_help or not opts.inputs:
        sys.stdout.write(USAGE)
        return 0
    for w in opts.warnings:
        if not opts.disable_warnings:
            print(w.render(), file=sys.stderr)
    if len(opts.inputs) > 1:
        print(
            _fatal("compiling several input files at once is not supported by openptxas yet"),
            file=sys.stderr,
        )
        return EXIT_ERROR
    path = opts.inputs[0]
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        print(_fatal(f"Input file '{path}' could not be opened"), file=sys.stderr)
        print(_fatal("Ptx assembly aborted due to errors"), file=sys.stderr)
        return EXIT_ERROR
    try:
        from openptxas.driver import compile_ptx

        dumped: list[bool] = []

        def on_dump(dump: str) -> None:
            # IR text (openptxas.ir.reader reads it back), led by its target
            if not dumped:
                from openptxas.targets import get_target

                sys.stdout.write(f".target {get_target(opts.arch).name}\n")
                dumped.append(True)
            sys.stdout.write(dump)
            sys.stdout.flush()

        result = compile_ptx(text, opts, os.path.basename(path), on_dump)
    except OpenPtxasError as exc:
        for d in exc.diagnostics:
            print(d.render(), file=sys.stderr)
        if isinstance(exc, InternalError):
            print(_fatal(f"internal error; repro: openptxas {' '.join(args)}"), file=sys.stderr)
        from openptxas.ptx import needs_footer

        # some fatals stand alone, as ptxas prints them (e.g. a .target above -arch)
        if not exc.diagnostics or needs_footer(list(exc.diagnostics)):
            print(_fatal("Ptx assembly aborted due to errors"), file=sys.stderr)
        return EXIT_ERROR
    except RecursionError:
        print(_fatal("input too deeply nested"), file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # never a traceback for the user
        print(
            _fatal(
                f"internal error: {type(exc).__name__}: {exc}; repro: openptxas {' '.join(args)}"
            ),
            file=sys.stderr,
        )
        return EXIT_ERROR
    for d in result.diagnostics:
        if d.severity is Severity.WARNING and opts.disable_warnings:
            continue
        print(d.render(), file=sys.stderr)
    if opts.verbose:
        sys.stderr.write(result.verbose_report())
    elif not opts.disable_warnings:
        for d in result.late_warnings:
            print(d.render(), file=sys.stderr)
    try:
        _write_atomic(opts.output, result.cubin)
    except OSError as exc:
        print(
            _fatal(f"Could not open output file '{opts.output}': {exc.strerror}"), file=sys.stderr
        )
        return EXIT_ERROR
    return 0


def _write_atomic(path: str, data: bytes) -> None:
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".openptxas-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


if __name__ == "__main__":
    sys.exit(main())
