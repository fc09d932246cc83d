"""Mining the latency model from ptxas's cubins, statically (used by scripts/hazards_mine.py and
the held-out tests): every function's decoded SASS is walked along its control-flow graph by the
static checker in recording mode (``openptxas.emu.static_hazards``); for every read of a register
whose last writer may be a fixed-latency instruction (or an in-order result not yet covered by a
waited scoreboard), the issue distance on the closest path is recorded. ptxas never reads a
result early, so the smallest distance per producer class and role, pooled over every consumer,
is a latency ptxas assumes is enough; per pipe, pooled over the pipe's classes.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from openptxas.emu.decode import isa_decoder
from openptxas.emu.program import load_module
from openptxas.emu.static_hazards import StaticChecker, StaticResult
from openptxas.targets.latency import UPPER, LatencyModel, parse_latency_model


class CorpusItem(Protocol):
    @property
    def name(self) -> str: ...

    def data(self) -> bytes: ...


@dataclass(frozen=True)
class Cubin:
    name: str
    load: Callable[[], bytes]

    def data(self) -> bytes:
        return self.load()


@dataclass
class Mined:
    pairs: dict[tuple[str, str], dict[tuple[str, int, int], int]] = field(default_factory=dict)
    reads: dict[str, dict[tuple[str, int, int], int]] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    variable: frozenset[str] = frozenset()
    with_sb: Counter[str] = field(default_factory=Counter)
    without_sb: Counter[str] = field(default_factory=Counter)
    # (producer pipe [+ UPPER], consumer pipe, role) -> sites
    cross: dict[tuple[str, str, str], dict[tuple[str, int, int], int]] = field(default_factory=dict)
    # issue_gap key of the structure -> {(function, pc, pc): the stall ptxas gives it}
    gaps: dict[str, dict[tuple[str, int, int], int]] = field(default_factory=dict)
    # {(function, barrier pc, access pc): cycles from a CTA barrier to a memory access}
    barrier: dict[tuple[str, int, int], int] = field(default_factory=dict)


Site = tuple[str, int, int]  # (function, producer pc, consumer pc)


def mine(
    cubins: Iterable[CorpusItem],
    structure: LatencyModel,
    verbose: bool = False,
    family: str = "sm90",
) -> Mined:
    """Per (producer class, role): {site: min distance}; per reader class: {site: distance};
    counts of cubins/functions/instructions and undecoded words. ``family``: the cubins' ISA
    table."""
    dec = isa_decoder(family)
    items = list(cubins)
    # 1. which opcodes ptxas gives a write scoreboard (and which it never does)
    # (and, for each opcode the structure names in issue_gap, the stalls it gives it: each
    # family has its own, sm_80's WARPSYNC and BAR.RED take stall 1 where sm_90's never have
    # fewer than 5 and 6)
    with_sb: Counter[str] = Counter()
    without_sb: Counter[str] = Counter()
    gaps: dict[str, dict[Site, int]] = defaultdict(dict)
    for c in items:
        try:
            mod = load_module(c.data(), dec, relocatable=True)
        except Exception:
            continue
        for kname, k in sorted(mod.kernels.items()):
            for pc, ins in mod.instructions(k).items():
                if ins.opcode != "<undecoded>":
                    (with_sb if ins.control.wr is not None else without_sb)[ins.opcode] += 1
                    for gk in _gap_keys(ins.opcode, ins.mods, structure.issue_gap):
                        gaps[gk][(f"{c.name}:{kname}", pc, pc)] = ins.control.stall
    never = {op for op in structure.variable if without_sb[op] and not with_sb[op]}
    variable = frozenset((structure.variable - never) | set(with_sb))
    structure = replace(structure, variable=variable)
    ck = StaticChecker(structure, record=True)
    pairs: dict[tuple[str, str], dict[Site, int]] = defaultdict(dict)
    reads: dict[str, dict[Site, int]] = defaultdict(dict)
    cross: dict[tuple[str, str, str], dict[Site, int]] = defaultdict(dict)
    barrier: dict[Site, int] = {}
    stats = dict(cubins=0, functions=0, instructions=0, skipped=0, undecoded=0, fallback=0)
    for where, res in checked_kernels(items, ck, stats, verbose, family):
        for (pu, cns, role, ppc, cpc), d in res.observed.items():
            p = pu.removesuffix(UPPER)
            per = pairs[(p, role)]
            key = (where, ppc, cpc)
            per[key] = min(d, per.get(key, 1 << 30))
            # per consumer pipe (a read by another pipe, or of an upper result register,
            # can need longer than the pooled minimum)
            level = structure.level(pu)
            cpipe = structure.consumer_pipe(cns)
            if cpipe is not None:
                per = cross[(level, cpipe, role)]
                per[key] = min(d, per.get(key, 1 << 30))
        for (r, rpc, wpc), d in res.observed_reads.items():
            per = reads[r]
            key = (where, rpc, wpc)
            per[key] = min(d, per.get(key, 1 << 30))
        for (bpc, apc), d in res.observed_barrier.items():
            barrier[(where, bpc, apc)] = d
    return Mined(
        dict(pairs),
        dict(reads),
        stats,
        variable,
        with_sb,
        without_sb,
        dict(cross),
        dict(gaps),
        barrier,
    )


def _gap_keys(opcode: str, mods: Iterable[str], keys: Iterable[str]) -> list[str]:
    """The ``issue_gap`` keys an instruction matches (its opcode, or opcode and a modifier)."""
    names = {opcode, *(f"{opcode}.{m}" for m in mods)}
    return [k for k in keys if k in names]


def checked_kernels(
    cubins: Iterable[CorpusItem],
    ck: StaticChecker,
    stats: dict[str, int] | None = None,
    verbose: bool = False,
    family: str = "sm90",
) -> Iterator[tuple[str, StaticResult]]:
    """Every function of ``cubins`` run through ``ck`` (in recording mode, for mining): its
    place (``cubin:function``) and result. Cubins that do not load, functions the checker
    fails on and functions with undecodable words are skipped (and counted in ``stats``)."""
    dec = isa_decoder(family)
    st = stats if stats is not None else Counter()
    for c in cubins:
        try:
            mod = load_module(c.data(), dec, relocatable=True)
        except Exception as exc:
            print(f"skip {c.name}: {exc}", file=sys.stderr)
            continue
        st["cubins"] += 1
        for kname, k in sorted(mod.kernels.items()):
            where = f"{c.name}:{kname}"
            try:
                res = ck.check_kernel(mod, k)
            except Exception as exc:
                print(f"skip {where}: {type(exc).__name__}: {exc}", file=sys.stderr)
                st["skipped"] += 1
                continue
            st["functions"] += 1
            st["instructions"] += res.instructions
            st["fallback"] += res.fallback
            if res.undecoded:
                st["undecoded"] += res.undecoded
                st["skipped"] += 1
                continue
            yield where, res
        if verbose:
            print(f"{c.name}: {st}", file=sys.stderr, flush=True)


def _ev(sites: dict[Site, int], cap: int | None = None) -> dict[str, Any]:
    d = min(sites.values())
    at_min = [k for k, v in sites.items() if v == d]
    at = min(at_min, key=lambda k: (k[0], k[1]))
    kernels = {w for w, _a, _b in sites}
    return {
        "cycles": d if cap is None else min(d, cap),
        "sites": len(sites),
        "kernels": len(kernels),
        "at_min": len(at_min),
        "kernels_at_min": len({w for w, _a, _b in at_min}),
        "at": f"{at[0]} {at[1]:#06x}->{at[2]:#06x}",
    }


def _fmt(ev: dict[str, Any]) -> str:
    return (
        f"{{ cycles = {ev['cycles']}, sites = {ev['sites']}, kernels = {ev['kernels']}, "
        f"at_min = {ev['at_min']}, kernels_at_min = {ev['kernels_at_min']}, "
        f'at = "{ev["at"]}" }}'
    )


def render(structure_text: str, mined: Mined, corpus_note: str, reach: int) -> str:
    pairs = mined.pairs
    reads = mined.reads
    st = parse_latency_model(structure_text)
    by_pipe: dict[tuple[str, str], dict[Site, int]] = defaultdict(dict)
    by_family: dict[tuple[str, str], dict[Site, int]] = defaultdict(dict)
    for (p, role), sites in pairs.items():
        pipe = st.pipes.get(p)
        if pipe is not None:
            fam = st.families.get(pipe)
            for k, v in sites.items():
                by_pipe[(pipe, role)][k] = min(v, by_pipe[(pipe, role)].get(k, 1 << 30))
                if fam is not None:
                    by_family[(fam, role)][k] = min(v, by_family[(fam, role)].get(k, 1 << 30))
    s = mined.stats
    lines = [
        structure_text.rstrip(),
        "",
        "# ---- mined by scripts/hazards_mine.py: do not edit below by hand ----",
        "[mined]",
        f'corpus = "{corpus_note}: {s["cubins"]} cubins, {s["functions"]} kernels, '
        f'{s["instructions"]} instructions"',
        "",
        f"# corpus: {corpus_note}; {s['cubins']} cubins, {s['functions']} kernels, "
        f"{s['instructions']} instructions ({s['skipped']} kernels skipped, "
        f"{s['undecoded']} undecoded words)",
        "# [latency]: per pipe and role, the smallest distance over every class of the pipe (the",
        "# compiler uses a role with >= 3 sites in >= 2 kernels, else the pipe's data latency);",
        "# [family_latency]: per family and role, the smallest distance over its pipes;",
        "# [class]: per producer class and role, the smallest distance over every consumer;",
        "# [read]: per late reader, the smallest distance of an unwaited overwrite of a source;",
        '# [cross]: per "producer pipe>consumer pipe" and role, the smallest distance (a producer',
        "# pipe ending in ^: reads of an upper result register).",
        "# Evidence: sites (producer/consumer pairs), kernels, and one place the minimum occurs.",
        "",
        "# [variable]: opcode = [instructions with a write scoreboard, without]",
        "[variable]",
        "opcodes = [" + ", ".join(f'"{op}"' for op in sorted(mined.variable)) + "]",
        "[variable.evidence]",
        *(
            f'"{op}" = [{mined.with_sb[op]}, {mined.without_sb[op]}]'
            for op in sorted(mined.variable)
            if mined.with_sb[op] or mined.without_sb[op]
        ),
        "",
        "[latency]",
    ]
    for (pipe, role), sites in sorted(by_pipe.items()):
        lines.append(f'"{pipe}".{role} = {_fmt(_ev(sites))}')
    lines += ["", "[family_latency]"]
    for (fam, role), sites in sorted(by_family.items()):
        lines.append(f'"{fam}".{role} = {_fmt(_ev(sites))}')
    lines += ["", "[class]"]
    for (p, role), sites in sorted(pairs.items()):
        lines.append(f'"{p}".{role} = {_fmt(_ev(sites))}')
    lines += ["", "[read]"]
    for r, sites in sorted(reads.items()):
        lines.append(f'"{r}" = {_fmt(_ev(sites, reach))}')
    lines += ["", "[cross]"]
    for (lv, cp, role), sites in sorted(mined.cross.items()):
        lines.append(f'"{lv}>{cp}".{role} = {_fmt(_ev(sites))}')
    if mined.gaps:
        # (it replaces the structure's issue_gap: the keys are the structure's, the numbers
        # this family's; a key ptxas's code never uses keeps the structure's number)
        lines += [
            "",
            "# [issue_gap]: per opcode (or opcode.modifier), the least stall ptxas gives it",
        ]
        lines += ["[issue_gap]"]
        for key, sites in sorted(mined.gaps.items()):
            lines.append(f'"{key}" = {_fmt(_ev(sites))}')
    if mined.barrier:
        # (sm_75's accesses come 5 cycles after BAR.SYNC, never fewer; sm_90's 6)
        lines += ["", "# [barrier_gap]: the fewest cycles from a CTA barrier to a memory access"]
        lines += ["[barrier_gap]", f"cycles = {_fmt(_ev(mined.barrier))}"]
    return "\n".join(lines) + "\n"


def mine_model(
    cubins: Iterable[CorpusItem], structure_text: str, note: str = "", family: str = "sm90"
) -> tuple[LatencyModel, str, Mined]:
    """The latency model mined from ``cubins`` on the given structure: (model, TOML text, data)."""
    structure = parse_latency_model(structure_text)
    mined = mine(cubins, structure, family=family)
    text = render(structure_text, mined, note, structure.reach)
    return parse_latency_model(text), text, mined
