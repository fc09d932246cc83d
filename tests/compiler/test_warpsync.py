"""WARPSYNC before warp collectives, as ptxas 13.0.88 places it.

fast.cu's sumKernel4 runs ``redux.sync.add.s32 d, a, 0xff`` with its whole warp converged. PTX
leaves a thread outside the member mask undefined; ptxas emits a bare ``REDUX`` there, and the
kernel runs. openptxas emitted ``WARPSYNC 0xff`` first, and an H200 stopped the kernel with CUDA
error 715 (an illegal instruction). Now the wait goes where the warp may be diverged (a divergent
region, after a call) and only there, for redux, match, shfl, vote and bar.warp.sync alike; a row of
collectives under one mask waits once. The emulator traps as the hardware does.
"""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.driver import compile_ptx
from openptxas.emu import run_launch
from openptxas.emu.errors import KernelFault
from openptxas.isa.model import Instruction
from openptxas.options import Options
from openptxas.tools.sass_cli import disassemble_cubin
from tests.conftest import need_tools, run_ours

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 m)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r9, [m];
  mov.u32 %r1, %tid.x;
"""
TAIL = """  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""
# the whole warp, converged: every collective with a partial mask (undefined in PTX, run by ptxas)
CONVERGED = (
    HEAD
    + """  redux.sync.add.s32 %r2, %r1, 0xff;
  redux.sync.add.s32 %r3, %r1, %r9;
  shfl.sync.down.b32 %r4, %r1, 1, 31, 0xff;
  setp.ne.u32 %p1, %r1, 3;
  vote.sync.ballot.b32 %r5, %p1, 0xff;
  bar.warp.sync 0xff;
  add.s32 %r2, %r2, %r3; add.s32 %r2, %r2, %r4; add.s32 %r2, %r2, %r5;
"""
    + TAIL
)
# lanes 0-15 in a divergent region: the masks name them, and each wait stays (the butterflies
# read lanes of the region only)
DIVERGENT = (
    HEAD
    + """  mov.u32 %r2, 0;
  setp.ge.u32 %p2, %r1, 16;
  @%p2 bra DONE;
  redux.sync.add.s32 %r2, %r1, 0xffff;
  and.b32 %r6, %r1, 3;
  match.any.sync.b32 %r7, %r6, %r9;
  shfl.sync.bfly.b32 %r4, %r1, 1, 31, %r9;
  shfl.sync.bfly.b32 %r5, %r4, 2, 31, %r9;
  add.s32 %r2, %r2, %r5;
  add.s32 %r2, %r2, %r7;
DONE:
"""
    + TAIL
)


def _ops(ptx: str) -> list[str]:
    cubin = compile_ptx(ptx, Options(arch="sm_90"), "k.ptx").cubin
    _, secs = disassemble_cubin(cubin)
    return [i.opcode for s in secs for i in s.items if isinstance(i, Instruction)]


def _spec(mask: int) -> dict[str, object]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "uint32", "count": 32, "init": "zeros", "role": "out"},
            {"kind": "scalar", "dtype": "uint32", "init": mask},
        ],
    }


def test_converged_collectives_wait_for_nothing() -> None:
    ops = _ops(CONVERGED)
    assert "WARPSYNC" not in ops
    assert ops.count("REDUX") == 2 and "SHFL" in ops and "VOTE" in ops


def test_divergent_collectives_wait_once_per_mask() -> None:
    ops = _ops(DIVERGENT)
    # REDUX's 0xffff, then one for MATCH and the two SHFLs under %r9 (ptxas: one each; the
    # lanes stay together from the first on, no branch between them)
    assert ops.count("WARPSYNC") == 2
    i = ops.index("REDUX")
    assert ops[i - 1] == "WARPSYNC"
    j = ops.index("MATCH")
    assert ops[j - 1] == "WARPSYNC" and ops[j + 1 :].count("WARPSYNC") == 0


@pytest.mark.parametrize("opt", [3, 0])
def test_divergent_collectives_run(opt: int, oracle) -> None:
    got = run_ours(DIVERGENT, _spec(0xFFFF), opt).outputs[0]
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(DIVERGENT, "sm_90").cubin, _spec(0xFFFF)).outputs[0]
    assert np.array_equal(theirs, got)


def test_converged_runs_as_ptxas(oracle) -> None:
    got = run_ours(CONVERGED, _spec(0xFF)).outputs[0]
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(CONVERGED, "sm_90").cubin, _spec(0xFF)).outputs[0]
    assert np.array_equal(theirs, got)


def test_emulator_traps_a_lane_outside_the_mask() -> None:
    """``bar.warp.sync`` under a partial mask in a divergent region keeps its WARPSYNC; the
    lanes its mask leaves out trap, as on the GPU."""
    ptx = (
        HEAD
        + """  mov.u32 %r2, 1;
  setp.ge.u32 %p2, %r1, 16;
  @%p2 bra DONE;
  bar.warp.sync %r9;
DONE:
"""
        + TAIL
    )
    cubin = compile_ptx(ptx, Options(arch="sm_90"), "k.ptx").cubin
    assert run_launch(cubin, _spec(0xFFFF)).outputs[0].tolist() == [1] * 32
    with pytest.raises(KernelFault, match="illegal instruction"):
        run_launch(cubin, _spec(0xFF))


# A divergent loop (threads leave at different trip counts), then a collective with a partial
# mask run by the whole warp: the loop's BSYNC has brought every lane back, and ptxas emits a
# bare REDUX there (cuda-samples reduction's reduce7: ``redux.sync.add.s32 d, a, 1`` after its
# grid-stride loop; our WARPSYNC 0x1 there trapped on every lane but 0).
AFTER_LOOP = (
    HEAD
    + """  mov.u32 %r2, 0;
  mov.u32 %r3, %r1;
LOOP:
  add.s32 %r2, %r2, %r3;
  add.s32 %r3, %r3, 5;
  setp.lt.u32 %p1, %r3, 40;
  @%p1 bra LOOP;
  redux.sync.add.s32 %r2, %r2, 1;
"""
    + TAIL
)


def test_reconverged_after_a_barrier_waits_for_nothing(oracle) -> None:
    ops = _ops(AFTER_LOOP)
    assert "BSYNC" in ops and "WARPSYNC" not in ops
    got = run_ours(AFTER_LOOP, _spec(0)).outputs[0]
    need_tools("ptxas")
    cubin = oracle.ptxas(AFTER_LOOP, "sm_90").cubin
    _, secs = disassemble_cubin(cubin)
    assert "WARPSYNC" not in [i.opcode for s in secs for i in s.items if isinstance(i, Instruction)]
    assert np.array_equal(run_launch(cubin, _spec(0)).outputs[0], got)
