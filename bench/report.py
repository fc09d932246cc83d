"""The markdown report of a benchmark run."""

from __future__ import annotations

from collections.abc import Sequence

from bench.model import FileResult, Results, Side
from bench.stats import (
    METRIC_BY_KEY,
    METRICS,
    WORST_KEYS,
    Metric,
    counts,
    failure_groups,
    first_line,
    geomean,
    spill_stack_totals,
    summarize,
    worst,
)

NA = "n/a"


def fmt_ratio(r: float | None) -> str:
    return NA if r is None else f"{r:.2f}×"


def fmt_num(v: float | None, digits: int = 1) -> str:
    if v is None:
        return NA
    if float(v).is_integer() and digits == 0:
        return str(int(v))
    return f"{v:.{digits}f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    align = align or "l" * len(head)
    sep = ["---:" if a == "r" else "---" for a in align]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return out


def _pair(f: FileResult, attr: str) -> str:
    p = f.ptxas.total(attr) if f.ptxas.ok else None
    o = f.openptxas.total(attr) if f.openptxas.ok else None
    return f"{fmt_num(p, 0)} / {fmt_num(o, 0)}"


def _status(f: FileResult) -> str:
    if f.openptxas.ok and f.ptxas.ok:
        return "ok" + (" (" + f.openptxas.message + ")" if f.openptxas.message else "")
    parts = []
    for side in Side:
        run = f.run(side)
        if not run.ok:
            first = first_line(run.message)
            parts.append(f"{side.value} {run.status.value}: {first}")
    return "; ".join(parts)


def render(results: Results, plots: Sequence[str] = (), plot_note: str = "") -> str:
    """The whole report; ``plots`` are PNG file names beside the markdown file."""
    m = results.meta
    files = results.files
    c = counts(files)
    lines = [
        "# openptxas vs ptxas: benchmark report",
        "",
        "Produced by:",
        "",
        "```bash",
        m.command,
        "```",
        "",
        f"- date: {m.date}; commit `{m.commit}`",
        f"- machine: {m.platform}, {m.cpus} CPUs; Python {m.python}",
        f"- ptxas: {m.ptxas_version}; openptxas {m.openptxas_version}",
        f"- inputs: {m.inputs}; targets: {', '.join(m.targets)}; "
        f"timed runs per file and compiler: {m.runs} (the minimum is reported)",
        f"- start-up alone (`--version`, min of {m.runs}): ptxas "
        f"{fmt_num(m.ptxas_startup_ms)} ms, openptxas (`python -m openptxas.cli`) "
        f"{fmt_num(m.openptxas_startup_ms)} ms",
        f"- peak memory: each compiler process's own max RSS (`wait4`), read through a small "
        f"launcher; nothing below {fmt_num(m.rss_floor_kb / 1024.0)} MiB can be seen",
        f"- emulator: {m.emulator or NA}",
        f"- GPU timings: {m.gpu or 'none merged (run `python -m bench.gpu` on a GPU machine)'}",
        *[f"- note: {n}" for n in m.notes],
        "",
        "## Summary",
        "",
        f"**openptxas compiled {c.openptxas_ok} of {c.files} files** "
        f"(ptxas compiled {c.ptxas_ok}). Ratios are openptxas / ptxas (below 1: openptxas is "
        f"better) and are computed only over the {c.both_ok} files both compilers compiled; a "
        "metric's `files` column says over how many files it is defined.",
        "",
    ]
    rows = []
    for metric in METRICS:
        s = summarize(files, metric)
        rows.append(
            [
                metric.title,
                str(s.count),
                fmt_ratio(s.geomean),
                fmt_ratio(s.minimum),
                fmt_ratio(s.median),
                fmt_ratio(s.maximum),
            ]
        )
    lines += _table(["metric", "files", "geomean ratio", "min", "median", "max"], rows, "lrrrrr")
    lines += [
        "",
        "The in-process row compares `compile_ptx` in a warm interpreter (min of N after a "
        "warm-up) with ptxas's whole process; the wall-time row compares process with process, "
        "interpreter start-up included.",
        "",
    ]
    lines += [
        "Absolute figures, geometric mean over the files each compiler compiled (ptxas's "
        "column is its baseline even where openptxas compiled nothing):",
        "",
    ]
    lines += _table(
        ["metric", "unit", "ptxas files", "ptxas geomean", "openptxas files", "openptxas geomean"],
        [_absolute_row(files, metric) for metric in METRICS],
        "llrrrr",
    )
    lines.append("")
    tot = spill_stack_totals(files)
    lines += _table(
        [
            "over files both compiled",
            "ptxas total",
            "openptxas total",
            "files where openptxas > ptxas",
        ],
        [[k, str(p), str(o), str(w)] for k, (p, o, w) in tot.items()],
        "lrrr",
    )
    for side in (Side.OPENPTXAS, Side.PTXAS):
        groups = failure_groups(files, side)
        if not groups:
            continue
        lines += ["", f"## {side.value} failures ({sum(g[1] for g in groups)} files)", ""]
        lines += _table(
            ["count", "first diagnostic line", "files"],
            [
                [str(n), msg, ", ".join(keys[:5]) + (" …" if len(keys) > 5 else "")]
                for msg, n, keys in groups
            ],
            "rll",
        )
    lines += ["", "## Worst files", ""]
    for key in WORST_KEYS:
        metric = METRIC_BY_KEY[key]
        ws = worst(files, metric)
        lines += [f"**{metric.title}** (10 largest ratios):", ""]
        if ws:
            lines += _table(["file", "ratio"], [[k, fmt_ratio(r)] for k, r in ws], "lr")
        else:
            lines.append(f"{NA}: no file has this ratio.")
        lines.append("")
    lines += ["## Per file", ""]
    lines += _table(
        [
            "file",
            "ptxas ms",
            "openptxas ms",
            "in-process ms",
            "ptxas MiB",
            "openptxas MiB",
            "instrs p / o",
            "regs p / o",
            "spill B p / o",
            "stack p / o",
            "stalls p / o",
            "dyn. instrs p / o",
            "cycles p / o",
            "GPU ms p / o",
            "status",
        ],
        [_file_row(f) for f in files],
        "lrrrrrrrrrrrrrl",
    )
    if plots or plot_note:
        lines += ["", "## Plots", ""]
        lines += [f"![{p}]({p})" for p in plots]
        if plot_note:
            lines.append(plot_note)
    lines.append("")
    return "\n".join(lines)


def _absolute_row(files: Sequence[FileResult], metric: Metric) -> list[str]:
    row = [metric.title, metric.unit]
    for side in (Side.PTXAS, Side.OPENPTXAS):
        vals = [v for f in files if (v := metric.value(f, side)) is not None and v > 0]
        row += [str(len(vals)), fmt_num(geomean(vals), 2)]
    return row


def _file_row(f: FileResult) -> list[str]:
    def mib(side: Side) -> str:
        kb = f.run(side).peak_rss_kb
        return fmt_num(kb / 1024.0) if kb else NA

    def spills(side: Side) -> int | None:
        run = f.run(side)
        if not run.ok:
            return None
        return (run.total("spill_stores") or 0) + (run.total("spill_loads") or 0)

    def pair(p: float | None, o: float | None, digits: int = 0) -> str:
        return f"{fmt_num(p, digits)} / {fmt_num(o, digits)}"

    return [
        f.key,
        fmt_num(f.ptxas.wall_min),
        fmt_num(f.openptxas.wall_min),
        fmt_num(f.openptxas.inproc_min),
        mib(Side.PTXAS),
        mib(Side.OPENPTXAS),
        _pair(f, "instructions"),
        pair(
            f.ptxas.entry_total("registers") if f.ptxas.ok else None,
            f.openptxas.entry_total("registers") if f.openptxas.ok else None,
        ),
        pair(spills(Side.PTXAS), spills(Side.OPENPTXAS)),
        pair(
            f.ptxas.maximum("stack_frame") if f.ptxas.ok else None,
            f.openptxas.maximum("stack_frame") if f.openptxas.ok else None,
        ),
        _pair(f, "stall_cycles"),
        pair(
            f.emu_total(Side.PTXAS, "instructions"),
            f.emu_total(Side.OPENPTXAS, "instructions"),
        ),
        pair(f.emu_total(Side.PTXAS, "cycles"), f.emu_total(Side.OPENPTXAS, "cycles")),
        pair(f.gpu_total(Side.PTXAS), f.gpu_total(Side.OPENPTXAS), 4),
        _status(f),
    ]
