"""wgmma forms the Triton matmuls do not use: 8-bit float inputs (QGMMA, e4m3/e5m2, f32 and
f16 accumulators) and f16 accumulators (HGMMA.F16), against numpy.

The kernel copies a shared-memory image the test lays out from the PTX ISA's canonical K-major
layout without swizzle (8-row x 16-byte core matrices; LBO = the byte distance between the two
core matrices along K, SBO = the distance between groups of 8 rows), builds the two matrix
descriptors, issues one wgmma and stores each thread's accumulator fragment. Inputs are small
integers, so every sum is exact and the comparison is exact for both accumulator types.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from openptxas.emu.launch import launch
from tests.emu.floatref import decode
from tests.emu.harness import filled_decoder
from tests.emu.ptxrun import cubin, ptx_header

NDArray = np.ndarray[Any, Any]
LBO, SBO = 128, 256  # A: 8 row groups x 256 bytes; B (N = 8): one group


def kmajor_image(mat_bytes: NDArray) -> NDArray:
    """rows x 32 bytes (K-major) -> shared-memory bytes in the no-swizzle canonical layout."""
    rows = mat_bytes.shape[0]
    img = np.zeros(((rows + 7) // 8) * SBO, dtype=np.uint8)
    for r in range(rows):
        for kb in range(32):
            img[(r >> 3) * SBO + (kb >> 4) * LBO + (r & 7) * 16 + (kb & 15)] = mat_bytes[r, kb]
    return img


def _ptx(inst: str, nreg: int) -> str:
    trans = ", 0, 0" if ".f16.f16" in inst else ""  # imm-trans-a/b exist for 16-bit inputs
    regs = ", ".join(f"%d{i}" for i in range(nreg))
    zero = "\n".join(f"  mov.b32 %d{i}, 0;" for i in range(nreg))
    stores = "\n".join(f"  st.global.b32 [%o+{4 * i}], %d{i};" for i in range(nreg))
    return (
        ptx_header("sm_90a")
        + f""".visible .entry k(.param .u64 pimg, .param .u64 pout)
{{
  .reg .u64 %g, %o, %off, %da, %db, %t64;
  .reg .b32 %t, %s, %v<4>, {regs};
  .reg .u32 %sa;
  .reg .pred %p;
  .shared .align 128 .b8 img[2304];
  ld.param.u64 %g, [pimg];
  ld.param.u64 %o, [pout];
  cvta.to.global.u64 %g, %g;
  cvta.to.global.u64 %o, %o;
  mov.u32 %t, %tid.x;
  mov.u32 %sa, img;
  mul.wide.u32 %off, %t, 16;
  add.u64 %g, %g, %off;
  ld.global.v4.b32 {{%v0, %v1, %v2, %v3}}, [%g];
  shl.b32 %s, %t, 4;
  add.u32 %s, %s, %sa;
  st.shared.v4.b32 [%s], {{%v0, %v1, %v2, %v3}};
  setp.lt.u32 %p, %t, 16;
  @!%p bra COPIED;
  ld.global.v4.b32 {{%v0, %v1, %v2, %v3}}, [%g+2048];
  st.shared.v4.b32 [%s+2048], {{%v0, %v1, %v2, %v3}};
COPIED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  cvt.u64.u32 %t64, %sa;
  shr.u64 %t64, %t64, 4;
  and.b64 %t64, %t64, 0x3fff;
  or.b64 %da, %t64, {(LBO >> 4) << 16 | (SBO >> 4) << 32};
  add.u64 %db, %da, {2048 >> 4};
{zero}
  wgmma.fence.sync.aligned;
  {inst} {{{regs}}}, %da, %db, 0, 1, 1{trans};
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  mul.wide.u32 %off, %t, {4 * nreg};
  add.u64 %o, %o, %off;
{stores}
  ret;
}}
"""
    )


CASES = {
    "e4m3.e5m2.f32": ("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2", "e4m3", "e5m2", "f32"),
    "e5m2.e4m3.f16": ("wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e4m3", "e5m2", "e4m3", "f16"),
    "f16.f16.f16": ("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16", "f16", "f16", "f16"),
}


def _encode_small(vals: NDArray, fmt: str) -> NDArray:
    """Small integers -> bytes of the format (K-major rows of 32 bytes)."""
    if fmt == "f16":
        return vals.astype(np.float16).view(np.uint8).reshape(vals.shape[0], 32)
    table = {decode(fmt, c): c for c in range(256) if abs(decode(fmt, c)) <= 8}
    table[0.0] = 0
    return np.vectorize(lambda v: table[float(v)])(vals).astype(np.uint8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_wgmma_forms(name: str) -> None:
    inst, ta, tb, acc = CASES[name]
    k = 16 if ta == "f16" else 32
    rng = np.random.default_rng(21)
    a = rng.integers(-3, 4, size=(64, k)).astype(np.float64)
    b = rng.integers(-3, 4, size=(8, k)).astype(np.float64)  # B as N x K (K-major)
    img = np.concatenate([kmajor_image(_encode_small(a, ta)), kmajor_image(_encode_small(b, tb))])
    nreg = 4 if acc == "f32" else 2
    blob = cubin(_ptx(inst, nreg), "sm_90a")
    out = np.zeros(128 * nreg, dtype=np.uint32)
    spec = {
        "kernel": "k",
        "grid": [1],
        "block": [128],
        "args": [
            {"kind": "buffer", "dtype": "u8", "count": img.size},
            {"kind": "buffer", "dtype": "u32", "count": out.size, "role": "out"},
        ],
    }
    # filled: QGMMA is not in the ISA tables yet (nvdisasm's decoding for those words)
    res = launch(blob, spec, inputs={"arg0": img}, decoder=filled_decoder(blob))
    got = res.args[1].reshape(128, nreg)
    d = a @ b.T  # 64 x 8, exact
    for tid in range(128):
        w, lane = divmod(tid, 32)
        g, t = divmod(lane, 4)
        elems = [d[16 * w + g + 8 * (i >> 1), 2 * t + (i & 1)] for i in range(4)]
        if acc == "f32":
            want = [int(np.float32(e).view(np.uint32)) for e in elems]
        else:
            h = [int(np.float16(e).view(np.uint16)) for e in elems]
            want = [h[0] | h[1] << 16, h[2] | h[3] << 16]
        assert [int(v) for v in got[tid]] == want, (tid, elems)
