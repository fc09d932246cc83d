"""Deliberately broken control codes: patch the control field of instructions in a cubin.

Mutations are chosen where they are certain to break the program's timing (the hazard checker's
test suite asserts that each one is reported):

- ``stall``: a producer and a consumer in straight-line code whose distance is exactly the
  latency ptxas allows; one instruction between them issues a cycle earlier;
- ``wait``: a consumer waits on the scoreboard of a variable-latency producer earlier in the same
  straight-line code, with no other wait on it in between; the wait is removed;
- ``scoreboard``: the same producer sets another scoreboard, one nothing in between waits on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from openptxas.elf.model import Blob
from openptxas.elf.reader import read_cubin
from openptxas.elf.writer import write_cubin
from openptxas.emu.hazards import HazardChecker
from openptxas.emu.launch import launch
from openptxas.emu.model import Control, Instruction
from openptxas.emu.program import load_module
from tests.emu.harness import Case, filled_decoder

CONTROL_SHIFT = 105
CONTROL_MASK = ((1 << 17) - 1) << CONTROL_SHIFT

BRANCHY = {"BRA", "BRX", "JMX", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "WARPSYNC", "BAR",
           "BREAK", "KILL", "NANOSLEEP", "YIELD", "UCGABAR_WAIT", "DEPBAR"}  # fmt: skip


def encode_control(c: Control) -> int:
    v = c.stall | (0 if c.yield_ else 1) << 4
    v |= (7 if c.wr is None else c.wr) << 5
    v |= (7 if c.rd is None else c.rd) << 8
    v |= c.wait << 11
    return v << CONTROL_SHIFT


def patch_control(
    cubin: bytes, section: str, pc: int, change: Callable[[Control], Control]
) -> bytes:
    from openptxas.emu.model import control_from_word

    cb = read_cubin(cubin)
    secs = list(cb.sections)
    i = cb.section_index(section)
    s = secs[i]
    assert isinstance(s.content, Blob)
    code = bytearray(s.content.data)
    word = int.from_bytes(code[pc : pc + 16], "little")
    new = change(control_from_word(word))
    word = (word & ~CONTROL_MASK) | encode_control(new)
    code[pc : pc + 16] = word.to_bytes(16, "little")
    secs[i] = replace(s, content=Blob(bytes(code)))
    return write_cubin(cb.with_sections(tuple(secs)))


@dataclass(frozen=True)
class Mutation:
    kind: str  # stall | wait | scoreboard
    pc: int  # the instruction whose control field changes
    change: Callable[[Control], Control]
    expect_rule: str
    expect_pc: int  # where the checker must report it
    note: str


def _straight(ins: Mapping[int, Instruction], a: int, b: int) -> bool:
    """True when a..b (inclusive of a, exclusive of b) are consecutive non-control instructions."""
    for pc in range(a, b, 16):
        i = ins.get(pc)
        if i is None or i.opcode in BRANCHY:
            return False
    return ins.get(b) is not None


def mutations(
    ins: Mapping[int, Instruction],
    tight: set[tuple[int, int, int]],
    needed_waits: set[tuple[int, int, int, int]],
) -> list[Mutation]:
    out: list[Mutation] = []
    for prod, cons, _row in sorted(tight):
        if not (prod < cons and _straight(ins, prod, cons)):
            continue
        for pc in range(prod, cons, 16):
            c = ins[pc].control
            if c.stall >= 2:
                out.append(
                    Mutation(
                        "stall", pc, lambda c: replace(c, stall=c.stall - 1), "raw-latency", cons,
                        f"stall at {pc:#x} lowered: {ins[prod]} -> {ins[cons]} one cycle short",
                    )
                )  # fmt: skip
                break
    for cons, k, prod, _row in sorted(needed_waits):
        if not (prod < cons and _straight(ins, prod, cons)):
            continue
        between = [ins[pc].control.wait for pc in range(prod + 16, cons, 16)]
        if any(w >> k & 1 for w in between):
            continue
        out.append(
            Mutation(
                "wait", cons, lambda c, k=k: replace(c, wait=c.wait & ~(1 << k)),
                "raw-scoreboard", cons, f"wait on SB{k} removed from {ins[cons]}",
            )
        )  # fmt: skip
        used = {w for pc in range(prod + 16, cons + 16, 16) for w in range(6)
                if ins[pc].control.wait >> w & 1}  # fmt: skip
        free = [j for j in range(6) if j != k and j not in used]
        if free:
            j = free[0]
            out.append(
                Mutation(
                    "scoreboard", prod, lambda c, j=j: replace(c, wr=j), "raw-scoreboard", cons,
                    f"{ins[prod]} sets SB{j} instead of SB{k}; {ins[cons]} waits on SB{k}",
                )
            )  # fmt: skip
    return out


@dataclass(frozen=True)
class Outcome:
    mutation: Mutation
    flagged: bool  # the expected rule was reported at the expected address
    reports: tuple[str, ...]


def mutate_case(case: Case, per_kind: int | None = None) -> list[Outcome]:
    """Every mutation of ``case``'s kernel (at most ``per_kind`` of each kind, spread over the
    kernel), each run with the hazard checker."""
    cubin = case.cubin()
    dec = filled_decoder(cubin)
    hz = HazardChecker()
    hz.explain = True
    base = launch(cubin, case.spec, decoder=dec, hazard_checker=hz)
    if base.hazards:
        raise AssertionError(f"{case.id}: ptxas's code already has hazards: {base.hazards[0]}")
    mod = load_module(cubin, dec)
    k = mod.kernel(case.spec.kernel)
    muts = mutations(mod.instructions(k), hz.tight, hz.needed_waits)
    if per_kind is not None:
        chosen: list[Mutation] = []
        for kind in ("stall", "wait", "scoreboard"):
            of = [m for m in muts if m.kind == kind]
            step = max(1, len(of) // per_kind)
            chosen += of[::step][:per_kind]
        muts = chosen
    out = []
    for m in muts:
        patched = patch_control(cubin, k.section, m.pc, m.change)
        r = launch(patched, case.spec, decoder=filled_decoder(cubin), hazards=True)
        hit = any(h.rule == m.expect_rule and h.pc == m.expect_pc for h in r.hazards)
        out.append(Outcome(m, hit, tuple(str(h) for h in r.hazards)))
    return out
