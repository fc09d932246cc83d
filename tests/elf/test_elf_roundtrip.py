"""read -> write is byte-identical for every cubin ptxas writes (corpus + tests/elf/ptx, every
target, plain / -c / -lineinfo / -g)."""

from __future__ import annotations

import pytest

from openptxas.elf.model import Blob
from openptxas.elf.reader import read_cubin
from openptxas.elf.writer import write_cubin
from openptxas.testing.oracle import OracleError
from tests.conftest import need_tools
from tests.elf.cases import TARGETS, all_cases


@pytest.mark.parametrize("target", TARGETS)
def test_rewrite_is_identity(oracle, target: str) -> None:
    need_tools("ptxas", "nvcc")
    bad: list[str] = []
    n = 0
    for case in all_cases(oracle, (target,)):
        try:
            blob = case.cubin(oracle)
        except OracleError as exc:
            pytest.fail(str(exc))
        n += 1
        if write_cubin(read_cubin(blob)) != blob:
            bad.append(case.id)
    assert n > 0
    assert not bad, f"{len(bad)} of {n} cubins differ after read -> write: {bad[:10]}"


@pytest.mark.parametrize("target", ["sm_75", "sm_90", "sm_100"])
def test_contents_are_typed(oracle, target: str) -> None:
    """Every section except code, constant banks and DWARF is decoded into typed contents."""
    need_tools("ptxas", "nvcc")
    untyped: set[str] = set()
    for case in all_cases(oracle, (target,)):
        cubin = read_cubin(case.cubin(oracle))
        for s in cubin.sections[1:]:
            if (
                isinstance(s.content, Blob)
                and s.type not in (1, 0x70000016)
                and not (
                    s.type in (0x70000064, 0x70000066, 0x70000067, 0x70000008)
                    or 0x70000079 <= s.type <= 0x70000084
                    or s.type == 0x7000000B
                )
            ):
                untyped.add(f"{s.name} ({s.type:#x})")
    assert not untyped, sorted(untyped)
