"""The SASS decoder the emulator uses: the ISA tables (:mod:`openptxas.isa`) over a kernel's
``.text`` words, converted to the emulator's instruction model (:mod:`openptxas.emu.model`, the
same shape).

The ISA decoder gives the *full* operand list of every form, operands that nvdisasm leaves out
included (``IADD3``'s carry-outs ``PT``, ``LDG``'s leading predicate destination ``PT``, ...); the
handlers take operands by kind and role, so both the full and the printed lists run the same way.

Words the tables do not describe become ``<undecoded>`` placeholders holding the raw word: they
only fault (naming the address and the word) if the kernel executes them.
"""

from __future__ import annotations

from collections.abc import Mapping

from openptxas.emu.errors import EmuLoadError
from openptxas.emu.model import (
    PT,
    CBank,
    Control,
    GDesc,
    Imm,
    ImmKind,
    Instruction,
    Keyword,
    Label,
    Mem,
    Operand,
    Reg,
    RegFile,
    SReg,
)
from openptxas.emu.program import Decoder
from openptxas.isa import codec
from openptxas.isa import model as im
from openptxas.isa.family import Family, load_family

UNDECODED = "<undecoded>"


def _reg(r: im.Reg) -> Reg:
    return Reg(RegFile(r.file.value), r.index, r.neg, r.abs, r.not_, r.sel, r.reuse)


def _opt(r: im.Reg | None) -> Reg | None:
    return None if r is None else _reg(r)


def convert_operand(o: object) -> Operand:
    if isinstance(o, im.Reg):
        return _reg(o)
    if isinstance(o, im.Imm):
        return Imm(o.value, ImmKind(o.kind.value))
    if isinstance(o, im.CBank):
        return CBank(o.bank, o.offset, _opt(o.reg), _opt(o.ubank), o.neg, o.abs, o.not_)
    if isinstance(o, im.Mem):
        return Mem(_opt(o.base), _opt(o.ubase), o.offset, _opt(o.desc))
    if isinstance(o, im.Label):
        return Label(o.target)
    if isinstance(o, im.SReg):
        return SReg(o.name)
    if isinstance(o, im.Keyword):
        # DEPBAR's scoreboard operand is a keyword to the ISA tables ("SB0".."SB5").
        if o.name.startswith("SB") and o.name[2:].isdigit():
            return Reg(RegFile.SB, int(o.name[2:]))
        return Keyword(o.name)
    gdesc = getattr(im, "GDesc", None)  # warpgroup MMA descriptors (newer ISA tables)
    if gdesc is not None and isinstance(o, gdesc):
        return GDesc(_reg(o.reg), str(o.sel))
    raise EmuLoadError(f"unknown operand type {type(o).__name__}")


def convert_instruction(ins: im.Instruction) -> Instruction:
    c = ins.control
    return Instruction(
        ins.opcode,
        ins.mods,
        tuple(convert_operand(o) for o in ins.operands),
        _reg(ins.guard) if ins.guard is not None else PT,
        Control(c.stall, c.yield_, c.wr, c.rd, c.wait),
    )


def decode_section(code: bytes, fam: Family) -> dict[int, Instruction]:
    """Every 16-byte word of ``code`` by its offset in the section."""
    out: dict[int, Instruction] = {}
    for i, item in enumerate(codec.decode_code(code, fam)):
        addr = 16 * i
        if isinstance(item, im.Unknown):
            out[addr] = Instruction(UNDECODED, (f"{item.word:032x}",))
        else:
            out[addr] = convert_instruction(item)
    return out


def isa_decoder(family: str) -> Decoder:
    """A decoder for ``family`` (``"sm90"``) built on :mod:`openptxas.isa`."""
    try:
        fam = load_family(family)
    except Exception as exc:  # the ISA package's own error types
        raise EmuLoadError(f"no SASS instruction table for {family}: {exc}") from None

    def decode(section: str, code: bytes) -> Mapping[int, Instruction]:
        return decode_section(code, fam)

    return decode
