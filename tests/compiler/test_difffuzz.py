"""The differential fuzzer (openptxas.testing.difffuzz) in CI: random well-defined PTX programs
compiled by openptxas (-O3 and -O0) and by ptxas, both run in the emulator, every output word
equal. The reduced programs of past findings stay here as regression tests, next to a fresh sample.
Long runs: ``python scripts/difffuzz.py --seeds 0:10000 --jobs 2 --out DIR``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from openptxas.testing.difffuzz import (
    Program,
    Stmt,
    check,
    check_ptx,
    generate,
    inputs_for,
    reduce_program,
)
from tests.conftest import need_tools

# Reduced programs of past findings (each file's first line says what was wrong), written by
# ``scripts/difffuzz.py --out`` with the interface of the generator of their day: ``words`` input
# and output words per thread.
REGRESSIONS = sorted((Path(__file__).parent / "data" / "difffuzz").glob("*.ptx"))
SAMPLE = range(1000, 1120)


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_regression(path: Path, oracle) -> None:
    need_tools("ptxas")
    text = path.read_text()
    m = re.search(r"^// words=(\d+)", text, re.M)
    assert m is not None, "a regression file names its words per thread"
    words = int(m.group(1))
    for seed in (1, 2, 3):
        r = check_ptx(text, inputs_for(seed, words), words, (3, 0), oracle)
        assert r.status == "ok", f"{text.splitlines()[0]}: {r.status}: {r.detail}"


@pytest.mark.parametrize("seed", SAMPLE)
def test_random_program(seed: int, oracle) -> None:
    need_tools("ptxas")
    r = check(generate(seed), (3,), oracle)
    assert r.status == "ok", f"seed {seed}: {r.status}: {r.detail}"


def test_reducer_keeps_the_failure_and_shrinks() -> None:
    prog = generate(11, size=20)
    marked = [s for s in prog.stmts if s.kind == "ins"][3]

    def has(stmts: list[Stmt]) -> bool:
        return any(s is marked or has(s.body) or has(s.other) for s in stmts)

    def failing(p: Program) -> bool:  # "fails" while the marked statement is still there
        return has(p.stmts)

    small = reduce_program(prog, failing)
    assert small.stmts == [marked]
    assert marked.lines[0] in small.ptx()
