"""Constants live across a call of a shared slow path are loaded again after it.

A value that is a constant (``LDC`` of a fixed constant-bank address, ``MOV`` of an immediate)
and is live across a call of a shared slow path (lower/fpslow.py) would hold a register the
subroutine may not use from its definition to its last read. ptxas loads such values again
where they are read after the calls instead (t2/f32_div_sqrt: ``LDC R9, c[0x0][0x228]`` before
each store that follows a slow-path call, the kernel's ``n``). Here each block reached from a
call's return site that reads such a value gets its own copy of the definition, before its
first read; the original then lives only where it was read before the calls.
"""

from __future__ import annotations

from collections import deque

from openptxas.ir.analysis import map_regs
from openptxas.ir.core import (
    RC,
    CBank,
    Function,
    Imm,
    Instr,
    Part,
    RegLike,
    VReg,
    block_index,
    successors,
)
from openptxas.ir.liveness import _call_sites, _sub_blocks, compute_liveness

_OPS = frozenset({"LDC", "MOV"})


def _constant_defs(fn: Function) -> dict[int, tuple[Instr, int, VReg]]:
    """Registers written once, whole, unguarded, by a constant-bank load or an immediate move:
    (the definition, its block, the register)."""
    count: dict[int, int] = {}
    found: dict[int, tuple[Instr, int, VReg]] = {}
    for bi, b in enumerate(fn.blocks):
        for ins in b.instrs:
            for r in ins.def_regs():
                v = r.v if isinstance(r, Part) else r
                if not isinstance(v, VReg):
                    continue
                count[v.id] = count.get(v.id, 0) + 1
                whole = isinstance(r, VReg) or (isinstance(r, Part) and r.k == 0 and r.n == v.width)
                if (
                    whole
                    and v.rc == RC.R
                    and ins.guard is None
                    and ins.op in _OPS
                    and len(ins.dsts) == 1
                    and _constant(ins)
                ):
                    found[v.id] = (ins, bi, v)
    return {vid: d for vid, d in found.items() if count[vid] == 1}


def _constant(ins: Instr) -> bool:
    if ins.op == "LDC":
        return (
            ins.mods in ((), ("64",))
            and len(ins.srcs) == 1
            and isinstance(ins.srcs[0], CBank)
            and ins.srcs[0].reg is None
        )
    return ins.mods == () and len(ins.srcs) == 1 and isinstance(ins.srcs[0], Imm)


def remat_across_calls(fn: Function) -> int:
    """Rewrite ``fn`` as described above; the number of definitions added."""
    calls = _call_sites(fn)
    if not calls:
        return 0
    lv = compute_liveness(fn)
    inside: set[int] = set()
    for e, _ in calls.values():
        inside |= _sub_blocks(fn, e)
    across = 0
    after: set[int] = set()  # kernel blocks reached from a return site
    work = deque(r for _, r in calls.values())
    index = block_index(fn)
    for _, r in calls.values():
        across |= lv.live_in[r]
    while work:
        i = work.popleft()
        if i in after or i in inside:
            continue
        after.add(i)
        work.extend(successors(fn, i, index=index))
    added = 0
    for vid, (d, db, v) in sorted(_constant_defs(fn).items()):
        if not across >> vid & 1:
            continue
        for bi in sorted(after):
            if bi == db or not lv.live_in[bi] >> vid & 1:
                continue
            b = fn.blocks[bi]
            first = next(
                (k for k, ins in enumerate(b.instrs) if _reads(ins, vid)),
                None,
            )
            if first is None:
                continue
            nv = fn.new_vreg(v.rc, v.width)
            b.instrs.insert(first, Instr(d.op, d.mods, [nv], list(d.srcs), line=d.line))

            def rename(r: RegLike, nv: VReg = nv, vid: int = vid) -> RegLike:
                if isinstance(r, VReg) and r.id == vid:
                    return nv
                if isinstance(r, Part) and r.v.id == vid:
                    return Part(nv, r.k, r.n)
                return r

            for ins in b.instrs[first + 1 :]:
                map_regs(ins, rename)
            added += 1
    return added


def _reads(ins: Instr, vid: int) -> bool:
    for r in ins.use_regs():
        v = r.v if isinstance(r, Part) else r
        if isinstance(v, VReg) and v.id == vid:
            return True
    return False
