"""Fold a 64-bit add of a widening multiply into the multiply (IMAD.WIDE's accumulator).

``t = IMAD.WIDE a, b, RZ`` followed by the carry pair ``d = x + t`` becomes
``d = IMAD.WIDE a, b, x``, as ptxas does for address arithmetic (``base + i * 4``). The
multiply's operands must be stable (never change after their definition), so recomputing it at
the add is safe; the original multiply dies when no other use remains.
"""

from __future__ import annotations

from openptxas.ir.analysis import def_info, stable_vregs
from openptxas.ir.core import Function, Imm, Instr, Operand, Part, Reg, VReg


def _base(op: Operand) -> VReg | None:
    if isinstance(op, VReg):
        return op
    if isinstance(op, Part):
        return op.v
    return None


def _stable_operand(op: Operand, stable: set[int]) -> bool:
    if isinstance(op, Imm | Reg):
        return True
    v = _base(op)
    return v is not None and v.id in stable


def wide_add(fn: Function, ctx: object) -> None:
    info = def_info(fn)
    stable = stable_vregs(fn, info)
    for b in fn.blocks:
        out: list[Instr] = []
        k = 0
        ins_list = b.instrs
        while k < len(ins_list):
            ins = ins_list[k]
            nxt = ins_list[k + 1] if k + 1 < len(ins_list) else None
            fused = _match(ins, nxt, info, stable)
            if fused is not None:
                out.append(fused)
                k += 2
                continue
            out.append(ins)
            k += 1
        b.instrs = out


def _match(lo: Instr, hi: Instr | None, info: object, stable: set[int]) -> Instr | None:
    from openptxas.ir.analysis import DefInfo

    assert isinstance(info, DefInfo)
    if hi is None or lo.op != "IADD3" or hi.op != "IADD3" or lo.mods or hi.mods != ("X",):
        return None
    if lo.guard is not None or hi.guard is not None or len(lo.dsts) != 2 or len(hi.dsts) != 1:
        return None
    dlo, dhi = lo.dsts[0], hi.dsts[0]
    if not (
        isinstance(dlo, Part)
        and isinstance(dhi, Part)
        and dlo.v == dhi.v
        and dlo.k == 0
        and dhi.k == 1
        and dlo.v.width == 2
    ):
        return None
    # lo: IADD3 d.lo, c, x.lo, t.lo, RZ ; hi: IADD3.X d.hi, x.hi, t.hi, RZ, c, !PT
    if len(lo.srcs) != 3 or len(hi.srcs) != 5:
        return None
    for xi, ti in ((0, 1), (1, 0)):
        x_lo, t_lo = lo.srcs[xi], lo.srcs[ti]
        x_hi, t_hi = hi.srcs[xi], hi.srcs[ti]
        if not (
            isinstance(t_lo, Part)
            and isinstance(t_hi, Part)
            and t_lo.v == t_hi.v
            and t_lo.k == 0
            and t_hi.k == 1
        ):
            continue
        if not (
            isinstance(x_lo, Part)
            and isinstance(x_hi, Part)
            and x_lo.v == x_hi.v
            and x_lo.k == 0
            and x_hi.k == 1
            and x_lo.v.width == 2
        ):
            continue
        t = t_lo.v
        sites = info.defs(t)
        if len(sites) != 1:
            continue
        mul = sites[0]
        if (
            mul.op != "IMAD"
            or "WIDE" not in mul.mods
            or mul.guard is not None
            or len(mul.srcs) != 3
            or not (isinstance(mul.srcs[2], Reg) and mul.srcs[2].index == 255)
        ):
            continue
        if not all(_stable_operand(s, stable) for s in mul.srcs[:2]):
            continue
        return Instr("IMAD", mul.mods, [dlo.v], [mul.srcs[0], mul.srcs[1], x_lo.v], line=lo.line)
    return None
