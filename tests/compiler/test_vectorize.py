"""LateVectorization (passes/vectorize.py) against ptxas: t1/matmul_tiled's rows of the shared
tiles are read with LDS.128 (matmul_f32, fully unrolled) and LDS.64 (matmul_i32, unrolled by 4)
as ptxas reads them: the same count of shared loads of each width, and outputs equal to ptxas's
in the emulator with 0 hazards."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tests.conftest import need_tools


def _lds(cubin: bytes) -> collections.Counter[str]:
    from openptxas.isa.model import Instruction
    from openptxas.tools.sass_cli import disassemble_cubin

    _, secs = disassemble_cubin(cubin)
    code = [i for s in secs for i in s.items if isinstance(i, Instruction)]
    return collections.Counter(i.mnemonic for i in code if i.opcode == "LDS")


def test_tile_rows_as_ptxas(oracle: Any) -> None:
    need_tools("ptxas", "nvcc")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import parse_args
    from openptxas.testing.corpus import discover

    (k,) = [k for k in discover() if k.name == "t1/matmul_tiled"]
    ptx = oracle.cu_to_ptx(k.cu_path, "sm_90", k.nvcc_flags, subject=k.name)
    theirs = oracle.ptxas(ptx, "sm_90", list(k.ptxas_flags)).cubin
    ours = compile_ptx(ptx, parse_args(["-arch=sm_90", *k.ptxas_flags, "in.ptx"]).options, "in.ptx")
    assert _lds(ours.cubin) == _lds(theirs)
    assert _lds(ours.cubin)["LDS.128"] >= 4
    for spec in k.specs:
        want = run_launch(theirs, spec)
        got = run_launch(ours.cubin, spec, hazards=True)
        assert not got.hazards
        for w, g in zip(want.outputs, got.outputs, strict=True):
            assert np.array_equal(w, g)
