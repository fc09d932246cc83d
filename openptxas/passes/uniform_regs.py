"""ConvertToUniformReg: move warp-uniform values to the uniform datapath (UR/UP), as ptxas
does on sm_90 for kernel parameters, block indices and the address arithmetic built from them.

Pre: virtual IR. Post: same semantics; some R/P virtual registers became UR/UP, their defining
instructions the uniform variants (``LDC`` -> ``ULDC``, ``S2R SR_CTAID.X`` -> ``S2UR``,
``IADD3`` -> ``UIADD3`` ...), and their uses read the UR directly where the instruction form
allows a uniform operand (the B or C source of most ALU ops, ``MOV R, UR``, address bases).

A register is converted when it has a single definition (all its parts written once, unguarded),
every source of that definition is uniform (uniform registers or immediates), the definition has
a uniform twin (``target.ops.uniform_twin``), and every use either is itself being converted or
can read a UR in its slot (``target.ops.slots(op).ur``; commutative sources are swapped into the
slot that can). Everything else stays as it was,
so the pass can only remove work.
"""

from __future__ import annotations

from openptxas.ir.analysis import def_info, map_regs, write_counts
from openptxas.ir.core import (
    RC,
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
    Src,
    SReg,
    VReg,
)
from openptxas.ir.uniform import UNIFORM_SREGS
from openptxas.passes.manager import PassContext
from openptxas.targets.ops import OpProperties

# The instructions the pass converts to their uniform twins (``target.ops.uniform_twin``): those
# whose every source may be uniform. (BMSK has a twin too; converting it changes today's code.)
CONVERTS = frozenset(
    {
        "IADD3", "IMAD", "LOP3", "SHF", "SEL", "LEA", "PRMT", "FLO", "POPC", "BREV", "SGXT",
        "MOV", "ISETP", "PLOP3", "LDC", "S2R",
    }
)  # fmt: skip
# The vector instructions that may read a converted register, in the slots the target's table
# gives for a UR (``target.ops.slots(op).ur``): the B slot, and C for the addends of IMAD/FFMA
# (SHF's C slot takes a UR too; using it changes today's code).
READS_UR = frozenset(
    {
        "IADD3", "IMAD", "LOP3", "SHF", "SEL", "ISETP", "FADD", "FMUL", "FFMA", "FSETP", "FMNMX",
        "FSEL", "VIMNMX", "LEA", "MOV", "I2FP", "F2I", "I2F", "IABS", "POPC", "FLO", "BREV",
    }
)  # fmt: skip
READS_UR_IN_C = frozenset({"IMAD", "FFMA"})
# Sources that may be swapped (a op b == b op a).
COMMUTES: dict[str, tuple[int, int]] = {
    "IADD3": (0, 1),
    "IMAD": (0, 1),
    "FADD": (0, 1),
    "FMUL": (0, 1),
    "FFMA": (0, 1),
    "VIMNMX": (0, 1),
    "FMNMX": (0, 1),
}
# Ops that must not be converted in these forms.
NOT_UNIFORM_MODS = frozenset({"WIDE"})


def _vreg(x: object) -> VReg | None:
    if isinstance(x, VReg):
        return x
    if isinstance(x, Part):
        return x.v
    if isinstance(x, Src):
        return _vreg(x.x)
    return None


def _is_zero(r: Reg) -> bool:
    """RZ or PT (R7 is an ordinary register)."""
    return (r.rc == RC.R and r.index == 255) or (r.rc == RC.P and r.index == 7)


def _src_regs(op: Operand) -> list[RegLike]:
    if isinstance(op, VReg | Part | Reg):
        return [op]
    if isinstance(op, Src):
        return [op.x]
    if isinstance(op, Addr):
        return [r for r in (op.base, op.ubase, op.desc) if r is not None]
    if isinstance(op, CBank) and op.reg is not None:
        return [op.reg]
    return []


def convert_to_uniform(fn: Function, ctx: PassContext) -> None:
    from openptxas.passes.wide_add import wide_addends

    ops = ctx.target.ops
    info = def_info(fn)
    accumulators = wide_addends(fn, info)
    across = _live_across_calls(fn)
    # candidates: single-definition R/P registers with a uniform-convertible definition
    cand: dict[int, Instr] = {}
    for vid, sites in info.sites.items():
        if len(sites) != 1:
            continue
        ins = sites[0]
        if ins.guard is not None or ins.op not in CONVERTS or ops.uniform_twin(ins.op) is None:
            continue
        if any(m in NOT_UNIFORM_MODS for m in ins.mods):
            continue
        dv = [_vreg(d) for d in ins.dsts]
        if any(
            v is None and not (isinstance(d, Reg) and _is_zero(d))
            for v, d in zip(dv, ins.dsts, strict=True)
        ):
            continue
        if any(v is not None and v.rc not in (RC.R, RC.P) for v in dv):
            continue
        if ins.op == "S2R" and not (
            isinstance(ins.srcs[0], SReg) and ins.srcs[0].name in UNIFORM_SREGS
        ):
            continue
        if ins.op == "LDC" and any(isinstance(s, CBank) and s.reg is not None for s in ins.srcs):
            continue
        if ins.op == "LDC" and ins.mods not in ((), ("64",)):
            continue
        if any(isinstance(d, Part) and (d.k, d.n) != (0, d.v.width) for d in ins.dsts):
            continue  # (a part written alone; ``%r0x2.0:2``, the whole pair, is one write)
        if vid in accumulators:
            continue  # a pointer IMAD.WIDE will add in (LateArchOptimizeFirst)
        if across >> vid & 1:
            continue  # (_live_across_calls)
        if any(isinstance(x, Label) for x in ins.srcs):
            continue  # a return address (lower/fpslow.py): RET reads a register pair
        cand[vid] = ins
    # Shrink the candidate set until it is consistent: an instruction converts only with all its
    # destinations, when all its sources are uniform, and when all uses of its results accept a
    # UR in their slot.
    changed = True
    while changed:
        changed = False

        def drop(ins: Instr) -> None:
            nonlocal changed
            for d in ins.dsts:
                v = _vreg(d)
                if v is not None and cand.pop(v.id, None) is not None:
                    changed = True

        for ins in list({i.uid: i for i in cand.values()}.values()):
            if any((v := _vreg(d)) is not None and v.id not in cand for d in ins.dsts):
                drop(ins)
                continue
            for src in ins.srcs:
                for r in _src_regs(src):
                    v = _vreg(r)
                    if v is None:
                        # RZ/PT only: a fixed R7 (an argument register) is not uniform
                        bad = isinstance(r, Reg) and not _is_zero(r)
                    else:
                        bad = v.rc not in (RC.UR, RC.UP) and v.id not in cand
                    if bad:
                        drop(ins)
                        break
        converted = {i.uid for i in cand.values()}
        for ins in fn.instrs():
            if ins.uid in converted or _uses_ok(ins, cand, ops):
                continue
            # Give up candidates one at a time (first operand first) until the use fits, so
            # that e.g. IMAD R, UR, UR, R keeps one of its two uniform sources.
            regs = [ins.guard.pred] if ins.guard is not None else []
            for src in ins.srcs:
                regs.extend(_src_regs(src))
            for r in regs:
                v = _vreg(r)
                if v is not None and v.id in cand:
                    drop(cand[v.id])
                    if _uses_ok(ins, cand, ops):
                        break
    converted_instrs = {i.uid for i in cand.values()}
    if cand:
        _rewrite(fn, cand, converted_instrs, ops)
    pair_constant_loads(fn)


def _live_across_calls(fn: Function) -> int:
    """The registers (a bit per vreg id) live across a call of a device function: they stay in
    R, as ptxas keeps such parameters (``LDC.64 R2, c[0x0][0x210]`` in t2/recursion's kernel).
    Our t2/recursion kernel kept ``present`` and ``val`` in UR6-UR9 across its calls of depth()
    and subtree_sum(), which writes UR6 (its memory descriptor). The emulator gave ptxas's
    answer; an H200 stopped on an illegal address under every control variant (2026-11-28).
    The same kernel with these values in R (before this conversion took 64-bit parameters,
    3ba4e02; this function gives that cubin again, byte for byte) ran right. Our explanation,
    not confirmed: a uniform register is one per warp, and the lanes of a warp that diverges in
    a callee may leave it at different times, so the first out can run into the next call,
    whose callee writes the register, before the others have read it. (ptxas's own code keeps
    some uniform values across calls whose callees write the register, e.g. newdelete's UR5,
    so the rule here is our conservative one.) The shared slow paths of division write no
    uniform register and are left out."""
    from openptxas.ir.liveness import compute_liveness, slow_path_entries

    slow = slow_path_entries(fn)
    index = {b.name: i for i, b in enumerate(fn.blocks)}
    lv = None
    out = 0
    for i, b in enumerate(fn.blocks):
        t = b.terminator()
        if t is None or t.op != "CALL":
            continue
        target = t.srcs[0] if t.srcs else None
        if isinstance(target, Label) and target.block in slow:
            continue
        if lv is None:
            lv = compute_liveness(fn)
        ret = t.srcs[1] if len(t.srcs) >= 2 and isinstance(t.srcs[1], Label) else None
        out |= lv.live_in[index[ret.block]] if ret is not None else lv.live_out[i]
    return out


def pair_constant_loads(fn: Function) -> int:
    """Two ``ULDC`` of the same block reading the words at ``o`` and ``o + 4`` of constant bank
    0, ``o`` a multiple of 8, each alone writing its UR: one ``ULDC.64`` into a pair, read
    word by word, at the first one's place (ptxas loads neighbouring 32-bit parameters so:
    ``ULDC.64 UR4, c[0x0][0x218]`` for two ``.u32`` parameters). The constant bank is not
    written while the kernel runs, so the later load may move up. Returns the pairs made."""
    writes = write_counts(fn)
    names: dict[int, Part] = {}
    for b in fn.blocks:
        loads: dict[int, Instr] = {}  # bank-0 offset -> its first load here
        for ins in b.instrs:
            if ins.op != "ULDC" or ins.mods or ins.guard is not None or len(ins.dsts) != 1:
                continue
            d, c = ins.dsts[0], ins.srcs[0]
            # bank 0 only: the words of banks 3 and 4 may carry relocations (lower/reldata.py)
            if not isinstance(c, CBank) or c.bank != 0 or c.reg is not None:
                continue
            if not isinstance(d, VReg):
                continue
            if d.width == 1 and writes.get(d.id) == 1:
                loads.setdefault(c.offset, ins)
        gone: set[int] = set()
        for off, lo in sorted(loads.items()):
            hi = loads.get(off + 4)
            if off % 8 or hi is None or lo.uid in gone or hi.uid in gone:
                continue
            a, h = lo.dsts[0], hi.dsts[0]
            assert isinstance(a, VReg) and isinstance(h, VReg)
            w = fn.new_vreg(RC.UR, 2)
            first = lo if b.instrs.index(lo) < b.instrs.index(hi) else hi
            first.mods, first.dsts, first.srcs = ("64",), [w], [CBank(0, off)]
            gone.add((hi if first is lo else lo).uid)
            names[a.id], names[h.id] = Part(w, 0), Part(w, 1)
        if gone:
            b.instrs = [i for i in b.instrs if i.uid not in gone]
    if names:

        def f(r: RegLike) -> RegLike:
            return names.get(r.id, r) if isinstance(r, VReg) else r

        for ins in fn.instrs():
            map_regs(ins, f)
    return len(names) // 2


def _uses_ok(ins: Instr, cand: dict[int, Instr], ops: OpProperties) -> bool:
    """Whether every candidate register ``ins`` reads sits in a slot that can hold a UR (after
    swapping commutative sources if needed)."""
    if ins.guard is not None:
        v = _vreg(ins.guard.pred)
        if v is not None and v.id in cand:
            return False
    positions = [
        k
        for k, s in enumerate(ins.srcs)
        if (v := _vreg(s)) is not None and v.id in cand and isinstance(s, VReg | Part)
    ]
    for k, s in enumerate(ins.srcs):
        if isinstance(s, Addr):
            if s.base is not None and (v := _vreg(s.base)) is not None and v.id in cand:
                return False
            if s.ubase is not None and (v := _vreg(s.ubase)) is not None and v.id in cand:
                return False
        elif isinstance(s, Src):
            v = _vreg(s.x)
            if v is not None and v.id in cand:
                return False  # operand modifiers on UR sources: keep it simple
        elif isinstance(s, CBank) and s.reg is not None:
            v = _vreg(s.reg)
            if v is not None and v.id in cand:
                return False
        _ = k
    if not positions:
        return True
    slots = _ur_slots(ins.op, ops)
    if not slots or len(positions) > 1:
        return False
    if any((v := _vreg(ins.srcs[k])) is not None and v.rc != RC.R for k in positions):
        return False  # a predicate candidate: no vector source slot takes a UP here
    (p,) = positions
    # An ALU form holds at most one non-register source (immediate, constant or uniform); LEA's
    # last source, the shift amount, is a field of its own (ptxas: LEA R9, R9, UR4, 0x2)
    for k, s in enumerate(ins.srcs[:-1] if ins.op == "LEA" else ins.srcs[:3]):
        if k == p:
            continue
        if isinstance(s, Imm | CBank):
            return False
        v = _vreg(s)
        if v is not None and (v.rc == RC.UR or v.id in cand):
            return False
    if p in slots:
        return True
    sw = COMMUTES.get(ins.op)
    if sw is None or p not in sw:
        return False
    other = sw[0] if p == sw[1] else sw[1]
    return other in slots and isinstance(ins.srcs[other], VReg | Part | Reg)


def _rewrite(fn: Function, cand: dict[int, Instr], converted: set[int], ops: OpProperties) -> None:
    new_regs: dict[int, VReg] = {}
    for vid, ins in cand.items():
        for d in ins.dsts:
            v = _vreg(d)
            if v is not None and v.id == vid:
                rc = RC.UR if v.rc == RC.R else RC.UP
                new_regs[vid] = VReg(rc, fn.new_vreg(rc, v.width).id, v.width)

    def conv(x: RegLike) -> RegLike:
        if isinstance(x, VReg) and x.id in new_regs:
            return new_regs[x.id]
        if isinstance(x, Part) and x.v.id in new_regs:
            return Part(new_regs[x.v.id], x.k, x.n)
        if isinstance(x, Reg) and x.index in (255, 7) and x.rc in (RC.R, RC.P):
            return x
        return x

    from openptxas.ir.analysis import map_regs

    for ins in fn.instrs():
        if ins.uid in converted:
            twin = ops.uniform_twin(ins.op)
            assert twin is not None
            ins.op = twin
            map_regs(ins, conv, dsts=True)
            ins.srcs = [_zero_to_uniform(s) for s in ins.srcs]
            ins.dsts = [_zero_to_uniform(d) for d in ins.dsts]
            continue
        map_regs(ins, conv)
        _swap_into_slot(ins, ops)


def _zero_to_uniform(op: Operand) -> Operand:
    """RZ/PT operands of a converted instruction become URZ/UPT."""
    if isinstance(op, Reg) and op.rc == RC.R and op.index == 255:
        return Reg(RC.UR, 255)
    if isinstance(op, Reg) and op.rc == RC.P and op.index == 7:
        return Reg(RC.UP, 7)
    if isinstance(op, Src) and isinstance(op.x, Reg):
        z = _zero_to_uniform(op.x)
        if z is not op.x:
            assert isinstance(z, Reg)
            return Src(z, op.neg, op.abs, op.inv, op.sel)
    return op


def _ur_slots(op: str, ops: OpProperties) -> frozenset[int]:
    """The source slots of ``op`` where the pass lets a UR replace an R register."""
    if op not in READS_UR:
        return frozenset()
    s = ops.slots(op)
    if op in READS_UR_IN_C:
        return s.ur
    return s.ur & {s.b}


def _swap_into_slot(ins: Instr, ops: OpProperties) -> None:
    slots = _ur_slots(ins.op, ops)
    sw = COMMUTES.get(ins.op)
    if not slots or sw is None:
        return
    a, b = sw
    ua = isinstance(ins.srcs[a], VReg | Part) and _vreg(ins.srcs[a]).rc == RC.UR  # type: ignore[union-attr]
    # the other source moves into slot a, which takes only a register
    other_is_reg = isinstance(ins.srcs[b], VReg | Part | Reg)
    if ua and other_is_reg and a not in slots and b in slots:
        ins.srcs[a], ins.srcs[b] = ins.srcs[b], ins.srcs[a]


_ = Imm
