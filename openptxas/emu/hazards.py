"""The hazard checker: replays the control codes (stall counts, scoreboards) along the executed
path of every thread and reports each register access the hardware would not protect.
(``openptxas.emu.static_hazards`` applies the same rules to every path of a function's CFG.)

Model (sm_90, per thread, vectorised over lanes), with every number from the target family's
latency model (``openptxas.targets.latency.load_latency_model``, the one the compiler uses):

- Issue time: an instruction issues ``max(stall, 1)`` cycles after the previous one of the same
  thread (waiting on a scoreboard may delay it further; the checker does not count that delay, so
  it never hides a hazard).
- Fixed-latency producers (no write scoreboard): a consumer may read the result only once
  ``bound(producer class, role)`` cycles have passed since the producer issued (the latency
  model's lower bound for the checkers; the compiler schedules by ``need``, the distance ptxas
  keeps). Roles: ``data``, ``hi`` (an upper source register read later), ``late`` (a source of a
  late reader), ``pred``, ``guard`` (guard predicate or branch condition), ``addr`` (address or
  constant-bank index register), ``acc`` (an accumulated predicate, read at write-back).
- Variable-latency producers set a write scoreboard ``SBk``; their results may be read (or
  overwritten) only after an instruction waited on ``SBk`` (wait mask, or ``DEPBAR.LE SBk, n``
  which completes all but the newest ``n``). Scoreboards count: waiting on one waits for every
  instruction that set it.
- In-order units: a variable-latency result issued without a write scoreboard is covered by the
  write scoreboard of the next instruction of its unit that sets one (``LDS R4 [W-]; LDS R9
  [W0]``, ``SHFL``, ``POPC``, ``MUFU``, conversions, ...), or is ready once its class's latency
  has passed (ptxas times some by stalls); a class the model does not know is reported.
- Late readers set a read scoreboard ``SBk``: their source registers may be overwritten only
  after a wait on ``SBk`` or the reader's read window.

Rules reported (each report names the address, the instruction and the rule):
``raw-latency``, ``raw-scoreboard``, ``waw-scoreboard``, ``war-scoreboard``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from openptxas.emu.bind import PRED_BASE, UR_BASE, is_zero_row, pred_row
from openptxas.emu.lanes import Sel
from openptxas.emu.model import Imm, Instruction, Keyword, Reg
from openptxas.targets import default_latency_model
from openptxas.targets.latency import PRED_ON_READ, UPPER, LatencyModel, lat_key

if TYPE_CHECKING:
    from openptxas.emu.machine import Machine

NDArray = np.ndarray[Any, Any]
ROWS = PRED_BASE + 16
NSB = 6
# The warpgroup MMA group scoreboard (gsb0), kept as a seventh scoreboard: HGMMA/IGMMA results are
# due until ``WARPGROUP.DEPBAR.LE gsb0, n`` leaves at most n groups (each ended by the wgmma that
# carries ``gsb0``) outstanding. wgmma instructions themselves chain on pending results (the
# accumulator of the next one).
GSB = NSB
GMMA = frozenset({"HGMMA", "IGMMA", "QGMMA", "BGMMA"})

RULES = ("raw-latency", "raw-scoreboard", "waw-scoreboard", "war-scoreboard")


@dataclass
class Hazard:
    pc: int
    instruction: str
    rule: str
    register: str
    detail: str
    threads: int = 1

    def __str__(self) -> str:
        return (
            f"{self.pc:#06x}: {self.rule}: {self.register}: {self.detail} "
            f"[{self.instruction}] ({self.threads} thread{'s' if self.threads != 1 else ''})"
        )


def row_name(row: int) -> str:
    if row >= PRED_BASE:
        p = row - PRED_BASE
        return f"UP{p - 8}" if p >= 8 else f"P{p}"
    if row >= 256:
        return f"UR{row - 256}"
    return f"R{row}"


def upper_rows(writes: tuple[int, ...]) -> frozenset[int]:
    """The upper registers of multi-register results among ``writes`` (R7 of IMAD.WIDE's
    R6:R7): written later than the first, they have latencies of their own (the producer key
    gets ``UPPER``, see openptxas.targets.latency)."""
    ws = set(writes)
    return frozenset(r for r in writes if r - 1 in ws and r < PRED_BASE)


@dataclass(frozen=True)
class Access:
    """The registers one instruction reads and writes (expanded to single rows)."""

    reads: tuple[tuple[int, str], ...]
    writes: tuple[int, ...]


def expand(reads: list[tuple[int, int, str]], writes: list[tuple[int, int]]) -> Access:
    rs: list[tuple[int, str]] = []
    for row, n, role in reads:
        for i in range(n):
            # the upper registers of a multi-register source (``hi``: some readers take them
            # later, see LatencyModel.role)
            r = "hi" if i and role == "data" else role
            if not is_zero_row(row + i) and (row + i, r) not in rs:
                rs.append((row + i, r))
    ws: list[int] = []
    for row, n in writes:
        for i in range(n):
            if not is_zero_row(row + i) and row + i not in ws:
                ws.append(row + i)
    return Access(tuple(rs), tuple(ws))


def latency_for(sm: int) -> LatencyModel:
    """The latency model of a cubin's target (``sm``: the ELF header's), its family's mined one
    (targets/data/sm_XX_latency.toml)."""
    from openptxas.diag import OpenPtxasError
    from openptxas.emu.errors import EmuLoadError
    from openptxas.targets import get_target

    try:
        return get_target(f"sm_{sm}").latency
    except OpenPtxasError as exc:
        raise EmuLoadError(
            f"cannot check the control codes of a cubin for sm_{sm}: {exc}"
        ) from None


class HazardChecker:
    """Per-lane scoreboard and latency state for one wave; see the module docstring.

    ``record``: instead of checking fixed latencies, collect the observed minimum distances
    (as ``scripts/hazards_mine.py`` does statically).
    """

    def __init__(self, model: LatencyModel | None = None, record: bool = False) -> None:
        self.model = model if model is not None else default_latency_model()
        self.record = record
        # (producer class, consumer class, role, producer pc, consumer pc) -> minimum distance
        self.observed: dict[tuple[str, str, str, int, int], int] = {}
        self.observed_reads: dict[str, int] = {}
        # explain=True: where the schedule is tight (for the mutation tests)
        self.explain = False
        self.tight: set[tuple[int, int, int]] = set()  # (producer pc, consumer pc, row)
        self.needed_waits: set[tuple[int, int, int, int]] = set()  # (consumer, SB, producer, row)
        self.reports: list[Hazard] = []
        self._seen: dict[tuple[int, str, str], Hazard] = {}
        self._keys: list[str] = []
        self._unscored: list[bool] = []  # per class: variable latency, absent from the table
        self._key_ids: dict[str, int] = {}
        self._pipes: list[str] = []
        self._in_order_rows: dict[str, set[int]] = {}
        self._rows: list[int] = []  # compact row -> register row
        self._row_ids: dict[int, int] = {}
        self.L = 0
        self.lane = np.arange(0)
        self._alloc(16)

    # -- state -----------------------------------------------------------------------------
    # Per (register, lane) state, over the registers the kernel's instructions touch only:
    # compact row numbers, given out as instructions are bound (``_row``).
    _STATE = (
        ("w_cls", np.int32, -1),  # fixed-latency producer class, -1: none
        ("w_t", np.int64, 0),
        ("w_pc", np.int64, 0),
        ("pw_sb", np.int8, -1),  # pending variable write (-2: on the next in-order scoreboard)
        ("pw_pipe", np.int8, 0),
        ("pw_seq", np.int64, 0),
        ("pw_pc", np.int64, 0),
        ("pr_sb", np.int8, -1),  # pending late read
        ("pr_seq", np.int64, 0),
        ("pr_pc", np.int64, 0),
        ("pr_t", np.int64, 0),
        ("pr_cls", np.int32, 0),
        ("fr_cls", np.int32, -1),  # the last fixed-latency reader (model.war), -1: none
        ("fr_t", np.int64, 0),
        ("fr_pc", np.int64, 0),
    )

    w_cls: NDArray
    w_t: NDArray
    w_pc: NDArray
    pw_sb: NDArray
    pw_pipe: NDArray
    pw_seq: NDArray
    pw_pc: NDArray
    pr_sb: NDArray
    pr_seq: NDArray
    pr_pc: NDArray
    pr_t: NDArray
    pr_cls: NDArray
    fr_cls: NDArray
    fr_t: NDArray
    fr_pc: NDArray

    def reset(self, m: Machine) -> None:
        L = m.L
        if L != self.L:
            self.L = L
            self.lane = np.arange(L)
            self._alloc(max(16, len(self._rows)))
        else:
            for name, _dt, fill in self._STATE:
                getattr(self, name).fill(fill)
        self.cycle = np.zeros(L, dtype=np.int64)
        self.bar_t = np.full(L, -(1 << 40), dtype=np.int64)  # issue of each lane's last barrier
        self.sb_issued = np.zeros((NSB + 1, L), dtype=np.int64)
        self.sb_done = np.zeros((NSB + 1, L), dtype=np.int64)

    def _alloc(self, cap: int) -> None:
        for name, dt, fill in self._STATE:
            a = np.full((cap, self.L), fill, dtype=dt)
            prev = getattr(self, name, None)
            if prev is not None and prev.shape[1] == self.L:
                a[: prev.shape[0]] = prev
            setattr(self, name, a)

    def _row(self, reg_row: int) -> int:
        """The compact row of a register row (``bind`` numbering, predicates from PRED_BASE)."""
        r = self._row_ids.get(reg_row)
        if r is None:
            r = len(self._rows)
            self._rows.append(reg_row)
            self._row_ids[reg_row] = r
            if r >= self.w_cls.shape[0]:
                self._alloc(2 * self.w_cls.shape[0])
        return r

    def key_id(self, k: str) -> int:
        i = self._key_ids.get(k)
        if i is None:
            i = len(self._keys)
            self._keys.append(k)
            self._key_ids[k] = i
            op = k.removesuffix(UPPER).partition(".")[0]
            self._unscored.append(self.model.is_variable(op) and not self.model.check_knows(k))
        return i

    def exit(self, sel: Sel) -> None:
        pass

    def sync(self, idx: NDArray, group: int) -> None:
        """Lanes released together from a barrier: their clocks meet at the latest one."""
        if idx.size:
            g = idx // group
            t = self.cycle[idx]
            order = np.argsort(g, kind="stable")
            gs, ts = g[order], t[order]
            starts = np.flatnonzero(np.concatenate(([True], gs[1:] != gs[:-1])))
            mx = np.maximum.reduceat(ts, starts)
            counts = np.diff(np.append(starts, gs.size))
            self.cycle[idx[order]] = np.repeat(mx, counts)

    # -- reports ---------------------------------------------------------------------------
    def report_at(
        self, pc: int, ins: Instruction, rule: str, where: str, detail: str, n: int
    ) -> None:
        """Report ``rule`` at ``pc`` about ``where`` (a register, or "-" for the issue and
        barrier gaps, which name none); ``n`` more threads for a report already made."""
        key = (pc, rule, where)
        h = self._seen.get(key)
        if h is not None:
            h.threads += n
            return
        h = Hazard(pc, str(ins), rule, where, detail, n)
        self._seen[key] = h
        self.reports.append(h)

    def report(self, pc: int, ins: Instruction, rule: str, row: int, detail: str, n: int) -> None:
        self.report_at(pc, ins, rule, row_name(self._rows[row]), detail, n)

    # -- the check -------------------------------------------------------------------------
    def wrap(
        self,
        pc: int,
        ins: Instruction,
        op: Callable[[Sel, int], None],
        access: Access,
        guard: Callable[[Sel], Sel | None] | None,
    ) -> Callable[[Sel, int], None]:
        model = self.model
        ctl = ins.control
        stall = max(ctl.stall, 1)
        wait = ctl.wait
        wr_sb = ctl.wr
        rd_sb = ctl.rd
        key = lat_key(ins.opcode, ins.mods)
        cls = self.key_id(key)
        uppers = upper_rows(access.writes)
        cls_hi = self.key_id(key + UPPER) if uppers else cls
        reads = [(self._row(r), model.role(ins.opcode, role)) for r, role in access.reads]
        g = ins.guard
        guard_row = None
        if not g.is_zero:
            guard_row = self._row(PRED_BASE + pred_row(Reg(g.file, g.index)))
        writes = [self._row(r) for r in access.writes]
        # ATOM's predicate result (did a generic ATOM.E act on global memory) is due with its
        # read scoreboard: ptxas branches on it after waiting for that one only
        early = [
            self._row(r) for r in access.writes if r >= PRED_BASE and ins.opcode in PRED_ON_READ
        ] if rd_sb is not None else []  # fmt: skip
        own_writes = [w for w in writes if w not in early]
        # the class each written row's readers are timed by
        wcls = {self._row(r): cls_hi if r in uppers else cls for r in access.writes}
        depbar: tuple[int, int] | None = None
        if ins.opcode == "DEPBAR":
            sbs = [o for o in ins.operands if isinstance(o, Reg) and o.file.value == "SB"]
            cnt = [o for o in ins.operands if isinstance(o, Imm)]
            if sbs:
                depbar = (sbs[0].index, cnt[0].value if cnt else 0)
        if ins.opcode == "WARPGROUP" and "DEPBAR" in ins.mods:
            cnt = [o for o in ins.operands if isinstance(o, Imm)]
            depbar = (GSB, cnt[0].value if cnt else 0)
        gmma = ins.opcode in GMMA
        ends_group = gmma and any(isinstance(o, Keyword) and o.name == "gsb0" for o in ins.operands)
        reach = model.reach
        pipe = model.unit(ins.opcode) if model.is_variable(ins.opcode) else None
        if pipe is not None and pipe not in self._pipes:
            self._pipes.append(pipe)
        pipe_id = self._pipes.index(pipe) if pipe is not None else -1
        if pipe is not None:
            self._in_order_rows.setdefault(pipe, set())
        wait_sbs = [k for k in range(NSB) if wait >> k & 1]
        done_units = [u for u in model.completes_units(ins.opcode, ins.mods) if u in self._pipes]
        war_pairs = bool(model.war)
        war_reader = key in model.war_readers and model.reads_at_issue(ins.opcode)
        # the issue and barrier gaps (LatencyModel.gap, barrier_gap; as the static checker)
        gap = model.gap(ins.opcode, ins.mods)
        bar_reader = ins.opcode in model.barrier_readers
        is_bar = model.is_barrier(ins.opcode, ins.mods)

        def check(sel: Sel, nw: int) -> None:
            idx = self.lane[sel] if isinstance(sel, slice) else sel
            t = self.cycle[idx]
            if ctl.stall < gap and not self.record:
                self.report_at(pc, ins, "issue-gap", "-", f"stall {ctl.stall} < {gap}", idx.size)
            if bar_reader and not self.record:
                near = (t - self.bar_t[idx]) < model.barrier_gap
                if near.any():
                    n = int(near.sum())
                    self.report_at(pc, ins, "barrier-gap", "-", "too soon after a barrier", n)
            if is_bar:
                self.bar_t[idx] = t
            gsel = sel if guard is None else guard(sel)
            gidx = (
                idx
                if guard is None
                else (
                    np.zeros(0, dtype=np.intp)
                    if gsel is None
                    else self.lane[gsel]
                    if isinstance(gsel, slice)
                    else gsel
                )
            )
            gt = t if guard is None else self.cycle[gidx]
            if self.explain and wait_sbs:
                # reads the wait protects: by the lanes whose guard holds
                for row, _role in reads:
                    sb = self.pw_sb[row, gidx]
                    for k in wait_sbs:
                        hit = (sb == k) & (self.pw_seq[row, gidx] > self.sb_done[k, gidx])
                        if hit.any():
                            j = int(np.flatnonzero(hit)[0])
                            self.needed_waits.add((pc, k, int(self.pw_pc[row, gidx[j]]), row))
            for k in wait_sbs:
                self.sb_done[k, idx] = self.sb_issued[k, idx]
            for u in done_units:
                # a CTA barrier completes the unit's results that have no scoreboard
                uid = self._pipes.index(u)
                for row in self._in_order_rows.get(u, ()):
                    done = (self.pw_sb[row, idx] == -2) & (self.pw_pipe[row, idx] == uid)
                    if done.any():
                        self.pw_sb[row, idx[done]] = -1
                        self.w_cls[row, idx[done]] = -1
            if depbar is not None:
                k, n = depbar
                self.sb_done[k, idx] = np.maximum(self.sb_done[k, idx], self.sb_issued[k, idx] - n)
            checks = [
                (row, "guard", idx, t) for row in ([guard_row] if guard_row is not None else [])
            ]
            checks += [(row, role, gidx, gt) for row, role in reads]
            for row, role, idx, t in checks:
                if idx.size == 0:
                    continue
                sb = self.pw_sb[row, idx]
                # (-2: a result of an in-order unit without a scoreboard: timed below, by its
                # class's latency, until a later scoreboard of its unit covers it)
                pend = (sb >= 0) & ((sb != GSB) | (not gmma))
                if pend.any():
                    sbc = np.where(sb >= 0, sb, 0).astype(np.intp)
                    bad = pend & (self.pw_seq[row, idx] > self.sb_done[sbc, idx])
                    alt = bad & (self.w_cls[row, idx] >= 0)
                    if alt.any() and not self.record:
                        # an in-order result covered by a later scoreboard of its unit: also
                        # ready once its own latency has passed
                        dist = t - self.w_t[row, idx]
                        for c in np.unique(self.w_cls[row, idx][alt]).tolist():
                            pk = self._keys[c]
                            b = model.bound(pk, role, key)
                            if b is not None:
                                ok = alt & (self.w_cls[row, idx] == c)
                                ok &= dist >= b
                                bad &= ~ok
                    if bad.any():
                        j = int(np.flatnonzero(bad)[0])
                        what = (
                            "WARPGROUP.DEPBAR on gsb0"
                            if sb[j] == GSB
                            else f"a wait on SB{int(sb[j])}"
                        )
                        self.report(
                            pc, ins, "raw-scoreboard", row,
                            f"read before {what} (producer at "
                            f"{int(self.pw_pc[row, idx[j]]):#06x})",
                            int(bad.sum()),
                        )  # fmt: skip
                pc_cls = self.w_cls[row, idx]
                fixed = (pc_cls >= 0) & (sb < 0)
                if self.record:
                    # a covered in-order result read before its scoreboard was waited on
                    sbc = np.where(sb >= 0, sb, 0).astype(np.intp)
                    fixed |= (
                        (pc_cls >= 0) & (sb >= 0) & (self.pw_seq[row, idx] > self.sb_done[sbc, idx])
                    )
                if fixed.any():
                    dist = t - self.w_t[row, idx]
                    for c in np.unique(pc_cls[fixed]).tolist():
                        pk = self._keys[c]
                        if self._unscored[c] and not self.record:
                            # a variable-latency result without a write scoreboard, of a kind
                            # ptxas never times by stall counts alone
                            sel_v = fixed & (pc_cls == c)
                            j = int(np.flatnonzero(sel_v)[0])
                            self.report(
                                pc, ins, "raw-scoreboard", row,
                                f"read the result of {pk} at {int(self.w_pc[row, idx[j]]):#06x}, "
                                "which has no write scoreboard",
                                int(sel_v.sum()),
                            )  # fmt: skip
                            continue
                        sel_c = fixed & (pc_cls == c) & (dist < reach)
                        if not sel_c.any():
                            continue
                        if self.record:
                            wpc = self.w_pc[row, idx]
                            for ppc in np.unique(wpc[sel_c]).tolist():
                                d = int(dist[sel_c & (wpc == ppc)].min())
                                sk = (pk, key, role, int(ppc), pc)
                                if d < self.observed.get(sk, 1 << 30):
                                    self.observed[sk] = d
                            continue
                        b = model.bound(pk, role, key)
                        need = model.need(pk, key, role) if b is None else b
                        if self.explain:
                            tight = sel_c & (dist == need)
                            if tight.any():
                                j = int(np.flatnonzero(tight)[0])
                                self.tight.add((int(self.w_pc[row, idx[j]]), pc, row))
                        bad = sel_c & (dist < need)
                        if bad.any():
                            j = int(np.flatnonzero(bad)[0])
                            self.report(
                                pc, ins, "raw-latency", row,
                                f"read {int(dist[j])} cycles after {pk} at "
                                f"{int(self.w_pc[row, idx[j]]):#06x} wrote it (needs {need})",
                                int(bad.sum()),
                            )  # fmt: skip
            idx, t = gidx, gt
            # A register overwritten before its last fixed-latency reader took it (model.war)
            for row in writes if war_pairs and not self.record else ():
                rc = self.fr_cls[row, idx]
                seen = rc >= 0
                if not seen.any():
                    continue
                dist = t - self.fr_t[row, idx]
                for c in np.unique(rc[seen]).tolist():
                    rk = self._keys[c]
                    need = model.war_bound(rk, key)
                    bad = seen & (rc == c) & (dist < need)
                    if bad.any():
                        j = int(np.flatnonzero(bad)[0])
                        self.report(
                            pc, ins, "war-latency", row,
                            f"overwritten {int(dist[j])} cycles after {rk} at "
                            f"{int(self.fr_pc[row, idx[j]]):#06x} read it (needs {need}: the "
                            "write may land before the read)",
                            int(bad.sum()),
                        )  # fmt: skip
            # Overwrites that land at once (fixed latency) must not beat a pending late read
            # or a pending variable-latency write of the same register.
            for row in writes if wr_sb is None and pipe is None and not gmma else ():
                if idx.size == 0:
                    break
                rs = self.pr_sb[row, idx]
                pend = rs >= 0
                if pend.any():
                    sbc = np.where(pend, rs, 0).astype(np.intp)
                    unwaited = pend & (self.pr_seq[row, idx] > self.sb_done[sbc, idx])
                    if unwaited.any():
                        dist = t - self.pr_t[row, idx]
                        for c in np.unique(self.pr_cls[row, idx][unwaited]):
                            rk = self._keys[int(c)]
                            sel_c = unwaited & (self.pr_cls[row, idx] == c)
                            if self.record:
                                d = int(dist[sel_c].min())
                                if d < self.observed_reads.get(rk, 1 << 30):
                                    self.observed_reads[rk] = d
                                continue
                            win = model.check_read_window(rk)
                            bad = sel_c & (dist < win)
                            if bad.any():
                                j = int(np.flatnonzero(bad)[0])
                                self.report(
                                    pc, ins, "war-scoreboard", row,
                                    f"overwritten {int(dist[j])} cycles after {rk} at "
                                    f"{int(self.pr_pc[row, idx[j]]):#06x} started reading it "
                                    f"through SB{int(rs[j])}, without a wait (needs a wait or "
                                    f"{win} cycles)",
                                    int(bad.sum()),
                                )  # fmt: skip
                ws = self.pw_sb[row, idx]
                pend = (ws != -1) & ((ws != GSB) | (not gmma))
                if pend.any():
                    sbc = np.where(ws >= 0, ws, 0).astype(np.intp)
                    bad = pend & ((ws == -2) | (self.pw_seq[row, idx] > self.sb_done[sbc, idx]))
                    inord = bad & (self.w_cls[row, idx] >= 0) & (ws != GSB)
                    if inord.any():
                        # an in-order result without its own scoreboard: written once its own
                        # latency has passed (whether or not a later scoreboard covers it)
                        own = np.array(
                            [model.check_own(self._keys[c]) if c >= 0 else 1 << 30
                             for c in self.w_cls[row, idx].tolist()],
                            dtype=np.int64,
                        )  # fmt: skip
                        bad &= ~(inord & ((t - self.w_t[row, idx]) >= own))
                    if bad.any() and not self.record:
                        j = int(np.flatnonzero(bad)[0])
                        self.report(
                            pc, ins, "waw-scoreboard", row,
                            f"overwritten before a wait on "
                            f"{'gsb0' if ws[j] == GSB else f'SB{int(ws[j])}'}: the result of the "
                            f"instruction at {int(self.pw_pc[row, idx[j]]):#06x} is still due",
                            int(bad.sum()),
                        )  # fmt: skip
            all_idx = self.lane[sel] if isinstance(sel, slice) else sel
            t_all = self.cycle[all_idx]
            op(sel, nw)
            # The instruction's own scoreboards and results (for the lanes that executed it).
            if rd_sb is not None:
                self.sb_issued[rd_sb, idx] += 1
                seq = self.sb_issued[rd_sb, idx]
                for row, _role in reads:
                    if self._rows[row] >= UR_BASE:
                        continue  # uniform sources are read at issue
                    self.pr_sb[row, idx] = rd_sb
                    self.pr_seq[row, idx] = seq
                    self.pr_pc[row, idx] = pc
                    self.pr_t[row, idx] = t
                    self.pr_cls[row, idx] = cls
                for row in early:
                    self.pw_sb[row, idx] = rd_sb
                    self.pw_seq[row, idx] = seq
                    self.pw_pc[row, idx] = pc
                    self.w_cls[row, idx] = -1
            if gmma:
                # due with the group this wgmma belongs to (ended by the next one with gsb0)
                seq = self.sb_issued[GSB, idx] + 1
                for row in own_writes:
                    self.pw_sb[row, idx] = GSB
                    self.pw_seq[row, idx] = seq
                    self.pw_pc[row, idx] = pc
                    self.w_cls[row, idx] = -1
                if ends_group:
                    self.sb_issued[GSB, idx] += 1
            elif wr_sb is not None:
                self.sb_issued[wr_sb, idx] += 1
                seq = self.sb_issued[wr_sb, idx]
                if pipe is not None:
                    # earlier loads of the pipe without a scoreboard complete with this one
                    for row in list(self._in_order_rows[pipe]):
                        waiting = (self.pw_sb[row, idx] == -2) & (self.pw_pipe[row, idx] == pipe_id)
                        if waiting.any():
                            li = idx[waiting]
                            self.pw_sb[row, li] = wr_sb
                            self.pw_seq[row, li] = seq[waiting]
                for row in own_writes:
                    self.pw_sb[row, idx] = wr_sb
                    self.pw_seq[row, idx] = seq
                    self.pw_pc[row, idx] = pc
                    self.w_cls[row, idx] = -1
            elif pipe is not None:
                for row in own_writes:
                    self.pw_sb[row, idx] = -2
                    self.pw_pipe[row, idx] = pipe_id
                    self.pw_pc[row, idx] = pc
                    self.w_cls[row, idx] = wcls[row]
                    self.w_t[row, idx] = t
                    self.w_pc[row, idx] = pc
                    self._in_order_rows[pipe].add(row)
            else:
                for row in own_writes:
                    self.pw_sb[row, idx] = -1
                    self.w_cls[row, idx] = wcls[row]
                    self.w_t[row, idx] = t
                    self.w_pc[row, idx] = pc
            if war_pairs:
                for row in own_writes:
                    self.fr_cls[row, idx] = -1
                if war_reader:
                    rows_read = [r for r, _role in reads]
                    if guard_row is not None:
                        rows_read.append(guard_row)
                    for row in rows_read:
                        self.fr_cls[row, idx] = cls
                        self.fr_t[row, idx] = t
                        self.fr_pc[row, idx] = pc
            self.cycle[all_idx] = t_all + stall

        return check
