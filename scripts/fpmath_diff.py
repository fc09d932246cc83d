"""Run the per-instruction differential suite (openptxas vs ptxas, both in the emulator) over
every case of openptxas/testing/fpmath_cases.py, or those whose name contains ``--grep``.

    python scripts/fpmath_diff.py --n 4096 --seeds 2
    python scripts/fpmath_diff.py --grep f16x2 --n 1024
"""

from __future__ import annotations

import argparse
import sys
import time

from openptxas.diag import OpenPtxasError
from openptxas.testing.fpmath_cases import CASES, O3_ONLY, run_case
from openptxas.testing.oracle import OracleError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1024, help="inputs per case and seed")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--opt", default="3", help="comma-separated -O levels")
    ap.add_argument("--grep", default="")
    args = ap.parse_args(argv)
    total = bad = refused = 0
    t0 = time.time()
    for name, case in CASES.items():
        if args.grep not in name:
            continue
        for opt in (int(o) for o in args.opt.split(",")):
            if opt != 3 and name in O3_ONLY:
                continue
            for seed in range(args.seeds):
                try:
                    r = run_case(case, args.n, seed, opt)
                except OracleError as exc:
                    refused += 1
                    print(f"PTXAS    {name}: {str(exc).strip().splitlines()[-2]}")
                    break
                except OpenPtxasError as exc:
                    refused += 1
                    print(f"REFUSED  {name} -O{opt}: {str(exc).strip().splitlines()[0]}")
                    break
                total += r.runs
                bad += r.mismatches
                tag = "ok      " if not r.mismatches else "MISMATCH"
                print(f"{tag} {name} -O{opt} seed {seed}: {r.mismatches}/{r.runs} {r.first}")
                sys.stdout.flush()
    print(
        f"cases {sum(args.grep in n for n in CASES)}; inputs run {total}; mismatching {bad}; "
        f"refused {refused}; {time.time() - t0:.0f} s"
    )
    return 1 if bad or refused else 0


if __name__ == "__main__":
    sys.exit(main())
