#!/usr/bin/env python3
"""Mine how soon ptxas lets an instruction overwrite a register an earlier one read
(write-after-read), per (reader class, writer class): openptxas/targets/data/sm_90_war.toml.

A fixed-latency reader takes its sources some cycles after it issues; a writer with a short
latency issued right behind it can land first. ptxas keeps such pairs apart: ``ULEA UR6, UR6,
UR7, 0x18`` is never followed within 3 cycles by ``ULDC UR7, ...`` (356 sites in the corpus),
and our cubins that did it (1 cycle) computed a wrong shared-memory window base on an H100
(misaligned-address faults, 2026-11-26) though the emulator, which reads at issue, ran them
right. The static hazard checker, in recording mode, walks every function's CFG: for every
reader of a register that is not a late reader (those release their sources through read
scoreboards), the issue distance to each instruction that next writes it within 16 cycles. A
pair is kept where ptxas's smallest distance is 2 or more over at least ``--min-sites`` sites;
the compiler's control pass (sched/control.py) keeps every such pair at least that far apart,
and the static checker reports a pair closer than that ("war-latency").

    python scripts/war_mine.py [--corpus all|kernels|public] [--min-sites 20] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hazards_corpus import corpus  # noqa: E402

from openptxas.emu.latency_mining import CorpusItem, checked_kernels  # noqa: E402
from openptxas.emu.static_hazards import StaticChecker  # noqa: E402

Pair = tuple[str, str]


@dataclass
class Seen:
    cycles: int = 1 << 30  # the smallest distance
    sites: int = 0
    at: str = ""


def scan(items: Iterable[CorpusItem]) -> dict[Pair, Seen]:
    """(reader class, writer class) -> what ptxas's code shows: the static checker in recording
    mode walks every function's CFG, so the minima hold on every path it will check."""
    out: dict[Pair, Seen] = {}
    for where, res in checked_kernels(items, StaticChecker(record=True)):
        for (rk, wk, rpc, wpc), d in res.observed_war.items():
            e = out.setdefault((rk, wk), Seen())
            e.sites += 1
            if d < e.cycles:
                e.cycles, e.at = d, f"{where} {rpc:#06x}->{wpc:#06x}"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="all", choices=("kernels", "public", "all"))
    ap.add_argument("--min-sites", type=int, default=20)
    ap.add_argument("--out", default=str(REPO / "openptxas/targets/data/sm_90_war.toml"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    mined = scan(corpus(args.corpus))
    keep = {k: v for k, v in mined.items() if v.cycles >= 2 and v.sites >= args.min_sites}
    lines = [
        "# Written by scripts/war_mine.py (do not edit): per reader class > writer class, the",
        "# smallest issue distance ptxas leaves between an instruction that reads a register and",
        "# the next one that writes it (on any path), where that is 2 cycles or more over",
        f"# at least {args.min_sites} sites. Corpus: {args.corpus} ({len(mined)} pairs seen).",
        "[war]",
    ]
    for (r, w), e in sorted(keep.items()):
        lines.append(f'"{r}>{w}" = {{ cycles = {e.cycles}, sites = {e.sites}, at = "{e.at}" }}')
    Path(args.out).write_text("\n".join(lines) + "\n")
    took = time.perf_counter() - t0
    print(f"{len(keep)} of {len(mined)} pairs kept in {took:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
