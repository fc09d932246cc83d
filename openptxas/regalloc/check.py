"""An independent checker that re-proves a register allocation (after regalloc2's checker).

It runs forward over the CFG of the *virtual* function, tracking which virtual register each
physical register holds, and checks that every use of a virtual register finds it in the physical
register it was assigned. It shares no code with the allocator's liveness: it is a symbolic
execution, not an interference computation.

At a join, a physical register keeps "holds v" when every predecessor either agrees or is a path on
which v was never defined (its value there is garbage anyway; PTX allows such reads).
"""

from __future__ import annotations

from collections import deque

from openptxas.diag import InternalError
from openptxas.ir.core import RC, Function, Instr, Part, VReg, predecessors, successors
from openptxas.regalloc.fatpoint import Allocation

# A physical register unit: (class, index); a value: (vreg id, component).
Unit = tuple[RC, int]
Value = tuple[int, int]
State = dict[Unit, Value]


def _units(x: VReg | Part, alloc: Allocation) -> list[tuple[Unit, Value]]:
    v = x.v if isinstance(x, Part) else x
    k0, n = (x.k, x.n) if isinstance(x, Part) else (0, v.width)
    r = alloc.regs[v]
    return [((v.rc, r.index + k), (v.id, k)) for k in range(k0, k0 + n)]


def _regs(ins: Instr, uses: bool) -> list[VReg | Part]:
    it = ins.use_regs() if uses else ins.def_regs()
    return [r for r in it if isinstance(r, VReg | Part)]


def check_allocation(fn: Function, alloc: Allocation) -> None:
    """Raise InternalError at the first use that would read the wrong value."""
    n = len(fn.blocks)
    succs = [successors(fn, i) for i in range(n)]
    preds = predecessors(fn)
    # maybe-defined virtual registers at each block's end (ids)
    defined_out: list[set[int]] = [set() for _ in range(n)]
    state_out: list[State | None] = [None] * n
    work = deque([0])
    visits = 0
    while work:
        i = work.popleft()
        visits += 1
        if visits > 50 * n + 100:
            raise InternalError(f"RA checker: {fn.name}: no fixed point")
        state, defined = _merge(i, preds[i], state_out, defined_out)
        for ins in fn.blocks[i].instrs:
            for r in _regs(ins, uses=True):
                vid = (r.v if isinstance(r, Part) else r).id
                if vid not in defined:
                    continue  # read of a never-written register: garbage in PTX too
                for unit, val in _units(r, alloc):
                    if state.get(unit) != val:
                        raise InternalError(
                            f"RA checker: {fn.name}: {fn.blocks[i].name}: '{ins}': "
                            f"{r} should be in {unit[0].name}{unit[1]}, which holds "
                            f"{state.get(unit)}"
                        )
            for r in _regs(ins, uses=False):
                for unit, val in _units(r, alloc):
                    state[unit] = val
                defined.add((r.v if isinstance(r, Part) else r).id)
        if state != state_out[i] or defined != defined_out[i]:
            state_out[i] = state
            defined_out[i] = defined
            for s in succs[i]:
                if s not in work:
                    work.append(s)


def _merge(
    i: int, preds: list[int], state_out: list[State | None], defined_out: list[set[int]]
) -> tuple[State, set[int]]:
    ready = [p for p in preds if state_out[p] is not None]
    if not ready:
        return {}, set()
    defined: set[int] = set().union(*(defined_out[p] for p in ready))
    merged: State = {}
    units: set[Unit] = set()
    for p in ready:
        units.update(state_out[p] or {})
    for u in units:
        cands = {v for p in ready if (v := (state_out[p] or {}).get(u)) is not None}
        # Keep a value when every predecessor holds it there or never defined it.
        good = [
            val
            for val in cands
            if all(
                (state_out[p] or {}).get(u) == val or val[0] not in defined_out[p] for p in ready
            )
        ]
        if len(good) == 1:
            merged[u] = good[0]
    return merged, defined
