"""The benchmark's arithmetic and report on made-up results (no tools needed)."""

from __future__ import annotations

import pytest

from bench.model import (
    CompilerRun,
    EmuLaunch,
    FileResult,
    FunctionFigures,
    Results,
    RunMeta,
    Side,
    Status,
)
from bench.report import render
from bench.stats import (
    METRIC_BY_KEY,
    counts,
    failure_groups,
    geomean,
    ratio,
    spill_stack_totals,
    summarize,
    worst,
)


def test_geomean() -> None:
    assert geomean([1.0, 4.0]) == pytest.approx(2.0)
    assert geomean([2.0, 8.0, 4.0]) == pytest.approx(4.0)
    assert geomean([3.5]) == pytest.approx(3.5)
    assert geomean([]) is None
    with pytest.raises(ValueError):
        geomean([1.0, 0.0])


def test_ratio_edge_cases() -> None:
    assert ratio(6.0, 3.0) == 2.0
    assert ratio(0.0, 0.0) == 1.0  # both none: equal
    assert ratio(5.0, 0.0) is None  # undefined against zero
    assert ratio(None, 3.0) is None
    assert ratio(3.0, None) is None
    assert ratio(0.0, 3.0) is None  # a zero figure has no log


def run(
    ms: float, instrs: int, regs: int = 10, spill: int = 0, stack: int = 0, ok: bool = True
) -> CompilerRun:
    if not ok:
        return CompilerRun(Status.ERROR, "in.ptx, line 3; error   : not supported yet", (ms,))
    return CompilerRun(
        Status.OK,
        wall_ms=(ms + 1.0, ms, ms + 2.0),
        peak_rss_kb=2048,
        inproc_ms=(ms / 2,),
        functions=(
            FunctionFigures(
                "k",
                regs,
                spill_stores=spill,
                stack_frame=stack,
                instructions=instrs,
                stall_cycles=2 * instrs,
            ),
        ),
    )


def fr(name: str, p: CompilerRun, o: CompilerRun, **kw: object) -> FileResult:
    return FileResult(name, "sm_90", f"{name}.ptx", 10, (), p, o, **kw)  # type: ignore[arg-type]


FILES = (
    fr("a", run(10.0, 100), run(20.0, 100)),  # time 2x, instrs 1x
    fr("b", run(10.0, 50), run(80.0, 100, spill=8, stack=16)),  # time 8x, instrs 2x
    fr("c", run(10.0, 40), run(5.0, 20)),  # time 0.5x, instrs 0.5x
    fr("d", run(10.0, 40), run(1.0, 0, ok=False)),  # openptxas failed: no ratio
)


def test_ratios_only_over_files_both_compiled() -> None:
    s = summarize(FILES, METRIC_BY_KEY["wall"])
    assert s.count == 3
    assert dict(s.ratios) == {"a [sm_90]": 2.0, "b [sm_90]": 8.0, "c [sm_90]": 0.5}
    assert s.geomean == pytest.approx(2.0)  # (2 * 8 * 0.5) ** (1/3)
    assert s.median == 2.0
    instrs = summarize(FILES, METRIC_BY_KEY["instructions"])
    assert instrs.geomean == pytest.approx(1.0)
    assert summarize(FILES, METRIC_BY_KEY["inproc"]).geomean == pytest.approx(1.0)
    # No emulator or GPU figures: no file has those ratios.
    assert summarize(FILES, METRIC_BY_KEY["cycles"]).count == 0
    assert summarize(FILES, METRIC_BY_KEY["gpu"]).geomean is None
    c = counts(FILES)
    assert (c.files, c.ptxas_ok, c.openptxas_ok, c.both_ok) == (4, 4, 3, 3)


def test_worst_ordering_and_limit() -> None:
    files = [fr(f"k{i:02d}", run(10.0, 10), run(10.0 * (i % 5 + 1), 10)) for i in range(12)]
    ws = worst(files, METRIC_BY_KEY["wall"])
    assert len(ws) == 10
    assert [r for _, r in ws] == sorted((r for _, r in ws), reverse=True)
    # Ties are ordered by name: k04 and k09 have ratio 5.
    assert ws[0] == ("k04 [sm_90]", 5.0)
    assert ws[1] == ("k09 [sm_90]", 5.0)
    assert worst(files, METRIC_BY_KEY["wall"], n=3)[2][1] == 4.0


def test_emulator_figures_sum_over_launches() -> None:
    emu = (
        EmuLaunch("k", Side.PTXAS, 100, 1000.0),
        EmuLaunch("k2", Side.PTXAS, 50, 500.0),
        EmuLaunch("k", Side.OPENPTXAS, 300, 3000.0),
        EmuLaunch("k2", Side.OPENPTXAS, 150, 1500.0),
    )
    f = fr("e", run(1.0, 5), run(1.0, 5), emu=emu)
    assert METRIC_BY_KEY["dyn_instructions"].ratio(f) == pytest.approx(3.0)
    assert METRIC_BY_KEY["cycles"].ratio(f) == pytest.approx(3.0)
    broken = fr(
        "e", run(1.0, 5), run(1.0, 5), emu=(*emu[:3], EmuLaunch("k2", Side.OPENPTXAS, error="x"))
    )
    assert METRIC_BY_KEY["cycles"].ratio(broken) is None


def test_failures_and_totals() -> None:
    groups = failure_groups(FILES, Side.OPENPTXAS)
    assert groups == [("error: in.ptx, line 3; error   : not supported yet", 1, ["d [sm_90]"])]
    assert failure_groups(FILES, Side.PTXAS) == []
    tot = spill_stack_totals(FILES)
    assert tot["spill bytes"] == (0, 8, 1)
    assert tot["stack frame bytes"] == (0, 16, 1)


META = RunMeta(
    command="python -m bench run -n 3",
    date="2026-01-01 00:00 UTC",
    commit="abc",
    runs=3,
    targets=("sm_90",),
    inputs="test",
    ptxas_version="13.0.88",
    openptxas_version="0.1.0",
    python="3.11",
    platform="Linux",
    cpus=2,
    emulator="not available: test",
)


def test_json_round_trip() -> None:
    res = Results(META, FILES)
    back = Results.from_json(res.to_json())
    assert back == res


def test_report_states_counts_and_geomeans() -> None:
    md = render(Results(META, FILES), ["ratios.png"])
    assert "python -m bench run -n 3" in md
    assert "openptxas compiled 3 of 4 files" in md
    assert "over the 3 files both compilers compiled" in md
    geo = 2.0**1.0
    assert f"| compile wall time, separate process (min of N) | 3 | {geo:.2f}× |" in md
    assert "not supported yet" in md
    assert "![ratios.png](ratios.png)" in md
    # The worst list by wall time starts with b (8x).
    worst_section = md.split("## Worst files")[1]
    assert worst_section.index("b [sm_90]") < worst_section.index("a [sm_90]")


def test_outputs_without_matplotlib(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import bench.cli

    monkeypatch.setattr(bench.cli, "have_matplotlib", lambda: False)
    written = bench.cli.write_outputs(Results(META, FILES), tmp_path)
    assert sorted(p.name for p in written) == ["report.md", "results.json"]
    assert "matplotlib is not installed" in (tmp_path / "report.md").read_text()
    assert not list(tmp_path.glob("*.png"))


def test_failure_lines_group_across_files() -> None:
    from bench.stats import first_line

    a = "ptxas in.ptx, line 55; error   : instruction 'sin.approx.f32' is not supported yet\nmore"
    b = "ptxas in.ptx, line 9; error   : instruction 'sin.approx.f32' is not supported yet"
    assert first_line(a) == first_line(b) == "instruction 'sin.approx.f32' is not supported yet"
    crash = "ptxas fatal   : internal error: KeyError: 3; repro: openptxas -arch=sm_90 in.ptx"
    assert first_line(crash) == "internal error: KeyError: 3"
    assert first_line("") == ""
