"""The SASS decoder the emulator uses: the ISA tables (:mod:`openptxas.isa`), converted to the
emulator's instruction model (:mod:`openptxas.emu.model`, the same shape).

Words the tables do not describe become :class:`Undecoded` placeholders: they only fault if the
kernel executes them (then naming the address and the raw word).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from openptxas.emu.errors import EmuLoadError
from openptxas.emu.model import (
    PT,
    CBank,
    Control,
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

UNDECODED = "<undecoded>"


def _reg(r: Any) -> Reg | None:
    if r is None:
        return None
    return Reg(
        RegFile(str(r.file.value if hasattr(r.file, "value") else r.file)),
        int(r.index),
        bool(r.neg),
        bool(r.abs),
        bool(r.not_),
        str(r.sel),
        bool(r.reuse),
    )


def convert_operand(o: Any) -> Operand:
    name = type(o).__name__
    if name == "Reg":
        r = _reg(o)
        assert r is not None
        return r
    if name == "Imm":
        kind = o.kind.value if hasattr(o.kind, "value") else str(o.kind)
        return Imm(int(o.value), ImmKind(kind))
    if name == "CBank":
        return CBank(int(o.bank), int(o.offset), _reg(o.reg), _reg(o.ubank))
    if name == "Mem":
        return Mem(_reg(o.base), _reg(o.ubase), int(o.offset), _reg(o.desc))
    if name == "Label":
        return Label(int(o.target))
    if name == "SReg":
        return SReg(str(o.name))
    if name == "Keyword":
        return Keyword(str(o.name))
    raise EmuLoadError(f"unknown operand type {name}")


def convert_instruction(ins: Any) -> Instruction:
    c = ins.control
    guard = _reg(ins.guard) or PT
    return Instruction(
        str(ins.opcode),
        tuple(str(m) for m in ins.mods),
        tuple(convert_operand(o) for o in ins.operands),
        guard,
        Control(int(c.stall), bool(c.yield_), c.wr, c.rd, int(c.wait)),
    )


def isa_decoder(family: str) -> Decoder:
    """A decoder for ``family`` (``"sm90"``) built on :mod:`openptxas.isa`."""
    try:
        codec = importlib.import_module("openptxas.isa.codec")
        fam_mod = importlib.import_module("openptxas.isa.family")
    except ImportError:
        raise EmuLoadError(
            "the SASS decoder (openptxas.isa.codec) is not available in this installation"
        ) from None
    try:
        fam = fam_mod.load_family(family)
    except Exception as exc:  # the ISA package's own error type
        raise EmuLoadError(f"no SASS instruction table for {family}: {exc}") from None

    def decode(section: str, code: bytes) -> Mapping[int, Instruction]:
        out: dict[int, Instruction] = {}
        for i, item in enumerate(codec.decode_code(code, fam)):
            addr = 16 * i
            if type(item).__name__ == "Unknown":
                word = int(item.word)
                out[addr] = Instruction(UNDECODED, (f"{word:032x}",))
            else:
                out[addr] = convert_instruction(item)
        return out

    return decode
