"""Control codes: stall counts, yield, write/read scoreboards and wait masks (phase
``ScoreboardsAndOpexes``).

Runs on the allocated function in its final order. A forward simulation of issue cycles tracks,
for every physical register unit, when its pending fixed-latency result becomes usable and which
scoreboards guard a pending variable-latency write or a pending late read. Block-entry states are
merged from all predecessors (latest ready time, union of pending scoreboards) and iterated to a
fixed point, so scoreboards and latencies carry across branches and loop back edges.

Read scoreboards are set lazily: a late reader (a store, a load, MUFU, ...) gets one only when a
later write to one of its sources would come within its read window (the latency model's); the
simulation marks such readers and re-runs until nothing changes.

With ``serial`` mode every instruction waits for every scoreboard and stalls 15 cycles: trivially
safe, for bisecting.
"""

from __future__ import annotations

from collections.abc import Container, Hashable
from dataclasses import dataclass, field

from openptxas.diag import InternalError
from openptxas.ir.core import (
    RC,
    Addr,
    CBank,
    Control,
    Function,
    Instr,
    Reg,
    Src,
    all_successors,
    predecessors,
)
from openptxas.targets import SMInfo
from openptxas.targets.latency import PRED_ON_READ, UPPER, WAR_REACH, LatencyModel, lat_key

Unit = tuple[RC, int]
MAX_STALL = 15
NO_BARRIER = 1 << 10  # State.bar where no barrier is within reach
# Visits of a block after which its exit state is widened (see _assign).
WIDEN_AFTER = 8
# The latency model is the target's (SMInfo.latency: one per family, shared with the hazard
# checkers); every function below takes it.


@dataclass(frozen=True, slots=True)
class Latency:
    """Cycles from a fixed-latency producer's issue to a consumer's issue."""

    data: int  # result read as an ordinary source operand
    guard: int  # predicate result read as a guard or branch condition


_GMMA = frozenset({"HGMMA", "IGMMA", "QGMMA"})


def is_variable(ins: Instr, model: LatencyModel) -> bool:
    """Results delivered through a write scoreboard."""
    return model.is_variable(ins.op) or model.is_variable(ins.name)


def is_late_reader(ins: Instr, model: LatencyModel) -> bool:
    """Reads its register sources after issue (a later overwrite waits on its read scoreboard)."""
    return is_variable(ins, model) or model.is_late_reader(ins.op)


def fixed_latency(ins: Instr, model: LatencyModel) -> Latency:
    """Latency of a fixed-latency producer's results, for a reader of any class."""
    k = lat_key(ins.op, ins.mods)
    return Latency(model.worst(k, "data"), model.worst(k, "guard"))


def read_window(ins: Instr, model: LatencyModel) -> int:
    """How long after issue a late reader may still read its sources."""
    return model.read_window(lat_key(ins.op, ins.mods))


def _zero(r: Reg, urz: int) -> bool:
    return (
        (r.rc == RC.R and r.index == 255)
        or (r.rc == RC.UR and r.index == urz)
        or (r.rc in (RC.P, RC.UP) and r.index == 7)
    )


def reg_units(ins: Instr, urz: int, *, defs: bool) -> list[Unit]:
    out: list[Unit] = []
    regs = ins.def_regs() if defs else ins.use_regs()
    for r in regs:
        if not isinstance(r, Reg):
            raise InternalError(f"control codes: virtual register in '{ins}'")
        if r.rc == RC.B or _zero(r, urz):
            continue
        out.extend((r.rc, r.index + k) for k in range(r.width))
    return out


def is_upper(u: Hashable, written: Container[Hashable]) -> bool:
    """Whether register word ``u`` is an upper word of a multi-word result among ``written``
    (R7 of R6:R7; a virtual register's word k > 0): it is written later than the first, with
    latencies of its own (``UPPER``). Physical words are (class, index), virtual ones ("v",
    id, word)."""
    if not isinstance(u, tuple) or (u[0] != "v" and u[0] not in (RC.R, RC.UR)):
        return False
    return (*u[:-1], u[-1] - 1) in written


def guard_units(ins: Instr, urz: int) -> set[Unit]:
    if ins.guard is None:
        return set()
    r = ins.guard.pred
    assert isinstance(r, Reg)
    return set() if _zero(r, urz) else {(r.rc, r.index)}


def _is_branch_like(ins: Instr) -> bool:
    return ins.op in ("BRA", "BRX", "EXIT", "RET", "CALL", "BREAK", "BSSY", "BSYNC", "WARPSYNC")


@dataclass
class State:
    """Timing state at a point, with cycles relative to 'now'."""

    data_ready: dict[Unit, int] = field(default_factory=dict)  # cycles until usable as data
    guard_ready: dict[Unit, int] = field(default_factory=dict)  # ... as a guard predicate
    done: dict[Unit, int] = field(default_factory=dict)  # cycles until written (WAW)
    wsb: dict[Unit, frozenset[int]] = field(default_factory=dict)  # pending write scoreboards
    rsb: dict[Unit, frozenset[int]] = field(default_factory=dict)  # pending read scoreboards
    # pending late reads without a read scoreboard: unit -> every reader still in its window,
    # as (cycles since issue, reader uid, the reader's read window) sorted by uid. All of them,
    # not only the latest: an overwrite inside the window flags every such reader at once (one
    # restart instead of one per reader of the same register)
    reads: dict[Unit, tuple[tuple[int, int, int], ...]] = field(default_factory=dict)
    sb_age: dict[int, int] = field(default_factory=dict)  # cycles since each SB was set
    # fixed-latency producers still within reach of the latency table: unit -> [(class, age)]
    prod: dict[Unit, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    # fixed-latency readers of a unit that a quick writer could overtake (model.war):
    # unit -> [(reader class, cycles since it issued)]
    war: dict[Unit, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    bar: int = NO_BARRIER  # cycles since the last CTA barrier (BAR.SYNC/BAR.RED) issued

    def copy(self) -> State:
        return State(
            dict(self.data_ready),
            dict(self.guard_ready),
            dict(self.done),
            dict(self.wsb),
            dict(self.rsb),
            dict(self.reads),
            dict(self.sb_age),
            dict(self.prod),
            dict(self.war),
            self.bar,
        )

    def advance(self, cycles: int, reach: int) -> None:
        """Move 'now' forward."""
        for d in (self.data_ready, self.guard_ready, self.done):
            for k in list(d):
                v = d[k] - cycles
                if v <= 0:
                    del d[k]
                else:
                    d[k] = v
        for k, entries in list(self.reads.items()):
            kept = tuple(
                (age + cycles, uid, win) for age, uid, win in entries if age + cycles < win
            )
            if kept:
                self.reads[k] = kept
            else:
                del self.reads[k]
        for s in self.sb_age:
            self.sb_age[s] = min(self.sb_age[s] + cycles, 1 << 20)
        _age(self.prod, cycles, reach)
        _age(self.war, cycles, WAR_REACH)
        self.bar = min(self.bar + cycles, NO_BARRIER)

    def forget(self, u: Unit) -> None:
        """``u``'s fixed-latency result is no longer the one to wait for."""
        for table in (self.prod, self.data_ready, self.guard_ready, self.done):
            table.pop(u, None)

    def due_on(self, units: list[Unit], sb: int, *, guarded: bool) -> None:
        """``units`` are written through scoreboard ``sb``, just set (a guarded write may not
        happen: the earlier producer still counts)."""
        for u in units:
            self.wsb[u] = self.wsb.get(u, frozenset()) | {sb}
            if not guarded:
                self.forget(u)
        self.sb_age[sb] = 0

    def clear_sbs(self, sbs: frozenset[int]) -> None:
        for d in (self.wsb, self.rsb):
            for k in list(d):
                rest = d[k] - sbs
                if rest:
                    d[k] = rest
                else:
                    del d[k]
        for s in sbs:
            self.sb_age.pop(s, None)

    def pending_sbs(self) -> set[int]:
        out: set[int] = set()
        for v in (*self.wsb.values(), *self.rsb.values()):
            out |= v
        return out


def _age(d: dict[Unit, tuple[tuple[str, int], ...]], cycles: int, limit: int) -> None:
    """Entries ``(class, age)`` ``cycles`` older; those reaching ``limit`` are dropped."""
    for k in list(d):
        aged = tuple((c, a + cycles) for c, a in d[k] if a + cycles < limit)
        if aged:
            d[k] = aged
        else:
            del d[k]


def merge(states: list[State]) -> State:
    if not states:
        return State()
    out = states[0].copy()
    for s in states[1:]:
        for mine, theirs in (
            (out.data_ready, s.data_ready),
            (out.guard_ready, s.guard_ready),
            (out.done, s.done),
        ):
            for k, v in theirs.items():
                mine[k] = max(mine.get(k, 0), v)
        for mine2, theirs2 in ((out.wsb, s.wsb), (out.rsb, s.rsb)):
            for k, v2 in theirs2.items():
                mine2[k] = mine2.get(k, frozenset()) | v2
        for k, rds in s.reads.items():
            # per reader, the youngest (the longest remaining window)
            by_uid = {uid: (age, uid, win) for age, uid, win in out.reads.get(k, ())}
            for age, uid, win in rds:
                if uid not in by_uid or by_uid[uid][0] > age:
                    by_uid[uid] = (age, uid, win)
            out.reads[k] = tuple(by_uid[u] for u in sorted(by_uid))
        for k, entries in s.prod.items():
            out.prod[k] = tuple(sorted(set(out.prod.get(k, ())) | set(entries)))
        for k, entries in s.war.items():
            out.war[k] = tuple(sorted(set(out.war.get(k, ())) | set(entries)))
        for sb, age in s.sb_age.items():
            out.sb_age[sb] = min(out.sb_age.get(sb, age), age)
        out.bar = min(out.bar, s.bar)
    return out


def _states_equal(a: State, b: State) -> bool:
    return (
        a.prod == b.prod
        and a.war == b.war
        and a.data_ready == b.data_ready
        and a.guard_ready == b.guard_ready
        and a.done == b.done
        and a.wsb == b.wsb
        and a.rsb == b.rsb
        and a.reads == b.reads
        and a.sb_age == b.sb_age
        and a.bar == b.bar
    )


class _Restart(Exception):
    pass


@dataclass(slots=True)
class _Info:
    """What the simulation asks of an instruction, computed once per function (the answers
    depend only on the instruction and the model; a function is simulated several times)."""

    uses: list[Unit]  # register units read (and ORDER_UNIT for an ordering waiter)
    gunits: set[Unit]  # ... of them, the guard predicate
    defs: list[Unit]  # register units written (and ORDER_UNIT for an ordering producer)
    ruses: list[Unit]  # uses without ORDER_UNIT (waited for, not read)
    ckey: str  # latency class
    pkeys: dict[Unit, str]  # the producer key of each written unit (UPPER: an upper register)
    roles: dict[Unit, tuple[str, ...]]
    variable: bool
    late: bool  # a late reader
    fixed: Latency
    own: int  # _own_latency
    window: int  # read window of a late reader

    @staticmethod
    def of(ins: Instr, urz: int, model: LatencyModel) -> _Info:
        uses = reg_units(ins, urz, defs=False)
        defs = reg_units(ins, urz, defs=True)
        if ins.op in ORDER_WAITERS:
            uses.append(ORDER_UNIT)
        if ins.op == "FENCE" or (ins.op == "SYNCS" and "EXCH" in ins.mods):
            defs.append(ORDER_UNIT)
        late = is_late_reader(ins, model)
        ckey = lat_key(ins.op, ins.mods)
        dset = set(defs)
        return _Info(
            uses=uses,
            gunits=guard_units(ins, urz),
            defs=defs,
            ruses=[u for u in uses if u != ORDER_UNIT],
            ckey=ckey,
            pkeys={u: ckey + UPPER if is_upper(u, dset) else ckey for u in defs},
            # (the checkers' roles too: a late reader's data source is "late", an upper source
            # register of IMAD "hi": each may have latencies of its own per consumer pipe)
            roles={
                u: tuple(dict.fromkeys((*rs, *(model.role(ins.op, r) for r in rs))))
                for u, rs in operand_roles(ins, urz).items()
            },
            variable=is_variable(ins, model),
            late=late,
            fixed=fixed_latency(ins, model),
            own=_own_latency(ins, model),
            window=read_window(ins, model) if late else 0,
        )


def assign_control(fn: Function, target: SMInfo, *, serial: bool = False) -> None:
    """Set ``ins.ctrl`` on every instruction of the allocated function ``fn``, with the target's
    latency model."""
    needs_rd: set[int] = set()
    infos: dict[int, _Info] = {}  # by id(ins): what the simulation asks of each instruction
    # A pass that finds late readers whose registers are overwritten inside their read window
    # gives each a read scoreboard and restarts; a pass collects all it finds (every reader of
    # a register, State.reads), so two or three passes settle even large unrolled kernels
    # (one restart per reader took 19 passes on cub's radix-sort kernels).
    count = sum(len(b.instrs) for b in fn.blocks)
    for _ in range(count + 2):
        try:
            _assign(fn, target.urz, target.latency, serial, needs_rd, infos)
            return
        except _Restart:
            continue
    raise InternalError(f"control codes: {fn.name}: no fixed point")


def _assign(
    fn: Function,
    urz: int,
    model: LatencyModel,
    serial: bool,
    needs_rd: set[int],
    infos: dict[int, _Info],
) -> None:
    known = len(needs_rd)
    n = len(fn.blocks)
    # a subroutine's RET may return to any call's return site (as the hazard checkers assume)
    succs = all_successors(fn, any_return=True)
    preds = predecessors(fn, any_return=True)
    out_states: list[State | None] = [None] * n

    def run(i: int, st: State, *, emit: bool) -> State:
        blk = fn.blocks[i].instrs
        after = _fall_into(fn, succs, i)
        return _block(blk, st, urz, model, serial, needs_rd, infos, emit=emit, after=after)

    work = list(range(n))
    visits = [0] * n
    rounds = 0
    # 1. Block-entry states to a fixed point (nothing is changed in the function yet).
    while work:
        rounds += 1
        if rounds > 100 * n + 100:
            raise InternalError(f"control codes: {fn.name}: no fixed point over the CFG")
        i = work.pop(0)
        st = merge([s for p in preds[i] if (s := out_states[p]) is not None])
        new_out = run(i, st, emit=False)
        old = out_states[i]
        visits[i] += 1
        if old is not None and visits[i] > WIDEN_AFTER:
            # Scoreboard choices can cycle around a loop: from here on a block's exit state
            # only grows (more pending, later ready, younger), which always converges.
            new_out = merge([old, new_out])
        if old is None or not _states_equal(old, new_out):
            out_states[i] = new_out
            for s2 in succs[i]:
                if s2 not in work:
                    work.append(s2)
    if len(needs_rd) > known:
        raise _Restart
    # 2. Emit the control codes (and any NOPs) from the converged entry states.
    for i in range(len(fn.blocks)):
        st = merge([s for p in preds[i] if (s := out_states[p]) is not None])
        run(i, st, emit=True)
    if len(needs_rd) > known:
        raise _Restart


def _fall_into(fn: Function, succs: list[list[int]], i: int) -> Instr | None:
    """The first instruction of the block after block ``i`` when ``i`` falls through to it."""
    if i + 1 < len(fn.blocks) and i + 1 in succs[i] and fn.blocks[i + 1].instrs:
        return fn.blocks[i + 1].instrs[0]
    return None


def _delay(
    ins: Instr, info: _Info, st: State, model: LatencyModel, serial: bool, least: int
) -> tuple[int, set[int]]:
    """The cycles ``ins`` must wait after the previous instruction's issue in state ``st``
    (at least ``least``), and the scoreboards it waits for."""
    uses, gunits, defs, ckey, roles = info.uses, info.gunits, info.defs, info.ckey, info.roles
    wait: set[int] = set()
    delay = least
    if serial:
        wait = st.pending_sbs()
        for entries in st.prod.values():
            for pkey, age in entries:
                delay = max(delay, model.settled(pkey) - age)
    elif ins.op in ("CALL", "RET") and "ABS" in ins.mods:
        # (a call to, or return from, code compiled apart: it may read or write any register:
        # every result is waited for, fixed-latency ones included, as an ordinary read)
        wait = st.pending_sbs()
        for entries in st.prod.values():
            for pkey, age in entries:
                delay = max(delay, model.settled_for_call(pkey) - age)
    for u in uses:
        wait |= st.wsb.get(u, frozenset())
        ready = st.guard_ready.get(u, 0) if u in gunits else st.data_ready.get(u, 0)
        delay = max(delay, ready)
        for pkey, age in st.prod.get(u, ()):
            for role in roles.get(u, ("data",)):
                delay = max(delay, model.need(pkey, ckey, role) - age)
    for u in defs:
        wait |= st.wsb.get(u, frozenset()) | st.rsb.get(u, frozenset())
        for rkey, age in st.war.get(u, ()):
            delay = max(delay, model.war_need(rkey, ckey) - age)
        if u in st.done:
            delay = max(delay, st.done[u] - info.own + 1)
    for sb in wait:
        delay = max(delay, model.sb_setup - st.sb_age.get(sb, model.sb_setup))
    if ins.op in model.barrier_readers:
        # a memory access right behind a CTA barrier could act before the barrier does
        delay = max(delay, model.barrier_gap - st.bar)
    return delay, wait


def _block(
    instrs: list[Instr],
    st: State,
    urz: int,
    model: LatencyModel,
    serial: bool,
    needs_rd: set[int],
    infos: dict[int, _Info],
    *,
    emit: bool,
    after: Instr | None = None,
) -> State:
    """Simulate (and with ``emit`` annotate) one block from entry state ``st``; ``after``: the
    first instruction of the block this one falls through to."""
    prev: Instr | None = None
    next_free = 0  # round-robin start for scoreboard allocation
    out: list[Instr] = []
    for ins in instrs:
        info = infos.get(id(ins))
        if info is None:
            info = infos[id(ins)] = _Info.of(ins, urz, model)
        defs, ckey = info.defs, info.ckey
        delay, wait = _delay(ins, info, st, model, serial, 1 if prev is not None else 0)
        for u in defs:
            if u in st.reads:
                needs_rd.update(uid for _, uid, _ in st.reads[u])
        if serial and prev is not None:
            delay = MAX_STALL
        elif prev is not None:
            delay = max(delay, model.gap(prev.op, prev.mods))
        # The previous instruction carries the stall; longer waits go into NOPs.
        while delay > (MAX_STALL if prev is not None else 0):
            if prev is not None:
                prev.ctrl = prev.ctrl or Control()
                prev.ctrl.stall = MAX_STALL
                _set_yield(prev)
                st.advance(MAX_STALL, model.reach)
                delay -= MAX_STALL
            nop = Instr("NOP", ctrl=Control(stall=1))
            if emit:
                out.append(nop)
            prev = nop
            delay = max(delay, 1)
        if prev is not None:
            prev.ctrl = prev.ctrl or Control()
            prev.ctrl.stall = max(delay, 1)
            _set_yield(prev)
            st.advance(max(delay, 1), model.reach)
        ctrl = Control(stall=1, wait=_mask(wait))
        st.clear_sbs(frozenset(wait))
        if model.is_barrier(ins.op, ins.mods):
            st.bar = 0
        if ins.op == "LDGDEPBAR":
            # counts cp.async groups on SB0, which DEPBAR.LE SB0, n reads (as ptxas)
            ctrl.wr_sb = 0
        early = [u for u in defs if u[0] is RC.P] if ins.op in PRED_ON_READ else []
        if early:
            # ATOM's predicate result is due with its read scoreboard (as ptxas reads it)
            sb, next_free = _alloc_sb(st, next_free, model.scoreboards)
            ctrl.rd_sb = sb
            for u in info.ruses:
                st.rsb[u] = st.rsb.get(u, frozenset()) | {sb}
            st.due_on(early, sb, guarded=ins.guard is not None)
            defs = [u for u in defs if u not in early]
        if (info.variable or ORDER_UNIT in defs) and defs:
            sb, next_free = _alloc_sb(st, next_free, model.scoreboards)
            ctrl.wr_sb = sb
            st.due_on(defs, sb, guarded=ins.guard is not None)
        elif ins.op in _GMMA:
            # wgmma results are due at the WARPGROUP.DEPBAR that waits for their group (and the
            # next wgmma chains on its accumulator): no scoreboard, no latency
            for u in defs:
                st.forget(u)
        else:
            lat = info.fixed
            for u in defs:
                if ins.guard is None:
                    st.data_ready[u] = lat.data
                    st.guard_ready[u] = lat.guard
                    st.done[u] = lat.data
                    st.prod[u] = ((info.pkeys[u], 0),)
                else:
                    st.data_ready[u] = max(lat.data, st.data_ready.get(u, 0))
                    st.guard_ready[u] = max(lat.guard, st.guard_ready.get(u, 0))
                    st.done[u] = max(lat.data, st.done.get(u, 0))
                    st.prod[u] = ((info.pkeys[u], 0), *st.prod.get(u, ()))
        ruses = info.ruses
        if info.late and ruses and ctrl.rd_sb is None:
            if ins.uid in needs_rd:
                sb, next_free = _alloc_sb(st, next_free, model.scoreboards)
                ctrl.rd_sb = sb
                for u in ruses:
                    st.rsb[u] = st.rsb.get(u, frozenset()) | {sb}
                st.sb_age[sb] = 0
            else:
                win = info.window
                for u in ruses:
                    others = [e for e in st.reads.get(u, ()) if e[1] != ins.uid]
                    st.reads[u] = tuple(sorted([*others, (0, ins.uid, win)], key=lambda e: e[1]))
        for u in defs:
            st.reads.pop(u, None)
            st.war.pop(u, None)
        if not info.late and ckey in model.war_readers:
            for u in ruses:
                st.war[u] = ((ckey, 0), *(e for e in st.war.get(u, ()) if e[0] != ckey))
        if emit:
            ins.ctrl = ctrl
            out.append(ins)
        else:
            ins.ctrl = ctrl  # provisional, overwritten by the emitting pass
        prev = ins
    if prev is not None:
        assert prev.ctrl is not None
        # The last instruction of a block: enough stall for a branch to resolve.
        prev.ctrl.stall = max(prev.ctrl.stall, 5 if _is_branch_like(prev) else 1)
        prev.ctrl.stall = max(prev.ctrl.stall, model.gap(prev.op, prev.mods))
        if after is not None and not _is_branch_like(prev) and not serial:
            # Falling through into the next block: what its first instruction would wait for
            # from here is waited for here, so that a loop entered this way (a preheader) does
            # not start its body with a NOP that every iteration then runs.
            ainfo = infos.get(id(after))
            if ainfo is None:
                ainfo = infos[id(after)] = _Info.of(after, urz, model)
            need, _w = _delay(after, ainfo, st, model, serial, 1)
            prev.ctrl.stall = max(prev.ctrl.stall, min(need, MAX_STALL))
        _set_yield(prev)
        st.advance(prev.ctrl.stall, model.reach)
    if emit:
        instrs[:] = out
    return st


# Completion of memory-ordering work: an mbarrier initialisation (SYNCS.EXCH) and fences
# (FENCE.VIEW.ASYNC; not MEMBAR: nvdisasm rejects a write scoreboard on it) complete through a
# write scoreboard that the next CTA barrier,
# fence, mbarrier operation or copy-engine instruction waits on, as in ptxas 13.0's code
# ("SYNCS.EXCH.64 URZ, [UR11], UR6 [W3]; BAR.SYNC [wait SB3]"; "MEMBAR.ALL.CTA; FENCE.VIEW.ASYNC.S
# [wait, W4]; BAR.SYNC [wait SB4]"), so that no thread of another warp uses an mbarrier whose
# initialisation has not completed. A pseudo register unit carries it: written by the former,
# read by the latter.
ORDER_UNIT: Unit = (RC.B, 1 << 16)
ORDER_WAITERS = frozenset(
    {"BAR", "FENCE", "SYNCS", "UCGABAR_ARV", "UBLKCP", "UBLKRED", "UTMALDG", "UTMASTG",
     "UTMAREDG", "STAS", "REDAS", "ARRIVES"}
)  # fmt: skip

# The copy engines' uniform-register operands (sizes, CTA masks, im2col offsets) are read as
# addresses are (ptxas: "UPRMT UR8 ... UBLKPF.L2 [UR4], UR8" 9 cycles apart; the emulator's
# checkers read them with the address role: openptxas/emu/ops_async.py)
UNIFORM_COPY_OPS = frozenset(
    {"UBLKCP", "UBLKRED", "UBLKPF", "UTMALDG", "UTMASTG", "UTMAREDG", "UTMAPF", "UTMACCTL"}
)


def operand_roles(ins: Instr, urz: int) -> dict[Unit, tuple[str, ...]]:
    """The latency-table role of each register unit ``ins`` reads: ``guard`` (guard predicate
    or branch condition), ``addr`` (address or constant-bank index), ``pred`` (predicate
    source), ``data`` (other sources)."""
    roles: dict[Unit, list[str]] = {}

    def add(r: object, role: str) -> None:
        if isinstance(r, Reg) and r.rc != RC.B and not _zero(r, urz):
            for k in range(r.width):
                # an upper source register is "hi" (LatencyModel.role makes it "data" but for
                # the opcodes that read it late), as the checkers read it (emu/hazards.py)
                roles.setdefault((r.rc, r.index + k), []).append(
                    "hi" if k and role == "data" else role
                )

    if ins.guard is not None:
        add(ins.guard.pred, "guard")
    for src in ins.srcs:
        if isinstance(src, Addr):
            for r in (src.base, src.ubase, src.desc):
                add(r, "addr")
        elif isinstance(src, CBank):
            add(src.reg, "addr")
        elif isinstance(src, Src):
            add(src.x, "pred" if isinstance(src.x, Reg) and src.x.rc in (RC.P, RC.UP) else "data")
        elif isinstance(src, Reg):
            role = "addr" if ins.op in UNIFORM_COPY_OPS else "data"
            add(src, "pred" if src.rc in (RC.P, RC.UP) else role)
    if ins.op in ("BRA", "BRX") and ins.guard is not None:
        add(ins.guard.pred, "guard")
    return {u: tuple(dict.fromkeys(rs)) for u, rs in roles.items()}


def _own_latency(ins: Instr, model: LatencyModel) -> int:
    return 0 if is_variable(ins, model) else fixed_latency(ins, model).data


def _alloc_sb(st: State, start: int, count: int) -> tuple[int, int]:
    pending = st.pending_sbs()
    for j in range(count):
        s = (start + j) % count
        if s not in pending:
            return s, (s + 1) % count
    # All busy: share the one set longest ago (waiting on it then waits for both; correct).
    s = max(range(count), key=lambda x: (st.sb_age.get(x, 0), -x))
    return s, (s + 1) % count


def _mask(sbs: set[int]) -> int:
    m = 0
    for s in sbs:
        m |= 1 << s
    return m


def _set_yield(ins: Instr) -> None:
    # ptxas 13.0 (sm_90): stall 1 always keeps the warp (bit 109 = 1), stalls of 12 and more and
    # stall 0 never do; in between it is mixed. We keep the warp for short stalls only.
    assert ins.ctrl is not None
    ins.ctrl.yield_ = not (1 <= ins.ctrl.stall <= 2)
