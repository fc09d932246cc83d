"""The PTX checker: the rules of the PTX ISA 9.0 as ptxas 13.0.88 applies them.

`check(module)` returns every diagnostic in the order ptxas prints them: per-instruction errors
as the statements come, ``Unknown symbol`` errors at the end of their function, link-time fatals
(unresolved externs) last. It checks:

* the module header: ``.version`` first and supported, ``.target`` next and supported by that
  version (targets with ``a``/``f`` variants), its options, ``.address_size``;
* declarations: duplicates per scope (``%r<100>`` ranges included), alignment, initializers,
  ``.b128`` and other version gates, module-scope ``.reg``;
* functions: entry parameters in ``.param`` space and within ptxas's size limit, performance
  directives and their conflicts and gates;
* every instruction (check_instr.py): modifiers, types, operand count/kind/type, state spaces,
  target and version gates, value rules;
* registers, variables, labels and functions declared before use, with block scoping.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from openptxas.diag import Diagnostic, Severity, Span
from openptxas.ptx.ast import (
    AddressSizeDirective,
    Alias,
    ArgList,
    Block,
    BranchTargets,
    CallPrototype,
    CallTargets,
    FileDirective,
    FloatImm,
    FuncKind,
    Function,
    Init,
    InitList,
    Instruction,
    IntImm,
    Label,
    LabelDef,
    Loc,
    Module,
    Operand,
    Param,
    Reg,
    Sink,
    Sym,
    SymInit,
    TargetDirective,
    VarDecl,
    Vector,
    VersionDirective,
)
from openptxas.ptx.check_instr import Decl, InstrChecks
from openptxas.ptx.types import Linkage, PtxType, StateSpace

CURRENT_VERSION = (9, 0)
MAX_U64 = (1 << 64) - 1

# .version values ptxas 13.0 accepts (scripts/ptx_probe_targets.py).
VERSIONS: frozenset[tuple[int, int]] = frozenset(
    [(1, m) for m in range(6)]
    + [(2, m) for m in range(4)]
    + [(3, m) for m in range(3)]
    + [(4, m) for m in range(4)]
    + [(5, 0), (5, 1)]
    + [(6, m) for m in range(6)]
    + [(7, m) for m in range(9)]
    + [(8, m) for m in range(9)]
    + [(9, 0)]
)

# Lowest .version each .target needs (scripts/ptx_probe_targets.py on ptxas 13.0.88).
TARGET_MIN_PTX: dict[str, tuple[int, int]] = {
    "sm_10": (1, 0),
    "sm_11": (1, 0),
    "sm_12": (1, 2),
    "sm_13": (1, 2),
    "sm_20": (2, 3),
    "sm_21": (2, 3),
    "sm_30": (3, 0),
    "sm_32": (4, 0),
    "sm_35": (3, 1),
    "sm_37": (4, 1),
    "sm_50": (4, 0),
    "sm_52": (4, 1),
    "sm_53": (4, 2),
    "sm_60": (5, 0),
    "sm_61": (5, 0),
    "sm_62": (5, 0),
    "sm_70": (5, 1),
    "sm_72": (6, 1),
    "sm_75": (6, 3),
    "sm_80": (7, 0),
    "sm_86": (7, 1),
    "sm_87": (7, 4),
    "sm_88": (7, 3),
    "sm_89": (7, 8),
    "sm_90": (7, 8),
    "sm_90a": (8, 0),
    "sm_100": (8, 6),
    "sm_100a": (8, 6),
    "sm_100f": (8, 8),
    "sm_103": (8, 8),
    "sm_103a": (8, 8),
    "sm_103f": (8, 8),
    "sm_110": (9, 0),
    "sm_110a": (9, 0),
    "sm_110f": (9, 0),
    "sm_120": (8, 7),
    "sm_120a": (8, 7),
    "sm_120f": (8, 8),
    "sm_121": (8, 8),
    "sm_121a": (8, 8),
    "sm_121f": (8, 8),
}
TARGET_OPTIONS = frozenset(
    {"texmode_unified", "texmode_independent", "texmode_raw", "map_f64_to_f32", "debug"}
)
# Functions ptxas provides itself (calls to them need no definition).
SYSTEM_FUNCTIONS = frozenset({"vprintf", "malloc", "free", "__assertfail"})
_RANGE = re.compile(r"(.*?)([0-9]+)$")
_TARGET = re.compile(r"(?:sm|compute)_([0-9]+)([af]?)$")
_INIT_SPACES = frozenset({StateSpace.GLOBAL, StateSpace.CONST})


_BYTE_MASKS = frozenset(0xFF << (8 * k) for k in range(8))


class _Fatal(Exception):
    """A fatal diagnostic was emitted: checking stops."""


@dataclass
class _Scope:
    names: dict[str, Decl] = field(default_factory=dict)
    ranges: dict[str, tuple[int, VarDecl]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    cache: dict[str, Decl | None] = field(default_factory=dict)


def parse_target(name: str) -> tuple[int, str] | None:
    """``sm_90a`` -> (90, "a"); None when not a target name."""
    m = _TARGET.fullmatch(name)
    if m is None:
        return None
    return int(m.group(1)), m.group(2)


class _Checker(InstrChecks):
    def __init__(
        self, module: Module, arch: str | None, partial: bool, relocatable: bool = False
    ) -> None:
        self.relocatable = relocatable  # -c: externs are resolved by the linker
        self.m = module
        self.file = module.file
        self.cli_arch = arch
        self.partial = partial
        self.diags: list[Diagnostic] = []
        self.sm = 0
        self.variant = ""
        self.ptx = CURRENT_VERSION
        self.arch = "sm_75"
        self.texmode = "texmode_unified"
        self.address_size = 64
        self.n_errors = 0
        self.vars: dict[str, VarDecl] = {}
        self.funcs: dict[str, Function] = {}
        self.defined: set[str] = set()
        self.called: set[str] = set()
        self.used_vars: set[str] = set()
        self.files: set[int] = set()
        self.loc_without_file = False
        self.addr32_line = 0
        # per function
        self.fn: Function | None = None
        self.params: dict[str, Param] = {}
        self.inputs: frozenset[str] = frozenset()
        self.scopes: list[_Scope] = []
        self.pending: list[tuple[str, Span]] = []

    # -- diagnostics --------------------------------------------------------------------------
    def error(self, msg: str, span: Span | None) -> None:
        self.n_errors += 1
        self.diags.append(Diagnostic(Severity.ERROR, msg, span))

    def warning(self, msg: str, span: Span | None) -> None:
        self.diags.append(Diagnostic(Severity.WARNING, msg, span))

    def fatal(self, msg: str, span: Span | None = None) -> None:
        self.n_errors += 1
        self.diags.append(Diagnostic(Severity.FATAL, msg, span))
        raise _Fatal

    # -- symbols ------------------------------------------------------------------------------
    def lookup(self, name: str) -> Decl | None:
        if self.scopes:
            top = self.scopes[-1]
            hit = top.cache.get(name, top)
            if hit is not top:
                return hit  # type: ignore[return-value]
            d = self._lookup_uncached(name)
            top.cache[name] = d
            return d
        return self._module_lookup(name)

    def _lookup_uncached(self, name: str) -> Decl | None:
        m = None
        for sc in reversed(self.scopes):
            d = sc.names.get(name)
            if d is not None:
                return d
            if sc.ranges:
                if m is None:
                    m = _RANGE.fullmatch(name)
                    if m is None:
                        m = False  # type: ignore[assignment]
                if m:
                    r = sc.ranges.get(m.group(1))
                    digits = m.group(2)
                    # ptxas reads the index as a number: %r01 is %r1 of %r<N> (%r007 is 7)
                    if r is not None and int(digits) < r[0]:
                        return r[1]
        p = self.params.get(name)
        if p is not None:
            return p
        return self._module_lookup(name)

    def _module_lookup(self, name: str) -> Decl | None:
        v = self.vars.get(name)
        if v is not None:
            return v
        return self.funcs.get(name)

    def is_label(self, name: str) -> bool:
        return any(name in sc.labels for sc in self.scopes)

    def label_kind(self, name: str) -> str:
        for sc in reversed(self.scopes):
            k = sc.labels.get(name)
            if k is not None:
                return k
        return ""

    def unknown_symbol(self, name: str, span: Span) -> None:
        self.pending.append((name, span))

    def function_param_names(self) -> frozenset[str]:
        return self.inputs

    # -- driver -------------------------------------------------------------------------------
    def run(self) -> list[Diagnostic]:
        try:
            self._header()
            for it in self.m.items:
                self._item(it)
            if not self.partial:
                self._finish()
        except _Fatal:
            pass
        return self.diags

    def _header(self) -> None:
        items = self.m.items
        if self.partial and len(items) < 2:
            raise _Fatal  # the syntax error interrupted the header: it alone is reported
        if not items:
            eof = Span(self.file, self.m.span.end_line or 1)
            self.fatal(f"Missing .version directive at start of file '{self.file}'", eof)
        first = items[0]
        second = items[1] if len(items) > 1 else None
        if not isinstance(first, VersionDirective):
            self.fatal(
                f"Missing .version directive at start of file '{self.file}'",
                (second or first).span,
            )
        assert isinstance(first, VersionDirective)
        v = (first.major, first.minor)
        if v not in VERSIONS:
            cur = f"{CURRENT_VERSION[0]}.{CURRENT_VERSION[1]}"
            self.fatal(
                f"Unsupported .version {first.major}.{first.minor}; current version is '{cur}'",
                first.span,
            )
        self.ptx = v
        if not isinstance(second, TargetDirective):
            self.fatal(
                f"Missing .target directive at start of file '{self.file}'",
                (second or first).span,
            )
        assert isinstance(second, TargetDirective)
        self._target(second)

    def _target(self, t: TargetDirective) -> None:
        arch: str | None = None
        tex: str | None = None
        for name in t.targets:
            if name.startswith(("sm_", "compute_")):
                key = "sm_" + name.split("_", 1)[1]
                if key not in TARGET_MIN_PTX:
                    self.fatal(f"Unsupported .target '{name}'", t.span)
                arch = name
                if self.ptx < TARGET_MIN_PTX[key]:
                    self.error(
                        f"PTX .version {self.ptx[0]}.{self.ptx[1]} does not support .target {name}",
                        t.span,
                    )
            elif name in TARGET_OPTIONS:
                if name.startswith("texmode_"):
                    if tex is not None and tex != name:
                        self.error(f"Conflicting .target option '{name}'", t.span)
                    tex = name
            else:
                self.fatal(f"Unsupported .target '{name}'", t.span)
        if arch is None:
            self.fatal(f"Missing .target directive at start of file '{self.file}'", t.span)
        assert arch is not None
        pt = parse_target(arch)
        assert pt is not None
        self.sm, self.variant = pt
        self.arch = arch
        self.texmode = tex or "texmode_unified"
        if self.cli_arch is not None:
            ca = parse_target(self.cli_arch)
            if ca is None:
                self.fatal(f"Value '{self.cli_arch}' is not defined for option 'gpu-name'")
            assert ca is not None
            if self.variant and arch != self.cli_arch:
                self.fatal(
                    f"PTX with .target '{arch}' cannot be compiled for architecture "
                    f"'{self.cli_arch}'"
                )
            if self.sm > ca[0]:
                self.fatal(
                    "SM version specified by .target is higher than default SM version assumed"
                )

    # -- module items -------------------------------------------------------------------------
    def _item(self, it: object) -> None:
        if isinstance(it, (VersionDirective, TargetDirective)):
            if it is self.m.items[0] or it is self.m.items[1]:
                return
            self.fatal(f"Missing .target directive at start of file '{self.file}'", it.span)
        elif isinstance(it, AddressSizeDirective):
            if self.ptx < (2, 3):
                self.error(
                    "Feature '.address_size directive' requires PTX ISA .version 2.3 or later",
                    it.span,
                )
            if it.bits not in (32, 64):
                self.error("Illegal value for .address_size directive (must be 32 or 64)", it.span)
            else:
                self.address_size = it.bits
                if it.bits == 32:
                    self.warning(
                        " 64 Bit host architecture (--machine) being used mismatches with "
                        ".address_size of 32 bits",
                        None,
                    )
                    if self.sm >= 90:
                        self.fatal(
                            " 32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported "
                            "on sm_90 or higher architectures."
                        )
        elif isinstance(it, FileDirective):
            if it.index in self.files:
                # reported at the token after the directive (ptxas's parser look-ahead)
                line = it.span.end_line or it.span.line
                self.error(f"Duplicate file index #{it.index}", Span(self.file, line))
            self.files.add(it.index)
        elif isinstance(it, VarDecl):
            self._module_var(it)
        elif isinstance(it, Function):
            self._function(it)
        elif isinstance(it, Alias):
            a = self.funcs.get(it.alias)
            if a is None:
                self.error(f"Unknown symbol '{it.alias}'", it.span)
            elif it.target not in self.funcs:
                self.error(f"Unknown symbol '{it.target}'", it.span)
            else:
                self._alias(it, a, self.funcs[it.target])
                self.defined.add(it.alias)

    def _alias(self, it: Alias, a: Function, t: Function) -> None:
        """ptxas's prototype comparison of ``.alias a, t`` (return and ordinary parameters
        together; types, then alignment)."""
        if t.kind is FuncKind.ENTRY:
            self.error(f"Cannot define alias to entry function '{t.name}'", it.span)
            return
        pa = [*a.rets, *a.params]
        pt = [*t.rets, *t.params]
        head = f"Mismatch in prototype of alias '{a.name}' and aliasee '{t.name}'."
        if len(pa) != len(pt):
            self.error(f"{head} number of parameters differ(s)", it.span)
            return
        if any(
            (x.type, x.vec, x.dims, x.space) != (y.type, y.vec, y.dims, y.space)
            for x, y in zip(pa, pt, strict=True)
        ):
            self.error(f"{head} parameter types differ(s)", it.span)
        if any(x.alignment != y.alignment for x, y in zip(pa, pt, strict=True)):
            self.error(f"{head} parameter alignment differ(s)", it.span)

    def _module_var(self, d: VarDecl) -> None:
        if d.space is StateSpace.REG:
            self.error(
                "Module-scoped variables in .reg state space are not allowed with ABI", d.span
            )
            return
        if d.type is PtxType.SAMPLERREF and self.texmode == "texmode_unified":
            # unified mode: the texture carries its sampler; no separate samplers
            self.error(
                "Instruction or declaration violates .target texmode_unified setting", d.span
            )
        self._decl_common(d)
        old = self.vars.get(d.name)
        if (
            old is not None
            and Linkage.EXTERN not in (old.linkage, d.linkage)
            and Linkage.WEAK not in (old.linkage, d.linkage)
        ):
            self.error(f"Duplicate definition of variable '{d.name}'", d.span)
        if old is None or old.linkage is Linkage.EXTERN:
            self.vars[d.name] = d

    def _decl_common(self, d: VarDecl) -> None:
        if d.align is not None and (d.align <= 0 or d.align & (d.align - 1)):
            self.error("Alignment must be a power of two", d.span)
        if "managed" in d.attrs and d.space is not StateSpace.GLOBAL:
            self.error(f"Illegal attribute '.managed' for symbol '{d.name}'", d.span)
        if d.type is PtxType.B128 and self.ptx < (8, 3):
            self.error("Feature 'Type .b128' requires PTX ISA .version 8.3 or later", d.span)
        if d.type is PtxType.B128 and 0 < self.sm < 70:
            self.error("Feature 'Type .b128' requires .target sm_70 or higher", d.span)
        if d.count > 0x7FFFFFFF or any(x is not None and x > 0x7FFFFFFF for x in d.dims):
            self.error("Constant overflow", d.span)
        if d.init is not None:
            if d.space not in _INIT_SPACES:
                self.error(
                    f"No initial value is allowed for '{d.name}' in this state space", d.span
                )
            elif d.dims and d.dims[0] is not None and _init_len(d.init) > d.dims[0]:
                self.fatal("Greater number of elements in array initializer", d.span)
            if _init_type_mismatch(d.init, d.type):
                self.fatal("Initial value type mismatch", d.span)
            self._init_symbols(d.init)

    def _init_symbols(self, i: Init) -> None:
        if isinstance(i, InitList):
            for x in i.items:
                self._init_symbols(x)
        elif isinstance(i, SymInit):
            # as ptxas 13.0.88 answers (tests/ptx/negative/27x_init_*): a register, an unknown
            # name or a function inside generic() is not an expression it reads; a variable
            # must be in .global or .const; a mask selects one byte of the address
            d = self.lookup(i.name)
            if isinstance(d, Param) or (isinstance(d, VarDecl) and d.space is not StateSpace.REG):
                if not (
                    isinstance(d, VarDecl) and d.space in (StateSpace.GLOBAL, StateSpace.CONST)
                ):
                    self.fatal(
                        "Variable used as initial value not in .global or .const state space",
                        i.span,
                    )
            elif i.generic:
                self.fatal("Invalid initial value expression", i.span)
            elif not isinstance(d, Function):
                self.fatal(f"Invalid initial value symbol '{i.name}'", i.span)
            if i.mask is not None and i.mask not in _BYTE_MASKS:
                self.error(f"Invalid mask value '{i.mask:#x}' used in initializer", i.span)
            self.used_vars.add(i.name)

    # -- functions ----------------------------------------------------------------------------
    def _function(self, f: Function) -> None:
        old = self.funcs.get(f.name)
        if f.body is not None:
            if f.name in self.defined:
                # ptxas notices when it reaches the body's '{'
                self.error(
                    f"Duplicate definition of function '{f.name}'",
                    Span(self.file, f.body.span.line),
                )
            self.defined.add(f.name)
        if old is None or f.body is not None:
            self.funcs[f.name] = f
        seen: set[str] = set()
        for p in (*f.rets, *f.params):
            if p.name in seen and p.name != "_":
                self.error(f"Duplicate definition of variable '{p.name}'", f.span)
            seen.add(p.name)
        for p in (*f.rets, *f.params):
            if p.type is PtxType.SAMPLERREF and self.texmode == "texmode_unified":
                self.error(
                    "Instruction or declaration violates .target texmode_unified setting",
                    p.span if p.span.line else f.span,
                )
            if p.space is StateSpace.PARAM and p.vec:
                self.error(
                    f"Variable '{p.name}' cannot be allocated in .param state space",
                    p.span if p.span.line else f.span,
                )
        if f.kind is FuncKind.ENTRY:
            for p in f.params:
                if p.space is not StateSpace.PARAM:
                    self.error(f"Entry parameter '{p.name}' must have .param state space", f.span)
        for d in f.directives:
            self._func_directive(f, d.name, d.values, d.span)
        if f.body is None:
            return
        self.fn = f
        self.params = {p.name: p for p in (*f.params, *f.rets)}
        self.inputs = frozenset(p.name for p in f.params)
        self.pending = []
        self.scopes = []
        self._block(f.body)
        end = Span(self.file, f.body.span.end_line or f.body.span.line)
        cut_short = self.partial and f is self.m.items[-1]
        if not cut_short:  # a function the syntax error interrupted never reached its end
            for name, span in self.pending:
                self.error(f"Unknown symbol '{name}'", span)
            if f.linkage is Linkage.EXTERN:
                self.error(
                    f"Function definition conflicts with '.extern' declaration for function "
                    f"'{f.name}'",
                    end,
                )
            self._function_end(f, end)
        self.pending = []
        self.fn = None
        self.params = {}

    def _func_directive(
        self, f: Function, name: str, values: tuple[int | str, ...], span: Span
    ) -> None:
        if name in ("maxntid", "reqntid", "reqnctapercluster", "minnctapersm") and any(
            isinstance(v, int) and v <= 0 for v in values
        ):
            self.error(f"Positive non-zero value expected for {name}", span)
        if name in ("explicitcluster", "reqnctapercluster", "maxclusterrank"):
            if self.ptx < (7, 8):
                self.error(f"Feature '.{name}' requires PTX ISA .version 7.8 or later", span)
            if self.sm < 90:
                self.error(f"Feature '.{name}' requires .target sm_90 or higher", span)
        if name == "blocksareclusters" and self.ptx < (9, 0):
            self.error(f"Feature '.{name}' requires PTX ISA .version 9.0 or later", span)

    def _function_end(self, f: Function, end: Span) -> None:
        if f.maxntid is not None and f.reqntid is not None:
            self.error(
                "Conflicting directives: .maxntid and .reqntid cannot both be specified", end
            )
        if f.minnctapersm is not None and f.maxntid is None and f.reqntid is None:
            self.warning(
                ".minnctapersm is ignored when neither .maxntid nor .reqntid is specified.", end
            )
        if f.kind is FuncKind.ENTRY:
            size = f.param_size
            limit = 0x7FFC if self.ptx >= (8, 1) and self.sm >= 70 else 0x1100
            if self.ptx < (1, 5):
                limit = 256
            if size > limit:
                self.error(
                    f"Entry function '{f.name}' uses too much parameter space "
                    f"({size:#x} bytes, {limit:#x} max).",
                    end,
                )
                if limit == 0x1100 and self.ptx < (8, 1) and size <= 0x7FFC:
                    self.error(
                        "Feature 'Kernel parameter size larger than 4352 bytes' requires "
                        "PTX ISA .version 8.1 or later",
                        end,
                    )

    # -- blocks and statements ----------------------------------------------------------------
    def _block(self, b: Block) -> None:
        sc = _Scope()
        for s in b.stmts:  # labels are visible in their whole block
            if isinstance(s, LabelDef):
                if s.name in sc.labels:
                    self.error(f"Duplicate definition of label '{s.name}'", s.span)
                sc.labels[s.name] = "label"
            elif isinstance(s, BranchTargets):
                sc.labels[s.label] = "branchtargets"
            elif isinstance(s, CallPrototype):
                sc.labels[s.label] = "callprototype"
            elif isinstance(s, CallTargets):
                sc.labels[s.label] = "calltargets"
        self.scopes.append(sc)
        for s in b.stmts:
            if isinstance(s, Instruction):
                self._instruction(s)
            elif isinstance(s, VarDecl):
                self._local_var(s, sc)
            elif isinstance(s, Block):
                self._block(s)
            elif isinstance(s, Loc):
                if s.file not in self.files:
                    self.loc_without_file = True
            elif isinstance(s, BranchTargets):
                for t in s.targets:
                    if self.is_label(t):
                        continue
                    if self.lookup(t) is not None or t.startswith("%"):
                        self.error("Illegal branch target, label expected", s.span)
                        break
                    self.unknown_symbol(t, s.span)
            elif isinstance(s, CallTargets):
                for t in s.targets:
                    f = self.funcs.get(t)
                    if f is None or f.kind is FuncKind.ENTRY:
                        self.error("Illegal call target, device function expected", s.span)
                        if f is None and self.lookup(t) is None:
                            self.unknown_symbol(t, s.span)
                        break
        self.scopes.pop()

    def _local_var(self, d: VarDecl, sc: _Scope) -> None:
        if d.space is StateSpace.PARAM and d.vec:
            self.error(f"Variable '{d.name}' cannot be allocated in .param state space", d.span)
        self._decl_common(d)
        if d.count:
            if d.name in sc.ranges or any(n.startswith(d.name) for n in sc.names):
                clash = self._range_clash(d, sc)
                if clash is not None:
                    self.error(f"Duplicate definition of variable '{clash}'", d.span)
            sc.ranges[d.name] = (d.count, d)
        else:
            if d.name in sc.names or self._in_ranges(d.name, sc):
                self.error(f"Duplicate definition of variable '{d.name}'", d.span)
            sc.names[d.name] = d
        sc.cache.clear()

    def _in_ranges(self, name: str, sc: _Scope) -> bool:
        m = _RANGE.fullmatch(name)
        if m is None:
            return False
        r = sc.ranges.get(m.group(1))
        return r is not None and int(m.group(2)) < r[0]

    def _range_clash(self, d: VarDecl, sc: _Scope) -> str | None:
        if d.name in sc.ranges:
            return f"{d.name}<"
        for n in sc.names:
            m = _RANGE.fullmatch(n)
            if m and m.group(1) == d.name and int(m.group(2)) < d.count:
                return n
        return None

    def _instruction(self, ins: Instruction) -> None:
        for o in ins.operands:
            self._immediates(o, ins.span)
        if ins.opcode == "call":
            self._call(ins)
            return
        if (
            ins.opcode in ("vote", "shfl")
            and "sync" not in ins.mods.flags
            and self.sm >= 70
            and self.ptx >= (6, 4)
        ):
            self.error(
                f"Instruction '{ins.opcode}' without '.sync' is not supported on .target sm_70 "
                "and higher from PTX ISA version 6.4",
                ins.span,
            )
            return
        self.check_instruction(ins)
        self._track_use(ins)

    def _immediates(self, o: Operand, span: Span) -> None:
        if isinstance(o, IntImm):
            if o.value > MAX_U64 or o.value < -(1 << 63):
                self.error("Constant overflow", span)
        elif isinstance(o, Vector):
            for it in o.items:
                self._immediates(it, span)

    def _track_use(self, ins: Instruction) -> None:
        """Remember the variables used (for unresolved-extern checks) and 32-bit addresses."""
        for o in ins.operands:
            if isinstance(o, Sym):
                self.used_vars.add(o.name)
        if (
            self.address_size == 64
            and not self.addr32_line
            and ins.opcode == "cvta"
            and ins.mods.types
            and ins.mods.types[0].bits == 32
        ):
            sp = ins.mods.space
            if sp is not None and sp.base is not StateSpace.SHARED:
                self.addr32_line = ins.span.line

    # -- calls --------------------------------------------------------------------------------
    def _call(self, ins: Instruction) -> None:
        self.check_instruction(ins)
        ops = ins.operands
        args = [o for o in ops if isinstance(o, ArgList)]
        target = next((o for o in ops if not isinstance(o, ArgList)), None)
        if target is None:
            self.error("Arguments mismatch for instruction 'call'", ins.span)
            return
        if isinstance(target, (Sym, Label)):
            d = self.lookup(target.name)
            if isinstance(d, Param):
                self.error("Label expected for argument 0 of instruction 'call'", ins.span)
                self.fatal("Call target not recognized", ins.span)
                return
            if isinstance(d, VarDecl):
                self.error("Arguments mismatch for instruction 'call'", ins.span)
                return
            if not isinstance(d, Function):
                self.error(f"Call to '{target.name}' requires call prototype", ins.span)
                return
            self.called.add(d.name)
            if d.kind is FuncKind.ENTRY:
                self.error("Illegal call target, device function expected", ins.span)
                return
            before = ops.index(target)
            rets = len(args[0].items) if before > 0 and args else 0
            params = len(args[-1].items) if args and ops.index(args[-1]) > before else 0
            if rets != len(d.rets) or params != len(d.params):
                self.error("Call has wrong number of parameters", ins.span)
                return
            if rets:
                self._call_args(ins, args[0].items, d.rets, results=True)
            if params:
                self._call_args(ins, args[-1].items, d.params, results=False)
        elif isinstance(target, Reg):
            last = ops[-1]
            if not isinstance(last, (Label, Sym)) or self.label_kind(last.name) not in (
                "callprototype",
                "calltargets",
            ):
                self.error("Label expected for argument 0 of instruction 'call'", ins.span)
                self.fatal("Call target not recognized", ins.span)

    def _call_args(
        self,
        ins: Instruction,
        items: tuple[Operand, ...],
        formals: tuple[Param, ...],
        *,
        results: bool,
    ) -> None:
        """Each argument against its formal parameter, as ptxas 13.0 checks them: a .param
        variable or a register of the formal's size (an array only for an array), alignment
        too; kernel parameters and other state spaces are not arguments."""
        for it, f in zip(items, formals, strict=False):
            if isinstance(it, (IntImm, FloatImm)):
                continue
            name = it.name if isinstance(it, (Sym, Reg, Label)) else None
            if isinstance(it, Sink) or name == "_":
                if not results:
                    self.error(f"Illegal argument for formal parameter '{f.name}'", ins.span)
                continue
            if name is None:
                continue
            d = self.lookup(name)
            if isinstance(d, Param) and d.space is StateSpace.PARAM:
                self.error(
                    f"Formal parameter '{name}' declared in .param space cannot be used as "
                    "argument to call",
                    ins.span,
                )
                return
            if isinstance(d, Param):
                size, align, array = d.size, d.alignment, bool(d.dims)
            elif isinstance(d, VarDecl):
                if d.space not in (StateSpace.PARAM, StateSpace.REG):
                    self.error(f"Call argument '{name}' has illegal state space", ins.span)
                    if d.space.base in (StateSpace.SHARED, StateSpace.LOCAL):
                        self.error(f"Inconsistent state space for parameter '{name}'", ins.span)
                size, align, array = d.size, d.alignment, bool(d.dims)
            else:
                continue
            if size != f.size or array != bool(f.dims):
                self.error(f"Type of argument does not match formal parameter '{f.name}'", ins.span)
            if align != f.alignment:
                self.error(
                    f"Alignment of argument does not match formal parameter '{f.name}'", ins.span
                )

    # -- end of module ------------------------------------------------------------------------
    def _finish(self) -> None:
        if self.loc_without_file:
            self.warning(
                ".loc directive without .file directive is found, line information in "
                "generated binary may not be complete",
                None,
            )
        if self.n_errors:
            return
        if self.addr32_line:
            self.warning(
                f"Program uses 32-bit address on line '{self.addr32_line}' which is "
                f"conflicting with .address_size 64",
                None,
            )
            if self.sm >= 90:
                self.fatal(
                    " 32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on "
                    "sm_90 or higher architectures."
                )
        if self.relocatable:
            return
        for name, f in self.funcs.items():
            if name in self.defined or name in SYSTEM_FUNCTIONS:
                continue
            if f.linkage is Linkage.EXTERN and name not in self.called:
                continue
            self.fatal(f"Unresolved extern function '{name}'")
        for name, v in self.vars.items():
            if (
                v.linkage is Linkage.EXTERN
                and v.space is not StateSpace.SHARED
                and name in self.used_vars
            ):
                self.fatal(f"Unresolved extern variable '{name}'")


def _init_type_mismatch(i: Init, t: PtxType) -> bool:
    """A float literal initializing an integer variable (ptxas: 'Initial value type mismatch')."""
    if isinstance(i, InitList):
        return any(_init_type_mismatch(x, t) for x in i.items)
    return isinstance(i, FloatImm) and t.is_int


def _init_len(i: Init) -> int:
    if isinstance(i, InitList):
        return len(i.items)
    return 1


def check(
    module: Module, arch: str | None = None, *, partial: bool = False, relocatable: bool = False
) -> list[Diagnostic]:
    """Check a parsed module; returns its diagnostics (errors, warnings, fatals) in ptxas order.

    ``arch`` is the ``-arch`` a compilation would use (None: the module's ``.target``).
    ``partial``: the module was cut short by a syntax error (no end-of-module checks).
    ``relocatable``: ``-c`` (undefined extern functions and variables are the linker's).
    """
    return _Checker(module, arch, partial, relocatable).run()


def has_errors(diags: list[Diagnostic]) -> bool:
    return any(d.severity in (Severity.ERROR, Severity.FATAL) for d in diags)
