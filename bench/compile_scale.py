"""Compile time against input size, next to ptxas: is every phase linear? (issue 24)

Builds synthetic kernels of growing size in three families and compiles each with openptxas in
process (``compile_ptx``, process CPU time, with its per-phase CPU timings) and with ptxas 13.0.88
as a process (its CPU time, user + system):

- ``straight``: one basic block of N integer/float ALU instructions over 64 live registers (unrolled
  code; bench/ptx_parse_scale.py's kernel);
- ``branches``: N/8 if/else diamonds in a row (a compare, a branch, three instructions per arm):
  many blocks and merges for the CFG passes, if-conversion and the scheduler's region boundaries;
- ``loops``: N/10 counted loops one after the other, each with a small body (loop analyses,
  liveness across back edges).

For each family it prints the time per size, the slope of log(time) against log(SASS
instructions) between consecutive sizes and over the whole range (1.0 is linear; the issue asks
<= 1.1 between 1k and 64k instructions), and the phases whose own slope is the largest (where
super-linear work hides). ``--plot`` draws time against size for both compilers (log-log).

    python bench/compile_scale.py [--quick] [--families straight branches]
        [--json bench/results/compile_scale.json] [--plot bench/results/compile_scale.png]
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ptx_parse_scale import HEAD, straight  # noqa: E402
from openptxas.driver import compile_ptx  # noqa: E402
from openptxas.elf.reader import read_cubin  # noqa: E402
from openptxas.options import Options  # noqa: E402

_ARM = (
    "add.s32 %r{d}, %r{a}, %r{b};",
    "xor.b32 %r{e}, %r{d}, {k};",
    "mad.lo.s32 %r{a}, %r{e}, %r{b}, %r{a};",
)


def _frame(body: list[str], preds: int) -> str:
    out = [
        HEAD,
        ".visible .entry k(.param .u64 p)\n{\n",
        f"\t.reg .b32 %r<65>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<{preds + 1}>;\n",
        "\tld.param.u64 %rd1, [p];\n",
    ]
    out += [f"\tld.global.u32 %r{r}, [%rd1+{4 * r}];\n" for r in range(1, 65)]
    out += body
    out += [f"\tst.global.u32 [%rd1+{4 * r}], %r{r};\n" for r in range(1, 65)]
    out.append("\tret;\n}\n")
    return "".join(out)


def branches(n: int) -> str:
    """``n // 8`` if/else diamonds (each: setp, bra, 3 + 3 instructions, a join)."""
    body = []
    for i in range(max(1, n // 8)):
        a, b = i * 7 % 64 + 1, i * 13 % 64 + 1
        d, e = (i * 5 + 11) % 64 + 1, (i * 3 + 29) % 64 + 1
        body.append(f"\tsetp.lt.s32 %p1, %r{a}, %r{b};\n\t@%p1 bra T{i};\n")
        body += ["\t" + x.format(a=a, b=b, d=d, e=e, k=i) + "\n" for x in _ARM]
        body.append(f"\tbra.uni J{i};\nT{i}:\n")
        body += ["\t" + x.format(a=b, b=a, d=e, e=d, k=i + 1) + "\n" for x in _ARM]
        body.append(f"J{i}:\n")
    return _frame(body, 1)


def loops(n: int) -> str:
    """``n // 10`` counted loops in a row (a 4-instruction body, trip count from memory)."""
    body = []
    for i in range(max(1, n // 10)):
        a, b, d = i * 7 % 64 + 1, i * 13 % 64 + 1, (i * 5 + 11) % 64 + 1
        body.append(f"\tand.b32 %r{d}, %r{a}, 7;\nL{i}:\n")
        body.append(f"\tadd.s32 %r{a}, %r{a}, %r{b};\n\txor.b32 %r{b}, %r{b}, {i};\n")
        body.append(f"\tsub.s32 %r{d}, %r{d}, 1;\n\tsetp.gt.s32 %p1, %r{d}, 0;\n")
        body.append(f"\t@%p1 bra L{i};\n")
    return _frame(body, 1)


FAMILIES: dict[str, Callable[[int], str]] = {
    "straight": lambda n: straight(n, False),
    "branches": branches,
    "loops": loops,
}
SIZES = [1000, 2000, 4000, 8000, 16000, 32000, 64000]
QUICK = [1000, 4000, 16000]


def sass_instructions(cubin: bytes) -> int:
    c = read_cubin(cubin)
    return sum(len(s.data()) // 16 for s in c.sections if s.name.startswith(".text."))


def ours(text: str) -> tuple[float, dict[str, float], int]:
    """CPU time of one in-process compile, its per-phase timings, SASS instructions."""
    t0 = time.process_time()
    res = compile_ptx(text, Options(arch="sm_90"), "scale.ptx")
    dt = time.process_time() - t0
    return dt, dict(res.timings), sass_instructions(res.cubin)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def ptxas_time(ptxas: str, text: str, timeout: float) -> tuple[float | None, int | None]:
    """CPU time of ``ptxas -arch=sm_90`` (None past the timeout) and its SASS instructions.
    CPU, as ours: on a loaded machine wall time varied fourfold between runs."""
    with tempfile.TemporaryDirectory() as td:
        src, out = Path(td) / "in.ptx", Path(td) / "out.cubin"
        src.write_text(text)
        t0 = _children_cpu()
        try:
            subprocess.run(
                [ptxas, "-arch=sm_90", str(src), "-o", str(out)],
                capture_output=True,
                timeout=timeout,
                check=True,
            )
        except subprocess.TimeoutExpired:
            return None, None
        return _children_cpu() - t0, sass_instructions(out.read_bytes())


def slope(x0: float, y0: float, x1: float, y1: float) -> float:
    return math.log(y1 / y0) / math.log(x1 / x0) if x1 != x0 and y0 > 0 and y1 > 0 else 0.0


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    ptxas = None if args.no_ptxas else shutil.which("ptxas")
    rows: list[dict[str, Any]] = []
    for fam in args.families:
        build = FAMILIES[fam]
        print(f"\n== {fam}")
        print(f"{'N':>7s} {'SASS':>7s} {'ours s':>8s} {'us/instr':>8s} {'ptxas s':>8s}  ratio")
        for n in QUICK if args.quick else args.sizes:
            text = build(n)
            t, phases, sass = ours(text)
            p, psass = ptxas_time(ptxas, text, args.ptxas_timeout) if ptxas else (None, None)
            rows.append(
                {"family": fam, "n": n, "bytes": len(text), "sass": sass, "ours_s": t,
                 "phases": phases, "ptxas_s": p, "ptxas_sass": psass}
            )  # fmt: skip
            ratio = f"{t / p:6.1f}" if p else "     -"
            print(
                f"{n:7d} {sass:7d} {t:8.3f} {1e6 * t / sass:8.1f} "
                f"{'-' if p is None else f'{p:8.3f}':>8s} {ratio}",
                flush=True,
            )
        report(fam, [r for r in rows if r["family"] == fam])
    return rows


def report(fam: str, rs: list[dict[str, Any]]) -> None:
    """Slopes over the range and per phase (the phases with the steepest growth first)."""
    if len(rs) < 2:
        return
    a, b = rs[0], rs[-1]
    ours_slope = slope(a["sass"], a["ours_s"], b["sass"], b["ours_s"])
    line = f"{fam}: slope ours {ours_slope:.2f}"
    if a["ptxas_s"] and b["ptxas_s"]:
        line += f", ptxas {slope(a['ptxas_sass'], a['ptxas_s'], b['ptxas_sass'], b['ptxas_s']):.2f}"
    print(line + f" (log time / log SASS instructions, {a['sass']} -> {b['sass']})")
    steep = []
    for ph, t1 in b["phases"].items():
        t0 = a["phases"].get(ph, 0.0)
        if t1 > 0.02 * b["ours_s"] and t0 > 0:
            steep.append((slope(a["sass"], t0, b["sass"], t1), ph, t1))
    for s, ph, t1 in sorted(steep, reverse=True)[:6]:
        print(f"    {ph:32s} slope {s:5.2f}  {t1:8.3f} s at the largest size")


def plot(rows: list[dict[str, Any]], out: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(8, 5.5))
    colors = {"straight": "#1f77b4", "branches": "#ff7f0e", "loops": "#2ca02c"}
    for fam in dict.fromkeys(r["family"] for r in rows):
        rs = [r for r in rows if r["family"] == fam]
        c = colors.get(fam, "k")
        ax.plot([r["sass"] for r in rs], [r["ours_s"] for r in rs], "o-", color=c,
                label=f"openptxas (in process): {fam}")  # fmt: skip
        pts = [(r["ptxas_sass"], r["ptxas_s"]) for r in rs if r["ptxas_s"]]
        if pts:
            ax.plot(*zip(*pts, strict=True), "s--", color=c, alpha=0.6, label=f"ptxas: {fam}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("SASS instructions")
    ax.set_ylabel("compile time (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Compile time against kernel size (CPU: openptxas in process, ptxas 13.0.88)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"plot: {out}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"sizes {QUICK} only")
    ap.add_argument("--sizes", type=int, nargs="*", default=SIZES)
    ap.add_argument("--families", nargs="*", default=list(FAMILIES), choices=list(FAMILIES))
    ap.add_argument("--ptxas-timeout", type=float, default=600.0)
    ap.add_argument("--no-ptxas", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--plot", type=Path, default=None)
    ap.add_argument("--from-json", type=Path, default=None, help="only report and redraw")
    args = ap.parse_args(argv)
    if args.from_json:
        rows = json.loads(args.from_json.read_text())
        for fam in dict.fromkeys(r["family"] for r in rows):
            report(fam, [r for r in rows if r["family"] == fam])
    else:
        rows = measure(args)
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(rows, indent=1) + "\n")
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
