"""Dead-code elimination (ptxas's EarlyOriSimpleLiveDead / LiveDead phases).

Pre: any IR with virtual registers. Post: every instruction without side effects writes at least
one register that is live afterwards, and a word of a wide register that nothing reads is not
written on its own (the high word of a ``shr.u64`` whose result ``cvt.u32.u64`` truncates);
an ``IADD3``/``LEA`` writes no carry-out that nothing reads, and an ``IMAD.WIDE`` of which only
the low word is read is the 32-bit ``IMAD`` (an address a 32-bit ``LDC`` truncates).
"""

from __future__ import annotations

from collections.abc import Sequence

from openptxas.ir.analysis import has_side_effects, map_regs, write_counts
from openptxas.ir.core import RZ, Function, Instr, Part, RegLike, VReg
from openptxas.ir.liveness import compute_liveness, live_after_each
from openptxas.passes.manager import PassContext


def dce(fn: Function, ctx: PassContext) -> None:
    for _ in range(16):
        changed = _sweep(fn)
        changed |= _useless_words(fn)
        changed |= _narrow_wide_products(fn)
        changed |= _narrow_low_words(fn)
        if not changed:
            return


def _useless_words(fn: Function) -> bool:
    """Mark and sweep by word: an instruction is needed when it has side effects, writes a
    fixed register or nothing, or writes a word that a needed instruction reads (its guard
    included). What is left only feeds itself around a loop (the high word of a 64-bit local
    pointer stepped each iteration, ``p += 4``, whose accesses read the low word): liveness
    sees such a word live around the loop, this does not. Returns whether any went."""
    writers: dict[int, list[tuple[int, Instr]]] = {}  # vreg id -> (words, writer)
    need: list[Instr] = []
    for ins in fn.instrs():
        fixed = False
        for r in ins.def_regs():
            got = _reg_words(r)
            if got is not None:
                writers.setdefault(got[0], []).append((got[1], ins))
            elif not _zero_register(r):
                fixed = True
        if has_side_effects(ins) or not ins.dsts or fixed:
            need.append(ins)
    useful: dict[int, int] = {}
    live: set[int] = {ins.uid for ins in need}
    while need:
        ins = need.pop()
        for r in ins.use_regs():
            got = _reg_words(r)
            if got is None:
                continue
            vid, mask = got
            new = mask & ~useful.get(vid, 0)
            if not new:
                continue
            useful[vid] = useful.get(vid, 0) | new
            for words, w in writers.get(vid, ()):
                if words & new and w.uid not in live:
                    live.add(w.uid)
                    need.append(w)
    dead = [ins for ins in fn.instrs() if ins.uid not in live]
    if not dead:
        return False
    gone = {ins.uid for ins in dead}
    for b in fn.blocks:
        b.instrs = [ins for ins in b.instrs if ins.uid not in gone]
    return True


def _narrow_low_words(fn: Function) -> bool:
    """A wide register of which only the low word is ever written or read (a 64-bit local
    address whose high word DCE removed: ``%SPL + 24`` read by ``st.local``) becomes a 32-bit
    register: the allocator gives it one register, not an aligned pair."""
    touched: dict[int, int] = {}  # vreg id -> words written or read (bitmask; -1: whole)
    wide: dict[int, VReg] = {}
    for ins in fn.instrs():
        for r in (*ins.def_regs(), *ins.use_regs()):
            got = _reg_words(r)
            v = r.v if isinstance(r, Part) else r
            if got is not None and isinstance(v, VReg) and v.width > 1:
                touched[got[0]] = touched.get(got[0], 0) | got[1]
                wide[v.id] = v
    names = {vid: fn.new_vreg(v.rc) for vid, v in wide.items() if touched.get(vid) == 1}
    return _low_words_as(fn, names, dsts=True)


def _narrow_wide_products(fn: Function) -> bool:
    """``t = IMAD.WIDE a, b, c`` alone writing ``t``, of which nothing reads the high word (an
    address into a constant bank or shared memory that a 32-bit access truncates), becomes the
    32-bit ``IMAD`` (the low word of a*b + c is a*b + c.lo, whatever the signedness), as ptxas
    writes ``IMAD.SHL`` there."""
    read = _read_words(fn)
    writes = write_counts(fn)
    names: dict[int, VReg] = {}
    for ins in fn.instrs():
        if ins.op != "IMAD" or ins.mods[:1] != ("WIDE",) or len(ins.dsts) != 1:
            continue
        t = ins.dsts[0]
        if not isinstance(t, VReg) or t.width != 2 or writes.get(t.id) != 1:
            continue
        if read.get(t.id, 0) & ~1 or len(ins.srcs) != 3:
            continue
        c = ins.srcs[2]
        if isinstance(c, VReg) and c.width == 2:
            c = Part(c, 0)
        elif isinstance(c, Part) and c.n == 2:
            c = Part(c.v, c.k)
        elif not _zero_register(c):
            continue
        n = fn.new_vreg(t.rc)
        names[t.id] = n
        ins.mods, ins.dsts, ins.srcs = (), [n], [*ins.srcs[:2], c]
    return _low_words_as(fn, names, dsts=False)


def _low_words_as(fn: Function, names: dict[int, VReg], *, dsts: bool) -> bool:
    """Every access to the low word of a wide register in ``names`` (by id; nothing touches
    its other words) as the 32-bit register it maps to (destinations too with ``dsts``);
    whether there was any."""
    if not names:
        return False

    def low(r: RegLike) -> RegLike:
        if isinstance(r, Part) and r.v.id in names:
            assert r.k == 0 and r.n == 1  # only the low word is touched
            return names[r.v.id]
        return r

    for ins in fn.instrs():
        map_regs(ins, low, dsts=dsts)
    return True


def _sweep(fn: Function) -> bool:
    """One liveness computation and the deletions it allows; whether anything changed."""
    lv = compute_liveness(fn)
    dead: set[int] = set()  # id() of the instructions to delete
    changed = False
    read = _read_words(fn)

    def drop(ins: Instr, live: int) -> bool:
        nonlocal changed
        if not has_side_effects(ins) and ins.dsts and not _writes_live(ins, live, read):
            dead.add(id(ins))
            return True
        if ins.op in ("IADD3", "LEA") and len(ins.dsts) > 1 and not _any_live(ins.dsts[1:], live):
            # carry-outs nobody reads (the high word of an address add that a 32-bit LDC
            # truncated): the plain add, which copy propagation can then see through
            ins.dsts = ins.dsts[:1]
            changed = True
        if ins.op == "ATOMG" and _reduction(ins) and not _writes_live(ins, live):
            # an atomic whose old value nobody reads is a reduction (ptxas: REDG)
            ins.op, ins.dsts = "REDG", []
            changed = True
        elif (
            ins.op in ("ATOMS", "ATOMG")
            and len(ins.dsts) == 1
            and isinstance(ins.dsts[0], VReg)
            and ins.dsts[0].width == 1
            and not _writes_live(ins, live)
        ):
            # a shared atomic (or CAS/EXCH) whose old value nobody reads writes RZ, as ptxas's
            # "ATOMS.ADD RZ, [UR4], R0": no write scoreboard pending. "ATOMS.ADD R7 [W1]" right
            # before BAR.SYNC left t1/atomic_tickets's counts short on an H200 (right with every
            # stall 2 higher, or every scoreboard waited)
            ins.dsts = [RZ]
            changed = True
        return False

    live_after_each(fn, lv, drop)
    if dead:
        for b in fn.blocks:
            b.instrs = [ins for ins in b.instrs if id(ins) not in dead]
    return changed or bool(dead)


def _read_words(fn: Function) -> dict[int, int]:
    """The words of each wide register (a bitmask by id) that some instruction reads."""
    out: dict[int, int] = {}
    for ins in fn.instrs():
        for r in ins.use_regs():
            got = _reg_words(r)
            if got is not None:
                out[got[0]] = out.get(got[0], 0) | got[1]
    return out


def _reg_words(r: object) -> tuple[int, int] | None:
    """A virtual register operand as (its id, the words it names: a bitmask, -1 for all)."""
    if isinstance(r, Part):
        return r.v.id, _words(r)
    if isinstance(r, VReg):
        return r.id, -1
    return None


def _writes_live(ins: object, live: int, read: dict[int, int] | None = None) -> bool:
    from openptxas.ir.core import Instr

    assert isinstance(ins, Instr)
    for r in ins.def_regs():
        v = r.v if isinstance(r, Part) else r
        if not isinstance(v, VReg):
            # a fixed register (R1, a zero register) is written on purpose
            if not _zero_register(v):
                return True
            continue
        if isinstance(r, Part) and read is not None and not read.get(v.id, 0) & _words(r):
            continue  # words nobody reads
        if live >> v.id & 1:
            return True
    return False


def _any_live(regs: Sequence[object], live: int) -> bool:
    """Whether one of ``regs`` (carry-out predicates) may be read later: a fixed predicate
    other than PT counts as read."""
    from openptxas.ir.core import RC

    for r in regs:
        if isinstance(r, VReg):
            if r.rc is not RC.P or live >> r.id & 1:
                return True
        elif not _zero_register(r):
            return True
    return False


def _words(r: Part) -> int:
    return ((1 << r.n) - 1) << r.k


def _reduction(ins: object) -> bool:
    from openptxas.ir.core import Instr

    assert isinstance(ins, Instr)
    return not any(m in ("CAS", "EXCH") for m in ins.mods)


def _zero_register(r: object) -> bool:
    """RZ/URZ (index 255) or PT/UPT (P7): writes to them are discarded."""
    from openptxas.ir.core import RC, Reg

    if not isinstance(r, Reg):
        return True
    return r.index == 255 or (r.rc in (RC.P, RC.UP) and r.index == 7)
