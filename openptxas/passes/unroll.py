"""Full unrolling of counted loops (ptxas's phase ``OriLoopUnrolling``, -O2 and up).

Pre: virtual IR. Post: same semantics; a loop of one block ``B`` (its last instruction
``@P BRA B``), entered only by falling through from the block before it and left by falling
through to the block after it, whose trip count the code fixes, becomes straight-line code:
the body repeated once per iteration, without its counter, its compare and its branch.

The trip count is known when (all in ``B`` unless said):

- ``P`` is written once, by ``ISETP.<cmp>[.U32].AND P, PT, i, imm, PT``;
- ``i`` is written once, by ``IADD3 i, i, imm, RZ`` (any step but 0);
- the block before ``B`` ends ``i``'s definitions with an unguarded ``MOV i, imm``;

it is then found by running the counter (at most ``MAX_TRIPS`` iterations). Each copy reads
the counter's value of its iteration as a constant (``MOV``), so that the later folding
(GeneralOptimize) sees single-definition constants: the address steps and shifts of a
``for (k = 0; k < 16; ++k)`` fold as in ptxas's output.

Within the copies, a general register written only by unguarded whole writes gets a new
virtual register per write (so each copy's values are single-definition too); those live after
the loop are copied back to their own register at its end. Other registers keep their names:
the copies run in the loop's order, so rewriting them in place is what the loop did.

How far ptxas unrolls (probed on ptxas 13.0.88 with loops of b independent ALU instructions
and n iterations, ``scripts/probe_unroll.py``): fully when about n * b * b <= 16384 (b = 16:
64 iterations yes, 80 no; b = 24: 32 yes, 40 no; b = 8: 256 yes); larger loops are unrolled
partly (not done here: they stay loops). ``.pragma "nounroll"`` in the loop (or the function)
keeps it.
"""

from __future__ import annotations

from openptxas.ir.analysis import map_regs
from openptxas.ir.core import (
    RC,
    TERMINATORS,
    Addr,
    CBank,
    Function,
    Imm,
    Instr,
    Label,
    Operand,
    Part,
    Reg,
    RegLike,
    VReg,
    all_successors,
    invert,
    is_zero_reg,
)
from openptxas.ir.liveness import compute_liveness
from openptxas.passes.manager import PassContext

MAX_TRIPS = 256
# n * b * b of the loops ptxas unrolls fully (see the module docstring)
FULL_BUDGET = 16384
# never more instructions than this from one loop
MAX_UNROLLED = 4096
# not copied: control flow, calls, and what later phases bracket or number
_KEEP = TERMINATORS | {"BSSY", "BSYNC", "WARPSYNC", "BMOV", "YIELD", "NANOSLEEP"}
_CMPS = {"LT", "LE", "GT", "GE", "EQ", "NE"}
M32 = 0xFFFFFFFF


def loop_unroll(fn: Function, ctx: PassContext) -> int:
    """Unroll every loop the module docstring describes; returns how many."""
    del ctx
    if "*" in fn.nounroll:
        return 0
    done = 0
    j = 1
    while j < len(fn.blocks) - 1:
        plan = _plan(fn, j)
        if plan is not None:
            _unroll(fn, j, *plan)
            done += 1
        j += 1
    return done


def _imm(op: Operand) -> int | None:
    if isinstance(op, Imm) and isinstance(op.value, int):
        return op.value & M32
    return None


def _is_pt(op: Operand) -> bool:
    return isinstance(op, Reg) and op.rc == RC.P and op.index == 7


def _plan(fn: Function, j: int) -> tuple[VReg, Instr, int, int, int] | None:
    """(counter, its write, first value, step, trips) of block ``j`` when it is a loop to
    unroll."""
    b = fn.blocks[j]
    if b.name in fn.nounroll or len(b.instrs) < 3:
        return None
    br = b.instrs[-1]
    if (
        br.op != "BRA"
        or br.mods
        or br.guard is None
        or not isinstance(br.guard.pred, VReg)
        or br.srcs != [Label(b.name)]
    ):
        return None
    body = b.instrs[:-1]
    if any(ins.op in _KEEP for ins in body):
        return None
    succs = all_successors(fn)
    preds = invert(succs)
    if sorted(preds[j]) != [j - 1, j] or sorted(succs[j]) != [j, j + 1]:
        return None
    if succs[j - 1] != [j]:
        return None
    p = br.guard.pred
    writers = [k for k, ins in enumerate(body) for d in ins.def_regs() if _same(d, p)]
    if len(writers) != 1:
        return None
    cmp_at = writers[0]
    cmp = body[cmp_at]
    if (
        cmp.op != "ISETP"
        or cmp.guard is not None
        or len(cmp.dsts) != 2
        or cmp.dsts[0] != p
        or not _is_pt(cmp.dsts[1])
        or len(cmp.srcs) != 3
        or not _is_pt(cmp.srcs[2])
        or cmp.mods[-1:] != ("AND",)
        or cmp.mods[0] not in _CMPS
        or cmp.mods[1:-1] not in ((), ("U32",))
    ):
        return None
    i = cmp.srcs[0]
    bound = _imm(cmp.srcs[1])
    if not isinstance(i, VReg) or i.rc != RC.R or i.width != 1 or bound is None:
        return None
    inc = [k for k, ins in enumerate(body) for d in ins.def_regs() if _same(d, i)]
    if len(inc) != 1:
        return None
    inc_at = inc[0]
    step = _step(body, inc_at, i)
    if not step:
        return None
    first = _initial(fn.blocks[j - 1].instrs, i)
    if first is None:
        return None
    trips = _trips(
        first, step, bound, cmp.mods[0], "U32" in cmp.mods, inc_at < cmp_at, br.guard.inv
    )
    if trips is None:
        return None
    # the counter's step and the compare are not copied as they are; what reads only the
    # counter and constants folds in every copy
    size = len(body) - 2 - _foldable(body, i, {inc_at, cmp_at})
    if trips * size * size > FULL_BUDGET or trips * size > MAX_UNROLLED:
        return None
    return i, body[inc_at], first, step, trips


def _is_add(ins: Instr, d: VReg, i: VReg) -> int | None:
    """The immediate of ``d = IADD3 i, imm, RZ`` (unguarded, plain), else None."""
    if (
        ins.op != "IADD3"
        or ins.mods
        or ins.guard is not None
        or ins.dsts != [d]
        or len(ins.srcs) != 3
        or ins.srcs[0] != i
        or not (isinstance(ins.srcs[2], Reg) and ins.srcs[2].index == 255)
    ):
        return None
    return _imm(ins.srcs[1])


def _step(body: list[Instr], at: int, i: VReg) -> int | None:
    """The counter's step when its only write, ``body[at]``, is ``i = IADD3 i, imm, RZ``, or
    ``i = MOV t`` after ``t = IADD3 i, imm, RZ`` (PTX's ``add t, i, s; ...; mov i, t``)."""
    ins = body[at]
    direct = _is_add(ins, i, i)
    if direct is not None:
        return direct
    t = ins.srcs[0] if len(ins.srcs) == 1 else None
    if ins.op != "MOV" or ins.mods or ins.guard is not None or ins.dsts != [i]:
        return None
    if not isinstance(t, VReg) or t.rc != RC.R or t.width != 1:
        return None
    writes = [k for k, x in enumerate(body) for d in x.def_regs() if _same(d, t)]
    if len(writes) != 1 or writes[0] > at:
        return None
    return _is_add(body[writes[0]], t, i)


def _foldable(body: list[Instr], i: VReg, skip: set[int]) -> int:
    """How many instructions of ``body`` (those at ``skip`` aside) compute from the counter
    ``i`` and constants only (each copy's are constants once the counter is): unguarded, one
    whole general register written, no memory or other side effect."""
    from openptxas.ir.analysis import has_side_effects

    known = {i.id}
    count = 0
    for k, ins in enumerate(body):
        if k in skip:
            continue
        regs = ins.use_regs()
        if (
            ins.guard is None
            and len(ins.dsts) == 1
            and isinstance(ins.dsts[0], VReg)
            and ins.dsts[0].rc == RC.R
            and not has_side_effects(ins)
            and not any(isinstance(src, Addr | CBank) for src in ins.srcs)
            and any(isinstance(r, VReg) for r in regs)
            and all(
                (isinstance(r, VReg) and r.id in known) or (isinstance(r, Reg) and is_zero_reg(r))
                for r in regs
            )
        ):
            known.add(ins.dsts[0].id)
            count += 1
        else:
            for d in ins.def_regs():
                v = d.v if isinstance(d, Part) else d
                if isinstance(v, VReg):
                    known.discard(v.id)
    return count


def _same(r: RegLike, v: VReg) -> bool:
    return r == v or (isinstance(r, Part) and r.v == v)


def _initial(pre: list[Instr], i: VReg) -> int | None:
    """The constant the block ``pre`` leaves in ``i`` (its last write: an unguarded move)."""
    for ins in reversed(pre):
        if any(_same(d, i) for d in ins.def_regs()):
            if ins.op == "MOV" and not ins.mods and ins.guard is None and ins.dsts == [i]:
                return _imm(ins.srcs[0])
            return None
    return None


def _test(a: int, b: int, cmp: str, unsigned: bool) -> bool:
    if not unsigned:
        a = a - (1 << 32) if a >> 31 else a
        b = b - (1 << 32) if b >> 31 else b
    return {
        "LT": a < b,
        "LE": a <= b,
        "GT": a > b,
        "GE": a >= b,
        "EQ": a == b,
        "NE": a != b,
    }[cmp]


def _trips(
    first: int, step: int, bound: int, cmp: str, unsigned: bool, after: bool, inv: bool
) -> int | None:
    """How many times the body runs (a do-while: the compare sees the counter after its step
    when ``after``); None beyond ``MAX_TRIPS``."""
    v = first
    for n in range(1, MAX_TRIPS + 1):
        seen = (v + step) & M32 if after else v
        if _test(seen, bound, cmp, unsigned) == inv:  # the branch back is not taken
            return n
        v = (v + step) & M32
    return None


def _unroll(fn: Function, j: int, i: VReg, inc: Instr, first: int, step: int, trips: int) -> None:
    b = fn.blocks[j]
    body = b.instrs[:-1]
    after = compute_liveness(fn).live_in[j + 1]
    # registers given a new name per write: general and predicate registers written whole and
    # unguarded only (a predicate only when the loop's result does not need it afterwards)
    written: dict[int, VReg] = {}
    fixed: set[int] = set()
    for ins in body:
        for d in ins.dsts:
            for r in (d,) if isinstance(d, VReg | Part) else ():
                v = r.v if isinstance(r, Part) else r
                if isinstance(r, Part) or ins.guard is not None or v.width != 1:
                    fixed.add(v.id)
                elif v.rc == RC.R or (v.rc == RC.P and not after >> v.id & 1):
                    written[v.id] = v
                else:
                    fixed.add(v.id)
    renamed = {vid: v for vid, v in written.items() if vid not in fixed and vid != i.id}
    cur: dict[int, VReg] = {}
    out: list[Instr] = []
    line = b.instrs[-1].line

    def read(r: RegLike) -> RegLike:  # the current name of a register
        if isinstance(r, VReg) and r.id in cur:
            return cur[r.id]
        return r

    def fresh(v: VReg) -> VReg:
        nv = fn.new_vreg(v.rc, v.width)
        cur[v.id] = nv
        return nv

    value = first
    out.append(Instr("MOV", (), [fresh(i)], [Imm(value)], line=line))
    for _ in range(trips):
        for ins in body:
            if ins is inc:  # the counter's write: its value in this iteration
                value = (value + step) & M32
                out.append(Instr("MOV", (), [fresh(i)], [Imm(value)], line=ins.line))
                continue
            c = Instr(
                ins.op,
                ins.mods,
                list(ins.dsts),
                list(ins.srcs),
                ins.guard,
                None,
                ins.line,
                contract=ins.contract,
                contract_fence=ins.contract_fence,
            )
            map_regs(c, read)
            c.dsts = [fresh(d) if isinstance(d, VReg) and d.id in renamed else d for d in c.dsts]
            out.append(c)
    for vid, v in sorted(renamed.items()):
        if vid in cur and after >> vid & 1:
            out.append(Instr("MOV", (), [v], [cur[vid]], line=line))
    if after >> i.id & 1:
        out.append(Instr("MOV", (), [i], [cur[i.id]], line=line))
    b.instrs = out
