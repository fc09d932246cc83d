"""Features openptxas does not compile yet are refused with a diagnostic (an OpenPtxasError
naming the construct), never with a traceback. Each case here once crashed the compiler on code
from outside the repository (scripts/e2e_sweep.py, the public-corpus compile sweep)."""

from __future__ import annotations

import pytest

from openptxas.diag import UnsupportedFeature
from openptxas.driver import compile_ptx
from openptxas.options import Options

HEAD = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .f32 x, .param .f32 y)
{
  .reg .b16 %h<4>; .reg .b32 %r<4>; .reg .f32 %f<4>; .reg .b64 %o;
  ld.param.u64 %o, [out]; cvta.to.global.u64 %o, %o;
  ld.param.f32 %f1, [x]; ld.param.f32 %f2, [y];
"""
TAIL = """  st.global.u32 [%o], %r1;
  ret;
}
"""

CASES = {
    # the two-source packing form of cvt (t3/fp8_convert, t4/triton_cast_fp8) crashed here; it
    # compiles now (openptxas/testing/fpmath_cases.py checks it against ptxas), and so does its
    # one-source neighbour cvt.rz.relu.f16.f32 (F2FP.RELU.F16.F32.MERGE_C.RZ). Multimem
    # reductions are not lowered:
    "multimem_ld_reduce": "  multimem.ld_reduce.relaxed.sys.global.add.f32 %f3, [%o];\n"
    "  mov.b32 %r1, %f3;\n",
}


@pytest.mark.parametrize("body", list(CASES.values()), ids=list(CASES))
def test_refused_with_a_diagnostic(body: str) -> None:
    with pytest.raises(UnsupportedFeature, match="not supported by openptxas yet"):
        compile_ptx(HEAD + body + TAIL, Options(arch="sm_90"), "k.ptx")
