"""isa.direct (the compiler's encoder) against the assembler, over random instructions of every
sm90 form, and its conversions of immediates."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings

from openptxas.diag import EncodingError
from openptxas.isa.asmparse import SassAsmError, parse_instruction
from openptxas.isa.codec import encode_instruction
from openptxas.isa.direct import Mismatch, encode_printed, float_in_field, wrap32
from openptxas.isa.family import load_family
from openptxas.isa.model import CBank, Imm, ImmKind, Instruction, Mem, Operand, Reg, RegFile
from openptxas.isa.printer import display_mods, find_form, format_instruction, printed_operands
from openptxas.isa.spec import NumSpec
from tests.isa.strategies import instructions

FAM = load_family("sm90")
SETTINGS = settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


def _plain(op: Operand) -> Operand:
    """The operand without reuse flags (the compiler sets none; nvdisasm hides them on yielding
    instructions)."""
    if isinstance(op, Reg) and op.reuse:
        return Reg(op.file, op.index, op.neg, op.abs, op.not_, op.sel)
    return op


def _hidden_zero_with_sel(ins: Instruction) -> bool:
    """An address part that is a zero register with a scale (RZ.X4): nvdisasm's text drops it
    (docs/isa.md, what the text loses), the values keep it."""
    for op in ins.operands:
        regs = (
            (op.base, op.ubase)
            if isinstance(op, Mem)
            else (op.reg,)
            if isinstance(op, CBank)
            else ()
        )
        if any(r is not None and r.is_zero and r.sel for r in regs):
            return True
    return False


@SETTINGS
@given(instructions(FAM))
def test_direct_is_the_assembler_on_values(wi: tuple[int, Instruction]) -> None:
    """The printed parts of an instruction, as values, encode to the word the assembler makes of
    its nvdisasm text."""
    ins = replace(wi[1], operands=tuple(map(_plain, wi[1].operands)))
    assume(not _hidden_zero_with_sel(ins))
    form = find_form(ins, FAM)
    text = format_instruction(ins, FAM, 0)
    try:
        want = encode_instruction(parse_instruction(text, FAM, 0, control=ins.control), FAM, 0)
    except (SassAsmError, EncodingError):
        assume(False)  # a text nvdisasm's syntax cannot say (INVALIDn tokens)
        raise
    printed = [ins.operands[i] for i in printed_operands(form, ins)]
    got = encode_printed(
        FAM, ins.opcode, display_mods(form, ins), printed, ins.guard, ins.control, 0
    )
    assert got.word == want, text


@pytest.mark.parametrize(
    ("value", "signed", "width", "want"),
    [
        (0xFFFFFFF9, True, 32, -7),  # IMAD's signed field: the pattern is -0x7
        (0x7FFFFFFF, True, 32, 0x7FFFFFFF),
        (-1, False, 32, 0xFFFFFFFF),  # a negative value in an unsigned 32-bit field
        (0xFFFFFFF0, True, 24, -16),
        (0x1000000, False, 24, 0x1000000),  # does not fit: left for the encoder to reject
    ],
)
def test_wrap32(value: int, signed: bool, width: int, want: int) -> None:
    assert wrap32(value, NumSpec(((0, width),), signed=signed)) == want


F32, F64, F16 = ImmKind.F32, ImmKind.F64, ImmKind.F16


@pytest.mark.parametrize(
    ("bits", "kind", "field", "shift", "want"),
    [
        (0x3FC00000, F32, F32, 0, 0x3FC00000),  # 1.5
        (0x3FC00000, F32, F64, 0, 0x3FF8000000000000),  # the same value in an f64 field
        (0x3FC00000, F32, F16, 0, 0x3E00),
        (0x80000000, F32, F64, 0, 1 << 63),  # -0.0
        (0x7F800000, F32, F16, 0, 0x7C00),  # +INF
        (0x7FC00001, F32, F32, 0, 0x7FFFFFFF),  # a quiet NaN: every mantissa bit the field has
        (0xFFC00000, F32, F32, 12, 0xFFFFF000),  # ... of a field without the 12 low bits
        (0x7F800001, F32, F32, 0, 0x7F800001),  # a signalling NaN: the lowest
    ],
)
def test_float_in_field(bits: int, kind: ImmKind, field: ImmKind, shift: int, want: int) -> None:
    num = NumSpec(((0, 32 - shift),), field, shift=shift)
    assert float_in_field(bits, kind, num) == want


@pytest.mark.parametrize(
    ("bits", "field", "says"),
    [
        (0x3DCCCCCD, F16, "not exactly representable as f16"),  # 0.1f
        (0x7F7FFFFF, F16, "does not fit a f16 field"),  # FLT_MAX
    ],
)
def test_float_in_field_refuses(bits: int, field: ImmKind, says: str) -> None:
    with pytest.raises(Mismatch, match=says):
        float_in_field(bits, F32, NumSpec(((0, 16),), field))


def test_imm_kinds_go_by_the_field() -> None:
    """An f32 immediate in an integer field is its bit pattern; an integer in a float field is
    refused with the reason."""
    mov = encode_printed(FAM, "MOV", (), [Reg(RegFile.R, 1), Imm(0x3F800000, F32)])
    assert mov.instruction.operands[1] == Imm(0x3F800000)
    with pytest.raises(EncodingError, match="0x1 where the form has a f32 immediate"):
        encode_printed(FAM, "FADD", (), [Reg(RegFile.R, 1), Reg(RegFile.R, 2), Imm(1)])
