#!/usr/bin/env python3
"""Issue 4's round-trip figures over every sm_90/sm_90a cubin the oracle harness produces.

    python scripts/isa_sweep.py [--jobs 2] [--show 20]

Builds (through the oracle cache) every corpus kernel for sm_90 and sm_90a where it compiles and
every probe program in scripts/isa_src (the same builds as scripts/isa_harvest.py), then for each
cubin decodes every instruction with the committed table, re-encodes it and prints the listing as
``openptxas-sass dis`` does, and compares with ``nvdisasm -hex -c`` (labels, branch-target lists
and column layout included). Prints the totals and the first ``--show`` differences.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from isa_harvest import build_all  # noqa: E402

from openptxas.testing.oracle import Oracle  # noqa: E402
from openptxas.testing.sass_check import compare_cubin  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=20, help="differences to list")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    builds = build_all(Oracle(), args.jobs)
    t1 = time.perf_counter()
    n = dec = exact = text = 0
    problems: list[str] = []
    bad_cubins = 0
    for b in builds:
        res = compare_cubin(b.ptxas.cubin, b.sass_text)
        n += res.instructions
        dec += res.decoded
        exact += res.bit_exact
        text += res.same_text
        if res.problems:
            bad_cubins += 1
            problems.extend(f"{b.name} [{b.target}] {p}" for p in res.problems)
    t2 = time.perf_counter()
    print(f"cubins: {len(builds)} ({bad_cubins} with a difference)")
    print(f"instructions: {n}")
    print(f"decoded: {dec} ({100 * dec / n:.3f}%)")
    print(f"re-encoded bit-exactly: {exact} ({100 * exact / n:.3f}%)")
    print(f"listing text identical to nvdisasm: {text} ({100 * text / n:.3f}%)")
    print(f"time: builds {t1 - t0:.1f} s, checks {t2 - t1:.1f} s")
    for p in problems[: args.show]:
        print(f"  {p}")
    return 0 if dec == exact == n else 1


if __name__ == "__main__":
    sys.exit(main())
