"""A uniform register is one per warp. A value kept in one across a divergent if must survive the
other side of the if, which the warp runs before, after or interleaved with it: the allocator
gave a commoned constant (3, an earlier loop's UMOV) and the other arm's constant (0x80000000,
an FFMA operand) the same UR6, and the lanes that took the else arm read 0x80000000 (fuzz seed
170028: a loop count, so the kernel never ended)."""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.emu import run_launch
from tests.conftest import need_tools, run_ours

PTX = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [inp];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  ld.global.u32 %r2, [%rd2];
  mad.lo.u32 %r3, %r2, %r1, 3;
  cvt.rn.f32.u32 %f1, %r1;
  setp.geu.f32 %p1, %f1, 16.0;
  @%p1 bra ELSE;
  fma.rp.f32 %f2, 0f80000000, %f1, %f1;
  cvt.rzi.u32.f32 %r4, %f2;
  add.u32 %r5, %r3, %r4;
  bra END;
ELSE:
  mov.u32 %r4, 3;
  add.u32 %r5, %r3, %r4;
END:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd1, %rd1, %rd3;
  st.global.u32 [%rd1], %r5;
  ret;
}
"""
N = 32


def _spec() -> dict[str, object]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": N, "init": "zeros", "role": "out"},
            {"kind": "buffer", "dtype": "u32", "count": N, "init": "arange"},
        ],
    }


@pytest.mark.parametrize("opt", [3, 0])
def test_uniform_value_survives_the_other_arm(opt: int, oracle) -> None:
    got = run_ours(PTX, _spec(), opt).outputs[0].tolist()
    want = [(t * t + 3 + (t if t < 16 else 3)) & 0xFFFFFFFF for t in range(N)]
    assert got == want
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(PTX, "sm_90").cubin, _spec()).outputs[0]
    assert np.array_equal(theirs, np.array(got, dtype=np.uint32))
