#!/usr/bin/env python3
"""The static hazard checker over ptxas's cubins: every function of every cubin of the corpus,
every path (openptxas.emu.static_hazards), against a latency model (default: the package's).
ptxas's code is correct on the hardware, so every report is a false report of the model.

    python scripts/hazards_check.py [--corpus kernels|public|all] [--half 0|1] [--model TOML]
                                    [--target sm_80]

Prints each report, then: cubins and kernels checked, kernels with reports, reports, kernels
skipped (undecodable words). Exit status 1 when anything is reported.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hazards_corpus import CorpusCubin, corpus, targets_of  # noqa: E402

from openptxas.emu.decode import isa_decoder  # noqa: E402
from openptxas.emu.program import load_module  # noqa: E402
from openptxas.emu.static_hazards import StaticChecker  # noqa: E402
from openptxas.targets.latency import (  # noqa: E402
    LatencyModel,
    load_latency_model,
    parse_latency_model,
)


def check_cubins(
    cubins: Iterable[CorpusCubin],
    model: LatencyModel,
    show: Callable[[str], None] | None = None,
    family: str = "sm90",
) -> tuple[Counter[str], Counter[str]]:
    """Every kernel of ``cubins`` through the static checker with ``model``: counts (cubins,
    kernels, instructions, skipped kernels and their undecoded words, unreadable cubins,
    reports, kernels and cubins with reports) and the reports by kind; ``show`` receives each
    report as ``cubin:kernel: report``."""
    ck = StaticChecker(model)
    dec = isa_decoder(family)
    n = Counter[str]()
    kinds = Counter[str]()
    for c in cubins:
        try:
            mod = load_module(c.data(), dec, relocatable=True)
        except Exception as exc:
            print(f"skip {c.name}: {exc}", file=sys.stderr)
            n["unreadable"] += 1
            continue
        n["cubins"] += 1
        bad_cubin = False
        for kname, k in sorted(mod.kernels.items()):
            res = ck.check_kernel(mod, k)
            n["kernels"] += 1
            n["instructions"] += res.instructions
            if res.undecoded:
                n["skipped"] += 1
                n["undecoded"] += res.undecoded
                continue
            if res.reports:
                n["kernels with reports"] += 1
                n["reports"] += len(res.reports)
                bad_cubin = True
                for h in res.reports:
                    kinds[f"{h.rule}: {h.detail.split(' at ')[0]}"] += 1
                    if show is not None:
                        show(f"{c.name}:{kname}: {h}")
        n["cubins with reports"] += bad_cubin
    return n, kinds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", default="all", choices=("kernels", "public", "all"))
    ap.add_argument("--half", type=int, choices=(0, 1))
    ap.add_argument("--model", help="a latency model TOML (default: the package's)")
    ap.add_argument("-q", "--quiet", action="store_true", help="only the summary")
    ap.add_argument(
        "--target", default="sm_90", help="the cubins' target (not sm_90: tests/kernels)"
    )
    args = ap.parse_args()
    from openptxas.targets import get_target

    target = get_target(args.target)
    if not args.model and not target.latency_model:
        ap.error(
            f"{args.target} has no latency model in openptxas yet: give one with --model "
            f"(python scripts/hazards_mine.py --target {args.target} --out M.toml)"
        )
    model = (
        parse_latency_model(Path(args.model).read_text()) if args.model
        else load_latency_model(target.latency_model)
    )  # fmt: skip
    targets = targets_of(args.target)
    t0 = time.perf_counter()
    n, pairs = check_cubins(
        corpus(args.corpus, args.half, targets),
        model,
        None if args.quiet else print,
        target.family,
    )
    print("\n".join(f"  {v:6d} {k}" for k, v in pairs.most_common(25)))
    print(
        f"static check ({model.note or 'package model'}) of {args.corpus}"
        + ("" if args.half is None else f" half {args.half}")
        + f": {n['cubins']} cubins, {n['kernels']} kernels, {n['instructions']} instructions; "
        f"{n['reports']} reports in {n['kernels with reports']} kernels "
        f"({n['cubins with reports']} cubins); {n['skipped']} kernels skipped "
        f"({n['undecoded']} undecoded words), {n['unreadable']} unreadable cubins; "
        f"{time.perf_counter() - t0:.0f} s"
    )
    return 1 if n["reports"] else 0


if __name__ == "__main__":
    sys.exit(main())
