#!/usr/bin/env python3
"""Mine the latency model (openptxas/targets/data/sm_90_latency.toml) statically from ptxas's
cubins: every function's decoded SASS is walked along its control-flow graph
(openptxas.emu.static_hazards in recording mode) and, for every read of a register whose last
writer may be a fixed-latency instruction (or a variable-latency one issued without a write
scoreboard and not yet covered by a later scoreboard of its unit), the issue distance on the
closest path is recorded. ptxas never reads a result early, so the smallest distance per producer
class is a latency ptxas assumes is enough; pooled over every consumer, per class and per pipe.

    python scripts/hazards_mine.py [--corpus kernels|public|all] [--half 0|1] [--out PATH]
                                   [--target sm_80]   (other targets: tests/kernels for them)

Calls NVIDIA tools (nvcc, ptxas) through the oracle harness for tests/kernels (cached).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hazards_corpus import SM90, corpus, targets_of  # noqa: E402

from openptxas.emu.latency_mining import mine, render  # noqa: E402
from openptxas.targets.latency import parse_latency_model  # noqa: E402

STRUCTURE = REPO / "openptxas/targets/data/sm_90_structure.toml"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", default="all", choices=("kernels", "public", "all"))
    ap.add_argument("--half", type=int, choices=(0, 1))
    ap.add_argument("--structure", default=str(STRUCTURE))
    ap.add_argument(
        "--target",
        default="sm_90",
        help="the cubins' target (not sm_90: tests/kernels only, built for it; the model goes "
        "to data/<target>_latency.toml)",
    )
    ap.add_argument("--out")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    text = Path(args.structure).read_text()
    structure = parse_latency_model(text)
    from openptxas.targets import get_target

    target = get_target(args.target)
    targets = targets_of(args.target)
    out = args.out or str(REPO / f"openptxas/targets/data/{args.target}_latency.toml")
    cubins = corpus(args.corpus, args.half, targets)
    mined = mine(cubins, structure, args.verbose, target.family)
    note = args.corpus + ("" if args.half is None else f" half {args.half}")
    if targets != SM90:
        note = f"{note} for {args.target}"
        # sm_90's structure, this family's numbers: say so where the file starts
        text = (
            f"# {args.target}'s latency model: the structure of {Path(args.structure).name}"
            f" (its comments are about sm_90),\n# with every number below [mined], the issue"
            f" gaps and the barrier gap mined from ptxas's\n# {args.target} code"
            f" (scripts/hazards_mine.py --target {args.target}).\n"
            + text.replace('family = "sm_90"', f'family = "{args.target}"', 1)
        )
    Path(out).write_text(render(text, mined, note, structure.reach))
    s = mined.stats
    print(
        f"mined {len(mined.pairs)} (class, role) latencies and {len(mined.reads)} read "
        f"windows from {s['cubins']} cubins, {s['functions']} kernels, {s['instructions']} "
        f"instructions ({s['skipped']} kernels skipped, {s['undecoded']} undecoded words, "
        f"{s['fallback']} instructions without a binder) in {time.perf_counter() - t0:.0f} s "
        f"-> {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
