"""Loop unrolling (ptxas's phase ``OriLoopUnrolling``, -O2 and up).

Pre: virtual IR. Post: same semantics. Loops of one block ``B`` (its last instruction
``@P BRA B``), entered only by falling through from the block before it and left by falling
through to the block after it:

- **Full unrolling** when the code fixes the trip count: ``B`` becomes straight-line code, the
  body repeated once per iteration without its counter, its compare and its branch, and joined
  with the blocks around it where nothing else enters them. The trip count is known when (all
  in ``B`` unless said) ``P`` is written once, by ``ISETP.<cmp>[.U32].AND P, PT, i, imm, PT``;
  ``i`` is written once, by ``IADD3 i, i, imm, RZ`` (any step but 0) or through a copy; the
  block before ``B`` ends ``i``'s definitions with an unguarded ``MOV i, imm``. It is found by
  running the counter (at most ``MAX_TRIPS`` iterations). Each copy reads the counter's value
  of its iteration as a constant (``MOV``), so that the later folding (GeneralOptimize) sees
  single-definition constants: the address steps and shifts of a ``for (k = 0; k < 16; ++k)``
  fold as in ptxas's output.
- **Partial unrolling** of nvcc's count-down loops of an unknown trip count
  (``c -= s; while (c != 0)``): see ``_unroll_partial``.

Within the copies, registers written before they are read in each iteration, and those carried
around the loop when written whole and unguarded, get a new virtual register per write (so
each copy's values are single-definition too); the last write of those the code after reads
goes to the register's own name again (``_name_back``). Other registers keep their names: the
copies run in the loop's order, so rewriting them in place is what the loop did.

How far ptxas unrolls fully (probed on ptxas 13.0.88 with loops of b independent ALU
instructions and n iterations, ``scripts/probe_unroll.py``): when about n * b * b <= 16384
(b = 16: 64 iterations yes, 80 no; b = 24: 32 yes, 40 no; b = 8: 256 yes). ``.pragma
"nounroll"`` in the loop, the function or the module keeps a loop.
"""

from __future__ import annotations

from collections.abc import Callable

from openptxas.ir.analysis import map_regs, renamer
from openptxas.ir.core import (
    RC,
    TERMINATORS,
    Addr,
    Block,
    CBank,
    Function,
    Guard,
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
    cfg = _Cfg(fn)
    while j < len(fn.blocks) - 1:
        found = _back_compare(fn, j, cfg)
        plan = None if found is None else _plan(fn, j, found)
        part = None if found is None or plan is not None else _plan_partial(fn, found)
        if plan is not None:
            _unroll(fn, j, *plan)
            done += 1
            # straight code now: one block with the code before and after it where nothing else
            # enters them (ptxas contracts a product of the last copy into a sum after the
            # loop: difffuzz seed 67417)
            j = _merge_straight(fn, j)
            cfg = _Cfg(fn)
        elif part is not None:
            _unroll_partial(fn, j, *part)
            done += 1
            j += 3  # (the three blocks put before the loop)
            cfg = _Cfg(fn)
        j += 1
    return done


class _Cfg:
    """The function's successor and predecessor lists, made when first asked for: the loops
    that are not unrolled (most) then cost one pass over the function between two changes, not
    one each (a kernel of 800 loops: quadratic, bench/compile_scale.py's ``loops``)."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self._succs: list[list[int]] | None = None
        self._preds: list[list[int]] | None = None

    def succs(self) -> list[list[int]]:
        if self._succs is None:
            self._succs = all_successors(self.fn)
        return self._succs

    def preds(self) -> list[list[int]]:
        if self._preds is None:
            self._preds = invert(self.succs())
        return self._preds


def _merge_straight(fn: Function, j: int) -> int:
    """Join block ``j`` with the block after it, and the block before it with it, where the
    earlier one falls through into the later and is its only way in; the index of the joined
    block."""
    for a in (j, j - 1):
        if a < 0 or a + 1 >= len(fn.blocks):
            continue
        first, second = fn.blocks[a], fn.blocks[a + 1]
        preds = invert(all_successors(fn))[a + 1]
        last = first.instrs[-1] if first.instrs else None
        if preds != [a] or (last is not None and last.op in TERMINATORS):
            continue
        if second.name in fn.nounroll or any(
            isinstance(o, Label) and o.block == second.name for ins in fn.instrs() for o in ins.srcs
        ):
            continue
        first.instrs.extend(second.instrs)
        del fn.blocks[a + 1]
        j = a
    return j


def _loop_shape(fn: Function, j: int, cfg: _Cfg) -> tuple[list[Instr], Instr] | None:
    """(body, back branch) of block ``j`` when it is a loop of one block entered only by
    falling through from block ``j - 1`` and left only by falling through to ``j + 1``, with
    nothing in it that may not be copied."""
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
    succs, preds = cfg.succs(), cfg.preds()
    if sorted(preds[j]) != [j - 1, j] or sorted(succs[j]) != [j, j + 1]:
        return None
    if succs[j - 1] != [j]:
        return None
    return body, br


def _imm(op: Operand) -> int | None:
    if isinstance(op, Imm) and isinstance(op.value, int):
        return op.value & M32
    return None


def _is_pt(op: Operand) -> bool:
    return isinstance(op, Reg) and op.rc == RC.P and op.index == 7


Loop = tuple[list[Instr], Instr, int]  # body, back branch, where the compare is


def _plan(fn: Function, j: int, loop: Loop) -> tuple[VReg, Instr, int, int, int] | None:
    """(counter, its write, first value, step, trips) of loop block ``j`` when it is a loop to
    unroll fully."""
    body, br, cmp_at = loop
    cmp = body[cmp_at]
    assert br.guard is not None
    if cmp.mods[0] not in _CMPS or cmp.mods[1:-1] not in ((), ("U32",)):
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


def _back_compare(fn: Function, j: int, cfg: _Cfg) -> Loop | None:
    """(body, back branch, where the compare is) when block ``j`` is a loop of the shape
    ``_loop_shape`` takes and its branch's predicate is written once in it, by an unguarded
    ``ISETP.<cmp>[.U32].AND p, PT, a, b, PT``."""
    shape = _loop_shape(fn, j, cfg)
    if shape is None:
        return None
    body, br = shape
    assert br.guard is not None and isinstance(br.guard.pred, VReg)
    p = br.guard.pred
    writers = [k for k, ins in enumerate(body) for d in ins.def_regs() if _same(d, p)]
    if len(writers) != 1:
        return None
    cmp = body[writers[0]]
    if (
        cmp.op != "ISETP"
        or cmp.guard is not None
        or len(cmp.dsts) != 2
        or cmp.dsts[0] != p
        or not _is_pt(cmp.dsts[1])
        or len(cmp.srcs) != 3
        or not _is_pt(cmp.srcs[2])
        or cmp.mods[-1:] != ("AND",)
    ):
        return None
    return body, br, writers[0]


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
    lv = compute_liveness(fn)
    after = lv.live_in[j + 1]
    # renamed per copy: registers not live into the loop (written before read in each copy),
    # and those carried around it that are general registers written whole and unguarded, or
    # predicates the code after the loop does not read; renamed registers other than general
    # ones must not be live after it
    written = _written(body)
    rename = _locals(body, lv.live_in[j]) | _carried(body, lv.live_in[j], after)
    rename -= _non_general_after(written, after) | {i.id}
    line = b.instrs[-1].line
    cur: dict[int, VReg] = {}
    value = [first]
    out = [Instr("MOV", (), [_fresh(fn, cur, i)], [Imm(first)], line=line)]

    def count() -> Instr:  # the counter's write: its value in this iteration, a constant
        value[0] = (value[0] + step) & M32
        return Instr("MOV", (), [_fresh(fn, cur, i)], [Imm(value[0])], line=inc.line)

    for _ in range(trips):
        out.extend(_copy(fn, body, cur, rename, skip=inc, instead=count))
    back = {vid: v for vid, v in written.items() if vid in rename and after >> vid & 1}
    if after >> i.id & 1:
        back[i.id] = i
    _name_back(out, cur, back)
    b.instrs = out


def _carried(body: list[Instr], live_in: int, after: int | None = None) -> set[int]:
    """General registers live into ``body`` and written in it only whole, unguarded, one word
    wide (the values a loop carries from one iteration to the next); with ``after`` (the
    registers live after the loop), predicates of that kind not live after it too."""
    out: set[int] = set()
    fixed: set[int] = set()
    for ins in body:
        for d in ins.dsts:
            v = d.v if isinstance(d, Part) else d
            if isinstance(v, VReg) and live_in >> v.id & 1:
                kind = v.rc == RC.R or (
                    after is not None and v.rc == RC.P and not after >> v.id & 1
                )
                ok = isinstance(d, VReg) and ins.guard is None and kind and v.width == 1
                (out if ok else fixed).add(v.id)
    return out - fixed


def _written(body: list[Instr]) -> dict[int, VReg]:
    """The virtual registers ``body`` writes (whole or a word of them), by id."""
    return {
        v.id: v
        for ins in body
        for d in ins.dsts
        if isinstance(v := (d.v if isinstance(d, Part) else d), VReg)
    }


def _non_general_after(written: dict[int, VReg], after: int) -> set[int]:
    """Of ``written``, the registers other than general ones live after the loop (``after``)."""
    return {vid for vid, v in written.items() if v.rc != RC.R and after >> vid & 1}


def _writer(body: list[Instr], br: Instr) -> Instr | None:
    """The compare that writes the back branch's predicate when nothing else in ``body``
    reads the predicate (then the copies may leave it out), else None."""
    assert br.guard is not None
    p = br.guard.pred
    readers = [ins for ins in body for r in ins.use_regs() if r == p]
    writers = [ins for ins in body if any(d == p for d in ins.dsts)]
    return writers[0] if not readers and len(writers) == 1 else None


def _locals(body: list[Instr], live_in: int) -> set[int]:
    """General and predicate registers written in ``body`` only by unguarded writes and not
    live into it: each iteration writes them before it reads them, so each copy may name them
    anew."""
    out: set[int] = set()
    fixed: set[int] = set()
    for ins in body:
        for d in ins.dsts:
            v = d.v if isinstance(d, Part) else d
            if isinstance(v, VReg):
                bad = ins.guard is not None or live_in >> v.id & 1 or v.rc not in (RC.R, RC.P)
                (fixed if bad else out).add(v.id)
    return out - fixed


def _name_back(out: list[Instr], cur: dict[int, VReg], back: dict[int, VReg]) -> None:
    """The copies' last names of the registers of ``back`` become their own names again (in
    ``out``, every read and write of a copy's name follows its first write, and no read of
    the register's own name follows that: each reads the copy's name), so that the value is
    where the code after reads it without a move between (a move would keep FmaContraction
    from fusing a product of the last copy: difffuzz seed 67417)."""
    final = {cur[vid].id: v for vid, v in back.items() if vid in cur}
    if not final:
        return

    own = renamer(final)
    for x in out:
        map_regs(x, own, dsts=True)


def _fresh(fn: Function, cur: dict[int, VReg], v: VReg) -> VReg:
    nv = fn.new_vreg(v.rc, v.width)
    cur[v.id] = nv
    return nv


def _copy(
    fn: Function,
    body: list[Instr],
    cur: dict[int, VReg],
    rename: set[int],
    skip: Instr | None = None,
    instead: Callable[[], Instr] | None = None,
) -> list[Instr]:
    """One copy of ``body``, ``instead()`` in place of ``skip`` (made when its turn comes, so
    that it may rename too; without ``instead``, ``skip`` is left out): reads take the
    current names (``cur``), a whole write of a register of ``rename`` a new one, a word's
    write the copy's name of its register (new at the copy's first write of it). ``cur`` is
    updated."""
    made: set[int] = set()

    read = renamer(cur)  # (cur changes as the copy goes: the renamer reads it live)

    out: list[Instr] = []
    for ins in body:
        if ins is skip:
            if instead is not None:
                out.append(instead())
            continue
        x = Instr(
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
        map_regs(x, read)
        dsts: list[Operand] = []
        for d in x.dsts:
            if isinstance(d, VReg) and d.id in rename:
                made.add(d.id)
                d = _fresh(fn, cur, d)
            elif isinstance(d, Part) and d.v.id in rename:
                if d.v.id not in made:
                    made.add(d.v.id)
                    _fresh(fn, cur, d.v)
                d = Part(cur[d.v.id], d.k, d.n)
            dsts.append(d)
        x.dsts = dsts
        out.append(x)
    return out


# Partial unrolling: copies per iteration of the unrolled loop, by the body's size without the
# counter's step and compare (scripts/probe_unroll.py --partial: ptxas 13.0.88 unrolls a
# count-down loop of up to 18 such instructions four times, whatever the step, and one of 19
# or more not at all; nvcc's remainder-free main loops, already four copies, are mostly larger)
PARTIAL_FACTORS = ((18, 4),)
MAX_STEP = 1 << 12


def _plan_partial(fn: Function, loop: Loop) -> tuple[VReg, int, int] | None:
    """(counter, step, copies) of a count-down loop to unroll in part: ``c`` written once,
    ``c = c - s`` (``IADD3 c, c, -s, RZ`` or through a copy), and the branch back taken while
    ``c != 0`` after the step, ``s`` a small positive constant. The count is not known: nvcc's
    loops of an unknown trip count have this form."""
    body, br, cmp_at = loop
    cmp = body[cmp_at]
    assert br.guard is not None
    if br.guard.inv or cmp.mods not in (("NE", "U32", "AND"), ("NE", "AND")):
        return None
    if _imm(cmp.srcs[1]) != 0:
        return None
    c = cmp.srcs[0]
    if not isinstance(c, VReg) or c.rc != RC.R or c.width != 1:
        return None
    inc = [k for k, ins in enumerate(body) for d in ins.def_regs() if _same(d, c)]
    if len(inc) != 1 or inc[0] > cmp_at:
        return None
    step = _step(body, inc[0], c)
    if step is None or step < (1 << 32) - MAX_STEP:
        return None
    s = (1 << 32) - step
    size = len(body) - 2
    factor = next((f for most, f in PARTIAL_FACTORS if size <= most), None)
    if factor is None:
        return None
    top = _most(fn, c, {id(x) for x in body})
    if top is not None and top < factor * s:
        return None  # (nvcc's remainder loops: c = n & 3 never reaches four iterations)
    return c, s, factor


def _most(fn: Function, v: VReg, skip: set[int], depth: int = 3) -> int | None:
    """An upper bound of the value ``v`` has where its one write outside ``skip`` (instruction
    ids) leaves it: an AND with an immediate (``LOP3.LUT v, x, imm, RZ, 0xc0``), a move of an
    immediate or of a register with such a bound; None when not known."""
    writes = [
        ins
        for ins in fn.instrs()
        if id(ins) not in skip and any(_same(d, v) for d in ins.def_regs())
    ]
    if len(writes) != 1 or depth == 0:
        return None
    w = writes[0]
    if w.guard is not None or w.dsts[:1] != [v]:
        return None
    if w.op == "MOV" and not w.mods and len(w.srcs) == 1:
        x = w.srcs[0]
        if isinstance(x, VReg):
            return _most(fn, x, skip, depth - 1)
        return _imm(x)
    if w.op == "LOP3" and w.mods == ("LUT",) and len(w.srcs) >= 4 and _imm(w.srcs[3]) == 0xC0:
        masks = [m for x in w.srcs[:2] if (m := _imm(x)) is not None]
        if masks and w.srcs[2] == Reg(RC.R, 255):
            return min(masks)
    return None


def _unroll_partial(fn: Function, j: int, c: VReg, s: int, factor: int) -> None:
    """Put before loop ``j`` a loop of ``factor`` copies of its body that runs while at least
    ``factor`` iterations remain (the counter, counting down by ``s`` to 0, is at least
    ``factor * s`` unsigned: the copies' own tests would all go on), then leaves when the count
    is done or goes on in the original loop for what is left:

        pre:   if c < F*s goto loop
        main:  body x F;  if c >= F*s goto main
        rest:  if c == 0 goto exit
        loop:  (the original loop)
        exit:

    Every path runs the iterations the original loop runs (it runs its body at least once;
    so does each way into ``main`` or ``loop``), in the same order. In the copies, the
    registers written before they are read in each iteration, and the general registers
    carried around the loop (written whole, unguarded), get new names, so that each copy's
    values are apart and single-definition (constants fold, adds chain); at the end of
    ``main`` the carried ones, and the others the code after the loop reads, are moved back.
    The compare is not copied when nothing but the branch reads its predicate."""
    b = fn.blocks[j]
    body = b.instrs[:-1]
    line = b.instrs[-1].line
    lv = compute_liveness(fn)
    after = lv.live_in[j + 1]
    written = _written(body)
    carried = _carried(body, lv.live_in[j])
    # (a predicate the code after the loop reads keeps its name)
    rename = (_locals(body, lv.live_in[j]) | carried) - _non_general_after(written, after)
    cmp = _writer(body, b.instrs[-1])
    pt = Reg(RC.P, 7)
    bound = Imm(factor * s)
    exit_name = fn.blocks[j + 1].name
    p1, p2, p3 = fn.new_vreg(RC.P), fn.new_vreg(RC.P), fn.new_vreg(RC.P)
    pre = Block(
        f"{b.name}.upre",
        [
            Instr("ISETP", ("LT", "U32", "AND"), [p1, pt], [c, bound, pt], line=line),
            Instr("BRA", (), [], [Label(b.name)], guard=Guard(p1, False), line=line),
        ],
    )
    main_name = f"{b.name}.umain"
    copies: list[Instr] = []
    cur: dict[int, VReg] = {}
    for _ in range(factor):
        copies.extend(_copy(fn, body, cur, rename, skip=cmp))
    _name_back(
        copies,
        cur,
        {vid: v for vid, v in written.items() if vid in carried or after >> vid & 1},
    )
    main = Block(
        main_name,
        [
            *copies,
            Instr("ISETP", ("GE", "U32", "AND"), [p2, pt], [c, bound, pt], line=line),
            Instr("BRA", (), [], [Label(main_name)], guard=Guard(p2, False), line=line),
        ],
    )
    rest = Block(
        f"{b.name}.urest",
        [
            Instr("ISETP", ("EQ", "U32", "AND"), [p3, pt], [c, Imm(0), pt], line=line),
            Instr("BRA", (), [], [Label(exit_name)], guard=Guard(p3, False), line=line),
        ],
    )
    fn.blocks[j:j] = [pre, main, rest]
