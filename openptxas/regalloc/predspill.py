"""Predicate spilling: when more predicates are live at once than P0-P6 (or UP0-UP6) can hold,
keep the longest-lived ones in general registers instead.

A spilled predicate ``p`` is stored after each definition as ``SEL r, RZ, 0x1, !p`` (r = 1 when
p holds) and each use reads a fresh predicate recreated just before it with
``ISETP.NE.U32.AND q, PT, r, RZ, PT``. (ptxas packs predicates into a register with P2R/R2P;
one register per predicate is simpler and still correct.)
"""

from __future__ import annotations

from openptxas.ir.analysis import map_regs
from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Function,
    Guard,
    Imm,
    Instr,
    Part,
    Reg,
    RegLike,
    Src,
    VReg,
)


def spill_predicate(fn: Function, p: VReg) -> None:
    assert p.rc in (RC.P, RC.UP)
    uniform = p.rc == RC.UP
    holder = fn.new_vreg(RC.UR if uniform else RC.R)
    zero: Reg = Reg(RC.UR, 255) if uniform else RZ
    true_: Reg = Reg(RC.UP, 7) if uniform else PT
    for b in fn.blocks:
        out: list[Instr] = []
        for ins in b.instrs:
            reads = any(isinstance(r, VReg) and r == p for r in ins.use_regs())
            if reads:
                q = fn.new_vreg(p.rc)
                out.append(
                    Instr(
                        "UISETP" if uniform else "ISETP",
                        ("NE", "U32", "AND"),
                        [q, true_],
                        [holder, zero, true_],
                        line=ins.line,
                    )
                )

                def sub(x: RegLike, q: VReg = q) -> RegLike:
                    return q if isinstance(x, VReg) and x == p else x

                map_regs(ins, sub)
            out.append(ins)
            if any(isinstance(r, VReg) and r == p for r in ins.def_regs()):
                # the definition writes a fresh predicate, so that ``p`` itself is gone: a
                # guarded definition of ``p`` would keep ``p`` live into it (seed 23440)
                d = fn.new_vreg(p.rc)

                def sub_def(x: RegLike, d: VReg = d) -> RegLike:
                    return d if isinstance(x, VReg) and x == p else x

                map_regs(ins, sub_def, dsts=True, srcs=False)
                if ins.guard is not None and not uniform:
                    # a guarded definition keeps the old value when skipped, so ``d`` would be
                    # live from the function's entry: define it first (d = false; seed 26032)
                    out.insert(
                        len(out) - 1,
                        Instr(
                            "PLOP3",
                            ("LUT",),
                            [d, PT],
                            [PT, PT, PT, Imm(0x0), Imm(0)],
                            line=ins.line,
                        ),
                    )
                # holder = d ? 1 : 0 (a guarded definition keeps the old value when skipped)
                sel = Instr(
                    "USEL" if uniform else "SEL",
                    (),
                    [holder],
                    [zero, Imm(1), Src(d, inv=True)],
                    line=ins.line,
                )
                if ins.guard is not None:
                    sel.guard = Guard(ins.guard.pred, ins.guard.inv)
                out.append(sel)
        b.instrs = out
    _ = Part
