"""Fold a 64-bit add of a widening multiply into the multiply (IMAD.WIDE's accumulator).

``t = IMAD.WIDE a, b, RZ`` followed by the carry pair ``d = x + t`` becomes
``d = IMAD.WIDE a, b, x``, as ptxas does for address arithmetic (``base + i * 4``). When only
the low word of the sum is read (a local address: dead-code elimination dropped the ``.X``), the
add ``d.lo = IADD3 x.lo, t.lo`` becomes ``d.lo = IMAD a, b, x.lo`` (the product's low word does
not depend on the multiply's signedness). A 64-bit add of a shifted 32-bit value
(``t = a << s`` as ``SHF.L.U32`` and ``SHF.L.U64.HI`` with the high word ``h``: zero or the sign
of ``a``) becomes ``LEA d.lo, P, a, x.lo, s`` and ``LEA.HI.X d.hi, a, x.hi, h, s, P``, as
ptxas computes ``base + (i << 2)``. Recomputing
the product at the add is safe when ``a`` and ``b`` hold the same values there as at the multiply:
either they never change (stable registers), or the multiply sits earlier in the same block and
nothing in between writes them. The original multiply dies when no other use remains.
"""

from __future__ import annotations

from collections.abc import Iterator

from openptxas.ir.analysis import DefInfo, def_info, stable_vregs, unchanged_since, use_counts
from openptxas.ir.core import RC, RZ, Function, Imm, Instr, Operand, Part, Reg, VReg, reg_class
from openptxas.passes.manager import PassContext


def _base(op: object) -> VReg | None:
    if isinstance(op, VReg):
        return op
    if isinstance(op, Part):
        return op.v
    return None


def wide_addends(fn: Function, info: DefInfo) -> set[int]:
    """The 64-bit registers this pass would fold into a widening multiply as its accumulator
    (``base + i * 4``: IMAD.WIDE's C, which takes no UR when B is an immediate):
    ConvertToUniformReg leaves them in R, as ptxas keeps such a pointer parameter
    (``LDC.64 R2, c[0x0][0x210]; IMAD.WIDE R2, R0, 0x4, R2``). ``info``: fn's definitions."""
    stable = stable_vregs(fn, info)
    found: set[int] = set()
    for b in fn.blocks:
        for k in range(len(b.instrs) - 1):
            _match(b.instrs, k, info, stable, found)
    return found


def wide_add(fn: Function, ctx: PassContext) -> None:
    info = def_info(fn)
    stable = stable_vregs(fn, info)
    uses = use_counts(fn)
    for b in fn.blocks:
        out: list[Instr] = []
        ins_list = b.instrs
        k = 0
        while k < len(ins_list):
            fused = None
            if k + 1 < len(ins_list):
                fused = _match(ins_list, k, info, stable)
            if fused is not None:
                out.append(fused)
                k += 2
                continue
            lea = _match_lea(ins_list, k, info, stable, uses) if k + 1 < len(ins_list) else None
            if lea is not None:
                out.extend(lea)
                k += 2
                continue
            low = _match_low(ins_list, k, info, stable, uses)
            out.append(low if low is not None else ins_list[k])
            k += 1
        b.instrs = out


def _product(
    t: Operand, block: list[Instr], k: int, info: DefInfo, stable: set[int]
) -> Instr | None:
    """The ``IMAD.WIDE a, b, RZ`` that alone writes ``t``'s register, its factors unchanged at
    ``block[k]``."""
    v = _base(t)
    if v is None:
        return None
    sites = info.defs(v)
    if len(sites) != 1:
        return None
    mul = sites[0]
    zero_c: Operand = mul.srcs[2] if len(mul.srcs) == 3 else Imm(1)
    if (
        mul.op != "IMAD"
        or "WIDE" not in mul.mods
        or mul.guard is not None
        or not (isinstance(zero_c, Reg) and zero_c.index == 255)
    ):
        return None
    return mul if _operands_unchanged(mul, block, k, stable) else None


def _match_low(
    block: list[Instr], k: int, info: DefInfo, stable: set[int], uses: dict[int, int]
) -> Instr | None:
    """``d.lo, P = IADD3 x.lo, t.lo, RZ`` (P unread) of a product t: ``d.lo = IMAD a, b, x.lo``."""
    lo = block[k]
    if lo.op != "IADD3" or lo.mods or lo.guard is not None or len(lo.srcs) != 3:
        return None
    if len(lo.dsts) == 2:
        p = _base(lo.dsts[1])
        if p is None or uses.get(p.id, 0):
            return None
    elif len(lo.dsts) != 1:
        return None
    if not (isinstance(lo.srcs[2], Reg) and lo.srcs[2].index == 255):
        return None
    for xi, ti in ((0, 1), (1, 0)):
        x, t = lo.srcs[xi], lo.srcs[ti]
        if not (isinstance(t, Part) and t.k == 0 and t.n == 1 and t.v.width == 2):
            continue
        if not (isinstance(x, Part | VReg) and _base(x) is not None):
            continue
        xv = _base(x)
        assert xv is not None
        if xv.rc != RC.R or (isinstance(x, VReg) and x.width != 1):
            continue
        mul = _product(t, block, k, info, stable)
        if mul is None:
            continue
        return Instr("IMAD", (), [lo.dsts[0]], [mul.srcs[0], mul.srcs[1], x], line=lo.line)
    return None


def _words(lo: Operand, hi: Operand) -> bool:
    """``lo`` and ``hi`` are the low and the high word of one wide register."""
    return (
        isinstance(lo, Part)
        and isinstance(hi, Part)
        and lo.v == hi.v
        and (lo.k, hi.k, lo.n, hi.n) == (0, 1, 1, 1)
    )


def _addends(lo: Instr, hi: Instr) -> Iterator[tuple[Part, Part, Part, Part]]:
    """The carry pair's addends, each order: (x.lo, x.hi, t.lo, t.hi), both two words of one
    wide register each."""
    for xi, ti in ((0, 1), (1, 0)):
        x_lo, t_lo = lo.srcs[xi], lo.srcs[ti]
        x_hi, t_hi = hi.srcs[xi], hi.srcs[ti]
        if _words(t_lo, t_hi) and _words(x_lo, x_hi):
            assert isinstance(x_lo, Part) and isinstance(x_hi, Part)
            assert isinstance(t_lo, Part) and isinstance(t_hi, Part)
            yield x_lo, x_hi, t_lo, t_hi


def _match_lea(
    block: list[Instr], k: int, info: DefInfo, stable: set[int], uses: dict[int, int]
) -> list[Instr] | None:
    """``IADD3 d.lo, c, x.lo, t.lo, RZ`` and ``IADD3.X d.hi, x.hi, t.hi, RZ, c, !PT`` where
    ``t.lo = SHF.L.U32 a, s, RZ`` and ``t.hi = SHF.L.U64.HI a, s, h`` alone write t, read here
    only: LEA d.lo, c, a, x.lo, s and LEA.HI.X d.hi, a, x.hi, h, s, c."""
    lo, hi = block[k], block[k + 1]
    if lo.op != "IADD3" or hi.op != "IADD3" or lo.mods or hi.mods != ("X",):
        return None
    if lo.guard is not None or hi.guard is not None or len(lo.dsts) != 2 or len(hi.dsts) != 1:
        return None
    if len(lo.srcs) != 3 or len(hi.srcs) != 5 or lo.srcs[2] != hi.srcs[2] or lo.srcs[2] != RZ:
        return None
    carry = lo.dsts[1]
    if hi.srcs[3] != carry or not isinstance(carry, VReg) or uses.get(carry.id, 0) != 1:
        return None
    for x_lo, x_hi, t_lo, _t_hi in _addends(lo, hi):
        if uses.get(t_lo.v.id, 0) != 2 or x_lo.v.rc not in (RC.R, RC.UR):
            continue
        sites = info.defs(t_lo.v)
        shl = [d for d in sites if d.op == "SHF" and d.mods == ("L", "U32")]
        shh = [d for d in sites if d.op == "SHF" and d.mods == ("L", "U64", "HI")]
        if len(sites) != 2 or len(shl) != 1 or len(shh) != 1:
            continue
        sl, sh = shl[0], shh[0]
        if sl.guard is not None or sh.guard is not None:
            continue
        if sl.dsts != [Part(t_lo.v, 0)] or sh.dsts != [Part(t_lo.v, 1)]:
            continue
        a, n, z = sl.srcs
        a2, n2, h = sh.srcs
        if a != a2 or n != n2 or z != RZ or not isinstance(n, Imm) or not 0 < n.value < 32:
            continue
        if not isinstance(a, VReg | Part) or not isinstance(h, VReg | Part | Reg):
            continue
        if x_lo.v.rc == RC.UR and (reg_class(a) != RC.R or reg_class(h) != RC.R):
            continue  # (a uniform base: ptxas's LEA R4, P0, R0, UR4, 0x2; one UR source)
        ids = {v.id for o in (a, h) if (v := _base(o)) is not None and v.id not in stable}
        if ids and not unchanged_since(block, [sl, sh], k, ids):
            continue
        return [
            Instr("LEA", (), [lo.dsts[0], carry], [a, x_lo, n], line=lo.line),
            Instr("LEA", ("HI", "X"), [hi.dsts[0]], [a, x_hi, h, n, carry], line=hi.line),
        ]
    return None


def _operands_unchanged(mul: Instr, block: list[Instr], k: int, stable: set[int]) -> bool:
    srcs = mul.srcs[:2]
    if all(
        isinstance(s, Imm | Reg) or ((v := _base(s)) is not None and v.id in stable) for s in srcs
    ):
        return True
    ids = {v.id for s in srcs if (v := _base(s)) is not None}
    return unchanged_since(block, [mul], k, ids)


def _match(
    block: list[Instr], k: int, info: DefInfo, stable: set[int], found: set[int] | None = None
) -> Instr | None:
    lo, hi = block[k], block[k + 1]
    if lo.op != "IADD3" or hi.op != "IADD3" or lo.mods or hi.mods != ("X",):
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
    for x_lo, _x_hi, t_lo, _t_hi in _addends(lo, hi):
        if x_lo.v.width != 2:
            continue
        mul = _product(t_lo, block, k, info, stable)
        if mul is None:
            continue
        if x_lo.v.rc == RC.UR and not all(
            isinstance(o, VReg | Part | Reg) and reg_class(o) == RC.R for o in mul.srcs[:2]
        ):
            continue  # an ALU form takes one non-register source: an immediate or a UR
        if found is not None:
            found.add(x_lo.v.id)
        return Instr("IMAD", mul.mods, [dlo.v], [mul.srcs[0], mul.srcs[1], x_lo.v], line=lo.line)
    return None
