"""Every valid PTX we have parses and checks clean, prints back to an equal AST, and the printed
text is still valid for ptxas: the project's kernels compiled by nvcc 13.0 for all their targets,
the nvcc feature files (tests/ptx/data/nvcc) and the Triton kernels (tests/ptx/data/triton)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openptxas.diag import Severity
from openptxas.ptx import diagnose, parse, print_module
from openptxas.testing.corpus import discover
from tests.conftest import need_tools

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[2]
PTX_FILES = sorted(DATA.glob("triton/*.ptx")) + sorted(DATA.glob("nvcc/*.ptx"))
PTX_FILES += sorted((ROOT / "examples").glob("*.ptx"))
KERNELS = [(ks, t) for ks in discover() for t in ks.targets()]


def _errors(text: str, name: str) -> list[str]:
    return [
        d.render() for d in diagnose(text, name) if d.severity in (Severity.ERROR, Severity.FATAL)
    ]


def _roundtrip(text: str, name: str) -> str:
    m = parse(text, name)
    printed = print_module(m)
    assert parse(printed, name) == m
    assert not _errors(printed, name)
    return printed


def test_test_data_present():
    assert len(list(DATA.glob("triton/*.ptx"))) >= 5
    assert len(list(DATA.glob("nvcc/*.ptx"))) >= 5


@pytest.mark.parametrize("path", PTX_FILES, ids=[f"{p.parent.name}/{p.name}" for p in PTX_FILES])
def test_checks_clean_and_roundtrips(path):
    text = path.read_text()
    assert not _errors(text, path.name)
    _roundtrip(text, path.name)


@pytest.mark.parametrize("ks,target", KERNELS, ids=[f"{ks.name}@{t}" for ks, t in KERNELS])
def test_project_kernels(ks, target, oracle):
    need_tools("nvcc")
    ptx = oracle.cu_to_ptx(ks.cu_path, target, ks.nvcc_flags, subject=ks.name)
    assert not _errors(ptx, f"{ks.stem}.ptx")
    _roundtrip(ptx, f"{ks.stem}.ptx")


@pytest.mark.parametrize(
    "path",
    [DATA / "triton" / "matmul.sm_90a.ptx", DATA / "nvcc" / "memory.sm_90.G.ptx"],
    ids=["triton-matmul", "nvcc-debug"],
)
def test_printed_ptx_is_accepted_by_ptxas(path, oracle):
    need_tools("ptxas")
    printed = _roundtrip(path.read_text(), path.name)
    target = parse(printed).target
    assert target is not None
    oracle.ptxas(printed, target, subject=f"printed {path.name}")
