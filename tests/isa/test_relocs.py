"""Relocated immediates in listings, as nvdisasm 13.2.86 writes them (texts observed on ptxas
13.0's relocatable cubins of CUDA dynamic-parallelism code)."""

from __future__ import annotations

from openptxas.isa.asmparse import parse_instruction
from openptxas.isa.codec import encode_instruction
from openptxas.isa.family import load_family
from openptxas.isa.listing import CodeSection, Reloc, Symbol, disassemble, relocated_text

FAM = load_family("sm90")


def _code(*texts: str) -> bytes:
    return b"".join(
        encode_instruction(parse_instruction(t, FAM, 16 * n), FAM, 16 * n).to_bytes(16, "little")
        for n, t in enumerate(texts)
    )


def test_operand_text_is_replaced() -> None:
    assert relocated_text("MOV R20, 0x0 ;", "32@lo(f)") == "MOV R20, 32@lo(f) ;"
    assert relocated_text("CALL.ABS.NOINC 0x0 ;", "`(vprintf)") == "CALL.ABS.NOINC `(vprintf) ;"
    assert relocated_text("@P0 UMOV UR4, 0x0;", "32@hi($str)") == "@P0 UMOV UR4, 32@hi($str);"


def test_relocation_labels_come_before_branch_targets() -> None:
    code = _code(
        "BRA 0x30 ;",
        "MOV R20, 0x0 ;",
        "MOV R21, 0x0 ;",
        "EXIT ;",
        "NOP ;",
        "UMOV UR4, 0x0 ;",
    )
    relocs = [
        Reloc(0x10, 56, "f", 0x40, (0, 0x40)),
        Reloc(0x20, 57, "f", 0x40, (0, 0x40)),
        Reloc(0x50, 62, "g"),
    ]
    (sec,) = disassemble(
        [CodeSection("f", code)], [Symbol(0, 0, len(code), "f")], FAM, None, {"f": relocs}
    )
    assert sec.labels[0x40] == ".L_x_0"  # the relocation's target, numbered first
    assert sec.labels[0x30] == ".L_x_1"  # then the branch target
    assert sec.relocs == {
        0x10: "32@lo((f + .L_x_0@srel))",
        0x20: "32@hi((f + .L_x_0@srel))",
        0x50: "32@lo(fun@fdesc(g))",
    }
