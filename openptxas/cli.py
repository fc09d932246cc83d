"""The ``openptxas`` command: ptxas-compatible command line.

This is the only module of the compiler that prints diagnostics or sets exit codes. As ptxas
13.0.88 does: diagnostics and the ``-v`` report go to stderr, errors end with
``ptxas fatal   : Ptx assembly aborted due to errors`` and exit status 255, and no output file is
written unless compilation succeeded (it is written atomically, with the mode the umask gives).
The output path is checked once the input parsed, before code generation, as ptxas does.

Setting ``OPENPTXAS_LOG=FILE`` makes every run append one line to FILE (tab-separated: the
word ``openptxas``, its version, the exit status and the command line), so a tool that calls
"ptxas" (Triton, via ``TRITON_PTXAS_BLACKWELL_PATH``) can be shown to have run openptxas.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from openptxas import PTXAS_VERSION, __version__
from openptxas.diag import Diagnostic, InternalError, OpenPtxasError, Severity, UsageError

if TYPE_CHECKING:
    from openptxas.options import Options

EXIT_ERROR = 255

# Tools parse "release N.N" from ptxas --version (Triton: r".*release (\d+\.\d+).*"), so the
# compatibility line carries ptxas's release token.
VERSION_TEXT = f"""openptxas: an open, pure-Python Ptx optimizing assembler, version {__version__}
Reimplements ptxas of Cuda compilation tools, release 13.0, {PTXAS_VERSION}
"""

# The PTX ISA versions ptxas 13.0.88 lists (--list-version).
PTX_ISA_VERSIONS = tuple(
    f"{major}.{minor}"
    for major, last in ((1, 5), (2, 3), (3, 2), (4, 3), (5, 1), (6, 5), (7, 8), (8, 8), (9, 0))
    for minor in range(last + 1)
)

INPUT_STRING_NAME = "application ptx input"  # ptxas's file name for --input-as-string PTX


def usage() -> str:
    """``--help``: every option of ptxas 13.0.88, then openptxas's own (from OPTION_TABLE)."""
    from openptxas.options import OPTION_TABLE, OWN_OPTIONS, Effect

    lines = ["", "Usage  : openptxas [options] <ptx file>,...", "", "Options", "======="]
    for s in (*OPTION_TABLE, None, *OWN_OPTIONS):
        if s is None:
            lines += ["", "openptxas only", "=============="]
            continue
        left = f"--{s.long}" + (f" {s.metavar}" if s.metavar else (" <value>" * s.takes_value))
        short = f"(-{s.short})" if s.short else ""
        lines.append("")
        lines.append(f"{left:<52}{short}".rstrip())
        lines.append(f"        {s.help}")
        more = f"; {s.note}" if s.note else ""
        what = {
            Effect.IMPLEMENTED: f"as ptxas{more}." if s.note else "",
            Effect.TUNING: f"accepted; tunes ptxas's internals, no effect here{more}.",
            Effect.MESSAGE: f"ptxas's message only{more}.",
            Effect.UNSUPPORTED: f"refused: {s.note}.",
        }[s.effect]
        if what:
            lines.append(f"        openptxas: {what}")
    return "\n".join(lines) + "\n\n"


def _fatal(msg: str) -> str:
    return Diagnostic(Severity.FATAL, msg).render()


class _OutputError(Exception):
    pass


class _Aborted(Exception):
    pass


def tune_gc() -> None:
    """For a process that compiles and exits (the command line, a batch worker): the objects
    alive after start-up (modules, tables) are never scanned again, and the cyclic collector
    runs 70 times less often. A compile allocates millions of IR objects and few cycles: the
    default thresholds spent 12-22% of a large kernel's compile time in full collections,
    with the same peak memory this way (bench/compile_scale.py kernels; docs/speed.md). Not
    for library use (compile_ptx): the collector's settings belong to the host program."""
    import gc

    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the process entry point (not a test or a host calling main(args))
        tune_gc()
    args = list(sys.argv[1:] if argv is None else argv)
    rc = _main(args)
    log = os.environ.get("OPENPTXAS_LOG")
    if log:
        try:
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"openptxas\t{__version__}\t{rc}\t{' '.join(args)}\n")
        except OSError:
            pass
    return rc


def _main(args: list[str]) -> int:
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
    if parsed.list_version:
        sys.stdout.write("".join(v + "\n" for v in PTX_ISA_VERSIONS))
        return 0
    if parsed.show_help or not (opts.inputs or parsed.input_strings):
        sys.stdout.write(usage())
        return 0
    if not _print_warnings(list(opts.warnings), opts):
        return EXIT_ERROR
    sources: list[tuple[str, str]] = [(INPUT_STRING_NAME, s) for s in parsed.input_strings]
    for path in opts.inputs:
        try:
            if path == "-":
                # ptxas copies standard input to a temporary file and reports that file's name
                name = f"/tmp/tmpxft_{os.getpid():08x}_00000000-0_stdin"
                sources.append((name, sys.stdin.read()))
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                sources.append((os.path.basename(path), f.read()))
        except OSError:
            print(_fatal(f"Input file '{path}' could not be opened"), file=sys.stderr)
            print(_fatal("Ptx assembly aborted due to errors"), file=sys.stderr)
            return EXIT_ERROR
    t0 = time.perf_counter()
    early: list[Diagnostic] = []
    try:
        from openptxas.driver import compile_sources

        dumped: list[bool] = []

        def on_dump(dump: str) -> None:
            # IR text (openptxas.ir.reader reads it back), led by its target
            if not dumped:
                from openptxas.targets import get_target

                sys.stdout.write(f".target {get_target(opts.arch).name}\n")
                dumped.append(True)
            sys.stdout.write(dump)
            sys.stdout.flush()

        def on_checked(diags: list[Diagnostic]) -> None:
            early.extend(diags)  # warnings of the PTX itself, printed before the output check
            if not _print_warnings(diags, opts):
                raise _Aborted
            if not _output_writable(opts.output):
                raise _OutputError(opts.output)

        result = compile_sources(sources, opts, on_dump, on_checked)
    except _Aborted:
        return EXIT_ERROR
    except _OutputError:
        print(_fatal(f"Output file '{opts.output}' could not be opened"), file=sys.stderr)
        return EXIT_ERROR
    except UsageError as exc:  # found once the PTX is read (-e naming no entry): alone
        print(_fatal(exc.message), file=sys.stderr)
        return EXIT_ERROR
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
    elapsed_ms = (time.perf_counter() - t0) * 1000.0
    if not result.generated:
        return 0  # compute_XX / lto_XX: checked only, as ptxas (no report, no file)
    if not _print_warnings(result.diagnostics[len(early) :], opts, footer=False):
        return EXIT_ERROR
    # warnings of code generation (--warn-on-spills, --warn-on-local-memory-usage): after the
    # register-limit notes, inside the -v report; -w drops them, -Werror makes them errors
    late = [] if opts.disable_warnings else result.late_warnings
    if opts.warning_as_error:
        late = [Diagnostic(Severity.ERROR, d.message, d.span) for d in late]
    if opts.verbose:
        result.late_warnings = late
        sys.stderr.write(result.verbose_report())
    else:
        for d in late:
            print(d.render(), file=sys.stderr)
    if late and opts.warning_as_error:
        return EXIT_ERROR
    for stat in opts.compiler_stats:
        if stat == "time":
            print(f"ptxas info    : STAT: CompileTime = {elapsed_ms:.6f} ms", file=sys.stderr)
        elif stat == "memory":
            print(f"ptxas info    : STAT: PeakMemoryUsage = {_peak_kb():.3f} KB", file=sys.stderr)
    try:
        write_output(opts.output, result.cubin)
    except OSError:
        print(_fatal(f"Output file '{opts.output}' could not be opened"), file=sys.stderr)
        return EXIT_ERROR
    return 0


def _print_warnings(diags: list[Diagnostic], opts: Options, footer: bool = True) -> bool:
    """Print warnings (and other diagnostics) as ptxas does; with -Werror a warning is an error
    and the run stops after them (False), closed by the 'aborted' line unless ``footer`` is
    False (ptxas prints none for warnings of code generation)."""
    failed = False
    for d in diags:
        if d.severity is Severity.WARNING:
            if opts.disable_warnings:
                continue
            if opts.warning_as_error:
                d = Diagnostic(Severity.ERROR, d.message, d.span)
                failed = True
        print(d.render(), file=sys.stderr)
    if failed and footer:
        print(_fatal("Ptx assembly aborted due to errors"), file=sys.stderr)
    return not failed


def _peak_kb() -> float:
    import resource

    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KB on Linux


def _output_writable(path: str) -> bool:
    """Whether ``path`` can be opened for writing (creating it if need be), as ptxas tries
    before it generates code; a file this check creates is removed again."""
    if not path or os.path.isdir(path):
        return False
    existed = os.path.lexists(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    except OSError:
        return False
    os.close(fd)
    if not existed:
        os.unlink(path)
    return True


def write_output(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, with mode 0666 less the umask (ptxas: 0644 under
    umask 022)."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".openptxas-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


if __name__ == "__main__":
    sys.exit(main())
