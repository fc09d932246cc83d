"""The library entry point ``openptxas.compile`` and the batch command ``openptxas.batch``."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import openptxas
from openptxas.diag import OpenPtxasError, Severity

ROOT = Path(__file__).resolve().parents[2]
VEC_ADD = (ROOT / "examples" / "vec_add.ptx").read_text()
BAD = VEC_ADD.replace("ret;", "bogus;")


def test_compile_keywords_and_args() -> None:
    r = openptxas.compile(VEC_ADD, arch="sm_90")
    assert r.cubin[:4] == b"\x7fELF" and r.target == "sm_90"
    assert [f.name for f in r.functions] == ["vec_add"] and r.diagnostics == []
    assert "Compiling entry function 'vec_add' for 'sm_90'" in r.verbose_report()
    # a ptxas command line gives the same options as keywords
    a = openptxas.compile(VEC_ADD, args=["-arch=sm_90", "-O1"]).cubin
    b = openptxas.compile(VEC_ADD, arch="sm_90", opt_level=1).cubin
    assert a == b
    assert openptxas.compile(VEC_ADD, args=["-arch=sm_90a"]).target == "sm_90a"
    w = openptxas.compile(VEC_ADD, maxrregcount=300)
    assert [(d.severity, d.message) for d in w.diagnostics] == [
        (Severity.WARNING, "Too big maxrregcount value specified 300, will be ignored")
    ]


def test_compile_errors_are_structured() -> None:
    with pytest.raises(OpenPtxasError) as info:
        openptxas.compile(BAD, filename="bad.ptx")
    d = info.value.diagnostics[0]
    assert d.severity is Severity.ERROR
    assert d.message == "Not a name of any known instruction: 'bogus'"
    assert d.span is not None and (d.span.file, d.span.line) == ("bad.ptx", 52)
    with pytest.raises(TypeError):
        openptxas.compile(VEC_ADD, no_such_option=1)


def test_compile_is_thread_safe(capfd: pytest.CaptureFixture[str]) -> None:
    """Concurrent compiles of different inputs and options give each the cubin a lone
    compile gives; nothing is printed."""
    jobs = [(VEC_ADD, {"opt_level": o, "fmad": f}) for o in (1, 3) for f in (True, False)]
    expected = [openptxas.compile(p, **kw).cubin for p, kw in jobs]
    got: dict[int, bytes] = {}

    def work(i: int) -> None:
        p, kw = jobs[i % len(jobs)]
        got[i] = openptxas.compile(p, **kw).cubin

    threads = [threading.Thread(target=work, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[i] == expected[i % len(jobs)] for i in range(12))
    cap = capfd.readouterr()
    assert cap.out == cap.err == ""


def test_batch(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"k{i}.ptx").write_text(VEC_ADD.replace("vec_add", f"k{i}"))
    (tmp_path / "bad.ptx").write_text(BAD)
    files = sorted(str(p) for p in tmp_path.glob("*.ptx"))
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "openptxas.batch", "-j", "2", "--progress", "--out-dir",
         str(out), "--json", str(tmp_path / "r.json"), "-arch=sm_90", *files],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert p.returncode == 1
    assert "3/4 compiled, 1 failed" in p.stderr and "[" + "#" * 30 + "] 4/4" in p.stderr
    assert "Not a name of any known instruction: 'bogus'" in p.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(Path(r["file"]).name, r["ok"]) for r in report] == [
        ("bad.ptx", False), ("k0.ptx", True), ("k1.ptx", True), ("k2.ptx", True)
    ]  # fmt: skip
    for i in range(3):
        single = openptxas.compile(VEC_ADD.replace("vec_add", f"k{i}"), arch="sm_90").cubin
        assert (out / f"k{i}.cubin").read_bytes() == single
    assert not (out / "bad.cubin").exists()
