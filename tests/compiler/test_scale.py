"""Kernels of a size and shape real code reaches, beyond what the other tests build (issue 24):
they must compile (no pass may recurse once per block: Python's recursion limit is about a
thousand frames) and compute what ptxas's code computes. The timing side is
bench/compile_scale.py's, never asserted here."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bench.compile_scale import branches, loops
from tests.conftest import need_tools, run_ours


def _spec() -> dict[str, Any]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [1, 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": 80, "init": "random", "seed": 5}],
    }


@pytest.mark.parametrize(
    "build, n",
    [
        # 1,000 if/else diamonds in a row: a dominator tree 2,000 blocks deep (GvnCse walked
        # it recursively: "input too deeply nested"), one 6,000-instruction predicated block
        # after if-conversion (guarded writes chain every register in the scheduler's graph)
        (branches, 8000),
        # 800 loops in a row: as deep (the same failure), 800 divergent regions to give
        # convergence barriers to
        (loops, 8000),
    ],
    ids=["branches", "loops"],
)
def test_long_chains_of_blocks_compile_as_ptxas(build: Any, n: int, oracle: Any) -> None:
    need_tools("ptxas")
    from openptxas.emu import run_launch

    ptx = build(n)
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, _spec())
    got = run_ours(ptx, _spec())
    (k,) = sorted(want.outputs)
    assert np.array_equal(got.outputs[k], want.outputs[k])
