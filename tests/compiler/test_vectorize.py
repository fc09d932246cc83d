"""LateVectorization (passes/vectorize.py) against ptxas: t1/matmul_tiled's rows of the shared
tiles are read with LDS.128 (matmul_f32, fully unrolled) and LDS.64 (matmul_i32, unrolled by 4)
as ptxas reads them: the same count of shared loads of each width, and outputs equal to ptxas's
in the emulator with 0 hazards."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tests.conftest import need_tools


def _lds(cubin: bytes, ops: tuple[str, ...] = ("LDS",)) -> collections.Counter[str]:
    from openptxas.isa.model import Instruction
    from openptxas.tools.sass_cli import disassemble_cubin

    _, secs = disassemble_cubin(cubin)
    code = [i for s in secs for i in s.items if isinstance(i, Instruction)]
    return collections.Counter(i.mnemonic for i in code if i.opcode in ops)


def _kernel_as_ptxas(name: str, oracle: Any) -> tuple[bytes, bytes]:
    """(ours, ptxas's) cubins of an own kernel, after checking ours gives ptxas's outputs in
    the emulator with 0 hazards."""
    need_tools("ptxas", "nvcc")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import parse_args
    from openptxas.testing.corpus import discover

    (k,) = [k for k in discover() if k.name == name]
    ptx = oracle.cu_to_ptx(k.cu_path, "sm_90", k.nvcc_flags, subject=k.name)
    theirs = oracle.ptxas(ptx, "sm_90", list(k.ptxas_flags)).cubin
    ours = compile_ptx(ptx, parse_args(["-arch=sm_90", *k.ptxas_flags, "in.ptx"]).options, "in.ptx")
    for spec in k.specs:
        want = run_launch(theirs, spec)
        got = run_launch(ours.cubin, spec, hazards=True)
        assert not got.hazards
        for w, g in zip(want.outputs, got.outputs, strict=True):
            assert np.array_equal(w, g)
    return ours.cubin, theirs


def test_tile_rows_as_ptxas(oracle: Any) -> None:
    ours, theirs = _kernel_as_ptxas("t1/matmul_tiled", oracle)
    assert _lds(ours) == _lds(theirs)
    assert _lds(ours)["LDS.128"] >= 4


def test_constant_rows_as_ptxas(oracle: Any) -> None:
    """t1/const_mem's matrix words are read in pairs (ptxas: ULDC.64 UR20, c[0x3][0x110]):
    as many 64-bit constant loads as ptxas's, and no more constant loads in all."""
    ours, theirs = _kernel_as_ptxas("t1/const_mem", oracle)
    mine, its = _lds(ours, ("LDC", "ULDC")), _lds(theirs, ("LDC", "ULDC"))
    wide = ("LDC.64", "ULDC.64")
    assert sum(mine[m] for m in wide) >= sum(its[m] for m in wide) > 4
    assert sum(mine.values()) <= sum(its.values())
