#!/usr/bin/env python3
"""Mine the latency model (openptxas/targets/data/sm_90_latency.toml) statically from ptxas's
cubins: every function's decoded SASS is walked along its control-flow graph
(openptxas.emu.static_hazards in recording mode) and, for every read of a register whose last
writer may be a fixed-latency instruction (or a variable-latency one issued without a write
scoreboard and not yet covered by a later scoreboard of its unit), the issue distance on the
closest path is recorded. ptxas never reads a result early, so the smallest distance per producer
class is a latency ptxas assumes is enough; pooled over every consumer, per class and per pipe.

    python scripts/hazards_mine.py [--corpus kernels|public|all] [--half 0|1] [--out PATH]

Calls NVIDIA tools (nvcc, ptxas) through the oracle harness for tests/kernels (cached).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hazards_corpus import corpus  # noqa: E402

from openptxas.emu.decode import isa_decoder  # noqa: E402
from openptxas.emu.program import load_module  # noqa: E402
from openptxas.emu.static_hazards import StaticChecker  # noqa: E402
from openptxas.targets.latency import (  # noqa: E402
    LatencyModel,
    parse_latency_model,
)

STRUCTURE = REPO / "openptxas/targets/data/sm_90_structure.toml"
# A pipe's latency for a role needs this much evidence; thinner minima are schedule slack.
MIN_SITES = 3
MIN_KERNELS = 2

Site = tuple[str, int, int]  # (function, producer pc, consumer pc)


def mine(which: str, half: int | None, structure: LatencyModel, verbose: bool = False) -> dict:
    """Per (producer class, role): {site: min distance}; per reader class: {site: distance};
    counts of cubins/functions/instructions and undecoded words."""
    dec = isa_decoder("sm90")
    # 1. which opcodes ptxas gives a write scoreboard (and which it never does)
    with_sb: Counter[str] = Counter()
    without_sb: Counter[str] = Counter()
    for c in corpus(which, half):
        try:
            mod = load_module(c.data(), dec)
        except Exception:  # noqa: BLE001 - counted in the second pass
            continue
        for k in mod.kernels.values():
            for ins in mod.instructions(k).values():
                if ins.opcode != "<undecoded>":
                    (with_sb if ins.control.wr is not None else without_sb)[ins.opcode] += 1
    never = {op for op in structure.variable if without_sb[op] and not with_sb[op]}
    variable = frozenset((structure.variable - never) | set(with_sb))
    structure = replace(structure, variable=variable)
    ck = StaticChecker(structure, record=True)
    pairs: dict[tuple[str, str], dict[Site, int]] = defaultdict(dict)
    consumers: dict[tuple[str, str], set[str]] = defaultdict(set)
    reads: dict[str, dict[Site, int]] = defaultdict(dict)
    stats = dict(cubins=0, functions=0, instructions=0, skipped=0, undecoded=0, fallback=0)
    for c in corpus(which, half):
        try:
            mod = load_module(c.data(), dec)
        except Exception as exc:  # noqa: BLE001 - an unreadable cubin is counted, not fatal
            print(f"skip {c.name}: {exc}", file=sys.stderr)
            continue
        stats["cubins"] += 1
        for kname, k in sorted(mod.kernels.items()):
            where = f"{c.name}:{kname}"
            try:
                res = ck.check_kernel(mod, k)
            except Exception as exc:  # noqa: BLE001
                print(f"skip {where}: {type(exc).__name__}: {exc}", file=sys.stderr)
                stats["skipped"] += 1
                continue
            stats["functions"] += 1
            stats["instructions"] += res.instructions
            stats["fallback"] += res.fallback
            if res.undecoded:
                stats["undecoded"] += res.undecoded
                stats["skipped"] += 1
                continue
            for (p, cns, role, ppc, cpc), d in res.observed.items():
                per = pairs[(p, role)]
                key = (where, ppc, cpc)
                per[key] = min(d, per.get(key, 1 << 30))
                consumers[(p, role)].add(cns)
            for (r, rpc, wpc), d in res.observed_reads.items():
                per = reads[r]
                key = (where, rpc, wpc)
                per[key] = min(d, per.get(key, 1 << 30))
        if verbose:
            print(f"{c.name}: {stats}", file=sys.stderr, flush=True)
    return dict(
        pairs=pairs, reads=reads, stats=stats, consumers=consumers, variable=variable,
        with_sb=with_sb, without_sb=without_sb,
    )  # fmt: skip


def _ev(sites: dict[Site, int], cap: int | None = None) -> dict[str, object]:
    d = min(sites.values())
    at = min((k for k, v in sites.items() if v == d), key=lambda k: (k[0], k[1]))
    kernels = {w for w, _a, _b in sites}
    return {
        "cycles": d if cap is None else min(d, cap),
        "sites": len(sites),
        "kernels": len(kernels),
        "at": f"{at[0]} {at[1]:#06x}->{at[2]:#06x}",
    }


def _fmt(ev: dict[str, object]) -> str:
    return (
        f'{{ cycles = {ev["cycles"]}, sites = {ev["sites"]}, kernels = {ev["kernels"]}, '
        f'at = "{ev["at"]}" }}'
    )


def render(structure_text: str, mined: dict, corpus_note: str, reach: int) -> str:
    pairs = mined["pairs"]
    reads = mined["reads"]
    st = parse_latency_model(structure_text)
    by_pipe: dict[tuple[str, str], dict[Site, int]] = defaultdict(dict)
    for (p, role), sites in pairs.items():
        pipe = st.pipes.get(p)
        if pipe is not None:
            for k, v in sites.items():
                by_pipe[(pipe, role)][k] = v
    s = mined["stats"]
    lines = [
        structure_text.rstrip(),
        "",
        "# ---- mined by scripts/hazards_mine.py: do not edit below by hand ----",
        f"# corpus: {corpus_note}; {s['cubins']} cubins, {s['functions']} kernels, "
        f"{s['instructions']} instructions ({s['skipped']} kernels skipped, "
        f"{s['undecoded']} undecoded words)",
        "# [latency]: per pipe and role, the smallest distance over every class of the pipe;",
        "# [class]: per producer class and role, the smallest distance over every consumer;",
        "# [read]: per late reader, the smallest distance of an unwaited overwrite of a source.",
        "# Evidence: sites (producer/consumer pairs), kernels, and one place the minimum occurs.",
        "",
        "# [variable]: opcode = [instructions with a write scoreboard, without]",
        "[variable]",
        "opcodes = [" + ", ".join(f'"{op}"' for op in sorted(mined["variable"])) + "]",
        "[variable.evidence]",
        *(
            f'"{op}" = [{mined["with_sb"][op]}, {mined["without_sb"][op]}]'
            for op in sorted(mined["variable"])
            if mined["with_sb"][op] or mined["without_sb"][op]
        ),
        "",
        "[latency]",
    ]
    thin = []
    for (pipe, role), sites in sorted(by_pipe.items()):
        ev = _ev(sites)
        if ev["sites"] < MIN_SITES or ev["kernels"] < MIN_KERNELS:  # type: ignore[operator]
            thin.append(f'#   "{pipe}".{role} = {_fmt(ev)}')
        else:
            lines.append(f'"{pipe}".{role} = {_fmt(ev)}')
    if thin:
        lines += [
            f"# too little evidence (< {MIN_SITES} sites or < {MIN_KERNELS} kernels): the role "
            "takes the pipe's data latency",
            *thin,
        ]
    lines += ["", "[class]"]
    for (p, role), sites in sorted(pairs.items()):
        lines.append(f'"{p}".{role} = {_fmt(_ev(sites))}')
    lines += ["", "[read]"]
    for r, sites in sorted(reads.items()):
        lines.append(f'"{r}" = {_fmt(_ev(sites, reach))}')
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", default="all", choices=("kernels", "public", "all"))
    ap.add_argument("--half", type=int, choices=(0, 1))
    ap.add_argument("--structure", default=str(STRUCTURE))
    ap.add_argument("--out", default=str(REPO / "openptxas/targets/data/sm_90_latency.toml"))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    text = Path(args.structure).read_text()
    structure = parse_latency_model(text)
    mined = mine(args.corpus, args.half, structure, args.verbose)
    note = args.corpus + ("" if args.half is None else f" half {args.half}")
    Path(args.out).write_text(render(text, mined, note, structure.reach))
    s = mined["stats"]
    print(
        f"mined {len(mined['pairs'])} (class, role) latencies and {len(mined['reads'])} read "
        f"windows from {s['cubins']} cubins, {s['functions']} kernels, {s['instructions']} "
        f"instructions ({s['skipped']} kernels skipped, {s['undecoded']} undecoded words, "
        f"{s['fallback']} instructions without a binder) in {time.perf_counter() - t0:.0f} s "
        f"-> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
