"""Corpus cubins: our disassembly equals nvdisasm's listing (labels, BRX target lists and the
column layout included) for every instruction, and every instruction re-encodes bit for bit.

A representative slice keeps the test fast on a cold oracle cache: kernels chosen for listing
features (indirect branches, calls and their labels, several functions, printf, wgmma/TMA on
sm_90a) plus every fourth kernel of the corpus, for sm_90 (sm90 table) and sm_80 (sm80 table; the
feature kernels for sm_86, the same table, for sm_89, the sm89 table, and for sm_100 and sm_120,
the Blackwell tables).
``python scripts/isa_sweep.py`` runs the same check over every cubin (figures in docs/isa.md);
tests/isa/test_observed.py checks every distinct instruction word of the whole corpus without
tools.
"""

from __future__ import annotations

import pytest

from openptxas.testing.corpus import discover
from openptxas.testing.oracle import Oracle, OracleError
from openptxas.testing.sass_check import compare_cubin
from tests.conftest import need_tools

FEATURES = {
    "t1/switch_brx",  # BRX and its BRANCH_TARGETS list
    "t1/multi_kernel",  # several functions: label numbering across sections
    "t2/indirect_calls",
    "t2/recursion",
    "t2/printf",
    "t4/wgmma",
    "t4/tma_tensor",
    "t4/cluster",
}
_KERNELS = discover()
SLICE = [k for n, k in enumerate(_KERNELS) if k.name in FEATURES or n % 4 == 0]
BUILDS = [
    (k, t)
    for k in SLICE
    for t in ("sm_90", "sm_90a", "sm_80", "sm_86", "sm_89", "sm_100", "sm_120")
    if k.compiles_for(t)
    and (t in ("sm_90", "sm_80") or (t == "sm_90a" and k.tier == "t4") or k.name in FEATURES)
]


@pytest.mark.parametrize(("ks", "target"), BUILDS, ids=[f"{k.name}-{t}" for k, t in BUILDS])
def test_corpus_cubin(ks, target, oracle: Oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("nvcc", "ptxas", "nvdisasm")
    try:
        build = oracle.build_kernel(ks, target)
    except OracleError as exc:
        pytest.skip(f"the corpus kernel does not build: {exc}")
    res = compare_cubin(build.ptxas.cubin, build.sass_text)
    assert not res.problems, "\n".join(res.problems[:20])
    assert res.instructions == res.decoded == res.bit_exact == res.same_text > 0
