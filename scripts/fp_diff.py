"""Differential run of the IEEE division, reciprocal and square root lowerings (and their
approximations) against ptxas, in the emulator: each instruction of
openptxas.testing.fpdiff.INSTRUCTIONS on its special values (every pair for division) and ``--n``
random operands more, compiled by openptxas and by ptxas; every result word must be equal, and the
round-to-nearest forms must equal numpy's IEEE result.

    python scripts/fp_diff.py --n 100000                 # every instruction
    python scripts/fp_diff.py --n 20000 --only div.rn --seed 7 --opt 0
"""

from __future__ import annotations

import argparse
import sys
import time

from openptxas.testing.fpdiff import INSTRUCTIONS, compare


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10000, help="random cases per instruction")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opt", type=int, default=3, help="openptxas -O level")
    ap.add_argument("--only", default="", help="instructions whose name contains this")
    args = ap.parse_args(argv)
    total = bad = ieee_bad = 0
    t0 = time.time()
    for instr in INSTRUCTIONS:
        if args.only not in instr:
            continue
        r = compare(instr, args.n, args.seed, args.opt)
        total += r.cases
        bad += r.mismatches
        ieee_bad += r.ieee_mismatches or 0
        ieee = "-" if r.ieee_mismatches is None else str(r.ieee_mismatches)
        print(f"{instr:24s} cases {r.cases:8d}  vs ptxas {r.mismatches:6d}  vs IEEE {ieee:>6s}")
        for ops, got, want in r.examples[:5]:
            print(f"    {[hex(o) for o in ops]}: ours {got:#x}, ptxas {want:#x}")
    print(
        f"total: {total} cases, {bad} differ from ptxas, {ieee_bad} from IEEE; "
        f"{time.time() - t0:.0f} s"
    )
    return 1 if bad or ieee_bad else 0


if __name__ == "__main__":
    sys.exit(main())
