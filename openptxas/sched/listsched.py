"""The list scheduler (phases ``ScheduleInstructions`` before register allocation and
``PostSchedule`` after it).

Each basic block is cut at its fences (``sched.deps.regions``: branches, barriers, calls,
convergence, anything with side effects the graph does not model); each region is scheduled on
its own and ends with its fence. A region is scheduled forward, cycle by cycle, over its
dependency graph (``sched.deps.build``): at each cycle, among the instructions whose
predecessors have issued and whose operands are expected ready, the one with the highest
priority issues, as ptxas's scheduler ranks them:

1. the longest latency-weighted path from the instruction to the region's end (critical path
   height);
2. the longest result latency (a load before arithmetic);
3. the original order (deterministic, and the lowering's order when nothing else decides).

When no instruction is ready the clock moves to the earliest expected one.

Before allocation (``pressure`` given) the scheduler also counts the general registers live at
each point (virtual register words whose last read in the region has not issued yet, plus
those live across it) and, while that count is at the limit, prefers instructions that do not
add to it: the order can only hide latency where registers allow.

The control codes (``sched.control``) are computed afterwards on the final order, so every
order is correct in time; this module only has to keep the dependences.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from dataclasses import dataclass, field

from openptxas.ir.core import RC, Function, Instr, Part, RegLike, VReg
from openptxas.ir.liveness import compute_liveness
from openptxas.sched import deps
from openptxas.targets import SMInfo

# Regions longer than this are left in their order before allocation (the pressure-aware
# choice looks at every ready instruction).
PRE_RA_MAX_REGION = 1500
# General registers a block may keep live before allocation whatever the original order's
# peak (a kernel of up to 32 registers runs at full occupancy on sm_90).
PRE_RA_FREE_R = 24


def _vunits(regs: list[RegLike]) -> list[tuple[RC, Hashable]]:
    out: list[tuple[RC, Hashable]] = []
    for r in regs:
        if isinstance(r, VReg | Part):
            rc = r.v.rc if isinstance(r, Part) else r.rc
            if rc != RC.B:
                out.extend((rc, u) for u in deps.units(r))
    return out


@dataclass
class Pressure:
    """Live virtual-register words per class while a region is scheduled (see the module
    docstring): a word is live from its definition (or the region's start, when it comes in
    live) to its last read in the region, or to the end when it is live after the region."""

    defs: list[list[tuple[RC, Hashable]]]
    uses: list[list[tuple[RC, Hashable]]]
    live_after: set[Hashable]
    remaining: dict[Hashable, int] = field(default_factory=dict)
    live: set[Hashable] = field(default_factory=set)
    count: dict[RC, int] = field(default_factory=dict)
    bound: dict[RC, int] = field(default_factory=dict)

    @classmethod
    def of(
        cls, nodes: list[deps.Node], live_after: set[Hashable], floor: dict[RC, int]
    ) -> Pressure:
        defs = [_vunits(list(x.ins.def_regs())) for x in nodes]
        uses = [_vunits(list(x.ins.use_regs())) for x in nodes]
        p = cls(defs, uses, live_after)
        p.reset()
        # the bound: the peak of the original order
        peak = dict(p.count)
        for i in range(len(nodes)):
            p.issue(i)
            for rc, c in p.count.items():
                peak[rc] = max(peak.get(rc, 0), c)
        p.reset()
        p.bound = {rc: max(peak.get(rc, 0), floor.get(rc, 0)) for rc in (*peak, *floor)}
        return p

    def reset(self) -> None:
        self.remaining = {}
        self.live = set()
        self.count = {}
        defined: set[Hashable] = set()
        for d, us in zip(self.defs, self.uses, strict=True):
            for rc, u in us:
                self.remaining[u] = self.remaining.get(u, 0) + 1
                if u not in defined and u not in self.live:
                    self.live.add(u)  # comes in live
                    self.count[rc] = self.count.get(rc, 0) + 1
            defined.update(u for _rc, u in d)

    def delta(self, i: int) -> dict[RC, int]:
        out: dict[RC, int] = {}
        seen: set[Hashable] = set()
        for rc, u in self.uses[i]:
            if u in seen:
                continue
            seen.add(u)
            if u in self.live and self.remaining.get(u, 0) == 1 and u not in self.live_after:
                out[rc] = out.get(rc, 0) - 1
        for rc, u in self.defs[i]:
            if (
                u not in self.live
                and u not in seen
                and (self.remaining.get(u, 0) > 0 or u in self.live_after)
            ):
                seen.add(u)
                out[rc] = out.get(rc, 0) + 1
        return out

    def excess(self, i: int) -> int:
        return sum(
            max(0, self.count.get(rc, 0) + d - self.bound.get(rc, 0))
            for rc, d in self.delta(i).items()
            if d > 0
        )

    def issue(self, i: int) -> None:
        for rc, d in self.delta(i).items():
            self.count[rc] = self.count.get(rc, 0) + d
        for _rc, u in self.uses[i]:
            self.remaining[u] -= 1
        for _rc, u in self.uses[i]:
            if self.remaining[u] == 0 and u not in self.live_after:
                self.live.discard(u)
        for _rc, u in self.defs[i]:
            if self.remaining.get(u, 0) > 0 or u in self.live_after:
                self.live.add(u)


def schedule_region(nodes: list[deps.Node], pressure: Pressure | None = None) -> list[Instr]:
    """The nodes' instructions in list-scheduled order; with ``pressure``, no point of the
    order has more live virtual-register words of a class than the original order's peak,
    where a choice allows it."""
    n = len(nodes)
    if n <= 1:
        return [x.ins for x in nodes]
    npred = [len(x.preds) for x in nodes]
    earliest = [0] * n
    avail: list[tuple[int, int, int]] = []
    pending: list[tuple[int, int]] = []

    def key(i: int) -> tuple[int, int, int]:
        x = nodes[i]
        return (-x.height, -x.latency, i)

    for i in range(n):
        if npred[i] == 0:
            heapq.heappush(avail, key(i))
    out: list[Instr] = []
    t = 0
    while len(out) < n:
        while pending and pending[0][0] <= t:
            _e, i = heapq.heappop(pending)
            heapq.heappush(avail, key(i))
        if not avail:
            t = pending[0][0]
            continue
        if pressure is None:
            _h, _l, i = heapq.heappop(avail)
        else:
            i = _pick(avail, pressure)
            pressure.issue(i)
        out.append(nodes[i].ins)
        for s, lat in nodes[i].succs.items():
            earliest[s] = max(earliest[s], t + lat)
            npred[s] -= 1
            if npred[s] == 0:
                if earliest[s] <= t + 1:
                    heapq.heappush(avail, key(s))
                else:
                    heapq.heappush(pending, (earliest[s], s))
        t += 1
    return out


def _pick(avail: list[tuple[int, int, int]], pressure: Pressure) -> int:
    """The best ready instruction that keeps the pressure within its bound, else the one that
    exceeds it least (removed from ``avail``)."""
    best: tuple[int, tuple[int, int, int]] | None = None
    for k in sorted(avail):
        e = pressure.excess(k[2])
        if e == 0:
            best = (0, k)
            break
        if best is None or e < best[0]:
            best = (e, k)
    assert best is not None
    avail.remove(best[1])
    heapq.heapify(avail)
    return best[1][2]


def schedule_block(
    instrs: list[Instr],
    target: SMInfo,
    live_out: set[Hashable] | None = None,
    floor: dict[RC, int] | None = None,
    peaks: dict[RC, int] | None = None,
) -> list[Instr]:
    """``instrs`` (one block) scheduled region by region; with ``live_out`` (the virtual
    register words live after the block), bounded by register pressure: the original order's
    peak in the region, or ``floor`` where that is higher. With ``peaks``, nothing is
    reordered: the original order's peaks are recorded there."""
    out: list[Instr] = []
    parts = deps.regions(instrs, target.abi.stack_pointer)
    # words read by a later region of the block (live after an earlier one)
    later: list[set[Hashable]] = []
    acc: set[Hashable] = set(live_out or ())
    for run, fence in reversed(parts):
        later.append(set(acc))
        for ins in (*run, *((fence,) if fence is not None else ())):
            acc.update(u for _rc, u in _vunits(list(ins.use_regs())))
    later.reverse()
    for (run, fence), after in zip(parts, later, strict=True):
        if len(run) <= 1 or (live_out is not None and len(run) > PRE_RA_MAX_REGION):
            out.extend(run)
        else:
            nodes = deps.build(run, target, fence)
            pressure = None if live_out is None else Pressure.of(nodes, after, floor or {})
            if peaks is not None:
                assert pressure is not None
                for rc, c in pressure.bound.items():
                    peaks[rc] = max(peaks.get(rc, 0), c)
                out.extend(run)
                if fence is not None:
                    out.append(fence)
                continue
            order = schedule_region(nodes, pressure)
            if fence is not None:
                assert order[-1] is fence
                order.pop()
            out.extend(order)
        if fence is not None:
            out.append(fence)
    assert len(out) == len(instrs)
    return out


def pre_schedule(fn: Function, target: SMInfo) -> None:
    """Reorder every block of ``fn`` (virtual registers) within its register pressure
    (phase ``ScheduleInstructions``)."""
    lv = compute_liveness(fn)
    peaks: dict[RC, int] = {}
    for final in (False, True):
        for i, b in enumerate(fn.blocks):
            live_out = _live_out(b.instrs, lv.live_out[i])
            if final:
                floor = dict(peaks)
                floor[RC.R] = max(floor.get(RC.R, 0), PRE_RA_FREE_R)
                b.instrs = schedule_block(b.instrs, target, live_out, floor)
            else:
                schedule_block(b.instrs, target, live_out, peaks=peaks)


def _live_out(instrs: list[Instr], out_ids: int) -> set[Hashable]:
    """The words of the virtual registers ``instrs`` name that are live after them."""
    vregs: dict[int, VReg] = {}
    for ins in instrs:
        for r in (*ins.def_regs(), *ins.use_regs()):
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg):
                vregs[v.id] = v
    out: set[Hashable] = set()
    for vid, v in vregs.items():
        if out_ids >> vid & 1:
            out.update(deps.units(v))
    return out


def post_schedule(fn: Function, target: SMInfo) -> None:
    """Reorder every block of the allocated function ``fn`` (phase ``PostSchedule``)."""
    for b in fn.blocks:
        b.instrs = schedule_block(b.instrs, target)
