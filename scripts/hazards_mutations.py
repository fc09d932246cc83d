#!/usr/bin/env python3
"""The static hazard checker's mutation sweep: on ptxas's cubins (tests/kernels and the public
corpus), control-code mutations that certainly break the timing (tests/emu/mutate.py: a stall
lowered between a producer and a reader at exactly the model's distance, a needed scoreboard wait
removed, the producer setting another scoreboard), each checked statically; every one must be
reported with the expected rule at the expected address.

    python scripts/hazards_mutations.py [--corpus kernels|public|all] [--per-kind N] [--model TOML]

The mutation is applied to the decoded instruction's control field (the same field
tests/emu/mutate.py patches into the cubin for the dynamic checker). Prints per kind
flagged/made and the misses; exit status 1 on a miss.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hazards_corpus import corpus  # noqa: E402

from openptxas.emu.decode import isa_decoder  # noqa: E402
from openptxas.emu.program import load_module  # noqa: E402
from openptxas.emu.static_hazards import (  # noqa: E402
    StaticChecker,
    StaticInstr,
    StaticResult,
    static_instructions,
)
from openptxas.targets.latency import (  # noqa: E402
    LatencyModel,
    load_latency_model,
    parse_latency_model,
)
from tests.emu.mutate import Mutation, mutations  # noqa: E402

KINDS = ("stall", "wait", "scoreboard")


def kernel_mutations(
    code: dict[int, StaticInstr], model: LatencyModel, per_kind: int | None
) -> list[Mutation]:
    """The mutations of one function, from a clean static run with ``explain``."""
    base = StaticResult()
    StaticChecker(model, explain=True).run(code, base)
    if base.reports:
        return []  # ptxas's code already reported: not a mutation baseline
    muts = mutations({pc: si.ins for pc, si in code.items()}, base.tight, base.needed_waits)
    if per_kind is None:
        return muts
    chosen: list[Mutation] = []
    for kind in KINDS:
        of = [m for m in muts if m.kind == kind]
        step = max(1, len(of) // per_kind)
        chosen += of[::step][:per_kind]
    return chosen


def flagged(code: dict[int, StaticInstr], m: Mutation, checker: StaticChecker) -> bool:
    si = code[m.pc]
    mutated = dict(code)
    mutated[m.pc] = replace(si, ins=replace(si.ins, control=m.change(si.ins.control)))
    res = StaticResult()
    checker.run(mutated, res)
    return any(h.rule == m.expect_rule and h.pc == m.expect_pc for h in res.reports)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", default="all", choices=("kernels", "public", "all"))
    ap.add_argument("--half", type=int, choices=(0, 1))
    ap.add_argument("--per-kind", type=int, default=5, help="at most N per kind and kernel")
    ap.add_argument("--model", help="a latency model TOML (default: the package's)")
    args = ap.parse_args()
    model = (
        parse_latency_model(Path(args.model).read_text()) if args.model
        else load_latency_model("sm_90")
    )  # fmt: skip
    checker = StaticChecker(model)
    dec = isa_decoder("sm90")
    made: Counter[str] = Counter()
    hit: Counter[str] = Counter()
    missed: list[str] = []
    t0 = time.perf_counter()
    kernels = skipped = 0
    for c in corpus(args.corpus, args.half):
        try:
            mod = load_module(c.data(), dec, relocatable=True)
        except Exception as exc:
            print(f"skip {c.name}: {exc}", file=sys.stderr)
            continue
        for kname, k in sorted(mod.kernels.items()):
            code, undecoded, _fb = static_instructions(mod, k, model)
            if undecoded:
                skipped += 1
                continue
            kernels += 1
            for m in kernel_mutations(code, model, args.per_kind):
                made[m.kind] += 1
                if flagged(code, m, checker):
                    hit[m.kind] += 1
                else:
                    missed.append(f"{c.name}:{kname}: {m.note}")
    total = sum(made.values())
    print(
        f"static mutations ({args.corpus}): {sum(hit.values())}/{total} flagged  "
        + "  ".join(f"{k} {hit[k]}/{made[k]}" for k in KINDS)
        + f"  ({kernels} kernels, {skipped} skipped for undecoded words, "
        f"{time.perf_counter() - t0:.0f} s)"
    )
    for line in missed[:50]:
        print(f"MISSED {line}")
    return 1 if missed or not total else 0


if __name__ == "__main__":
    sys.exit(main())
