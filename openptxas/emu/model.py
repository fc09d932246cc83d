"""The instruction model the emulator executes.

It has the same shape as :mod:`openptxas.isa.model` (the decoder's output): an
:class:`Instruction` is an opcode, its dot-modifiers, the full operand list of its form in
nvdisasm order, a guard predicate and the control field. Operands are registers (:class:`Reg`,
zero registers at index 255 for R/UR and 7 for P/UP), immediates (:class:`Imm`, floating-point
values as bit patterns), constant-bank references, memory addresses, code labels (absolute within
the function's section), special registers and keywords.

The emulator binds every instruction once to a handler (``openptxas.emu.bind``); only the fields
here are read, so instructions from the ISA decoder (``openptxas.emu.decode``) and hand-made ones
(tests) run the same way.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import StrEnum


class RegFile(StrEnum):
    R = "R"
    UR = "UR"
    P = "P"
    UP = "UP"
    B = "B"
    SB = "SB"


ZERO_INDEX: dict[RegFile, int] = {RegFile.R: 255, RegFile.UR: 255, RegFile.P: 7, RegFile.UP: 7}
PRED_FILES = frozenset({RegFile.P, RegFile.UP})


@dataclass(frozen=True, slots=True)
class Reg:
    file: RegFile
    index: int
    neg: bool = False
    abs: bool = False
    not_: bool = False
    sel: str = ""
    reuse: bool = False

    @property
    def is_zero(self) -> bool:
        return ZERO_INDEX.get(self.file) == self.index

    @property
    def is_pred(self) -> bool:
        return self.file in PRED_FILES

    def __str__(self) -> str:
        if self.is_zero:
            s = {RegFile.R: "RZ", RegFile.UR: "URZ", RegFile.P: "PT", RegFile.UP: "UPT"}[self.file]
        else:
            s = f"{self.file.value}{self.index}"
        s = _modified(s, self.neg, self.abs, self.not_, "!" if self.is_pred else "~")
        return s + "." + self.sel if self.sel else s


def _modified(s: str, neg: bool, absv: bool, notv: bool, not_sign: str = "~") -> str:
    """An operand's text with its source modifiers, as nvdisasm writes them."""
    if absv:
        s = f"|{s}|"
    if neg:
        s = "-" + s
    return not_sign + s if notv else s


class ImmKind(StrEnum):
    INT = "int"
    F32 = "f32"
    F64 = "f64"
    F16 = "f16"


@dataclass(frozen=True, slots=True)
class Imm:
    value: int
    kind: ImmKind = ImmKind.INT

    def __str__(self) -> str:
        if self.kind is ImmKind.INT:
            return f"-{-self.value:#x}" if self.value < 0 else f"{self.value:#x}"
        fmt = {ImmKind.F32: ("<I", "<f"), ImmKind.F64: ("<Q", "<d"), ImmKind.F16: ("<H", "<e")}
        a, b = fmt[self.kind]
        return repr(struct.unpack(b, struct.pack(a, self.value))[0])


@dataclass(frozen=True, slots=True)
class CBank:
    bank: int
    offset: int
    reg: Reg | None = None
    ubank: Reg | None = None
    # source modifiers, as a register's (sm_75-sm_89 read -c[..] and ~c[..] directly)
    neg: bool = False
    abs: bool = False
    not_: bool = False

    def __str__(self) -> str:
        if self.reg is not None and not self.reg.is_zero:
            s = f"c[{self.bank:#x}][{self.reg}+{self.offset:#x}]"
        else:
            s = f"c[{self.bank:#x}][{self.offset:#x}]"
        return _modified(s, self.neg, self.abs, self.not_)


@dataclass(frozen=True, slots=True)
class Mem:
    base: Reg | None = None
    ubase: Reg | None = None
    offset: int = 0
    desc: Reg | None = None

    def __str__(self) -> str:
        parts = [str(r) for r in (self.base, self.ubase) if r is not None and not r.is_zero]
        if self.offset or not parts:
            parts.append(f"{self.offset:#x}")
        inner = "[" + "+".join(parts) + "]"
        return f"desc[{self.desc}]{inner}" if self.desc is not None else inner


@dataclass(frozen=True, slots=True)
class Label:
    target: int

    def __str__(self) -> str:
        return f"{self.target:#x}"


@dataclass(frozen=True, slots=True)
class SReg:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class GDesc:
    """A warpgroup MMA descriptor pair ``gdesc[UR4]`` (UR4..UR7), with its transpose suffix."""

    reg: Reg
    sel: str = ""

    def __str__(self) -> str:
        return f"gdesc[{self.reg}]" + (f".{self.sel}" if self.sel else "")


@dataclass(frozen=True, slots=True)
class Keyword:
    name: str

    def __str__(self) -> str:
        return self.name


Operand = Reg | Imm | CBank | Mem | Label | SReg | Keyword | GDesc


@dataclass(frozen=True, slots=True)
class Control:
    """Control bits 105-121: stall cycles, yield, write/read scoreboard (None = none), wait mask."""

    stall: int = 0
    yield_: bool = False
    wr: int | None = None
    rd: int | None = None
    wait: int = 0

    def __str__(self) -> str:
        wait = "".join(str(i) if self.wait >> i & 1 else "-" for i in range(6))
        rd = "-" if self.rd is None else str(self.rd)
        wr = "-" if self.wr is None else str(self.wr)
        return f"[B{wait}:R{rd}:W{wr}:{'Y' if self.yield_ else '-'}:S{self.stall:02d}]"


PT = Reg(RegFile.P, 7)


@dataclass(frozen=True, slots=True)
class Instruction:
    opcode: str
    mods: tuple[str, ...] = ()
    operands: tuple[Operand, ...] = ()
    guard: Reg = PT
    control: Control = field(default_factory=Control)

    @property
    def mnemonic(self) -> str:
        return ".".join((self.opcode, *self.mods))

    def has(self, *mods: str) -> bool:
        return all(m in self.mods for m in mods)

    def __str__(self) -> str:
        g = "" if self.guard.is_zero and not self.guard.not_ else f"@{self.guard} "
        ops = ", ".join(t for t in (str(o) for o in self.operands) if t)
        return f"{g}{self.mnemonic} {ops}".rstrip()


def control_from_word(word: int) -> Control:
    """Decode the control field of a 128-bit instruction word (bits 105-121)."""
    c = word >> 105
    wr = (c >> 5) & 7
    rd = (c >> 8) & 7
    return Control(
        stall=c & 0xF,
        yield_=not (c >> 4) & 1,
        wr=None if wr == 7 else wr,
        rd=None if rd == 7 else rd,
        wait=(c >> 11) & 0x3F,
    )
