"""f16/f16x2 constants as the immediates of HFMA2, HADD2, HMUL2, HSETP2 and HSET2 (the pair of
f16 halves ptxas writes, ``HFMA2 R7, R0, R7, 1, 0.5``): the SASS has no MOV of the constants
left and the values equal ptxas's on random halves, including negated, absolute, swizzled and
contracted uses."""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.driver import compile_ptx
from openptxas.options import Options
from openptxas.tools.sass_cli import disassemble_cubin, format_section, listing_width
from tests.conftest import need_tools, run_ours

PTX = """.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b16 %h<12>; .reg .b32 %r<16>; .reg .b64 %rd<6>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [in]; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r10, %tid.x; mul.wide.u32 %rd3, %r10, 8;
  add.s64 %rd4, %rd2, %rd3; add.s64 %rd5, %rd1, %rd3;
  ld.global.b32 %r1, [%rd4];
  ld.global.b16 %h1, [%rd4+4];
  mov.b32 %r2, 0x3c00b800;
  fma.rn.f16x2 %r3, %r1, %r2, %r1;
  mov.b16 %h2, 0xc100;
  fma.rn.f16 %h3, %h1, %h2, %h1;
  add.f16 %h4, %h3, %h2;
  neg.f16 %h5, %h2;
  mul.f16 %h6, %h4, %h5;
  abs.f16 %h7, %h2;
  sub.f16 %h8, %h6, %h7;
  setp.lt.f16 %p1, %h8, %h2;
  selp.b32 %r4, 1, 2, %p1;
  mul.f16x2 %r5, %r3, %r2;
  add.f16x2 %r6, %r5, %r2;
  fma.rn.f16x2 %r7, %r6, %r1, %r2;
  st.global.b32 [%rd5], %r7;
  st.global.b16 [%rd5+4], %h8;
  st.global.b8 [%rd5+6], %r4;
  ret;
}
"""


def test_no_constant_moves_left() -> None:
    r = compile_ptx(PTX, Options(arch="sm_90"), "k.ptx")
    fam, secs = disassemble_cubin(r.cubin)
    width = listing_width(secs, fam, False)
    text = [t for s in secs for t in format_section(s, fam, False, False, False, width)]
    h_ops = [t for t in text if any(f" {op} " in t for op in ("HFMA2", "HADD2", "HMUL2"))]
    assert h_ops and not any(" MOV " in t and "0x3c00b800" in t for t in text)
    assert any(", 1, -0.5" in t for t in h_ops), h_ops


@pytest.mark.parametrize("opt", [3, 0])
def test_values_equal_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    rng = np.random.default_rng(7)
    words = rng.integers(0, 1 << 16, size=2 * 64, dtype=np.uint32)
    # halves of moderate size (no overflow to inf everywhere): sign, exponent 8..20, mantissa
    halves = (words & 0x83FF) | (((words >> 10) % 13 + 8) << 10)
    data = halves.astype(np.uint16).view(np.uint32)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": 64, "init": {"hex": data.tobytes().hex()}},
        ],
    }
    want = run_launch(oracle.ptxas(PTX, "sm_90", [f"-O{opt}"]).cubin, spec).outputs[0]
    got = run_ours(PTX, spec, opt).outputs[0]
    assert np.array_equal(got, want)
