"""The SASS instruction set: one declarative description per SM family, and everything derived
from it (docs/isa.md).

Typical use::

    from openptxas import isa

    fam = isa.load_family("sm90")                       # the sm90 table (sm_90 and sm_90a)
    ins = isa.decode_word(word, fam, addr)              # Instruction, or Unknown
    text = isa.format_instruction(ins, fam, addr)       # nvdisasm's text, ' ;' included
    ins2 = isa.parse_instruction("IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;", fam)
    word = isa.encode_instruction(ins2, fam, addr)      # 128-bit int, low word in bits 0-63
    built = isa.Instruction("IADD3", (), (isa.R(1), isa.PT, isa.PT, isa.R(2), isa.imm(4), isa.RZ))

Everything here is pure Python with no dependencies; tables load lazily.
"""

from typing import TYPE_CHECKING, Any

from openptxas.isa.codec import decode_code, decode_word, encode, encode_instruction, form_of
from openptxas.isa.control import decode_control, encode_control, format_control, parse_control
from openptxas.isa.family import Family, load_family
from openptxas.isa.model import (
    PT,
    RZ,
    UP,
    UPT,
    UR,
    URZ,
    B,
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
    P,
    R,
    Reg,
    RegFile,
    SReg,
    Unknown,
    c,
    f16,
    f32,
    f64,
    imm,
)
from openptxas.isa.printer import find_form, form_template, format_instruction

if TYPE_CHECKING:
    from openptxas.isa.asmparse import SassAsmError, parse_instruction


def __getattr__(name: str) -> Any:
    # the assembler (nvdisasm text -> Instruction) loads on first use: the compiler encodes
    # without text and never imports it
    if name in ("SassAsmError", "parse_instruction"):
        from openptxas.isa import asmparse

        return getattr(asmparse, name)
    raise AttributeError(f"module 'openptxas.isa' has no attribute '{name}'")


__all__ = [
    "PT",
    "RZ",
    "UP",
    "UPT",
    "UR",
    "URZ",
    "B",
    "CBank",
    "Control",
    "Family",
    "GDesc",
    "Imm",
    "ImmKind",
    "Instruction",
    "Keyword",
    "Label",
    "Mem",
    "Operand",
    "P",
    "R",
    "Reg",
    "RegFile",
    "SReg",
    "SassAsmError",
    "Unknown",
    "c",
    "decode_code",
    "decode_control",
    "decode_word",
    "encode",
    "encode_control",
    "encode_instruction",
    "f16",
    "f32",
    "f64",
    "find_form",
    "form_of",
    "form_template",
    "format_control",
    "format_instruction",
    "imm",
    "load_family",
    "parse_control",
    "parse_instruction",
]
