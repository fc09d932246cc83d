"""Uniform operands of the copy engines' ELECT loops (lower/bulk_rules.py), as ptxas 13.0 does.

The lowering issues a bulk or tensor copy once per active thread: an ELECT loop in which the
elected thread moves its operands to the uniform registers (``@P1 R2UR``). ptxas moves each
warp-uniform one (uniformity analysis, ``ir.uniform``) before the loop (``R2UR UR4, R6``
once), and when every one is, and issuing the copy once is the same as issuing it once per
thread (a copy to global memory, ``UBLKCP.G.S``/``UTMASTG``; the prefetches ``UBLKPF``,
``UTMACCTL``) it drops the loop too. This pass does both (ConvertToUniformReg's phase runs it).

Pre: virtual IR; post: same semantics, the loops' R2URs of uniform values (and UMOVs of
constants) in the block before the loop (which only enters it), the others left in the loop;
idempotent copies with uniform operands only issued once.
"""

from __future__ import annotations

from openptxas.ir.core import Function, Imm, Instr, Label, Operand, Part, Reg, VReg
from openptxas.ir.uniform import analyze
from openptxas.passes.manager import PassContext

# copies that may be issued once for many threads with the same operands
IDEMPOTENT = frozenset({"UBLKPF", "UTMASTG", "UTMACCTL"})


def _idempotent(ins: Instr) -> bool:
    return ins.op in IDEMPOTENT or (ins.op == "UBLKCP" and ins.mods[:1] == ("G",))


def _same(a: Operand, b: Operand) -> bool:
    return a == b


def hoist_bulk_operands(fn: Function, ctx: PassContext) -> None:
    _ = ctx
    uni = None
    for i, b in enumerate(fn.blocks):
        if i == 0 or not b.instrs or b.instrs[0].op != "ELECT" or b.instrs[0].guard is None:
            continue
        t = b.terminator()
        if (
            t is None
            or t.op != "BRA"
            or "ANY" not in t.mods
            or not any(isinstance(s, Label) and s.block == b.name for s in t.srcs)
        ):
            continue
        pend = b.instrs[0].guard.pred
        el = b.instrs[0].dsts[0]
        pre = fn.blocks[i - 1]
        inits = pre.instrs[-2:]
        if (
            len(inits) != 2
            or any(x.op != "PLOP3" or x.guard is not None for x in inits)
            or not _same(inits[0].dsts[0], pend)
            or not _same(inits[1].dsts[0], el)
            or pre.terminator() is not None
        ):
            continue
        body = b.instrs[1:-1]
        moves = [
            x
            for x in body
            if x.op in ("R2UR", "UMOV") and x.guard is not None and x.guard.pred == el
        ]
        if uni is None:
            uni = analyze(fn)
        # (ptxas moves each uniform operand out, and keeps the loop for the others)
        out = [
            x
            for x in moves
            if isinstance(x.srcs[0], Imm)
            or (isinstance(x.srcs[0], VReg | Part | Reg) and uni.is_uniform(x.srcs[0]))
        ]
        if not out:
            continue
        for x in out:
            x.guard = None
        rest = [x for x in body if x not in out]
        pre.instrs[-2:-2] = out
        issue = [x for x in rest if x.op.startswith("U")]
        if len(out) == len(moves) and len(issue) == 1 and _idempotent(issue[0]):
            del pre.instrs[-2:]
            b.instrs = issue
        else:
            b.instrs = [b.instrs[0], *rest, t]
