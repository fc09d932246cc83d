"""OriLoopUnrolling (openptxas.passes.unroll): counted one-block loops become straight code.

Each case is a kernel with one loop (counter start, step, compare and bound varied; values
carried around the loop, read after it, addresses stepped, a guarded write in the body). Ours
at -O3 must equal ptxas's in the emulator (hazard checker on), and must have unrolled exactly
the loops the pass's rule accepts; at -O1, with ``.pragma "nounroll"``, or beyond the budget,
the loop stays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from openptxas.driver import compile_ptx
from openptxas.emu import run_launch
from openptxas.options import Options
from tests.conftest import need_tools, run_ours

TEMPLATE = """
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 x)
{{
  .reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [in]; cvta.to.global.u64 %rd2, %rd2;
  ld.param.u32 %r3, [x];
  mov.u32 %r10, %tid.x; mul.wide.u32 %rd3, %r10, 4; add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r11, 7; mov.u32 %r12, 0; mov.u32 %r16, 0;
  mov.u32 %r2, {start};
$L_loop:
  {pragma}
  ld.global.u32 %r13, [%rd4];
  xor.b32 %r11, %r11, %r13; shl.b32 %r14, %r11, 3; add.s32 %r11, %r14, %r2;
  setp.gt.u32 %p2, %r13, %r3;
  @%p2 add.s32 %r12, %r12, %r2;
  add.s64 %rd4, %rd4, 128;
  add.s32 %r2, %r2, {step};
  xor.b32 %r16, %r16, %r2; shl.b32 %r16, %r16, 1;
  setp.{cmp} %p1, %r2, {bound};
  @%p1 bra $L_loop;
  add.s64 %rd5, %rd1, %rd3;
  add.s32 %r15, %r11, %r2; add.s32 %r15, %r15, %r12; add.s32 %r15, %r15, %r16;
  st.global.u32 [%rd5], %r15;
  ret;
}}
"""

# (start, step, compare, bound, trips)
LOOPS = {
    "up_lt": (0, 1, "lt.s32", 8, 8),
    "up_ne": (3, 2, "ne.s32", 13, 5),
    "down_gt": (9, -3, "gt.s32", 0, 3),
    "down_ge_u": (5, -1, "ge.u32", 1, 5),
    "once": (0, 1, "lt.s32", 1, 1),
    "up_le": (-4, 1, "le.s32", 3, 8),
    "wrap_u": (0xFFFFFFFE, 1, "ne.u32", 3, 5),
    "big_step": (0, 100, "lt.u32", 1000, 10),
}


def _ptx(name: str, pragma: str = "") -> str:
    start, step, cmp, bound, _n = LOOPS[name]
    return TEMPLATE.format(start=start, step=step, cmp=cmp, bound=bound, pragma=pragma)


SPEC = {
    "kernel": "k",
    "grid": [1, 1, 1],
    "block": [32, 1, 1],
    "args": [
        {"kind": "buffer", "dtype": "u32", "count": 32, "init": "zeros"},
        {"kind": "buffer", "dtype": "u32", "count": 32 * 10 + 32, "init": "random", "seed": 9},
        {"kind": "scalar", "dtype": "u32", "init": 0x80000000},
    ],
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_counted_loop_unrolls_and_equals_ptxas(oracle: Any, name: str) -> None:
    need_tools("ptxas")
    ptx = _ptx(name)
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, SPEC)
    got = run_ours(ptx, SPEC)
    for k in want.outputs:
        assert np.array_equal(got.outputs[k], want.outputs[k]), k
    opts = Options(arch="sm_90", verify=True, dump_phases=("OriLoopUnrolling",))
    r = compile_ptx(ptx, opts, "k.ptx")
    unrolled = "\n".join(r.dumps)
    assert "BRA `($L_loop)" not in unrolled, name
    # -O1 keeps the loop and computes the same
    got1 = run_ours(ptx, SPEC, opt=1)
    for k in want.outputs:
        assert np.array_equal(got1.outputs[k], want.outputs[k]), k


def test_nounroll_and_budget_keep_the_loop() -> None:
    for ptx in (
        _ptx("up_lt", pragma='.pragma "nounroll";'),
        _ptx("up_lt").replace(".address_size 64", '.address_size 64\n.pragma "nounroll";'),
    ):
        opts = Options(arch="sm_90", verify=True, dump_phases=("OriLoopUnrolling",))
        r = compile_ptx(ptx, opts, "k.ptx")
        assert "BRA `($L_loop)" in "\n".join(r.dumps)
    # 200 iterations of an 8-instruction body: 200 * 8 * 8 > FULL_BUDGET
    big = _ptx("up_lt").replace("%r2, 8;", "%r2, 200;")
    r = compile_ptx(big, Options(arch="sm_90", dump_phases=("OriLoopUnrolling",)), "k.ptx")
    assert "BRA `($L_loop)" in "\n".join(r.dumps)


COUNTDOWN = """
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 x)
{
  .reg .pred %p<4>; .reg .b32 %r<24>; .reg .f32 %f<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [in]; cvta.to.global.u64 %rd2, %rd2;
  ld.param.u32 %r3, [x];
  mov.u32 %r10, %tid.x; mul.wide.u32 %rd3, %r10, 4; add.s64 %rd4, %rd2, %rd3;
  add.s32 %r4, %r10, %r3; and.b32 %r4, %r4, 15; shl.b32 %r4, %r4, 2; add.s32 %r4, %r4, 4;
  mov.f32 %f1, 0f00000000; mov.u32 %r12, 0;
$L_loop:
  ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd4+4];
  fma.rn.f32 %f1, %f1, 0f3F000000, %f2; add.f32 %f1, %f1, %f3;
  xor.b32 %r12, %r12, %r4;
  add.s64 %rd4, %rd4, 8;
  add.s32 %r4, %r4, -4;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra $L_loop;
  add.s64 %rd5, %rd1, %rd3; st.global.f32 [%rd5], %f1;
  add.s64 %rd6, %rd5, 128; st.global.u32 [%rd6], %r12;
  ret;
}
"""


def test_count_down_loop_unrolls_in_part_and_equals_ptxas(oracle: Any) -> None:
    """A loop counting down by 4 to 0 from a count each thread computes (1 to 16 iterations):
    a loop of four copies while 16 or more remain, the original loop for the rest; the values
    equal ptxas's whichever way each thread goes."""
    need_tools("ptxas")
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros"},
            {"kind": "buffer", "dtype": "f32", "count": 32 + 40, "init": "random", "seed": 4},
            {"kind": "scalar", "dtype": "u32", "init": 5},
        ],
    }
    want = run_launch(oracle.ptxas(COUNTDOWN, "sm_90").cubin, spec)
    for opt in (3, 1):
        got = run_ours(COUNTDOWN, spec, opt=opt)
        for k in want.outputs:
            assert np.array_equal(got.outputs[k], want.outputs[k]), (opt, k)
    opts = Options(arch="sm_90", verify=True, dump_phases=("OriLoopUnrolling",))
    dump = "\n".join(compile_ptx(COUNTDOWN, opts, "k.ptx").dumps)
    assert "$L_loop.umain:" in dump and dump.count("LDG.E") == 2 * 4 + 2
