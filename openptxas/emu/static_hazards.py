"""The static hazard checker: the dynamic checker's rules (``openptxas.emu.hazards``) applied to
every path of a function's control-flow graph instead of the paths one launch executes, so that
cubins without a launch spec can be checked (``openptxas-emu check FILE.cubin``) and the latency
model can be mined from them (``scripts/hazards_mine.py``).

Dataflow, per function (a kernel's section, its subroutines included), block by block to a fixed
point; the state at a point is what may be pending for one thread, the worst case over every path
that reaches it:

- ``fixed``: register -> {producer pc: cycles since it issued}, fixed-latency results still
  within the model's reach; joins keep the smallest age (the closest producer).
- ``sbw``: register -> {(scoreboard, producer pc): newer setters of that scoreboard since}, the
  variable-latency writes not yet waited on (``DEPBAR.LE SBk, n`` completes those with at least
  ``n`` newer setters; wgmma's ``gsb0`` group counts alike, -1 while the group is open); joins
  keep the smallest count.
- ``ino``: register -> results of variable-latency instructions issued without a write
  scoreboard, waiting for the next instruction of their in-order unit that sets one (then
  covered by that scoreboard; under a guard, for the readers under the same guard); such a
  result is also ready once the model's latency for its class has passed (ptxas times some by
  stalls), and a CTA barrier completes the units the model names.
- ``rd``: register -> {(scoreboard, reader pc): (newer setters, age)}, late reads of vector
  registers not yet waited on.

Every entry remembers whether its producer's guard predicate is unchanged since: a producer and
a reader (or overwriter) under opposite guards of the same predicate never meet.

Issue times advance by ``max(stall, 1)`` per instruction; scoreboard waits are not counted as
delay (a wait never hides a hazard). Successors: fall-through, branch targets (both for a guarded
or conditional branch), ``CALL`` to its callee (an indirect one to every function of the code that
nothing else reaches) and the callee's ``RET`` to the return sites of the calls to it (an
indirect callee's to every return site of the section); ``BRX``/``JMX`` (their tables are
data) to the code nothing else reaches.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from openptxas.emu.abi import Geometry
from openptxas.emu.bind import PRED_BASE, UR_BASE, Ctx, pred_row
from openptxas.emu.hazards import (
    GMMA,
    GSB,
    NSB,
    Access,
    Hazard,
    expand,
    row_name,
    upper_rows,
)
from openptxas.emu.memory import GlobalMemory
from openptxas.emu.model import Imm, Instruction, Keyword, Label, Reg
from openptxas.emu.program import Kernel, Module
from openptxas.targets import default_latency_model
from openptxas.targets.latency import PRED_ON_READ, UPPER, WAR_REACH, LatencyModel, lat_key

UNDECODED = "<undecoded>"
UR_ROW0 = UR_BASE  # rows from here are uniform registers (then predicates)
POS_CAP = 16  # scoreboard counts beyond this are equivalent (DEPBAR counts are at most 7)
BAR_ROW = -1  # State.fixed's row for the last CTA barrier (no register is read from it)

Entries = dict[int, dict[tuple[int, ...], tuple[int, ...]]]


@dataclass
class StaticInstr:
    pc: int
    ins: Instruction
    cls: str
    access: Access
    guard_row: int | None
    guarded: bool
    guard: tuple[int, bool] | None  # (predicate row, negated)

    @functools.cached_property
    def uppers(self) -> frozenset[int]:
        """The upper registers of its multi-register results (``upper_rows``)."""
        return upper_rows(self.access.writes)


@dataclass
class State:
    fixed: Entries = field(default_factory=dict)  # row -> {(ppc,): (age, gv)}
    sbw: Entries = field(default_factory=dict)  # row -> {(sb, ppc): (pos, gv)}
    # row -> {(ppc, cover sb or -1, cond): (age, pos, gv)}. Uncovered (-1): cond is a mask of
    # guard codes under which a later scoreboard of the unit covers it (readers under them skip
    # it). Covered: cond >= 0: only for readers under that guard; -1: for all; <= -2: for
    # readers outside the mask -cond - 2.
    ino: Entries = field(default_factory=dict)
    rd: Entries = field(default_factory=dict)  # row -> {(sb, rpc): (pos, age)}
    # row -> {(rpc,): (age,)}: fixed-latency readers a quick writer could overtake (model.war)
    fr: Entries = field(default_factory=dict)

    def copy(self) -> State:
        return State(*({r: dict(e) for r, e in d.items()} for d in self.parts()))

    def parts(self) -> tuple[Entries, Entries, Entries, Entries, Entries]:
        return (self.fixed, self.sbw, self.ino, self.rd, self.fr)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.parts() == other.parts()


def _join_into(a: State, b: State) -> None:
    for da, db in zip(a.parts(), b.parts(), strict=True):
        for row, eb in db.items():
            ea = da.setdefault(row, {})
            for k, v in eb.items():
                old = ea.get(k)
                ea[k] = v if old is None else tuple(min(x, y) for x, y in zip(old, v, strict=True))


def join(states: Iterable[State]) -> State:
    out = State()
    for s in states:
        _join_into(out, s)
    return out


# -- instruction accesses ---------------------------------------------------------------------


def _machine(module: Module, k: Kernel) -> object:
    """Just enough of a Machine for the binders to report an instruction's register accesses."""
    from openptxas.emu.machine import Machine
    from openptxas.emu.registry import binders

    geo = Geometry((1, 1, 1), (32, 1, 1), (1, 1, 1), False, 0, 0)
    banks: dict[int, np.ndarray] = {0: np.zeros(0x10000, dtype=np.uint8)}
    for num, sec in k.banks.items():
        banks[num] = np.frombuffer(sec.data.ljust(max(sec.size, 4), b"\0"), np.uint8).copy()
    for num, name in module.banks.items():
        sec = module.data[name]
        banks[num] = np.frombuffer(sec.data.ljust(max(sec.size, 4), b"\0"), np.uint8).copy()
    return Machine(module, k, geo, GlobalMemory(), banks, binders(), {}, max_lanes=32)


def _fallback_access(ins: Instruction) -> Access:
    """Accesses by operand kind, for an instruction no binder takes: the first register operand
    is written, every other register read."""
    from openptxas.emu.bind import reg_row
    from openptxas.emu.model import CBank, GDesc, Mem, RegFile

    reads: list[tuple[int, int, str]] = []
    writes: list[tuple[int, int]] = []
    first = True
    for o in ins.operands:
        if isinstance(o, Reg) and o.file in (RegFile.R, RegFile.UR, RegFile.P, RegFile.UP):
            if o.is_zero:
                first = False
                continue
            row = PRED_BASE + pred_row(o) if o.is_pred else reg_row(o)
            if first:
                writes.append((row, 1))
            else:
                reads.append((row, 1, "pred" if o.is_pred else "data"))
            first = False
        elif isinstance(o, Mem):
            for r in (o.base, o.ubase, o.desc):
                if r is not None and not r.is_zero:
                    reads.append((reg_row(r), 2 if r is o.desc else 1, "addr"))
            first = False
        elif isinstance(o, CBank):
            if o.reg is not None and not o.reg.is_zero:
                reads.append((reg_row(o.reg), 1, "addr"))
            first = False
        elif isinstance(o, GDesc):
            reads.append((reg_row(o.reg), 4, "addr"))
            first = False
        else:
            first = False
    return expand(reads, writes)


def static_instructions(
    module: Module, k: Kernel, model: LatencyModel
) -> tuple[dict[int, StaticInstr], int, int]:
    """Every instruction of the kernel's section with its register accesses as the emulator's
    binders report them; also the number of undecoded words and of instructions whose accesses
    came from the operand-kind fallback."""
    from openptxas.emu.machine import Machine

    m = _machine(module, k)
    assert isinstance(m, Machine)
    out: dict[int, StaticInstr] = {}
    undecoded = fallback = 0
    for pc, ins in sorted(module.instructions(k).items()):
        if ins.opcode == UNDECODED:
            undecoded += 1
            continue
        binder = m.binders.get(ins.opcode)
        acc: Access | None = None
        if binder is not None:
            ctx = Ctx(m, ins, pc)
            try:
                binder(ctx)
                acc = expand(ctx.reads, ctx.writes)
            except Exception:
                acc = None
        if acc is None:
            fallback += 1
            acc = _fallback_access(ins)
        g = ins.guard
        grow = None if g.is_zero else PRED_BASE + pred_row(Reg(g.file, g.index))
        acc = Access(tuple((r, model.role(ins.opcode, role)) for r, role in acc.reads), acc.writes)
        out[pc] = StaticInstr(
            pc, ins, lat_key(ins.opcode, ins.mods), acc, grow, not g.is_zero,
            None if grow is None else (grow, g.not_),
        )  # fmt: skip
    return out, undecoded, fallback


# -- control flow -----------------------------------------------------------------------------


def successors(code: Mapping[int, StaticInstr]) -> dict[int, list[int]]:
    labels = sorted(
        {o.target for si in code.values() for o in si.ins.operands if isinstance(o, Label)}
    )
    returns = [pc + 16 for pc, si in code.items() if si.ins.opcode == "CALL" and pc + 16 in code]
    out: dict[int, list[int]] = {}
    for pc, si in code.items():
        ins = si.ins
        op = ins.opcode
        nxt = [pc + 16] if pc + 16 in code else []
        tg = [o.target for o in ins.operands if isinstance(o, Label) and o.target in code]
        conditional = si.guarded or any(
            isinstance(o, Reg) and o.is_pred and not o.is_zero for o in ins.operands
        )
        if op == "EXIT" or op == "KILL":
            s = nxt if si.guarded else []
        elif op == "BRA":
            s = tg + (nxt if conditional or not tg else [])
        elif op in ("BRX", "JMX"):
            s = [-1] + (nxt if si.guarded else [])  # the table's targets: resolved below
        elif op == "CALL" and any(isinstance(o, Reg) and not o.is_pred for o in ins.operands):
            # CALL.REL.NOINC R22 `(kernel): an indirect call (its label is the function's start,
            # which the register is relative to): resolved below
            s = [-2]
        elif op == "CALL":
            s = tg + (nxt if not tg else [])
        elif op == "RET":
            s = returns + (nxt if si.guarded else [])
        else:
            s = nxt
        out[pc] = list(dict.fromkeys(s))
    if any(-1 in v or -2 in v for v in out.values()):
        # An indirect branch's targets live in a constant-bank table, an indirect call's in a
        # register: they are the code that nothing else reaches (after an unconditional
        # transfer, no branch to it); for a branch every label if there is none, for a call
        # its return site (the callees are functions of their own: their RET comes back)
        reached = {t for v in out.values() for t in v}
        entry = min(code) if code else 0
        orphans = [pc for pc in code if pc not in reached and pc != entry]
        for pc, v in out.items():
            if -1 in v:
                targets = orphans or [t for t in labels if t in code]
                out[pc] = [t for t in v if t != -1] + [t for t in targets if t not in v]
            if -2 in v:
                targets = orphans or ([pc + 16] if pc + 16 in code else [])
                out[pc] = [t for t in v if t != -2] + [t for t in targets if t not in v]
    _returns_of_callers(code, out)
    return out


def _returns_of_callers(code: Mapping[int, StaticInstr], out: dict[int, list[int]]) -> None:
    """A ``RET`` comes back only to the return sites of the calls to its own function.

    A direct callee's function is what its entry reaches without entering another call (a call
    goes on at its return site). Joining every ``RET`` to every return site of the section made
    paths that never run: on sm_80, ``MUFU.RSQ R9 [W0]`` of one division subroutine reached,
    through another call's return site, a read of R9 that the right return site waits for
    (t2/f32_rounding). A ``RET`` that no direct callee reaches (an indirect call's callee) keeps
    every return site.
    """
    callers: dict[int, list[int]] = {}
    for pc, si in code.items():
        if si.ins.opcode == "CALL" and pc + 16 in code:
            for o in si.ins.operands:
                if isinstance(o, Label) and o.target in code:
                    callers.setdefault(o.target, []).append(pc + 16)

    def falls_through(pc: int) -> list[int]:
        return [pc + 16] if code[pc].guarded and pc + 16 in code else []

    owners: dict[int, set[int]] = {}
    for entry in callers:
        seen = {entry}
        work = [entry]
        while work:
            pc = work.pop()
            op = code[pc].ins.opcode
            if op == "RET":
                owners.setdefault(pc, set()).add(entry)
                nxt = falls_through(pc)
            elif op == "CALL" and pc + 16 in code:
                nxt = [pc + 16]
            else:
                nxt = out[pc]
            for t in nxt:
                if t not in seen:
                    seen.add(t)
                    work.append(t)
    for pc, entries in owners.items():
        out[pc] = sorted({r for e in entries for r in callers[e]}) + falls_through(pc)


def blocks(
    code: Mapping[int, StaticInstr], succ: Mapping[int, list[int]]
) -> tuple[list[list[int]], dict[int, int]]:
    pcs = sorted(code)
    leaders = {pcs[0]} if pcs else set()
    for pc in pcs:
        s = succ[pc]
        if s != [pc + 16]:
            leaders.update(s)
            if pc + 16 in code:
                leaders.add(pc + 16)
    out: list[list[int]] = []
    for pc in pcs:
        if pc in leaders or not out:
            out.append([])
        out[-1].append(pc)
    index = {b[0]: i for i, b in enumerate(out)}
    return out, index


# -- the checker ------------------------------------------------------------------------------


@dataclass
class StaticResult:
    reports: list[Hazard] = field(default_factory=list)
    instructions: int = 0
    undecoded: int = 0
    fallback: int = 0
    # record mode: (producer class, consumer class, role, producer pc, consumer pc) -> distance
    observed: dict[tuple[str, str, str, int, int], int] = field(default_factory=dict)
    # record mode: (reader class, reader pc, writer pc) -> distance of an unwaited overwrite
    observed_reads: dict[tuple[str, int, int], int] = field(default_factory=dict)
    # record mode: (reader class, writer class, reader pc, writer pc) -> distance from a
    # fixed-latency reader to a writer of one of its sources (scripts/war_mine.py)
    observed_war: dict[tuple[str, str, int, int], int] = field(default_factory=dict)
    # record mode: (barrier pc, memory access pc) -> cycles from the CTA barrier to the access
    observed_barrier: dict[tuple[int, int], int] = field(default_factory=dict)
    # explain: (producer pc, consumer pc, row) at exactly the model's distance; the waits needed
    tight: set[tuple[int, int, int]] = field(default_factory=set)
    needed_waits: set[tuple[int, int, int, int]] = field(default_factory=set)


class StaticChecker:
    """Checks (or with ``record``, measures) one function's control codes on every path."""

    def __init__(
        self, model: LatencyModel | None = None, record: bool = False, explain: bool = False
    ) -> None:
        self.model = model if model is not None else default_latency_model()
        self.record = record
        self.explain = explain

    def check_kernel(self, module: Module, k: Kernel) -> StaticResult:
        code, undecoded, fallback = static_instructions(module, k, self.model)
        res = StaticResult(instructions=len(code), undecoded=undecoded, fallback=fallback)
        if undecoded:
            return res  # a function with undecodable words is counted, not checked
        self.run(code, res)
        return res

    def run(self, code: Mapping[int, StaticInstr], res: StaticResult) -> None:
        succ = successors(code)
        bl, index = blocks(code, succ)
        preds: dict[int, list[int]] = {i: [] for i in range(len(bl))}
        bsucc: dict[int, list[int]] = {}
        for i, b in enumerate(bl):
            bsucc[i] = [index[s] for s in succ[b[-1]] if s in index]
            for j in bsucc[i]:
                preds[j].append(i)
        outs: dict[int, State] = {}
        work = sorted(range(len(bl)))
        inq = set(work)
        rounds = 0
        while work:
            i = work.pop(0)
            inq.discard(i)
            rounds += 1
            st = join(outs[p] for p in preds[i] if p in outs)
            new = self._block(code, bl[i], st, None)
            if outs.get(i) != new:
                outs[i] = new
                for j in bsucc[i]:
                    if j not in inq:
                        work.append(j)
                        inq.add(j)
            if rounds > 200 * len(bl) + 1000:
                raise RuntimeError("static hazard check: no fixed point")
        seen: dict[tuple[int, str, str], Hazard] = {}
        for i, b in enumerate(bl):
            st = join(outs[p] for p in preds[i] if p in outs)
            self._block(code, b, st, (res, seen))

    # one block; with ``out`` (result, report index) check/record, else only transfer
    def _block(
        self,
        code: Mapping[int, StaticInstr],
        pcs: list[int],
        st: State,
        out: tuple[StaticResult, dict[tuple[int, str, str], Hazard]] | None,
    ) -> State:
        model = self.model
        reach = model.reach
        for pc in pcs:
            si = code[pc]
            ins = si.ins
            ctl = ins.control
            stall = max(ctl.stall, 1)
            op = ins.opcode
            # waits and dependency barriers complete before the instruction reads
            waits = [k for k in range(NSB) if ctl.wait >> k & 1]
            if out is not None and self.explain and waits:
                for row, _role in si.access.reads:
                    for (sb, ppc), _v in st.sbw.get(row, {}).items():
                        if sb in waits:
                            out[0].needed_waits.add((pc, sb, ppc, row))
            for k in waits:
                _complete(st, k, 0)
            if op == "DEPBAR":
                sbs = [o for o in ins.operands if isinstance(o, Reg) and o.file.value == "SB"]
                cnt = [o for o in ins.operands if isinstance(o, Imm)]
                if sbs:
                    _complete(st, sbs[0].index, cnt[0].value if cnt else 0)
            if op == "WARPGROUP" and "DEPBAR" in ins.mods:
                cnt = [o for o in ins.operands if isinstance(o, Imm)]
                _complete(st, GSB, cnt[0].value if cnt else 0)
            if out is not None:
                self._check(code, si, st, out)
            self._transfer(code, si, st)
            _advance(st, stall, reach)
        return st

    def _check(
        self,
        code: Mapping[int, StaticInstr],
        si: StaticInstr,
        st: State,
        out: tuple[StaticResult, dict[tuple[int, str, str], Hazard]],
    ) -> None:
        res, seen = out
        model = self.model
        pc, ins = si.pc, si.ins
        gmma = ins.opcode in GMMA

        def report_at(rule: str, where: str, detail: str) -> None:
            """``where``: a register, or "-" for the issue and barrier gaps (they name none)."""
            key = (pc, rule, where)
            if key not in seen and not self.record:
                h = Hazard(pc, str(ins), rule, where, detail, 1)
                seen[key] = h
                res.reports.append(h)

        def report(rule: str, row: int, detail: str) -> None:
            report_at(rule, row_name(row), detail)

        gap = model.gap(ins.opcode, ins.mods)
        if ins.control.stall < gap:
            # (DEPBAR.LE waits for its groups only 4 cycles after issue, BAR.RED 6, ...)
            report_at("issue-gap", "-", f"stall {ins.control.stall} < {gap}")
        if ins.opcode in model.barrier_readers:
            for (bpc,), (age, _gv) in st.fixed.get(BAR_ROW, {}).items():
                if self.record:
                    bk = (bpc, pc)
                    res.observed_barrier[bk] = min(age, res.observed_barrier.get(bk, 1 << 30))
                if age < model.barrier_gap:
                    report_at("barrier-gap", "-", f"{age} cycles after the barrier at {bpc:#06x}")

        def apart(ppc: int, gv: int) -> bool:
            """The producer at ``ppc`` and this instruction never both execute (opposite
            guards on a predicate not written in between)."""
            return gv == 1 and _disjoint(code[ppc].guard, si.guard)

        mine = _gcode(si.guard)

        def under(cov: int, cond: int) -> bool:
            """Whether an in-order entry applies to this instruction's guard."""
            if cov >= 0 and cond >= 0:
                return cond == mine
            mask = cond if cov == -1 else -cond - 2 if cond <= -2 else 0
            return not (mine >= 0 and mask >> mine & 1)

        reads = list(si.access.reads)
        if si.guard_row is not None:
            reads.insert(0, (si.guard_row, "guard"))
        for row, role in reads:
            for (sb, ppc), (_pos, gv) in st.sbw.get(row, {}).items():
                if (sb == GSB and gmma) or apart(ppc, gv):
                    continue
                what = "WARPGROUP.DEPBAR on gsb0" if sb == GSB else f"a wait on SB{sb}"
                report("raw-scoreboard", row, f"read before {what} (producer at {ppc:#06x})")
            timed: list[tuple[int, int, int, int, int]] = [
                (key[0], -1, 0, v[0], v[1]) for key, v in st.fixed.get(row, {}).items()
            ]
            timed += [(*key, v[0], v[2]) for key, v in st.ino.get(row, {}).items()]  # type: ignore[misc]
            for ppc, cov, cond, age, gv in timed:
                if age >= model.reach or apart(ppc, gv) or not under(cov, cond):
                    continue
                pk = code[ppc].cls
                if row in code[ppc].uppers:
                    pk += UPPER  # an upper result register: written later than the first
                if self.record:
                    # (a covered result still pending: its scoreboard was not waited on, ptxas
                    # relied on the time)
                    self._observe(res, pk, si.cls, role, ppc, pc, age)
                    continue
                variable = model.is_variable(code[ppc].ins.opcode)
                need = model.bound(pk, role, si.cls)
                if variable and need is None:
                    # a variable-latency result without a write scoreboard, of a kind ptxas
                    # never times by stall counts alone
                    report(
                        "raw-scoreboard", row,
                        f"read before a wait on SB{cov} (producer at {ppc:#06x})" if cov >= 0
                        else f"read the result of {pk} at {ppc:#06x}, which has no write "
                        "scoreboard",
                    )  # fmt: skip
                    continue
                if need is None:
                    need = model.need(pk, si.cls, role)  # a fixed-latency class never seen
                if self.explain and age == need and cov == -1:
                    res.tight.add((ppc, pc, row))
                if age < need:
                    report(
                        "raw-scoreboard" if cov >= 0 else "raw-latency", row,
                        f"read {age} cycles after {pk} at {ppc:#06x} wrote it (needs {need}"
                        + (f" or a wait on SB{cov})" if cov >= 0 else ")"),
                    )  # fmt: skip
        for row in si.access.writes:
            for (rpc,), (age,) in st.fr.get(row, {}).items():
                if self.record:
                    wk = (code[rpc].cls, si.cls, rpc, pc)
                    res.observed_war[wk] = min(age, res.observed_war.get(wk, 1 << 30))
                    continue
                need = model.war_bound(code[rpc].cls, si.cls)
                if age < need:
                    report(
                        "war-latency", row,
                        f"overwritten {age} cycles after {code[rpc].cls} at {rpc:#06x} "
                        f"read it (needs {need}: the write may land before the read)",
                    )  # fmt: skip
        if ins.control.wr is not None or self._unit(ins.opcode) is not None or gmma:
            return
        for row in si.access.writes:
            for (sb, rpc), (_pos, age) in st.rd.get(row, {}).items():
                rk = code[rpc].cls
                if self.record:
                    k = (rk, rpc, pc)
                    res.observed_reads[k] = min(age, res.observed_reads.get(k, 1 << 30))
                    continue
                win = model.check_read_window(rk)
                if age < win:
                    report(
                        "war-scoreboard", row,
                        f"overwritten {age} cycles after {rk} at {rpc:#06x} started reading it "
                        f"through SB{sb}, without a wait (needs a wait or {win} cycles)",
                    )  # fmt: skip
            for (sb, ppc), (_pos, gv) in st.sbw.get(row, {}).items():
                if apart(ppc, gv):
                    continue
                report(
                    "waw-scoreboard", row,
                    f"overwritten before a wait on {'gsb0' if sb == GSB else f'SB{sb}'}: the "
                    f"result of the instruction at {ppc:#06x} is still due",
                )  # fmt: skip
            for (ppc, cov, cond), (age, _p, gv) in st.ino.get(row, {}).items():
                pk = code[ppc].cls
                if self.record or apart(ppc, gv) or not under(cov, cond):
                    continue
                if age >= model.check_own(pk):
                    continue
                report(
                    "waw-scoreboard", row,
                    f"overwritten before the result of {pk} at {ppc:#06x} (no write "
                    "scoreboard) is due",
                )  # fmt: skip

    def _unit(self, opcode: str) -> str | None:
        return self.model.unit(opcode) if self.model.is_variable(opcode) else None

    def _observe(
        self, res: StaticResult, pk: str, ck: str, role: str, ppc: int, pc: int, age: int
    ) -> None:
        k = (pk, ck, role, ppc, pc)
        if age < res.observed.get(k, 1 << 30):
            res.observed[k] = age

    def _transfer(self, code: Mapping[int, StaticInstr], si: StaticInstr, st: State) -> None:
        ins, pc = si.ins, si.pc
        ctl = ins.control
        op = ins.opcode
        kill = not si.guarded
        writes = si.access.writes
        if ctl.rd is not None:
            _bump(st, ctl.rd)
            for row, _role in si.access.reads:
                if row < UR_ROW0:  # uniform sources are read at issue
                    st.rd.setdefault(row, {})[(ctl.rd, pc)] = (0, 0)
            if op in PRED_ON_READ:
                # a predicate result due with the read scoreboard (emu/hazards.py)
                early = tuple(r for r in writes if r >= PRED_BASE)
                for row in early:
                    _kill(st, row, kill)
                    st.sbw.setdefault(row, {})[(ctl.rd, pc)] = (0, 1)
                writes = tuple(r for r in writes if r < PRED_BASE)
        if self.model.is_barrier(op, ins.mods):
            st.fixed[BAR_ROW] = {(pc,): (0, 1)}  # memory accesses keep barrier_gap from it
        done_units = self.model.completes_units(op, ins.mods)
        if done_units and not si.guarded:
            for row in list(st.ino):
                ent = st.ino[row]
                for key in [k for k in ent if self._unit(code[k[0]].ins.opcode) in done_units]:
                    del ent[key]
                if not ent:
                    del st.ino[row]
        # predicates written: producers guarded by them no longer have a known guard
        for row in writes:
            if row >= PRED_BASE:
                _forget_guard(code, st, row)
        if op in GMMA:
            ends = any(isinstance(o, Keyword) and o.name == "gsb0" for o in ins.operands)
            for row in writes:
                _kill(st, row, kill)
                st.sbw.setdefault(row, {})[(GSB, pc)] = (-1, 1)
            if ends:
                _bump(st, GSB)
            return
        unit = self._unit(op)
        if ctl.wr is not None:
            k = ctl.wr
            _bump(st, k)
            if unit is not None:
                # earlier results of the unit without a scoreboard complete with this one (on
                # the paths where it executes: unguarded, or under the producer's guard)
                g = _gcode(si.guard)
                for ent in st.ino.values():
                    for (ppc, cov, cond), v in list(ent.items()):
                        p = code[ppc]
                        if cov != -1 or self._unit(p.ins.opcode) != unit:
                            continue
                        if not si.guarded or (v[2] == 1 and p.guard == si.guard):
                            # covered wherever the producer executed (for the readers not
                            # covered under a guard already)
                            del ent[(ppc, cov, cond)]
                            _put(ent, (ppc, k, -cond - 2), (v[0], 0, v[2]))
                        elif not cond >> g & 1:
                            # covered for readers under this guard only
                            del ent[(ppc, cov, cond)]
                            _put(ent, (ppc, -1, cond | 1 << g), v)
                            _put(ent, (ppc, k, g), (v[0], 0, v[2]))
            for row in writes:
                _kill(st, row, kill)
                st.sbw.setdefault(row, {})[(k, pc)] = (0, 1)
        elif unit is not None:
            for row in writes:
                _kill(st, row, kill)
                st.ino.setdefault(row, {})[(pc, -1, 0)] = (0, 0, 1)
        else:
            for row in writes:
                _kill(st, row, kill)
                st.fixed.setdefault(row, {})[(pc,)] = (0, 1)
        if kill:
            for row in writes:
                st.rd.pop(row, None)
                st.fr.pop(row, None)
        if (self.record or si.cls in self.model.war_readers) and self.model.reads_at_issue(op):
            for row, _role in si.access.reads:
                st.fr.setdefault(row, {})[(pc,)] = (0,)
            if si.guard_row is not None:
                st.fr.setdefault(si.guard_row, {})[(pc,)] = (0,)


def _gcode(g: tuple[int, bool] | None) -> int:
    return -1 if g is None else 2 * (g[0] - PRED_BASE) + int(g[1])


def _put(
    ent: dict[tuple[int, ...], tuple[int, ...]], key: tuple[int, ...], v: tuple[int, ...]
) -> None:
    old = ent.get(key)
    ent[key] = v if old is None else _wmin(old, v)


def _disjoint(a: tuple[int, bool] | None, b: tuple[int, bool] | None) -> bool:
    return a is not None and b is not None and a[0] == b[0] and a[1] != b[1]


def _wmin(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(min(x, y) for x, y in zip(a, b, strict=True))


def _forget_guard(code: Mapping[int, StaticInstr], st: State, prow: int) -> None:
    bits = 3 << 2 * (prow - PRED_BASE)
    for ent in st.ino.values():
        for key, v in list(ent.items()):
            ppc, cov, cond = key
            if cov == -1 and cond & bits:
                # the guards a coverage depended on changed: uncovered again for those readers
                del ent[key]
                _put(ent, (ppc, -1, cond & ~bits), v)
            elif cov >= 0 and cond >= 0 and cond >> 1 == prow - PRED_BASE:
                del ent[key]
            elif cov >= 0 and cond <= -2 and (-cond - 2) & bits:
                del ent[key]
                _put(ent, (ppc, cov, -((-cond - 2) & ~bits) - 2), v)
    for d in (st.fixed, st.ino, st.sbw):
        for ent in d.values():
            for key, v in ent.items():
                ppc = key[0] if d is not st.sbw else key[1]
                g = code[ppc].guard
                if v[-1] == 1 and g is not None and g[0] == prow:
                    ent[key] = (*v[:-1], 0)


def _kill(st: State, row: int, kill: bool) -> None:
    if kill:
        for d in st.parts()[:3]:
            d.pop(row, None)


def _bump(st: State, sb: int) -> None:
    """An instruction set scoreboard ``sb``: every pending entry on it has one newer setter."""
    for d in (st.sbw, st.rd):
        for ent in d.values():
            for key, v in list(ent.items()):
                if key[0] == sb:
                    ent[key] = (min(v[0] + 1, POS_CAP), *v[1:])
    for ent in st.ino.values():
        for key, v in list(ent.items()):
            if key[1] == sb:
                ent[key] = (v[0], min(v[1] + 1, POS_CAP), v[2])


def _complete(st: State, sb: int, n: int) -> None:
    """A wait on ``sb`` (n = 0) or ``DEPBAR.LE sb, n``: entries with >= n newer setters done."""
    for d, si, pi in ((st.sbw, 0, 0), (st.rd, 0, 0), (st.ino, 1, 1)):
        for row in list(d):
            ent = d[row]
            for key in [k for k, v in ent.items() if k[si] == sb and v[pi] >= n]:
                del ent[key]
            if not ent:
                del d[row]


def _advance(st: State, cycles: int, reach: int) -> None:
    for row in list(st.fixed):
        ent = st.fixed[row]
        for key, (age, gv) in list(ent.items()):
            if age + cycles >= reach:
                del ent[key]
            else:
                ent[key] = (age + cycles, gv)
        if not ent:
            del st.fixed[row]
    for ent in st.ino.values():
        for key, (age, pos, gv) in list(ent.items()):
            ent[key] = (min(age + cycles, reach), pos, gv)
    for row in list(st.rd):
        ent = st.rd[row]
        for key, (pos, age) in list(ent.items()):
            if age + cycles >= reach:
                del ent[key]
            else:
                ent[key] = (pos, age + cycles)
        if not ent:
            del st.rd[row]
    for row in list(st.fr):
        ent = st.fr[row]
        for key, (age,) in list(ent.items()):
            if age + cycles >= WAR_REACH:
                del ent[key]
            else:
                ent[key] = (age + cycles,)
        if not ent:
            del st.fr[row]


def check_module(
    module: Module, model: LatencyModel | None = None, record: bool = False
) -> dict[str, StaticResult]:
    """The static check of every kernel of a loaded module, by kernel name (``model``: default,
    the module's target's)."""
    if model is None:
        from openptxas.emu.hazards import latency_for

        model = latency_for(module.sm)
    ck = StaticChecker(model, record=record)
    return {name: ck.check_kernel(module, k) for name, k in sorted(module.kernels.items())}
