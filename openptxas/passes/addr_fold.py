"""Fold a constant added to an address register into the memory operand's offset.

``p = x + c`` (the 64-bit carry pair ``IADD3 p.lo, P, x.lo, c, RZ`` + ``IADD3.X p.hi, x.hi, RZ,
RZ, P, !PT``, or a 32-bit ``IADD3 p, x, c, RZ`` for shared memory) followed by an access through
``[p + o]`` becomes ``[x + c + o]``, as ptxas writes ``desc[UR4][R4.64+0x8]``. Safe when ``x``
holds the same value at the access as at the add: it never changes (stable registers), or the
add sits earlier in the same block and nothing in between writes ``x``. The add dies when no
other use remains (a later dead-code pass removes it). The memory operations and the width of
each address's signed offset field come from the target's ISA table (``target.ops``).
"""

from __future__ import annotations

from dataclasses import replace

from openptxas.ir.analysis import DefInfo, def_info, stable_vregs, unchanged_since
from openptxas.ir.core import RC, RZ, Addr, Function, Imm, ImmKind, Instr, Part, VReg
from openptxas.passes.manager import PassContext


def addr_fold(fn: Function, ctx: PassContext) -> None:
    info = def_info(fn)
    stable = stable_vregs(fn, info)
    ops = ctx.target.ops
    for b in fn.blocks:
        for k, ins in enumerate(b.instrs):
            if not ops.is_memory_op(ins.op):
                continue
            widths = ops.mem_offset_bits(ins.op)
            nth = sum(isinstance(d, Addr) for d in ins.dsts)  # address operands in table order
            for j, s in enumerate(ins.srcs):
                if not isinstance(s, Addr):
                    continue
                bits = widths[nth] if nth < len(widths) else 0
                nth += 1
                if isinstance(s.base, VReg) and s.ubase is None and bits:
                    folded = _fold(s, info, stable, b.instrs, k, (1 << (bits - 1)) - 1)
                    if folded is not None:
                        ins.srcs[j] = folded


def _imm(op: object) -> int | None:
    if isinstance(op, Imm) and op.kind == ImmKind.INT:
        return op.value & 0xFFFFFFFF
    return None


def _fold(
    a: Addr, info: DefInfo, stable: set[int], block: list[Instr], k: int, max_offset: int
) -> Addr | None:
    v = a.base
    assert isinstance(v, VReg)
    sites = info.defs(v)
    if a.wide:
        if v.width != 2 or len(sites) != 2:
            return None
        lo, hi = sites
        if not (
            lo.op == "IADD3"
            and not lo.mods
            and hi.op == "IADD3"
            and hi.mods == ("X",)
            and lo.guard is None
            and hi.guard is None
            and len(lo.dsts) == 2
            and lo.dsts[0] == Part(v, 0)
            and hi.dsts == [Part(v, 1)]
            and len(lo.srcs) == 3
            and len(hi.srcs) == 5
        ):
            return None
        x_lo, c, z = lo.srcs
        x_hi, c_hi, z_hi = hi.srcs[:3]
        c32 = _imm(c)
        if not (
            c32 is not None
            and z == RZ
            and z_hi == RZ
            and isinstance(x_lo, Part)
            and x_lo.k == 0
            and x_lo.v.width == 2
            and x_hi == Part(x_lo.v, 1)
            and hi.srcs[3] == lo.dsts[1]
        ):
            return None
        if c_hi == RZ:
            value = c32
        elif _imm(c_hi) == 0xFFFFFFFF:
            value = c32 - (1 << 32)
        else:
            return None
        x: VReg | Part = x_lo.v
        adds = [lo, hi]
    else:
        if v.width != 1 or len(sites) != 1:
            return None
        (add,) = sites
        base = add.srcs[0] if len(add.srcs) == 3 else None
        # a register, or the low word of a wide one (a local address, %SPL + 24, whose high
        # word nothing reads)
        word = isinstance(base, Part) and base.k == 0 and base.n == 1
        if not (
            add.op == "IADD3"
            and not add.mods
            and add.guard is None
            and len(add.dsts) == 1
            and ((isinstance(base, VReg) and base.width == 1) or word)
            and add.srcs[2] == RZ
        ):
            return None
        c32 = _imm(add.srcs[1])
        if c32 is None:
            return None
        value = c32 - (1 << 32) if c32 & 0x80000000 else c32
        assert isinstance(base, VReg | Part)
        x = base
        adds = [add]
    off = a.offset + value
    if not -max_offset - 1 <= off <= max_offset:
        return None
    xid = (x.v if isinstance(x, Part) else x).id
    if xid not in stable and not unchanged_since(block, adds, k, {xid}):
        return None
    return replace(a, base=x, offset=off)


# shared-memory accesses whose address takes a uniform register beside the vector one
# (``LDS R6, [R4+UR4]``)
UNIFORM_BASE_OPS = frozenset({"LDS", "STS"})


def fold_uniform_base(fn: Function, ctx: PassContext) -> None:
    """``a = IADD3 r, ur, RZ`` (once written, unguarded) read as a shared access's base
    becomes the access's uniform base: ``[a + o]`` is ``[r + ur + o]``, as ptxas writes the
    shared window base beside a thread's offset (t1/bitonic_sort: ``LDS R6, [R4+UR4]``; ours
    added them first). Safe where ``r`` and ``ur`` hold the same values at the access as at
    the add (stable registers, or the add earlier in the block with neither written in
    between); the add dies when nothing else reads it. Runs after ConvertToUniformReg, which
    moves the window base's copy into the add as a UR."""
    _ = ctx
    info = def_info(fn)
    stable = stable_vregs(fn, info)
    for b in fn.blocks:
        for k, ins in enumerate(b.instrs):
            if ins.op not in UNIFORM_BASE_OPS:
                continue
            for j, s in enumerate(ins.srcs):
                if isinstance(s, Addr) and s.ubase is None and not s.wide:
                    got = _uniform_split(s, info, stable, b.instrs, k)
                    if got is not None:
                        ins.srcs[j] = got


def _uniform_split(
    a: Addr, info: DefInfo, stable: set[int], block: list[Instr], k: int
) -> Addr | None:
    v = a.base
    if not isinstance(v, VReg) or v.width != 1 or len(info.defs(v)) != 1:
        return None
    (add,) = info.defs(v)
    if add.op != "IADD3" or add.mods or add.guard is not None or len(add.dsts) != 1:
        return None
    if len(add.srcs) != 3 or add.srcs[2] != RZ:
        return None
    r, u = add.srcs[0], add.srcs[1]
    if isinstance(r, VReg) and r.rc == RC.UR:
        r, u = u, r
    if not (isinstance(r, VReg) and r.rc == RC.R and r.width == 1):
        return None
    if not (isinstance(u, VReg) and u.rc == RC.UR and u.width == 1):
        return None
    moving = {x.id for x in (r, u) if x.id not in stable}
    if moving and not unchanged_since(block, [add], k, moving):
        return None
    return replace(a, base=r, ubase=u)
