"""Differential harness: every corpus kernel, compiled by ptxas for sm_90 (sm_90a for T4), runs
in the emulator and must produce its numpy reference's output (tolerances only where the
kernel's spec documents an approximation) and its printf text; the hazard checker runs on every
launch and must find nothing in ptxas's own control codes.

The cubin is decoded by the ISA tables (openptxas.isa), as the package runs it. Every launch of
every tier must pass: an instruction the emulator does not implement fails the test, naming it
(none is skipped; known reference disagreements would be strict xfails with the reason, below).
Where the ISA tables cannot decode a word the kernel executes (a gap of the tables, not of the
emulator), the launch is re-run on nvdisasm's decoding of the same cubin as a cross-check, which
must pass, and the test is marked xfail naming the word.
"""

from __future__ import annotations

import pytest

from openptxas.emu.decode import UNDECODED
from openptxas.emu.errors import Unsupported
from tests.conftest import need_tools
from tests.emu.harness import Case, check_case, corpus_cases, run_case

CASES = list(corpus_cases())

# Launches whose reference disagrees with what the kernel computes, for a stated reason.
KNOWN_REFERENCE_ISSUES: dict[str, str] = {}

REMINE = (
    "if ptxas's code is right here (a new corpus kernel), re-mine the latency table: "
    "python scripts/hazards_mine.py"
)


def _check(case: Case, decoder: str) -> list[str]:
    result = run_case(case, decoder=decoder, hazards=True)
    problems = [f"hazard: {h}" for h in result.hazards]
    if problems:
        problems.append(REMINE)
    return problems + check_case(case, result)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_emulator_matches_reference(case: Case) -> None:
    need_tools("nvcc", "ptxas")
    gap = ""
    try:
        problems = _check(case, "isa")
    except Unsupported as exc:
        if exc.instruction != UNDECODED:
            raise
        gap = exc.message
        need_tools("nvdisasm")
        problems = _check(case, "text")
    if case.id in KNOWN_REFERENCE_ISSUES:
        if problems and not any(p.startswith("hazard: ") for p in problems):
            pytest.xfail(KNOWN_REFERENCE_ISSUES[case.id])
        raise AssertionError(f"{case.id} now matches its reference: update the known issues")
    assert not problems, "\n".join(problems)
    if gap:
        pytest.xfail(f"ISA tables: {gap} (the launch passes on nvdisasm's decoding)")
