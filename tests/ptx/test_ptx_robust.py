"""The front end answers every input with diagnostics, never a traceback: the inputs the fuzzer
(scripts/ptx_fuzz.py) once broke it with, and a bounded hypothesis fuzz of the same mutations."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openptxas.diag import OpenPtxasError
from openptxas.ptx import diagnose, parse, print_module

ROOT = Path(__file__).resolve().parents[2]
FUZZ = sorted((Path(__file__).resolve().parent / "data" / "fuzz").glob("*.ptx"))
sys.path.insert(0, str(ROOT / "scripts"))
import ptx_fuzz  # noqa: E402

SEEDS = ptx_fuzz.corpus()
POOL = sorted({t for _, s in SEEDS for t in ptx_fuzz._TOKEN.findall(s)})
BY_CLASS: dict[str, list[str]] = {}
for _t in POOL:
    BY_CLASS.setdefault(ptx_fuzz._klass(_t), []).append(_t)


def _front_end(text: str) -> None:
    diagnose(text, "f.ptx")
    diagnose(text, "f.ptx", "sm_90")
    try:
        m = parse(text, "f.ptx")
    except OpenPtxasError:
        return
    assert parse(print_module(m), "f.ptx") == m


@pytest.mark.parametrize("path", FUZZ, ids=[p.name for p in FUZZ])
def test_fuzz_regressions(path):
    _front_end(path.read_text(errors="surrogateescape"))


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_mutations_never_raise(seed):
    rng = random.Random(seed)
    _, text = rng.choice(SEEDS)
    _, donor = rng.choice(SEEDS)
    _front_end(ptx_fuzz.mutate(ptx_fuzz.window(text, rng), POOL, BY_CLASS, donor, rng))
