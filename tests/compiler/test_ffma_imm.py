"""fma.rn.f32 with two immediate operands (curand's uniform-float conversion in the public
corpus): FFMA has no form with two, the addend goes to a register; the result equals ptxas's."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

PTX = """.version 8.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .f32 	%f<4>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.u32 	%r2, [%rd4];
	cvt.rn.f32.u32 	%f1, %r2;
	fma.rn.f32 	%f2, %f1, 0f2F800000, 0f2F000000;
	st.global.f32 	[%rd4], %f2;
	ret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_ffma_two_immediates(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [128, 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": 128, "init": "random", "seed": 5}],
    }
    want = run_launch(oracle.ptxas(PTX, "sm_90").cubin, spec).outputs[0]
    got = run_ours(PTX, spec, opt).outputs[0]
    assert np.array_equal(got, want)
