"""The emulator's errors. All derive from :class:`openptxas.diag.OpenPtxasError`; only the CLI
renders them."""

from __future__ import annotations

from openptxas.diag import OpenPtxasError


class EmuError(OpenPtxasError):
    """Anything that stops an emulated launch."""


class EmuLoadError(EmuError):
    """The cubin cannot be run: no such kernel, unsupported relocation, undecodable code, ..."""


class EmuLaunchError(EmuError):
    """The launch does not fit the kernel (spec/parameter mismatch, bad dimensions, ...)."""


class KernelFault(EmuError):
    """The kernel did something the hardware would fault on (an out-of-bounds or misaligned
    access, a trap, a deadlock), named with the instruction and its address."""

    def __init__(self, message: str, pc: int | None = None, instruction: str = "") -> None:
        where = ""
        if pc is not None:
            where = f" at {pc:#06x}"
            if instruction:
                where += f" ({instruction})"
        super().__init__(f"kernel fault{where}: {message}")
        self.pc = pc
        self.instruction = instruction
        self.detail = message


class Unsupported(EmuError):
    """An instruction or feature the emulator does not implement (named in the message)."""

    def __init__(self, message: str, pc: int | None = None, instruction: str = "") -> None:
        where = ""
        if pc is not None:
            where = f" at {pc:#06x}"
            if instruction:
                where += f" ({instruction})"
        super().__init__(f"not supported by the emulator{where}: {message}")
        self.pc = pc
        self.instruction = instruction
