"""openptxas.emu: a functional SASS emulator (numpy) with a hazard checker.

``launch(cubin, spec, ...)`` runs one kernel launch and returns a :class:`LaunchResult` with
every argument's final contents, the device ``printf`` text, per-opcode instruction counts and,
with ``hazards=True``, the hazard reports. docs/emu.md describes the model.
"""

from __future__ import annotations

from openptxas.emu.errors import EmuError, EmuLaunchError, EmuLoadError, KernelFault, Unsupported
from openptxas.emu.launch import LaunchResult, launch

__all__ = [
    "EmuError",
    "EmuLaunchError",
    "EmuLoadError",
    "KernelFault",
    "LaunchResult",
    "Unsupported",
    "launch",
]
