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


def _against_ptxas(
    ptx: str, opt: int, args: list[dict[str, Any]], oracle: Any
) -> tuple[bytes, bytes, Any]:
    """(our cubin, ptxas's, ptxas's launch) of kernel k on 64 threads, after checking that ours
    gives ptxas's first output in the emulator with 0 hazards and no deadlock."""
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    spec = {"kernel": "k", "grid": [1, 1, 1], "block": [64, 1, 1], "args": args}
    theirs = oracle.ptxas(ptx, "sm_90", [f"-O{opt}"]).cubin
    ours = compile_ptx(ptx, Options(arch="sm_90", opt_level=opt, verify=True), "k.ptx").cubin
    want = run_launch(theirs, spec)
    got = run_launch(ours, spec, hazards=True)
    assert not got.hazards
    w, g = want.outputs[0], got.outputs[0]
    assert np.array_equal(g, w), np.nonzero(g != w)[0][:10]
    return ours, theirs, (want, got)


OUT = {"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros"}


@pytest.mark.parametrize("opt", [3, 0])
def test_loop_skipped_by_some_threads(opt: int, oracle: Any) -> None:
    args = [OUT, {"kind": "scalar", "dtype": "u32", "init": 40}]
    _, _, (want, _) = _against_ptxas(SKIPPED_LOOP, opt, args, oracle)
    assert want.outputs[0].any()


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

    def slow_path(cubin: bytes) -> list[str]:  # the barriers of the slow-path subroutine
        _, secs = disassemble_cubin(cubin)
        code = [i for s in secs for i in s.items if isinstance(i, Instruction)]
        after = [i for i in code[[i.opcode for i in code].index("EXIT") :]]
        return [str(i.operands[1]) for i in after if i.opcode == "BSSY"]

    # ptxas's slow path arms barriers above the one around its call (B1, B2 inside B0): one
    # of its own that re-armed the caller's B0 let the warp run on split (f32_div_sqrt: 1.78
    # times ptxas's warp-instructions)
    theirs_sub = slow_path(oracle.ptxas(ptx, "sm_90", ()).cubin)
    ours_sub = slow_path(compile_ptx(ptx, Options(arch="sm_90"), "k.ptx").cubin)
    # (with uniform operands neither has any; ours one region where ptxas's copy has two)
    assert theirs_sub == (["B1", "B2"] if barriers else [])
    assert ours_sub == (["B1"] if barriers else [])


# Device functions with divergent branches: a recursive one (fib: the branch around its two
# recursive calls), a plain one whose region holds no call (clamp) and the kernel's region
# around a call. ptxas 13.0 arms B6 (callee-saved) around a region with a call in it, saving the
# caller's copy on entry (BMOV.32.CLEAR) and restoring it before RET, and B0 (the callee's to
# change) around one without. Without any barrier in a subroutine a warp that split in it ran
# the rest of it, and of its callers, once per path until the paths met again by chance
# (t2/recursion: 1.56 times ptxas's warp-instructions in the emulator, 1.15 times its time on
# an H200).
SUB_REGIONS = """.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) fib(.param .b32 n)
{
  .reg .b32 %r<8>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [n];
  mov.u32 %r7, %r1;
  setp.lt.s32 %p1, %r1, 2;
  @%p1 bra DONE;
  add.s32 %r2, %r1, -1;
  { .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r2;
    call.uni (b), fib, (a);
    ld.param.b32 %r3, [b]; }
  add.s32 %r4, %r1, -2;
  { .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r4;
    call.uni (b), fib, (a);
    ld.param.b32 %r5, [b]; }
  add.s32 %r7, %r3, %r5;
DONE:
  st.param.b32 [r], %r7;
  ret;
}
.func (.param .b32 r) clamp(.param .b32 x)
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [x];
  setp.gt.s32 %p1, %r1, 9;
  @%p1 bra BIG;
  mul.lo.s32 %r1, %r1, 3;
BIG:
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .pred %p<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 7;
  mov.u32 %r4, 7;
  setp.eq.s32 %p1, %r2, 3;
  @%p1 bra SKIP;
  { .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r2;
    call.uni (b), fib, (a);
    ld.param.b32 %r3, [b]; }
  { .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r3;
    call.uni (b), clamp, (a);
    ld.param.b32 %r4, [b]; }
SKIP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_subroutine_regions_as_ptxas(opt: int, oracle: Any) -> None:
    from openptxas.isa.model import Instruction
    from openptxas.tools.sass_cli import disassemble_cubin

    def text(cubin: bytes) -> list[str]:
        _, secs = disassemble_cubin(cubin)
        return [
            " ".join((i.mnemonic, *(str(o) for o in i.operands[:3] if str(o) != "PT")))
            for s in secs
            for i in s.items
            if isinstance(i, Instruction)
        ]

    ours, theirs, (want, got) = _against_ptxas(SUB_REGIONS, opt, [OUT], oracle)
    # no more warp-instructions than ptxas's code runs
    assert got.dynamic_instructions <= 1.01 * want.dynamic_instructions
    mine, ptxas = text(ours), text(theirs)
    for code in (mine, ptxas):
        bssy = [t for t in code if t.startswith("BSSY")]
        assert sum(t.startswith("BSSY B6") for t in bssy) == 2, bssy  # kernel's call, fib's
        assert sum(t.startswith("BMOV.32.CLEAR") for t in code) == 1  # fib saves B6
        assert sum(t.startswith("BMOV.32 B6") for t in code) == 1  # and restores it
    # clamp's region (predicated at -O3; at -O0 ptxas arms no barrier there, ours B0, unsaved)
    if opt == 3:
        assert [t for t in mine if t.startswith("BSSY B0")] == [
            t for t in ptxas if t.startswith("BSSY B0")
        ]
