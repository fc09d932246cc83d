"""The differential fuzzer (openptxas.testing.difffuzz) in CI: random well-defined PTX programs
compiled by openptxas (-O3 and -O0) and by ptxas, both run in the emulator, every output word
equal. The reduced programs of past findings stay here as regression tests, next to a fresh sample.
Long runs: ``python scripts/difffuzz.py --seeds 0:10000 --jobs 2 --out DIR``."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from openptxas.testing.difffuzz import (
    FBASE,
    NF,
    NTHREADS,
    Program,
    Stmt,
    check,
    check_ptx,
    generate,
    inputs_for,
    reduce_program,
)
from tests.conftest import need_tools, run_ours

# Reduced programs of past findings (each file's first line says what was wrong), written by
# ``scripts/difffuzz.py --out`` with the interface of the generator of their day: ``words`` input
# and output words per thread.
REGRESSIONS = sorted((Path(__file__).parent / "data" / "difffuzz").glob("*.ptx"))
SAMPLE = range(1000, 1120)


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_regression(path: Path, oracle) -> None:
    need_tools("ptxas")
    text = path.read_text()
    m = re.search(r"^// words=(\d+)", text, re.M)
    assert m is not None, "a regression file names its words per thread"
    words = int(m.group(1))
    # the float words (after the 8 integer ones in every interface so far): two NaNs are equal
    nan_ok = np.zeros((NTHREADS, words), dtype=bool)
    f = re.search(r"^// floats=(\d+):(\d+)", text, re.M)  # another interface's float words
    nan_ok[:, slice(int(f[1]), int(f[2])) if f else slice(FBASE, FBASE + NF)] = True
    # ``// opt=3``: -O3 only (a program whose -O0 code need not equal ptxas's -O0 code)
    o = re.search(r"^// opt=([\d,]+)", text, re.M)
    levels = tuple(int(x) for x in o[1].split(",")) if o else (3, 0)
    for seed in (1, 2, 3):
        r = check_ptx(text, inputs_for(seed, words), words, levels, oracle, nan_ok.reshape(-1))
        assert r.status == "ok", f"{text.splitlines()[0]}: {r.status}: {r.detail}"


@pytest.mark.parametrize("seed", SAMPLE)
def test_random_program(seed: int, oracle) -> None:
    need_tools("ptxas")
    r = check(generate(seed), (3,), oracle)
    assert r.status == "ok", f"seed {seed}: {r.status}: {r.detail}"


@pytest.mark.parametrize("seed", [1, 2, 141, 5192, 156116])
def test_random_program_with_calls(seed: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """Programs with device functions: direct, guarded and indirect calls (issue 18). Seed 141
    was 1 ulp off ptxas while its generator wrote unrounded f32 multiplies (ptxas fused a
    product that was also stored into an add, after moving it past the calls). Seed 5192:
    ptxas's callee saves and clears the caller's B6 (BMOV.32.CLEAR) while the caller's other
    lanes wait on it; the emulator deadlocked on ptxas's cubin (convergence-barrier instances,
    docs/emu.md). Seed 156116: a function called within a cycle of indirect calls keeps the
    caller's B6 in its frame; the release and restore before its guarded RET ran unguarded,
    so the threads that went on released the frame twice (a local access past the stack)."""
    need_tools("ptxas")
    prog = generate(seed, calls=True)
    assert prog.funcs and "call" in prog.ptx()
    r = check(prog, (3,), oracle)
    assert r.status == "ok", f"seed {seed}: {r.status}: {r.detail}"


@pytest.mark.parametrize(
    "seed, recursion",
    [(93, False), (4, True), (17, True), (171125, True)],
    ids=["93", "rec4", "rec17", "rec171125"],
)
def test_random_program_with_calls_under_pressure(seed: int, recursion: bool, oracle) -> None:  # type: ignore[no-untyped-def]
    """``--pressure --calls [--recursion]``: values spill in device functions that are called
    from two places with the stack pointer at different depths, or that call themselves; each
    function's spill slots then lie in its own frame (regalloc/spill.py; refused before).
    Seed 93: a guarded release of a frame before a guarded RET moved the stack pointer of every
    thread in the spiller's reckoning, and the return address was reloaded between release and
    return (a jump to 0xffffffff). Seed 171125: the copies of return addresses made before a
    release shifted the program points the spiller's free-register count is indexed by (an
    internal IndexError)."""
    need_tools("ptxas")
    prog = generate(seed, pressure=True, calls=True, recursion=recursion)
    assert not recursion or "%dep" in prog.ptx()
    r = check(prog, (3, 0), oracle)
    assert r.status == "ok", f"seed {seed}: {r.status}: {r.detail}"


def test_random_program_with_calls_at_O0(oracle) -> None:  # type: ignore[no-untyped-def]
    """Ours at -O0 against ptxas at -O0, whose code checks the stack pointer against
    SR_LMEMHIOFF after each frame (BPT.TRAP below it): the emulator reads that register."""
    need_tools("ptxas")
    r = check(generate(93107, calls=True), (0,), oracle)
    assert r.status == "ok", f"seed 93107: {r.status}: {r.detail}"


def test_reducer_keeps_the_failure_and_shrinks() -> None:
    prog = generate(11, size=20)
    marked = [s for s in prog.stmts if s.kind == "ins"][3]

    def has(stmts: list[Stmt]) -> bool:
        return any(s is marked or has(s.body) or has(s.other) for s in stmts)

    def failing(p: Program) -> bool:  # "fails" while the marked statement is still there
        return has(p.stmts)

    small = reduce_program(prog, failing)
    assert small.stmts == [marked]
    assert marked.lines[0] in small.ptx()


HI_ACC = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 a, .param .u32 b, .param .u32 c)
{
  .reg .b32 %r<8>; .reg .b64 %o;
  ld.param.u64 %o, [out]; cvta.to.global.u64 %o, %o;
  ld.param.u32 %r1, [a]; ld.param.u32 %r6, [b]; ld.param.u32 %r3, [c];
  mad.hi.u32 %r3, %r6, %r1, %r3;
  mad.hi.u32 %r3, %r6, %r1, %r3;
  mul.hi.u32 %r5, %r6, %r1;
  add.u32 %r3, %r3, %r5;
  st.global.u32 [%o], %r3;
  ret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_hi_multiplies_accumulate(opt: int) -> None:
    """Three hi multiplies of the same operands added into one register (seed 23114, reduced).
    ptxas 13.0.88 at -O3 merges them into two ``IMAD.HI`` (c + 2*hi(a*b)); ours must give the
    PTX ISA's c + 3*hi(a*b). The generator keeps such programs away from the comparison."""
    pytest.importorskip("numpy")

    a, b, c = 0x9ABCDEF1, 0xFEDCBA98, 5
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [1, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 1, "init": "zeros"},
            *({"kind": "scalar", "dtype": "u32", "count": 1, "init": v} for v in (a, b, c)),
        ],
    }
    got = int(run_ours(HI_ACC, spec, opt).outputs[0][0])
    assert got == (c + 3 * ((a * b) >> 32)) % 2**32


def test_generator_keeps_hi_multiplies_apart() -> None:
    """No hi multiply in a loop, no two with the same multiplicands (see above)."""
    for seed in range(300):
        text = generate(seed).ptx()
        pairs: set[frozenset[str]] = set()
        depth = 0
        for line in text.splitlines():
            if line.startswith("$Lloop"):
                depth += 1
            elif re.match(r"\s*@%lp\d+ bra \$Lloop", line):
                depth -= 1
            m = re.search(r"(?:mul|mad)\.hi\.[us]32 %\w+, (%\w+|-?\w+), (%\w+|-?\w+)", line)
            if m:
                assert depth == 0, f"seed {seed}: hi multiply in a loop: {line}"
                pair = frozenset(m.groups())
                assert pair not in pairs, f"seed {seed}: {line}"
                pairs.add(pair)


SHL_WIDE = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 a)
{
  .reg .b32 %t<4>; .reg .b64 %rd<4>; .reg .b64 %o;
  ld.param.u64 %o, [out]; cvta.to.global.u64 %o, %o;
  ld.param.u32 %t3, [a];
  mul.wide.u32 %rd2, %t3, 9;
  mov.b32 %t2, 862577246;
  and.b32 %t1, %t2, 255;
  shl.b64 %rd0, %rd2, %t1;
  shl.b64 %rd1, %rd2, 40;
  add.s64 %rd0, %rd0, %rd1;
  st.global.u64 [%o], %rd0;
  ret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_shl64_of_mul_wide_by_64_or_more(opt: int) -> None:
    """``shl.b64`` of a ``mul.wide`` result by a constant 94 (seed 26332, reduced): PTX clamps
    the amount to 64, so that term is 0. ptxas 13.0.88 -O3 folds it into the multiply as if
    there were no shift; ours must follow the definition."""
    pytest.importorskip("numpy")

    a = 0x9ABCDEF1
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [1, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u64", "count": 1, "init": "zeros"},
            {"kind": "scalar", "dtype": "u32", "count": 1, "init": a},
        ],
    }
    got = int(run_ours(SHL_WIDE, spec, opt).outputs[0][0])
    assert got == ((a * 9) << 40) % 2**64


def test_calls_programs_round_every_product() -> None:
    """With calls, no f32 multiply is left to contraction (ptxas's choice there depends on
    its code around the calls: --calls seed 141), in the kernel and in the functions; without
    calls the generator still writes unrounded ones."""
    unrounded = re.compile(r"\bmul(\.ftz|\.sat)*\.f32 ")
    assert any(unrounded.search(generate(s).ptx()) for s in range(20))
    for seed in range(200):
        prog = generate(seed, calls=True)
        for line in prog.ptx().splitlines():
            assert not unrounded.search(line), f"seed {seed}: {line}"


PTXAS_BUGS = Path(__file__).parent / "data" / "ptxas_bugs"


def test_ptxas_neg_ftz_compare_is_reported_apart(oracle) -> None:  # type: ignore[no-untyped-def]
    """Seed 121826 (--pressure, reduced): ptxas 13.0.88 -O3 compares a neg.ftz result without
    flushing it (see the file's first line), and its -O0 code does not. The fuzzer files such a
    program as ``ptxas-disagrees`` (ours equals every word of ptxas -O0), not as a mismatch;
    ours keeps the PTX ISA's value."""
    need_tools("ptxas")
    text = (PTXAS_BUGS / "neg_ftz_setp_121826.ptx").read_text()
    words = 70
    inputs = inputs_for(121826, words)
    r = check_ptx(text, inputs, words, (3,), oracle, None, 16)
    assert r.status == "ptxas-disagrees", f"{r.status}: {r.detail}"
    assert "thread 52 word 7: ours 0xa53ae257 ptxas 0x7c890e83" in r.detail


NEG_FTZ_SETP = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .f32 a, .param .f32 b)
{
  .reg .f32 %f<4>; .reg .b32 %r<3>; .reg .pred %p<2>; .reg .b64 %o;
  ld.param.u64 %o, [out]; cvta.to.global.u64 %o, %o;
  ld.param.f32 %f1, [a]; ld.param.f32 %f2, [b];
  mov.u32 %r1, 7;
  neg.ftz.f32 %f1, %f1;
  sub.ftz.f32 %f2, %f2, %f2;
  setp.ge.f32 %p1, %f1, %f2;
  @%p1 bra $Ldone;
  mov.u32 %r1, 9;
$Ldone:
  selp.u32 %r2, 1, 0, %p1;
  st.global.u32 [%o], %r1;
  st.global.u32 [%o+4], %r2;
  ret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_neg_ftz_of_a_subnormal_compares_as_zero(opt: int) -> None:
    """neg.ftz.f32 flushes the subnormal 0x0000ffff to -0, and -0 >= +0: the branch is taken
    and the predicate stored is 1, at every level (ptxas -O3 in seed 121826 compared the
    unflushed -9.2e-41 in the branch)."""
    pytest.importorskip("numpy")
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [1, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 2, "init": "zeros"},
            {"kind": "scalar", "dtype": "u32", "count": 1, "init": 0x0000FFFF},
            {"kind": "scalar", "dtype": "u32", "count": 1, "init": 0x3F800000},
        ],
    }
    out = run_ours(NEG_FTZ_SETP, spec, opt).outputs[0]
    assert [int(x) for x in out] == [7, 1]
