"""Shared fixtures: the kernel corpus and the oracle harness (NVIDIA tools as test oracles)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from openptxas.testing.corpus import KernelSource, discover
from openptxas.testing.oracle import Oracle
from openptxas.testing.tools import find_tool

# Every ptxas/nvdisasm result is cached under .cache/oracle (or $OPENPTXAS_ORACLE_CACHE).
os.environ.setdefault("OPENPTXAS_VERIFY", "1")


def need_tools(*names: str) -> None:
    """Skip the calling test, with a clear reason, when an oracle tool is absent."""
    missing = [n for n in names if find_tool(n) is None]
    if missing:
        pytest.skip(
            f"oracle tool(s) not found: {', '.join(missing)} "
            "(the README's test command installs them)"
        )


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    return Oracle()


@pytest.fixture(scope="session")
def corpus() -> list[KernelSource]:
    return discover()


def run_ours(ptx: str, spec: object, opt: int = 3, arch: str = "sm_90") -> Any:
    """openptxas's cubin of ``ptx`` (``arch``, ``-O<opt>``, IR verifier on) run in the emulator
    on the launch ``spec`` with the hazard checker (the target's latency model): the
    LaunchResult, asserted free of hazards."""
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    cubin = compile_ptx(ptx, Options(arch=arch, opt_level=opt, verify=True), "k.ptx").cubin
    result = run_launch(cubin, spec, hazards=True)
    assert not result.hazards, "\n".join(str(h) for h in result.hazards[:5])
    return result
