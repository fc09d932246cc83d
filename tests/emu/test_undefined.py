"""Reads the PTX ISA leaves undefined are reported, not silently given a value: a shuffle whose
source lane does not execute it (outside ``membermask`` or inactive) returns whatever that lane's
register holds, which differs between two correct compilations, so a differential test that
compares such outputs must tell them apart from a miscompile (scripts/public_diff.py's
``DIFF-undef``; cuda-samples' reduce7 with blockSize 32 shuffles from lanes 16, 8, ... that
branched away)."""

from __future__ import annotations

import pytest

from tests.conftest import run_ours

PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 lim)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [lim];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, 0;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    mov.u32 %r5, 1;
    shl.b32 %r5, %r5, %r1;
    add.s32 %r5, %r5, -1;
    add.s32 %r6, %r2, 100;
    shfl.sync.down.b32 %r3, %r6, 16, 31, %r5;
DONE:
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r3;
    ret;
}
"""


def _spec(lim: int) -> dict[str, object]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 32, "init": "zeros"},
            {"kind": "scalar", "dtype": "u32", "init": lim},
        ],
    }


def test_shuffle_inside_the_executing_lanes_is_defined() -> None:
    """All 32 lanes shuffle down by 16: lanes 0-15 read lanes 16-31, lanes 16-31 are past the
    clamp and keep their own value. Nothing undefined."""
    got = run_ours(PTX, _spec(32))
    assert got.undefined == ()
    assert got.outputs[0].tolist() == [100 + (t + 16 if t < 16 else t) for t in range(32)]


@pytest.mark.parametrize("lim", [1, 16])
def test_shuffle_from_a_lane_not_executing_is_reported(lim: int) -> None:
    """Lanes 0..lim-1 execute the shuffle; lane 0 reads lane 16, which branched away."""
    got = run_ours(PTX, _spec(lim))
    assert len(got.undefined) == 1
    assert "SHFL: lane 0 reads lane 16, which is not executing it" in got.undefined[0]
