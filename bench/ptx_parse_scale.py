"""PTX front-end cost against input size, next to ptxas: is it linear, and how far from ptxas?

Builds synthetic PTX of growing size in four families and times openptxas's parse + check
(``openptxas.ptx.diagnose``, in process, CPU time, best of --repeat) and ptxas 13.0.88 (wall time of
the whole process, best of --repeat):

- ``lines``: a straight-line kernel of N instructions, one per line (integer and float ALU
  instructions cycling over 64 registers, as unrolled code is);
- ``one-line``: the same kernel with every new line replaced by a space (one line of megabytes);
- ``regs``: a kernel declaring ``.reg .b32 %r<N>`` (up to 2*10^8 registers) and using the last;
- ``table``: a module-scope ``.b8`` table of N bytes in one initializer.

ptxas has no parse-only mode: for each input it is timed twice, compiling the valid file
(``compile``: an upper bound of its parse time) and rejecting the same file with an error planted
in its last statement (``reject``: it reads and checks everything, then stops before code
generation; still an upper bound, process start included). Our figure is parse + check only: the
back end is not part of this measure.

Writes a table (text, and JSON with --json) and, when matplotlib is installed, a plot of time
against input size (log-log) to --plot.

    python bench/ptx_parse_scale.py [--quick] [--plot bench/results/ptx_parse_scale.png]
"""

from __future__ import annotations

import argparse
import json
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

from openptxas.diag import Severity  # noqa: E402
from openptxas.ptx import diagnose  # noqa: E402

HEAD = ".version 9.0\n.target sm_90\n.address_size 64\n"
_OPS = (
    "add.s32 %r{d}, %r{a}, %r{b};",
    "mul.lo.s32 %r{d}, %r{a}, {k};",
    "xor.b32 %r{d}, %r{a}, %r{b};",
    "mad.lo.s32 %r{d}, %r{a}, %r{b}, %r{d};",
    "shl.b32 %r{d}, %r{a}, 3;",
    "fma.rn.f32 %f{d}, %f{a}, %f{b}, %f{d};",
    "add.f32 %f{d}, %f{a}, 0f3F800000;",
    "cvt.rn.f32.s32 %f{d}, %r{a};",
)


def straight(n: int, bad: bool) -> str:
    """A kernel of ``n`` instructions (plus loads and stores), one per line."""
    out = [
        HEAD,
        ".visible .entry k(.param .u64 p)\n{\n",
        "\t.reg .b32 %r<65>;\n\t.reg .f32 %f<65>;\n\t.reg .b64 %rd<2>;\n",
        "\tld.param.u64 %rd1, [p];\n",
    ]
    for r in range(1, 65):
        out.append(f"\tld.global.u32 %r{r}, [%rd1+{4 * r}];\n\tmov.b32 %f{r}, %r{r};\n")
    for i in range(n):
        d, a, b = i % 64 + 1, (i * 7 + 3) % 64 + 1, (i * 13 + 5) % 64 + 1
        out.append("\t" + _OPS[i % len(_OPS)].format(d=d, a=a, b=b, k=i & 0xFFFF) + "\n")
    for r in range(1, 65):
        out.append(
            f"\tst.global.u32 [%rd1+{4 * r}], %r{r};\n"
            f"\tst.global.f32 [%rd1+{4 * r + 512}], %f{r};\n"
        )
    if bad:
        out.append("\tadd.s32 %r1, %r1, %undeclared;\n")
    out.append("\tret;\n}\n")
    return "".join(out)


def one_line(n: int, bad: bool) -> str:
    """The straight-line kernel on one line (after the header)."""
    text = straight(n, bad)
    return HEAD + text[len(HEAD) :].replace("\n", " ") + "\n"


def regs(n: int, bad: bool) -> str:
    last = n - 1
    use = "%undeclared" if bad else "5"
    return HEAD + (
        ".visible .entry k(.param .u64 p)\n{\n"
        f"\t.reg .b32 %r<{n}>;\n\t.reg .b64 %rd<2>;\n"
        "\tld.param.u64 %rd1, [p];\n"
        f"\tadd.s32 %r{last}, %r{last}, {use};\n"
        f"\tst.global.u32 [%rd1], %r{last};\n\tret;\n}}\n"
    )


def table(n: int, bad: bool) -> str:
    vals = ", ".join(str((i * 37) & 0xFF) for i in range(n))
    body = "\tmov.u32 %r1, %undeclared;\n" if bad else ""
    return HEAD + (
        f".global .align 1 .b8 tab[{n}] = {{{vals}}};\n"
        ".visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n"
        "\tld.param.u64 %rd1, [p];\n\tmov.u64 %rd2, tab;\n\tld.global.u8 %r1, [%rd2+7];\n"
        f"{body}\tst.global.u32 [%rd1], %r1;\n\tret;\n}}\n"
    )


FAMILIES: dict[str, tuple[Callable[[int, bool], str], list[int], list[int], str]] = {
    # name: (builder, sizes, quick sizes, what N counts)
    "lines": (
        straight,
        [2500, 5000, 10000, 20000, 40000, 80000, 160000],
        [2500, 20000],
        "instructions",
    ),
    "one-line": (one_line, [10000, 40000, 80000, 160000, 200000], [20000, 200000], "instructions"),
    "regs": (regs, [10**6, 10**7, 10**8, 2 * 10**8], [10**8], "registers"),
    "table": (table, [250_000, 500_000, 1_000_000, 2_000_000], [1_000_000], "bytes of data"),
}


def ours(text: str, repeat: int) -> tuple[float, bool]:
    """Best CPU time of parse + check, and whether it rejected the text."""
    best = float("inf")
    rejected = False
    for _ in range(repeat):
        t0 = time.process_time()
        diags = diagnose(text, "in.ptx", "sm_90")
        best = min(best, time.process_time() - t0)
        rejected = any(d.severity in (Severity.ERROR, Severity.FATAL) for d in diags)
    return best, rejected


def ptxas_time(ptxas: str, text: str, repeat: int, timeout: float) -> tuple[float | None, int]:
    """Best wall time of ``ptxas -arch=sm_90`` on the text (None past the timeout), exit code."""
    best: float | None = None
    rc = 0
    with tempfile.TemporaryDirectory() as td:
        src = Path(td) / "in.ptx"
        src.write_text(text)
        for _ in range(repeat):
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(
                    [ptxas, "-arch=sm_90", str(src), "-o", str(Path(td) / "out.cubin")],
                    capture_output=True,
                    timeout=timeout,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                return None, -1
            dt = time.perf_counter() - t0
            rc = proc.returncode
            best = dt if best is None else min(best, dt)
    return best, rc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="one or two sizes per family")
    ap.add_argument("--families", nargs="*", default=list(FAMILIES))
    ap.add_argument("--ptxas-timeout", type=float, default=300.0)
    ap.add_argument("--no-ptxas", action="store_true")
    ap.add_argument(
        "--ptxas-compile-max-bytes",
        type=int,
        default=3_000_000,
        help="larger inputs are only rejected by ptxas, not compiled (a 6 MB kernel: 140 s)",
    )
    ap.add_argument("--plot", type=Path, default=ROOT / "bench" / "results" / "ptx_parse_scale.png")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--from-json", type=Path, default=None, help="only redraw the plot")
    args = ap.parse_args(argv)
    if args.from_json:
        return plot(json.loads(args.from_json.read_text()), args)
    return plot(measure(args), args)


def measure(args: argparse.Namespace) -> list[dict[str, object]]:
    ptxas = None if args.no_ptxas else shutil.which("ptxas")
    rows = []
    hdr = (
        f"{'family':9s} {'N':>10s} {'bytes':>10s} {'lines':>7s} {'ours s':>8s} "
        f"{'us/KB':>7s} {'ptxas reject s':>14s} {'ptxas compile s':>15s}"
    )
    print(hdr)
    for fam in args.families:
        build, sizes, quick, what = FAMILIES[fam]
        for n in quick if args.quick else sizes:
            good = build(n, False)
            bad = build(n, True)
            t_ok, rej_ok = ours(good, args.repeat)
            t_bad, rej_bad = ours(bad, args.repeat)
            assert not rej_ok and rej_bad, (fam, n, rej_ok, rej_bad)
            p_bad = p_ok = None
            rc_bad = rc_ok = 0
            if ptxas:
                p_bad, rc_bad = ptxas_time(ptxas, bad, args.repeat, args.ptxas_timeout)
                if len(good) <= args.ptxas_compile_max_bytes:
                    p_ok, rc_ok = ptxas_time(ptxas, good, 1, args.ptxas_timeout)
            row = {
                "family": fam,
                "n": n,
                "what": what,
                "bytes": len(good),
                "lines": good.count("\n"),
                "ours_s": t_ok,
                "ours_reject_s": t_bad,
                "ptxas_reject_s": p_bad,
                "ptxas_reject_rc": rc_bad,
                "ptxas_compile_s": p_ok,
                "ptxas_compile_rc": rc_ok,
            }
            rows.append(row)

            def f(x: float | None) -> str:
                return "-" if x is None else f"{x:.3f}"

            print(
                f"{fam:9s} {n:10d} {len(good):10d} {row['lines']:7d} {t_ok:8.3f} "
                f"{1e6 * t_ok / (len(good) / 1024):7.1f} {f(p_bad) if ptxas else '-':>14s} "
                f"{f(p_ok) if ptxas else '-':>15s}",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return rows


def plot(rows: list[dict[str, Any]], args: argparse.Namespace) -> int:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return 0
    fig, (ax, axr) = plt.subplots(1, 2, figsize=(12, 5.5), width_ratios=[2, 1])
    colors = {"lines": "#1f77b4", "one-line": "#ff7f0e", "regs": "#2ca02c", "table": "#9467bd"}
    for fam in args.families:
        rs = [r for r in rows if r["family"] == fam]
        if not rs:
            continue
        # register declarations: against the number declared (the text stays ~230 bytes)
        on, key = (axr, "n") if fam == "regs" else (ax, "bytes")
        c = colors.get(fam, "k")
        on.plot(
            [r[key] for r in rs],
            [max(r["ours_s"], 1e-4) for r in rs],
            "o-",
            color=c,
            label=f"openptxas parse+check: {fam}",
        )
        pts = [(r[key], r["ptxas_reject_s"]) for r in rs if r["ptxas_reject_s"] is not None]
        if pts:
            on.plot(
                *zip(*pts, strict=True), "s--", color=c, alpha=0.6, label=f"ptxas reject: {fam}"
            )
        pts = [(r[key], r["ptxas_compile_s"]) for r in rs if r["ptxas_compile_s"] is not None]
        if pts:
            on.plot(
                *zip(*pts, strict=True), "^:", color=c, alpha=0.4, label=f"ptxas compile: {fam}"
            )
    for a, xl in ((ax, "input size (bytes)"), (axr, "registers declared (.reg .b32 %r<N>)")):
        a.set_xscale("log")
        a.set_yscale("log")
        a.set_xlabel(xl)
        a.set_ylabel("time (s)")
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=7)
    ax.set_title("PTX parse + check against input size")
    axr.set_title("register ranges (ours: lazy, < 0.1 ms)")
    fig.suptitle(
        "openptxas: CPU time in process; ptxas 13.0.88: whole-process wall time (upper bound)"
    )
    fig.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=110)
    print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
