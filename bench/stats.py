"""Ratios openptxas / ptxas per file, their geometric means and the worst files.

A ratio is defined for a file only when both compilers produced the figure and ptxas's is
positive; a figure of 0 on both sides counts as a ratio of 1. Files that openptxas failed to
compile have no ratios: every summary is over the files both compilers compiled.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bench.model import FileResult, Side

Extract = Callable[[FileResult, Side], float | None]


def geomean(values: Iterable[float]) -> float | None:
    """Geometric mean of positive values; None for an empty input."""
    vals = list(values)
    if not vals:
        return None
    if any(v <= 0 for v in vals):
        raise ValueError("geomean needs positive values")
    return math.exp(math.fsum(math.log(v) for v in vals) / len(vals))


def ratio(ours: float | None, theirs: float | None) -> float | None:
    """ours / theirs, or None where undefined (a side missing, or 0 against a non-zero)."""
    if ours is None or theirs is None:
        return None
    if theirs == 0:
        return 1.0 if ours == 0 else None
    if ours <= 0 or theirs < 0:
        return None
    return ours / theirs


@dataclass(frozen=True, slots=True)
class Metric:
    key: str
    title: str  # what is compared, for tables and plots
    unit: str  # unit of the absolute figures
    extract: Extract
    lower_is_better: bool = True

    def value(self, f: FileResult, side: Side) -> float | None:
        run = f.run(side)
        if not run.ok:
            return None
        return self.extract(f, side)

    def ratio(self, f: FileResult) -> float | None:
        if not (f.ptxas.ok and f.openptxas.ok):
            return None
        return ratio(self.value(f, Side.OPENPTXAS), self.value(f, Side.PTXAS))


def _wall(f: FileResult, s: Side) -> float | None:
    return f.run(s).wall_min


def _inproc(f: FileResult, s: Side) -> float | None:
    # ptxas has no in-process mode: its process wall time is the reference.
    return f.openptxas.inproc_min if s is Side.OPENPTXAS else f.ptxas.wall_min


def _rss(f: FileResult, s: Side) -> float | None:
    kb = f.run(s).peak_rss_kb
    return kb / 1024.0 if kb else None


def _total(attr: str) -> Extract:
    def get(f: FileResult, s: Side) -> float | None:
        v = f.run(s).total(attr)
        return None if v is None else float(v)

    return get


def _entry_total(attr: str) -> Extract:
    def get(f: FileResult, s: Side) -> float | None:
        v = f.run(s).entry_total(attr)
        return None if v is None else float(v)

    return get


def _emu(attr: str) -> Extract:
    def get(f: FileResult, s: Side) -> float | None:
        return f.emu_total(s, attr)

    return get


def _gpu(f: FileResult, s: Side) -> float | None:
    return f.gpu_total(s)


METRICS: tuple[Metric, ...] = (
    Metric("wall", "compile wall time, separate process (min of N)", "ms", _wall),
    Metric("inproc", "openptxas in-process compile vs ptxas process", "ms", _inproc),
    Metric("rss", "peak memory (max RSS)", "MiB", _rss),
    Metric("instructions", "static SASS instructions", "instrs", _total("instructions")),
    Metric("registers", "registers (sum over kernels)", "regs", _entry_total("registers")),
    Metric("stalls", "static stall cycles (sum of stall counts)", "cycles", _total("stall_cycles")),
    Metric("dyn_instructions", "emulator dynamic instructions", "instrs", _emu("instructions")),
    Metric("cycles", "emulator cycle estimate", "cycles", _emu("cycles")),
    Metric("gpu", "GPU kernel time (CUDA events)", "ms", _gpu),
)
METRIC_BY_KEY = {m.key: m for m in METRICS}
# The metrics whose worst files the report lists.
WORST_KEYS: tuple[str, ...] = ("wall", "instructions", "cycles", "gpu")


@dataclass(frozen=True, slots=True)
class Summary:
    metric: Metric
    ratios: tuple[tuple[str, float], ...]  # (file key, ratio), files with a defined ratio

    @property
    def count(self) -> int:
        return len(self.ratios)

    @property
    def geomean(self) -> float | None:
        return geomean(r for _, r in self.ratios)

    @property
    def median(self) -> float | None:
        return statistics.median(r for _, r in self.ratios) if self.ratios else None

    @property
    def minimum(self) -> float | None:
        return min((r for _, r in self.ratios), default=None)

    @property
    def maximum(self) -> float | None:
        return max((r for _, r in self.ratios), default=None)


def summarize(files: Sequence[FileResult], metric: Metric) -> Summary:
    rs = []
    for f in files:
        r = metric.ratio(f)
        if r is not None:
            rs.append((f.key, r))
    return Summary(metric, tuple(rs))


def worst(files: Sequence[FileResult], metric: Metric, n: int = 10) -> list[tuple[str, float]]:
    """The ``n`` files with the largest ratio (the worst when lower is better), ties by name."""
    s = summarize(files, metric)
    sign = -1.0 if metric.lower_is_better else 1.0
    return sorted(s.ratios, key=lambda kr: (sign * kr[1], kr[0]))[:n]


@dataclass(frozen=True, slots=True)
class Counts:
    files: int
    ptxas_ok: int
    openptxas_ok: int
    both_ok: int


def counts(files: Sequence[FileResult]) -> Counts:
    return Counts(
        files=len(files),
        ptxas_ok=sum(f.ptxas.ok for f in files),
        openptxas_ok=sum(f.openptxas.ok for f in files),
        both_ok=sum(f.ptxas.ok and f.openptxas.ok for f in files),
    )


_LOCATION = re.compile(r"^(?:ptxas|openptxas)(?: [^,]*, line \d+;)?\s*(?:error|fatal|warning)\s*: ")


def first_line(message: str) -> str:
    """A diagnostic's first line without the tool name, the line number and the repro command,
    so that the same problem in different files reads the same."""
    lines = message.strip().splitlines()
    return _LOCATION.sub("", lines[0].split("; repro: ")[0]) if lines else ""


def failure_groups(files: Sequence[FileResult], side: Side) -> list[tuple[str, int, list[str]]]:
    """Failures grouped by their first message line: (line, count, file keys), most common first."""
    groups: dict[str, list[str]] = {}
    for f in files:
        run = f.run(side)
        if run.ok:
            continue
        first = first_line(run.message) or run.status.value
        groups.setdefault(f"{run.status.value}: {first}", []).append(f.key)
    return sorted(((k, len(v), v) for k, v in groups.items()), key=lambda t: (-t[1], t[0]))


def spill_stack_totals(files: Sequence[FileResult]) -> dict[str, tuple[int, int, int]]:
    """Over files both compiled: (ptxas total, openptxas total, files where openptxas > ptxas)
    for spill bytes and stack bytes, where ratios mean little (mostly zero)."""
    out: dict[str, tuple[int, int, int]] = {}
    both = [f for f in files if f.ptxas.ok and f.openptxas.ok]
    for label, attrs in (
        ("spill bytes", ("spill_stores", "spill_loads")),
        ("stack frame bytes", ("stack_frame",)),
    ):
        p_tot = o_tot = worse = 0
        for f in both:
            p = sum(f.ptxas.total(a) or 0 for a in attrs)
            o = sum(f.openptxas.total(a) or 0 for a in attrs)
            p_tot += p
            o_tot += o
            worse += o > p
        out[label] = (p_tot, o_tot, worse)
    return out
