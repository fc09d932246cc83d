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

The numbers are mined statically from ptxas's cubins (``scripts/hazards_mine.py``): the smallest
issue distance ptxas leaves on any path of any function of the corpus, with the evidence for
each value (sites, kernels, a sample location) kept in the file.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

ROLES = ("data", "hi", "late", "pred", "guard", "addr")


def lat_key(opcode: str, mods: tuple[str, ...]) -> str:
    """The class of an instruction in the latency model."""
    k = opcode
    if opcode in ("IMAD", "UIMAD", "HFMA2", "LDC", "ULDC", "CS2R"):
        for m in ("WIDE", "HI", "MMA", "64"):
            if m in mods:
                k += "." + m
    return k


@dataclass(frozen=True)
class Evidence:
    """Where a latency comes from: the smallest distance ptxas used, at how many producer/reader
    sites in how many kernels, and one place it used it."""

    cycles: int
    sites: int = 0
    kernels: int = 0
    at: str = ""


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
    barrier_units: frozenset[str] = frozenset()  # in-order units a CTA barrier completes
    default_read_window: int = 32  # a late reader absent from ``reads``
    note: str = ""

    def role(self, consumer: str, role: str) -> str:
        """The role of a read: ``hi`` (an upper register of a multi-register source) stays
        ``hi`` only for the opcodes that read it later than the rest (``hi_readers``); a data
        source of a late reader (a store, a load, MUFU, ...: it reads after issue) is ``late``."""
        if role == "hi" and consumer in self.hi_readers:
            return "hi"
        if role in ("hi", "data") and (consumer in self.variable or consumer in self.late_readers):
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

    @functools.cached_property
    def _pipe_names(self) -> frozenset[str]:
        return frozenset(p for p, _r in self.pipe_latency)

    def need(self, producer: str, consumer: str, role: str) -> int:
        """Cycles from ``producer``'s issue to a ``consumer`` reading its result as ``role``
        (the model pools consumers: ``consumer`` does not change the answer). A producer class
        of a pipe takes the pipe's latency; a role without evidence (``hi``, ``pred``, ``addr``)
        that of an ordinary source; an unknown class the model's default."""
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


def _evidence(v: object) -> Evidence:
    if isinstance(v, int):
        return Evidence(v)
    assert isinstance(v, dict)
    return Evidence(int(v["cycles"]), int(v.get("sites", 0)), int(v.get("kernels", 0)),
                    str(v.get("at", "")))  # fmt: skip


def parse_latency_model(text: str) -> LatencyModel:
    doc = tomllib.loads(text)
    meta = doc.get("model", {})
    classes: dict[tuple[str, str], Evidence] = {}
    for cls, roles in doc.get("class", {}).items():
        for role, v in roles.items():
            classes[(cls, role)] = _evidence(v)
    pipe_lat: dict[tuple[str, str], Evidence] = {}
    for pipe, roles in doc.get("latency", {}).items():
        for role, v in roles.items():
            pipe_lat[(pipe, role)] = _evidence(v)
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
        barrier_units=frozenset(meta.get("barrier_units", ())),
        default_read_window=int(meta.get("read_window", 32)),
    )


# Targets -> the family whose model they use.
FAMILIES = {"sm_90": "sm_90", "sm_90a": "sm_90"}


@functools.cache
def load_latency_model(target: str = "sm_90") -> LatencyModel:
    """The latency model of ``target``'s family (one object per family: the compiler and the
    checkers share it)."""
    family = FAMILIES.get(target, target)
    if family != target:
        return load_latency_model(family)
    path = resources.files("openptxas.targets").joinpath("data", f"{family}_latency.toml")
    return parse_latency_model(path.read_text())
