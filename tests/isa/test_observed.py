"""Every instruction word ptxas emitted for the corpus and the probe programs (no tools needed).

scripts/isa_data/sm90_observed.tsv.gz holds each distinct word with nvdisasm 13.2.86's text for
it (scripts/isa_harvest.py). The table must decode every word, print nvdisasm's text exactly,
re-encode it bit for bit, and read its own exact text back to the same bits.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from openptxas.isa.asmparse import parse_instruction
from openptxas.isa.codec import decode_word, encode_instruction, form_of
from openptxas.isa.family import load_family
from openptxas.isa.model import Instruction
from openptxas.isa.printer import format_instruction

DATA = Path(__file__).resolve().parents[2] / "scripts" / "isa_data" / "sm90_observed.tsv.gz"
FAM = load_family("sm90")


def _observed() -> list[tuple[int, str]]:
    out = []
    for line in gzip.decompress(DATA.read_bytes()).decode().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        w, _, text = line.split("\t")
        out.append((int(w, 16), text))
    return out


OBSERVED = _observed()
CHUNKS = 8


def test_observed_set_is_large() -> None:
    assert len(OBSERVED) > 20000


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_decode_print_encode(chunk: int) -> None:
    bad = []
    for word, text in OBSERVED[chunk::CHUNKS]:
        ins = decode_word(word, FAM, 0)
        if not isinstance(ins, Instruction):
            bad.append(f"{word:032x} unknown ({text})")
            continue
        got = format_instruction(ins, FAM, 0)
        if got != text:
            bad.append(f"{word:032x} prints {got!r}, nvdisasm {text!r}")
        if encode_instruction(ins, FAM, 0) != word:
            bad.append(f"{word:032x} re-encodes differently ({text})")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_text_round_trip(chunk: int) -> None:
    """nvdisasm's text parses back to the same bits, except where nvdisasm's text loses bits
    (NaN payloads, loose bits: ptxas's silent reuse bit 125 on HMMA.SP/IMMA.SP); the exact text
    always does."""
    bad = []
    for word, text in OBSERVED[chunk::CHUNKS]:
        ins = decode_word(word, FAM, 0)
        assert isinstance(ins, Instruction)
        exact = format_instruction(ins, FAM, 0, exact=True)
        if encode_instruction(parse_instruction(exact, FAM, 0, control=ins.control), FAM) != word:
            bad.append(f"{word:032x} exact text {exact!r} re-encodes differently")
        if "NAN" not in text:
            again = parse_instruction(text, FAM, 0, control=ins.control)
            form = form_of(word, FAM)
            lost = form.loose if form is not None else 0
            if (encode_instruction(again, FAM, 0) ^ word) & ~lost:
                bad.append(f"{word:032x} text {text!r} re-encodes differently")
    assert not bad, "\n".join(bad[:20])
