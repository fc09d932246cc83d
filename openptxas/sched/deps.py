"""The dependency graph of one scheduling region (a run of a basic block between fences).

An edge ``a -> b`` says that ``b`` must issue after ``a``; its ``latency`` is the scheduler's
estimate of the cycles ``b`` should wait (for priorities only: the control codes computed after
scheduling, ``sched.control``, make every order correct in time). The edges:

- **registers** (R, UR, P, UP, with every word of a pair or quad; virtual registers word by word
  before allocation): true (write -> read, the producer's latency for the reader's role from
  the target's latency model, an estimate for variable-latency producers), anti (read -> write)
  and output (write -> write) dependences. The guard predicate is a read; a guarded write is a
  write (and never removes the earlier writer's edges to later reads: it is ordered after it).
- **memory**, conservatively: weak loads may pass loads; nothing passes a store, a strong
  (``.STRONG``, volatile) load, an atomic, a warp-collective operation or any instruction with
  side effects (``ORDERED``), and those stay in their order. Constant-bank loads
  (``LDC``/``ULDC``) read memory nothing writes.
- **fences** (``FENCE``: branches, EXIT, calls, barriers and fences, convergence and
  warp-synchronisation, scoreboard counters, timers, NOP, writes of the stack pointer (the
  frame record's CFA starts after its setup), and any instruction this module does
  not know to be free of side effects and without a result) end a region: nothing moves across
  them (``regions``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum

from openptxas.ir.analysis import SIDE_EFFECTS
from openptxas.ir.core import (
    RC,
    TERMINATORS,
    Addr,
    CBank,
    Instr,
    Part,
    Reg,
    RegLike,
    Src,
    SReg,
    VReg,
    is_zero_reg,
)
from openptxas.sched.control import fixed_latency, is_upper, is_variable
from openptxas.targets import SMInfo
from openptxas.targets.latency import UPPER, LatencyModel, lat_key

Unit = Hashable


class Kind(IntEnum):
    """How an instruction may move (see the module docstring)."""

    PURE = 0  # registers only
    LOAD = 1  # reads memory others may write: may pass loads, not ORDERED ones
    ORDERED = 2  # writes memory or synchronises lanes: keeps its place among LOAD/ORDERED
    FENCE = 3  # nothing moves across it


# Side effects that stay in order with memory operations but let pure instructions pass:
# stores, atomics and reductions, and the warp collectives (the active mask is constant
# within a region).
_ORDERED = frozenset(
    {
        "STG",
        "STS",
        "ST",
        "STL",
        "STSM",
        "ATOMG",
        "ATOMS",
        "ATOM",
        "RED",
        "REDG",
        "SUST",
        "SUATOM",
        "SURED",
        "ELECT",
        "VOTE",
        "VOTEU",
        "SHFL",
        "MATCH",
        "REDUX",
        "QSPC",
    }
)
# Loads: results from memory that stores may change.
_LOADS = frozenset(
    {"LDG", "LDS", "LD", "LDL", "LDSM", "TEX", "TLD", "TLD4", "TXQ", "SULD", "LDTM", "MOVM"}
)
# Reads of state that changes by itself (clocks and timers).
_TIMERS = ("CLOCK", "GLOBALTIMER")
# Cycles a variable-latency result is expected to take, by its opcode (the latency model knows
# only that they go through a scoreboard; the scheduler wants an estimate of how far to hoist
# the producer). ptxas hoists global loads furthest, then shared loads, then the rest.
_VARIABLE_ESTIMATE = {
    "LDG": 40,
    "LD": 40,
    "LDL": 40,
    "TEX": 60,
    "TLD": 60,
    "TLD4": 60,
    "SULD": 60,
    "LDS": 24,
    "LDSM": 24,
    "LDC": 10,
    "S2R": 20,
    "S2UR": 12,
    "MUFU": 14,
}
_VARIABLE_DEFAULT = 16


def kind(ins: Instr, sp: int = -1) -> Kind:
    """How ``ins`` may move (``sp``: the stack pointer register, whose setup stays where the
    frame's debug record says the frame starts)."""
    op = ins.op
    if op in TERMINATORS:
        return Kind.FENCE
    if sp >= 0 and any(
        isinstance(r, Reg) and r.rc == RC.R and r.index <= sp < r.index + r.width
        for r in ins.def_regs()
    ):
        return Kind.FENCE
    if any(_is_barrier_reg(r) for r in (*ins.def_regs(), *ins.use_regs())):
        return Kind.FENCE  # convergence barriers (BSSY, BSYNC, BMOV): not tracked as units
    for s in ins.srcs:
        if isinstance(s, SReg) and any(t in s.name for t in _TIMERS):
            return Kind.FENCE
    if op in _ORDERED:
        return Kind.ORDERED
    if op in SIDE_EFFECTS:
        return Kind.FENCE
    if op in _LOADS:
        if any(m.startswith(("STRONG", "VOLATILE", "MMIO")) for m in ins.mods):
            return Kind.ORDERED  # morally strong loads keep their order (coherence)
        return Kind.LOAD
    if not any(True for _ in ins.def_regs()):
        # no result: it is there for its side effect, which this module does not know
        return Kind.FENCE
    return Kind.PURE


_SPACES = {
    "LDL": "local",
    "STL": "local",
    "LDS": "shared",
    "STS": "shared",
    "LDSM": "shared",
    "STSM": "shared",
    "ATOMS": "shared",
    "LDG": "global",
    "STG": "global",
    "ATOMG": "global",
    "REDG": "global",
}


def memory_space(ins: Instr) -> str | None:
    """The state space an access touches (``local``, ``shared``, ``global``), or None where it
    may be any (generic LD/ST/ATOM/RED, textures and surfaces, and the warp collectives, kept
    in order with every access). LDG/STG address global memory only, LDS/STS the shared
    window, LDL/STL the thread's own local memory: two of them never alias. ptxas issues the
    next iteration's LDGs ahead of the local stores of a histogram in local memory (t2/
    local_array's local_sort_hist: ours, each LDG held behind the previous STL, ran 6 times
    slower on an H200)."""
    return _SPACES.get(ins.op)


def _is_barrier_reg(r: RegLike) -> bool:
    return (r.v.rc if isinstance(r, Part) else r.rc) == RC.B


def units(r: RegLike) -> list[Unit]:
    """The register words ``r`` names (none for a zero register or a convergence barrier)."""
    if isinstance(r, Reg):
        if r.rc == RC.B or is_zero_reg(r):
            return []
        return [(int(r.rc), r.index + k) for k in range(r.width)]
    if isinstance(r, VReg):
        if r.rc == RC.B:
            return []
        return [("v", r.id, k) for k in range(r.width)]
    if r.v.rc == RC.B:
        return []
    return [("v", r.v.id, r.k + k) for k in range(r.n)]


def read_roles(ins: Instr) -> Iterator[tuple[Unit, str]]:
    """Every register word ``ins`` reads with its latency-table role (``guard``, ``addr``,
    ``pred``, ``data``)."""

    def role_of(r: RegLike) -> str:
        rc = r.v.rc if isinstance(r, Part) else r.rc
        return "pred" if rc in (RC.P, RC.UP) else "data"

    if ins.guard is not None:
        for u in units(ins.guard.pred):
            yield u, "guard"
    for s in ins.srcs:
        if isinstance(s, Addr):
            for r in s.regs():
                for u in units(r):
                    yield u, "addr"
        elif isinstance(s, CBank):
            if s.reg is not None:
                for u in units(s.reg):
                    yield u, "addr"
        elif isinstance(s, Src):
            for u in units(s.x):
                yield u, role_of(s.x)
        elif isinstance(s, VReg | Part | Reg):
            for u in units(s):
                yield u, role_of(s)


def write_units(ins: Instr) -> list[Unit]:
    out: list[Unit] = []
    for r in ins.def_regs():
        out.extend(units(r))
    return out


def variable_estimate(ins: Instr) -> int:
    return _VARIABLE_ESTIMATE.get(ins.op, _VARIABLE_DEFAULT)


# The roles a read of a register word of each kind takes (``read_roles``): a predicate is read
# as a guard or a predicate source, the others as data or an address.
_PRED_ROLES = ("guard", "pred")
_DATA_ROLES = ("data", "addr")


def result_latency(ins: Instr, model: LatencyModel, role: str) -> int:
    """The scheduler's estimate of cycles from ``ins``'s issue to a read of its result."""
    if is_variable(ins, model):
        return variable_estimate(ins)
    if role == "data":
        return fixed_latency(ins, model).data
    return model.need(lat_key(ins.op, ins.mods), "", role)


@dataclass
class Node:
    ins: Instr
    index: int  # position in the region's original order
    kind: Kind
    succs: dict[int, int] = field(default_factory=dict)  # node index -> latency
    preds: dict[int, int] = field(default_factory=dict)
    height: int = 0  # longest latency path from this node's issue to the region's end
    latency: int = 1  # its result's latency (the longest of its roles)


def _edge(nodes: list[Node], a: int, b: int, lat: int) -> None:
    if a == b:
        return
    old = nodes[a].succs.get(b)
    if old is None or lat > old:
        nodes[a].succs[b] = lat
        nodes[b].preds[a] = lat


def _is_pred(u: Unit, vpred: set[int]) -> bool:
    """Whether register word ``u`` is a predicate (physical: (class, index); virtual: ("v",
    id, word))."""
    assert isinstance(u, tuple)
    if u[0] == "v":
        return u[1] in vpred
    return u[0] in (RC.P, RC.UP)


def _unshadowed(ws: list[int], reaches: list[int]) -> list[int]:
    """The writers of a register word since its last unguarded write that may still bound a
    later read, the newest last. Consecutive writers in the list are joined by output edges of
    at least 1 cycle, so a later read is ordered after ``ws[p]`` by at least ``steps + 1``
    cycles through the newest writer (``steps``: list positions between them); a writer whose
    every edge to a read is no longer (``reach``) adds nothing the newest does not imply: the
    same issue constraints and heights, and a list (and edge count) bounded by the longest
    latency instead of growing with every guarded write (if-converted code: quadratic)."""
    last = len(ws) - 1
    return [w for p, w in enumerate(ws) if p == last or reaches[p] > last - p + 1]


def build(instrs: list[Instr], target: SMInfo, fence: Instr | None = None) -> list[Node]:
    """The dependency graph of ``instrs`` (no FENCE among them), in their order; with
    ``fence``, the fence that ends the region as the last node, after every other."""
    model = target.latency
    sp = target.abi.stack_pointer
    nodes = [Node(ins, i, kind(ins, sp)) for i, ins in enumerate(instrs)]
    if fence is not None:
        nodes.append(Node(fence, len(nodes), Kind.FENCE))
    last_write: dict[Unit, list[int]] = {}  # the writers since the last unguarded one
    reads_since: dict[Unit, list[int]] = {}  # readers since the last write
    # memory order per state space: accesses of two different spaces never alias (a local
    # store and a global load may pass each other); None stands for any space
    last_ordered: dict[str | None, int] = {}
    loads_since: dict[str | None, list[int]] = {}
    # per node, what an edge from it needs of the producer: its written words, its estimate
    # (variable latency) or latency class
    wunits = [write_units(n.ins) for n in nodes]
    est = [variable_estimate(n.ins) if is_variable(n.ins, model) else -1 for n in nodes]
    keys = [lat_key(n.ins.op, n.ins.mods) for n in nodes]

    def word_class(w: int, u: Unit) -> str:
        """The latency class of ``w``'s result word ``u``: an upper word of a wider result
        (R7 of R6:R7) is written later and has latencies of its own."""
        return keys[w] + UPPER if is_upper(u, wunits[w]) else keys[w]

    def reach(w: int, u: Unit, roles: tuple[str, ...]) -> int:
        """An upper bound of the latency of any edge from ``w`` to a read of its word ``u``
        (one taking ``roles``), by any consumer: the edges' own rule below."""
        return est[w] if est[w] >= 0 else model.need_bound(word_class(w, u), roles)

    vpred = {  # virtual predicate registers written here (a virtual unit names no class)
        v.id
        for n in nodes
        for r in n.ins.def_regs()
        if isinstance(v := r.v if isinstance(r, Part) else r, VReg) and v.rc in (RC.P, RC.UP)
    }
    for i, n in enumerate(nodes):
        ins = n.ins
        writes = any(True for _ in ins.def_regs())  # (a write of RZ too: wunits skip it)
        n.latency = result_latency(ins, model, "data") if writes else 1
        for u, role in read_roles(ins):
            for w in last_write.get(u, ()):
                # cycles from w's issue to ins reading its word u as role: the estimate of a
                # variable-latency producer, else the model's need for the reader's pipe and
                # role (LatencyModel.need)
                lat = est[w] if est[w] >= 0 else model.need(word_class(w, u), keys[i], role)
                _edge(nodes, w, i, max(1, lat))
            reads_since.setdefault(u, []).append(i)
        for u in wunits[i]:
            for w in last_write.get(u, ()):
                _edge(nodes, w, i, 1)
            for r in reads_since.pop(u, ()):
                _edge(nodes, r, i, 1)
            if ins.guard is None:
                last_write[u] = [i]
            else:
                ws = last_write.setdefault(u, [])
                ws.append(i)
                if len(ws) > 2:
                    roles = _PRED_ROLES if _is_pred(u, vpred) else _DATA_ROLES
                    last_write[u] = _unshadowed(ws, [reach(w, u, roles) for w in ws])
        if n.kind in (Kind.LOAD, Kind.ORDERED):
            sp_i = memory_space(ins)
            seen = list(last_ordered) if sp_i is None else [sp_i, None]
            for t in seen:
                if t in last_ordered:
                    _edge(nodes, last_ordered[t], i, 1)
            if n.kind is Kind.LOAD:
                loads_since.setdefault(sp_i, []).append(i)
            else:
                for t in list(loads_since) if sp_i is None else [sp_i, None]:
                    for ld in loads_since.get(t, ()):
                        _edge(nodes, ld, i, 1)
                if sp_i is None:
                    loads_since.clear()
                else:
                    loads_since.pop(sp_i, None)
                last_ordered[sp_i] = i
        elif n.kind is Kind.FENCE:
            if fence is None or i != len(nodes) - 1:
                raise ValueError(f"a fence inside a scheduling region: {ins}")
            for j in range(i):
                _edge(nodes, j, i, 0)
    for n in reversed(nodes):
        n.height = max([lat + nodes[s].height for s, lat in n.succs.items()], default=n.latency)
    return nodes


def regions(instrs: list[Instr], sp: int = -1) -> list[tuple[list[Instr], Instr | None]]:
    """A block cut at its fences: the runs between them, each with the fence that ends it."""
    out: list[tuple[list[Instr], Instr | None]] = []
    run: list[Instr] = []
    for ins in instrs:
        if kind(ins, sp) is Kind.FENCE:
            out.append((run, ins))
            run = []
        else:
            run.append(ins)
    if run:
        out.append((run, None))
    return out
