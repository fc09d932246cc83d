"""The ``openptxas`` command against ``ptxas`` itself: the same stderr (``-v`` report, warnings,
diagnostics) and exit status for the same command line, no output file after an error; and the
openptxas-only options ``--dump-phase`` / ``--disable-phase``.

Where the two legitimately differ, the text is normalised before comparing: the register count
of ``Used N registers`` (our allocator is not ptxas's; it is compared as a bound instead) and the
``Compile time`` figures.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from openptxas.pipeline import pipeline
from openptxas.testing.tools import find_tool
from tests.conftest import need_tools

ROOT = Path(__file__).resolve().parents[2]
VEC_ADD = ROOT / "examples" / "vec_add.ptx"
TWO = """.version 9.0
.target sm_90
.address_size 64
.visible .entry a() { ret; }
.visible .entry b() .maxnreg 40 { ret; }
"""
BAD = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
  add.u32 %r1, 1, 2;
  ret;
}
"""


def _run(tool: list[str], args: list[str], cwd: Path) -> tuple[int, str, str]:
    p = subprocess.run([*tool, *args], capture_output=True, text=True, cwd=cwd, check=False)
    return p.returncode, p.stdout, p.stderr


def _ours(args: list[str], cwd: Path) -> tuple[int, str, str]:
    return _run([sys.executable, "-m", "openptxas.cli"], args, cwd)


def _theirs(args: list[str], cwd: Path) -> tuple[int, str, str]:
    need_tools("ptxas")
    ptxas = find_tool("ptxas")
    assert ptxas is not None
    return _run([ptxas], args, cwd)


def _norm(text: str) -> tuple[str, list[int]]:
    regs = [int(n) for n in re.findall(r"Used (\d+) registers", text)]
    text = re.sub(r"Used \d+ registers", "Used N registers", text)
    text = re.sub(r"Compile time = [\d.]+ ms", "Compile time = T ms", text)
    return text, regs


CASES = {
    "verbose": ["-arch=sm_90", "-v", "vec_add.ptx", "-o", "out.cubin"],
    "target_above_arch": ["-arch=sm_80", "-v", "vec_add.ptx", "-o", "out.cubin"],
    "maxrreg_low": ["-arch=sm_90", "-maxrregcount=8", "-v", "two.ptx", "-o", "out.cubin"],
    "maxrreg_low_quiet": ["-arch=sm_90a", "-maxrregcount=16", "two.ptx", "-o", "out.cubin"],
    "maxrreg_high": ["-arch=sm_90", "--maxrregcount", "300", "-v", "two.ptx", "-o", "out.cubin"],
    "maxrreg_32": ["-arch=sm_90", "-maxrregcount=32", "-v", "vec_add.ptx", "-o", "out.cubin"],
    "maxrreg_no_warnings": ["-arch=sm_90", "-maxrregcount=8", "-w", "two.ptx", "-o", "out.cubin"],
    "bad_input": ["-arch=sm_90", "bad.ptx", "-o", "out.cubin"],
    "missing_input": ["-arch=sm_90", "missing.ptx", "-o", "out.cubin"],
    "unknown_option": ["--bogus", "vec_add.ptx"],
    "unknown_target": ["-arch=sm_91", "vec_add.ptx", "-o", "out.cubin"],
    "bad_maxrreg": ["-arch=sm_90", "-maxrregcount=x", "vec_add.ptx", "-o", "out.cubin"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_as_ptxas(name: str, tmp_path: Path) -> None:
    (tmp_path / "vec_add.ptx").write_text(VEC_ADD.read_text())
    (tmp_path / "two.ptx").write_text(TWO)
    (tmp_path / "bad.ptx").write_text(BAD)
    args = CASES[name]
    rc_t, out_t, err_t = _theirs(args, tmp_path)
    made_t = (tmp_path / "out.cubin").exists()
    (tmp_path / "out.cubin").unlink(missing_ok=True)
    rc_o, out_o, err_o = _ours(args, tmp_path)
    made_o = (tmp_path / "out.cubin").exists()
    assert rc_o == rc_t
    assert made_o == made_t == (rc_t == 0), "an output file exactly when the compile succeeds"
    text_t, regs_t = _norm(err_t)
    text_o, regs_o = _norm(err_o)
    assert text_o == text_t
    assert len(regs_o) == len(regs_t)
    limit = {"maxrreg_32": 32}.get(name, 255)
    assert all(r <= limit for r in regs_o)
    assert out_o == out_t == ""


# A kernel on which each optional phase below leaves a mark: a mul/add pair (FmaContraction),
# uniform parameters (ConvertToUniformReg), a branch to an exit (BranchOpt), a 64-bit address add
# of a widening multiply (LateArchOptimizeFirst), a short if (OriDoPredication).
MARKS = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<6>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mul.f32 %f2, %f1, %f1;
  add.f32 %f3, %f2, 0f3F800000;
  setp.gt.f32 %p2, %f3, 0f40000000;
  @%p2 bra SKIP;
  add.f32 %f3, %f3, %f3;
SKIP:
  st.global.f32 [%rd4], %f3;
DONE:
  ret;
}
"""
LAST = "ScoreboardsAndOpexes"


def _final_code(out: str) -> list[str]:
    """The instructions of the last dump (after LAST), without control codes and notes."""
    from openptxas.ir.printer import format_instr
    from openptxas.ir.reader import read_dump

    dumps = read_dump(out)
    assert dumps[-1][0] == LAST
    fn = dumps[-1][1]
    text = []
    for ins in fn.instrs():
        ins.ctrl, ins.line, ins.contract = None, 0, False
        text.append(format_instr(ins))
    return text


def test_dump_phase(tmp_path: Path) -> None:
    from openptxas.ir.core import Reg, operand_regs
    from openptxas.ir.reader import read_dump, read_ir

    rc, out, err = _ours(
        ["-arch=sm_90", str(VEC_ADD), "-o", "o.cubin", "--dump-phase", "AllocateRegisters"],
        tmp_path,
    )
    assert rc == 0, err
    assert out.startswith(".target sm_90\n// ---- vec_add after AllocateRegisters\n")
    assert "%r" not in out, "after allocation only physical registers remain"
    assert re.search(r"^\s+STG\.E desc\[UR\d+x2\]\[R\d+x2\.64\], R\d+  ; line=\d+$", out, re.M)
    ((phase, fn),) = read_dump(out, "dump")
    assert phase == "AllocateRegisters" and fn.name == "vec_add"
    assert all(
        isinstance(r, Reg) for i in fn.instrs() for o in (*i.dsts, *i.srcs) for r in operand_regs(o)
    )
    assert all(i.ctrl is None for i in fn.instrs()), "control codes come later"
    rc, out, _ = _ours(
        ["-arch=sm_90", str(VEC_ADD), "-o", "o.cubin", "--dump-phase", "all"], tmp_path
    )
    assert rc == 0
    dumped = re.findall(r"^// ---- vec_add after (\w+)$", out, re.M)
    enabled = [p.name for p in pipeline()]
    assert dumped == enabled, "every phase, in pipeline order"
    back = read_dump(out, "dump")
    assert [ph for ph, _ in back] == enabled, "the dumped text reads back, phase by phase"
    assert read_ir(out).target == "sm_90"
    assert all(i.ctrl is not None for i in back[-1][1].instrs()), "control codes at the end"


def test_dump_phase_before_a_failure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The dumps of the functions that went through their phases are printed even when a later
    stage fails (here: encoding): the point of dumping is to see what happened before an error."""
    import openptxas.codegen
    from openptxas.cli import main
    from openptxas.diag import InternalError
    from openptxas.ir.reader import read_dump

    def fail(*args: object, **kwargs: object) -> bytes:
        raise InternalError("codegen: cannot encode (test)")

    monkeypatch.setattr(openptxas.codegen, "build_cubin", fail)
    out_file = tmp_path / "o.cubin"
    rc = main(["-arch=sm_90", str(VEC_ADD), "-o", str(out_file), "--dump-phase", LAST])
    out, err = capsys.readouterr()
    assert rc != 0 and "cannot encode (test)" in err
    assert [(ph, fn.name) for ph, fn in read_dump(out)] == [(LAST, "vec_add")]
    assert not out_file.exists(), "no partial output file"


def test_dump_phase_several_and_O0(tmp_path: Path) -> None:
    from openptxas.ir.reader import read_dump

    base = ["-arch=sm_90", str(VEC_ADD), "-o", "o.cubin"]
    rc, out, _ = _ours([*base, "--dump-phase", LAST, "--dump-phase", "BranchOpt"], tmp_path)
    assert rc == 0
    assert [ph for ph, _ in read_dump(out)] == ["BranchOpt", LAST], "in pipeline order"
    # at -O0 only the phases with min_opt 0 run, and only those are dumped
    rc, out, _ = _ours([*base, "-O0", "--dump-phase", "all"], tmp_path)
    assert rc == 0
    assert [ph for ph, _ in read_dump(out)] == [p.name for p in pipeline() if p.min_opt == 0]
    rc, out, _ = _ours([*base, "-O0", "--dump-phase", "GvnCse"], tmp_path)
    assert rc == 0 and out == "", "a known phase that does not run at -O0: nothing to dump"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--dump-phase", "Bogus"],
            "Value 'Bogus' is not defined for option 'dump-phase' (phases: all, "
            + ", ".join(p.name for p in pipeline())
            + ")",
        ),
        (
            ["--disable-phase", "Bogus"],
            "Value 'Bogus' is not defined for option 'disable-phase' (phases: "
            + ", ".join(p.name for p in pipeline())
            + ")",
        ),
        (
            ["--disable-phase", "all"],
            "Value 'all' is not defined for option 'disable-phase' (phases: "
            + ", ".join(p.name for p in pipeline())
            + ")",
        ),
        (
            ["--disable-phase", "AllocateRegisters"],
            "Phase 'AllocateRegisters' is required and cannot be disabled",
        ),
        (
            ["--disable-phase", "ScoreboardsAndOpexes"],
            "Phase 'ScoreboardsAndOpexes' is required and cannot be disabled",
        ),
        (["--dump-phase"], "argument expected after '--dump-phase'"),
        (["--disable-phase"], "argument expected after '--disable-phase'"),
    ],
)
def test_phase_option_errors(args: list[str], message: str, tmp_path: Path) -> None:
    """A bad phase name is a bad option value: one ptxas-style fatal line, exit status 255,
    nothing on stdout, no output file (checked before the input is read)."""
    rc, out, err = _ours(["-arch=sm_90", "missing.ptx", "-o", "o.cubin", *args], tmp_path)
    assert (rc, out) == (255, "")
    assert err == f"ptxas fatal   : {message}\n"
    assert not (tmp_path / "o.cubin").exists()


# phase -> (a line of the final code with the phase, and without it)
DISABLE = {
    "FmaContraction": ("R0 = FFMA R0, R0, f32:0x3f800000", "R0 = FMUL R0, R0"),
    "ConvertToUniformReg": ("UR6 = ULDC c[0x0][0x218]", "R0 = LDC c[0x0][0x218]"),
    "BranchOpt": ("@P0 EXIT", "@P0 BRA `(DONE.sync)"),
    "LateArchOptimizeFirst": (
        "R2x2 = IMAD.WIDE.U32 R0, 0x4, R2x2",
        "R4x2 = IMAD.WIDE.U32 R0, 0x4, RZ",
    ),
    "OriDoPredication": ("@!P0 R0 = FADD R0, R0", "B0 = BSSY `(SKIP)"),
}


def _numberless(text: str) -> str:
    """``text`` with register numbers left out (which registers the allocator picks is not
    what a phase's switch is about)."""
    return re.sub(r"\b(U?R|U?P)\d+", r"\1#", text)


@pytest.mark.parametrize("phase", sorted(DISABLE))
def test_disable_phase(phase: str, tmp_path: Path) -> None:
    (tmp_path / "k.ptx").write_text(MARKS)
    base = ["-arch=sm_90", "k.ptx", "-o", "on.cubin", "--dump-phase", "all"]
    rc, on, err = _ours(base, tmp_path)
    assert rc == 0, err
    off_args = [*base[:3], "off.cubin", *base[4:], "--disable-phase", phase]
    rc, off, err = _ours(off_args, tmp_path)
    assert rc == 0, err
    # the phase's dump is absent when it does not run, and the code it would change stays
    assert f"after {phase}\n" in on and f"after {phase}\n" not in off
    with_it, without = (_numberless(x) for x in DISABLE[phase])
    code_on = [_numberless(x) for x in _final_code(on)]
    code_off = [_numberless(x) for x in _final_code(off)]
    assert with_it in code_on and with_it not in code_off
    assert without in code_off and without not in code_on
    assert (tmp_path / "on.cubin").read_bytes() != (tmp_path / "off.cubin").read_bytes()


@pytest.mark.parametrize("phase", ["FmaContraction", "OriDoPredication", "AllocateRegisters"])
def test_dump_runs_through_runpass(phase: str, tmp_path: Path) -> None:
    """The dump before a phase, given to ``openptxas.tools.runpass``, gives the phase's own dump:
    the text carries everything the phase needs."""
    from openptxas.ir.printer import format_function
    from openptxas.ir.reader import read_dump

    (tmp_path / "k.ptx").write_text(MARKS)
    rc, out, _ = _ours(["-arch=sm_90", "k.ptx", "-o", "o.cubin", "--dump-phase", "all"], tmp_path)
    assert rc == 0
    dumps = read_dump(out)
    names = [ph for ph, _ in dumps]
    k = names.index(phase)
    (tmp_path / "before.ir").write_text(format_function(dumps[k - 1][1]))
    p = subprocess.run(
        [sys.executable, "-m", "openptxas.tools.runpass", phase, "before.ir", "-arch", "sm_90"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == format_function(dumps[k][1])


def test_runpass_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "bad.ir").write_text(".entry k\nL:\n    %r1 = IADD3 %r2 %r3\n")
    cmd = [sys.executable, "-m", "openptxas.tools.runpass"]
    p = subprocess.run([*cmd, "dce", "bad.ir"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 255 and p.stdout == ""
    assert p.stderr.startswith("runpass bad.ir, line 3; error   : expected ',' between operands")
    assert "Traceback" not in p.stderr
    p = subprocess.run([*cmd, "nosuch", "bad.ir"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 255 and "Unknown pass 'nosuch'" in p.stderr
    p = subprocess.run([*cmd, "dce", "none.ir"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 255 and "Input file 'none.ir' could not be opened" in p.stderr
    # an IR the verifier rejects (a branch to no block) is an error, not a traceback
    (tmp_path / "v.ir").write_text(".entry k\nL:\n    BRA `(nowhere)\n")
    p = subprocess.run([*cmd, "dce", "v.ir"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 255 and "IR verifier" in p.stderr and "Traceback" not in p.stderr
