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


def test_dump_phase(tmp_path: Path) -> None:
    rc, out, err = _ours(
        ["-arch=sm_90", str(VEC_ADD), "-o", "o.cubin", "--dump-phase", "AllocateRegisters"],
        tmp_path,
    )
    assert rc == 0, err
    assert out.startswith("// ---- vec_add after AllocateRegisters\n")
    assert "%r" not in out, "after allocation only physical registers remain"
    assert re.search(r"^\s+STG\.E desc\[UR\d+\]\[R\d+\.64\], R\d+$", out, re.M)
    rc, out, _ = _ours(
        ["-arch=sm_90", str(VEC_ADD), "-o", "o.cubin", "--dump-phase", "all"], tmp_path
    )
    assert rc == 0
    dumped = re.findall(r"^// ---- vec_add after (\w+)$", out, re.M)
    enabled = [p.name for p in pipeline()]
    assert dumped == enabled, "every phase, in pipeline order"


def test_dump_phase_unknown(tmp_path: Path) -> None:
    rc, out, err = _ours(["-arch=sm_90", str(VEC_ADD), "--dump-phase", "Bogus"], tmp_path)
    assert rc == 255 and out == ""
    assert "Unknown phase 'Bogus' for option 'dump-phase'" in err


def test_disable_phase(tmp_path: Path) -> None:
    base = ["-arch=sm_90", str(VEC_ADD), "-o", "o.cubin", "--dump-phase", "GeneralOptimize"]
    rc, on, _ = _ours(base, tmp_path)
    assert rc == 0
    rc, off, _ = _ours([*base, "--disable-phase", "GeneralOptimize"], tmp_path)
    assert rc == 0
    # the phase's dump is absent when it does not run, and the code it would change stays
    assert "after GeneralOptimize" in on and "after GeneralOptimize" not in off
    rc, _, err = _ours([*base, "--disable-phase", "AllocateRegisters"], tmp_path)
    assert rc == 255
    assert "Phase 'AllocateRegisters' is required and cannot be disabled" in err
