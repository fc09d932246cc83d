"""``python -m bench profile FILE.ptx``: where the compile time goes, in the manner of ptxas's
``--compiler-stats=time,memory,phase-wise,detailed``.

For openptxas it prints the in-process compile time, each phase of the phase table
(``CompileResult.timings``, min over the runs), the rest (parsing, lowering, cubin writing: work
outside the phase table) and each function's compile time; the peak of Python's allocations
(tracemalloc, one run); and a breakdown by compiler stage (the ``openptxas`` sub-package the time
is spent in, from one cProfile run, so it works even when the compile fails). Then ptxas's own
statistics for the same file.
"""

from __future__ import annotations

import cProfile
import pstats
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.measure import no_verify
from openptxas.testing.corpus import REPO_ROOT
from openptxas.testing.tools import find_tool

PACKAGE_DIR = REPO_ROOT / "openptxas"
# ptxas 13.0.88 takes a comma-separated list of these (checked by running it).
PTXAS_STATS = "time,memory,phase-wise,detailed"


@dataclass
class Profile:
    total_ms: float | None = None  # min over the runs; None when the compile failed
    phases_ms: dict[str, float] = field(default_factory=dict)  # min over the runs
    functions_ms: dict[str, float] = field(default_factory=dict)
    error: str = ""
    failed_after_ms: float = 0.0


def _compile(text: str, arch: str, filename: str) -> Any:
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    return compile_ptx(text, Options(arch=arch), filename)


def _describe(exc: BaseException) -> str:
    from openptxas.diag import OpenPtxasError

    if isinstance(exc, OpenPtxasError):
        return f"{type(exc).__name__}: {exc.render()}"
    return f"internal error: {type(exc).__name__}: {exc}"


def measure_phases(text: str, arch: str, filename: str, runs: int) -> Profile:
    prof = Profile()
    with no_verify():
        for i in range(runs + 1):  # the first run pays the lazy imports and is not kept
            t0 = time.process_time()  # CPU time, as the phases' (passes.manager)
            try:
                res = _compile(text, arch, filename)
            except Exception as exc:
                prof.error = _describe(exc)
                prof.failed_after_ms = (time.process_time() - t0) * 1000.0
                return prof
            ms = (time.process_time() - t0) * 1000.0
            if i == 0:
                continue
            prof.total_ms = ms if prof.total_ms is None else min(prof.total_ms, ms)
            for k, v in res.timings.items():
                prof.phases_ms[k] = min(prof.phases_ms.get(k, v * 1000.0), v * 1000.0)
            for f in res.functions:
                prof.functions_ms[f.name] = min(
                    prof.functions_ms.get(f.name, f.compile_ms), f.compile_ms
                )
    return prof


def peak_memory_kb(text: str, arch: str, filename: str) -> float:
    """Peak of Python allocations during one compile (tracemalloc), failed or not."""
    with no_verify():
        tracemalloc.start()
        try:
            _compile(text, arch, filename)
        except Exception:
            pass  # the peak up to the failure is still what it cost
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    return peak / 1024.0


def _stage(path: str) -> str | None:
    """The compiler stage of a source file: its openptxas sub-package (or top-level module)."""
    try:
        rel = Path(path).resolve().relative_to(PACKAGE_DIR)
    except (ValueError, OSError):
        return None
    return rel.parts[0].removesuffix(".py") if rel.parts else None


Edge = tuple[int, int, float, float]
FuncKey = tuple[str, int, str]
StatsMap = Mapping[FuncKey, tuple[int, int, float, float, Mapping[FuncKey, Edge]]]


def stage_times(stats: StatsMap) -> dict[str, float]:
    """Seconds per stage: the stage's own functions' time, plus the whole time of calls they
    make out of the package (the standard library, builtins). Approximate: a callback from
    outside back into the package is counted twice."""
    out: dict[str, float] = {}
    for (path, _, _), (_, _, tt, _, callers) in stats.items():
        stage = _stage(path)
        if stage is not None:
            out[stage] = out.get(stage, 0.0) + tt
            continue
        for (cpath, _, _), (_, _, _, ct) in callers.items():
            cstage = _stage(cpath)
            if cstage is not None:
                out[cstage] = out.get(cstage, 0.0) + ct
    return out


def profile_stages(text: str, arch: str, filename: str) -> tuple[dict[str, float], pstats.Stats]:
    pr = cProfile.Profile()
    with no_verify():
        pr.enable()
        try:
            _compile(text, arch, filename)
        except Exception:
            pass
        finally:
            pr.disable()
    st = pstats.Stats(pr)
    return stage_times(st.stats), st  # type: ignore[attr-defined]


def _line(name: str, ms: float, total: float, width: int) -> str:
    pct = 100.0 * ms / total if total > 0 else 0.0
    return f"{name:<{width}} : {ms:.3f} ms ({pct:.2f}%)"


def format_profile(prof: Profile, peak_kb: float, stages: Mapping[str, float]) -> str:
    lines = []
    if prof.total_ms is None:
        lines.append(
            f"openptxas info    : STAT: compile failed after {prof.failed_after_ms:.3f} ms: "
            f"{prof.error}"
        )
    else:
        total = prof.total_ms
        lines.append(f"openptxas info    : STAT: CompileTime = {total:.3f} ms (100%)")
        rest = max(total - sum(prof.phases_ms.values()), 0.0)
        rows = [*prof.phases_ms.items(), ("outside the phase table", rest)]
        width = max(len(n) for n, _ in rows)
        lines += [_line(n, ms, total, width) for n, ms in rows]
        for name, ms in prof.functions_ms.items():
            lines.append(
                f"\nCompile-unit with entry {name}\n\tTotal Compile-Unit time = {ms:.3f} ms"
            )
    lines.append(f"\nopenptxas info    : STAT: PeakMemoryUsage = {peak_kb:.3f} KB (tracemalloc)")
    total_s = sum(stages.values())
    if total_s > 0:
        lines.append("\nopenptxas info    : STAT: time by compiler stage (cProfile, one run):")
        width = max(len(s) for s in stages)
        for s, sec in sorted(stages.items(), key=lambda kv: -kv[1]):
            lines.append("  " + _line(s, sec * 1000.0, total_s * 1000.0, width))
    return "\n".join(lines)


def ptxas_stats(path: Path, arch: str) -> str:
    ptxas = find_tool("ptxas")
    if ptxas is None:
        return "ptxas not found: no reference statistics"
    with tempfile.TemporaryDirectory() as td:
        p = subprocess.run(
            [
                ptxas,
                f"-arch={arch}",
                f"--compiler-stats={PTXAS_STATS}",
                str(path),
                "-o",
                str(Path(td) / "out.cubin"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    return (p.stdout + p.stderr).rstrip()


def profile(path: Path, arch: str, runs: int, top: int, with_ptxas: bool) -> int:
    text = path.read_text(encoding="utf-8", errors="replace")
    prof = measure_phases(text, arch, path.name, runs)
    peak = peak_memory_kb(text, arch, path.name)
    stages, st = profile_stages(text, arch, path.name)
    print(f"== openptxas ({arch}, {path}; in-process, min of {runs} runs after a warm-up)")
    print(format_profile(prof, peak, stages))
    if top > 0:
        print(f"\n== cProfile, top {top} functions by cumulative time")
        st.sort_stats("cumulative").print_stats(top)
    if with_ptxas:
        print(f"\n== ptxas --compiler-stats={PTXAS_STATS} ({arch}, {path})")
        print(ptxas_stats(path, arch))
    return 0
