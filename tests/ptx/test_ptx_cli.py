"""``python -m openptxas.ptx``: ptxas's output format and exit status, --print."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEG = Path(__file__).resolve().parent / "negative"


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openptxas.ptx", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_valid_file_exits_zero():
    p = _run(str(ROOT / "examples" / "vec_add.ptx"), "--check")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""


def test_invalid_file_matches_ptxas_output():
    name = "001_unknown_type_modifier.ptx"
    p = _run(name, "--check", "--arch", "sm_90", cwd=NEG)
    assert p.returncode == 255
    golden = (NEG / name).with_suffix(".ptxas").read_text().splitlines()
    assert p.stderr.splitlines() == golden[1:]


def test_syntax_error_is_fatal_without_traceback():
    p = _run("011_missing_semicolon.ptx", cwd=NEG)
    assert p.returncode == 255
    assert "Traceback" not in p.stderr
    assert "fatal   : Parsing error near 'add': syntax error" in p.stderr
    assert p.stderr.rstrip().endswith("ptxas fatal   : Ptx assembly aborted due to errors")


def test_missing_file():
    p = _run("/nonexistent/x.ptx")
    assert p.returncode == 255
    assert "could not be opened" in p.stderr


def test_print_roundtrips():
    p = _run(str(ROOT / "tests" / "ptx" / "data" / "triton" / "softmax.sm_90a.ptx"), "--print")
    assert p.returncode == 0, p.stderr
    assert ".entry softmax(" in p.stdout
    from openptxas.ptx import parse

    src = (ROOT / "tests" / "ptx" / "data" / "triton" / "softmax.sm_90a.ptx").read_text()
    assert parse(p.stdout) == parse(src)
