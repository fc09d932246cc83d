#!/usr/bin/env python3
"""The emulator on other families' cubins (issue 23): every launch of the kernel corpus, compiled
by ptxas 13.0.88 for each target the kernel builds for (nvcc -ptx for that target, then ptxas),
run in the emulator with the target's ISA table and bank-0 layout, compared with the kernel's
numpy reference (and printf text). Prints one line per failing launch and a summary per target.

    python scripts/emu_families.py [--targets sm_75,sm_80,sm_86,sm_89,sm_100,sm_120]
                                   [--tiers t1,t2,t3]
                                   [--sample N] [--jobs 2] [--hazards]

``--sample N``: the stable one-in-N choice the ELF tests make (tests/elf/cases.py ``sampled``),
so that the builds are shared with them. ``--hazards``: also run the hazard checker with the
target's latency model (sm_100 borrows sm_90's: a report there is a lead, not a verdict; sm_120
has none and is refused).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openptxas.emu.errors import EmuError  # noqa: E402
from openptxas.testing.corpus import discover  # noqa: E402
from tests.elf.cases import one_in  # noqa: E402
from tests.emu.harness import Case, check_case, run_case  # noqa: E402


def _one(args: tuple[str, str, str, bool]) -> tuple[str, str, str]:
    name, target, kernel, hazards = args
    ks = next(k for k in discover() if k.name == name)
    spec = next(s for s in ks.specs if s.kernel == kernel)
    case = Case(ks, target, spec)
    try:
        result = run_case(case, hazards=hazards)
    except EmuError as exc:
        return target, f"{name}:{kernel}", f"emu: {type(exc).__name__}: {exc}"[:300]
    except Exception as exc:  # (a traceback is a finding too)
        return target, f"{name}:{kernel}", f"crash: {type(exc).__name__}: {exc}"[:300]
    problems = [f"hazard: {h}" for h in result.hazards] + check_case(case, result)
    return target, f"{name}:{kernel}", "; ".join(problems)[:300]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--targets", default="sm_75,sm_80,sm_86,sm_89,sm_100,sm_120")
    ap.add_argument("--tiers", default="t1,t2,t3")
    ap.add_argument("--sample", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--hazards", action="store_true")
    a = ap.parse_args()
    jobs = []
    for ks in discover(tiers=tuple(a.tiers.split(","))):
        for t in a.targets.split(","):
            if not ks.compiles_for(t):
                continue
            if a.sample > 1 and not one_in(f"{ks.name}@{t}", a.sample):
                continue
            jobs += [(ks.name, t, s.kernel, a.hazards) for s in ks.specs]
    tally: Counter[tuple[str, str]] = Counter()
    with ProcessPoolExecutor(a.jobs) as ex:
        for target, cid, problem in ex.map(_one, jobs):
            kind = "ok" if not problem else problem.split(":", 1)[0]
            tally[(target, kind if kind in ("ok", "emu", "crash", "hazard") else "differs")] += 1
            if problem:
                print(f"{target} {cid}: {problem}", flush=True)
    for t in a.targets.split(","):
        row = {k: n for (tt, k), n in tally.items() if tt == t}
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(row.items()))
        print(f"{t}: {sum(row.values())} launches: {kinds}")


if __name__ == "__main__":
    main()
