"""Static code-quality figures of a cubin, read through nvdisasm (the oracle harness's tools)."""

from __future__ import annotations

from dataclasses import dataclass

from openptxas.testing.oracle import Oracle, SassInstr, body_length, parse_nvdisasm

# The control field sits at bit 41 of the high 64-bit word on Volta and later: stall (4 bits),
# yield, write barrier (3), read barrier (3), wait mask (6), reuse (4). The stall count is the
# number of cycles the scheduler waits before issuing the next instruction of the warp.
_STALL_SHIFT = 41
_STALL_MASK = 0xF


def stall(instr: SassInstr) -> int:
    return (instr.hi >> _STALL_SHIFT) & _STALL_MASK


@dataclass(frozen=True, slots=True)
class SassFigures:
    instructions: int  # without the end padding (final BRA-to-self and NOPs)
    stall_cycles: int  # sum of the stall counts of those instructions


def sass_figures(oracle: Oracle, cubin: bytes, subject: str) -> dict[str, SassFigures]:
    """Per function (``.text.<name>``): instruction count and summed stall counts.

    Raises OracleError when nvdisasm cannot read the cubin.
    """
    listing = parse_nvdisasm(oracle.nvdisasm(cubin, subject=subject))
    out = {}
    for name, instrs in listing.items():
        n = body_length(instrs)
        out[name] = SassFigures(n, sum(stall(i) for i in instrs[:n]))
    return out
