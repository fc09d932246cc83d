"""``-v`` of own kernels with local memory, calls, recursion, printf, struct parameters and
spills against ptxas's (issue 18): the text is the same line for line once the register counts
and the spill/frame figures are set aside (scripts/verbose_kernels.py prints them all, ours vs
ptxas's); the frames and cumulative stacks are ptxas's wherever neither side spills nor saves
for recursion (both lay out the same .local variables and parameters)."""

from __future__ import annotations

import pytest

from tests.conftest import need_tools


@pytest.mark.parametrize(
    "name",
    ["t2/local_array", "t2/noinline_calls", "t2/printf", "t2/recursion", "t2/spill_maxrreg"],
)
def test_verbose_text_as_ptxas(name: str, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from scripts.verbose_kernels import both, figures, shape

    ref, ours = both(name, 3, oracle)
    assert shape(ours) == shape(ref)
    fr, fo = figures(ref), figures(ours)
    assert list(fo) == list(fr)  # a block per function, in ptxas's order
    for fn, want in fr.items():
        got = fo[fn]
        if want.get("stores") or got.get("stores"):
            continue  # spills or recursion saves: our choice of what to keep in memory
        for key in ("frame", "stores", "loads", "cumulative"):
            assert got.get(key) == want.get(key), (fn, key)
