"""The SASS-level IR: virtual registers, operands, instructions, blocks and functions.

Instructions are real SASS opcodes with SASS modifiers (``IMAD.WIDE.U32``), whose operands are
virtual registers until register allocation replaces them with physical ones. Operands are listed
in the order nvdisasm prints them, destinations first (``dsts``) and sources after (``srcs``), so an
allocated instruction converts one-to-one to the ISA model for encoding.

Register classes are R (32-bit general), UR (uniform), P (predicate), UP (uniform predicate) and B
(convergence barrier). A virtual register has a width in 32-bit registers (1, 2 or 4); a wide value
is allocated to an aligned group (pair: even, quad: multiple of 4), as the hardware requires.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from enum import IntEnum
from typing import Any


class RC(IntEnum):
    """Register class."""

    R = 0
    UR = 1
    P = 2
    UP = 3
    B = 4

    @property
    def prefix(self) -> str:
        return _RC_PREFIX[self]

    @property
    def is_pred(self) -> bool:
        return self in (RC.P, RC.UP)

    @property
    def is_uniform(self) -> bool:
        return self in (RC.UR, RC.UP)


_RC_PREFIX = {RC.R: "R", RC.UR: "UR", RC.P: "P", RC.UP: "UP", RC.B: "B"}


def _reduce(obj: Any) -> tuple[Any, tuple[Any, ...]]:
    """How copy, deepcopy and pickle rebuild a frozen IR value: through its constructor. (Compiled
    with mypyc, the default way sets the fields one by one, which a frozen class refuses.)"""
    return (type(obj), tuple(getattr(obj, f.name) for f in fields(obj)))


@dataclass(frozen=True, slots=True, order=True)
class VReg:
    """A virtual register. ``width`` counts 32-bit registers (predicates: always 1)."""

    rc: RC
    id: int
    width: int = 1

    def __str__(self) -> str:
        w = "" if self.width == 1 else f"x{self.width}"
        return f"%{self.rc.prefix.lower()}{self.id}{w}"

    def part(self, k: int, n: int = 1) -> Part:
        return Part(self, k, n)

    @property
    def lo(self) -> Part:
        return Part(self, 0)

    @property
    def hi(self) -> Part:
        return Part(self, 1)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


@dataclass(frozen=True, slots=True, order=True)
class Part:
    """Registers ``k .. k+n-1`` of a wide virtual register (e.g. the low half of a 64-bit value)."""

    v: VReg
    k: int
    n: int = 1

    def __str__(self) -> str:
        return f"{self.v}.{self.k}" if self.n == 1 else f"{self.v}.{self.k}:{self.k + self.n}"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


@dataclass(frozen=True, slots=True, order=True)
class Reg:
    """A physical register, or a fixed one: RZ (R255), URZ, PT (P7), UPT (UP7).

    ``width`` is the group size when the register names a pair or quad.
    """

    rc: RC
    index: int
    width: int = 1

    def __str__(self) -> str:
        if self.rc == RC.R and self.index == 255:
            return "RZ"
        if self.rc in (RC.P, RC.UP) and self.index == 7:
            return f"{self.rc.prefix}T"
        return f"{self.rc.prefix}{self.index}"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


# The zero registers. Like the ISA model (``openptxas.isa.model.ZERO_INDEX``), the IR writes
# them as index 255 (RZ, URZ) and 7 (PT, UPT) on every target; the encoder maps each to the
# family's code (URZ is UR63 on sm_90, UR255 on sm_100).
RZ = Reg(RC.R, 255)
URZ = Reg(RC.UR, 255)
PT = Reg(RC.P, 7)
UPT = Reg(RC.UP, 7)


def is_zero_reg(r: Reg) -> bool:
    """RZ, URZ, PT or UPT."""
    return (r.rc in (RC.R, RC.UR) and r.index == 255) or (r.rc in (RC.P, RC.UP) and r.index == 7)


RegLike = VReg | Part | Reg


def base_vreg(x: RegLike) -> VReg | None:
    if isinstance(x, VReg):
        return x
    if isinstance(x, Part):
        return x.v
    return None


def reg_class(x: RegLike) -> RC:
    return x.v.rc if isinstance(x, Part) else x.rc


def reg_width(x: RegLike) -> int:
    return x.n if isinstance(x, Part) else x.width


@dataclass(frozen=True, slots=True)
class Src:
    """A register source with operand modifiers: ``-x``, ``|x|``, ``!p``/``~x``, selectors."""

    x: RegLike
    neg: bool = False
    abs: bool = False
    inv: bool = False
    sel: str = ""  # e.g. "H1", "B2", "H1_H1"

    def __str__(self) -> str:
        s = str(self.x)
        if self.sel:
            s += "." + self.sel
        if self.abs:
            s = f"|{s}|"
        if self.neg:
            s = "-" + s
        if self.inv:
            s = ("!" if reg_class(self.x).is_pred else "~") + s
        return s

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


class ImmKind(IntEnum):
    INT = 0  # printed in hex
    F32 = 1  # bits of an f32
    F64 = 2  # an f64's 64-bit pattern (SASS encodes its high word: the low one must be 0)
    F16X2 = 3


@dataclass(frozen=True, slots=True)
class Imm:
    """An immediate, as the raw bits the instruction holds."""

    value: int
    kind: ImmKind = ImmKind.INT

    def __str__(self) -> str:
        if self.kind == ImmKind.INT:
            v = self.value & 0xFFFFFFFF
            return hex(v) if v < 0x80000000 else f"-{hex(0x100000000 - v)}"
        return f"{self.kind.name.lower()}:{self.value:#x}"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


@dataclass(frozen=True, slots=True)
class CBank:
    """A constant-bank reference ``c[bank][reg + offset]``."""

    bank: int
    offset: int
    reg: RegLike | None = None

    def __str__(self) -> str:
        inner = f"{self.reg}+{self.offset:#x}" if self.reg is not None else f"{self.offset:#x}"
        return f"c[{self.bank:#x}][{inner}]"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


@dataclass(frozen=True, slots=True)
class Addr:
    """A memory address: ``desc[desc][base(.64) + ubase + offset]``.

    ``wide``: the base register is a 64-bit pair. ``desc`` is the UR pair holding the global
    memory descriptor (loaded from constant bank 0, ``Abi.cb_global_desc``) for LDG/STG/ATOMG.
    """

    base: RegLike | None = None
    offset: int = 0
    ubase: RegLike | None = None
    desc: RegLike | None = None
    wide: bool = False

    def regs(self) -> tuple[RegLike, ...]:
        return tuple(r for r in (self.base, self.ubase, self.desc) if r is not None)

    def __str__(self) -> str:
        parts = []
        if self.base is not None:
            parts.append(f"{self.base}{'.64' if self.wide else ''}")
        if self.ubase is not None:
            parts.append(str(self.ubase))
        if self.offset or not parts:
            parts.append(hex(self.offset))
        s = "[" + "+".join(parts) + "]"
        return f"desc[{self.desc}]{s}" if self.desc is not None else s

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


@dataclass(frozen=True, slots=True)
class SReg:
    """A special register, named as nvdisasm prints it (``SR_TID.X``, ``SR_CTAID.Y``)."""

    name: str

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


@dataclass(frozen=True, slots=True)
class Label:
    """A branch target: the name of a block of the same function."""

    block: str

    def __str__(self) -> str:
        return f"`({self.block})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


Operand = VReg | Part | Reg | Src | Imm | CBank | Addr | SReg | Label
_NO_REGS: frozenset[type] = frozenset({Imm, SReg, Label, CBank})


def operand_regs(op: Operand) -> tuple[RegLike, ...]:
    """The registers an operand reads (for a source) or names (for a destination)."""
    # the hottest function of the compiler (every pass asks it of every operand): dispatch on
    # the exact type first, a tuple rather than a generator
    t = type(op)
    if t is VReg or t is Reg or t is Part:
        return (op,)  # type: ignore[return-value]
    if t is Src:
        return (op.x,)  # type: ignore[union-attr]
    if t is Addr:
        return op.regs()  # type: ignore[union-attr]
    if t is CBank and op.reg is not None:  # type: ignore[union-attr]
        return (op.reg,)  # type: ignore[union-attr]
    if t in _NO_REGS:
        return ()
    return _operand_regs_slow(op)


def _operand_regs_slow(op: Operand) -> tuple[RegLike, ...]:
    # subclasses of the operand types (none today): the isinstance ladder
    if isinstance(op, VReg | Part | Reg):
        return (op,)
    if isinstance(op, Src):
        return (op.x,)
    if isinstance(op, Addr):
        return op.regs()
    if isinstance(op, CBank) and op.reg is not None:
        return (op.reg,)
    return ()


@dataclass(frozen=True, slots=True)
class Guard:
    """The guard predicate ``@P0`` / ``@!P0``."""

    pred: RegLike
    inv: bool = False

    def __str__(self) -> str:
        return f"@{'!' if self.inv else ''}{self.pred}"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _reduce(self)


@dataclass(slots=True)
class Control:
    """Scheduling control info, as the hardware encodes it (bits 105..121; the encoding, text and
    checks live in ``openptxas.isa.control``). Operand-reuse flags (bits 122..125) are not set:
    ptxas sets them, openptxas does not model the operand cache yet."""

    stall: int = 1
    yield_: bool = False
    wr_sb: int | None = None  # write scoreboard 0..5
    rd_sb: int | None = None  # read scoreboard 0..5
    wait: int = 0  # 6-bit mask of scoreboards to wait on

    def __str__(self) -> str:
        """The control field's text (``[B0-----:R-:W1:Y:S04]``), as ``openptxas.isa.control``
        writes it."""
        from openptxas.isa.control import format_control
        from openptxas.isa.model import Control as IsaControl

        return format_control(
            IsaControl(self.stall, self.yield_, self.wr_sb, self.rd_sb, self.wait)
        )


_ids = itertools.count()


@dataclass(slots=True, eq=False)
class Instr:
    """One SASS instruction (virtual or physical registers)."""

    op: str
    mods: tuple[str, ...] = ()
    dsts: list[Operand] = field(default_factory=list)
    srcs: list[Operand] = field(default_factory=list)
    guard: Guard | None = None
    ctrl: Control | None = None
    line: int = 0  # PTX source line (for diagnostics and line info)
    uid: int = field(default_factory=lambda: next(_ids))
    # A multiply or add written without a rounding modifier: FmaContraction may fuse it (PTX lets
    # a compiler contract mul/add only when neither names its rounding).
    contract: bool = False
    # The start of ptxas's expansion of a signed 32-bit division or remainder: a multiply of two
    # registers before it is not fused into an add after it (FmaContraction; ptxas 13.0 keeps
    # FMUL + FADD there, see passes/fma.py).
    contract_fence: bool = False

    @property
    def name(self) -> str:
        return ".".join((self.op, *self.mods))

    def has_mod(self, m: str) -> bool:
        return m in self.mods

    def def_regs(self) -> list[RegLike]:
        out: list[RegLike] = []
        for d in self.dsts:
            out += operand_regs(d)
        return out

    def use_regs(self) -> list[RegLike]:
        out: list[RegLike] = [] if self.guard is None else [self.guard.pred]
        for s in self.srcs:
            out += operand_regs(s)
        return out

    def __str__(self) -> str:
        g = f"{self.guard} " if self.guard is not None else ""
        ops = ", ".join(str(o) for o in (*self.dsts, *self.srcs))
        return f"{g}{self.name}{' ' + ops if ops else ''}"


# Opcodes that end a block when they are its last instruction.
BRANCHES = frozenset({"BRA", "BRX", "JMP", "JMX"})
TERMINATORS = BRANCHES | {"EXIT", "RET", "BREAK", "KILL", "CALL"}


@dataclass(slots=True, eq=False)
class Block:
    name: str
    instrs: list[Instr] = field(default_factory=list)

    def terminator(self) -> Instr | None:
        if self.instrs and self.instrs[-1].op in TERMINATORS:
            return self.instrs[-1]
        return None


@dataclass(slots=True, eq=False)
class Param:
    name: str
    offset: int  # byte offset within the parameter block
    size: int
    align: int


@dataclass(slots=True, eq=False)
class Function:
    """A kernel (``entry``) or device function: blocks in layout order, the first is the entry."""

    name: str
    blocks: list[Block]
    is_entry: bool = True
    params: list[Param] = field(default_factory=list)
    next_vreg: int = 0
    # Resources the code generator tracks for the cubin and the -v report.
    shared_static: int = 0
    shared_align: int = 4
    local_bytes: int = 0
    call_stack: int = 0  # the deepest chain of subroutine frames below this function's
    subroutines: list[tuple[str, str]] = field(default_factory=list)  # (.func, entry block)
    externs: list[str] = field(default_factory=list)  # functions the driver resolves (called)
    # recursion (lower.calls, passes/recursion.py): CALL uid -> (the function it is in, the
    # callee's result registers) for calls within a cycle; each recursive function's (entry
    # block, frame size)
    cycle_calls: dict[int, tuple[str, tuple[int, ...]]] = field(default_factory=dict)
    frames: dict[str, tuple[str, int]] = field(default_factory=dict)
    # -v of each recursive function: (its frame with the saves, bytes saved)
    sub_frames: dict[str, tuple[int, int]] = field(default_factory=dict)
    barriers: int = 0
    # brx.idx jump tables, in order: each is its target blocks; they fill constant bank 2
    # (.nv.constant2.<f>) one after another, 4 bytes (the target's code offset) per entry.
    jump_tables: list[tuple[str, ...]] = field(default_factory=list)
    maxnreg: int | None = None  # the function's .maxnreg (the register allocator's budget)
    # blocks with .pragma "nounroll" ("*": the function's own): loops OriLoopUnrolling keeps
    nounroll: set[str] = field(default_factory=set)
    registers: int = 0  # "Used N registers", set by the register allocator
    notes: list[str] = field(default_factory=list)  # ptxas's info lines about it (C75xx)
    spill_stores: int = 0  # bytes of the allocator's STLs (-v "bytes spill stores")
    spill_loads: int = 0  # bytes of its LDLs
    # constant bank 4 slot -> the variable or external function whose address it holds
    # (lower.relocs); with -c the slots' loads become relocated moves (lower.relocs)
    symbol_slots: dict[int, str] = field(default_factory=dict)
    # -c: (instruction uid, R_CUDA_* type, symbol, addend) of each relocated field in the code
    code_relocs: list[tuple[int, int, str, int]] = field(default_factory=list)
    # subroutine name -> its own spill (store, load) bytes, for its -v block
    sub_spills: dict[str, tuple[int, int]] = field(default_factory=dict)
    # -g (openptxas.debuginfo): the PTX registers' virtual registers, the local and shared
    # variables' places, and each register's home after allocation (vreg, register, the uids
    # of the instructions where it is live)
    debug_regs: dict[str, VReg] = field(default_factory=dict)
    debug_locals: dict[str, int] = field(default_factory=dict)
    debug_shared: dict[str, int] = field(default_factory=dict)
    debug_homes: list[tuple[VReg, Reg, frozenset[int]]] = field(default_factory=list)
    # its subroutines' (device functions'): PTX registers, frame size, return address
    debug_subs: dict[str, tuple[dict[str, VReg], int, VReg]] = field(default_factory=dict)

    def new_vreg(self, rc: RC, width: int = 1) -> VReg:
        v = VReg(rc, self.next_vreg, width)
        self.next_vreg += 1
        return v

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def instrs(self) -> Iterator[Instr]:
        for b in self.blocks:
            yield from b.instrs


def successors(
    fn: Function,
    i: int,
    *,
    over_calls: bool = False,
    any_return: bool = False,
    index: dict[str, int] | None = None,
) -> list[int]:
    """Indices (in ``fn.blocks``) of the successors of block ``i``: its branch target and, unless
    it ends in an unconditional transfer, the next block in layout order.

    A subroutine call goes into the subroutine and its return to every return site (the data
    flow through calls); ``over_calls``: a call goes to its return site and a return nowhere (the
    control structure of each function on its own: divergent regions, reconvergence);
    ``any_return``: a return to the return site of every call (the hazard checkers' view, which
    the control codes must satisfy). ``index``: block name -> index, when the caller asks for
    every block (predecessors): a lookup instead of a search of the blocks per branch."""
    b = fn.blocks[i]

    def _index_of(fn: Function, name: str) -> int:
        if index is not None:
            j = index.get(name)
            if j is not None:
                return j
        return _search(fn, name)

    out: list[int] = []
    t = b.terminator()
    fallthrough = True
    if t is not None and t.op == "CALL" and len(t.srcs) < 2:
        # a call of a function the driver resolves (lower.extcalls) returns to the next block
        return [i + 1] if i + 1 < len(fn.blocks) else []
    if over_calls and t is not None and t.op in ("CALL", "RET") and len(t.srcs) >= 2:
        r = t.srcs[1]
        if t.op == "CALL" and isinstance(r, Label):
            return [_index_of(fn, r.block)]
        return [i + 1] if t.guard is not None and i + 1 < len(fn.blocks) else []
    if t is not None and t.op in ("CALL", "RET") and len(t.srcs) >= 2:
        # a subroutine call (lower.calls): CALL `(sub), `(return site) goes to the subroutine;
        # its RET Rra, `(sub) to the return site of every call of it (a guarded one also on)
        # an indirect call (CALL Rf, `(return site), `(f1), `(f2)...) goes to each function it
        # may reach, and their returns to its return site
        if t.op == "CALL":
            s0 = t.srcs[0]
            if isinstance(s0, Label):
                return [_index_of(fn, s0.block)]
            return [_index_of(fn, x.block) for x in t.srcs[2:] if isinstance(x, Label)]
        sub = t.srcs[1]
        if isinstance(sub, Label):
            for c in fn.instrs():
                if (
                    c.op == "CALL"
                    and len(c.srcs) >= 2
                    and (any_return or c.srcs[0] == sub or sub in c.srcs[2:])
                ):
                    r = c.srcs[1]
                    if isinstance(r, Label):
                        out.append(_index_of(fn, r.block))
        if t.guard is not None and i + 1 < len(fn.blocks):
            out.append(i + 1)
        return list(dict.fromkeys(out))
    if t is not None:
        if t.op in BRANCHES:
            for s in t.srcs:
                if isinstance(s, Label):
                    out.append(_index_of(fn, s.block))
        if t.guard is None or t.op in ("BRX", "JMX"):
            fallthrough = False
        if t.op in ("EXIT", "RET", "KILL") and t.guard is None:
            fallthrough = False
    if fallthrough and i + 1 < len(fn.blocks):
        out.append(i + 1)
    return list(dict.fromkeys(out))  # stable, without duplicates


def block_index(fn: Function) -> dict[str, int]:
    """Block name -> index in ``fn.blocks`` (the first block of a name, as a search finds)."""
    index: dict[str, int] = {}
    for j, b in enumerate(fn.blocks):
        index.setdefault(b.name, j)
    return index


def _search(fn: Function, name: str) -> int:
    for j, b in enumerate(fn.blocks):
        if b.name == name:
            return j
    raise KeyError(f"branch to unknown block {name}")


def all_successors(
    fn: Function, *, over_calls: bool = False, any_return: bool = False
) -> list[list[int]]:
    """``successors`` of every block, in one pass over the blocks."""
    index = block_index(fn)
    return [
        successors(fn, i, over_calls=over_calls, any_return=any_return, index=index)
        for i in range(len(fn.blocks))
    ]


def predecessors(
    fn: Function, *, over_calls: bool = False, any_return: bool = False
) -> list[list[int]]:
    return invert(all_successors(fn, over_calls=over_calls, any_return=any_return))


def invert(succs: list[list[int]]) -> list[list[int]]:
    """The predecessor lists of a graph given by its successor lists, each in block order."""
    preds: list[list[int]] = [[] for _ in succs]
    for i, succ in enumerate(succs):
        for s in succ:
            preds[s].append(i)
    return preds
