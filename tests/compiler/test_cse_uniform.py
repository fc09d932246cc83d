"""GvnCse on uniform values: a repeated shared-window address (UIADD3 of the shared base) is
replaced by a copy of the first, which must be a UMOV (MOV has no UR destination). Found on
cuda-samples mergeSort: "cannot encode 'MOV UR8, UR7'"."""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.emu import run_launch
from tests.conftest import need_tools, run_ours

PTX = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 a[1024];
  .shared .align 4 .b8 b[1024];
  ld.param.u64 %rd1, [o];
  ld.param.u32 %r9, [n];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r14, b;
  add.s32 %r15, %r14, %r2;
  st.shared.u32 [%r15], %r9;
  setp.lt.u32 %p1, %r1, %r9;
  @%p1 bra L1;
  mov.u32 %r3, b;
  add.s32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bra.uni L2;
L1:
  mov.u32 %r5, b;
  add.s32 %r6, %r5, %r2;
  add.s32 %r7, %r1, 100;
  st.shared.u32 [%r6], %r7;
L2:
  bar.sync 0;
  mov.u32 %r10, b;
  xor.b32 %r11, %r2, 4;
  add.s32 %r12, %r10, %r11;
  ld.shared.u32 %r13, [%r12];
  mul.wide.u32 %rd2, %r1, 4;
  cvta.to.global.u64 %rd3, %rd1;
  add.s64 %rd3, %rd3, %rd2;
  st.global.u32 [%rd3], %r13;
  ret;
}
"""
N = 64


def _spec(n: int) -> dict[str, object]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": N, "init": "zeros", "role": "out"},
            {"kind": "scalar", "dtype": "u32", "init": n},
        ],
    }


def _expected(n: int) -> list[int]:
    # every thread stores to b[tid] (tid+100 below n, else tid) and reads b[tid ^ 1]
    b = [t + 100 if t < n else t for t in range(N)]
    return [b[t ^ 1] for t in range(N)]


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("n", [0, 17, N])
def test_repeated_shared_address(opt: int, n: int, oracle) -> None:
    got = run_ours(PTX, _spec(n), opt).outputs[0]
    assert got.tolist() == _expected(n)
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(PTX, "sm_90").cubin, _spec(n)).outputs[0]
    assert np.array_equal(theirs, got)
