"""LateExpansionUnsupportedOps: the lowering's instructions a target does not have, in the forms
it has.

The lowering and the optimisation phases speak sm_90's instruction set. A target whose table
lacks an instruction gets the equivalent that ptxas writes for it (observed in ptxas 13.0.88's
sm_80 output for the same PTX):

- ``VIMNMX[.U32] d, a, b, p`` is ``IMNMX[.U32] d, a, b, p`` (the same operands: ``PT`` selects
  the minimum);
- ``REDG.E... [a.64], v`` is ``RED.E... [a.64], v``;
- ``WARPSYNC.ALL`` is ``WARPSYNC 0xffffffff``;
- ``F2FP`` from f32 names no source type, and the f16 result no type either:
  ``F2FP.BF16.F32.PACK_AB`` is ``F2FP.BF16.PACK_AB``, ``F2FP.F16.F32.PACK_AB`` is
  ``F2FP.PACK_AB``;
- ``DMMA.8x8x4`` is ``DMMA.884`` (sm_80 spells the shape without separators);
- sm_75 has no F2FP: a float converted to a half alone is ``F2F.F16.F32``;
- sm_75 spells loads' and stores' memory order its own way (``Lowering.mem_mods``: a weak load
  is ``LDG.E.SYS``), writes ``BAR.SYNC`` without ``DEFER_BLOCKING`` and ``LDS.U``
  (``Lowering.drop_mods``/``add_mods``: what ptxas writes there);
- ``CGAERRBAR`` (the cluster's error barrier after a fence) is dropped: before sm_90 there is no
  cluster to wait for, and ptxas writes ``MEMBAR.SC.GPU; ERRBAR`` alone;
- an instruction the target lacks with no rule here is refused with a diagnostic.

The phase runs where ptxas runs its own (after LateArchOptimizeFirst), so the instructions the
phases before it create (FmaContraction, ConvertToUniformReg) are covered too.
"""

from __future__ import annotations

import functools

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import RZ, Function, Imm, Instr
from openptxas.isa.direct import spelled
from openptxas.passes.manager import PassContext
from openptxas.targets import SMInfo, get_target

# sm_90 opcode -> the opcode with the same operands on targets that lack it
_RENAMES = {"VIMNMX": "IMNMX", "REDG": "RED"}
# sm_90 instructions with nothing to do on targets that lack them
_DROPPED = frozenset({"CGAERRBAR"})


def _spelled(t: SMInfo, ins: Instr) -> bool:
    """Whether some form of the target's table prints ``ins``'s opcode with its modifiers."""
    return _spelled_in(t.name, ins.op, ins.mods)


@functools.cache
def _spelled_in(target: str, op: str, mods: tuple[str, ...]) -> bool:
    # (per process: a compile asks this for every instruction, and the answer is the table's)
    split = tuple(x for m in mods for x in m.split("."))
    return spelled(get_target(target).isa.forms_for_opcode(op), split)


@functools.cache
def _has_op(target: str, op: str) -> bool:
    return get_target(target).has_op(op)


def _f2f(t: SMInfo, ins: Instr) -> bool:
    """sm_75 has no F2FP: a float converted to a half alone (``F2FP.F16.F32.PACK_AB d, RZ, a``,
    cvt.rn.f16.f32) is ``F2F.F16.F32 d, a`` as ptxas writes it (the upper half of d is not read:
    a half's register has undefined upper bits in the lowering). Not cvt.rz: ptxas writes
    ``HADD2 d, a.F32, -RZ.H0_H0`` there, which the emulator rounds otherwise; refused."""
    if ins.mods != ("F16", "F32", "PACK_AB"):
        return False
    if len(ins.srcs) != 2 or ins.srcs[0] != RZ or not t.has_op("F2F"):
        return False
    ins.op, ins.mods, ins.srcs = "F2F", ("F16", "F32"), [ins.srcs[1]]
    return True


# memory-order tokens of loads and stores (Lowering.mem_mods respells them)
_ORDER = frozenset({"CONSTANT", "STRONG", "MMIO", "CTA", "SM", "GPU", "SYS"})
_MEM_OPS = frozenset({"LDG", "STG", "LD", "ST"})


def _mem_mods(t: SMInfo, ins: Instr) -> None:
    """A load's or store's memory order in the target's spelling (``Lowering.mem_mods``)."""
    order = tuple(m for m in ins.mods if m in _ORDER)
    new = t.lowering.mem_mods.get(".".join(order))
    if new is None:
        return
    k = next((i for i, m in enumerate(ins.mods) if m in _ORDER), None)
    rest = [m for m in ins.mods if m not in _ORDER]
    at = len(rest) if k is None else k
    ins.mods = (*rest[:at], *new.split("."), *rest[at:])


def _respell(t: SMInfo, ins: Instr) -> None:
    """``ins`` (an opcode the target has) in modifiers the target's table spells."""
    if ins.op == "WARPSYNC" and ins.mods == ("ALL",):
        ins.mods, ins.srcs = (), [Imm(0xFFFFFFFF)]
    elif ins.op == "F2FP" and "F32" in ins.mods:
        ins.mods = tuple(m for m in ins.mods if m not in ("F32", "F16"))
    elif ins.op == "DMMA":
        ins.mods = tuple(m.replace("x", "") if m == "8x8x4" else m for m in ins.mods)
    if not _spelled(t, ins):
        mods = "".join("." + m for m in ins.mods)
        raise UnsupportedFeature(
            f"{ins.op}{mods} (this PTX's lowering) on {t.name} is not supported by openptxas yet"
        )


def legalize(fn: Function, ctx: PassContext) -> None:
    t = ctx.target
    for b in fn.blocks:
        keep: list[Instr] = []
        for ins in b.instrs:
            if _has_op(t.name, ins.op):  # (every instruction here is one of sm_90's table)
                if ins.op in _MEM_OPS and t.lowering.mem_mods:
                    _mem_mods(t, ins)
                drop = t.lowering.drop_mods.get(ins.op)
                if drop:
                    ins.mods = tuple(m for m in ins.mods if m not in drop)
                add = t.lowering.add_mods.get(ins.op)
                if add and not all(m in ins.mods for m in add):
                    ins.mods = (*add, *ins.mods)
                if not _spelled(t, ins):
                    _respell(t, ins)
                keep.append(ins)
                continue
            if ins.op in _DROPPED:
                continue
            if ins.op == "F2FP" and _f2f(t, ins):
                keep.append(ins)
                continue
            new = _RENAMES.get(ins.op)
            if new is None or not t.has_op(new):
                raise UnsupportedFeature(
                    f"{ins.op} (this PTX's lowering) on {t.name} is not supported by openptxas yet"
                )
            ins.op = new
            keep.append(ins)
        b.instrs[:] = keep
