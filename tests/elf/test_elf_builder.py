"""describe -> build reproduces ptxas's cubins (the property the compiler relies on).

``build(describe(cubin)) == cubin`` is required byte for byte on the cases the builder covers:
whole-program and ``-lineinfo`` output on sm_75..sm_90a without function pointers, texture
references or weak/common globals, and the simple ``-c`` cases. The full figures, with every
target and variant, come from ``python tests/elf/sweep.py`` (docs/elf.md lists what is missing).
"""

from __future__ import annotations

import pytest

from openptxas.elf.builder import build, build_model
from openptxas.elf.describe import describe
from openptxas.elf.description import Function, ModuleDescription, Param
from openptxas.elf.diff import diff_cubins
from openptxas.elf.reader import read_cubin
from openptxas.testing.oracle import OracleError
from tests.conftest import need_tools
from tests.elf.cases import all_cases

BUILDER_TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")

# Inputs whose cubins the builder must reproduce exactly on BUILDER_TARGETS, by variant.
COVERED: dict[str, tuple[str, ...]] = {
    "plain": (
        "kernels/t1/vec_add",
        "ptx/cluster.ptx",
        "ptx/cluster_dirs.ptx",
        "ptx/coop.ptx",
        "ptx/dynstack.ptx",
        "ptx/globals.ptx",
        "ptx/hopper.ptx",
        "ptx/mangled.ptx",
        "ptx/misc.ptx",
        "ptx/params.ptx",
        "ptx/shared.ptx",
        "ptx/spill.ptx",
        "ptx/tensor.ptx",
    ),
    "lineinfo": (
        "kernels/t1/vec_add",
        "ptx/globals.li.ptx",
        "ptx/misc.li.ptx",
        "ptx/shared.li.ptx",
        "ptx/spill.li.ptx",
    ),
    "c": ("kernels/t1/vec_add",),
}


def _variant(flags: tuple[str, ...], source: str) -> str:
    if "-g" in flags:
        return "g"
    if "-c" in flags:
        return "c" if "-lineinfo" not in flags and ".li." not in source else "lineinfo-c"
    return "lineinfo" if "-lineinfo" in flags or ".li." in source else "plain"


@pytest.mark.parametrize("target", BUILDER_TARGETS)
def test_describe_build_identity(oracle, target: str) -> None:
    need_tools("ptxas", "nvcc")
    failures: list[str] = []
    checked = 0
    for case in all_cases(oracle, (target,)):
        v = _variant(case.flags, case.source)
        if case.source not in COVERED.get(v, ()):
            continue
        try:
            blob = case.cubin(oracle)
        except OracleError as exc:
            pytest.fail(str(exc))
        if target not in ("sm_90a",) and case.source == "ptx/hopper.ptx" and target < "sm_90":
            continue
        checked += 1
        cubin = read_cubin(blob)
        got = build(describe(cubin))
        if got != blob:
            failures.append(f"{case.id}: {diff_cubins(cubin, read_cubin(got), 3)}")
    assert checked > 0
    assert not failures, "\n".join(failures[:5])


def test_builder_from_scratch() -> None:
    """A description a compiler would write (no cubin involved) builds a well-formed cubin."""
    code = bytes(256)
    desc = ModuleDescription(
        target="sm_90",
        ptx_target=90,
        relocatable=False,
        options="-v  -arch sm_90 ",
        functions=(
            Function(
                name="k",
                entry=True,
                code=code,
                registers=8,
                params=(Param(0, 8), Param(8, 4)),
                param_bytes=12,
                exit_offsets=(0x40,),
                min_stack=0,
            ),
        ),
    )
    cubin = build_model(desc)
    again = read_cubin(build(desc))
    assert diff_cubins(cubin, again) == []
    assert again.section(".text.k").data() == code
    assert [s.name for s in again.sections][-1] == ".nv.constant0.k"
    assert len(again.section(".nv.constant0.k").data()) == 0x210 + 12
