"""InsertConvergenceBarriers (passes/convergence.py) on loops: every thread that executes a BSSY
must reach its BSYNC (or exit), else the warp waits forever (in the emulator a deadlock, on
hardware a hang). Each kernel runs with ptxas's cubin and ours in the emulator: equal outputs, no
deadlock, 0 hazards."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools

# Inside a divergent outer loop, a branch that skips a loop whose exit test diverges, and code
# between the loop's exit and the join: the loop's barrier was hoisted to the block that also
# branches past the loop, so the threads skipping it were members of a barrier they never
# reach (found on llm.c's attention_backward, softmax_autoregressive_backward_kernel5, by
# scripts/public_diff.py).
SKIPPED_LOOP = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<12>;
  .reg .pred %p<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r5, %tid.x;
  mov.u32 %r3, 0;
  and.b32 %r6, %r5, 3;
OUTER:
  mov.u32 %r2, %r5;
  setp.gt.s32 %p1, %r2, %r1;
  @%p1 bra SKIP;
LOOP:
  add.s32 %r3, %r3, %r2;
  add.s32 %r2, %r2, 7;
  setp.le.s32 %p2, %r2, %r1;
  @%p2 bra LOOP;
  mul.lo.s32 %r3, %r3, 3;
SKIP:
  add.s32 %r3, %r3, 1;
  sub.s32 %r6, %r6, 1;
  setp.ge.s32 %p3, %r6, 0;
  @%p3 bra OUTER;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_loop_skipped_by_some_threads(opt: int, oracle: Any) -> None:
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros"},
            {"kind": "scalar", "dtype": "u32", "init": 40},
        ],
    }
    want = run_launch(oracle.ptxas(SKIPPED_LOOP, "sm_90").cubin, spec)
    ours = compile_ptx(SKIPPED_LOOP, Options(arch="sm_90", opt_level=opt, verify=True), "k.ptx")
    got = run_launch(ours.cubin, spec, hazards=True)
    assert not got.hazards
    w, g = want.outputs[0], got.outputs[0]
    assert np.array_equal(g, w), np.nonzero(g != w)[0][:10]
    assert w.any()


# A division's slow-path call branches on the operands: ptxas arms a barrier around it when they
# are loaded from an address that depends on the thread (the warp may split), none when every
# thread loads one address (the value, and the branch, are uniform). Without the barrier a split
# warp ran everything after the division twice (f32_special_values: 4,298 warp-instructions
# against ptxas's 2,164 in the emulator).
DIV_AFTER_LOAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [ADDR];
  ld.global.f32 %f2, [%rd1+4096];
  div.rn.f32 %f3, %f1, %f2;
  st.global.f32 [%rd3], %f3;
  ret;
}
"""


@pytest.mark.parametrize(("addr", "barriers"), [("%rd3", 1), ("%rd1", 0)])
def test_slow_path_call_barrier_follows_the_load_address(
    addr: str, barriers: int, oracle: Any
) -> None:
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.isa.model import Instruction
    from openptxas.options import Options
    from openptxas.tools.sass_cli import disassemble_cubin

    def ops(cubin: bytes) -> list[str]:  # the kernel's code up to its EXIT (not the subroutine)
        _, secs = disassemble_cubin(cubin)
        out = [i.opcode for s in secs for i in s.items if isinstance(i, Instruction)]
        return out[: out.index("EXIT")]

    ptx = DIV_AFTER_LOAD.replace("ADDR", addr)
    theirs = ops(oracle.ptxas(ptx, "sm_90", ()).cubin)
    ours = ops(compile_ptx(ptx, Options(arch="sm_90"), "k.ptx").cubin)
    assert theirs.count("BSSY") == barriers
    assert ours.count("BSSY") == barriers
    assert ours.count("BSYNC") == barriers
