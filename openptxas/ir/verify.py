"""The IR verifier: structural invariants every phase must preserve.

Run by the pass manager after every phase when ``--verify`` / ``OPENPTXAS_VERIFY=1`` is set
(always in tests). Raises InternalError naming the function, block and instruction.
"""

from __future__ import annotations

from openptxas.diag import InternalError
from openptxas.ir.core import (
    RC,
    TERMINATORS,
    Function,
    Instr,
    Label,
    Part,
    Reg,
    VReg,
    operand_regs,
    reg_class,
)


def _fail(fn: Function, where: str, msg: str) -> InternalError:
    return InternalError(f"IR verifier: {fn.name}: {where}: {msg}")


def verify(fn: Function, *, allocated: bool = False) -> None:
    """Check ``fn``. With ``allocated``, no virtual register may remain."""
    names = [b.name for b in fn.blocks]
    if len(set(names)) != len(names):
        raise _fail(fn, "blocks", "duplicate block names")
    if not fn.blocks:
        raise _fail(fn, "blocks", "function has no blocks")
    known = set(names)
    for b in fn.blocks:
        for k, ins in enumerate(b.instrs):
            where = f"{b.name}[{k}] {ins}"
            if ins.op in TERMINATORS and k != len(b.instrs) - 1 and ins.op != "EXIT":
                raise _fail(fn, where, "control-flow instruction is not last in its block")
            if ins.op in ("BRA", "BSSY") and not any(isinstance(s, Label) for s in ins.srcs):
                raise _fail(fn, where, "branch without a target label")
            for s in ins.srcs:
                if isinstance(s, Label) and s.block not in known and ins.op != "CALL":
                    raise _fail(fn, where, f"target {s.block} is not a block of this function")
            if ins.guard is not None and not reg_class(ins.guard.pred).is_pred:
                raise _fail(fn, where, "guard is not a predicate")
            _check_operands(fn, where, ins, allocated)


def _check_operands(fn: Function, where: str, ins: Instr, allocated: bool) -> None:
    for op in (*ins.dsts, *ins.srcs):
        if isinstance(op, Label):
            continue
        for r in operand_regs(op):
            if isinstance(r, Part) and not 0 <= r.k < r.k + r.n <= r.v.width:
                raise _fail(fn, where, f"{r} is outside {r.v}")
            if allocated and isinstance(r, VReg | Part):
                raise _fail(fn, where, f"virtual register {r} after allocation")
            if isinstance(r, Reg) and r.rc in (RC.P, RC.UP) and not 0 <= r.index <= 7:
                raise _fail(fn, where, f"bad predicate {r}")
    for d in ins.dsts:
        if not isinstance(d, VReg | Part | Reg):
            raise _fail(fn, where, f"destination {d} is not a register")
