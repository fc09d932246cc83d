"""Measure the ELF layer on every cubin of the ELF test set (the figures for docs/elf.md).

    python tests/elf/sweep.py [--targets sm_90,sm_75] [--kernels-only] [--diffs N]

For each case (tests/elf/cases.py: the kernel corpus plus tests/elf/ptx, every target, plain /
-c / -lineinfo / -g) it reports, per target and variant:

- rewrite: read -> write is byte-identical;
- rules: the layout needed no recorded exception (every offset/program header from the rules);
- build: describe -> build reproduces the cubin byte for byte;
- info: kernels whose registers, barriers, stack, shared memory and spills agree with ptxas -v.

``$OPENPTXAS_ELF_KERNELS`` points it at another kernel corpus checkout.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from openptxas.elf.builder import build
from openptxas.elf.describe import describe
from openptxas.elf.diff import diff_cubins
from openptxas.elf.inspect import summarize
from openptxas.elf.reader import read_cubin
from openptxas.elf.writer import write_cubin
from openptxas.testing.oracle import Oracle, OracleError
from tests.elf.cases import TARGETS, Case, all_cases, kernel_cases


def variant(case: Case) -> str:
    fl = case.flags
    if "-g" in fl:
        return "-g -c" if "-c" in fl else "-g"
    li = "-lineinfo" in fl or ".li." in case.source
    if "-c" in fl:
        return "-lineinfo -c" if li else "-c"
    return "-lineinfo" if li else "plain"


def info_agreement(case: Case, oracle: Oracle) -> tuple[int, int]:
    res = case.result(oracle)
    funcs = {f.name: f for f in summarize(read_cubin(res.cubin)).functions}
    ok = n = 0
    for fs in res.functions:
        f = funcs.get(fs.name)
        if f is None or f.kind != "entry":
            continue
        n += 1
        cum = 0 if f.min_stack in (None, 0xFFFFFFFF) else f.min_stack
        if (
            f.registers == fs.registers
            and f.barriers == fs.barriers
            and (f.stack_frame or 0) == fs.stack_frame
            and cum == fs.cumulative_stack
            and f.shared == fs.smem
            and f.spill_stores == fs.spill_stores
            and f.spill_loads == fs.spill_loads
        ):
            ok += 1
    return ok, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--kernels-only", action="store_true")
    ap.add_argument("--diffs", type=int, default=0, help="print the first N build differences")
    args = ap.parse_args(argv)
    targets = tuple(args.targets.split(","))
    oracle = Oracle()
    cases = (
        list(kernel_cases(oracle, targets))
        if args.kernels_only
        else all_cases(oracle, targets, sample=False)
    )
    stats: dict[tuple[str, str], collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    diffs: list[str] = []
    for case in cases:
        try:
            blob = case.cubin(oracle)
        except OracleError:
            continue
        key = (case.target, variant(case))
        c = stats[key]
        c["cubins"] += 1
        cubin = read_cubin(blob)
        c["rewrite"] += write_cubin(cubin) == blob
        c["rules"] += (
            all(s.offset is None for s in cubin.sections)
            and cubin.shoff is None
            and cubin.phoff is None
            and cubin.segments is None
            and not cubin.fill
            and cubin.size is None
        )
        try:
            built = build(describe(cubin))
        except Exception as exc:  # a measurement: count it, keep going
            built = b""
            if len(diffs) < args.diffs:
                diffs.append(f"{case.id}: {type(exc).__name__}: {exc}")
        if built == blob:
            c["build"] += 1
        elif built and len(diffs) < args.diffs:
            diffs.append(f"{case.id}: {diff_cubins(cubin, read_cubin(built), 2)}")
        ok, n = info_agreement(case, oracle)
        c["info_ok"] += ok
        c["info_n"] += n
    total: collections.Counter[str] = collections.Counter()
    print(
        f"{'target':8} {'variant':13} {'cubins':>6} {'rewrite':>8} {'rules':>8} {'build':>8} "
        f"{'info':>10}"
    )
    for (t, v), c in sorted(stats.items(), key=lambda kv: (TARGETS.index(kv[0][0]), kv[0][1])):
        total.update(c)
        print(
            f"{t:8} {v:13} {c['cubins']:6} {c['rewrite']:8} {c['rules']:8} {c['build']:8} "
            f"{c['info_ok']:5}/{c['info_n']:<4}"
        )
    n = total["cubins"] or 1
    print(
        f"{'TOTAL':8} {'':13} {total['cubins']:6} {total['rewrite']:8} {total['rules']:8} "
        f"{total['build']:8} {total['info_ok']:5}/{total['info_n']:<4}"
    )
    print(
        f"rewrite identical {100 * total['rewrite'] / n:.1f}%, layout from rules "
        f"{100 * total['rules'] / n:.1f}%, "
        f"describe->build identical {100 * total['build'] / n:.1f}%,"
        f" info agrees with -v on {total['info_ok']}/{total['info_n']} kernels"
    )
    for d in diffs:
        print(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
