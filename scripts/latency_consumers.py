#!/usr/bin/env python3
"""Where the latency model's pooling is too lax: per (producer class, consumer, role), the
smallest issue distance ptxas leaves in its cubins, against what the compiler requires.

The model (openptxas/targets/latency.py) pools every consumer of a producer class: the
requirement is the smallest distance ptxas was seen to use with *any* reader. A consumer that
reads its source at a later pipeline stage than another (a VOTE reading a predicate as a branch
would, say) would then be timed too short, and the emulator's checker, which shares the model,
would not see it; the hardware does. This script mines ptxas's cubins (scripts/hazards_corpus.py)
with the checker in recording mode and lists every triple whose own minimum, over enough sites
and kernels, is above the compiler's requirement for it. With ``--ours DIR`` it also counts, in
our cubins under DIR, the reads at a distance below ptxas's minimum for their triple.

    python scripts/latency_consumers.py [--corpus all|kernels|public] [--min-sites 5]
        [--json OUT] [--ours DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hazards_corpus import corpus  # noqa: E402

from openptxas.emu.latency_mining import Cubin, checked_kernels  # noqa: E402
from openptxas.emu.static_hazards import StaticChecker  # noqa: E402
from openptxas.targets.latency import load_latency_model  # noqa: E402

Triple = tuple[str, str, str]


def observe(blobs: list[tuple[str, bytes]]) -> dict[Triple, dict[str, Any]]:
    """(producer class, consumer class, role) -> min distance, its sites and kernels."""
    ck = StaticChecker(load_latency_model("sm_90"), record=True)
    items = [Cubin(name, lambda data=data: data) for name, data in blobs]
    out: dict[Triple, dict[str, Any]] = {}
    for where, res in checked_kernels(items, ck):
        for (p, c, role, ppc, cpc), d in res.observed.items():
            r = out.setdefault((p, c, role), {"min": 1 << 30, "sites": 0, "kernels": set()})
            r["sites"] += 1
            r["kernels"].add(where)
            if d < r["min"]:
                r["min"], r["at"] = d, f"{where} {ppc:#06x}->{cpc:#06x}"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="all", choices=("kernels", "public", "all"))
    ap.add_argument("--min-sites", type=int, default=5)
    ap.add_argument("--min-kernels", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--ours", help="a directory of our cubins (recursively)")
    ap.add_argument("--ours-glob", default="*.cubin", help="which files under --ours")
    args = ap.parse_args()
    t0 = time.time()
    model = load_latency_model("sm_90")
    theirs = observe([(c.name, c.data()) for c in corpus(args.corpus)])
    print(f"mined {len(theirs)} triples in {time.time() - t0:.0f} s", file=sys.stderr)
    rows = []
    for (p, c, role), r in sorted(theirs.items()):
        need = model.need(p, c, role)
        strong = r["sites"] >= args.min_sites and len(r["kernels"]) >= args.min_kernels
        if strong and r["min"] > need:
            rows.append((r["min"] - need, p, c, role, r["min"], need, r["sites"],
                         len(r["kernels"]), r["at"]))  # fmt: skip
    rows.sort(reverse=True)
    print(f"{'producer':14s} {'consumer':12s} {'role':6s} ptxas-min need sites kernels  at")
    for _gap, p, c, role, mn, need, sites, nk, at in rows:
        print(f"{p:14s} {c:12s} {role:6s} {mn:9d} {need:4d} {sites:5d} {nk:7d}  {at}")
    if args.ours:
        blobs = [(str(f), f.read_bytes()) for f in sorted(Path(args.ours).rglob(args.ours_glob))]
        ours = observe(blobs)
        below: collections.Counter[Triple] = collections.Counter()
        for t, r in ours.items():
            ref = theirs.get(t)
            if ref and ref["sites"] >= args.min_sites and r["min"] < ref["min"]:
                below[t] = r["sites"]
                print(f"ours below ptxas: {t} ours {r['min']} ptxas {ref['min']} at {r['at']}")
        print(f"{len(below)} triples where our cubins read earlier than ptxas ever does")
    if args.json:
        doc = [dict(zip(("gap", "producer", "consumer", "role", "ptxas_min", "need", "sites",
                         "kernels", "at"), r, strict=False)) for r in rows]  # fmt: skip
        Path(args.json).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
