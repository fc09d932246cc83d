"""Values computed only to be copied into a word of a group: computed there directly.

A vector store, a CAS's compare-and-swap pair, an MMA fragment, a ``mov.b64 {lo, hi}``: the
lowering builds the group with one ``MOV %q.k, %s`` per word. The allocator's word preference
(``fatpoint._word_copies``) cannot remove those copies when the words are filled one after the
other: the group occupies all its registers from its first word's copy on, while the later
words' sources are still live, so a source never shares its word's register. ptxas loads the
values into the group's registers directly (``LDG.E R16..R19`` then ``STL.128 [R2], R16``).

Here ``%s = OP ...; ...; %q.k = MOV %s`` becomes ``%q.k = OP ...`` when ``%s`` (one 32-bit
register) is written once, unguarded, in the copy's block before it, and read only by the copy,
and nothing in between reads word k of ``%q`` or writes it: every reader sees what it saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from openptxas.ir.analysis import def_info, map_regs, renamer, use_counts, word_renamer
from openptxas.ir.core import RC, Block, Function, Guard, Instr, Operand, Part, RegLike, VReg


def _touches_word(ins: Instr, q: VReg, k: int, *, reads: bool, writes: bool) -> bool:
    regs: list[RegLike] = []
    if reads:
        regs += ins.use_regs()
    if writes:
        regs += ins.def_regs()
    for r in regs:
        if isinstance(r, Part) and r.v == q and r.k <= k < r.k + r.n:
            return True
        if isinstance(r, VReg) and r == q:
            return True
    return False


def _word_writers(fn: Function) -> dict[tuple[int, int], int]:
    """(group id, word) -> the instructions writing that word (a whole-register write counts
    for each of its words)."""
    out: dict[tuple[int, int], int] = {}
    for ins in fn.instrs():
        for r in ins.def_regs():
            if isinstance(r, Part):
                for w in range(r.k, r.k + r.n):
                    out[(r.v.id, w)] = out.get((r.v.id, w), 0) + 1
            elif isinstance(r, VReg):
                for w in range(r.width):
                    out[(r.id, w)] = out.get((r.id, w), 0) + 1
    return out


def _reads_before_group_end(b: Block, s: VReg, q: VReg, k: int, total: int) -> bool:
    """Every read of ``s`` (``total`` of them in the function) is in ``b``, and some read of
    ``q`` at or after the copy at ``k`` comes after all of them: reading the group's word
    instead keeps nothing of the group live longer."""
    seen, last_s, last_q = 0, -1, -1
    for n, ins in enumerate(b.instrs):
        for r in ins.use_regs():
            v = r.v if isinstance(r, Part) else r
            if v == s:
                seen += 1
                last_s = n
            if v == q and n >= k:
                last_q = n
    return seen == total and last_s <= last_q


def defs_into_group_words(fn: Function) -> int:
    """Rewrite the copies (see the module's doc); returns how many went.

    A source read elsewhere too (a texture coordinate also used in arithmetic: ptxas's ``SHF.R
    .U32.HI R5, RZ, 0x3, R4`` writes the coordinate's register and ``IMAD.SHL.U32 R3, R5``
    reads it) goes into the word as well, and its other readers read the word, when the word
    has no other writer and every such read comes, in the block, before the group's last
    read (the group lives no longer)."""
    info = def_info(fn)
    uses = use_counts(fn)
    writers = _word_writers(fn)
    done = 0
    for b in fn.blocks:
        drop: set[int] = set()
        where: dict[int, int] = {}  # instruction uid -> index in the block
        reread: dict[int, Part] = {}  # a source read elsewhere -> the word it now lives in
        for k, ins in enumerate(b.instrs):
            where[ins.uid] = k
            if ins.op != "MOV" or ins.mods or ins.guard is not None or len(ins.dsts) != 1:
                continue
            d, s = ins.dsts[0], ins.srcs[0]
            if not (isinstance(d, Part) and d.n == 1 and d.v.rc == RC.R and d.v.width > 1):
                continue
            if not (isinstance(s, VReg) and s.rc == RC.R and s.width == 1):
                continue
            sites = info.sites.get(s.id, [])
            if len(sites) != 1 or s.id in reread:
                continue
            if uses.get(s.id) != 1 and (
                writers.get((d.v.id, d.k)) != 1
                or not _reads_before_group_end(b, s, d.v, k, uses.get(s.id, 0))
            ):
                continue
            src = sites[0]
            j = where.get(src.uid)
            if j is None or src.guard is not None or src.dsts.count(s) != 1:
                continue
            if any(isinstance(x, Part) and x.v == s for x in src.dsts):
                continue
            q, w = d.v, d.k
            if _touches_word(src, q, w, reads=False, writes=True):
                continue
            between = b.instrs[j + 1 : k]
            if any(_touches_word(x, q, w, reads=True, writes=True) for x in between):
                continue
            src.dsts[src.dsts.index(s)] = Part(q, w, 1)
            drop.add(ins.uid)
            if uses.get(s.id) != 1:
                reread[s.id] = Part(q, w, 1)
        if drop:
            b.instrs = [x for x in b.instrs if x.uid not in drop]
            done += len(drop)
        if reread:
            conv = word_renamer(reread)
            for x in b.instrs:
                map_regs(x, conv)
    return done + _wide_into_group_words(fn)


def _wide_into_group_words(fn: Function) -> int:
    """The same for a wide value copied word by word into consecutive words of a group: ``%p
    = TEX ...`` (a pair) then ``%q.2 = MOV %p.0; %q.3 = MOV %p.1`` (a texture's result stored
    with ``STG.E.128``: ptxas's TEX writes the quad's registers) becomes ``%q.2:2 = TEX ...``,
    the group's words k.. k+width aligned for the value's width."""
    from openptxas.regalloc.fatpoint import tuple_alignment

    info = def_info(fn)
    uses = use_counts(fn)
    done = 0
    for b in fn.blocks:
        where = {ins.uid: k for k, ins in enumerate(b.instrs)}
        copies: dict[int, dict[int, tuple[int, Part]]] = {}  # p id -> word of p -> (pos, dst)
        wide: dict[int, VReg] = {}
        for k, ins in enumerate(b.instrs):
            if ins.op != "MOV" or ins.mods or ins.guard is not None or len(ins.dsts) != 1:
                continue
            d, s = ins.dsts[0], ins.srcs[0]
            if not (isinstance(d, Part) and d.n == 1 and d.v.rc == RC.R):
                continue
            if isinstance(s, Part) and s.n == 1 and s.v.rc == RC.R and s.v.width > 1:
                copies.setdefault(s.v.id, {})[s.k] = (k, d)
                wide[s.v.id] = s.v
        drop: set[int] = set()
        for vid, ws in copies.items():
            p = wide[vid]
            sites = info.sites.get(vid, [])
            if len(ws) != p.width or uses.get(vid) != p.width or len(sites) != 1:
                continue
            src = sites[0]
            j = where.get(src.uid)
            if j is None or src.guard is not None or src.dsts.count(p) != 1:
                continue
            q = ws[0][1].v
            base = ws[0][1].k
            if any(ws[i][1].v != q or ws[i][1].k != base + i for i in range(p.width)):
                continue
            if base % tuple_alignment(p.width) or q.width < base + p.width:
                continue
            last = max(pos for pos, _ in ws.values())
            if min(pos for pos, _ in ws.values()) < j:
                continue
            words = range(base, base + p.width)
            if any(_touches_word(src, q, w, reads=True, writes=True) for w in words):
                continue
            mine = {pos for pos, _ in ws.values()}
            between = [x for n, x in enumerate(b.instrs[j + 1 : last + 1], j + 1) if n not in mine]
            if any(
                _touches_word(x, q, base + i, reads=True, writes=True)
                for x in between
                for i in range(p.width)
            ):
                continue
            src.dsts[src.dsts.index(p)] = Part(q, base, p.width)
            drop.update(b.instrs[pos].uid for pos in mine)
        if drop:
            b.instrs = [x for x in b.instrs if x.uid not in drop]
            done += len(drop)
    return done


def share_group_copies(fn: Function) -> int:
    """A group built again from the same registers, in the same block with none of them
    written in between (an A fragment's quad for each of the mma instructions that read it:
    ``%q.k = MOV %a_k`` four times per ``HMMA``), is the first build: the later one's readers
    read the first group and its copies go. Returns how many groups went."""
    info = def_info(fn)
    alias: dict[int, VReg] = {}
    for blk in fn.blocks:
        at = {ins.uid: k for k, ins in enumerate(blk.instrs)}
        words: dict[int, dict[int, tuple[int, tuple[int, int]]]] = {}  # group -> word -> ...
        groups_of: dict[int, VReg] = {}
        for k, ins in enumerate(blk.instrs):
            d = ins.dsts[0] if len(ins.dsts) == 1 else None
            s = ins.srcs[0] if ins.srcs else None
            if (
                ins.op == "MOV"
                and not ins.mods
                and ins.guard is None
                and isinstance(d, Part)
                and d.n == 1
                and d.v.rc == RC.R
                and isinstance(s, VReg | Part)
                and (s.n == 1 if isinstance(s, Part) else s.width == 1)
            ):
                src = (s.v.id, s.k) if isinstance(s, Part) else (s.id, 0)
                words.setdefault(d.v.id, {})[d.k] = (k, src)
                groups_of[d.v.id] = d.v
        builds: dict[tuple[tuple[int, int], ...], tuple[VReg, int]] = {}
        groups: list[tuple[int, int, VReg, tuple[tuple[int, int], ...]]] = []
        for vid, ws in words.items():
            sites = info.sites[vid]
            qv = groups_of[vid]
            width = qv.width
            if len(ws) != width or len(sites) != width or any(x.uid not in at for x in sites):
                continue
            idx = [ws[w][0] for w in range(width)]
            groups.append((min(idx), max(idx), qv, tuple(ws[w][1] for w in range(width))))
        groups.sort(key=lambda g: g[1])
        drop: set[int] = set()
        for first, last, q, key in groups:
            prev = builds.get(key)
            if prev is not None and prev[1] < first:
                p, plast = prev
                srcs = {vid for vid, _ in key}
                if not any(_writes(x, srcs) for x in blk.instrs[plast + 1 : last + 1]):
                    alias[q.id] = p
                    drop.update(x.uid for x in info.sites[q.id])
                    continue
            builds[key] = (q, last)
        if drop:
            blk.instrs = [x for x in blk.instrs if x.uid not in drop]
    if alias:
        f = renamer(alias)
        for ins in fn.instrs():
            map_regs(ins, f)
    return len(alias)


def _writes(ins: Instr, vids: set[int]) -> bool:
    return any(
        isinstance(v := (r.v if isinstance(r, Part) else r), VReg) and v.id in vids
        for r in ins.def_regs()
    )


# an instruction's opcode, modifiers, destinations, sources and guard
_Saved = tuple[Instr, str, tuple[str, ...], list[Operand], list[Operand], Guard | None]


@dataclass
class Snapshot:
    """The blocks' instruction lists and every instruction's opcode, modifiers, operands and
    guard: to undo ``share_group_copies`` (which drops instructions and renames sources), and
    the spill rounds (regalloc/phase.py: they start again from it)."""

    blocks: list[tuple[Block, list[Instr]]]
    instrs: list[_Saved]

    def restore(self) -> None:
        for blk, instrs in self.blocks:
            blk.instrs = list(instrs)
        for ins, op, mods, dsts, srcs, guard in self.instrs:
            ins.op, ins.mods, ins.guard = op, mods, guard
            ins.dsts, ins.srcs = list(dsts), list(srcs)


def snapshot(fn: Function) -> Snapshot:
    return Snapshot(
        [(b, list(b.instrs)) for b in fn.blocks],
        [(i, i.op, i.mods, list(i.dsts), list(i.srcs), i.guard) for i in fn.instrs()],
    )
