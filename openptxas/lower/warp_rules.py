"""Selection rules for warp collectives, barriers, fences and small instructions of sm_90
(issue 20), as ptxas 13.0.88 compiles them (listings: ``scripts/probe_warp.py <family>``).
"""

from __future__ import annotations

from openptxas.ir.core import Imm
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType


def nanosleep(ins: ast.Instruction, c: LowerCtx) -> None:
    """``nanosleep.u32 t``: ``NANOSLEEP R`` or ``NANOSLEEP imm``."""
    c.emit("NANOSLEEP", (), [], [c.value(ins.operands[0], T.U32)])


RULES: list[Rule] = [
    Rule("nanosleep", "nanosleep", always, nanosleep, "nanosleep.u32 %r1;"),
]

_ = Imm
