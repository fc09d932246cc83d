"""An independent checker that re-proves a register allocation.

For every use of a virtual register ``v`` it walks the CFG backwards from the use, unit by unit
(a unit is one 32-bit physical register, or one predicate), and fails if some instruction on
the way writes one of ``v``'s units with anything else before a definition of ``v`` is reached.
A guarded or partial definition of ``v`` does not end the walk (the old value may survive it),
except within a block where the guard's predicate unit is not written in between: a
definition under the use's own guard ends the walk for a guarded use, and definitions under
``@P`` and ``@!P`` together end it for any use (ir/liveness.py follows guards the same way).
A copy of a register onto itself (the allocator coalesces word copies between groups) leaves the
unit's value as it was. Paths on which ``v`` has not been written yet are not errors: PTX lets a
program read a register it has not initialised on every path, and the allocator may reuse such
registers.

The checker shares no code with the allocator's liveness and interference computation: it is a
path search over the instructions themselves (after regalloc2's checker, which re-proves an
allocation by a different analysis than the one that made it).
"""

from __future__ import annotations

from collections import deque

from openptxas.diag import InternalError
from openptxas.ir.core import (
    RC,
    Function,
    Instr,
    Part,
    Reg,
    VReg,
    all_successors,
    predecessors,
)
from openptxas.regalloc.fatpoint import Allocation

Unit = tuple[RC, int]


def _units_of(x: VReg | Part, alloc: Allocation) -> list[tuple[Unit, int]]:
    """(physical unit, component index of the virtual register) pairs."""
    v = x.v if isinstance(x, Part) else x
    k0, n = (x.k, x.n) if isinstance(x, Part) else (0, v.width)
    r = alloc.regs[v]
    return [((v.rc, r.index + k), k) for k in range(k0, k0 + n)]


def _writes(ins: Instr, alloc: Allocation) -> list[tuple[Unit, int | None, int]]:
    """(unit, vreg id or None for a fixed register, component) for every unit ``ins`` writes."""
    out: list[tuple[Unit, int | None, int]] = []
    for r in ins.def_regs():
        if isinstance(r, VReg | Part):
            v = r.v if isinstance(r, Part) else r
            for unit, k in _units_of(r, alloc):
                out.append((unit, v.id, k))
        elif isinstance(r, Reg) and not (
            r.index == 255 or (r.rc in (RC.P, RC.UP) and r.index == 7)
        ):
            for k in range(r.width):
                out.append(((r.rc, r.index + k), None, k))
    return out


def _maybe_defined(fn: Function) -> list[set[int]]:
    """Virtual registers written on some path from the entry to each block's start."""
    n = len(fn.blocks)
    preds = predecessors(fn)
    succs = all_successors(fn)
    gen = [
        {
            (r.v if isinstance(r, Part) else r).id
            for ins in b.instrs
            for r in ins.def_regs()
            if isinstance(r, VReg | Part)
        }
        for b in fn.blocks
    ]
    d_in: list[set[int]] = [set() for _ in range(n)]
    d_out: list[set[int]] = [set() for _ in range(n)]
    work = deque(range(n))
    while work:
        i = work.popleft()
        x: set[int] = set()
        for p in preds[i]:
            x |= d_out[p]
        d_in[i] = x
        out = x | gen[i]
        if out != d_out[i]:
            d_out[i] = out
            work.extend(s for s in succs[i] if s not in work)
    return d_in


def check_allocation(fn: Function, alloc: Allocation) -> None:
    """Raise InternalError naming the first use whose value could be clobbered."""
    preds = predecessors(fn)
    d_in = _maybe_defined(fn)
    writes = {ins.uid: _writes(ins, alloc) for ins in fn.instrs()}
    calls = _slow_calls(fn, writes)
    for bi, b in enumerate(fn.blocks):
        for k, ins in enumerate(b.instrs):
            for r in ins.use_regs():
                if isinstance(r, VReg | Part):
                    _check_use(fn, alloc, preds, d_in, writes, calls, bi, k, ins, r)


Site = tuple[int, frozenset[int], frozenset[Unit]]


def _slow_calls(
    fn: Function, writes: dict[int, list[tuple[Unit, int | None, int]]]
) -> dict[int, Site]:
    """Return sites of the calls of shared slow paths (lower/fpslow.py) -> (the call block, the
    virtual registers the subroutine writes, the units it writes)."""
    from openptxas.ir.liveness import _call_sites, _sub_blocks

    out: dict[int, Site] = {}
    subs: dict[int, tuple[frozenset[int], frozenset[Unit]]] = {}
    for i, (e, r) in _call_sites(fn).items():
        if e not in subs:
            vids: set[int] = set()
            units: set[Unit] = set()
            for x in _sub_blocks(fn, e):
                for ins in fn.blocks[x].instrs:
                    for unit, vid, _k in writes[ins.uid]:
                        units.add(unit)
                        if vid is not None:
                            vids.add(vid)
            subs[e] = (frozenset(vids), frozenset(units))
        out[r] = (i, *subs[e])
    return out


def _self_move(ins: Instr, alloc: Allocation) -> Unit | None:
    """The unit a one-word copy writes with the value it already holds (``MOV R4, R4`` after
    allocation: the word copies of two groups that share registers), or None."""
    if len(ins.dsts) != 1 or ins.guard is not None:
        return None
    if ins.op in ("MOV", "UMOV") and len(ins.srcs) == 1:
        s = ins.srcs[0]
    elif ins.op == "IMAD" and ins.mods[:2] == ("MOV", "U32") and len(ins.srcs) == 3:
        s = ins.srcs[2]  # IMAD.MOV.U32 d, RZ, RZ, s
    else:
        return None
    d = ins.dsts[0]
    if not (isinstance(d, VReg | Part) and isinstance(s, VReg | Part)):
        return None
    du, su = _units_of(d, alloc), _units_of(s, alloc)
    if len(du) == len(su) == 1 and du[0][0] == su[0][0]:
        return du[0][0]
    return None


def _guard_unit(ins: Instr, alloc: Allocation) -> tuple[Unit, bool] | None:
    """The physical predicate unit guarding ``ins`` and whether it is inverted."""
    g = ins.guard
    if g is None:
        return None
    p = g.pred
    if isinstance(p, VReg):
        return ((p.rc, alloc.regs[p].index), g.inv)
    if isinstance(p, Reg):
        return ((p.rc, p.index), g.inv)
    return None


def _flip(g: tuple[Unit, bool]) -> tuple[Unit, bool]:
    return (g[0], not g[1])


def _defined_before(fn: Function, d_in: list[set[int]], bi: int, k: int, vid: int) -> bool:
    """Whether ``vid`` may have been written before instruction ``k`` of block ``bi``."""
    if vid in d_in[bi]:
        return True
    for ins in fn.blocks[bi].instrs[:k]:
        for r in ins.def_regs():
            if isinstance(r, VReg | Part) and (r.v if isinstance(r, Part) else r).id == vid:
                return True
    return False


def _check_use(
    fn: Function,
    alloc: Allocation,
    preds: list[list[int]],
    d_in: list[set[int]],
    writes: dict[int, list[tuple[Unit, int | None, int]]],
    calls: dict[int, Site],
    bi: int,
    k: int,
    use: Instr,
    r: VReg | Part,
) -> None:
    v = r.v if isinstance(r, Part) else r
    wanted = dict(_units_of(r, alloc))  # unit -> component
    # the use's guard, while its predicate unit is not written (scanning up its own block)
    use_guard = _guard_unit(use, alloc)
    # (block, index to scan down from (exclusive), units still to find)
    work: deque[tuple[int, int, frozenset[Unit]]] = deque([(bi, k, frozenset(wanted))])
    seen: set[tuple[int, frozenset[Unit]]] = set()
    first = True
    while work:
        b, upto, units = work.popleft()
        instrs = fn.blocks[b].instrs
        own = use_guard if first else None
        first = False
        half: dict[Unit, set[tuple[Unit, bool]]] = {}  # guards v's units were written under
        for j in range(upto - 1, -1, -1):
            ins = instrs[j]
            g = _guard_unit(ins, alloc)
            # a predicate written here: the guards below read another value than those above
            hit = {unit for unit, _, _ in writes[ins.uid]}
            if own is not None and own[0] in hit:
                own = None
            for u in half:
                half[u] = {x for x in half[u] if x[0] not in hit}
            kept = _self_move(ins, alloc)
            for unit, vid, comp in writes[ins.uid]:
                if unit not in units:
                    continue
                if vid == v.id and comp == wanted[unit]:
                    if ins.guard is None or (
                        g is not None and (g == own or _flip(g) in half.get(unit, ()))
                    ):
                        units = units - {unit}
                    elif g is not None:
                        half.setdefault(unit, set()).add(g)
                    continue
                if unit == kept:
                    continue  # another register's copy onto itself: the value stays
                if not _defined_before(fn, d_in, b, j, v.id):
                    units = units - {unit}  # v not written yet on this path: garbage anyway
                    continue
                raise InternalError(
                    f"RA checker: {fn.name}: {fn.blocks[bi].name}: '{use}': {r} "
                    f"in {unit[0].name}{unit[1]} is overwritten by '{ins}' in "
                    f"{fn.blocks[b].name}"
                )
            if not units:
                break
        if not units:
            continue
        site = calls.get(b)
        nxt = preds[b]
        if site is not None and v.id not in site[1]:
            # the return site of a shared slow path's call, and v is not the subroutine's: the
            # subroutine must leave v's units alone, and the walk goes on at this call (the
            # return does not lead back to the other calls)
            for unit in units & site[2]:
                if _defined_before(fn, d_in, site[0], len(fn.blocks[site[0]].instrs), v.id):
                    raise InternalError(
                        f"RA checker: {fn.name}: {fn.blocks[bi].name}: '{use}': {r} in "
                        f"{unit[0].name}{unit[1]} is overwritten by the subroutine called "
                        f"in {fn.blocks[site[0]].name}"
                    )
            nxt = [site[0]]
        for p in nxt:
            key = (p, units)
            if key not in seen:
                seen.add(key)
                work.append((p, len(fn.blocks[p].instrs), units))
