"""Where nvdisasm starts a BRX's target list: at the end of the cubin's longest instruction
line as nvdisasm measures it (address field plus text with its guard). Both cases were seen in
ptxas's cubins: rodinia's myocyte (a call at a five-digit address is the longest line, so every
BRX is padded one column more than the longest text) and t4/cluster (a guarded ATOM is the
longest line). scripts/isa_coverage.py --public checks the rule on all 871,056 instructions."""

from __future__ import annotations

import pytest

from openptxas.isa import listing
from openptxas.isa.listing import DecodedSection, listing_width, section_texts
from openptxas.targets import get_target


def _section(texts: list[str], monkeypatch: pytest.MonkeyPatch, brx_at: int) -> DecodedSection:
    monkeypatch.setattr(listing, "_plain_texts", lambda sec, fam, exact: list(texts))
    return DecodedSection(
        name=".text.k",
        items=tuple(object() for _ in texts),  # type: ignore[misc]
        labels={0x10: ".L_x_1", 0x20: ".L_x_2"},
        branch_targets={brx_at: (0x10, 0x20)},
    )


def _note_column(text: str) -> int:
    return text.index('(*"BRANCH_TARGETS')


def test_five_digit_address_widens(monkeypatch: pytest.MonkeyPatch) -> None:
    fam = get_target("sm_90").isa
    long = "CALL.REL.NOINC `($f) ;"
    texts = ["BRX R2 -0x10 ;"] + ["NOP ;"] * 0x1000 + [long]
    sec = _section(texts, monkeypatch, 0)
    width = listing_width([sec], fam)
    assert width == len("/*10010*/") + len(long)
    brx = section_texts(sec, fam, width=width)[0]
    # one column more than the longest text, because that text sits at a five-digit address
    assert _note_column(brx) == len(long) + 1


def test_guard_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    fam = get_target("sm_90").isa
    texts = ["BRX R2 -0x10 ;", "@P0 ATOM.E.ADD PT, RZ, [R4.64], R9 ;", "NOP ;"]
    sec = _section(texts, monkeypatch, 0)
    brx = section_texts(sec, fam)[0]
    assert _note_column(brx) == len(texts[1])
    # a guarded BRX: its guard is part of the measured text
    texts2 = ["NOP ;", "@!P1 BRX R2 -0x20 ;", "@P0 ATOM.E.ADD PT, RZ, [R4.64], R9 ;"]
    sec2 = _section(texts2, monkeypatch, 0x10)
    brx2 = section_texts(sec2, fam)[1]
    assert _note_column(brx2) == len(texts2[2])
