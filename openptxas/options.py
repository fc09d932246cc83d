"""Compiler options, and the parser for ptxas's command-line syntax.

ptxas accepts ``-arch=sm_90``, ``-arch sm_90``, ``--gpu-name sm_90`` and ``--gpu-name=sm_90``;
``-O3``/``--opt-level=3``; boolean flags; several input files. Messages below are ptxas 13.0.88's
own (checked by running it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from openptxas.diag import Diagnostic, Severity, UsageError


@dataclass(frozen=True, slots=True)
class Options:
    arch: str = "sm_75"  # ptxas's default target
    opt_level: int = 3
    output: str = "elf.o"
    verbose: bool = False
    maxrregcount: int | None = None
    disable_warnings: bool = False
    warning_as_error: bool = False
    compile_only: bool = False  # -c (relocatable output)
    device_debug: bool = False  # -g
    lineinfo: bool = False
    fmad: bool = True
    entries: tuple[str, ...] = ()  # -e: compile only these entries
    inputs: tuple[str, ...] = ()
    # openptxas extensions (knobs ptxas does not have)
    dump_phases: tuple[str, ...] = ()  # --dump-phase NAME (or "all")
    disable_phases: tuple[str, ...] = ()  # --disable-phase NAME
    verify: bool = False  # run the IR verifier after every phase
    sched: str = "list"  # --sched=list|prera|serial (prera: also before allocation)
    ra: str = "fatpoint"  # --ra=fatpoint|naive
    command_line: str = ""  # as given (recorded in .note.nv.tkinfo)
    warnings: tuple[Diagnostic, ...] = field(default=())

    def with_(self, **kw: object) -> Options:
        return replace(self, **kw)  # type: ignore[arg-type]


# name -> (canonical, takes_value). Both the long (--x) and short (-x) spellings are listed.
_OPTS: dict[str, tuple[str, bool]] = {}


def _opt(canonical: str, takes_value: bool, *names: str) -> None:
    for n in names:
        _OPTS[n] = (canonical, takes_value)


_opt("arch", True, "--gpu-name", "-arch")
_opt("opt", True, "--opt-level", "-O")
_opt("output", True, "--output-file", "-o")
_opt("verbose", False, "--verbose", "-v")
_opt("maxrregcount", True, "--maxrregcount", "-maxrregcount")
_opt("nowarn", False, "--disable-warnings", "-w")
_opt("werror", False, "--warning-as-error", "-Werror")
_opt("compile_only", False, "--compile-only", "-c")
_opt("debug", False, "--device-debug", "-g")
_opt("lineinfo", False, "--generate-line-info", "-lineinfo")
_opt("fmad", True, "--fmad", "-fmad")
_opt("entry", True, "--entry", "-e")
_opt("machine", True, "--machine", "-m")
_opt("version", False, "--version", "-V")
_opt("help", False, "--help", "-h")
# Accepted and without effect on our output so far (documented in the README).
for _n, _v in (
    ("--allow-expensive-optimizations", True),
    ("--warn-on-spills", False),
    ("--warn-on-local-memory-usage", False),
    ("--warn-on-double-precision-use", False),
    ("--suppress-stack-size-warning", False),
    ("--position-independent-code", True),
    ("--register-usage-level", True),
    ("--split-compile", True),
):
    _opt("ignored", _v, _n)
_opt("ignored", False, "-warn-spills", "-warn-lmem-usage", "-warn-double-usage")
_opt("ignored", True, "-pic", "-regUsageLevel", "-split-compile", "-allow-expensive-optimizations")
# openptxas's own knobs.
_opt("dump_phase", True, "--dump-phase")
_opt("disable_phase", True, "--disable-phase")
_opt("verify", False, "--verify")
_opt("sched", True, "--sched")
_opt("ra", True, "--ra")

_ARCH_NAMES = frozenset(
    f"{p}_{n}"
    for p in ("sm", "compute")
    for n in (
        "75",
        "80",
        "86",
        "87",
        "88",
        "89",
        "90",
        "90a",
        "100",
        "100a",
        "100f",
        "103",
        "103a",
        "103f",
        "110",
        "110a",
        "110f",
        "120",
        "120a",
        "120f",
        "121",
        "121a",
        "121f",
    )
)


@dataclass
class ParsedArgs:
    options: Options
    show_version: bool = False
    show_help: bool = False


def parse_args(argv: Sequence[str]) -> ParsedArgs:
    """Parse ptxas-style arguments. Raises UsageError with ptxas's wording."""
    o: dict[str, object] = {}
    inputs: list[str] = []
    dumps: list[str] = []
    disables: list[str] = []
    entries: list[str] = []
    warnings: list[Diagnostic] = []
    show_version = show_help = False
    seen_output = False
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if not a.startswith("-") or a == "-":
            inputs.append(a)
            continue
        name, eq, val = a.partition("=")
        spec = _OPTS.get(name)
        if spec is None and name.startswith("-O") and len(name) > 2 and not eq:
            spec, val, eq = _OPTS["-O"], name[2:], "="  # -O3
        if spec is None:
            raise UsageError(f"Unknown option '{name[1:] if name.startswith('--') else name}'")
        canon, takes = spec
        if takes and not eq:
            if i >= len(argv):
                raise UsageError(f"Missing value for option '{name.lstrip('-')}'")
            val = argv[i]
            i += 1
        if canon == "arch":
            if val not in _ARCH_NAMES:
                raise UsageError(f"Value '{val}' is not defined for option 'gpu-name'")
            o["arch"] = val
        elif canon == "opt":
            if not val.isdigit():
                raise UsageError(f"Invalid value '{val}' for option 'opt-level'")
            o["opt_level"] = min(int(val), 3)
        elif canon == "output":
            if seen_output:
                warnings.append(
                    Diagnostic(
                        Severity.WARNING,
                        "incompatible redefinition for option 'output-file', "
                        "the last value of this option was used",
                    )
                )
            seen_output = True
            o["output"] = val
        elif canon == "verbose":
            o["verbose"] = True
        elif canon == "maxrregcount":
            if not val.isdigit():
                raise UsageError(f"Invalid value '{val}' for option 'maxrregcount'")
            o["maxrregcount"] = int(val)
        elif canon == "nowarn":
            o["disable_warnings"] = True
        elif canon == "werror":
            o["warning_as_error"] = True
        elif canon == "compile_only":
            o["compile_only"] = True
        elif canon == "debug":
            o["device_debug"] = True
        elif canon == "lineinfo":
            o["lineinfo"] = True
        elif canon == "fmad":
            if val not in ("true", "false"):
                raise UsageError(f"Invalid value '{val}' for option 'fmad'")
            o["fmad"] = val == "true"
        elif canon == "entry":
            entries.extend(v for v in val.split(",") if v)
        elif canon == "machine":
            if val != "64":
                raise UsageError(f"Value '{val}' is not defined for option 'machine'")
        elif canon == "version":
            show_version = True
        elif canon == "help":
            show_help = True
        elif canon == "dump_phase":
            dumps.append(val)
        elif canon == "disable_phase":
            disables.append(val)
        elif canon == "verify":
            o["verify"] = True
        elif canon == "sched":
            if val not in ("list", "prera", "serial"):
                raise UsageError(f"Value '{val}' is not defined for option 'sched'")
            o["sched"] = val
        elif canon == "ra":
            if val not in ("fatpoint", "naive"):
                raise UsageError(f"Value '{val}' is not defined for option 'ra'")
            o["ra"] = val
    opts = Options(
        inputs=tuple(inputs),
        dump_phases=tuple(dumps),
        disable_phases=tuple(disables),
        entries=tuple(entries),
        command_line=" ".join(argv),
        warnings=tuple(warnings),
        **o,  # type: ignore[arg-type]
    )
    return ParsedArgs(opts, show_version, show_help)
