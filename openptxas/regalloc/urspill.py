"""Uniform-register spilling: when more uniform values are live at once than UR0-UR62 hold,
keep the longest-lived ones in general registers instead.

A spilled uniform register ``u`` is copied to an R register after each definition (``MOV r,
u'``, the definition writing a fresh ``u'``) and each use reads a fresh uniform register
recreated just before it (``R2UR q, r``), word by word for pairs and quads. The value is the
same in every lane, so the R copy holds it as well as the UR did; the R registers it takes may
in turn spill to local memory. A guarded definition starts from the old value (``R2UR u', r``
first), so that a skipped one keeps it.
"""

from __future__ import annotations

from collections.abc import Callable

from openptxas.ir.analysis import map_regs
from openptxas.ir.core import (
    RC,
    CBank,
    Function,
    Instr,
    Part,
    RegLike,
    Src,
    VReg,
    operand_regs,
)


def _words(v: VReg) -> list[VReg | Part]:
    return [v] if v.width == 1 else [Part(v, j) for j in range(v.width)]


def spill_uniform(fn: Function, u: VReg) -> None:
    assert u.rc == RC.UR
    holder = fn.new_vreg(RC.R, u.width)

    def same(x: RegLike) -> bool:
        v = x.v if isinstance(x, Part) else x
        return isinstance(v, VReg) and v == u

    for b in fn.blocks:
        out: list[Instr] = []
        for ins in b.instrs:
            if any(same(r) for r in ins.use_regs()) and _reads_directly(ins, same):
                # a vector instruction reads the R copy in place of the UR (no R2UR, so no
                # new uniform register: inside a divergent region a uniform register is live
                # over the whole region, and one R2UR copy per use there did not fit)
                map_regs(ins, _renamer(u, holder))
            elif any(same(r) for r in ins.use_regs()):
                q = fn.new_vreg(RC.UR, u.width)
                for w, h in zip(_words(q), _words(holder), strict=True):
                    out.append(Instr("R2UR", (), [w], [h], line=ins.line))

                map_regs(ins, _renamer(u, q))
            defines = any(same(r) for r in ins.def_regs())
            if not defines:
                out.append(ins)
                continue
            moved = _as_vector_move(ins, u, holder)
            if moved is not None:
                # a uniform move or constant load writes the R copy itself (no new UR)
                out += moved
                continue
            d = fn.new_vreg(RC.UR, u.width)
            partial = ins.guard is not None or not any(
                isinstance(x, VReg) and x == u for x in ins.dsts
            )
            if partial:
                # a skipped or partial write keeps the old value: start from it
                for w, h in zip(_words(d), _words(holder), strict=True):
                    out.append(Instr("R2UR", (), [w], [h], line=ins.line))

            map_regs(ins, _renamer(u, d), dsts=True, srcs=False)
            out.append(ins)
            for h, w in zip(_words(holder), _words(d), strict=True):
                out.append(Instr("MOV", (), [h], [w], line=ins.line))
        b.instrs = out


def _as_vector_move(ins: Instr, u: VReg, holder: VReg) -> list[Instr] | None:
    """``UMOV u, x`` / ``ULDC[.64] u, c[b][o]`` writing all of ``u`` as vector moves into
    ``holder`` (MOV reads a uniform register, an immediate or a bank word as well)."""
    if ins.guard is not None or ins.dsts != [u] or len(ins.srcs) != 1:
        return None
    src = ins.srcs[0]
    if ins.op == "UMOV" and u.width == 1:
        return [Instr("MOV", (), [holder], [src], line=ins.line)]
    if ins.op == "ULDC" and isinstance(src, CBank) and src.reg is None:
        if u.width == 1 and not ins.mods:
            return [Instr("MOV", (), [holder], [src], line=ins.line)]
        if u.width == 2 and ins.mods == ("64",):
            return [
                Instr("MOV", (), [Part(holder, j)], [CBank(src.bank, src.offset + 4 * j)],
                      line=ins.line)
                for j in range(2)
            ]  # fmt: skip
    return None


# vector instructions whose register operands are uniform-only all the same
_UR_ONLY = frozenset({"R2UR", "S2UR", "REDUX", "VOTEU", "ELECT", "SYNCS", "WARPSYNC", "BAR"})


def _reads_directly(ins: Instr, same: Callable[[RegLike], bool]) -> bool:
    """``ins`` may read the spilled value from a general register: a vector instruction with
    it as a plain source operand only (not in an address, a descriptor or a bank index)."""
    if ins.op.startswith("U") or ins.op in _UR_ONLY:
        return False
    for s in ins.srcs:
        x = s.x if isinstance(s, Src) else s
        if isinstance(x, VReg | Part):
            continue
        if any(same(r) for r in operand_regs(s)):
            return False  # inside an Addr or CBank
    return ins.guard is None or not same(ins.guard.pred)


def _renamer(u: VReg, to: VReg) -> Callable[[RegLike], RegLike]:
    """Operand substitution: ``u`` (whole or a word range of it) becomes ``to``."""

    def sub(x: RegLike) -> RegLike:
        if isinstance(x, Part) and x.v == u:
            return Part(to, x.k, x.n)
        return to if isinstance(x, VReg) and x == u else x

    return sub
