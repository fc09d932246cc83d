"""The per-SM fixed-latency table (``data/<sm>_latency.toml``), shared by the compiler's control
codes and the emulator's hazard checker so that both agree on what "ready" means.

The table is mined from ptxas's own output (scripts/emu_mine_latencies.py): for each producer
class and operand role, the smallest issue distance ptxas ever leaves before a reader. Roles:
``data`` (a register source), ``pred`` (a predicate source), ``guard`` (guard predicate or branch
condition), ``addr`` (an address or constant-bank index register). Classes are the opcode, plus
``.WIDE``/``.HI`` (IMAD), ``.MMA`` (HFMA2) and ``.64`` (LDC/ULDC/CS2R).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

ROLES = ("data", "pred", "guard", "addr")
# The longest fixed latency a producer/consumer pair is taken to need beyond the producer's own
# minimum (see load_latency_table).
PAIR_CEILING = 13


def lat_key(opcode: str, mods: tuple[str, ...]) -> str:
    """The class of an instruction in the latency table."""
    k = opcode
    if opcode in ("IMAD", "UIMAD", "HFMA2", "LDC", "ULDC", "CS2R"):
        for m in ("WIDE", "HI", "MMA", "64"):
            if m in mods:
                k += "." + m
    return k


@dataclass(frozen=True)
class LatencyTable:
    """Minimum cycles from a fixed-latency producer's issue to a consumer's issue."""

    pairs: Mapping[tuple[str, str, str], int]  # (producer, consumer, role)
    producers: Mapping[tuple[str, str], int]  # (producer, role): minimum over consumers
    reads: Mapping[str, int] = field(default_factory=dict)  # late reader -> read window

    def read_window(self, reader: str) -> int:
        """Cycles after which a late reader (with a read scoreboard) has read its sources."""
        v = self.reads.get(reader)
        if v is not None:
            return v
        return min(self.reads.values()) if self.reads else 0

    def need(self, producer: str, consumer: str, role: str) -> int:
        v = self.pairs.get((producer, consumer, role))
        if v is not None:
            return v
        return self.producers.get((producer, role), 0)

    def worst(self, producer: str, role: str) -> int:
        """The largest requirement of ``producer`` for ``role`` over every known consumer
        (what a reader in another block, unknown here, may need)."""
        vals = [v for (p, _c, r), v in self.pairs.items() if p == producer and r == role]
        base = self.producers.get((producer, role), 0)
        return max([base, *vals])


@functools.cache
def load_latency_table(target: str = "sm_90") -> LatencyTable:
    path = resources.files("openptxas.targets").joinpath("data", f"{target}_latency.toml")
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        return LatencyTable({}, {})
    pairs: dict[tuple[str, str, str], int] = {}
    prods: dict[tuple[str, str], int] = {}
    for prod, roles in doc.get("producer", {}).items():
        for role, v in roles.items():
            prods[(prod, role)] = int(v)
    for prod, cons in doc.get("pair", {}).items():
        for con, roles in cons.items():
            for role, v in roles.items():
                # A pair seen only where ptxas had other reasons to wait (USHF -> IADD3 at 44)
                # overstates the need: no sm_90 fixed-latency path is longer than PAIR_CEILING
                # beyond its producer's own minimum (public figures: predicate 13, UGPR 12).
                ceiling = max(prods.get((prod, role), 0), PAIR_CEILING)
                pairs[(prod, con, role)] = min(int(v), ceiling)
    reads = {str(k): int(v) for k, v in doc.get("read", {}).items()}
    return LatencyTable(pairs, prods, reads)
