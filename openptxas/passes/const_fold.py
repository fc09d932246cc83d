"""Constant propagation and folding (part of ptxas's GeneralOptimize).

Pre: virtual IR. Post: same semantics;
- a register written once, unguarded, by ``MOV d, imm`` is replaced by the immediate in every
  source slot that takes one (the B source of ALU ops), and by RZ where the constant is zero
  and the slot takes a register;
- integer instructions whose sources are all immediates become ``MOV d, value``.

The evaluator covers the 32-bit integer ops the lowering emits; anything else is left alone.
"""

from __future__ import annotations

from openptxas.ir.analysis import def_info, map_regs
from openptxas.ir.core import RC, RZ, Function, Imm, ImmKind, Instr, Operand, Reg, Src, VReg

M32 = 0xFFFFFFFF
# Source positions that accept a 32-bit integer immediate.
IMM_SLOTS: dict[str, frozenset[int]] = {
    "IADD3": frozenset({1}),
    "IMAD": frozenset({1}),
    "LOP3": frozenset({1}),
    "SHF": frozenset({1}),
    "SEL": frozenset({1}),
    "ISETP": frozenset({1}),
    "VIMNMX": frozenset({1}),
    "LEA": frozenset({1}),
    "MOV": frozenset({0}),
    "IADD": frozenset({1}),
    "PRMT": frozenset({1}),
}


def _imm_int(op: Operand) -> int | None:
    if isinstance(op, Imm) and op.kind == ImmKind.INT:
        return op.value & M32
    if isinstance(op, Reg) and op.rc == RC.R and op.index == 255:
        return 0
    if isinstance(op, Src) and not op.abs and not op.inv and op.sel == "":
        v = _imm_int(op.x)
        if v is not None:
            return (-v) & M32 if op.neg else v
    return None


def _eval(ins: Instr) -> int | None:
    """The value of a 32-bit integer instruction with constant sources, or None."""
    if ins.guard is not None or len(ins.dsts) != 1:
        return None
    vals = [_imm_int(s) for s in ins.srcs]
    if ins.op == "IADD3" and not ins.mods and len(vals) == 3 and None not in vals:
        return sum(v for v in vals if v is not None) & M32
    if ins.op == "IMAD" and not ins.mods and len(vals) == 3 and None not in vals:
        a, b, c = (v for v in vals if v is not None)
        return (a * b + c) & M32
    if ins.op == "LOP3" and ins.mods == ("LUT",) and len(vals) >= 4 and None not in vals[:4]:
        a, b, c, lut = (v for v in vals[:4] if v is not None)
        r = 0
        for bit in range(32):
            idx = ((a >> bit & 1) << 2) | ((b >> bit & 1) << 1) | (c >> bit & 1)
            r |= (lut >> idx & 1) << bit
        return r
    return None


def const_fold(fn: Function, ctx: object) -> None:
    for _ in range(4):
        info = def_info(fn)
        consts: dict[int, int] = {}
        for vid, sites in info.sites.items():
            if len(sites) != 1:
                continue
            ins = sites[0]
            if (
                ins.op == "MOV"
                and not ins.mods
                and ins.guard is None
                and len(ins.dsts) == 1
                and isinstance(ins.dsts[0], VReg)
                and ins.dsts[0].rc == RC.R
                and ins.dsts[0].width == 1
            ):
                v = _imm_int(ins.srcs[0])
                if v is not None:
                    consts[vid] = v
        changed = False
        for ins in fn.instrs():
            slots = IMM_SLOTS.get(ins.op)
            for k, s in enumerate(ins.srcs):
                if isinstance(s, VReg) and s.id in consts:
                    val = consts[s.id]
                    if val == 0:
                        ins.srcs[k] = RZ
                        changed = True
                    elif slots is not None and k in slots and ins.mods[:1] != ("WIDE",):
                        ins.srcs[k] = Imm(val)
                        changed = True
            folded = _eval(ins)
            if folded is not None and ins.op != "MOV":
                ins.op, ins.mods, ins.srcs = "MOV", (), [Imm(folded)]
                changed = True
        if not changed:
            return
    _ = map_regs
