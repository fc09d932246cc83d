"""32-bit division and remainder by one divisor share its reciprocal within a block, as ptxas
computes one per divisor (lower/divide.py): four ``rem.u32 ..., %n`` of nvcc's unrolled loop
(t1/loops_dynamic) computed four, and LICM could hoist only the first within its register
allowance. A divisor written in between, or a predicated first division (its reciprocal only
computed where the predicate held), takes a reciprocal of its own. Each kernel runs against
ptxas's cubin in the emulator."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools

BODY = {
    # two remainders and a quotient by %r2, signed and unsigned: one reciprocal each
    "shared": (
        "rem.u32 %r5, %r1, %r2; add.u32 %r6, %r1, 77; rem.u32 %r7, %r6, %r2; "
        "div.u32 %r8, %r6, %r2; div.s32 %r9, %r1, %r2; rem.s32 %r10, %r6, %r2;",
        2,
    ),
    # %r2 changes between the two
    "redefined": ("rem.u32 %r5, %r1, %r2; add.u32 %r2, %r2, 3; rem.u32 %r7, %r1, %r2;", 2),
    # the first is predicated: its reciprocal is not there for the second
    "predicated": ("@%p1 rem.u32 %r5, %r1, %r2; rem.u32 %r7, %r1, %r2;", 2),
}

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 d)
{
  .reg .b32 %r<12>;
  .reg .pred %p<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [d];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mad.lo.u32 %r1, %r1, 2654435761, 12345;
  setp.lt.u32 %p1, %r1, 2000000000;
  mov.u32 %r5, 1; mov.u32 %r7, 2; mov.u32 %r8, 3; mov.u32 %r9, 4; mov.u32 %r10, 5;
  BODY
  mov.u32 %r11, %tid.x;
  mul.wide.u32 %rd2, %r11, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r5, %r7, %r8, %r9};
  st.global.v2.u32 [%rd3+16], {%r10, %r2};
  ret;
}
"""


@pytest.mark.parametrize("case", sorted(BODY))
@pytest.mark.parametrize("divisor", [7, 0xFFFFFFF9, 0])
def test_reciprocal_per_divisor(case: str, divisor: int, oracle: Any) -> None:
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.isa.model import Instruction
    from openptxas.options import Options
    from openptxas.tools.sass_cli import disassemble_cubin

    body, rcps = BODY[case]
    ptx = PTX.replace("BODY", body)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 64 * 8, "init": "zeros"},
            {"kind": "scalar", "dtype": "u32", "init": divisor},
        ],
    }
    ours = compile_ptx(ptx, Options(arch="sm_90", verify=True), "k.ptx")
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec)
    got = run_launch(ours.cubin, spec, hazards=True)
    assert not got.hazards
    assert np.array_equal(got.outputs[0], want.outputs[0])
    _, secs = disassemble_cubin(ours.cubin)
    ops = [i.mnemonic for s in secs for i in s.items if isinstance(i, Instruction)]
    assert sum(op == "MUFU.RCP" for op in ops) == rcps, ops
