"""wmma m16n16k8 tf32 rounds as ptxas's code: two HMMA.1684 per tile (k 0-3, then k 4-7 onto
that result), not one HMMA.1688 (one rounding). With one HMMA.1688, tf32TensorCoreGemm
(cuda-samples) computed 991 words an ulp away from ptxas's cubin on an H200."""

from __future__ import annotations

import numpy as np

from openptxas.emu import run_launch
from tests.conftest import need_tools, run_ours

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
  .reg .b32 %r<20>; .reg .f32 %f<20>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];
  wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r0, %r1, %r2, %r3}, [%rd1], 8;
  wmma.load.b.sync.aligned.col.m16n16k8.global.tf32 {%r4, %r5, %r6, %r7}, [%rd2], 8;
  wmma.load.c.sync.aligned.row.m16n16k8.global.f32
      {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd3], 16;
  wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32
      {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}, {%r0, %r1, %r2, %r3},
      {%r4, %r5, %r6, %r7}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};
  wmma.store.d.sync.aligned.row.m16n16k8.global.f32
      [%rd3], {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}, 16;
  ret;
}
"""


def _spec() -> dict[str, object]:
    def buf(n: int, role: str, seed: int) -> dict[str, object]:
        return {"kind": "buffer", "dtype": "float32", "count": n, "role": role,
                "init": "random", "seed": seed}  # fmt: skip

    return {"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
            "args": [buf(128, "in", 1), buf(128, "in", 2), buf(256, "inout", 3)]}  # fmt: skip


def test_wmma_tf32_rounds_per_k4_half(oracle) -> None:
    got = run_ours(PTX, _spec()).outputs[2]
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(PTX, "sm_90").cubin, _spec()).outputs[2]
    assert np.array_equal(got.view(np.uint32), theirs.view(np.uint32))
