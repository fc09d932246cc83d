"""A .reg declared in a nested { } block shadows the outer register of the same name (it was
merged with it: a miscompile). Our cubin and ptxas's, run in the emulator, must store the same
values, which are also computed here from PTX's scoping rules."""

from __future__ import annotations

import numpy as np

from openptxas.driver import compile_ptx
from openptxas.emu import run_launch
from openptxas.options import Options
from tests.conftest import need_tools

PTX = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [o];
  mov.u32 %r1, 5;
  {
    .reg .b32 %r1;
    .reg .f32 %f<2>;
    mov.u32 %r1, 7;
    add.u32 %r2, %r1, 1;
    {
      .reg .f32 %r1;
      .reg .pred %p1;
      mov.f32 %r1, 0f40000000;
      setp.gt.f32 %p1, %r1, 0f3F800000;
      selp.u32 %r3, 100, 200, %p1;
    }
    st.global.u32 [%rd1+12], %r1;
  }
  {
    .reg .b32 %r1;
    mov.u32 %r1, 40;
    add.u32 %r3, %r3, %r1;
  }
  setp.eq.u32 %p1, %r1, 5;
  add.u32 %r2, %r2, %r1;
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd1+4], %r3;
  selp.u32 %r2, 1, 0, %p1;
  st.global.u32 [%rd1+8], %r2;
  ret;
}
"""
SPEC = {
    "kernel": "k",
    "grid": [1, 1, 1],
    "block": [1, 1, 1],
    "args": [{"kind": "buffer", "dtype": "u32", "count": 4, "init": "zeros"}],
}
# r2 = (7 + 1) + 5; r3 = 100 (2.0 > 1.0) + 40; the outer %r1 is still 5; the middle one is 7
EXPECTED = [13, 140, 1, 7]


def test_nested_reg_shadows_outer(oracle) -> None:
    for opt in (3, 0):
        ours = compile_ptx(PTX, Options(arch="sm_90", opt_level=opt, verify=True), "k.ptx").cubin
        r = run_launch(ours, SPEC, hazards=True)
        assert r.hazards == ()
        assert r.outputs[0].tolist() == EXPECTED, f"-O{opt}"
    need_tools("ptxas")
    r = run_launch(oracle.ptxas(PTX, "sm_90").cubin, SPEC)
    assert np.array_equal(r.outputs[0], EXPECTED)
