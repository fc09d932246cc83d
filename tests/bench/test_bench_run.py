"""The benchmark end to end on three tiny PTX files (tests/bench/data).

openptxas cannot compile these yet, so besides the real compiler (whose failures must be recorded)
the harness also runs a stand-in (fake_openptxas.py: ptxas -O0 behind openptxas's CLI) that
exercises the success path: real cubins, nvdisasm figures, ratios and plots.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from bench import emu as emu_hook
from bench.cli import main, write_outputs
from bench.inputs import BenchInput, dir_inputs
from bench.measure import InProcess, Settings, measure, rss_floor_kb, run_process
from bench.model import FunctionFigures, Results, RunMeta, Side, Status
from bench.stats import METRIC_BY_KEY, summarize
from openptxas.testing.oracle import Oracle, parse_ptxas_verbose
from openptxas.testing.tools import require_tool
from tests.bench import fake_openptxas
from tests.conftest import need_tools

DATA = Path(__file__).parent / "data"
FAKE_CMD = (sys.executable, str(Path(fake_openptxas.__file__)))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def fake_in_process(inp: BenchInput, runs: int) -> InProcess:
    """The stand-in's in-process side: ptxas -O0, its -v figures as a CompileResult would give."""
    if fake_openptxas.rejects(inp.ptx):
        return InProcess(Status.ERROR, "error   : Feature 'fake' is not supported", (), b"", ())
    with tempfile_dir() as td:
        (td / "in.ptx").write_text(inp.ptx)
        t0 = time.perf_counter()
        p = subprocess.run(
            [require_tool("ptxas"), "-O0", "-v", f"-arch={inp.target}", "in.ptx", "-o", "o.cubin"],
            cwd=td,
            capture_output=True,
            text=True,
            check=True,
        )
        ms = (time.perf_counter() - t0) * 1000.0
        cubin = (td / "o.cubin").read_bytes()
    _, stats = parse_ptxas_verbose(p.stdout + p.stderr)
    funcs = tuple(
        FunctionFigures(
            f.name, f.kind == "entry", f.registers, f.spill_stores, f.spill_loads, f.stack_frame
        )
        for f in stats
    )
    return InProcess(Status.OK, "", (ms,) * runs, cubin, funcs)


def tempfile_dir() -> Any:
    import tempfile

    class _Dir:
        def __enter__(self) -> Path:
            self._td = tempfile.TemporaryDirectory()
            return Path(self._td.name)

        def __exit__(self, *exc: object) -> None:
            self._td.cleanup()

    return _Dir()


META = RunMeta(
    command="test",
    date="",
    commit="",
    runs=2,
    targets=("sm_90",),
    inputs=str(DATA),
    ptxas_version="",
    openptxas_version="",
    python="",
    platform="",
    cpus=1,
)


def test_process_measurement() -> None:
    # A child that touches 64 MiB: its own max RSS shows it, and a small child reads small
    # (not the size of the test process that started it).
    code = "b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096])"
    big = run_process([sys.executable, "-c", code])
    assert big.returncode == 0
    assert big.maxrss_kb > 64 * 1024
    small = run_process([sys.executable, "-S", "-c", "pass"])
    assert small.maxrss_kb < 32 * 1024
    assert rss_floor_kb() <= small.maxrss_kb + 1024  # the floor itself varies by a few KiB
    assert 0 < small.wall_ms < big.wall_ms + 5000
    r = run_process([sys.executable, "-c", "import sys; print('hi'); sys.exit(3)"])
    assert (r.returncode, r.output) == (3, "hi\n")
    slow = run_process([sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.5)
    assert slow.timed_out and slow.returncode != 0


def test_harness_end_to_end_with_a_stand_in(tmp_path: Path, oracle: Oracle) -> None:
    need_tools("ptxas", "nvdisasm")
    inputs, notes = dir_inputs(DATA, ["sm_90"])
    assert [i.name for i in inputs] == ["add_one.ptx", "sum_loop.ptx", "unsupported.ptx"]
    assert notes == []
    assert inputs[0].specs and inputs[0].specs[0].kernel == "add_one"
    settings = Settings(
        runs=2,
        keep_dir=tmp_path,
        emulate=False,
        openptxas_cmd=FAKE_CMD,
        in_process=fake_in_process,
    )
    files = tuple(measure(i, oracle, settings) for i in inputs)
    add, loop, bad = files

    # Successes: timings of every run, memory, static figures from nvdisasm.
    for f in (add, loop):
        assert f.ptxas.ok and f.openptxas.ok, (f.ptxas.message, f.openptxas.message)
        assert len(f.ptxas.wall_ms) == 2 and len(f.openptxas.wall_ms) == 2
        assert f.ptxas.peak_rss_kb > 0 and f.openptxas.peak_rss_kb > 0
        for run in (f.ptxas, f.openptxas):
            (fn,) = run.functions
            assert fn.instructions is not None and fn.instructions > 3
            assert fn.stall_cycles is not None and fn.stall_cycles >= fn.instructions
        assert (tmp_path / f.openptxas.cubin).read_bytes()[:4] == b"\x7fELF"
    # -O0 gives more registers than -O3 on these kernels (see the data files).
    assert add.openptxas.functions[0].registers > add.ptxas.functions[0].registers

    # The rejected file: recorded with the compiler's message, timed once, no figures.
    assert bad.ptxas.ok
    assert bad.openptxas.status is Status.ERROR
    assert "not supported by openptxas yet" in bad.openptxas.message
    assert len(bad.openptxas.wall_ms) == 1 and bad.openptxas.functions == ()

    # Ratios over the two files both compiled, from the recorded figures.
    s = summarize(files, METRIC_BY_KEY["instructions"])
    assert s.count == 2
    want = {
        f.key: f.openptxas.functions[0].instructions / f.ptxas.functions[0].instructions  # type: ignore[operator]
        for f in (add, loop)
    }
    assert dict(s.ratios) == pytest.approx(want)
    wall = dict(summarize(files, METRIC_BY_KEY["wall"]).ratios)
    assert wall[add.key] == pytest.approx(min(add.openptxas.wall_ms) / min(add.ptxas.wall_ms))

    # Outputs: JSON (round trip), markdown, PNGs.
    res = Results(META, files)
    written = write_outputs(res, tmp_path)
    assert Results.load(tmp_path / "results.json") == res
    md = (tmp_path / "report.md").read_text()
    assert "openptxas compiled 2 of 3 files" in md
    assert "unsupported.ptx [sm_90]" in md
    pngs = [p for p in written if p.suffix == ".png"]
    assert len(pngs) == 4
    for p in pngs:
        assert p.read_bytes()[:8] == PNG_MAGIC


def test_emulator_hook_fills_its_columns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, oracle: Oracle
) -> None:
    need_tools("ptxas", "nvdisasm")

    calls: list[tuple[int, str]] = []

    def run_launch(cubin: bytes, spec: Any) -> Any:
        calls.append((len(cubin), spec.kernel))
        # A made-up count that depends on the cubin, so the two sides differ.
        return types.SimpleNamespace(dynamic_instructions=len(cubin), cycles=2.0 * len(cubin))

    fake = types.ModuleType("openptxas.emu")
    fake.run_launch = run_launch  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "openptxas.emu", fake)
    emu_hook._entry.cache_clear()
    try:
        assert emu_hook.emulator_status() == "available"
        (add,) = [i for i in dir_inputs(DATA, ["sm_90"])[0] if i.name == "add_one.ptx"]
        settings = Settings(runs=1, openptxas_cmd=FAKE_CMD, in_process=fake_in_process)
        f = measure(add, oracle, settings)
    finally:
        emu_hook._entry.cache_clear()
    assert [c[1] for c in calls] == ["add_one", "add_one"]
    p_len, o_len = calls[0][0], calls[1][0]
    assert f.emu_total(Side.PTXAS, "instructions") == p_len
    assert f.emu_total(Side.OPENPTXAS, "cycles") == 2.0 * o_len
    assert METRIC_BY_KEY["cycles"].ratio(f) == pytest.approx(o_len / p_len)


def test_emulator_absent_is_na(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the emulator's entry point (an install without numpy, say) the emulator columns
    say why they are n/a instead of failing: the entry point is hidden to check it."""
    import openptxas.emu as real

    emu_hook._entry.cache_clear()
    try:
        assert emu_hook.emulator_status() == "available"
        emu_hook._entry.cache_clear()
        monkeypatch.delattr(real, emu_hook.ENTRY_POINT)
        assert emu_hook.emulator_status().startswith("not available")
    finally:
        emu_hook._entry.cache_clear()


def test_cli_with_the_real_compiler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real openptxas, whatever it manages today: every file gets a status, and the report
    counts and ratios agree with the JSON."""
    need_tools("ptxas", "nvdisasm")
    out = tmp_path / "out"
    rc = main(
        ["run", "--ptx-dir", str(DATA), "-n", "1", "--out", str(out), "--no-progress", "--no-emu"]
    )
    assert rc == 0
    res = Results.load(out / "results.json")
    assert [f.name for f in res.files] == ["add_one.ptx", "sum_loop.ptx", "unsupported.ptx"]
    assert res.meta.command.startswith("python -m bench run --ptx-dir")
    assert all(f.ptxas.ok for f in res.files)
    for f in res.files:
        if not f.openptxas.ok:
            assert f.openptxas.message, f"{f.key}: a failure without a message"
    n_ok = sum(f.openptxas.ok for f in res.files)
    md = (out / "report.md").read_text()
    assert f"openptxas compiled {n_ok} of 3 files" in md
    printed = capsys.readouterr().out
    assert f"openptxas compiled {n_ok} of 3 files" in printed
    # `report` re-renders the same figures from the JSON.
    assert main(["report", str(out / "results.json"), "--out", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "report.md").read_text().split("## Summary")[1] == md.split(
        "## Summary"
    )[1]


def test_profile_mode(capsys: pytest.CaptureFixture[str]) -> None:
    need_tools("ptxas")
    assert main(["profile", str(DATA / "add_one.ptx"), "-n", "1"]) == 0
    out = capsys.readouterr().out
    assert "== openptxas (sm_90" in out
    # Either the phase table (a compile) or the failure, and always the peak memory.
    assert "STAT: CompileTime" in out.split("== ptxas")[0] or "compile failed" in out
    assert "PeakMemoryUsage" in out
    # ptxas's own statistics, with its phase-wise times.
    ptxas_part = out.split("== ptxas --compiler-stats")[1]
    assert "CompileTime" in ptxas_part and "OCG-time" in ptxas_part


def test_gpu_json_is_merged(tmp_path: Path) -> None:
    from bench.gpu_merge import merge_gpu

    src = json.loads(Results(META, ()).to_json())
    assert src["files"] == []
    need_tools("ptxas", "nvdisasm")
    # Results for one file, then GPU records for it.
    res = Results.load(_tiny_results(tmp_path))
    name, target = res.files[0].name, res.files[0].target
    doc = {
        "schema": 1,
        "device": "Test GPU",
        "timed_launches": 5,
        "launches": [
            {"file": name, "target": target, "kernel": "add_one", "side": "ptxas", "ms": 0.01},
            {
                "file": name,
                "target": target,
                "kernel": "add_one",
                "side": "openptxas",
                "ms": 0.03,
                "matches_ptxas": True,
            },
        ],
    }
    merged = merge_gpu(res, doc)
    assert merged.meta.gpu.startswith("Test GPU")
    f = merged.files[0]
    assert f.gpu_total(Side.PTXAS) == pytest.approx(0.01)
    assert f.gpu_total(Side.OPENPTXAS) == pytest.approx(0.03)


def _tiny_results(tmp_path: Path) -> Path:
    out = tmp_path / "tiny"
    rc = main(
        [
            "run",
            "--ptx-dir",
            str(DATA),
            "--kernels",
            "add_one.ptx",
            "-n",
            "1",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert rc == 0
    return out / "results.json"


def test_gpu_script_without_a_gpu(tmp_path: Path) -> None:
    """Without a GPU (CI), bench.gpu says so and exits 3; with one it writes its JSON."""
    need_tools("ptxas", "nvdisasm")
    results = _tiny_results(tmp_path)
    p = subprocess.run(
        [sys.executable, "-m", "bench.gpu", str(results.parent), "--out", str(tmp_path / "g.json")],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    if p.returncode == 3:
        assert "bench.gpu:" in p.stderr
        assert not (tmp_path / "g.json").exists()
    else:
        assert p.returncode == 0, p.stderr
        doc = json.loads((tmp_path / "g.json").read_text())
        assert doc["schema"] == 1 and doc["launches"]
