"""PNG plots of a benchmark run (matplotlib, Agg backend: no display needed).

- ``ratios.png``: the distribution of each metric's openptxas / ptxas ratio (log scale).
- ``compile_time.png``: per-file compile wall time of both compilers (openptxas failures marked).
- ``code_quality.png``: per-file static SASS instructions and registers of both compilers.
- ``status.png``: how many files each compiler compiled, and openptxas's failures by kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.model import FileResult, Results, Side, Status
from bench.stats import METRICS, summarize

PTXAS_COLOR = "#76b900"
OPEN_COLOR = "#1f77b4"
FAIL_COLOR = "#d62728"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def plot_ratios(files: Sequence[FileResult], path: Path) -> None:
    plt = _pyplot()
    summaries = [summarize(files, m) for m in METRICS]
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(METRICS) + 1.8))
    labels = []
    for i, s in enumerate(summaries):
        gm = s.geomean
        labels.append(
            f"{s.metric.title}\n({s.count} files"
            + (f", geomean {gm:.2f}×)" if gm is not None else ")")
        )
        rs = [r for _, r in s.ratios]
        if rs:
            ax.boxplot(
                rs,
                positions=[i],
                orientation="horizontal",
                widths=0.5,
                showfliers=False,
                manage_ticks=False,
            )
            ax.scatter(rs, [i] * len(rs), s=10, alpha=0.6, color=OPEN_COLOR, zorder=3)
            if gm is not None:
                ax.scatter([gm], [i], marker="D", s=40, color="black", zorder=4)
        else:
            ax.text(1.0, i, "n/a", va="center", ha="center", color="gray")
    if not any(s.ratios for s in summaries):
        ax.set_xlim(0.1, 10.0)
    ax.set_yticks(range(len(summaries)), labels, fontsize=8)
    ax.set_ylim(len(summaries) - 0.5, -0.5)
    ax.set_xscale("log")
    ax.axvline(1.0, color="gray", linestyle="--", linewidth=1)
    ax.set_xlabel("openptxas / ptxas (log scale; left of 1 = openptxas better; ◆ = geomean)")
    n_both = sum(f.ptxas.ok and f.openptxas.ok for f in files)
    ax.set_title(f"Ratio distributions over the {n_both} of {len(files)} files both compiled")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _bars(
    ax: Any,
    files: Sequence[FileResult],
    get: Any,
    ylabel: str,
    log: bool,
) -> None:
    names = [f.key for f in files]
    x = list(range(len(files)))
    w = 0.4
    pv = [get(f, Side.PTXAS) for f in files]
    ov = [get(f, Side.OPENPTXAS) for f in files]
    ax.bar([i - w / 2 for i in x], [v or 0 for v in pv], w, label="ptxas", color=PTXAS_COLOR)
    ax.bar([i + w / 2 for i in x], [v or 0 for v in ov], w, label="openptxas", color=OPEN_COLOR)
    failed = [i for i, f in enumerate(files) if not f.openptxas.ok]
    if failed:
        # Marked at the foot of the axis, where openptxas's bar would start.
        base = min((v for v in pv if v), default=1.0) / 2 if log else 0.0
        ax.scatter(
            [i + w / 2 for i in failed],
            [base] * len(failed),
            marker="x",
            color=FAIL_COLOR,
            label="openptxas failed",
            zorder=3,
            clip_on=False,
        )
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_xticks(x, names, rotation=60, ha="right", fontsize=7)
    ax.legend(fontsize=8)


def _fig_width(n: int) -> float:
    return min(max(6.0, 0.35 * n + 2.0), 60.0)


def plot_compile_time(files: Sequence[FileResult], path: Path) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(_fig_width(len(files)), 5))
    if files:
        _bars(
            ax,
            files,
            lambda f, s: f.run(s).wall_min if f.run(s).ok else None,
            "compile wall time, ms (min of N, log)",
            True,
        )
    else:
        _empty(ax, "no files")
    ax.set_title("Compile wall time per file (separate process each)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_code_quality(files: Sequence[FileResult], path: Path) -> None:
    plt = _pyplot()
    fig, axes = plt.subplots(2, 1, figsize=(_fig_width(len(files)), 8))
    for ax, attr, label in (
        (axes[0], "instructions", "static SASS instructions"),
        (axes[1], "registers", "registers (sum over kernels)"),
    ):
        if files:
            _bars(
                ax,
                files,
                lambda f, s, a=attr: (
                    (f.run(s).entry_total(a) if a == "registers" else f.run(s).total(a))
                    if f.run(s).ok
                    else None
                ),
                label,
                False,
            )
        else:
            _empty(ax, "no files")
        ax.set_title(label + " per file")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_status(files: Sequence[FileResult], path: Path) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3))
    colors = {
        Status.OK: PTXAS_COLOR,
        Status.ERROR: "#ff7f0e",
        Status.CRASH: FAIL_COLOR,
        Status.TIMEOUT: "#9467bd",
    }
    labelled: set[Status] = set()
    for row, side in enumerate((Side.OPENPTXAS, Side.PTXAS)):
        left = 0
        for k, color in colors.items():
            n = sum(f.run(side).status is k for f in files)
            if n:
                label = None if k in labelled else k.value
                labelled.add(k)
                ax.barh(row, n, left=left, color=color, label=label)
                ax.text(left + n / 2, row, str(n), ha="center", va="center", color="white")
            left += n
    ax.set_yticks([0, 1], ["openptxas", "ptxas"])
    ax.set_xlabel("files")
    ax.set_title(f"Compile status over {len(files)} files")
    handles, _labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_plots(results: Results, out_dir: Path) -> list[str]:
    """Write every plot; returns the file names (relative to ``out_dir``)."""
    files = results.files
    made = []
    for name, fn in (
        ("status.png", plot_status),
        ("ratios.png", plot_ratios),
        ("compile_time.png", plot_compile_time),
        ("code_quality.png", plot_code_quality),
    ):
        fn(files, out_dir / name)
        made.append(name)
    return made
