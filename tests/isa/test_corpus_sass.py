"""Every sm_90/sm_90a cubin of the kernel corpus: our disassembly equals nvdisasm's listing
(labels included) for every instruction, and every instruction re-encodes bit for bit."""

from __future__ import annotations

import pytest

from openptxas.testing.corpus import discover
from openptxas.testing.oracle import Oracle, OracleError
from openptxas.testing.sass_check import compare_cubin
from tests.conftest import need_tools

BUILDS = [(k, t) for k in discover() for t in ("sm_90", "sm_90a") if k.compiles_for(t)]


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
