"""The generated tables: up to date with their inputs, loadable, consistent; derived families."""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import pytest

from openptxas.diag import UsageError
from openptxas.isa.asmparse import parse_instruction
from openptxas.isa.codec import decode_word, encode_instruction
from openptxas.isa.family import load_family
from openptxas.isa.model import UR, URZ, Instruction, RegFile
from openptxas.isa.spec import CONTROL_BITS, bits_mask

REPO = Path(__file__).resolve().parents[2]


def test_table_digest_matches_its_inputs() -> None:
    """The table was generated from the committed learner, hints and observations
    (regenerate with ``python scripts/isa_learn.py learn``)."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import isa_learn
    finally:
        sys.path.pop(0)
    text = (REPO / "openptxas" / "isa" / "tables" / "sm90.py").read_text()
    m = re.search(r"# inputs-digest: ([0-9a-f]{64})", text)
    assert m, "the table has no inputs-digest line"
    assert m.group(1) == isa_learn.inputs_digest("sm90"), (
        "openptxas/isa/tables/sm90.py is out of date: run python scripts/isa_learn.py learn"
    )


def test_every_form_accounts_for_every_bit() -> None:
    fam = load_family("sm90")
    for form in fam.all_forms():
        assert form.value & ~form.mask == 0, form.name
        assert form.mask & CONTROL_BITS == 0, form.name
        fields = 0
        for mf in form.mods:
            m = bits_mask(mf.bits)
            assert fields & m == 0, f"{form.name}: modifier fields overlap"
            fields |= m
        assert form.mask & fields == 0, f"{form.name}: a modifier bit is also fixed"
        assert form.covered >> 126 == 0, f"{form.name}: bits 126-127 must stay zero"
        assert form.key == form.value & 0xFFF


def test_row_names_are_unique() -> None:
    fam = load_family("sm90")
    names = [r[0] for r in fam.rows]
    assert len(names) == len(set(names))


def test_unknown_family() -> None:
    with pytest.raises(UsageError):
        load_family("sm12345")


def test_derived_family_mechanism() -> None:
    """sm100 is sm90 plus its differences: URZ is register 255 there (not 63)."""
    sm90, sm100 = load_family("sm90"), load_family("sm100")
    assert sm100.reg_zero[RegFile.UR] == 255 and sm90.reg_zero[RegFile.UR] == 63
    ins = Instruction("UMOV", (), (URZ, UR(4)))
    w90 = encode_instruction(ins, sm90)
    w100 = encode_instruction(ins, sm100)
    assert w90 != w100
    assert decode_word(w100, sm100) == ins == decode_word(w90, sm90)
    # rows the derived family does not override are the base's
    assert {r[0] for r in sm100.rows} >= {"MOV_202_0"}
    move = parse_instruction("MOV R3, 0x5 ;", sm90)  # the hidden lane mask 0xf included
    assert len(move.operands) == 3
    assert encode_instruction(move, sm100) == encode_instruction(move, sm90)


def test_table_loads_cheaply() -> None:
    """Loading is importing literals and indexing keys; forms are built per opcode on use."""
    fam = load_family("sm90")
    assert len(fam.by_key) > 100
    digest = hashlib.sha256(repr(fam.rows[:3]).encode()).hexdigest()
    assert digest  # the rows are plain literals
