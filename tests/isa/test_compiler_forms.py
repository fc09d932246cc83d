"""Forms the compiler prints beyond the corpus (issue 4): each text parses, encodes, and
nvdisasm reads the word back as the same text; 32-bit immediates read in both spellings."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from openptxas.isa.asmparse import SassAsmError, parse_instruction
from openptxas.isa.codec import decode_word, encode_instruction
from openptxas.isa.family import load_family
from openptxas.isa.model import Control
from openptxas.isa.printer import format_instruction
from openptxas.testing.tools import find_tool
from tests.conftest import need_tools

FAM = load_family("sm90")
CTRL = Control(stall=1, yield_=False)  # a blank before ';' as nvdisasm prints it

# nvdisasm's text for each (the compiler prints these; most are derived forms)
TEXTS = [
    "FFMA R1, R2, UR4, R3 ;",
    "FFMA R1, R2, R3, UR4 ;",
    "FMUL R1, R2, UR4 ;",
    "FADD R1, R2, -UR4 ;",
    "FSETP.GT.AND P0, PT, R2, UR4, PT ;",
    "FMNMX R5, R2, UR6, !PT ;",
    "S2UR UR4, SR_CTAID.Y ;",
    "S2UR UR4, SR_CTAID.Z ;",
    "S2R R14, SR_VIRTUALSMID ;",
    "UIADD3.X UR7, UR7, -0x1, URZ, UP0, !UPT ;",
    "UIMAD UR4, UR5, UR6, URZ ;",
    "UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;",
    "ULOP3.LUT UR4, UR5, 0xff, URZ, 0xc0, !UPT ;",
    "SHFL.IDX PT, R2, R3, R4, R5 ;",
    "SHFL.DOWN PT, R2, R3, R4, 0x1f ;",
    "PRMT R1, R2, R3, R4 ;",
    "VIMNMX R1, R2, R3, PT ;",
    "VIMNMX.U32 R1, R2, 0x5, !PT ;",
    "LDG.E.128.CONSTANT R4, desc[UR4][R4.64] ;",
    "WARPSYNC.ALL ;",
    "BAR.SYNC.DEFER_BLOCKING R6 ;",
    "BAR.SYNC.DEFER_BLOCKING R6, R6 ;",
    "BAR.SYNC.DEFER_BLOCKING 0x1, R7 ;",
    "BAR.SYNC.DEFER_BLOCKING R0, 0x40 ;",
    "BMSK R3, R3, 0x1f ;",
    "UBREV UR4, UR5 ;",
    "USGXT UR4, UR5, 0x8 ;",
    "UPLOP3.LUT UP0, UPT, UP1, UP2, UPT, 0x80, 0x0 ;",
    "IMAD R2, R2, -0x7, R3 ;",
    "I2F.RM R0, R6 ;",
]


def _nvdisasm(words: list[int], tmp: Path) -> list[str]:
    need_tools("nvdisasm")
    tool = find_tool("nvdisasm")
    assert tool is not None
    f = tmp / "w.bin"
    f.write_bytes(b"".join(w.to_bytes(16, "little") for w in words))
    out = subprocess.run([tool, "-b", "SM90", str(f)], capture_output=True, text=True, check=True)
    return [ln.split("*/", 1)[1].strip() for ln in out.stdout.splitlines() if "/*" in ln]


def test_compiler_forms_encode_as_nvdisasm_reads_them(tmp_path: Path) -> None:
    words = [encode_instruction(parse_instruction(t, FAM, 0, control=CTRL), FAM, 0) for t in TEXTS]
    for w, t in zip(words, TEXTS, strict=True):
        assert format_instruction(decode_word(w, FAM, 0), FAM, 0) == t  # type: ignore[arg-type]
    got = _nvdisasm(words, tmp_path)
    assert got == TEXTS


@pytest.mark.parametrize(
    ("unsigned", "signed"),
    [
        ("IMAD R2, R2, 0xfffffff9, R3 ;", "IMAD R2, R2, -0x7, R3 ;"),
        ("IADD3 R10, R0, 0xffffffff, RZ ;", "IADD3 R10, R0, -0x1, RZ ;"),
        (
            "UIADD3.X UR7, UR7, 0xffffffff, URZ, UP0, !UPT ;",
            "UIADD3.X UR7, UR7, -0x1, URZ, UP0, !UPT ;",
        ),
        ("ISETP.GT.AND P0, PT, R2, 0xffffffff, PT ;", "ISETP.GT.AND P0, PT, R2, -0x1, PT ;"),
        ("LOP3.LUT R1, R2, 0xffffffff, RZ, 0xc0, !PT ;", "LOP3.LUT R1, R2, -0x1, RZ, 0xc0, !PT ;"),
    ],
)
def test_both_immediate_spellings(unsigned: str, signed: str) -> None:
    a = parse_instruction(unsigned, FAM, 0, control=CTRL)
    b = parse_instruction(signed, FAM, 0, control=CTRL)
    assert a == b  # the parser canonicalises to the field's own spelling
    assert encode_instruction(a, FAM, 0) == encode_instruction(b, FAM, 0)


@pytest.mark.parametrize(
    "text",
    [
        "BAR.SYNC.DEFER_BLOCKING R6, R7 ;",  # one register holds id and count: printed twice
        "I2FP.F32.S32.RM R2, R4 ;",  # no such rounding mode (ptxas: I2F.RM)
        "WARPSYNC 0x7 ;",  # no immediate form (ptxas: WARPSYNC.ALL or a register)
        "IMAD.WIDE.U32 R2, R2, 0x4, UR6 ;",  # one non-register source per instruction
    ],
)
def test_texts_nvdisasm_never_prints_are_rejected(text: str) -> None:
    with pytest.raises(SassAsmError):
        encode_instruction(parse_instruction(text, FAM, 0, control=CTRL), FAM, 0)
