"""openptxas.emu: a functional SASS emulator (numpy) with a hazard checker.

``run_launch(cubin, spec, hazards=...)`` (and ``launch``, with more knobs) runs one kernel launch
and returns a :class:`LaunchResult`: ``outputs`` (buffer arguments by position), the device
``printf`` text, ``hazards``, ``dynamic_instructions`` (warp-instructions executed) and
``cycles`` (the control codes' issue-time estimate). docs/emu.md describes the model.
"""

from __future__ import annotations

from openptxas.emu.errors import EmuError, EmuLaunchError, EmuLoadError, KernelFault, Unsupported
from openptxas.emu.hazards import Hazard
from openptxas.emu.launch import LaunchResult, launch, run_launch

__all__ = [
    "EmuError",
    "EmuLaunchError",
    "EmuLoadError",
    "Hazard",
    "KernelFault",
    "LaunchResult",
    "Unsupported",
    "launch",
    "run_launch",
]
