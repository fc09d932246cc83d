"""Differential fuzzing of openptxas against ptxas (openptxas.testing.difffuzz).

Generates random well-defined PTX kernels, compiles each with both compilers, runs both cubins
in the emulator and compares every output word. Mismatches (and our compiler's errors, and
hazards in our code) are reduced to a minimal program and written to --out as
``<status>-<seed>.ptx`` with the details in a comment.

    python scripts/difffuzz.py --seeds 0:10000 --jobs 2 --out /tmp/difffuzz [--opt 3,0]
    python scripts/difffuzz.py --seeds 17 --reduce       # one seed, reduced, printed
    python scripts/difffuzz.py --pressure --seeds 0:2000 # high register pressure, -maxrregcount

The summary counts programs by status: ok, mismatch, ptxas-disagrees (ours differs from ptxas's
optimised code but equals every word of ptxas -O0: seed 121826 --pressure is a ptxas -O3 bug;
reduced and written, not failing the run), hazard, ours-error (our compiler refused
or failed), ptxas-error (ptxas rejected the program: a generator bug), emu-error (the emulator
could not run ptxas's cubin: an oracle gap, not a finding about our compiler). With --timeout N,
a program still running after N seconds is filed by where it was: an emu-error on ptxas's cubin
(--calls seed 5321 runs toward the emulator's instruction limit there), a mismatch on ours, an
ours-error in our compiler, else timeout.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import signal
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openptxas.testing.difffuzz import Program, check, generate, reduce_program  # noqa: E402

FINDINGS = ("mismatch", "hazard", "ours-error")
# reduced and written like findings, but not failing the run: ours equals ptxas -O0 where
# ptxas -O3 differs (each is read: a ptxas bug, or a contraction ours missed)
REDUCED = (*FINDINGS, "ptxas-disagrees")


def _seeds(text: str) -> list[int]:
    if ":" in text:
        a, b = text.split(":")
        return list(range(int(a), int(b)))
    return [int(x) for x in text.split(",")]


class _Timeout(Exception):
    pass


_LIMIT = [0]


def _alarm(signum: int, frame: object) -> None:
    # an Exception: check() files it by where it struck (an emu-error on ptxas's cubin, a
    # mismatch on ours: our code looping is a finding, ours-error in our compiler)
    raise _Timeout(f"not finished in {_LIMIT[0]} s (--timeout)")


def _one(
    args: tuple[int, tuple[int, ...], bool, bool, bool, bool, int],
) -> tuple[int, str, str, str]:
    seed, opts, reduce, pressure, calls, recursion, timeout = args
    prog = generate(seed, pressure=pressure, calls=calls, recursion=recursion)
    if timeout:
        _LIMIT[0] = timeout
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(timeout)
    try:
        res = check(prog, opts)
    except _Timeout:
        # outside check()'s own handlers (generation, reduction)
        return seed, "timeout", f"not finished in {timeout} s", ""
    finally:
        signal.alarm(0)
    text = ""
    if res.status in REDUCED and reduce:

        def failing(p: Program) -> bool:
            return check(p, opts).status == res.status

        small = reduce_program(prog, failing)
        res = check(small, opts)
        text = small.ptx()
    return seed, res.status, res.detail, text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:200", help="A:B (range) or a comma list")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--opt", default="3", help="openptxas -O levels to compare, e.g. 3,0")
    ap.add_argument("--out", type=Path, help="directory for reduced findings")
    ap.add_argument("--reduce", action="store_true", help="reduce findings (slower)")
    ap.add_argument(
        "--pressure",
        action="store_true",
        help="high register pressure: 24-56 live integers, 3-12 predicates, -maxrregcount 16-40",
    )
    ap.add_argument(
        "--calls",
        action="store_true",
        help="programs with device functions (direct, guarded and "
        "indirect calls, arguments, results, nested calls)",
    )
    ap.add_argument(
        "--recursion",
        action="store_true",
        help="with --calls: about half of the device functions also call themselves (up to "
        "three levels deep)",
    )
    ap.add_argument(
        "--timeout",
        type=int,
        default=0,
        help="seconds per program (0: none); one that takes longer counts as 'timeout'",
    )
    ns = ap.parse_args(argv)
    opts = tuple(int(x) for x in ns.opt.split(","))
    seeds = _seeds(ns.seeds)
    reduce = ns.reduce or ns.out is not None
    t0 = time.time()
    counts: Counter[str] = Counter()
    jobs = [(s, opts, reduce, ns.pressure, ns.calls, ns.recursion, ns.timeout) for s in seeds]
    with mp.Pool(ns.jobs) as pool:
        for seed, status, detail, text in pool.imap_unordered(_one, jobs):
            counts[status] += 1
            if status != "ok":
                print(f"seed {seed}: {status}: {detail[:400]}", flush=True)
            if text and ns.out is not None:
                ns.out.mkdir(parents=True, exist_ok=True)
                head = "".join(f"// {ln}\n" for ln in detail.splitlines())
                (ns.out / f"{status}-{seed}.ptx").write_text(head + text)
            elif text and len(seeds) == 1:
                print(text)
            done = sum(counts.values())
            if done % 25 == 0:
                summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                print(f"... {done} programs, {time.time() - t0:.0f} s: {summary}", flush=True)
    dt = time.time() - t0
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{len(seeds)} programs in {dt:.0f} s: {summary}")
    return 1 if any(counts[k] for k in FINDINGS) else 0


if __name__ == "__main__":
    raise SystemExit(main())
