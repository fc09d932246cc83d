"""Registers a value may not be given because code it lives across writes them.

Two kinds of instructions write registers the allocator does not hand out (lower/extcalls.py):

- an instruction writing a *fixed* register (``MOV R4, x`` before a call to a function the
  driver resolves, ``LEPC R20``): a value live after it, up to the call, may not be in that
  register (nor one defined in between, such as a spill reload);
- a call to such a function (``CALL.ABS``): a value live across it may not be in a register the
  callee may change (the target's ``Abi.call_clobbers_r``/``call_clobbers_ur``, every predicate).

The result maps each virtual register to the physical indices (of its own class) it must avoid.
"""

from __future__ import annotations

from openptxas.ir.core import RC, Function, Instr, Part, Reg, VReg
from openptxas.targets import Abi

_ALL_PREDICATES = frozenset(range(7))


def _ranges(rs: tuple[tuple[int, int], ...]) -> frozenset[int]:
    return frozenset(i for lo, hi in rs for i in range(lo, hi + 1))


def written_fixed(ins: Instr, abi: Abi) -> dict[RC, frozenset[int]]:
    """The fixed registers ``ins`` writes (or may change, for a call), by class."""
    out: dict[RC, set[int]] = {}
    for r in ins.def_regs():
        if (
            isinstance(r, Reg)
            and r.rc in (RC.R, RC.UR)
            and r.index not in (255, 63, abi.stack_pointer)
        ):
            out.setdefault(r.rc, set()).update(range(r.index, r.index + r.width))
    if ins.op == "CALL" and "ABS" in ins.mods:
        out.setdefault(RC.R, set()).update(_ranges(abi.call_clobbers_r))
        out.setdefault(RC.UR, set()).update(_ranges(abi.call_clobbers_ur))
        out[RC.P] = set(_ALL_PREDICATES)
        out[RC.UP] = set(_ALL_PREDICATES)
    return {rc: frozenset(s) for rc, s in out.items()}


def forbidden_registers(
    fn: Function, occ: dict[VReg, int], order: list[Instr], abi: Abi
) -> dict[VReg, frozenset[int]]:
    """For each virtual register, the physical registers it may not be given (``occ`` and
    ``order``: ``fatpoint.occupancy``'s bitsets and program points)."""
    out: dict[VReg, set[int]] = {}
    for p, ins in enumerate(order):
        fixed = written_fixed(ins, abi)
        if not fixed:
            continue
        mine = {
            (r.v if isinstance(r, Part) else r).id for r in ins.def_regs() if not isinstance(r, Reg)
        }
        bits = _held(order, p)
        for v, m in occ.items():
            if m & bits and v.id not in mine and v.rc in fixed:
                out.setdefault(v, set()).update(fixed[v.rc])
    return {v: frozenset(s) for v, s in out.items()}


def _held(order: list[Instr], p: int) -> int:
    """The program points at which the fixed registers ``order[p]`` writes must not change:
    ``p`` itself and, for an argument or return-address register, every point up to the call
    that reads it (a value defined in between, a spill reload, may not take it)."""
    bits = 1 << p
    if order[p].op == "CALL":
        return bits
    for q in range(p + 1, len(order)):
        bits |= 1 << q
        ins = order[q]
        if ins.op == "CALL" and "ABS" in ins.mods:
            return bits
        if ins.op in _ENDS:
            break
    return 1 << p


_ENDS = frozenset({"BRA", "EXIT", "RET", "CALL", "BRX", "JMX"})


def live_across_all_predicates(forbidden: dict[VReg, frozenset[int]]) -> list[VReg]:
    """Predicates live across a call: none of P0-P6 survives it (they go to a general register)."""
    return sorted(
        (v for v, s in forbidden.items() if v.rc in (RC.P, RC.UP) and s >= _ALL_PREDICATES),
        key=lambda v: v.id,
    )
