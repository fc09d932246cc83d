"""The IR text round trip on a sample (the whole set: ``scripts/ir_roundtrip.py``): for every
function of a sample of tests/kernels and difffuzz programs, at -O3 and -O0, after the lowering
and after every phase, print -> read gives the same Function and print -> read -> print the same
text; and each phase, run on the function read back from the text printed before it, prints the
same result as on the compiler's own objects (the text holds all a phase needs)."""

from __future__ import annotations

import dataclasses

import pytest

from openptxas.options import parse_args
from scripts.ir_roundtrip import fuzz_ptx, kernel_ptx, roundtrip_ptx
from tests.conftest import need_tools

# Loops, branches, a switch (jump table), shared memory, atomics, 64-bit and float arithmetic,
# warp shuffles, uniform values, .maxnreg / -maxrregcount flags.
KERNELS = [
    "t1/vec_add",
    "t1/loops_dynamic",
    "t1/switch_brx",
    "t1/shared_static",
    "t1/atomic_cas_loops",
    "t1/int64_arith",
    "t1/f32_fma_chain",
    "t1/divergent_if",
    "t1/warp_reduce",
    "t1/uniform_values",
    "t1/matmul_tiled",
]
FUZZ = range(2000, 2012)


def _check(name: str, ptx: str, flags: list[str], opt: int) -> int:
    options = parse_args([*flags, "-arch=sm_90", f"-O{opt}", "x.ptx"]).options
    out = roundtrip_ptx(ptx, name, dataclasses.replace(options, verify=True))
    assert not out.failures, "\n".join(out.failures)
    assert not out.skipped, f"the sample must compile: {out.skipped}"
    assert out.functions > 0 and out.replays > 0
    return out.checks


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_roundtrip(kernel: str, opt: int) -> None:
    need_tools("nvcc")
    ((name, ptx, flags),) = list(kernel_ptx([kernel]))
    _check(name, ptx, flags, opt)


@pytest.mark.parametrize("opt", [3, 0])
def test_fuzz_roundtrip(opt: int) -> None:
    checks = sum(_check(name, ptx, flags, opt) for name, ptx, flags in fuzz_ptx(FUZZ))
    assert checks >= len(FUZZ) * 5
