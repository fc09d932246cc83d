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

from openptxas.ir.core import Function, Instr
from openptxas.sched import deps
from openptxas.targets import SMInfo


def schedule_region(nodes: list[deps.Node]) -> list[Instr]:
    """The nodes' instructions in list-scheduled order."""
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
        _h, _l, i = heapq.heappop(avail)
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


def schedule_block(instrs: list[Instr], target: SMInfo) -> list[Instr]:
    out: list[Instr] = []
    for run, fence in deps.regions(instrs):
        if len(run) <= 1:
            out.extend(run)
        else:
            order = schedule_region(deps.build(run, target, fence))
            if fence is not None:
                assert order[-1] is fence
                order.pop()
            out.extend(order)
        if fence is not None:
            out.append(fence)
    assert len(out) == len(instrs)
    return out


def post_schedule(fn: Function, target: SMInfo) -> None:
    """Reorder every block of the allocated function ``fn`` (phase ``PostSchedule``)."""
    for b in fn.blocks:
        b.instrs = schedule_block(b.instrs, target)
