"""openptxas's own cubins in the emulator: a handful of T1 kernels compiled by
``openptxas.driver.compile_ptx`` (PTX from nvcc, as tests/compiler/test_e2e.py gets it) run on
their launch specs with the hazard checker on, and must match the numpy references with no
hazard. The checker uses the latency table the compiler's control codes are built from
(openptxas.targets.latency), so a hazard here is a scheduling bug, not a table mismatch.

Kernels the compiler cannot compile yet are strict xfails with the reason: compiling one of them
makes the suite fail until it moves to the passing list.
"""

from __future__ import annotations

import functools

import pytest

from openptxas.driver import compile_ptx
from openptxas.emu.launch import launch
from openptxas.options import Options
from openptxas.testing.oracle import Oracle
from tests.conftest import need_tools
from tests.emu.harness import Case, check_case, corpus_cases

PASSING = (
    "t1/vec_add",
    "t1/compaction",
    "t1/compare_select",
    "t1/funnel_shift",
    "t1/hash_mix",
    "t1/scan_block",
    "t1/switch_dense",
    "t1/uniform_values",
    "t1/vote_ballot",
    "t1/atomics_global",
    "t1/atomic_float_exact",
    "t1/bit_intrinsics",
    "t1/matmul_tiled",
    "t1/reduce_tree",
)
# kernel -> why openptxas cannot compile it yet (the compiler's diagnostic); empty since every
# T1 kernel compiles (tests/compiler/test_e2e.py runs all of them in the emulator too)
NOT_YET: dict[str, str] = {}


@functools.cache
def _compiled(name: str) -> bytes:
    case = next(c for c in corpus_cases(("t1",)) if c.ks.name == name)
    ptx = Oracle().cu_to_ptx(case.ks.cu_path, "sm_90", case.ks.nvcc_flags)
    opts = Options(arch="sm_90", opt_level=3, verify=True)
    return compile_ptx(ptx, opts, case.ks.stem + ".ptx").cubin


def _params() -> list[object]:
    out: list[object] = []
    for c in corpus_cases(("t1",)):
        if c.ks.name in PASSING:
            out.append(pytest.param(c, id=c.id))
        elif c.ks.name in NOT_YET:
            mark = pytest.mark.xfail(reason=NOT_YET[c.ks.name], strict=True)
            out.append(pytest.param(c, id=c.id, marks=mark))
    return out


@pytest.mark.parametrize("case", _params())
def test_openptxas_cubin_matches_reference(case: Case) -> None:
    need_tools("nvcc")
    cubin = _compiled(case.ks.name)
    result = launch(cubin, case.spec, hazards=True, max_instructions=5_000_000)
    problems = [f"hazard: {h}" for h in result.hazards] + check_case(case, result)
    assert not problems, "\n".join(problems)
