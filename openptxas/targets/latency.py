"""The latency model of a target family (``data/<family>_latency.toml``): the one timing model
read by the compiler's control-code pass (``openptxas.sched.control``) and by the emulator's
hazard checkers (``openptxas.emu.hazards``, ``openptxas.emu.static_hazards``), so that both agree
on what "ready" means.

The model is structural, a description of what ptxas relies on:

- **Variable-latency opcodes** deliver their results through a write scoreboard; **late readers**
  read their sources after issue and release them through a read scoreboard.
- **In-order units**: a variable-latency result issued without a write scoreboard completes no
  later than the next instruction of its unit that sets one (``LDS R4 [W-]; LDS R9 [W0]``: a
  wait on SB0 covers both); until then it is ready only after its class's latency.
- **Fixed latencies per producer class**, pooled over every consumer: the cycles from a
  producer's issue to a reader's issue, per operand role (``data``: a register source, ``pred``:
  a predicate source, ``guard``: guard predicate or branch condition, ``addr``: an address or
  constant-bank index register, ``hi``: an upper source register that its reader takes later,
  ``late``: a data source of a late reader). A class absent from the model takes its pipe's
  latency (the classes of a pipe pooled), then the model's default.
- **Read windows**: how long after issue a late reader may still read a source that is
  overwritten without a wait on its read scoreboard.
- **Per consumer pipe** (``cross``): a result read by an instruction of another pipe, or the
  upper registers of a multi-register result, can need longer than the pooled latency. Per
  (producer pipe, consumer pipe, role), the smallest distance ptxas leaves; the producer
  pipe carries the suffix ``^`` for reads of upper result registers. On an H100, an IMAD
  result read by ISETP 4 cycles later is stale (the pooled fma latency is 4, set by IMAD ->
  IMAD; ptxas leaves IMAD -> ISETP at least 5 cycles, 12,729 sites), as is IMAD.WIDE's upper
  register read by SHF after 3 (scripts/gpu_stall_bisect.py).

Two numbers come out of it. ``need`` is the **compiler's requirement**: the smallest distance
ptxas was seen to use for the producer's pipe (or class), a number ptxas itself trusts.
``bound`` is the **checkers' lower bound**, built to hold on code the model was not mined from:

- a pipe's minimum for a role is taken as the requirement only where it is *strong* (at least
  ``strong_sites`` producer/consumer sites in ``strong_kernels`` kernels at that minimum);
  otherwise the pipe's **family** answers (``vector``, ``uniform``, ``stall``: the minimum over
  every pipe of the family), and a class without a pipe its own minimum;
- the roles are ordered (``CAPPED_BY``): a predicate source needs no more than a guard
  (``pred`` <= ``guard``), a later read no more than an ordinary one (``late``, ``hi`` <=
  ``data``), and a memory instruction's address no more than its data (``addr`` = ``late``):
  every minimum seen on the way for the role or one that caps it lowers the bound;
- the in-order variable-latency units that ptxas sometimes times by stalls (family ``stall``)
  never have a strong minimum (ptxas times them by stalls only where convenient): their bound is
  the lowest distance seen in the family for any role, at most ``stall_floor``;
- an accumulated predicate source (``R2UR.OR P0``: ``acc_readers``) is read when the result is
  written, so it has no issue-time requirement (``acc``: 1 cycle);
- a read window is the reader's own, at most ``read_floor`` (the smallest seen for any late
  reader; the compiler keeps the reader's own or the default).

The numbers are mined statically from ptxas's cubins (``scripts/hazards_mine.py``): the smallest
issue distance ptxas leaves on any path of any function of the corpus, with the evidence for
each value (sites, kernels, a sample location) kept in the file.
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources

ROLES = ("data", "hi", "late", "pred", "guard", "addr")
# A producer key with this suffix names the upper registers of a multi-register result
# (IMAD.WIDE's R7 of R6:R7): they are written later than the first (see ``cross``).
UPPER = "^"
# The roles whose requirement caps another's (in the checkers' bound): a predicate source needs
# no more than a guard; a read after issue (late, the upper half read later) no more than an
# ordinary source; a memory instruction reads its address and its data at the same stage (every
# pipe with evidence for both shows one number: alu 4, fmawide 5, umov 2, uniform 9, r2ur 13).
CAPPED_BY = {"pred": ("guard",), "late": ("data", "addr"), "hi": ("data",), "addr": ("late",)}


def lat_key(opcode: str, mods: tuple[str, ...]) -> str:
    """The class of an instruction in the latency model."""
    k = opcode
    if opcode in ("IMAD", "UIMAD", "HFMA2", "LDC", "ULDC", "CS2R"):
        for m in ("WIDE", "HI", "MMA", "64"):
            if m in mods:
                k += "." + m
    elif opcode == "HADD2" and "F32" in mods:
        k += ".F32"  # (a half to f32 conversion: it reads its source early, consumer_floor)
    return k


@dataclass(frozen=True)
class Evidence:
    """Where a latency comes from: the smallest distance ptxas used, at how many producer/reader
    sites in how many kernels, and one place it used it."""

    cycles: int
    sites: int = 0
    kernels: int = 0
    at: str = ""
    at_min: int = 0  # sites at exactly the minimum
    kernels_at_min: int = 0  # kernels with a site at exactly the minimum


@dataclass(frozen=True, eq=False)
class LatencyModel:
    family: str
    reach: int  # distance beyond which no fixed latency is left
    scoreboards: int  # write/read scoreboards per warp
    sb_setup: int  # cycles before a scoreboard just set may be waited on
    default: Mapping[str, int]  # role -> cycles, for a producer class the model does not know
    variable: frozenset[str]  # opcodes whose results arrive through a write scoreboard
    late_readers: frozenset[str]  # opcodes that release their sources through a read scoreboard
    units: Mapping[str, str]  # opcode -> in-order unit (variable-latency opcodes)
    pipes: Mapping[str, str]  # producer class -> pipe
    classes: Mapping[tuple[str, str], Evidence]  # (producer class, role) -> latency
    pipe_latency: Mapping[tuple[str, str], Evidence]  # (pipe, role) -> latency
    reads: Mapping[str, Evidence] = field(default_factory=dict)  # late reader -> read window
    hi_readers: frozenset[str] = frozenset()  # opcodes reading upper source registers later
    issue_readers: frozenset[str] = frozenset()  # variable-latency opcodes reading at issue
    issue_gap: Mapping[str, int] = field(default_factory=dict)  # opcode -> least stall after it
    barrier_gap: int = 0  # cycles from a CTA barrier to a memory access (barrier_readers)
    barriers: frozenset[str] = frozenset()  # the barriers it counts from ("BAR.SYNC": OP.MOD)
    barrier_readers: frozenset[str] = frozenset()
    barrier_units: frozenset[str] = frozenset()  # in-order units a CTA barrier completes
    default_read_window: int = 32  # a late reader absent from ``reads``
    note: str = ""
    # the checkers' lower bound (``bound``)
    families: Mapping[str, str] = field(default_factory=dict)  # pipe -> family
    evidence: Mapping[tuple[str, str], Evidence] = field(default_factory=dict)  # every level
    strong_sites: int = 3
    strong_kernels: int = 5
    stall_family: str = ""  # the family of in-order variable-latency units timed by stalls
    stall_floor: int = 0
    # (producer pipe, consumer class) -> the fewest cycles from the issue of a producer of the
    # pipe to that consumer's read of its result, for consumers that read earlier than the
    # pipe's other consumers ([model] consumer_floor)
    consumer_floor: Mapping[tuple[str, str], int] = field(default_factory=dict)
    acc_readers: frozenset[str] = frozenset()  # opcodes whose predicate source accumulates
    read_floor: int = 0  # the checkers' read window for any late reader, at most
    weak_pipes: frozenset[str] = frozenset()  # pipes whose minima the checkers never trust alone
    # the evidence the checkers need to raise a bound by a consumer pipe's minimum (sites and
    # kernels at the minimum): far more than ``strong``, a pair of pipes is a thin sample
    cross_sites: int = 50
    cross_kernels: int = 20
    # (producer pipe [+ UPPER], consumer pipe, role) -> latency
    cross: Mapping[tuple[str, str, str], Evidence] = field(default_factory=dict)
    # consumer-only classes (memory instructions, BAR) -> the pipe their reads are timed as
    consumer_pipes: Mapping[str, str] = field(default_factory=dict)
    # (reader class, writer class) -> (the fewest cycles from a fixed-latency reader's issue to
    # that of a writer of one of its source registers, the sites ptxas shows it at)
    # (sm_90_war.toml, scripts/war_mine.py)
    war: Mapping[tuple[str, str], tuple[int, int]] = field(default_factory=dict)

    # Memo tables, filled on first use. Fields, not functools.cached_property: mypyc compiles a
    # cached_property into a plain property (a compiled class has no instance __dict__), which
    # would recompute the value, and start an empty memo, on every access.
    # need() is asked for every operand of every instruction in every control-code pass
    _needs: dict[tuple[str, str, str], int] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _settled: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _need_bounds: dict[tuple[str, tuple[str, ...]], int] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _bounds: dict[tuple[str, str], int | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _derived: dict[str, frozenset[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def war_readers(self) -> frozenset[str]:
        """The reader classes with a write-after-read distance (the others need no tracking)."""
        got = self._derived.get("war_readers")
        if got is None:
            got = self._derived["war_readers"] = frozenset(r for r, _w in self.war)
        return got

    def reads_at_issue(self, opcode: str) -> bool:
        """A fixed-latency reader (no write or read scoreboard releases its sources): the
        readers the write-after-read distances apply to."""
        return not (self.is_variable(opcode) or self.is_late_reader(opcode))

    def war_need(self, reader: str, writer: str) -> int:
        """Cycles from ``reader``'s issue to that of a ``writer`` of one of its sources, for the
        compiler: a short-latency writer must not land before the reader has taken its
        operands (ULDC after ULEA: 3); 1 where ptxas shows no constraint."""
        return self.war.get((reader, writer), (1, 0))[0]

    def war_bound(self, reader: str, writer: str) -> int:
        """The same for the checkers, on overwhelming evidence only (``WAR_CHECK_SITES``): a
        pair's smallest distance over a few dozen sites is a habit of ptxas's scheduler, not a
        requirement (MOV -> UIADD3: 5 cycles over 28 sites, 1 in a Triton kernel)."""
        cycles, sites = self.war.get((reader, writer), (1, 0))
        return cycles if sites >= WAR_CHECK_SITES else 1

    def gap(self, opcode: str, mods: Iterable[str]) -> int:
        """The fewest cycles from an instruction's issue to the next one's (``issue_gap``, by
        opcode or opcode and modifier), 0 where ptxas's code shows no rule."""
        g = self.issue_gap
        if not g:
            return 0
        return max([g.get(opcode, 0), *(g.get(f"{opcode}.{m}", 0) for m in mods)])

    def is_barrier(self, opcode: str, mods: Iterable[str]) -> bool:
        """Whether the instruction is a CTA barrier that memory accesses keep ``barrier_gap``
        from."""
        return opcode in self.barriers or any(f"{opcode}.{m}" in self.barriers for m in mods)

    def consumer_pipe(self, consumer: str) -> str | None:
        """The pipe of ``consumer`` on the consumer side of ``cross``."""
        return self.pipes.get(consumer) or self.consumer_pipes.get(consumer)

    def role(self, consumer: str, role: str) -> str:
        """The role of a read: ``hi`` (an upper register of a multi-register source) stays
        ``hi`` only for the opcodes that read it later than the rest (``hi_readers``); a data
        source of a late reader (a store, a load, MUFU, ...: it reads after issue) is ``late``;
        the predicate source of an accumulating reader (``R2UR.OR P0``) is ``acc``."""
        if role == "pred" and consumer in self.acc_readers:
            return "acc"
        if role == "hi" and consumer in self.hi_readers:
            return "hi"
        if (
            role in ("hi", "data")
            and (consumer in self.variable or consumer in self.late_readers)
            and consumer not in self.issue_readers
        ):
            return "late"
        return "data" if role == "hi" else role

    def knows(self, producer: str) -> bool:
        if any(p == producer for p, _r in self.classes):
            return True
        pipe = self.pipes.get(producer)
        return pipe is not None and any(p == pipe for p, _r in self.pipe_latency)

    def _lookup(self, producer: str, role: str) -> Evidence | None:
        pipe = self.pipes.get(producer)
        if pipe is not None and pipe in self._pipe_names:
            return self.pipe_latency.get((pipe, role))
        return self.classes.get((producer, role))

    @property
    def _pipe_names(self) -> frozenset[str]:
        got = self._derived.get("pipe_names")
        if got is None:
            got = self._derived["pipe_names"] = frozenset(p for p, _r in self.pipe_latency)
        return got

    def need(self, producer: str, consumer: str, role: str) -> int:
        """Cycles from ``producer``'s issue to a ``consumer`` reading its result as ``role``.
        A producer class of a pipe takes the pipe's latency, pooled over consumers; a role
        without evidence (``hi``, ``pred``, ``addr``) that of an ordinary source; an unknown
        class the model's default. A consumer of another pipe, or a read of an upper result
        register (``producer`` ends in ``UPPER``), needs at least the crossing's latency."""
        key = (producer, consumer, role)
        got = self._needs.get(key)
        if got is None:
            base = producer.removesuffix(UPPER)
            got = self._need(base, role)
            x = self._crossing(producer, consumer, role)
            if x is not None and _enough(x):
                got = max(got, x.cycles)
            got = max(got, self._floor(producer, consumer, role))
            self._needs[key] = got
        return got

    def _crossing(self, producer: str, consumer: str, role: str) -> Evidence | None:
        """The evidence for ``producer``'s pipe read by ``consumer``'s pipe (the upper result
        registers apart), or None where the consumer's pipe is unknown."""
        if not self.cross or not consumer:
            return None
        cpipe = self.consumer_pipe(consumer)
        if cpipe is None:
            return None
        return self.cross.get((self.level(producer), cpipe, "pred" if role == "acc" else role))

    def level(self, producer: str) -> str:
        """The producer side of ``cross``: the class's pipe (the class itself without one),
        with ``UPPER`` kept for an upper result register."""
        base = producer.removesuffix(UPPER)
        return self.pipes.get(base, base) + producer[len(base) :]

    def _need(self, producer: str, role: str) -> int:
        if role == "acc":
            role = "pred"
        e = self._lookup(producer, role)
        data = self._lookup(producer, "data")
        if e is not None:
            if role in ("hi", "late") and data is not None:  # read later, never earlier
                return min(e.cycles, data.cycles)
            return e.cycles
        if role in ("hi", "late", "pred", "addr") and data is not None:
            # the pipe has too little evidence for the role: the class's own, if lower
            own_role = self.classes.get((producer, role))
            return min(data.cycles, own_role.cycles) if own_role is not None else data.cycles
        pipe = self.pipes.get(producer)
        own = [e.cycles for (p, _r), e in self.classes.items() if p == producer]
        own += [e.cycles for (p, _r), e in self.pipe_latency.items() if p == pipe]
        if own:
            return max(own)
        return self.default.get(role, max(self.default.values(), default=0))

    def settled(self, producer: str) -> int:
        """Cycles after which ``producer``'s result may be read by any instruction in any role
        (code compiled apart reads registers at once: calls and returns across objects)."""
        got = self._settled.get(producer)
        if got is None:
            base = producer.removesuffix(UPPER)
            got = max(self.need(base, "", r) for r in ("data", "late", "addr", "pred", "guard"))
            got = max(got, self._crossings_max(producer))
            self._settled[producer] = got
        return got

    def settled_for_call(self, producer: str) -> int:
        """Cycles after which ``producer``'s result may be read by code compiled apart that a
        ``CALL.ABS`` enters (vprintf, malloc): an ordinary source, address or predicate read,
        no crossing (ptxas leaves as little as 4 cycles from a MOV or IADD3 of an argument to
        the call: 1,640 and 338 sites over the oracle cache's cubins; ``settled``'s 29, the
        longest crossing of the ALU pipe, put 43 cycles of NOPs before each printf call)."""
        base = producer.removesuffix(UPPER)
        return max(self.need(base, "", r) for r in ("data", "late", "addr", "pred"))

    def need_bound(self, producer: str, roles: tuple[str, ...]) -> int:
        """An upper bound of ``need(producer, consumer, role)`` over every consumer and every
        role of ``roles`` (what the scheduler's graph may drop an edge against)."""
        key = (producer, roles)
        got = self._need_bounds.get(key)
        if got is None:
            base = producer.removesuffix(UPPER)
            got = max(self._need(base, r) for r in roles)
            got = max(got, self._crossings_max(producer, roles))
            self._need_bounds[key] = got
        return got

    def _crossings_max(self, producer: str, roles: tuple[str, ...] | None = None) -> int:
        """The longest crossing from ``producer``'s pipe (``level``) to any consumer pipe with
        enough evidence to count (``need``'s rule), for ``roles`` (None: every role); 0 if
        there is none."""
        level = self.level(producer)
        return max(
            (
                e.cycles
                for (lv, _c, r), e in self.cross.items()
                if lv == level and (roles is None or r in roles) and _enough(e)
            ),
            default=0,
        )

    def _strong(self, e: Evidence) -> bool:
        return e.at_min >= self.strong_sites and e.kernels_at_min >= self.strong_kernels

    def bound(self, producer: str, role: str, consumer: str = "") -> int | None:
        """The checkers' lower bound for a read of ``producer``'s result as ``role`` (cycles
        after its issue), or None where the model knows nothing of the class: the pipe's
        minimum where it is strong, else the family's; lowered by every minimum seen on the
        way for the role and for the role that caps it (``CAPPED_BY``). A crossing to
        ``consumer``'s pipe (see ``need``) raises it where its evidence is overwhelming
        (``cross_sites`` sites in ``cross_kernels`` kernels at the minimum: VOTEU -> IMAD is 6
        cycles at 48 sites in 8 kernels of the corpus, 2 in tests/compiler's warp kernel)."""
        base = producer.removesuffix(UPPER)
        key = (base, role)
        b = self._bounds[key] if key in self._bounds else self._bound(base, role)
        if b is not None and role != "acc" and self.pipes.get(base) not in self.weak_pipes:
            x = self._crossing(producer, consumer, role)
            if (
                x is not None
                and x.at_min >= self.cross_sites
                and (x.kernels_at_min >= self.cross_kernels)
            ):
                b = max(b, x.cycles)
            b = max(b, self._floor(producer, consumer, role))
        return b

    def _floor(self, producer: str, consumer: str, role: str) -> int:
        """``consumer_floor``: a data read by a consumer class that reads early."""
        if not self.consumer_floor or role not in ("data", "late"):
            return 0
        return self.consumer_floor.get((self.level(producer), consumer), 0)

    def _bound(self, producer: str, role: str) -> int | None:
        if role == "acc":
            return 1  # read when the result is written
        pipe = self.pipes.get(producer)
        levels = [producer] if pipe is None else [pipe, self.families.get(pipe, pipe)]
        stall = (
            pipe is not None
            and bool(self.stall_family)
            and (self.families.get(pipe) == self.stall_family)
        )
        cand: list[int] = []
        out: int | None = None
        for lv in dict.fromkeys(levels):
            e = self.evidence.get((lv, role))
            if e is not None:
                cand.append(e.cycles)
            for cap in CAPPED_BY.get(role, ()):
                c = self.evidence.get((lv, cap))
                if c is not None:
                    cand.append(c.cycles)
            if e is not None and not stall and lv not in self.weak_pipes and self._strong(e):
                out = min(cand)
                break
        if out is None:
            if stall:
                fam = self.families[pipe] if pipe is not None else ""
                cand += [e.cycles for (lv, _r), e in self.evidence.items() if lv == fam]
                cand.append(self.stall_floor)
            if not cand:
                # no evidence for the role: the class's lowest requirement for any role
                cand = [e.cycles for (lv, _r), e in self.evidence.items() if lv in levels]
            out = min(cand) if cand else None
        self._bounds[(producer, role)] = out
        return out

    def check_knows(self, producer: str) -> bool:
        """Whether the checkers can time ``producer``'s results at all."""
        return self.bound(producer, "data") is not None

    def check_own(self, producer: str) -> int:
        """The checkers' bound for ``producer``'s result being written."""
        b = self.bound(producer, "data")
        return 1 << 30 if b is None else b

    def worst(self, producer: str, role: str) -> int:
        """The requirement of ``producer`` for any reader in ``role``."""
        return self.need(producer, "", role)

    def own(self, producer: str) -> int:
        """Cycles until ``producer``'s result is written (its data latency)."""
        return self.need(producer, "", "data")

    def unit(self, opcode: str) -> str | None:
        return self.units.get(opcode)

    def completes_units(self, opcode: str, mods: tuple[str, ...]) -> frozenset[str]:
        """The in-order units whose pending results ``opcode`` completes (a CTA barrier)."""
        if opcode == "BAR" and ("SYNC" in mods or "RED" in mods):
            return self.barrier_units
        return frozenset()

    def is_variable(self, opcode: str) -> bool:
        return opcode in self.variable

    def is_late_reader(self, opcode: str) -> bool:
        return opcode in self.late_readers

    def read_window(self, reader: str) -> int:
        """Cycles after which a late reader (with a read scoreboard) has read its sources."""
        e = self.reads.get(reader)
        if e is not None:
            return e.cycles
        return self.default_read_window

    def check_read_window(self, reader: str) -> int:
        """The checkers' bound on a read window: the reader's own, at most ``read_floor`` (the
        smallest window seen for any late reader)."""
        w = self.read_window(reader)
        return min(w, self.read_floor) if self.read_floor else w


def _enough(e: Evidence) -> bool:
    """Evidence the compiler acts on (3 sites in 2 kernels); a thinner minimum is incidental."""
    return e.sites >= 3 and e.kernels >= 2


def _evidence(v: object) -> Evidence:
    if isinstance(v, int):
        return Evidence(v)
    assert isinstance(v, dict)
    return Evidence(int(v["cycles"]), int(v.get("sites", 0)), int(v.get("kernels", 0)),
                    str(v.get("at", "")), int(v.get("at_min", 0)),
                    int(v.get("kernels_at_min", 0)))  # fmt: skip


def parse_latency_model(text: str) -> LatencyModel:
    doc = tomllib.loads(text)
    meta = doc.get("model", {})
    classes: dict[tuple[str, str], Evidence] = {}
    for cls, roles in doc.get("class", {}).items():
        for role, v in roles.items():
            classes[(cls, role)] = _evidence(v)
    pipe_lat: dict[tuple[str, str], Evidence] = {}
    evidence: dict[tuple[str, str], Evidence] = dict(classes)
    for section in ("latency", "family_latency"):
        for level, roles in doc.get(section, {}).items():
            for role, v in roles.items():
                evidence[(level, role)] = _evidence(v)
    # the compiler's pipe latencies: a role with too little evidence (< 3 sites or < 2
    # kernels) takes the pipe's data latency
    for pipe, roles in doc.get("latency", {}).items():
        for role, v in roles.items():
            e = _evidence(v)
            if _enough(e):
                pipe_lat[(pipe, role)] = e
    return LatencyModel(
        family=str(meta.get("family", "")),
        reach=int(meta.get("reach", 64)),
        scoreboards=int(meta.get("scoreboards", 6)),
        sb_setup=int(meta.get("sb_setup", 2)),
        default={str(k): int(v) for k, v in meta.get("default", {}).items()},
        variable=frozenset(
            doc.get("variable", doc.get("declared_variable", {})).get("opcodes", ())
        ),
        late_readers=frozenset(doc.get("late_readers", {}).get("opcodes", ())),
        units={str(k): str(v) for k, v in doc.get("unit", {}).items()},
        pipes={str(k): str(v) for k, v in doc.get("pipe", {}).items()},
        classes=classes,
        pipe_latency=pipe_lat,
        reads={str(k): _evidence(v) for k, v in doc.get("read", {}).items()},
        note=str(doc.get("mined", {}).get("corpus", "")),
        hi_readers=frozenset(meta.get("hi_readers", ())),
        issue_readers=frozenset(meta.get("issue_readers", ())),
        issue_gap={
            **{str(k): int(v) for k, v in meta.get("issue_gap", {}).items()},
            **{str(k): _evidence(v).cycles for k, v in doc.get("issue_gap", {}).items()},
        },
        barrier_gap=_evidence(
            doc.get("barrier_gap", {}).get("cycles", meta.get("barrier_gap", {}).get("cycles", 0))
        ).cycles,
        barriers=frozenset(meta.get("barrier_gap", {}).get("after", ())),
        barrier_readers=frozenset(meta.get("barrier_gap", {}).get("readers", ())),
        barrier_units=frozenset(meta.get("barrier_units", ())),
        default_read_window=int(meta.get("read_window", 32)),
        families={str(k): str(v) for k, v in doc.get("family", {}).items()},
        evidence=evidence,
        strong_sites=int(meta.get("strong", {}).get("sites", 3)),
        strong_kernels=int(meta.get("strong", {}).get("kernels", 5)),
        stall_family=str(meta.get("stall_family", "")),
        weak_pipes=frozenset(meta.get("weak_pipes", ())),
        cross_sites=int(meta.get("cross_strong", {}).get("sites", 50)),
        cross_kernels=int(meta.get("cross_strong", {}).get("kernels", 20)),
        stall_floor=_evidence(meta.get("stall_floor", 0)).cycles,
        consumer_floor={
            (str(k).partition(">")[0], str(k).partition(">")[2]): _evidence(v).cycles
            for k, v in meta.get("consumer_floor", {}).items()
        },
        acc_readers=frozenset(meta.get("acc_readers", ())),
        read_floor=_evidence(meta.get("read_floor", 0)).cycles,
        cross={
            (str(k).partition(">")[0], str(k).partition(">")[2], str(role)): _evidence(v)
            for k, roles in doc.get("cross", {}).items()
            for role, v in roles.items()
        },
        consumer_pipes={str(k): str(v) for k, v in doc.get("consumer_pipe", {}).items()},
    )


# Opcodes whose predicate result is due with their read scoreboard, not their write one:
# ptxas branches on a generic ATOM.E's "acted on global memory" predicate after waiting for
# the read scoreboard only ("ATOM.E.ADD.F16x2 P0, RZ, ... [R0]; @P0 BRA [wait SB0]").
PRED_ON_READ = frozenset({"ATOM"})

# Write-after-read distances (LatencyModel.war) reach no further than this many cycles; the
# checkers hold code to a pair's distance when ptxas shows it at this many sites or more
# (ULEA -> ULDC: 362, found on an H100).
WAR_REACH = 16
WAR_CHECK_SITES = 300

# Targets -> the family whose model they use.
FAMILIES = {"sm_90": "sm_90", "sm_90a": "sm_90"}


@functools.cache
def load_latency_model(target: str = "sm_90") -> LatencyModel:
    """The latency model of ``target``'s family (one object per family: the compiler and the
    checkers share it)."""
    family = FAMILIES.get(target, target)
    if family != target:
        return load_latency_model(family)
    data = resources.files("openptxas.targets").joinpath("data")
    model = parse_latency_model(data.joinpath(f"{family}_latency.toml").read_text())
    war = data.joinpath(f"{family}_war.toml")
    if war.is_file():
        doc = tomllib.loads(war.read_text())
        pairs = {
            (str(k).partition(">")[0], str(k).partition(">")[2]): (
                int(v["cycles"]),
                int(v["sites"]),
            )
            for k, v in doc.get("war", {}).items()
        }
        model = dataclasses.replace(model, war=pairs)
    return model
