"""The list scheduler (openptxas.sched.deps, sched.listsched; issue 17).

- Every reordering keeps every dependence: the allocated IR of real PTX (tests/compiler/data,
  the fuzzer's regression programs) is scheduled block by block and each pair of instructions
  that conflict (a register word one writes and the other reads or writes, two memory accesses
  that are not both loads, anything against a fence) is checked to keep its order, pair by pair,
  independently of the graph the scheduler builds.
- ``--sched=serial`` and ``--disable-phase PostSchedule`` keep the lowering's order.
- Scheduled code computes what ptxas's code computes (emulator, hazard checker on) and issues
  in fewer cycles than the lowering's order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from openptxas.driver import compile_ptx
from openptxas.ir.analysis import SIDE_EFFECTS
from openptxas.ir.core import RC, TERMINATORS, Function, Instr, Part, Reg, VReg
from openptxas.ir.reader import read_dump
from openptxas.options import parse_args
from openptxas.sched.listsched import pre_schedule, schedule_block
from openptxas.targets import get_target
from tests.conftest import need_tools

DATA = Path(__file__).parent / "data"
SM90 = get_target("sm_90")
FILES = [
    "atomics.ptx",
    "warp_collectives.ptx",
    "tensor_core.ptx",
    "encode_ops.ptx",
    "local_frame.ptx",
    "cp_async.ptx",
    "mbarrier.ptx",
    "ldst_hints.ptx",
    "calls.ptx",
    *sorted(p.relative_to(DATA).as_posix() for p in (DATA / "difffuzz").glob("*.ptx"))[:6],
]
# Register-only side effects the scheduler may move pure instructions across (and the memory
# instructions it keeps in order with each other).
STORES = {"STG", "STS", "STSM", "ST", "STL", "ATOMG", "ATOMS", "ATOM", "RED", "REDG", "SUST"}
WARP = {"ELECT", "VOTE", "SHFL", "MATCH", "REDUX"}
LOADS = {"LDG", "LDS", "LD", "LDL", "LDSM", "TEX", "TLD", "SULD"}


def _words(regs: Any) -> set[tuple[object, ...]]:
    out: set[tuple[object, ...]] = set()
    for r in regs:
        if isinstance(r, Reg):
            if (r.rc in (RC.R, RC.UR) and r.index == 255) or (
                r.rc in (RC.P, RC.UP) and r.index == 7
            ):
                continue
            out |= {("p", int(r.rc), r.index + k) for k in range(r.width)}
        elif isinstance(r, VReg):
            out |= {("v", r.id, k) for k in range(r.width)}
        elif isinstance(r, Part):
            out |= {("v", r.v.id, r.k + k) for k in range(r.n)}
    return out


def _fence(ins: Instr) -> bool:
    if ins.op in TERMINATORS or "CLOCK" in str(ins) or "GLOBALTIMER" in str(ins):
        return True
    if any(
        (r.v.rc if isinstance(r, Part) else r.rc) == RC.B
        for r in (*ins.def_regs(), *ins.use_regs())
    ):
        return True
    if any(isinstance(r, Reg) and r.rc == RC.R and r.index == 1 for r in ins.def_regs()):
        return True  # the stack pointer
    if ins.op in STORES | WARP:
        return False
    return ins.op in SIDE_EFFECTS or not ins.dsts


def _strong(ins: Instr) -> bool:
    return any(m.startswith(("STRONG", "VOLATILE", "MMIO")) for m in ins.mods)


def _memory(ins: Instr) -> bool:
    return ins.op in STORES | WARP | LOADS


# accesses of two of these spaces never alias (the scheduler may swap them)
_SPACES = (
    ("local", "LDL STL"),
    ("shared", "LDS STS LDSM STSM ATOMS"),
    ("global", "LDG STG ATOMG REDG"),
)
_SPACE = {op: sp for sp, ops in _SPACES for op in ops.split()}


def _conflict(a: Instr, b: Instr) -> bool:
    if _fence(a) or _fence(b):
        return True
    da, ua = _words(a.def_regs()), _words(a.use_regs())
    db, ub = _words(b.def_regs()), _words(b.use_regs())
    if da & (ub | db) or ua & db:
        return True
    weak = a.op in LOADS and b.op in LOADS and not (_strong(a) or _strong(b))
    apart = a.op in _SPACE and b.op in _SPACE and _SPACE[a.op] != _SPACE[b.op]
    return _memory(a) and _memory(b) and not weak and not apart


def _ir_after(ptx: str, phase: str) -> list[Function]:
    opts = parse_args(["-arch=sm_90", "--sched=serial", "--dump-phase", phase]).options
    res = compile_ptx(ptx, opts, "in.ptx")
    return [fn for _name, fn in read_dump("\n".join(res.dumps))]


@pytest.mark.parametrize("mode", ["post", "pre"])
@pytest.mark.parametrize("name", FILES)
def test_schedule_keeps_every_dependence(name: str, mode: str) -> None:
    """After allocation (physical registers) and before it (virtual registers, within the
    register pressure)."""
    moved = 0
    phase = "AllocateRegisters" if mode == "post" else "InsertConvergenceBarriers"
    for fn in _ir_after((DATA / name).read_text(), phase):
        before = [list(b.instrs) for b in fn.blocks]
        if mode == "post":
            for b in fn.blocks:
                b.instrs = schedule_block(list(b.instrs), SM90)
        else:
            pre_schedule(fn, SM90)
        for b, old in zip(fn.blocks, before, strict=True):
            new = b.instrs
            assert sorted(i.uid for i in new) == sorted(i.uid for i in old)
            pos = {ins.uid: k for k, ins in enumerate(new)}
            moved += sum(x is not y for x, y in zip(new, old, strict=True))
            for i, a in enumerate(old):
                for c in old[i + 1 :]:
                    if _conflict(a, c):
                        assert pos[a.uid] < pos[c.uid], (fn.name, b.name, str(a), str(c))
    assert moved or name.startswith("difffuzz"), "nothing was reordered: the test checks nothing"


def _ir(ptx: str, *flags: str) -> dict[str, str]:
    """The IR text after AllocateRegisters and after PostSchedule."""
    opts = parse_args(
        ["-arch=sm_90", *flags, "--dump-phase", "AllocateRegisters", "--dump-phase", "PostSchedule"]
    ).options
    res = compile_ptx(ptx, opts, "in.ptx")
    out: dict[str, str] = {}
    for d in res.dumps:
        head, _, body = d.partition("\n")
        out[head.rsplit(" ", 1)[-1]] = body
    return out


def test_serial_keeps_the_lowering_order() -> None:
    ptx = (DATA / "atomics.ptx").read_text()
    serial = _ir(ptx, "--sched=serial")
    assert serial["PostSchedule"] == serial["AllocateRegisters"]
    listed = _ir(ptx)
    assert listed["PostSchedule"] != listed["AllocateRegisters"]
    assert sorted(listed["PostSchedule"].splitlines()) == sorted(
        listed["AllocateRegisters"].splitlines()
    )
    off = _ir(ptx, "--disable-phase", "PostSchedule")
    assert "PostSchedule" not in off


# Four independent chains of loads and arithmetic: the lowering emits them one after another,
# the scheduler interleaves them.
CHAINS = """
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<40>; .reg .f32 %f<40>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd2, %rd3; add.s64 %rd5, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4]; mul.rn.f32 %f2, %f1, %f1; add.rn.f32 %f3, %f2, 0f3F800000;
  mul.rn.f32 %f4, %f3, %f3; st.global.f32 [%rd5], %f4;
  ld.global.f32 %f11, [%rd4+4]; mul.rn.f32 %f12, %f11, %f11; add.rn.f32 %f13, %f12, 0f40000000;
  mul.rn.f32 %f14, %f13, %f13; st.global.f32 [%rd5+4], %f14;
  ld.global.f32 %f21, [%rd4+8]; mul.rn.f32 %f22, %f21, %f21; add.rn.f32 %f23, %f22, 0f40400000;
  mul.rn.f32 %f24, %f23, %f23; st.global.f32 [%rd5+8], %f24;
  ld.global.f32 %f31, [%rd4+12]; mul.rn.f32 %f32, %f31, %f31; add.rn.f32 %f33, %f32, 0f40800000;
  mul.rn.f32 %f34, %f33, %f33; st.global.f32 [%rd5+12], %f34;
  ret;
}
"""


def test_scheduled_code_equals_ptxas_and_issues_sooner(oracle: Any) -> None:
    need_tools("ptxas")
    from openptxas.emu import run_launch

    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "f32", "count": 256, "init": "zeros"},
            {"kind": "buffer", "dtype": "f32", "count": 256, "init": "random", "seed": 3},
        ],
    }
    want = run_launch(oracle.ptxas(CHAINS, "sm_90").cubin, spec)
    cycles = {}
    for name, flags in (("off", ["--disable-phase", "PostSchedule"]), ("on", [])):
        cubin = compile_ptx(CHAINS, parse_args(["-arch=sm_90", *flags]).options, "in.ptx").cubin
        got = run_launch(cubin, spec, hazards=True)
        assert not got.hazards, got.hazards[:3]
        for k in want.outputs:
            assert np.array_equal(got.outputs[k], want.outputs[k]), (name, k)
        cycles[name] = got.cycles
    assert cycles["on"] < cycles["off"], cycles


REUSE = """
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .f32 %f<12>; .reg .b32 %r<4>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd4, [in]; cvta.to.global.u64 %rd4, %rd4;
  mov.u32 %r1, %tid.x; cvt.rn.f32.u32 %f1, %r1;
  ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd4+4];
  fma.rn.f32 %f4, %f1, %f2, %f3; fma.rn.f32 %f5, %f1, %f3, %f2;
  fma.rn.f32 %f6, %f1, %f4, %f5; fma.rn.f32 %f7, %f1, %f5, %f4;
  add.rn.f32 %f8, %f6, %f7;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.f32 [%rd3], %f8;
  ret;
}
"""


def test_reuse_flags_listed_as_nvdisasm_lists_them(oracle: Any) -> None:
    """Neighbours reading one register in the same slot get a reuse flag (FFMA's A operand
    here); nvdisasm lists our cubin exactly as our decoder does; none at -O0 or serial."""
    need_tools("ptxas", "nvdisasm")
    from openptxas.testing.sass_check import compare_cubin

    def compile_(*flags: str) -> bytes:
        return compile_ptx(REUSE, parse_args(["-arch=sm_90", *flags]).options, "in.ptx").cubin

    cubin = compile_()
    listing = oracle.nvdisasm(cubin, "reuse")
    assert ".reuse" in listing
    res = compare_cubin(cubin, listing)
    assert not res.problems, "\n".join(res.problems[:20])
    assert res.instructions == res.decoded == res.bit_exact == res.same_text > 0
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "f32", "count": 64, "init": "zeros"},
            {"kind": "buffer", "dtype": "f32", "count": 2, "init": "random", "seed": 5},
        ],
    }
    from openptxas.emu import run_launch

    want = run_launch(oracle.ptxas(REUSE, "sm_90").cubin, spec)
    got = run_launch(cubin, spec, hazards=True)
    assert not got.hazards
    for k in want.outputs:
        assert np.array_equal(got.outputs[k], want.outputs[k])
    for flags in (("-O0",), ("--sched=serial",), ("--disable-phase", "PostSchedule")):
        assert ".reuse" not in oracle.nvdisasm(compile_(*flags), "reuse")


def _control_of(instrs: list[Instr], blocks: int = 1) -> list[Instr]:
    from openptxas.ir.core import Block
    from openptxas.sched.control import assign_control

    fn = Function("k", [])
    fn.blocks = [Block("entry", instrs)]
    assign_control(fn, SM90)
    return fn.blocks[0].instrs


def test_upper_source_register_of_imad_wide_is_read_late() -> None:
    """IMAD.WIDE reads the upper register of its 64-bit addend later than the rest: a chain of
    address increments (``IMAD.WIDE R4, R0, 0x4, R2`` after ``IMAD.WIDE R2, ...``) waits the
    ``hi`` latency (ptxas: 4 cycles, over a thousand sites), not that of an upper result register
    read as an ordinary source (20: a few sites)."""
    from openptxas.ir.core import Imm
    from openptxas.sched.control import operand_roles

    r = lambda i, w=1: Reg(RC.R, i, w)  # noqa: E731
    first = Instr("IMAD", ("WIDE",), [r(2, 2)], [r(0), Imm(4), r(6, 2)])
    second = Instr("IMAD", ("WIDE",), [r(4, 2)], [r(0), Imm(4), r(2, 2)])
    roles = operand_roles(second, SM90.urz)
    assert roles[(RC.R, 2)] == ("data",) and roles[(RC.R, 3)] == ("hi",)
    out = _control_of([first, second, Instr("EXIT")])
    assert out[0].op == "IMAD" and out[1].op == "IMAD"
    assert out[0].ctrl is not None and out[0].ctrl.stall <= 5, out[0].ctrl


LOOP = """
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 n)
{
  .reg .pred %p<2>; .reg .f32 %f<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [in]; cvta.to.global.u64 %rd2, %rd2;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x; mul.lo.s32 %r3, %r2, %r1;
  mul.wide.s32 %rd3, %r3, 4; add.s64 %rd4, %rd2, %rd3;
  mov.f32 %f1, 0f00000000; mov.u32 %r4, 0;
$L_loop:
  ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd4+4];
  add.f32 %f1, %f1, %f2; add.f32 %f1, %f1, %f3;
  add.s64 %rd4, %rd4, 8; add.s32 %r4, %r4, 2;
  setp.lt.s32 %p1, %r4, %r1;
  @%p1 bra $L_loop;
  mul.wide.u32 %rd5, %r2, 4; add.s64 %rd6, %rd1, %rd5; st.global.f32 [%rd6], %f1;
  ret;
}
"""


def test_loop_entered_by_fall_through_waits_in_its_preheader(oracle: Any) -> None:
    """The loop's first load reads an address computed just before the loop: the wait goes on
    the preheader's last instruction, not into a NOP at the top of the body that every
    iteration would run; the code still equals ptxas's in the emulator with no hazard."""
    need_tools("ptxas")
    from openptxas.emu import run_launch

    opts = parse_args(["-arch=sm_90", "--dump-phase", "ScoreboardsAndOpexes"]).options
    r = compile_ptx(LOOP, opts, "in.ptx")
    lines = "\n".join(r.dumps).splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("$L_loop:"))
    assert "NOP" not in lines[head + 1], lines[head - 2 : head + 3]
    assert "S01" not in lines[head - 1], lines[head - 2 : head + 3]  # the preheader waits
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "f32", "count": 32, "init": "zeros"},
            {"kind": "buffer", "dtype": "f32", "count": 32 * 16 + 2, "init": "random", "seed": 5},
            {"kind": "scalar", "dtype": "u32", "init": 16},
        ],
    }
    want = run_launch(oracle.ptxas(LOOP, "sm_90").cubin, spec)
    got = run_launch(r.cubin, spec, hazards=True)
    assert not got.hazards, got.hazards[:3]
    for k in want.outputs:
        assert np.array_equal(got.outputs[k], want.outputs[k]), k


def test_global_loads_pass_local_stores() -> None:
    """Accesses of different state spaces never alias: the next element's LDG may go ahead of
    the local-memory histogram update (t2/local_array's local_sort_hist, each LDG held behind
    the previous STL, ran 6 times slower than ptxas's on an H200)."""
    ptx = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
  .local .align 4 .b8 hist[64];
  .reg .b32 %r<20>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [q];
  mov.u64 %rd3, hist;
  ld.global.u32 %r1, [%rd1];
  and.b32 %r2, %r1, 15; mul.wide.u32 %rd4, %r2, 4; add.s64 %rd5, %rd3, %rd4;
  ld.local.u32 %r3, [%rd5]; add.u32 %r3, %r3, 1; st.local.u32 [%rd5], %r3;
  ld.global.u32 %r4, [%rd1+4];
  and.b32 %r5, %r4, 15; mul.wide.u32 %rd4, %r5, 4; add.s64 %rd5, %rd3, %rd4;
  ld.local.u32 %r6, [%rd5]; add.u32 %r6, %r6, 1; st.local.u32 [%rd5], %r6;
  ld.local.u32 %r7, [hist+8];
  st.global.u32 [%rd2], %r7;
  ret;
}
"""
    opts = parse_args(["-arch=sm_90", "--sched=prera", "in.ptx"]).options
    from openptxas.isa.model import Instruction
    from openptxas.tools.sass_cli import disassemble_cubin

    _, secs = disassemble_cubin(compile_ptx(ptx, opts, "in.ptx").cubin)
    ops = [i.opcode for s in secs for i in s.items if isinstance(i, Instruction)]
    ops = [o for o in ops if o in ("LDG", "STL", "LDL")]
    assert ops.index("STL") > [i for i, o in enumerate(ops) if o == "LDG"][1], ops
