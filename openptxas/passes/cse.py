"""GvnCse: remove recomputations of the same value (ptxas phase 49).

Pre: virtual IR. Post: same semantics; a pure, unguarded, single-destination instruction that
repeats an earlier one with the same sources is replaced by a copy of the earlier result.

Two instructions compute the same value when they have the same opcode, modifiers and sources,
and the sources cannot have changed in between: within a block, no source was written between
them; across blocks, the earlier one dominates the later one and every source register is stable
(written once per thread: in an entry block that runs once, or in blocks on no cycle) or the
instruction reads no registers at all (constant-bank loads, special registers that do not
change). ptxas sign-extends a 16-bit switch value once for all its compares; ours did per
compare until values written outside the entry block counted.

A repeated compare (``ISETP``/``FSETP`` writing one predicate and PT) is not copied (a
predicate copy would cost an instruction): it is deleted and its predicate, written once,
read as the earlier one everywhere (the range tests that ``rsqrt.approx`` and ``lg2.approx``
of the same value both make, shared as ptxas shares them).

An addition or multiply-add with a carry out (``IMAD.WIDE.U32 R, P, ...``, ``IADD3 RZ, P,
...``) repeated is merged the same way: its carry read as the earlier one's, its result copied
(or, written to RZ, dropped). ``mad.hi.u64`` and ``mul.hi.u64`` of the same operands share
their cross product and its carry in ptxas's code.
"""

from __future__ import annotations

from openptxas.ir.analysis import (
    def_info,
    has_side_effects,
    map_regs,
    once_vregs,
    read_sites,
    renamer,
    stable_vregs,
)
from openptxas.ir.cfg import CFG, dominators
from openptxas.ir.core import (
    PT,
    RC,
    Function,
    Instr,
    Operand,
    Part,
    Reg,
    SReg,
    VReg,
    operand_regs,
)
from openptxas.passes.manager import PassContext

# Pure instructions that may be merged (loads from writable memory are not).
PURE = frozenset(
    {
        "IADD3",
        "IMAD",
        "LOP3",
        "SHF",
        "SEL",
        "LEA",
        "PRMT",
        "ISETP",
        "FSETP",
        "FADD",
        "FMUL",
        "FFMA",
        "FMNMX",
        "FSEL",
        "VIMNMX",
        "IABS",
        "POPC",
        "FLO",
        "BREV",
        "SGXT",
        "BMSK",
        "I2FP",
        "F2I",
        "I2F",
        "F2F",
        "MUFU",
        "LDC",
        "ULDC",
        "S2R",
        "S2UR",
        "MOV",
        "UMOV",
        "UIADD3",
        "UIMAD",
        "ULOP3",
        "USHF",
        "USEL",
        "ULEA",
        "DADD",
        "DMUL",
        "DFMA",
        "VIADD",
        # half-precision arithmetic and conversions (nvcc's f16 intrinsics convert the same
        # input again in each inline-asm block: ptxas converts it once)
        "HADD2",
        "HMUL2",
        "HFMA2",
        "HSET2",
        "HMNMX2",
        "F2FP",
    }
)
VOLATILE_SREGS = frozenset({"SR_CLOCKLO", "SR_CLOCKHI", "SR_GLOBALTIMERLO", "SR_GLOBALTIMERHI"})


COMPARES = frozenset({"ISETP", "FSETP"})
CARRIES = frozenset({"IADD3", "IMAD", "LEA", "UIADD3"})  # may write a carry out as dsts[1]


def _carry(ins: Instr) -> VReg | None:
    """The carry-out predicate of a two-result addition (``IADD3 R, P, ...``), else None."""
    if ins.op not in CARRIES or len(ins.dsts) != 2:
        return None
    d, p = ins.dsts
    if not isinstance(p, VReg) or p.rc not in (RC.P, RC.UP):
        return None
    if isinstance(d, VReg) and d.rc in (RC.R, RC.UR):
        return p
    return p if isinstance(d, Reg) and _constant(d) and d.rc in (RC.R, RC.UR) else None


def _key(ins: Instr) -> tuple[object, ...] | None:
    if ins.op not in PURE or ins.guard is not None or has_side_effects(ins):
        return None
    d = ins.dsts[0] if ins.dsts else None
    p = _carry(ins)
    if p is not None:
        # keyed by the carry: the entry's value is the earlier carry (its result: ``carried``)
        assert isinstance(d, VReg | Reg)
        w = d.width if isinstance(d, VReg) else 1
        d = p
        key_rc: object = ("carry", d.rc, w)
    elif ins.op in COMPARES and len(ins.dsts) == 2 and ins.dsts[1] == PT:
        # a predicate result: merged by renaming its readers (``cse``), not by a copy
        if not isinstance(d, VReg) or d.rc is not RC.P:
            return None
        key_rc = d.rc
    elif len(ins.dsts) != 1 or not isinstance(d, VReg) or d.rc not in (RC.R, RC.UR):
        return None
    else:
        key_rc = d.rc
    if any(isinstance(s, SReg) and s.name in VOLATILE_SREGS for s in ins.srcs):
        return None
    if any(isinstance(r, Reg) and not _constant(r) for s in ins.srcs for r in operand_regs(s)):
        return None  # a fixed register (an argument or result of a call) changes under it
    return (ins.op, ins.mods, key_rc, d.width, tuple(ins.srcs))


def _constant(r: Reg) -> bool:
    """RZ, URZ, PT, UPT, and the stack pointer R1 (as before: local addresses)."""
    return r.index == (255 if r.rc == RC.R else 63 if r.rc == RC.UR else 7) or (
        r.rc == RC.R and r.index == 1
    )


def _regs(ins: Instr) -> set[int]:
    out = set()
    for s in ins.srcs:
        for r in operand_regs(s):
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg):
                out.add(v.id)
    return out


def cse(fn: Function, ctx: PassContext) -> None:
    info = def_info(fn)
    stable = stable_vregs(fn, info) | once_vregs(fn, info)
    cfg = CFG.of(fn)
    idom = dominators(cfg)
    children: dict[int, list[int]] = {}
    for b, d in enumerate(idom):
        if d >= 0 and d != b:
            children.setdefault(d, []).append(b)
    single = {vid for vid, sites in info.sites.items() if len(sites) == 1}
    at, uses = read_sites(fn)  # (positions before any change)

    def dominated_uses(vid: int, d: Instr) -> bool:
        """Every read of ``vid`` (written only by ``d``) comes after ``d`` on every path: in
        its block after it, or in a block it strictly dominates. Then the reads may read the
        earlier, equal value instead; a read before ``d`` in a loop reads the previous
        iteration's value, which the earlier instruction has already replaced."""
        db, di = at[d.uid]
        for ub, ui, _ in uses.get(vid, ()):
            if ub == db:
                if ui <= di:
                    return False
                continue
            x = ub
            while x != db and idom[x] >= 0 and idom[x] != x:
                x = idom[x]
            if x != db:
                return False
        return True

    key_regs: dict[tuple[object, ...], frozenset[int]] = {}

    def kregs(kk: tuple[object, ...]) -> frozenset[int]:
        got = key_regs.get(kk)
        if got is None:
            got = key_regs[kk] = frozenset(_key_regs(kk))
        return got

    # The available expressions of the block being visited, as one scoped table over the
    # dominator tree (an undo log restores a block's entry state after its subtree) instead of
    # a copy per block, and an explicit stack instead of recursion (a chain of thousands of
    # blocks is as deep as its dominator tree). ``readers`` (the expressions reading a
    # register) and ``results`` (those whose result it is) only grow: an entry is acted on
    # only when the expression is still available, with that result.
    avail: dict[tuple[object, ...], VReg] = {}
    undo: list[tuple[tuple[object, ...], VReg | None]] = []
    same: dict[int, VReg] = {}  # a repeated compare's predicate -> the earlier one
    carried: dict[int, Operand] = {}  # a carry-out's id -> the result written with it
    canon: dict[int, VReg] = {}  # a merged copy -> the value it copies (for keys only)
    gone: set[int] = set()  # the repeated compares (uid)
    readers: dict[int, set[tuple[object, ...]]] = {}
    results: dict[int, set[tuple[object, ...]]] = {}

    def visit(b: int) -> None:
        added: list[tuple[object, ...]] = []
        block = fn.blocks[b]
        for k, ins in enumerate(block.instrs):
            if same and any(
                (r.v if isinstance(r, Part) else r).id in same
                for r in ins.use_regs()
                if isinstance(r, VReg | Part)
            ):
                map_regs(ins, renamer(same))  # read merged predicates as the kept ones
            key = _key(ins)
            if key is not None and canon and _regs(ins) & canon.keys():
                # keyed as if reading the kept values its sources are copies of (the reads
                # themselves stay: reading the kept value instead would lengthen its life,
                # immaTensorCoreGemm 170 -> 254 registers)
                probe = Instr(ins.op, ins.mods, list(ins.dsts), list(ins.srcs), ins.guard)
                map_regs(probe, renamer(canon))
                key = _key(probe)
            hit = avail.get(key) if key is not None else None
            if hit is not None and key is not None and isinstance(key[2], tuple):
                p2, d2, d1 = ins.dsts[1], ins.dsts[0], carried[hit.id]
                assert isinstance(p2, VReg)
                if (
                    p2.id in single
                    and (isinstance(d2, Reg) or isinstance(d1, VReg))
                    and dominated_uses(p2.id, ins)
                ):
                    same[p2.id] = hit
                    if isinstance(d2, Reg):
                        gone.add(ins.uid)
                        continue
                    assert isinstance(d1, VReg) and isinstance(d2, VReg)
                    block.instrs[k] = Instr(_copy_op(d1), (), [d2], [d1], line=ins.line)
                    if d1.width > 1:
                        _split_copy(block, k, d2, d1)
                    if d2.id in single and dominated_uses(d2.id, ins):
                        canon[d2.id] = d1  # the high product's sources then match the first's
                    continue  # d2 is written once (single): nothing to invalidate
                hit = None
            elif hit is not None and hit.rc in (RC.P, RC.UP):
                d0 = ins.dsts[0]
                if isinstance(d0, VReg) and d0.id in single and dominated_uses(d0.id, ins):
                    same[d0.id] = hit
                    gone.add(ins.uid)
                    continue  # nothing written: nothing to invalidate
                hit = None
            if hit is not None:
                block.instrs[k] = Instr(_copy_op(hit), (), list(ins.dsts), [hit], line=ins.line)
                if hit.width > 1:
                    _split_copy(block, k, ins.dsts[0], hit)
                d0 = ins.dsts[0]
                if isinstance(d0, VReg) and d0.id in single and dominated_uses(d0.id, ins):
                    # later repeats of its readers match (a written-once copy of a
                    # written-once value is the value)
                    canon[d0.id] = hit
            # a write invalidates the expressions that read or produced that register
            for r in ins.def_regs():
                if not isinstance(r, VReg | Part):
                    continue
                w = (r.v if isinstance(r, Part) else r).id
                for kk in readers.get(w, ()):
                    if kk in avail:
                        undo.append((kk, avail.pop(kk)))
                for kk in results.get(w, ()):
                    got = avail.get(kk)
                    if got is not None and got.id == w:
                        undo.append((kk, avail.pop(kk)))
            if key is not None and hit is None:
                d = ins.dsts[0]
                if isinstance(key[2], tuple):
                    r0 = d
                    d = ins.dsts[1]
                    if isinstance(r0, VReg) and r0.id not in single:
                        continue
                    assert isinstance(d, VReg)
                    carried[d.id] = r0
                assert isinstance(d, VReg)
                if d.id in single and d.id not in kregs(key):
                    undo.append((key, avail.get(key)))  # (a kept repeat replaces the entry)
                    avail[key] = d
                    added.append(key)
                    for rid in kregs(key):
                        readers.setdefault(rid, set()).add(key)
                    results.setdefault(d.id, set()).add(key)
        # only expressions over stable registers (or none) survive into dominated blocks (what
        # the block inherited already does: it passed its dominator's filter)
        for kk in added:
            if kk in avail and (not kregs(kk) <= stable or _reads_sp(kk)):
                undo.append((kk, avail.pop(kk)))

    stack: list[tuple[int, int]] = [(0, -1)]  # (block, -1) enters it; (mark, 1) leaves one
    while stack:
        x, leave = stack.pop()
        if leave > 0:
            while len(undo) > x:
                kk, prev = undo.pop()
                if prev is None:
                    del avail[kk]
                else:
                    avail[kk] = prev
            continue
        stack.append((len(undo), 1))
        visit(x)
        stack.extend((c, -1) for c in reversed(children.get(x, ())))
    if gone or same:
        for blk in fn.blocks:
            blk.instrs = [i for i in blk.instrs if i.uid not in gone]
        f = renamer(same)
        for ins in fn.instrs():
            map_regs(ins, f)


def _reads_sp(key: tuple[object, ...]) -> bool:
    """Whether the expression reads the stack pointer R1: it is the same within a block, but a
    subroutine's blocks (dominated by its callers' through the call edges) see R1 moved by its
    frame (a callee's ``MOV r, R1`` merged with the kernel's read the caller's frame)."""
    srcs = key[4]
    assert isinstance(srcs, tuple)
    return any(
        isinstance(r, Reg) and r.rc == RC.R and r.index == 1 for s in srcs for r in operand_regs(s)
    )


def _copy_op(v: VReg) -> str:
    # a uniform value is copied on the uniform datapath: MOV has no UR destination
    return "UMOV" if v.rc == RC.UR else "MOV"


def _key_regs(key: tuple[object, ...]) -> set[int]:
    out: set[int] = set()
    srcs = key[4]
    assert isinstance(srcs, tuple)
    for s in srcs:
        for r in operand_regs(s):
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg):
                out.add(v.id)
    return out


def _split_copy(block: object, k: int, dst: Operand, src: VReg) -> None:
    """Replace the single MOV at ``k`` by one MOV per 32-bit part."""
    from openptxas.ir.core import Block

    assert isinstance(block, Block) and isinstance(dst, VReg)
    line = block.instrs[k].line
    block.instrs[k : k + 1] = [
        Instr(_copy_op(src), (), [dst.part(j)], [src.part(j)], line=line) for j in range(src.width)
    ]
