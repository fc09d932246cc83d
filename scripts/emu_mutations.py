#!/usr/bin/env python3
"""The hazard checker's mutation sweep: every control-code mutation (tests/emu/mutate.py) of a set
of corpus kernels (default: every corpus launch), each run with the hazard
checker; prints per kernel how many mutations of each kind were made and flagged, and the total.

    python scripts/emu_mutations.py [--kernels 't1/*'] [--per-kind N]

Calls nvcc and ptxas through the oracle harness (nvdisasm only for words the ISA tables lack).
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from openptxas.diag import OpenPtxasError  # noqa: E402
from tests.emu.harness import corpus_cases  # noqa: E402
from tests.emu.mutate import mutate_case  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kernels", default="t[1234]/*", help="glob over corpus kernel names")
    ap.add_argument("--per-kind", type=int, default=None, help="at most N mutations per kind")
    args = ap.parse_args()
    made: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    missed: list[str] = []
    t0 = time.perf_counter()
    seen: set[str] = set()
    for case in corpus_cases():
        if not fnmatch.fnmatch(case.ks.name, args.kernels) or case.id in seen:
            continue
        seen.add(case.id)
        try:
            outcomes = mutate_case(case, args.per_kind)
        except OpenPtxasError as exc:
            print(f"skip {case.id}: {exc.message}", file=sys.stderr)
            continue
        m = Counter(o.mutation.kind for o in outcomes)
        f = Counter(o.mutation.kind for o in outcomes if o.flagged)
        made.update(m)
        flagged.update(f)
        missed += [f"{case.id}: {o.mutation.note}" for o in outcomes if not o.flagged]
        row = "  ".join(f"{k} {f[k]}/{m[k]}" for k in ("stall", "wait", "scoreboard"))
        print(f"{case.id:60s} {row}", flush=True)
    total = sum(made.values())
    print(
        f"total: {sum(flagged.values())}/{total} mutations flagged "
        + "  ".join(f"{k} {flagged[k]}/{made[k]}" for k in ("stall", "wait", "scoreboard"))
        + f"  ({len(seen)} launches, {time.perf_counter() - t0:.0f} s)"
    )
    for line in missed:
        print(f"MISSED {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
