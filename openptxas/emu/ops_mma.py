"""Tensor-core and matrix-movement instructions (filled in by later steps)."""

from __future__ import annotations

from collections.abc import Callable

from openptxas.emu.bind import Bound, Ctx

BINDERS: dict[str, Callable[[Ctx], Bound]] = {}
