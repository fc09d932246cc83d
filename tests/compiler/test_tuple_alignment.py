"""Register groups of eight and sixteen words start at a multiple of eight and sixteen.

Our ``DMMA.16x8x8 R12, R24, R16, R32`` (t3/matrix_sm90), its 8-word result at R12, stopped an
H200 with CUDA error 715 (an illegal instruction) under every control-code variant of
scripts/gpu_control_probe.py; ptxas places the groups as ``DMMA.16x8x8 R8, R8, R4, R16`` and
``DMMA.16x8x16 R8, R16, R32, R8``.
"""

from __future__ import annotations

from openptxas.driver import compile_ptx
from openptxas.isa.model import Instruction, Reg
from openptxas.options import parse_args
from openptxas.regalloc.fatpoint import tuple_alignment
from openptxas.testing.corpus import discover
from openptxas.tools.sass_cli import disassemble_cubin
from tests.conftest import need_tools

# words of each DMMA operand (D, A, B, C) by shape
_WORDS = {"8x8x4": (4, 2, 2, 4), "16x8x8": (8, 8, 4, 8), "16x8x16": (8, 16, 8, 8)}


def test_alignment_rule() -> None:
    assert [tuple_alignment(w) for w in (1, 2, 3, 4, 6, 8, 16, 32, 64)] == [
        1, 2, 4, 4, 4, 8, 16, 8, 8,
    ]  # fmt: skip


def test_dmma_groups_aligned(oracle) -> None:
    need_tools("nvcc")
    k = next(k for k in discover() if k.name == "t3/matrix_sm90")
    ptx = oracle.cu_to_ptx(k.cu_path, "sm_90", k.nvcc_flags, subject=k.name)
    opts = parse_args(["-arch=sm_90", *k.ptxas_flags, "in.ptx"]).options
    _, secs = disassemble_cubin(compile_ptx(ptx, opts, "in.ptx").cubin)
    seen = 0
    for s in secs:
        for i in s.items:
            if isinstance(i, Instruction) and i.opcode == "DMMA":
                regs = [o.index for o in i.operands if isinstance(o, Reg)][:4]
                for r, w in zip(regs, _WORDS[i.mods[0]], strict=True):
                    assert r % tuple_alignment(w) == 0, f"{i}: R{r} for {w} words"
                seen += 1
    assert seen == 2
