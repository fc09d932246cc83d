"""``python -m bench``: run the benchmark, re-render a report, or profile one file.

::

    python -m bench run [--ptx-dir DIR | --kernels GLOB] [--targets sm_90] [-n 3]
                        [--out bench/results] [--gpu GPU.json] [--no-progress]
    python -m bench report RESULTS.json [--gpu GPU.json] [--out DIR]
    python -m bench profile FILE.ptx [--arch sm_90] [-n 3] [--cprofile N]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from bench.emu import emulator_status
from bench.gpu_merge import merge_gpu
from bench.inputs import BenchInput, corpus_inputs, dir_inputs
from bench.measure import Settings, measure, rss_floor_kb, startup_ms
from bench.model import Results, RunMeta
from bench.plots import write_plots
from bench.report import render
from openptxas.testing.corpus import ALL_TARGETS, REPO_ROOT
from openptxas.testing.oracle import Oracle
from openptxas.testing.tools import ToolMissing, require_tool, tool_version

DEFAULT_OUT = Path("bench") / "results"


def _git(*args: str) -> str:
    try:
        p = subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False
        )
    except OSError:
        return ""
    return p.stdout.strip() if p.returncode == 0 else ""


def _commit() -> str:
    head = _git("rev-parse", "--short=12", "HEAD") or "unknown"
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", "openptxas", "bench")
    return head + ("-dirty" if dirty else "")


def _progress(items: Sequence[BenchInput], enabled: bool) -> Iterator[BenchInput]:
    """tqdm's bar when it is installed (the `bench` extra), plain lines otherwise."""
    if not enabled:
        yield from items
        return
    try:
        from tqdm import tqdm
    except ImportError:
        for i, item in enumerate(items, 1):
            print(f"[{i}/{len(items)}] {item.key}", file=sys.stderr, flush=True)
            yield item
        return
    bar = tqdm(items, desc="bench", unit="file", file=sys.stderr, dynamic_ncols=True)
    for item in bar:
        bar.set_postfix_str(item.key, refresh=True)
        yield item


PLOTS_MISSING = "no plots: matplotlib is not installed (`python -m pip install -e '.[bench]'`)"


def have_matplotlib() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def write_outputs(results: Results, out: Path) -> list[Path]:
    """results.json, report.md and the PNG plots (when matplotlib is there) under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(results.to_json() + "\n")
    if have_matplotlib():
        plots = write_plots(results, out)
        (out / "report.md").write_text(render(results, plots))
    else:
        plots = []
        (out / "report.md").write_text(render(results, (), PLOTS_MISSING))
        print(f"bench: {PLOTS_MISSING}", file=sys.stderr)
    return [out / "results.json", out / "report.md", *(out / p for p in plots)]


def _targets(text: str) -> list[str]:
    ts = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in ts if t not in ALL_TARGETS]
    if bad:
        raise SystemExit(
            f"bench: unknown target(s) {', '.join(bad)} (known: {', '.join(ALL_TARGETS)})"
        )
    return ts


def _load_gpu(paths: Iterable[str], results: Results) -> Results:
    for p in paths:
        results = merge_gpu(results, json.loads(Path(p).read_text()))
    return results


def cmd_run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    targets = _targets(args.targets)
    oracle = Oracle()
    try:
        if args.ptx_dir:
            inputs, notes = dir_inputs(Path(args.ptx_dir), targets, args.kernels)
            source = f"every .ptx under {args.ptx_dir}"
        else:
            inputs, notes = corpus_inputs(targets, oracle, args.kernels)
            source = "the kernel corpus (tests/kernels, PTX by nvcc 13.0)"
        require_tool("nvdisasm")  # the static figures
        ptxas_version = tool_version("ptxas")
        p_start, o_start = startup_ms(args.runs)
    except ToolMissing as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    from openptxas import __version__

    meta = RunMeta(
        command="python -m bench " + shlex.join(argv),
        date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        commit=_commit(),
        runs=args.runs,
        targets=tuple(targets),
        inputs=source,
        ptxas_version=ptxas_version,
        openptxas_version=__version__,
        python=platform.python_version(),
        platform=f"{platform.system()} {platform.machine()}",
        cpus=os.cpu_count() or 1,
        ptxas_startup_ms=p_start,
        openptxas_startup_ms=o_start,
        rss_floor_kb=rss_floor_kb(),
        emulator=emulator_status() if args.emulate else "not run (--no-emu)",
        notes=tuple(notes),
    )
    if not have_matplotlib():
        print(f"bench: {PLOTS_MISSING}; measuring anyway", file=sys.stderr)
    out = Path(args.out)
    settings = Settings(
        runs=args.runs,
        timeout_s=args.timeout,
        keep_dir=out if args.keep_cubins else None,
        emulate=args.emulate,
    )
    files = tuple(measure(inp, oracle, settings) for inp in _progress(inputs, args.progress))
    results = _load_gpu(args.gpu, Results(meta, files))
    written = write_outputs(results, out)
    _print_headline(results)
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0


def _print_headline(results: Results) -> None:
    from bench.report import fmt_ratio
    from bench.stats import METRICS, counts, summarize

    c = counts(results.files)
    print(
        f"openptxas compiled {c.openptxas_ok} of {c.files} files (ptxas {c.ptxas_ok}); "
        f"ratios over the {c.both_ok} both compiled:"
    )
    for m in METRICS:
        s = summarize(results.files, m)
        print(f"  {m.title}: geomean {fmt_ratio(s.geomean)} over {s.count} files")


def cmd_report(args: argparse.Namespace) -> int:
    src = Path(args.results)
    results = _load_gpu(args.gpu, Results.load(src))
    out = Path(args.out) if args.out else src.parent
    written = write_outputs(results, out)
    _print_headline(results)
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0


def cmd_profile(args: argparse.Namespace) -> int:
    from bench.profile import profile

    return profile(Path(args.ptx), args.arch, args.runs, args.cprofile, args.ptxas_stats)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["run", *argv]
    ap = argparse.ArgumentParser(
        prog="python -m bench", description="Benchmark openptxas against ptxas 13.0.88."
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="measure both compilers and write JSON, markdown and plots")
    r.add_argument("--ptx-dir", help="every .ptx file under this directory (default: the corpus)")
    r.add_argument("--kernels", help="glob on corpus kernel names or on paths below --ptx-dir")
    r.add_argument("--targets", default="sm_90", help="comma-separated (default sm_90)")
    r.add_argument("-n", "--runs", type=int, default=3, help="timed runs per file (min is kept)")
    r.add_argument("--out", default=str(DEFAULT_OUT), help=f"output directory ({DEFAULT_OUT})")
    r.add_argument("--timeout", type=float, default=600.0, help="seconds per compile")
    r.add_argument("--gpu", action="append", default=[], help="merge bench.gpu's JSON")
    r.add_argument("--no-progress", dest="progress", action="store_false")
    r.add_argument("--no-emu", dest="emulate", action="store_false", help="skip the emulator")
    r.add_argument(
        "--no-cubins",
        dest="keep_cubins",
        action="store_false",
        help="do not keep the cubins under OUT/cubins (bench.gpu needs them)",
    )
    rep = sub.add_parser("report", help="re-render a report from results.json")
    rep.add_argument("results")
    rep.add_argument("--gpu", action="append", default=[], help="merge bench.gpu's JSON")
    rep.add_argument("--out", help="output directory (default: beside results.json)")
    pr = sub.add_parser("profile", help="compile time per phase, like ptxas --compiler-stats")
    pr.add_argument("ptx")
    pr.add_argument("--arch", default="sm_90")
    pr.add_argument("-n", "--runs", type=int, default=3, help="runs (min per phase is kept)")
    pr.add_argument("--cprofile", type=int, default=0, help="also print the top N functions")
    pr.add_argument(
        "--no-ptxas", dest="ptxas_stats", action="store_false", help="skip ptxas's own stats"
    )
    args = ap.parse_args(argv)
    if getattr(args, "runs", 1) < 1:
        ap.error("--runs must be at least 1")
    if args.cmd == "run":
        return cmd_run(args, argv)
    if args.cmd == "report":
        return cmd_report(args)
    return cmd_profile(args)
