"""Every instruction word ptxas emitted for the corpus and the probe programs (no tools needed).

scripts/isa_data/<family>_observed.tsv.gz holds each distinct word with nvdisasm 13.2.86's text
for it (scripts/isa_harvest.py), for each learned family (sm90: sm_90/sm_90a; sm80: sm_80/sm_86;
sm89: sm_89; sm75: sm_75; sm100: sm_100; sm120: sm_120). The family's table must decode every
word, print nvdisasm's text exactly, re-encode it bit for bit, and read its own exact text back
to the same bits.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path

import pytest

from openptxas.isa.asmparse import parse_instruction
from openptxas.isa.codec import decode_word, encode_instruction, form_of
from openptxas.isa.family import load_family
from openptxas.isa.model import Instruction
from openptxas.isa.printer import format_instruction

DATA = Path(__file__).resolve().parents[2] / "scripts" / "isa_data"
# learned from observed words (sm89: with sm80)
FAMILIES = ("sm90", "sm80", "sm89", "sm75", "sm100", "sm120")


@functools.cache
def _observed(family: str) -> list[tuple[int, str]]:
    out = []
    path = DATA / f"{family}_observed.tsv.gz"
    for line in gzip.decompress(path.read_bytes()).decode().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        w, _, text = line.split("\t")
        out.append((int(w, 16), text))
    return out


CHUNKS = 8


@pytest.mark.parametrize("family", FAMILIES)
def test_observed_set_is_large(family: str) -> None:
    assert len(_observed(family)) > 20000


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_decode_print_encode(family: str, chunk: int) -> None:
    fam = load_family(family)
    bad = []
    for word, text in _observed(family)[chunk::CHUNKS]:
        ins = decode_word(word, fam, 0)
        if not isinstance(ins, Instruction):
            bad.append(f"{word:032x} unknown ({text})")
            continue
        got = format_instruction(ins, fam, 0)
        if got != text:
            bad.append(f"{word:032x} prints {got!r}, nvdisasm {text!r}")
        if encode_instruction(ins, fam, 0) != word:
            bad.append(f"{word:032x} re-encodes differently ({text})")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_text_round_trip(family: str, chunk: int) -> None:
    """nvdisasm's text parses back to the same bits, except where nvdisasm's text loses bits
    (NaN payloads, loose bits: ptxas's silent reuse bit 125 on HMMA.SP/IMMA.SP); the exact text
    always does."""
    fam = load_family(family)
    bad = []
    for word, text in _observed(family)[chunk::CHUNKS]:
        ins = decode_word(word, fam, 0)
        assert isinstance(ins, Instruction)
        exact = format_instruction(ins, fam, 0, exact=True)
        if encode_instruction(parse_instruction(exact, fam, 0, control=ins.control), fam) != word:
            bad.append(f"{word:032x} exact text {exact!r} re-encodes differently")
        if "NAN" not in text:
            again = parse_instruction(text, fam, 0, control=ins.control)
            form = form_of(word, fam)
            lost = form.loose if form is not None else 0
            if (encode_instruction(again, fam, 0) ^ word) & ~lost:
                bad.append(f"{word:032x} text {text!r} re-encodes differently")
    assert not bad, "\n".join(bad[:20])
