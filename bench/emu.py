"""The hook to the SASS emulator (``openptxas.emu``): dynamic instruction count and the latency
model's cycle estimate of one launch.

The emulator is imported lazily. The benchmark expects::

    openptxas.emu.run_launch(cubin: bytes, spec: LaunchSpec) -> result
    result.dynamic_instructions: int   # warp instructions executed, all warps
    result.cycles: float               # the latency model's estimate for the launch

Until that exists the columns read "n/a" and the report says why (``emulator_status``). Should
the emulator settle on another interface, adapting ``emulate`` below is all it takes.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

from openptxas.spec import LaunchSpec

ENTRY_POINT = "run_launch"


class EmuUnavailable(Exception):
    """The emulator (or the entry point the benchmark needs) does not exist yet."""


@dataclass(frozen=True, slots=True)
class EmuFigures:
    instructions: int
    cycles: float


@functools.cache
def _entry() -> Any:
    try:
        mod = importlib.import_module("openptxas.emu")
    except ImportError as exc:
        raise EmuUnavailable(f"openptxas.emu cannot be imported: {exc}") from None
    fn = getattr(mod, ENTRY_POINT, None)
    if not callable(fn):
        raise EmuUnavailable(f"openptxas.emu has no {ENTRY_POINT}(cubin, spec) yet")
    return fn


def emulator_status() -> str:
    """'available', or why the emulator columns are n/a."""
    try:
        _entry()
    except EmuUnavailable as exc:
        return f"not available: {exc}"
    return "available"


def emulate(cubin: bytes, spec: LaunchSpec) -> EmuFigures:
    """Run one launch in the emulator. Raises EmuUnavailable when there is no emulator; any
    other exception is the emulator's failure on this launch."""
    result = _entry()(cubin, spec)
    return EmuFigures(int(result.dynamic_instructions), float(result.cycles))
