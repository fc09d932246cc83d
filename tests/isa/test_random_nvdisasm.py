"""Random encodings of every sm90 table row, printed by the table and by nvdisasm 13.2.86.

Every field of a row (modifiers, registers, immediates, addresses, the guard) and its loose bits
(those nvdisasm ignores) get random values; nvdisasm must print each word it accepts exactly as
the table prints it, and the table must re-encode the word bit for bit. A fixed seed and three
words per row keep it to one nvdisasm run (a few seconds); ``python scripts/isa_learn.py check``
is the full sweep (20 words per row, figures in docs/isa.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

from openptxas.isa.family import load_family
from tests.conftest import need_tools

REPO = Path(__file__).resolve().parents[2]
SAMPLES = 3
SEED = 15


def test_random_encodings_print_as_nvdisasm_prints_them() -> None:
    need_tools("nvdisasm")
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import isa_learn
    finally:
        sys.path.pop(0)
    fam = load_family("sm90")
    obs = isa_learn.load_observed("sm90")
    pr = isa_learn.Prober("SM90")
    bad: list[str] = []
    stats = isa_learn.random_check(pr, fam, fam.all_forms(), obs, SAMPLES, SEED, report=bad.append)
    accepted = sum(s[0] + s[1] for s in stats.values())
    # nvdisasm rejects some value combinations (the table is a superset there), not most
    assert accepted >= len(fam.all_forms()) * SAMPLES * 0.9
    assert not bad, "\n".join(bad[:20])
