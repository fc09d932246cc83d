"""The SASS instruction model: decoder, encoder, printer, parser, emulator and compiler share it.

An :class:`Instruction` is a frozen value: opcode mnemonic, modifier tuple, guard predicate, typed
operands and control information. It knows nothing about bits; the per-SM tables in
``openptxas.isa.tables`` map it to and from 128-bit words (``openptxas.isa.codec``) and text
(``openptxas.isa.printer`` / ``openptxas.isa.asmparse``).

Conventions
-----------
* ``mods`` holds the dot-modifiers in nvdisasm's order, without the pure *alias* modifiers that
  nvdisasm derives from operand values (``IMAD.MOV``/``.IADD``/``.SHL``); the printer adds those.
* ``operands`` is the *full* operand list of the instruction's form in nvdisasm order, including
  operands nvdisasm leaves out when they hold their default (e.g. ``IADD3``'s carry-out ``PT``);
  the printer leaves those out, the parser puts them back. Positions are therefore stable per form.
* The zero registers are index 255 in every 32-bit file (``RZ``, ``URZ``) and index 7 in the
  predicate files (``PT``, ``UPT``), whatever the target encodes them as (URZ is 63 on sm_90).
* ``.reuse`` is a flag on the register operand it applies to (control bits 122-125 in the encoding).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, replace
from enum import StrEnum


class RegFile(StrEnum):
    R = "R"  # general registers R0-R254, RZ
    UR = "UR"  # uniform registers, URZ
    P = "P"  # predicates P0-P6, PT
    UP = "UP"  # uniform predicates UP0-UP6, UPT
    B = "B"  # convergence barriers B0-B15 (BSSY/BSYNC/BREAK)


ZERO_INDEX: dict[RegFile, int] = {RegFile.R: 255, RegFile.UR: 255, RegFile.P: 7, RegFile.UP: 7}
_ZERO_NAME: dict[RegFile, str] = {
    RegFile.R: "RZ",
    RegFile.UR: "URZ",
    RegFile.P: "PT",
    RegFile.UP: "UPT",
}
PRED_FILES = frozenset({RegFile.P, RegFile.UP})


@dataclass(frozen=True, slots=True)
class Reg:
    """A register operand with its operand modifiers.

    ``neg`` is ``-x``, ``abs`` is ``|x|``, ``not_`` is ``!P`` on predicates and ``~R`` (bitwise
    not) on registers, ``sel`` a selector suffix without the dot (``"H1"``, ``"B2"``, ``"64"``,
    ``"H1_H1"``, ...), ``reuse`` the operand-reuse flag. nvdisasm prints them in the order
    ``~-|R5|.reuse.H1``.
    """

    file: RegFile
    index: int
    neg: bool = False
    abs: bool = False
    not_: bool = False
    sel: str = ""
    reuse: bool = False

    @property
    def is_zero(self) -> bool:
        """RZ, URZ, PT or UPT."""
        return ZERO_INDEX.get(self.file) == self.index

    @property
    def name(self) -> str:
        """The register's name without operand modifiers (``R5``, ``URZ``, ``PT``)."""
        if self.is_zero:
            return _ZERO_NAME[self.file]
        return f"{self.file.value}{self.index}"

    def plain(self) -> Reg:
        """The same register without operand modifiers."""
        return Reg(self.file, self.index)

    def __str__(self) -> str:
        s = self.name
        if self.abs:
            s = f"|{s}|"
        if self.neg:
            s = "-" + s
        if self.not_:
            s = ("!" if self.file in PRED_FILES else "~") + s
        if self.reuse:
            s += ".reuse"
        if self.sel:
            s += "." + self.sel
        return s


class ImmKind(StrEnum):
    INT = "int"  # value is the integer as nvdisasm prints it (negative for signed fields)
    F32 = "f32"  # value is the IEEE binary32 bit pattern
    F64 = "f64"  # value is the IEEE binary64 bit pattern
    F16 = "f16"  # value is the IEEE binary16 bit pattern


@dataclass(frozen=True, slots=True)
class Imm:
    """An immediate. Floating-point immediates keep their exact bit pattern in ``value``."""

    value: int
    kind: ImmKind = ImmKind.INT

    def as_float(self) -> float:
        """The numeric value of a floating-point immediate (or the integer itself)."""
        if self.kind is ImmKind.F32:
            return float(struct.unpack("<f", struct.pack("<I", self.value & 0xFFFFFFFF))[0])
        if self.kind is ImmKind.F64:
            return float(struct.unpack("<d", struct.pack("<Q", self.value & (2**64 - 1)))[0])
        if self.kind is ImmKind.F16:
            return float(struct.unpack("<e", struct.pack("<H", self.value & 0xFFFF))[0])
        return float(self.value)

    def __str__(self) -> str:
        if self.kind is ImmKind.INT:
            return f"-{-self.value:#x}" if self.value < 0 else f"{self.value:#x}"
        return f"{self.as_float()!r}:{self.kind.value}"


@dataclass(frozen=True, slots=True)
class CBank:
    """A constant-bank reference ``c[bank][reg+offset]`` or ``cx[ubank][reg+offset]``, possibly
    negated, absolute or complemented (``-|c[0x0][0x10]|``, ``~c[0x0][0x10]``) where the form has
    those bits.

    ``reg`` is None for forms without a register index; forms with one carry ``RZ`` when the text
    shows only an offset. ``ubank`` is the uniform register of the bindless ``cx[...]`` form.
    """

    bank: int
    offset: int
    reg: Reg | None = None
    ubank: Reg | None = None
    neg: bool = False  # -c[0x0][0x10]: forms with a negation bit for the constant source
    abs: bool = False  # |c[0x0][0x10]|
    not_: bool = False  # ~c[0x0][0x10]: the bitwise complement (IADD3.X, IMAD.X)


@dataclass(frozen=True, slots=True)
class Mem:
    """A memory address ``desc[desc][base+ubase+offset]``.

    Components the form lacks are None; components the form has but the text leaves out are the
    zero register (``RZ``/``URZ``) or offset 0. ``base.sel`` carries ``"64"`` for ``R2.64``.
    """

    base: Reg | None = None
    ubase: Reg | None = None
    offset: int = 0
    desc: Reg | None = None


@dataclass(frozen=True, slots=True)
class Label:
    """A code address (branch/call target), absolute within the function's section.

    The encoder turns it into the PC-relative offset ``target - (addr + 16)``.
    """

    target: int


@dataclass(frozen=True, slots=True)
class SReg:
    """A special register, by nvdisasm's name (``SR_TID.X``, ``SR_CLOCKLO``, ``SRZ``)."""

    name: str


@dataclass(frozen=True, slots=True)
class GDesc:
    """A warpgroup MMA descriptor pair ``gdesc[UR4]`` (UR4..UR7 hold the A and B descriptors),
    with its transpose suffix (``"tnspB"``) if any."""

    reg: Reg
    sel: str = ""


@dataclass(frozen=True, slots=True)
class Keyword:
    """A keyword operand printed verbatim (``PR``, texture shapes such as ``2D``)."""

    name: str


Operand = Reg | Imm | CBank | Mem | Label | SReg | Keyword | GDesc


@dataclass(frozen=True, slots=True)
class Control:
    """The control field (bits 105-125 of every sm_70+ instruction, reuse flags aside).

    ``stall``: cycles to wait before issuing the next instruction (0-15).
    ``yield_``: the warp may yield after this instruction (bit 109 = 0; printed ``Y``).
    ``wr``/``rd``: the scoreboard (0-5) this instruction releases when its result is written /
    its sources are read, or None.
    ``wait``: mask of scoreboards (bit n = SBn) to wait for before issuing.

    The default, ``Control()``, is the control field of ptxas's padding NOPs (stall 0, may
    yield, no scoreboard): nvdisasm rejects stall 0 without the yield bit.
    """

    stall: int = 0
    yield_: bool = True
    wr: int | None = None
    rd: int | None = None
    wait: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.stall <= 15:
            raise ValueError(f"stall {self.stall} out of range 0-15")
        for sb in (self.wr, self.rd):
            if sb is not None and not 0 <= sb <= 6:
                raise ValueError(f"scoreboard {sb} out of range 0-6")
        if not 0 <= self.wait <= 0x3F:
            raise ValueError(f"wait mask {self.wait:#x} out of range")


PT = Reg(RegFile.P, 7)
UPT = Reg(RegFile.UP, 7)
RZ = Reg(RegFile.R, 255)
URZ = Reg(RegFile.UR, 255)


@dataclass(frozen=True, slots=True)
class Instruction:
    """One SASS instruction.

    ``guard`` is the guard predicate (``PT`` when unguarded; ``not_`` for ``@!P0``).
    ``xbits``: bits nvdisasm does not print (a form's *loose* bits, see
    :attr:`openptxas.isa.spec.Form.loose`) that differ from the value ptxas writes there, as an
    XOR mask over the 128-bit word; 0 for every instruction a compiler builds. They keep a
    decoded word's re-encoding bit-exact; the emulator ignores them.
    """

    opcode: str
    mods: tuple[str, ...] = ()
    operands: tuple[Operand, ...] = ()
    guard: Reg = PT
    control: Control = field(default_factory=Control)
    xbits: int = 0

    @property
    def mnemonic(self) -> str:
        """Opcode and modifiers joined by dots, without alias modifiers."""
        return ".".join((self.opcode, *self.mods))

    def has(self, *mods: str) -> bool:
        """Whether every one of ``mods`` is among the modifiers."""
        return all(m in self.mods for m in mods)

    def with_control(self, control: Control) -> Instruction:
        return replace(self, control=control)

    def regs(self) -> tuple[Reg, ...]:
        """Every register the operands name (memory and constant-bank components included)."""
        out: list[Reg] = []
        for op in self.operands:
            if isinstance(op, Reg):
                out.append(op)
            elif isinstance(op, Mem):
                out.extend(r for r in (op.desc, op.base, op.ubase) if r is not None)
            elif isinstance(op, CBank):
                out.extend(r for r in (op.ubank, op.reg) if r is not None)
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Unknown:
    """An encoding the tables do not describe, kept bit for bit."""

    word: int  # the 128-bit instruction word (low 64-bit word in bits 0-63)

    @property
    def words(self) -> tuple[int, int]:
        return self.word & (2**64 - 1), self.word >> 64


# ----------------------------------------------------------------------------------------------
# Constructors for compiler code: R(5), UR(4), P(0), imm(4), f32(1.5) ...


def R(index: int, **mods: bool | str) -> Reg:
    return Reg(RegFile.R, index, **mods)  # type: ignore[arg-type]


def UR(index: int, **mods: bool | str) -> Reg:
    return Reg(RegFile.UR, index, **mods)  # type: ignore[arg-type]


def P(index: int, **mods: bool | str) -> Reg:
    return Reg(RegFile.P, index, **mods)  # type: ignore[arg-type]


def UP(index: int, **mods: bool | str) -> Reg:
    return Reg(RegFile.UP, index, **mods)  # type: ignore[arg-type]


def B(index: int) -> Reg:
    return Reg(RegFile.B, index)


def imm(value: int) -> Imm:
    return Imm(value)


def f32(value: float) -> Imm:
    """An f32 immediate with the value's exact binary32 bit pattern."""
    return Imm(struct.unpack("<I", struct.pack("<f", value))[0], ImmKind.F32)


def f64(value: float) -> Imm:
    return Imm(struct.unpack("<Q", struct.pack("<d", value))[0], ImmKind.F64)


def f16(value: float) -> Imm:
    return Imm(struct.unpack("<H", struct.pack("<e", value))[0], ImmKind.F16)


def c(bank: int, offset: int, reg: Reg | None = None) -> CBank:
    return CBank(bank, offset, reg)


def is_nan_bits(imm_: Imm) -> bool:
    return imm_.kind is not ImmKind.INT and math.isnan(imm_.as_float())
