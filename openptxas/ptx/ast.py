"""The typed AST of a PTX module (the input of the lowering stage; described in docs/ptx.md).

Every node is a frozen, slotted dataclass with a ``span`` (file, line, column). Spans do not take
part in equality, so two parses of the same program printed differently compare equal:
``parse(print_module(parse(x))) == parse(x)``.

Operand nodes carry the span of their instruction (PTX diagnostics are per line; one shared Span
object per instruction keeps parsing fast).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from openptxas.diag import Span
from openptxas.ptx.modifiers import Mods
from openptxas.ptx.types import (
    BoolOp,
    CacheOp,
    CmpOp,
    Linkage,
    PtxType,
    Rounding,
    Scope,
    Sem,
    StateSpace,
)

NO_SPAN = Span("<none>", 0)


# ----------------------------------------------------------------------------------------------
# Operands


@dataclass(frozen=True, slots=True)
class Reg:
    """A register (``%r1``, ``p``), optionally with a component (``%v.x``, video ``%r1.b0``)."""

    name: str
    comp: str = ""
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class SpecialReg:
    """A special register (``%tid.x``, ``%laneid``, ``%clock64``, ``%envreg3``)."""

    name: str
    comp: str = ""
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class IntImm:
    """An integer immediate (already evaluated when written as a constant expression)."""

    value: int
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class FloatImm:
    """A floating-point immediate, kept as its bit pattern: ``width`` 32 for ``0fXXXXXXXX``,
    64 for ``0dXXXXXXXXXXXXXXXX`` and for decimal literals (PTX reads those as double)."""

    bits: int
    width: int
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def value(self) -> float:
        if self.width == 32:
            return float(struct.unpack("<f", struct.pack("<I", self.bits))[0])
        return float(struct.unpack("<d", struct.pack("<Q", self.bits))[0])

    @staticmethod
    def from_float(x: float, span: Span = NO_SPAN) -> FloatImm:
        return FloatImm(struct.unpack("<Q", struct.pack("<d", x))[0], 64, span)


@dataclass(frozen=True, slots=True)
class Sym:
    """A variable, parameter or function name, with a byte offset (``g+4``)."""

    name: str
    offset: int = 0
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Label:
    """A reference to a label of the enclosing function (branch targets, .branchtargets)."""

    name: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Address:
    """A memory operand ``[base+offset]``: base is a register, a symbol, or None (absolute)."""

    base: Reg | Sym | None
    offset: int = 0
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Vector:
    """A brace list ``{a, b, c, d}`` (vector data, mma fragments, tex coordinates)."""

    items: tuple[Operand, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Pair:
    """Two destinations joined by ``|`` (``setp ... %p|%q``, ``elect.sync %r|%p``)."""

    first: Operand
    second: Operand
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Not:
    """A negated operand: a predicate ``!%p``, or with ``arith`` a register ``-%r`` (only vmad
    takes one; ptxas rejects it elsewhere)."""

    operand: Operand
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    arith: bool = False


@dataclass(frozen=True, slots=True)
class Sink:
    """The bit bucket ``_``."""

    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ArgList:
    """A parenthesised list of call arguments or results: ``(retval0)``, ``(p0, p1)``."""

    items: tuple[Operand, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MemList:
    """A bracketed operand list of texture/surface instructions: ``[tex, smp, {x, y}]``."""

    items: tuple[Operand, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


Operand = (
    Reg
    | SpecialReg
    | IntImm
    | FloatImm
    | Sym
    | Label
    | Address
    | Vector
    | Pair
    | Not
    | Sink
    | ArgList
    | MemList
)


def operand_leaves(op: Operand) -> Iterator[Operand]:
    """The atoms of an operand: itself, or the items of a vector, argument or memory list, both
    halves of a pair, the operand of a negation, an address's base (when it has one)."""
    if isinstance(op, Vector | ArgList | MemList):
        for it in op.items:
            yield from operand_leaves(it)
    elif isinstance(op, Pair):
        yield from operand_leaves(op.first)
        yield from operand_leaves(op.second)
    elif isinstance(op, Not):
        yield from operand_leaves(op.operand)
    elif isinstance(op, Address):
        if op.base is not None:
            yield op.base
    else:
        yield op


# ----------------------------------------------------------------------------------------------
# Initializers of variables


@dataclass(frozen=True, slots=True)
class SymInit:
    """An address in an initializer: ``sym``, ``sym+4``, ``generic(sym)+4``, ``0xFF00(sym)``."""

    name: str
    offset: int = 0
    generic: bool = False
    mask: int | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class InitList:
    """A brace list ``{1, 2, {3, 4}}``."""

    items: tuple[Init, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class InitFields:
    """Texture/sampler/surface fields: ``{ addr_mode_0 = clamp_to_edge, ... }``."""

    items: tuple[tuple[str, str | int], ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


Init = IntImm | FloatImm | SymInit | InitList | InitFields


# ----------------------------------------------------------------------------------------------
# Declarations


@dataclass(frozen=True, slots=True)
class PtrAttr:
    """Kernel pointer-parameter attributes: ``.ptr .global .align 16``."""

    space: StateSpace | None = None
    align: int | None = None


@dataclass(frozen=True, slots=True)
class VarDecl:
    """A variable: ``.reg .b32 %r<100>``, ``.shared .align 16 .b8 buf[1024]``, ``.global ...``.

    ``count`` > 0 marks a register range ``%r<count>``: it declares ``%r0`` .. ``%r{count-1}``.
    ``dims`` holds array dimensions (``None`` for ``[]`` sized by the initializer or extern).
    """

    space: StateSpace
    type: PtxType
    name: str
    linkage: Linkage | None = None
    align: int | None = None
    vec: int = 0
    dims: tuple[int | None, ...] = ()
    count: int = 0
    init: Init | None = None
    attrs: tuple[str, ...] = ()
    ptr: PtrAttr | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def elem_size(self) -> int:
        """Size of one element (a vector counts as one element)."""
        return self.type.size * (self.vec or 1)

    @property
    def size(self) -> int:
        """Total size in bytes (unsized dimensions count as 0)."""
        n = 1
        for d in self.dims:
            n *= d or 0
        return self.elem_size * n

    @property
    def alignment(self) -> int:
        """Effective alignment: the ``.align`` value, else the element size."""
        return self.align or max(self.elem_size, 1)

    def names(self) -> Iterator[str]:
        """Every name the declaration introduces (expands ``%r<4>`` to ``%r0`` .. ``%r3``)."""
        if self.count:
            for i in range(self.count):
                yield f"{self.name}{i}"
        else:
            yield self.name


class FuncKind(StrEnum):
    ENTRY = "entry"
    FUNC = "func"


@dataclass(frozen=True, slots=True)
class Param:
    """A kernel or function parameter (``.param`` or, for ``.func``, ``.reg``)."""

    name: str
    type: PtxType
    space: StateSpace = StateSpace.PARAM
    align: int | None = None
    vec: int = 0
    dims: tuple[int | None, ...] = ()
    ptr: PtrAttr | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def size(self) -> int:
        n = 1
        for d in self.dims:
            n *= d or 0
        return self.type.size * (self.vec or 1) * n

    @property
    def alignment(self) -> int:
        return self.align or max(self.type.size * (self.vec or 1), 1)


@dataclass(frozen=True, slots=True)
class ParamSlot:
    """Where a parameter lives in the parameter buffer (see Function.param_layout)."""

    param: Param
    offset: int
    size: int


@dataclass(frozen=True, slots=True)
class FuncDirective:
    """A performance-tuning or ABI directive of a function, in source order: ``.maxntid 128,1,1``,
    ``.reqntid``, ``.minnctapersm``, ``.maxnreg``, ``.maxclusterrank``, ``.reqnctapercluster``,
    ``.explicitcluster``, ``.blocksareclusters``, ``.noreturn``, ``.pragma "..."``,
    ``.abi_preserve N``, ``.abi_preserve_control N``."""

    name: str
    values: tuple[int | str, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


# ----------------------------------------------------------------------------------------------
# Statements


@dataclass(frozen=True, slots=True)
class Guard:
    """The guard predicate ``@%p`` / ``@!%p``."""

    reg: str
    negated: bool = False
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction: ``@guard opcode.mods operands;``.

    ``opcode`` is the mnemonic ptxas names in its messages (``add``, ``ld``, ``mbarrier.try_wait``,
    ``cp.async.bulk.tensor``, ``wgmma.mma_async``); ``mods`` holds the modifiers, decoded
    (``ins.type``, ``ins.space``, ``ins.cmp`` ... read them).
    """

    opcode: str
    mods: Mods
    operands: tuple[Operand, ...]
    guard: Guard | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    # Shortcuts to the decoded modifiers.
    @property
    def type(self) -> PtxType | None:
        return self.mods.type

    @property
    def types(self) -> tuple[PtxType, ...]:
        return self.mods.types

    @property
    def space(self) -> StateSpace | None:
        return self.mods.space

    @property
    def cmp(self) -> CmpOp | None:
        return self.mods.cmp

    @property
    def boolop(self) -> BoolOp | None:
        return self.mods.boolop

    @property
    def rnd(self) -> Rounding | None:
        return self.mods.rnd

    @property
    def vec(self) -> int:
        return self.mods.vec

    @property
    def sem(self) -> Sem | None:
        return self.mods.sem

    @property
    def scope(self) -> Scope | None:
        return self.mods.scope

    @property
    def cache(self) -> CacheOp | None:
        return self.mods.cache

    @property
    def op(self) -> str | None:
        return self.mods.op

    def has(self, mod: str) -> bool:
        """Whether a modifier (without its dot, e.g. ``"ftz"``, ``"L2::cache_hint"``) is set."""
        return mod in self.mods.raw_set

    @property
    def name(self) -> str:
        """The full dotted mnemonic as written (``ld.global.v4.f32``)."""
        return self.opcode + self.mods.suffix


@dataclass(frozen=True, slots=True)
class LabelDef:
    name: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Loc:
    """``.loc file line col`` with the optional ``function_name``/``inlined_at`` parts."""

    file: int
    line: int
    col: int = 0
    function_name: str | None = None
    function_name_offset: int = 0
    inlined_at: tuple[int, int, int] | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Pragma:
    values: tuple[str, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class CallPrototype:
    """``label: .callprototype (rets) _ (params) [.noreturn];`` (indirect-call signature)."""

    label: str
    rets: tuple[Param, ...]
    params: tuple[Param, ...]
    noreturn: bool = False
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class BranchTargets:
    """``label: .branchtargets L1, L2, ...;`` (the jump table of ``brx.idx``)."""

    label: str
    targets: tuple[str, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class CallTargets:
    """``label: .calltargets f1, f2, ...;`` (possible targets of an indirect call)."""

    label: str
    targets: tuple[str, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Block:
    """A ``{ ... }`` scope: a function body or a nested block."""

    stmts: tuple[Stmt, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def instructions(self) -> Iterator[Instruction]:
        """Every instruction, nested blocks included, in order."""
        for s in self.stmts:
            if isinstance(s, Instruction):
                yield s
            elif isinstance(s, Block):
                yield from s.instructions()

    def walk(self) -> Iterator[Stmt]:
        """Every statement, nested blocks flattened (a Block is yielded before its contents)."""
        for s in self.stmts:
            yield s
            if isinstance(s, Block):
                yield from s.walk()


Stmt = (
    Instruction
    | LabelDef
    | VarDecl
    | Block
    | Loc
    | Pragma
    | CallPrototype
    | BranchTargets
    | CallTargets
)


# ----------------------------------------------------------------------------------------------
# Functions and module items


@dataclass(frozen=True, slots=True)
class Function:
    """An ``.entry`` (kernel) or ``.func``; ``body`` is None for a declaration (prototype)."""

    name: str
    kind: FuncKind
    params: tuple[Param, ...] = ()
    rets: tuple[Param, ...] = ()
    linkage: Linkage | None = None
    directives: tuple[FuncDirective, ...] = ()
    attrs: tuple[str, ...] = ()
    body: Block | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def is_entry(self) -> bool:
        return self.kind is FuncKind.ENTRY

    def directive(self, name: str) -> FuncDirective | None:
        """The first directive called ``name`` (without dot: ``"maxntid"``), or None."""
        for d in self.directives:
            if d.name == name:
                return d
        return None

    def _ints(self, name: str) -> tuple[int, ...] | None:
        d = self.directive(name)
        if d is None:
            return None
        return tuple(v for v in d.values if isinstance(v, int))

    @property
    def maxntid(self) -> tuple[int, ...] | None:
        return self._ints("maxntid")

    @property
    def reqntid(self) -> tuple[int, ...] | None:
        return self._ints("reqntid")

    @property
    def reqnctapercluster(self) -> tuple[int, ...] | None:
        return self._ints("reqnctapercluster")

    @property
    def minnctapersm(self) -> int | None:
        v = self._ints("minnctapersm")
        return v[0] if v else None

    @property
    def maxnreg(self) -> int | None:
        v = self._ints("maxnreg")
        return v[0] if v else None

    @property
    def maxclusterrank(self) -> int | None:
        v = self._ints("maxclusterrank")
        return v[0] if v else None

    @property
    def explicitcluster(self) -> bool:
        return self.directive("explicitcluster") is not None

    @property
    def noreturn(self) -> bool:
        return self.directive("noreturn") is not None

    @property
    def pragmas(self) -> tuple[str, ...]:
        return tuple(str(v) for d in self.directives if d.name == "pragma" for v in d.values)

    def param_layout(self, base: int = 0) -> tuple[ParamSlot, ...]:
        """Offsets of the parameters in the parameter buffer: each at the next multiple of its
        alignment (``.align`` or its element size), as ptxas lays out kernel parameters. The
        alignment holds in constant bank 0, where the buffer starts at ``base``
        (``.param .align 128 .b8 map[128]`` first: offset 0x70 after a base of 0x210)."""
        out: list[ParamSlot] = []
        off = 0
        for p in self.params:
            a = p.alignment
            off = (base + off + a - 1) // a * a - base
            out.append(ParamSlot(p, off, p.size))
            off += p.size
        return tuple(out)

    @property
    def param_size(self) -> int:
        """Total bytes of the parameter buffer (end of the last parameter; from bank offset 0,
        :meth:`param_layout`)."""
        lay = self.param_layout()
        return lay[-1].offset + lay[-1].size if lay else 0


@dataclass(frozen=True, slots=True)
class VersionDirective:
    major: int
    minor: int
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TargetDirective:
    """``.target sm_90a[, texmode_independent][, debug][, map_f64_to_f32]``."""

    targets: tuple[str, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def arch(self) -> str | None:
        for t in self.targets:
            if t.startswith(("sm_", "compute_")):
                return t
        return None

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(t for t in self.targets if not t.startswith(("sm_", "compute_")))


@dataclass(frozen=True, slots=True)
class AddressSizeDirective:
    bits: int
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class FileDirective:
    """``.file 1 "name" [, timestamp, size]``."""

    index: int
    name: str
    timestamp: int | None = None
    size: int | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class DataDirective:
    """One line of a ``.section`` body: ``.b8 1, 2``, ``.b32 .debug_abbrev``, ``.b64 $L__tmp0``.

    Values are integers or label names with an optional offset (``("name", off)``), or a label
    difference (``("a", "b")`` for ``a-b``)."""

    type: PtxType
    values: tuple[int | tuple[str, int] | tuple[str, str], ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Section:
    """``.section .debug_info { ... }`` (DWARF emitted by nvcc -G/-lineinfo), kept verbatim."""

    name: str
    entries: tuple[DataDirective | LabelDef, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Alias:
    """``.alias alias, aliasee;``."""

    alias: str
    target: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


ModuleItem = (
    VersionDirective
    | TargetDirective
    | AddressSizeDirective
    | Function
    | VarDecl
    | FileDirective
    | Section
    | Alias
    | Pragma
)


@dataclass(frozen=True, slots=True)
class Module:
    """A parsed PTX file: its items in source order, and shortcuts to read them."""

    items: tuple[ModuleItem, ...]
    file: str = "<ptx>"
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # `#line`/`# N "file"` markers (openptxas.ptx.linemap.LineMap), None when there are none
    line_map: object | None = field(default=None, compare=False, repr=False)

    def _first(self, cls: type[object]) -> object | None:
        for it in self.items:
            if isinstance(it, cls):
                return it
        return None

    @property
    def version(self) -> tuple[int, int] | None:
        v = self._first(VersionDirective)
        return (v.major, v.minor) if isinstance(v, VersionDirective) else None

    @property
    def target(self) -> str | None:
        """The architecture of ``.target`` (``sm_90a``), or None."""
        t = self._first(TargetDirective)
        return t.arch if isinstance(t, TargetDirective) else None

    @property
    def target_options(self) -> tuple[str, ...]:
        t = self._first(TargetDirective)
        return t.options if isinstance(t, TargetDirective) else ()

    @property
    def address_size(self) -> int:
        a = self._first(AddressSizeDirective)
        return a.bits if isinstance(a, AddressSizeDirective) else 32

    @property
    def functions(self) -> tuple[Function, ...]:
        return tuple(it for it in self.items if isinstance(it, Function))

    @property
    def entries(self) -> tuple[Function, ...]:
        """Kernels with a body."""
        return tuple(
            it
            for it in self.items
            if isinstance(it, Function) and it.kind is FuncKind.ENTRY and it.body is not None
        )

    @property
    def globals(self) -> tuple[VarDecl, ...]:
        """Module-scope variables (.global, .const, .shared, .tex, ...)."""
        return tuple(it for it in self.items if isinstance(it, VarDecl))

    def function(self, name: str) -> Function:
        """The definition of ``name`` (else its declaration); KeyError when absent."""
        found: Function | None = None
        for it in self.items:
            if isinstance(it, Function) and it.name == name:
                if it.body is not None:
                    return it
                found = found or it
        if found is None:
            raise KeyError(name)
        return found
