"""The sm_90 timing model used for control codes: which instructions complete through a
scoreboard, and the fixed latencies between producers and consumers.

The numbers come from ptxas 13.0.88's own output (scripts/sched_mine_latencies.py): ptxas never
lets a consumer issue before its producer's result is ready, so the shortest producer-to-consumer
distances it uses bound the latencies it assumes. Where the data shows a spread, the model takes a
value at or above what ptxas relies on (safe, occasionally a cycle slower).

Findings (sm_90, ptxas 13.0.88, see the script's report):
- ALU and FMA pipes: 4 cycles within a pipe, 5 across; predicates consumed as a source operand
  (SEL, FSEL, PLOP3, ISETP) after 4, but as a guard or branch condition only after 13.
- FP64 (DADD/DMUL/DFMA) is fixed-latency on sm_90: 8 cycles to another FP64 op, 10 to other pipes;
  DSETP's predicate reaches a branch after 14.
- Loads, LDC, S2R/S2UR, MUFU, conversions (F2F/F2I/I2F/FRND), FCHK, FLO/POPC, shuffles and atomics
  use a write scoreboard; stores, loads and some others release their sources through a read
  scoreboard when a later instruction overwrites them soon after.
- A scoreboard is usable by a waiting instruction only 2 cycles after the producer issued (the
  producer's stall is at least 2 when the next instruction waits on it).
"""

from __future__ import annotations

from dataclasses import dataclass

from openptxas.ir.core import Instr

# Results delivered through a write scoreboard.
VARIABLE_LATENCY = frozenset(
    {
        "LDG",
        "LDS",
        "LD",
        "LDL",
        "LDC",
        "LDSM",
        "LDGSTS",
        "S2R",
        "S2UR",
        "CS2R",
        "MUFU",
        "F2F",
        "F2I",
        "I2F",
        "FRND",
        "FCHK",
        "FLO",
        "POPC",
        "BREV",
        "ATOMG",
        "ATOMS",
        "ATOM",
        "RED",
        "REDG",
        "SHFL",
        "MATCH",
        "REDUX",
        "BMOV",
        "QSPC",
        "VOTEU",
        "HMMA",
        "IMMA",
        "DMMA",
        "SYNCS",
        "UFLO",
        "UPOPC",
        "UBREV",
        "LDTM",
        "ELECT",
        "ULDC.U8",
        "B2R",
    }
)
# Instructions that read their register sources after issue (stores, memory, long ops): a later
# overwrite of such a source must wait on the reader's read scoreboard.
LATE_READERS = VARIABLE_LATENCY | frozenset({"STG", "STS", "ST", "STL", "BAR", "MEMBAR"})

FP64 = frozenset({"DADD", "DMUL", "DFMA", "DSETP", "DMNMX"})
# How long after a late reader issues may it still read its sources (cycles). ptxas lets
# unrelated writes to a store's data register follow without a read scoreboard only from this
# distance on.
READ_WINDOW = 32

# Scoreboards per warp.
NUM_SCOREBOARDS = 6
# A scoreboard set by an instruction may be waited on only this many cycles after it issued.
SB_SETUP = 2


@dataclass(frozen=True, slots=True)
class Latency:
    """Cycles from a producer's issue to a consumer's issue."""

    data: int  # result read as an ordinary source operand
    guard: int  # predicate result read as a guard or branch condition


def is_variable(ins: Instr) -> bool:
    return ins.op in VARIABLE_LATENCY or ins.name in VARIABLE_LATENCY


def is_late_reader(ins: Instr) -> bool:
    return ins.op in LATE_READERS


def fixed_latency(ins: Instr) -> Latency:
    """Latency of a fixed-latency producer's results."""
    op = ins.op
    if op in FP64:
        return Latency(10, 15)
    if op == "HFMA2" and "MMA" in ins.mods:
        return Latency(12, 15)
    if op.startswith("U") or op in ("ULDC", "R2UR"):
        return Latency(6, 13)
    return Latency(6, 13)
