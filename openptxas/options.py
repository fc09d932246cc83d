"""Compiler options, and the parser for ptxas's command-line syntax.

Every option of ``ptxas --help`` (13.0.88) is in :data:`OPTION_TABLE`, with its long and short
spellings, the form of its value and what openptxas does with it (:class:`Effect`). The table
drives the parser, ``openptxas --help`` and docs/cli.md, and tests/cli/test_options.py checks
each row against ptxas. Spellings and value forms, as ptxas 13.0.88 takes them (probed):

- ``--long-name=V``, ``--long-name V``, ``-short=V``, ``-short V``; ``-O3``/``-O=3`` (a bare
  ``-O`` takes no value: ``-O 2`` makes ``2`` an input file);
- list options (``--entry``, ``--maxntid``, ``--options-file``, ``--input-as-string``,
  ``--compiler-stats``) take comma-separated values and may be repeated;
- a value option given twice with different values warns ``incompatible redefinition for option
  'NAME', the last value of this option was used``;
- ``--options-file F`` reads more arguments from F (split as a shell would: quotes group).

Messages are ptxas 13.0.88's own (checked by running it).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

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
    suppress_debug_info: bool = False
    fmad: bool = True
    entries: tuple[str, ...] = ()  # -e: compile only these entries
    inputs: tuple[str, ...] = ()
    compiler_stats: tuple[str, ...] = ()  # --compiler-stats time,memory
    # every ptxas option given, as (long name, value) ("" for a flag), in order
    given: tuple[tuple[str, str], ...] = ()
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

    def tkinfo_command_line(self) -> str:
        """The command line as ptxas records it in ``.note.nv.tkinfo``: every option given, in
        ptxas's own order (not the command line's), short spelling, value as given
        (``-v  -O 1 -arch sm_90 -fmad false ``; a flag is followed by two blanks). Options made
        through the library (no command line) are recorded as if given on it."""
        vals: dict[str, str] = {}
        for long, v in self.given:  # the last value, or every value of a list option
            spec = _BY_LONG[long]
            vals[long] = f"{vals[long]},{v}" if spec.kind is Kind.LIST and long in vals else v
        derived = {
            "verbose": "" if self.verbose else None,
            "opt-level": str(self.opt_level) if self.opt_level != 3 else None,
            "fmad": None if self.fmad else "false",
            "maxrregcount": None if self.maxrregcount is None else str(self.maxrregcount),
            "generate-line-info": "" if self.lineinfo else None,
            "suppress-debug-info": "" if self.suppress_debug_info else None,
            "disable-warnings": "" if self.disable_warnings else None,
            "warning-as-error": "" if self.warning_as_error else None,
        }
        for long, d in derived.items():
            if d is not None and long not in vals:
                vals[long] = d
        if self.entries:
            vals["entry"] = ",".join(self.entries)
        vals["gpu-name"] = self.arch
        out = []
        for long in TKINFO_ORDER:
            if long in vals:
                out.append(f"-{_BY_LONG[long].short} {vals[long]} ")
        return "".join(out)

    def has(self, long: str) -> bool:
        """Whether the ptxas option ``--long`` was given."""
        return any(name == long for name, _ in self.given)

    @property
    def generates_code(self) -> bool:
        """False for a virtual target (``compute_XX``, ``lto_XX``): ptxas then only parses and
        checks the PTX and writes no output file."""
        return self.arch.startswith("sm_")


class Kind(StrEnum):
    """The form of an option's value."""

    FLAG = "flag"  # no value
    BOOL = "bool"  # true|false
    INT = "int"  # a number
    REGCOUNT = "regcount"  # archmax|archmin|N
    CHOICE = "choice"  # one of OptionSpec.choices
    STR = "str"  # any text
    LIST = "list"  # comma-separated, repeatable


class Effect(StrEnum):
    """What openptxas does with an option."""

    IMPLEMENTED = "implemented"  # as ptxas does
    TUNING = "tuning"  # ptxas-internal tuning: accepted, no effect on openptxas's output
    MESSAGE = "message"  # no effect on the code; openptxas prints ptxas's message for it
    UNSUPPORTED = "unsupported"  # refused with a clear message (not done yet)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    long: str  # without the dashes
    short: str  # without the dash
    kind: Kind
    effect: Effect
    help: str  # one line, ours
    metavar: str = ""
    choices: tuple[str, ...] = ()
    note: str = ""  # what openptxas does, where it differs from the help text

    @property
    def takes_value(self) -> bool:
        return self.kind is not Kind.FLAG


ARCH_NAMES: tuple[str, ...] = tuple(
    sorted(
        f"{p}_{n}"
        for p in ("sm", "compute", "lto")
        for n in (
            "75",
            "80",
            "86",
            "87",
            "88",
            "89",
            "90",
            "90a",
            *(f"{m}{s}" for m in ("100", "103", "110", "120", "121") for s in ("", "a", "f")),
        )
    )
)

_I, _T, _M, _U = Effect.IMPLEMENTED, Effect.TUNING, Effect.MESSAGE, Effect.UNSUPPORTED
_F, _B, _N, _S, _L = Kind.FLAG, Kind.BOOL, Kind.INT, Kind.STR, Kind.LIST

# ptxas 13.0.88's options, in the order of its --help (plus the hidden ones Triton and others
# pass: --regAllocOptLevel, --compiler-stats).
OPTION_TABLE: tuple[OptionSpec, ...] = (
    OptionSpec(
        "Ofast-compile",
        "Ofc",
        Kind.CHOICE,
        _T,
        "Fast-compile level (trades code quality for compile speed).",
        "<0|min|mid|max>",
        ("0", "min", "mid", "max"),
        "openptxas always runs its full pipeline",
    ),
    OptionSpec(
        "allow-expensive-optimizations",
        "allow-expensive-optimizations",
        _B,
        _T,
        "Allow optimizations that use much memory and compile time.",
        "<true|false>",
    ),
    OptionSpec(
        "compile-as-tools-patch",
        "astoolspatch",
        _F,
        _U,
        "Compile patch code for CUDA tools (no entry functions allowed).",
        note="not supported yet (with an entry function: ptxas's error)",
    ),
    OptionSpec(
        "compile-only",
        "c",
        _F,
        _I,
        "Generate a relocatable object.",
        note="objects nvlink 13.0 links, for sm_90 and sm_90a (docs/elf.md, Relocatable "
        "output: `scripts/link_probe.py` 64/64 combinations equal to ptxas+nvlink, shared and "
        "constant variables and kernel addresses included); what is still refused under `-c` "
        "is listed there",
    ),
    OptionSpec(
        "compiler-annotations",
        "annotate",
        _F,
        _T,
        "Annotate compiler-internal information in the binary.",
    ),
    OptionSpec(
        "compiler-stats",
        "",  # no short spelling (ptxas: Unknown option 'compiler-stats')
        Kind.LIST,
        _I,
        "Print compile statistics (hidden ptxas option): time, memory.",
        "<time|memory>,...",
        ("time", "memory"),
        "'ptxas info    : STAT: CompileTime = ... ms' / 'PeakMemoryUsage = ... KB'",
    ),
    OptionSpec(
        "def-load-cache",
        "dlcm",
        _S,
        _T,
        "Default cache modifier on global/generic loads.",
        "<modifier>",
    ),
    OptionSpec(
        "def-store-cache",
        "dscm",
        _S,
        _T,
        "Default cache modifier on global/generic stores.",
        "<modifier>",
    ),
    OptionSpec(
        "device-debug",
        "g",
        _F,
        _I,
        "Generate debug information for device code.",
        note="at -O0; the PTX's DWARF, register map, frames (openptxas.debuginfo); sm_90 only; "
        "refused: -c, device functions in several kernels or with a frame, extern shared",
    ),
    OptionSpec(
        "device-function-maxrregcount",
        "func-maxrregcount",
        Kind.STR,  # ptxas does not check the value (ignored for whole-program compilation)
        _M,
        "Register limit of device functions (with -c only).",
        "<archmax/archmin/N>",
        note="ptxas's warning: ignored for whole-program compilation",
    ),
    OptionSpec(
        "device-stack-protector",
        "device-stack-protector",
        _B,
        _M,
        "Stack canaries in high-risk device functions.",
        "<true|false>",
        note="true: openptxas warns that it inserts no canaries",
    ),
    OptionSpec(
        "disable-optimizer-constants",
        "disable-optimizer-consts",
        _F,
        _T,
        "Do not use the optimizer constant bank.",
    ),
    OptionSpec("disable-warnings", "w", _F, _I, "Inhibit all warnings."),
    OptionSpec(
        "dont-merge-basicblocks", "no-bb-merge", _F, _T, "Do not merge consecutive basic blocks."
    ),
    OptionSpec("entry", "e", _L, _I, "Compile only these entry functions.", "<entry function>,..."),
    OptionSpec("extensible-whole-program", "ewp", _F, _T, "Extensible whole-program mode."),
    OptionSpec(
        "fmad",
        "fmad",
        _B,
        _I,
        "Contract multiplies and adds into FMA (default true).",
        "<true|false>",
    ),
    OptionSpec(
        "force-load-cache", "flcm", _S, _T, "Force a cache modifier on loads.", "<modifier>"
    ),
    OptionSpec(
        "force-store-cache", "fscm", _S, _T, "Force a cache modifier on stores.", "<modifier>"
    ),
    OptionSpec(
        "g-tensor-memory-access-check",
        "g-tmem-access-check",
        _F,
        _M,
        "Tensor-memory access checks for tcgen05 (sm_100+).",
        note="ptxas's info line: not supported for sm_9x and older",
    ),
    OptionSpec(
        "generate-line-info",
        "lineinfo",
        _F,
        _I,
        "Generate line-number information.",
        note=".debug_line, .nv_debug_line_sass, .nv_debug_ptx_txt (openptxas.lineinfo)",
    ),
    OptionSpec(
        "gno-tensor-memory-access-check",
        "gno-tmem-access-check",
        _F,
        _M,
        "No tensor-memory access checks for tcgen05.",
        note="as --g-tensor-memory-access-check",
    ),
    OptionSpec(
        "gpu-name",
        "arch",
        Kind.CHOICE,
        _I,
        "Target GPU (default sm_75); compute_XX/lto_XX only check the PTX.",
        "<gpu name>",
        ARCH_NAMES,
    ),
    OptionSpec("help", "h", _F, _I, "Print this help."),
    OptionSpec(
        "input-as-string",
        "ias",
        _L,
        _I,
        "PTX modules given as strings instead of files.",
        "<ptx string>,...",
    ),
    OptionSpec(
        "legacy-bar-warp-wide-behavior",
        "legacy-bar-warp-wide-behavior",
        _F,
        _M,
        "Deprecated; ignored for sm_70 and later.",
    ),
    OptionSpec("list-version", "version-ls", _F, _I, "Print the supported PTX ISA versions."),
    OptionSpec(
        "machine",
        "m",
        Kind.CHOICE,
        _I,
        "Host architecture bits (64 only).",
        "<bits>",
        ("64",),
    ),
    OptionSpec(
        "make-errors-visible-at-exit",
        "make-errors-visible-at-exit",
        _F,
        _T,
        "Make memory faults visible at exit.",
    ),
    OptionSpec(
        "maxntid",
        "maxntid",
        _L,
        _T,
        "Default .maxntid (ignored with -maxrregcount).",
        "<Comma separated list of numbers>,...",
        note="ptxas derives a register target from it; openptxas does not",
    ),
    OptionSpec(
        "maxrregcount",
        "maxrregcount",
        Kind.REGCOUNT,
        _I,
        "Maximum registers per thread.",
        "<archmax/archmin/N>",
    ),
    OptionSpec(
        "minnctapersm",
        "minnctapersm",
        _N,
        _T,
        "Default .minnctapersm (ignored with -maxrregcount).",
        "<N>",
        note="ptxas derives a register target from it; openptxas does not",
    ),
    OptionSpec("opt-level", "O", _N, _I, "Optimization level (default 3).", "<N>"),
    OptionSpec(
        "optimize-float-atomics",
        "opt-fp-atomics",
        _F,
        _T,
        "Optimize floating-point atomics.",
    ),
    OptionSpec("options-file", "optf", _L, _I, "Read more options from these files.", "<file>,..."),
    OptionSpec("output-file", "o", _S, _I, "Output file (default elf.o).", "<file>"),
    OptionSpec(
        "override-directive-values",
        "override-directive-values",
        _F,
        _T,
        "Options override .maxntid/.minnctapersm/.maxnreg directives.",
    ),
    OptionSpec(
        "position-independent-code",
        "pic",
        _B,
        _T,
        "Position-independent code (whole-program default).",
        "<true|false>",
    ),
    OptionSpec(
        "preserve-relocs",
        "preserve-relocs",
        _F,
        _M,
        "Keep relocations for variables.",
        note="ptxas's warning: not fully implemented for sm_90",
    ),
    OptionSpec(
        "regAllocOptLevel",
        "regAllocOptLevel",
        _N,
        _T,
        "Register allocator effort (hidden ptxas option; Triton passes it).",
        "<N>",
    ),
    OptionSpec(
        "register-usage-level",
        "regUsageLevel",
        _N,
        _T,
        "Register-usage aggressiveness, 0..10.",
        "<0..10>",
        note="out of range: ptxas's warning",
    ),
    OptionSpec("return-at-end", "ret-end", _F, _T, "Keep the last return instruction (debugging)."),
    OptionSpec(
        "sanitize",
        "sanitize",
        Kind.CHOICE,
        _U,
        "Instrument code for a sanitizer tool.",
        "<string>",
        ("memcheck", "threadsteer"),
        note="no instrumentation yet",
    ),
    OptionSpec("sp-bounds-check", "sp-bounds-check", _F, _T, "Stack-pointer bounds-checking code."),
    OptionSpec(
        "split-compile", "split-compile", _N, _T, "Threads for compiler optimizations.", "<N>"
    ),
    OptionSpec(
        "suppress-async-bulk-multicast-advisory-warning",
        "suppress-async-bulk-multicast-advisory-warning",
        _F,
        _T,
        "Suppress the .multicast::cluster advisory.",
    ),
    OptionSpec(
        "suppress-debug-info",
        "suppress-debug-info",
        _F,
        _I,
        "No debug sections in the output (with -g or -lineinfo).",
    ),
    OptionSpec(
        "suppress-double-demote-warning",
        "suppress-double-demote-warning",
        _F,
        _T,
        "Suppress the double-demotion warning.",
    ),
    OptionSpec(
        "suppress-sparse-mma-advisory-info",
        "suppress-sparse-mma-advisory-info",
        _F,
        _T,
        "Suppress the mma.sp advisory.",
    ),
    OptionSpec(
        "suppress-stack-size-warning",
        "suppress-stack-size-warning",
        _F,
        _T,
        "Suppress the unknown-stack-size warning.",
    ),
    OptionSpec("verbose", "v", _F, _I, "Print code generation statistics."),
    OptionSpec("version", "V", _F, _I, "Print version information."),
    OptionSpec(
        "warn-on-double-precision-use",
        "warn-double-usage",
        _F,
        _I,
        "Warn when doubles are used.",
    ),
    OptionSpec(
        "warn-on-local-memory-usage",
        "warn-lmem-usage",
        _F,
        _I,
        "Warn when local memory is used.",
    ),
    OptionSpec(
        "warn-on-spills",
        "warn-spills",
        _F,
        _I,
        "Warn when registers are spilled.",
    ),
    OptionSpec("warning-as-error", "Werror", _F, _I, "Make all warnings into errors."),
)

# openptxas's own knobs (ptxas has none of these).
OWN_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("dump-phase", "", _S, _I, "Print the IR after a phase (or 'all').", "<name|all>"),
    OptionSpec("disable-phase", "", _S, _I, "Skip an optional phase.", "<name>"),
    OptionSpec("verify", "", _F, _I, "Check the IR after every phase; re-prove the allocation."),
    OptionSpec(
        "sched",
        "",
        Kind.CHOICE,
        _I,
        "Scheduler (serial: the lowering's order, for bisecting; prera: also before allocation).",
        "<list|prera|serial>",
        ("list", "prera", "serial"),
    ),
    OptionSpec(
        "ra",
        "",
        Kind.CHOICE,
        _I,
        "Register allocator (naive: safe mode).",
        "<fatpoint|naive>",
        ("fatpoint", "naive"),
    ),
)

# The order in which ptxas 13.0.88 records the options given in .note.nv.tkinfo, whatever their
# order on the command line (observed: every option at once, in both orders). Options it does
# not record (--regAllocOptLevel, --compiler-stats, -o, -optf, -ias, ...) are not listed.
TKINFO_ORDER: tuple[str, ...] = (
    "suppress-stack-size-warning",
    "entry",
    "verbose",
    "warn-on-local-memory-usage",
    "warn-on-spills",
    "warn-on-double-precision-use",
    "dont-merge-basicblocks",
    "return-at-end",
    "disable-optimizer-constants",
    "maxrregcount",
    "minnctapersm",
    "maxntid",
    "override-directive-values",
    "device-function-maxrregcount",
    "register-usage-level",
    "suppress-debug-info",
    "generate-line-info",
    "sp-bounds-check",
    "device-stack-protector",
    "opt-level",
    "Ofast-compile",
    "gpu-name",
    "suppress-double-demote-warning",
    "def-load-cache",
    "def-store-cache",
    "force-load-cache",
    "force-store-cache",
    "machine",
    "warning-as-error",
    "disable-warnings",
    "optimize-float-atomics",
    "preserve-relocs",
    "make-errors-visible-at-exit",
    "legacy-bar-warp-wide-behavior",
    "suppress-async-bulk-multicast-advisory-warning",
    "suppress-sparse-mma-advisory-info",
    "sanitize",
    "split-compile",
    "fmad",
    "allow-expensive-optimizations",
    "extensible-whole-program",
    "position-independent-code",
    "g-tensor-memory-access-check",
    "gno-tensor-memory-access-check",
    "compiler-annotations",
)

# spelled name ("--gpu-name", "-arch") -> spec
_BY_NAME: dict[str, OptionSpec] = {}
for _s in (*OPTION_TABLE, *OWN_OPTIONS):
    _BY_NAME["--" + _s.long] = _s
    if _s.short:
        _BY_NAME["-" + _s.short] = _s


_BY_LONG: dict[str, OptionSpec] = {s.long: s for s in OPTION_TABLE}


def lookup(spelling: str) -> OptionSpec | None:
    """The option a spelling (``--gpu-name``, ``-arch``) names, or None."""
    return _BY_NAME.get(spelling)


@dataclass
class ParsedArgs:
    options: Options
    show_version: bool = False
    show_help: bool = False
    list_version: bool = False
    # PTX given with --input-as-string, in order
    input_strings: tuple[str, ...] = ()


def _expected_bool(val: str) -> bool:
    if val not in ("true", "false"):
        raise UsageError(f"'{val}': expected true or false")
    return val == "true"


def _expected_int(val: str) -> int:
    try:
        return int(val, 0)
    except ValueError:
        raise UsageError(f"'{val}': expected a number") from None


def _expand_options_files(argv: Sequence[str], depth: int = 0) -> list[str]:
    """Replace each ``--options-file F`` (``-optf``) by the arguments F holds."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        name, eq, val = a.partition("=")
        spec = _BY_NAME.get(name)
        if spec is None or spec.long != "options-file":
            out.append(a)
            continue
        if not eq:
            if i >= len(argv):
                raise UsageError(f"argument expected after '{name}'")
            val = argv[i]
            i += 1
        for path in (p for p in val.split(",") if p):
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                raise UsageError(f"Could not open options file '{path}'") from None
            if depth > 16:
                raise UsageError(f"Could not open options file '{path}'")
            out.extend(_expand_options_files(shlex.split(text), depth + 1))
    return out


def parse_args(argv: Sequence[str]) -> ParsedArgs:
    """Parse ptxas-style arguments. Raises UsageError with ptxas's wording."""
    args = _expand_options_files(argv)
    o: dict[str, object] = {}
    inputs: list[str] = []
    lists: dict[str, list[str]] = {}
    dumps: list[str] = []
    disables: list[str] = []
    given: list[tuple[str, str]] = []
    warnings: list[Diagnostic] = []
    flags: set[str] = set()
    last: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if not a.startswith("-") or a == "-":
            inputs.append(a)
            continue
        name, eq, val = a.partition("=")
        spec = _BY_NAME.get(name)
        if spec is None and name[:2] in ("-O", "-m") and name[1:2] != "-" and not eq:
            spec, val, eq = _BY_NAME[name[:2]], name[2:], "="  # -O3, -m64
        if spec is None:
            raise UsageError(f"Unknown option '{name[1:]}'")
        if spec.long == "opt-level" and name == "-O" and not eq:
            continue  # a bare -O: no value (ptxas reads `-O 2` as the input file 2)
        if spec.takes_value and not eq:
            if i >= len(args):
                raise UsageError(f"argument expected after '{name}'")
            val = args[i]
            i += 1
        elif not spec.takes_value and eq:
            raise UsageError(f"Unknown option '{a[1:]}'")
        long = spec.long
        # value checks, in ptxas's words
        if spec.kind is Kind.BOOL:
            _expected_bool(val)
        elif spec.kind is Kind.INT:
            if _expected_int(val) < 0 and long == "split-compile":
                raise UsageError(f"Invalid value '{val}' for option '--{long}'")
        elif spec.kind is Kind.REGCOUNT and val not in ("archmax", "archmin"):
            if not val.removeprefix("-").isdigit():  # a negative count is "too big" (ptxas)
                raise UsageError(f"Invalid value '{val}' for option '{long}'")
        elif spec.kind is Kind.CHOICE and val not in spec.choices:
            if long == "machine":
                _expected_int(val)  # -mfoo: "'foo': expected a number" first
            if long == "Ofast-compile":
                raise UsageError(
                    f"Invalid value for --Ofast-compile/-Ofc ({val}), is not 'max', 'mid', "
                    "'min', or '0'"
                )
            raise UsageError(f"Value '{val}' is not defined for option '{long}'")
        elif spec.kind is Kind.LIST and spec.choices and val:
            for v in val.split(","):
                if v not in spec.choices:
                    raise UsageError(f"Value '{v}' is not defined for option '{long}'")
        if spec.kind is Kind.LIST:
            given.append((long, val))
            if long == "input-as-string":
                lists.setdefault(long, []).append(val)  # ptxas does not split the text
            else:
                lists.setdefault(long, []).extend(v for v in val.split(",") if v)
            continue
        if spec.kind is Kind.FLAG:
            flags.add(long)
        elif spec in OPTION_TABLE:
            if long in last and last[long] != val:
                warnings.append(
                    Diagnostic(
                        Severity.WARNING,
                        f"incompatible redefinition for option '{long}', "
                        "the last value of this option was used",
                    )
                )
            last[long] = val
        if spec.effect is Effect.UNSUPPORTED and long == "sanitize":
            raise UsageError(
                f"Command line option '--{long}' is not supported by openptxas yet "
                "(no instrumentation)"
            )
        if spec in OPTION_TABLE:
            given.append((long, val))
        match long:
            case "gpu-name":
                o["arch"] = val
            case "opt-level":
                o["opt_level"] = max(0, min(_expected_int(val), 3))  # -O-1 compiles, as -O0
            case "output-file":
                o["output"] = val
            case "maxrregcount":
                o["maxrregcount"] = val if val in ("archmax", "archmin") else int(val)
            case "fmad":
                o["fmad"] = val == "true"
            case "dump-phase":
                dumps.append(val)
            case "disable-phase":
                disables.append(val)
            case "sched":
                o["sched"] = val
            case "ra":
                o["ra"] = val
            case _:
                pass
    flag_fields = {
        "verbose": "verbose",
        "disable-warnings": "disable_warnings",
        "warning-as-error": "warning_as_error",
        "compile-only": "compile_only",
        "device-debug": "device_debug",
        "generate-line-info": "lineinfo",
        "suppress-debug-info": "suppress_debug_info",
        "verify": "verify",
    }
    for long, fld in flag_fields.items():
        if long in flags:
            o[fld] = True
    _check_fast_compile(last)
    warnings.extend(_option_messages(flags, last, o))
    regcount = o.get("maxrregcount")
    if isinstance(regcount, str):
        # observed with -v on sm_75..sm_120: archmax = 255, archmin = 32 (64K registers over
        # 2048 threads), as "Overriding maximum register limit 256 ... with  N"
        o["maxrregcount"] = 255 if regcount == "archmax" else 32
    opts = Options(
        inputs=tuple(inputs),
        dump_phases=tuple(dumps),
        disable_phases=tuple(disables),
        entries=tuple(lists.get("entry", ())),
        compiler_stats=tuple(dict.fromkeys(lists.get("compiler-stats", ()))),
        given=tuple(given),
        command_line=" ".join(argv),
        warnings=tuple(warnings),
        **o,  # type: ignore[arg-type]
    )
    return ParsedArgs(
        opts,
        show_version="version" in flags,
        show_help="help" in flags,
        list_version="list-version" in flags,
        input_strings=tuple(lists.get("input-as-string", ())),
    )


def _check_fast_compile(values: dict[str, str]) -> None:
    """-Ofc min/mid need -O1, -Ofc max needs -O0, when -O is given (ptxas 13.0.88)."""
    level, ofc = values.get("opt-level"), values.get("Ofast-compile", "0")
    if level is None or ofc == "0":
        return
    allowed = "0" if ofc == "max" else "1"
    if str(_expected_int(level)) != allowed:
        others = ",".join(n for n in ("0", "1", "2", "3") if n != allowed)
        raise UsageError(
            f"Conflicting options -opt-level=<{others}> and --Ofast-compile={ofc} specified"
        )


def _option_messages(
    flags: set[str], values: dict[str, str], o: dict[str, object]
) -> list[Diagnostic]:
    """The warnings (and info lines) ptxas prints for an option itself, in its order."""
    out: list[Diagnostic] = []
    arch = str(o.get("arch", "sm_75"))

    def w(msg: str, sev: Severity = Severity.WARNING) -> None:
        out.append(Diagnostic(sev, msg))

    if "device-function-maxrregcount" in values:
        w(
            "Command line option 'device-function-maxrregcount' not supported for "
            "'whole program compilation', will be ignored"
        )
    level = values.get("register-usage-level")
    if level is not None and not 0 <= _expected_int(level) <= 10:
        w(
            f"Value of RegUsageLevel ({level}) is out of valid range {{0..10}}, "
            "option will be ignored"
        )
    if "preserve-relocs" in flags:
        w(
            f"'--preserve-relocs' option is not fully implemented for '{arch}' and may not "
            "work as expected"
        )
    if "legacy-bar-warp-wide-behavior" in flags:
        w(
            "'--legacy-bar-warp-wide-behavior' is a deprecated option, It will be removed in "
            "future release and is not recommended"
        )
        w(
            "Command line option '--legacy-bar-warp-wide-behavior' not supported for "
            "'.target sm_70', will be ignored"
        )
    if "suppress-debug-info" in flags and not flags & {"device-debug", "generate-line-info"}:
        w(
            "Option suppress-debug-info requires option device-debug or lineinfo; ignoring "
            "since latter is not specified"
        )
    # openptxas's own: never drop an option's effect silently
    if values.get("device-stack-protector") == "true":
        w("openptxas does not insert stack canaries yet (--device-stack-protector): none inserted")
    return out


def from_args(argv: Sequence[str], **overrides: object) -> Options:
    """Options from a ptxas command line (``["-arch=sm_90", "-O3"]``), for library callers;
    inputs and output in ``argv`` are kept but unused by :func:`openptxas.compile`."""
    parsed = parse_args(argv)
    return parsed.options.with_(**overrides) if overrides else parsed.options
