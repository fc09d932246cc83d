#!/usr/bin/env python3
"""Held-out validation of the latency model: mined (scripts/hazards_mine.py's procedure, on the
package's structure) from one part of ptxas's cubins and checked by the static hazard checker on
another part it was not mined from. ptxas's code is correct on the hardware, so every report is
a false report of the model's generalisation.

    python scripts/hazards_heldout.py [--splits halves,folds,cross,all-halves] [-v]

Splits (by source, so both targets of a kernel source fall on the same side):
- halves: tests/kernels half 0 -> half 1 and half 1 -> half 0;
- folds: tests/kernels in 10 folds, mined from 9 and checked on the 10th;
- cross: tests/kernels -> the public corpus, the public corpus -> tests/kernels;
- all-halves: both corpora together, half 0 -> half 1 and back.

Prints, per split, the reports and the kernels with reports; exit status 1 when any.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hazards_check import check_cubins  # noqa: E402
from hazards_corpus import CorpusCubin, corpus, half_of  # noqa: E402

from openptxas.emu.latency_mining import Cubin, mine_model  # noqa: E402

STRUCTURE = REPO / "openptxas/targets/data/sm_90_structure.toml"
FOLDS = 10


def fold_of(source: str) -> int:
    return hashlib.sha256(source.encode()).digest()[1] % FOLDS


def splits(which: set[str]) -> list[tuple[str, list[CorpusCubin], list[CorpusCubin]]]:
    kern = list(corpus("kernels"))
    out = []
    if "halves" in which:
        for h in (0, 1):
            out.append((f"kernels half {h} -> half {1 - h}",
                        [c for c in kern if half_of(c.source) == h],
                        [c for c in kern if half_of(c.source) != h]))  # fmt: skip
    if "folds" in which:
        for f in range(FOLDS):
            out.append((f"kernels 9 folds -> fold {f}",
                        [c for c in kern if fold_of(c.source) != f],
                        [c for c in kern if fold_of(c.source) == f]))  # fmt: skip
    if "cross" in which or "all-halves" in which:
        pub = list(corpus("public"))
        if "cross" in which:
            out.append(("kernels -> public", kern, pub))
            out.append(("public -> kernels", pub, kern))
        if "all-halves" in which:
            both = kern + pub
            for h in (0, 1):
                out.append((f"all half {h} -> half {1 - h}",
                            [c for c in both if half_of(c.source) == h],
                            [c for c in both if half_of(c.source) != h]))  # fmt: skip
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--splits", default="halves,folds,cross,all-halves")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every report")
    args = ap.parse_args()
    structure = STRUCTURE.read_text()
    total = Counter[str]()
    for label, train, test in splits(set(args.splits.split(","))):
        t0 = time.perf_counter()
        items = [Cubin(c.name, c.data) for c in train]
        model, _text, _mined = mine_model(items, structure, label)
        n, kinds = check_cubins(test, model, (lambda t: print(f"  {t}")) if args.verbose else None)
        n["kernels"] -= n["skipped"]  # kernels checked
        for what, v in kinds.most_common(8):
            print(f"    {v:5d} {what}")
        print(
            f"{label}: {n['reports']} reports in {n['kernels with reports']} of {n['kernels']} "
            f"kernels ({len(train)} cubins mined, {len(test)} checked, {n['skipped']} kernels "
            f"skipped); {time.perf_counter() - t0:.0f} s",
            flush=True,
        )
        total.update(n)
    print(f"total: {total['reports']} reports in {total['kernels with reports']} kernels")
    return 1 if total["reports"] else 0


if __name__ == "__main__":
    sys.exit(main())
