"""``info`` agrees with ``ptxas -v`` (registers, barriers, stack, shared memory, spills)."""

from __future__ import annotations

import pytest

from openptxas.elf.inspect import summarize
from openptxas.elf.reader import read_cubin
from openptxas.testing.oracle import OracleError
from tests.conftest import need_tools
from tests.elf.cases import TARGETS, all_cases


@pytest.mark.parametrize("target", TARGETS)
def test_info_matches_ptxas_v(oracle, target: str) -> None:
    need_tools("ptxas", "nvcc")
    mismatches: list[str] = []
    kernels = 0
    for case in all_cases(oracle, (target,)):
        try:
            res = case.result(oracle)
        except OracleError as exc:
            pytest.fail(str(exc))
        funcs = {f.name: f for f in summarize(read_cubin(res.cubin)).functions}
        for fs in res.functions:
            f = funcs.get(fs.name)
            if f is None or f.kind != "entry":
                continue
            kernels += 1
            cum = 0 if f.min_stack in (None, 0xFFFFFFFF) else f.min_stack
            got = (
                f.registers,
                f.barriers,
                f.stack_frame or 0,
                cum,
                f.shared,
                f.spill_stores,
                f.spill_loads,
            )
            want = (
                fs.registers,
                fs.barriers,
                fs.stack_frame,
                fs.cumulative_stack,
                fs.smem,
                fs.spill_stores,
                fs.spill_loads,
            )
            if got != want:
                mismatches.append(f"{case.id} {fs.name}: {got} != {want}")
    assert kernels > 0
    assert not mismatches, mismatches[:10]
