"""f16, f16x2, bf16 and bf16x2 arithmetic, as ptxas 13.0 compiles it for sm_90."""

from __future__ import annotations

from openptxas.lower.rules import Rule

RULES: list[Rule] = []
