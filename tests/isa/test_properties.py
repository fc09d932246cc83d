"""Properties of the codec and the text form over random instructions of every sm90 form."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from openptxas.isa.asmparse import parse_instruction
from openptxas.isa.codec import decode_word, encode_instruction
from openptxas.isa.family import load_family
from openptxas.isa.model import Instruction
from openptxas.isa.printer import format_instruction
from tests.isa.strategies import instructions

FAM = load_family("sm90")
SETTINGS = settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


@SETTINGS
@given(instructions(FAM))
def test_decode_encode_is_identity(wi: tuple[int, Instruction]) -> None:
    word, ins = wi
    assert encode_instruction(ins, FAM, 0) == word
    assert decode_word(encode_instruction(ins, FAM, 0), FAM, 0) == ins


@SETTINGS
@given(instructions(FAM))
def test_exact_text_round_trip(wi: tuple[int, Instruction]) -> None:
    """encode(parse(print(i))) == encode(i): the exact text identifies the bits."""
    word, ins = wi
    text = format_instruction(ins, FAM, 0, exact=True)
    again = parse_instruction(text, FAM, 0, control=ins.control)
    assert encode_instruction(again, FAM, 0) == word, text


@SETTINGS
@given(instructions(FAM))
def test_nvdisasm_text_is_stable(wi: tuple[int, Instruction]) -> None:
    """nvdisasm's text parses back to an instruction that prints the same text."""
    _, ins = wi
    text = format_instruction(ins, FAM, 0)
    again = parse_instruction(text, FAM, 0, control=ins.control)
    assert format_instruction(again, FAM, 0) == text


def test_text_without_a_base_register_parses_to_the_form_that_prints_it() -> None:
    """``[0x1]`` matches a form without a base register and one with ``RZ`` and ``URZ``; the
    parser took the first, which prints ``[RZ.U32+URZ+0x1]`` (hypothesis, CI 2026-11-26)."""
    text = "@P0 STG.EF.U8 [0x1], R0;"
    assert format_instruction(parse_instruction(text, FAM, 0), FAM, 0) == text
