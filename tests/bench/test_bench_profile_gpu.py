"""The profile mode's arithmetic and the GPU script's launch logic (on a stand-in driver)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.gpu import time_file
from bench.model import CompilerRun, FileResult, FunctionFigures, Side, Status
from bench.profile import PACKAGE_DIR, Profile, format_profile, stage_times
from openptxas.spec import LaunchSpec

DATA = Path(__file__).parent / "data"


def test_stage_times_attribute_calls_out_of_the_package() -> None:
    lower = (str(PACKAGE_DIR / "lower" / "rules.py"), 10, "select")
    parse = (str(PACKAGE_DIR / "ptx" / "parser.py"), 5, "parse")
    driver = (str(PACKAGE_DIR / "driver.py"), 1, "compile_ptx")
    regex = ("~", 0, "<method 'match' of 're.Pattern' objects>")
    stats: dict[Any, Any] = {
        driver: (1, 1, 0.001, 0.010, {}),
        parse: (1, 1, 0.002, 0.005, {driver: (1, 1, 0.002, 0.005)}),
        lower: (1, 1, 0.001, 0.004, {driver: (1, 1, 0.001, 0.004)}),
        # re.match called from the parser (3 ms) and from lowering (2 ms).
        regex: (2, 2, 0.005, 0.005, {parse: (1, 1, 0.003, 0.003), lower: (1, 1, 0.002, 0.002)}),
    }
    got = stage_times(stats)
    assert got == pytest.approx({"driver": 0.001, "ptx": 0.005, "lower": 0.003})


def test_profile_format_like_compiler_stats() -> None:
    prof = Profile(
        total_ms=10.0,
        phases_ms={"GeneralOptimize": 2.0, "AllocateRegisters": 3.0},
        functions_ms={"k": 9.5},
    )
    text = format_profile(prof, 1234.5, {"ptx": 0.004, "lower": 0.001})
    lines = text.splitlines()
    assert lines[0] == "openptxas info    : STAT: CompileTime = 10.000 ms (100%)"
    assert "GeneralOptimize         : 2.000 ms (20.00%)" in text
    assert "AllocateRegisters       : 3.000 ms (30.00%)" in text
    assert "outside the phase table : 5.000 ms (50.00%)" in text
    assert "Compile-unit with entry k" in text
    assert "PeakMemoryUsage = 1234.500 KB" in text
    assert "ptx   : 4.000 ms (80.00%)" in text
    failed = format_profile(Profile(error="UnsupportedFeature: x", failed_after_ms=1.5), 1.0, {})
    assert "compile failed after 1.500 ms: UnsupportedFeature: x" in failed


class FakeDriver:
    """Runs add_one (a[i] += 1 for i < n) with numpy on 'device memory' held in a dict; the
    'openptxas' cubin adds 2 instead, so its outputs differ from ptxas's."""

    def __init__(self) -> None:
        self.mem: dict[int, np.ndarray[Any, Any]] = {}
        self.next = 0x1000
        self.timed = 0

    def load(self, cubin: bytes) -> bytes:
        return cubin

    def unload(self, mod: bytes) -> None:
        pass

    def function(self, mod: bytes, name: str) -> tuple[bytes, str]:
        assert name == "add_one"
        return (mod, name)

    def alloc(self, nbytes: int) -> int:
        self.next += 0x1000
        self.mem[self.next] = np.zeros(max(nbytes, 1), dtype=np.uint8)
        return self.next

    def free(self, ptr: int) -> None:
        del self.mem[ptr]

    def upload(self, ptr: int, arr: np.ndarray[Any, Any]) -> None:
        self.mem[ptr][: arr.nbytes] = np.frombuffer(arr.tobytes(), dtype=np.uint8)

    def download(self, ptr: int, like: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return self.mem[ptr][: like.nbytes].view(like.dtype).copy()

    def launch(self, fn: tuple[bytes, str], spec: LaunchSpec, params: bytes) -> None:
        ptr = int.from_bytes(params[0:8], "little")
        n = int.from_bytes(params[8:12], "little", signed=True)
        a = self.mem[ptr].view(np.int32)
        a[: min(n, spec.ctas * spec.threads)] += 2 if fn[0] == b"open" else 1

    def sync(self) -> None:
        pass

    def timed_launch(self, fn: tuple[bytes, str], spec: LaunchSpec, params: bytes) -> float:
        self.launch(fn, spec, params)
        self.timed += 1
        return 0.5 if fn[0] == b"open" else 0.25 + 0.01 * (self.timed % 3)


def test_gpu_launch_records(tmp_path: Path) -> None:
    (tmp_path / "cubins").mkdir()
    (tmp_path / "cubins" / "p.cubin").write_bytes(b"ptxas")
    (tmp_path / "cubins" / "o.cubin").write_bytes(b"open")
    fn = (FunctionFigures("add_one"),)
    f = FileResult(
        "add_one.ptx",
        "sm_90",
        "add_one.ptx",
        10,
        (),
        CompilerRun(Status.OK, functions=fn, cubin="cubins/p.cubin"),
        CompilerRun(Status.OK, functions=fn, cubin="cubins/o.cubin"),
        specs=str(DATA / "add_one.json"),
    )
    drv = FakeDriver()
    recs = time_file(drv, tmp_path, f, launches=4)  # type: ignore[arg-type]
    assert [(r["side"], r["kernel"]) for r in recs] == [
        (Side.PTXAS.value, "add_one"),
        (Side.OPENPTXAS.value, "add_one"),
    ]
    p, o = recs
    assert p["ms"] == pytest.approx(0.25)  # the minimum of the timed launches
    assert o["ms"] == pytest.approx(0.5)
    assert p["matches_ptxas"] is None
    assert o["matches_ptxas"] is False  # +2 against +1
    assert drv.mem == {}  # every buffer freed
    # A side that did not compile gets a record with the reason.
    failed = FileResult(
        f.name, f.target, f.source, 10, (), f.ptxas, CompilerRun(Status.ERROR, "x"), f.specs
    )
    recs = time_file(FakeDriver(), tmp_path, failed, launches=2)  # type: ignore[arg-type]
    assert recs[1]["ms"] is None and "did not compile" in recs[1]["error"]
