"""Small analyses over the IR shared by the passes: definition sites, use counts, side effects,
operand substitution."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from openptxas.ir.core import (
    Addr,
    CBank,
    Function,
    Guard,
    Instr,
    Operand,
    Part,
    Reg,
    RegLike,
    Src,
    VReg,
    all_successors,
    operand_regs,
    predecessors,
)

# Instructions kept even when their results are unused.
SIDE_EFFECTS = frozenset(
    {
        "STG",
        "STS",
        "ST",
        "STL",
        "ATOMG",
        "ATOMS",
        "ATOM",
        "RED",
        "REDG",
        "BAR",
        "BRA",
        "BRX",
        "EXIT",
        "RET",
        "CALL",
        "BSSY",
        "BSYNC",
        "WARPSYNC",
        "MEMBAR",
        "FENCE",
        "ERRBAR",
        "CCTL",
        "NOP",
        "DEPBAR",
        "SYNCS",
        "BREAK",
        "KILL",
        "NANOSLEEP",
        "YIELD",
        "BPT",
        "ARRIVES",
        "LDGSTS",
        "LDGDEPBAR",
        "UTMALDG",
        "UTMASTG",
        "UBLKCP",
        "USETMAXREG",
        "WARPGROUP",
        "HGMMA",
        "IGMMA",
        "QGMMA",
        "ELECT",
        "VOTE",
        "SHFL",
        "MATCH",
        "REDUX",
        "ENDCOLLECTIVE",
        "PREEXIT",
        "LEPC",
        "SUST",
    }
)


def has_side_effects(ins: Instr) -> bool:
    # Warp-collective ops stay: removing one changes which lanes participate.
    return ins.op in SIDE_EFFECTS


@dataclass
class DefInfo:
    """Where each virtual register (by id) is written."""

    sites: dict[int, list[Instr]] = field(default_factory=dict)
    block_of: dict[int, int] = field(default_factory=dict)  # instr uid -> block index

    def defs(self, v: VReg) -> list[Instr]:
        return self.sites.get(v.id, [])


def def_info(fn: Function) -> DefInfo:
    info = DefInfo()
    for bi, b in enumerate(fn.blocks):
        for ins in b.instrs:
            info.block_of[ins.uid] = bi
            for r in ins.def_regs():
                v = r.v if isinstance(r, Part) else r
                if isinstance(v, VReg):
                    lst = info.sites.setdefault(v.id, [])
                    if not lst or lst[-1] is not ins:
                        lst.append(ins)
    return info


def entry_runs_once(fn: Function) -> bool:
    """Whether the entry block executes exactly once (nothing branches back to it)."""
    return not predecessors(fn)[0]


def stable_vregs(fn: Function, info: DefInfo) -> set[int]:
    """Registers whose value never changes once written: each of their parts is written by one
    unguarded instruction, all in an entry block that runs once."""
    if not entry_runs_once(fn):
        return set()
    out: set[int] = set()
    for vid, sites in info.sites.items():
        if all(info.block_of[i.uid] == 0 and i.guard is None for i in sites) and _parts_once(
            vid, sites
        ):
            out.add(vid)
    return out


def once_vregs(fn: Function, info: DefInfo) -> set[int]:
    """Registers written once per thread: each part by one unguarded instruction, in blocks on
    no cycle of the control-flow graph (a subroutine called twice is on one: its return goes to
    both return sites), the entry block running once. Wherever such a register is read after
    its write it holds the same value (``stable_vregs`` are the entry block's)."""
    if not entry_runs_once(fn):
        return set()
    succs = all_successors(fn)
    cyclic = _cyclic_blocks(succs)
    out: set[int] = set()
    for vid, sites in info.sites.items():
        if all(
            info.block_of[i.uid] not in cyclic and i.guard is None for i in sites
        ) and _parts_once(vid, sites):
            out.add(vid)
    return out


def _cyclic_blocks(succs: list[list[int]]) -> set[int]:
    """Blocks on a cycle: in a strongly connected component of two or more, or their own
    successor (Tarjan's algorithm, iterative: a chain of thousands of blocks)."""
    n = len(succs)
    index = [-1] * n
    low = [0] * n
    on: list[bool] = [False] * n
    stack: list[int] = []
    out: set[int] = set()
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on[v] = True
            if i < len(succs[v]):
                work.append((v, i + 1))
                w = succs[v][i]
                if index[w] < 0:
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in succs[v]:
                    out.update(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def _parts_once(vid: int, sites: list[Instr]) -> bool:
    seen: set[int] = set()
    for ins in sites:
        for r in ins.def_regs():
            v = r.v if isinstance(r, Part) else r
            if not isinstance(v, VReg) or v.id != vid:
                continue
            k0, n = (r.k, r.n) if isinstance(r, Part) else (0, v.width)
            for k in range(k0, k0 + n):
                if k in seen:
                    return False
                seen.add(k)
    return True


def map_regs(
    ins: Instr, f: Callable[[RegLike], RegLike], *, dsts: bool = False, srcs: bool = True
) -> None:
    """Rewrite the registers of ``ins`` (sources and guard, optionally destinations)."""

    def conv(op: Operand) -> Operand:
        if isinstance(op, VReg | Part | Reg):
            return f(op)
        if isinstance(op, Src):
            return replace(op, x=f(op.x))
        if isinstance(op, Addr):
            return Addr(
                f(op.base) if op.base is not None else None,
                op.offset,
                f(op.ubase) if op.ubase is not None else None,
                f(op.desc) if op.desc is not None else None,
                op.wide,
            )
        if isinstance(op, CBank) and op.reg is not None:
            return CBank(op.bank, op.offset, f(op.reg))
        return op

    if srcs:
        ins.srcs = [conv(s) for s in ins.srcs]
        if ins.guard is not None:
            ins.guard = Guard(f(ins.guard.pred), ins.guard.inv)
    if dsts:
        ins.dsts = [conv(d) for d in ins.dsts]


def renamer(names: Mapping[int, VReg]) -> Callable[[RegLike], RegLike]:
    """For ``map_regs``: a register (or a word of one) whose id ``names`` maps, read as the
    register it maps to (the same words of it); others unchanged."""

    def f(r: RegLike) -> RegLike:
        if isinstance(r, VReg):
            return names.get(r.id, r)
        if isinstance(r, Part) and r.v.id in names:
            return Part(names[r.v.id], r.k, r.n)
        return r

    return f


def word_renamer(words: Mapping[int, Part]) -> Callable[[RegLike], RegLike]:
    """For ``map_regs``: a 32-bit register of ``words`` (by id), read whole or as its word 0
    (``-%r9.0``: a 64-bit subtraction's operand), read as the word of a wider register it now
    lives in (a vector load's word, a register group's word)."""

    def f(r: RegLike) -> RegLike:
        if isinstance(r, VReg):
            return words.get(r.id, r)
        if isinstance(r, Part) and r.v.id in words:
            assert r.k == 0 and r.n == 1, r
            return words[r.v.id]
        return r

    return f


def unchanged_since(block: list[Instr], defs: list[Instr], k: int, vids: set[int]) -> bool:
    """Every instruction of ``defs`` sits in ``block`` before position ``k`` and nothing between
    the first of them and ``k`` writes a register in ``vids``: those registers hold at ``k`` the
    values they had at ``defs``.

    Walks back from ``k`` (not forward from the block's start: passes ask this for every
    candidate of a long block): a write met before the first of ``defs`` is found falls in
    that range, or the defs are not all there; either way the answer is no."""
    want = {id(d) for d in defs}
    if len(want) != len(defs):
        return False
    for i in range(min(k, len(block)) - 1, -1, -1):
        ins = block[i]
        if id(ins) in want:
            want.discard(id(ins))
            if not want:
                return True  # the first of them: its own writes are before the range
        for r in ins.def_regs():
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg) and v.id in vids:
                return False
    return False


def word_writes(vid: int, sites: list[Instr]) -> dict[int, list[Instr]]:
    """The instructions among ``sites`` that write each word of register ``vid``."""
    writes: dict[int, list[Instr]] = {}
    for ins in sites:
        for r in ins.def_regs():
            if isinstance(r, Part) and r.v.id == vid:
                for k in range(r.k, r.k + r.n):
                    writes.setdefault(k, []).append(ins)
            elif isinstance(r, VReg) and r.id == vid:
                for k in range(r.width):
                    writes.setdefault(k, []).append(ins)
    return writes


def write_counts(fn: Function) -> dict[int, int]:
    """The instructions writing each virtual register (any of its words), by id."""
    counts: dict[int, int] = {}
    for ins in fn.instrs():
        for r in ins.def_regs():
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg):
                counts[v.id] = counts.get(v.id, 0) + 1
    return counts


def read_sites(
    fn: Function,
) -> tuple[dict[int, tuple[int, int]], dict[int, list[tuple[int, int, Instr]]]]:
    """(instruction uid -> (block, index), virtual register id -> its reads as (block, index,
    instruction), a word's read counting for its register)."""
    at: dict[int, tuple[int, int]] = {}
    reads: dict[int, list[tuple[int, int, Instr]]] = {}
    for b, blk in enumerate(fn.blocks):
        for i, ins in enumerate(blk.instrs):
            at[ins.uid] = (b, i)
            for r in ins.use_regs():
                v = r.v if isinstance(r, Part) else r
                if isinstance(v, VReg):
                    reads.setdefault(v.id, []).append((b, i, ins))
    return at, reads


def use_counts(fn: Function) -> dict[int, int]:
    counts: dict[int, int] = {}
    for ins in fn.instrs():
        for r in ins.use_regs():
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg):
                counts[v.id] = counts.get(v.id, 0) + 1
    return counts


__all__ = [
    "DefInfo",
    "def_info",
    "has_side_effects",
    "map_regs",
    "once_vregs",
    "operand_regs",
    "read_sites",
    "renamer",
    "stable_vregs",
    "use_counts",
    "word_renamer",
]
