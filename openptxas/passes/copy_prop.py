"""Copy propagation: replace a register that is only a copy of another by the original.

Pre: any IR with virtual registers. Post: same semantics; the copies are gone.

A register ``d`` written only by unguarded ``MOV``s that copy, part for part, the parts of one
register ``s`` is replaced by ``s`` everywhere when ``s`` cannot change between the copy and any
use of ``d``: either ``s`` is *stable* (each part written once, in an entry block that runs once),
or ``d``'s copies sit in the same block right after ``s``'s only definitions (every path that
re-runs ``s``'s definition re-runs the copy too), or ``d`` is one copy whose every use follows it
in its own block with no write of ``s`` in between (a loop's ``mov.b32 %f, %r`` of the value it
carries, read once by the exit test: ptxas reads the carried register).
"""

from __future__ import annotations

from openptxas.ir.analysis import def_info, map_regs, stable_vregs, word_writes
from openptxas.ir.core import RC, Function, Instr, Part, RegLike, VReg
from openptxas.passes.manager import PassContext


def _copy_of(ins: Instr) -> tuple[VReg, int, VReg, int, int] | None:
    """(d, d offset, s, s offset, count) when ``ins`` is a plain unguarded part copy."""
    if ins.op != "MOV" or ins.mods or ins.guard is not None or len(ins.dsts) != 1:
        return None
    d, s = ins.dsts[0], ins.srcs[0]
    dv, dk, n = (d.v, d.k, d.n) if isinstance(d, Part) else (d, 0, getattr(d, "width", 1))
    if not isinstance(dv, VReg) or dv.rc != RC.R:
        return None
    sv, sk = (s.v, s.k) if isinstance(s, Part) else (s, 0)
    if not isinstance(sv, VReg) or sv.rc != RC.R or sv == dv:
        return None
    sn = s.n if isinstance(s, Part) else sv.width
    if sn != n:
        return None
    return dv, dk, sv, sk, n


def copy_prop(fn: Function, ctx: PassContext) -> None:
    for _ in range(8):
        whole = _round(fn)
        if not _word_round(fn) and not whole:
            return


def _word_round(fn: Function) -> bool:
    """Words of wide registers that are copies: a word written once, by a move of a one-word
    register, is replaced by that register in every one-word use (the 64-bit uses keep the
    pair; the move dies when none remain)."""
    info = def_info(fn)
    stable = stable_vregs(fn, info)
    subst: dict[tuple[int, int], RegLike] = {}
    for vid, sites in info.sites.items():
        for k, ws in word_writes(vid, sites).items():
            if len(ws) != 1:
                continue
            c = _copy_of(ws[0])
            if c is None or c[4] != 1 or c[0].width < 2:
                continue
            src = ws[0].srcs[0]
            sv = c[2]
            if sv.id not in stable and not _same_block_after(info, ws, sv):
                continue
            assert isinstance(src, VReg | Part)
            subst[(vid, k)] = src
    if not subst:
        return False
    changed = False

    def f(r: RegLike) -> RegLike:
        nonlocal changed
        if isinstance(r, Part) and r.n == 1 and (r.v.id, r.k) in subst:
            changed = True
            return subst[(r.v.id, r.k)]
        return r

    for ins in fn.instrs():
        map_regs(ins, f)
    return changed


def _round(fn: Function) -> bool:
    info = def_info(fn)
    stable = stable_vregs(fn, info)
    use_blocks: dict[int, set[int]] | None = None
    sources: set[int] = set()  # the registers substituted for others this round
    subst: dict[int, tuple[VReg, int]] = {}  # d id -> (s, offset of d.0 within s)
    dead: set[int] = set()
    for vid, sites in info.sites.items():
        copies = [_copy_of(i) for i in sites]
        if not copies or any(c is None for c in copies):
            continue
        d = copies[0][0]  # type: ignore[index]
        srcs = {c[2] for c in copies if c is not None}
        if len(srcs) != 1:
            continue
        s = next(iter(srcs))
        offs = {c[3] - c[1] for c in copies if c is not None}
        covered = sorted(k for c in copies if c is not None for k in range(c[1], c[1] + c[4]))
        if len(offs) != 1 or covered != list(range(d.width)):
            continue
        off = next(iter(offs))
        if off < 0 or off + d.width > s.width:
            continue
        if s.id not in stable and not _same_block_after(info, sites, s):
            if len(sites) != 1:
                continue
            if use_blocks is None:
                use_blocks = _use_blocks(fn)
            if not _uses_follow(fn, info, use_blocks, sites[0], d, s):
                continue
        if s.id in subst or vid in sources:
            continue  # resolve chains in the next round (either order of the two copies)
        subst[vid] = (s, off)
        sources.add(s.id)
        dead.update(i.uid for i in sites)
    if not subst:
        return False

    def f(r: RegLike) -> RegLike:
        if isinstance(r, VReg) and r.id in subst:
            s, off = subst[r.id]
            return s if off == 0 and s.width == r.width else Part(s, off, r.width)
        if isinstance(r, Part) and r.v.id in subst:
            s, off = subst[r.v.id]
            return Part(s, off + r.k, r.n)
        return r

    for b in fn.blocks:
        b.instrs = [i for i in b.instrs if i.uid not in dead]
        for ins in b.instrs:
            map_regs(ins, f)
    return True


def _use_blocks(fn: Function) -> dict[int, set[int]]:
    """The blocks reading each virtual register (by id)."""
    out: dict[int, set[int]] = {}
    for bi, b in enumerate(fn.blocks):
        for ins in b.instrs:
            for r in ins.use_regs():
                v = r.v if isinstance(r, Part) else r
                if isinstance(v, VReg):
                    out.setdefault(v.id, set()).add(bi)
    return out


def _uses_follow(
    fn: Function, info: object, use_blocks: dict[int, set[int]], copy: Instr, d: VReg, s: VReg
) -> bool:
    """Whether every read of ``d`` comes after ``copy`` (its only write) in the copy's block,
    with no write of ``s`` from the copy up to the last of them: each reads what the copy read."""
    from openptxas.ir.analysis import DefInfo

    assert isinstance(info, DefInfo)
    bi = info.block_of[copy.uid]
    if use_blocks.get(d.id, set()) - {bi}:
        return False
    instrs = fn.blocks[bi].instrs
    at = next(k for k, i in enumerate(instrs) if i is copy)

    def reads(ins: Instr) -> int:
        return sum(1 for r in ins.use_regs() if (r.v if isinstance(r, Part) else r) == d)

    if any(reads(ins) for ins in instrs[:at]):
        return False  # read before the copy: the previous pass's value
    pending = sum(reads(ins) for ins in instrs[at + 1 :])
    for ins in instrs[at + 1 :]:
        if not pending:
            break
        pending -= reads(ins)
        if pending and any((r.v if isinstance(r, Part) else r) == s for r in ins.def_regs()):
            return False
    return True


def _same_block_after(info: object, sites: list[Instr], s: VReg) -> bool:
    from openptxas.ir.analysis import DefInfo

    assert isinstance(info, DefInfo)
    s_sites = info.defs(s)
    if not s_sites or any(i.guard is not None for i in s_sites):
        return False
    blocks = {info.block_of[i.uid] for i in [*s_sites, *sites]}
    if len(blocks) != 1:
        return False
    # every copy comes after every definition of s (instruction order within the block)
    last_def = max(i.uid for i in s_sites)
    return all(i.uid > last_def for i in sites) and _parts_written_once(s_sites, s)


def _parts_written_once(sites: list[Instr], s: VReg) -> bool:
    from openptxas.ir.analysis import _parts_once

    return _parts_once(s.id, sites)
