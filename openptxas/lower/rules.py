"""Instruction selection as ordered rule tables: PTX pattern -> SASS sequence.

A rule names the PTX mnemonic it handles, a predicate on the instruction (types, modifiers,
operand kinds) and an emitter that appends SASS-level IR. Rules of one mnemonic are tried in
table order; the first whose predicate holds is used. Every rule carries an example PTX
instruction that must select it: tests/compiler/test_rules.py parses every example and fails when
an earlier rule shadows a later one (the check ISLE does for overlapping rules).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from openptxas.lower.context import LowerCtx
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

Pred = Callable[[ast.Instruction], bool]
Emit = Callable[[ast.Instruction, LowerCtx], None]


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    opcode: str
    match: Pred
    emit: Emit
    example: str  # PTX text of an instruction this rule must be selected for


class RuleTable:
    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = list(rules)
        self.by_opcode: dict[str, list[Rule]] = {}
        for r in self.rules:
            self.by_opcode.setdefault(r.opcode, []).append(r)
        names = [r.name for r in self.rules]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"duplicate rule names: {sorted(dup)}")

    def select(self, ins: ast.Instruction) -> Rule | None:
        for r in self.by_opcode.get(ins.opcode, ()):
            if r.match(ins):
                return r
        return None


# ---------------------------------------------------------------------------------- predicates


def always(_: ast.Instruction) -> bool:
    return True


def types(*ts: PtxType) -> Pred:
    s = frozenset(ts)
    return lambda ins: ins.type in s


def has(*flags: str) -> Pred:
    return lambda ins: all(ins.has(f) for f in flags)


def lacks(*flags: str) -> Pred:
    return lambda ins: not any(ins.has(f) for f in flags)


def imm_at(k: int) -> Pred:
    return lambda ins: (
        len(ins.operands) > k and isinstance(ins.operands[k], ast.IntImm | ast.FloatImm)
    )


def both(*ps: Pred) -> Pred:
    return lambda ins: all(p(ins) for p in ps)


def nargs(n: int) -> Pred:
    return lambda ins: len(ins.operands) == n


S32 = (PtxType.S32, PtxType.U32, PtxType.B32)
I64 = (PtxType.S64, PtxType.U64, PtxType.B64)
SIGNED = frozenset({PtxType.S8, PtxType.S16, PtxType.S32, PtxType.S64})


def is_signed(t: PtxType | None) -> bool:
    return t in SIGNED
