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

from openptxas.ir.analysis import def_info, use_counts
from openptxas.ir.core import RC, Function, Instr, Part, RegLike, VReg


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


def defs_into_group_words(fn: Function) -> int:
    """Rewrite the copies (see the module's doc); returns how many went."""
    info = def_info(fn)
    uses = use_counts(fn)
    done = 0
    for b in fn.blocks:
        drop: set[int] = set()
        where: dict[int, int] = {}  # instruction uid -> index in the block
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
            if uses.get(s.id) != 1 or len(sites) != 1:
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
        if drop:
            b.instrs = [x for x in b.instrs if x.uid not in drop]
            done += len(drop)
    return done
