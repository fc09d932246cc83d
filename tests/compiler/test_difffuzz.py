"""The differential fuzzer (openptxas.testing.difffuzz) in CI: random well-defined PTX programs
compiled by openptxas (-O3 and -O0) and by ptxas, both run in the emulator, every output word
equal. Seeds that once found a miscompile stay here as regression tests, next to a fresh sample.
Long runs: ``python scripts/difffuzz.py --seeds 0:10000 --jobs 2 --out DIR``."""

from __future__ import annotations

import pytest

from openptxas.testing.difffuzz import Program, Stmt, check, generate, reduce_program
from tests.conftest import need_tools

# seed -> what it found (fixed since)
REGRESSIONS = {
    0: "abs.f32 of a NaN: LOP3 kept the payload, ptxas's FADD |x|, -RZ gives the canonical NaN",
    13: "neg/abs.f32 of a NaN (as seed 0)",
    7: "a predicated div.s32: the guard replaced the expansion's own @P correction guards",
    27: "mad.hi.u32 passed its addend as the low word of IMAD.HI's 64-bit C pair",
    32: "mad.hi (as seed 27)",
    42: "mad.hi (as seed 27)",
    45: "mad.hi (as seed 27)",
    53: "mad.hi (as seed 27)",
    56: "mad.hi: our code read the wrong register pair, reported as a hazard",
}
SAMPLE = range(1000, 1120)


@pytest.mark.parametrize("seed", sorted(REGRESSIONS))
def test_regression_seed(seed: int, oracle) -> None:
    need_tools("ptxas")
    r = check(generate(seed), (3, 0), oracle)
    assert r.status == "ok", f"{REGRESSIONS[seed]}: {r.status}: {r.detail}"


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
    assert [s for s in small.stmts] == [marked]
    assert marked.lines[0] in small.ptx()
