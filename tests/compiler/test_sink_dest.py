"""``_`` as a destination where ptxas accepts it: an atomic whose old value is discarded (a RED, or
ATOMG/ATOMS with RZ for cas/exch), setp's discarded predicate, shfl's discarded in-range flag
(``%r|_`` was an internal error: the sink became an R register where SHFL has a P)."""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.emu import run_launch
from tests.conftest import need_tools, run_ours

PTX = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 s[2];
  ld.param.u64 %rd1, [o];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra SKIP;
  st.shared.u32 [s], 7;
  st.shared.u32 [s+4], 0;
SKIP:
  bar.sync 0;
  atom.global.add.u32 _, [%rd1], %r1;
  atom.global.cas.b32 _, [%rd1+4], 0, 99;
  atom.shared.exch.b32 _, [s+4], 5;
  atom.global.max.s32 _, [%rd1+8], %r1;
  setp.eq.s32 _, %r1, 3;
  shfl.sync.idx.b32 %r2|_, %r1, 3, 31, -1;
  bar.sync 0;
  ld.shared.u32 %r3, [s];
  ld.shared.u32 %r4, [s+4];
  add.u32 %r5, %r3, %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3+16], %r2;
  @%p1 st.global.u32 [%rd1+12], %r5;
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
            {"kind": "buffer", "dtype": "u32", "count": 4 + N, "init": "zeros", "role": "out"}
        ],
    }


@pytest.mark.parametrize("opt", [3, 0])
def test_sink_destinations(opt: int, oracle) -> None:
    got = run_ours(PTX, _spec(), opt).outputs[0]
    assert got[:4].tolist() == [sum(range(N)), 99, N - 1, 12]
    assert got[4:].tolist() == [3] * N
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(PTX, "sm_90").cubin, _spec()).outputs[0]
    assert np.array_equal(theirs, got)
