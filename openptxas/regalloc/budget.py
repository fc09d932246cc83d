"""The register budget of a kernel, and ptxas's messages about it.

Observed on ptxas 13.0.88 (sm_90; ``scripts/probe_spill.py budgets``):

- ``.maxntid``/``.reqntid`` (threads rounded up to whole warps) with ``.minnctapersm`` (1 when
  absent) give ``regs_per_sm / (threads * blocks)`` rounded down to a multiple of 8 (the
  allocation granularity), at most the target's register count. This replaces
  ``-maxrregcount``; ``-v`` says so ("Overriding global maxrregcount M with entry-specific value
  N computed using thread count") only when ``.minnctapersm`` is given and the values differ.
- ``.maxnreg`` (raised to the minimum, 24, with a warning) caps it further and also replaces
  ``-maxrregcount`` ("... entry-specific value N of .maxnreg" when they differ).
- Otherwise ``-maxrregcount`` ("Overriding maximum register limit 256 for 'k' with  M of
  maxrregcount option" on the targets that print it), else the target's register count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openptxas.diag import Diagnostic, Severity
from openptxas.ptx import ast
from openptxas.targets import SMInfo


@dataclass
class Budget:
    registers: int | None  # None: the target's register count
    notes: list[str] = field(default_factory=list)  # -v info lines
    warnings: list[Diagnostic] = field(default_factory=list)


def thread_count_limit(func: ast.Function, target: SMInfo) -> int | None:
    dims = func.reqntid or func.maxntid
    if not dims:
        return None
    threads = 1
    for d in dims:
        threads *= d
    warps = (threads + 31) // 32
    blocks = func.minnctapersm or 1
    unit = target.reg_alloc_unit
    per_thread = target.regs_per_sm // (warps * 32 * blocks) // unit * unit
    return max(target.min_maxrregcount, min(target.gpr_count, per_thread))


def register_budget(func: ast.Function, maxrreg: int | None, target: SMInfo) -> Budget:
    """The kernel's register budget under ``-maxrregcount`` (``maxrreg``, already checked)."""
    out = Budget(maxrreg)
    n = func.maxnreg
    if n is not None and n < target.min_maxrregcount:
        out.warnings.append(
            Diagnostic(
                Severity.WARNING,
                f"For entry {func.name} adjusting per thread register count of {n} to lower "
                f"bound of {target.min_maxrregcount}",
            )
        )
        n = target.min_maxrregcount
    t = thread_count_limit(func, target)
    if n is not None and (t is None or n <= t):
        out.registers = n
        if maxrreg is not None and n != maxrreg:
            out.notes.append(
                f"Overriding global maxrregcount {maxrreg} with entry-specific value {n} of "
                ".maxnreg"
            )
    elif t is not None:
        out.registers = t
        if maxrreg is not None and func.minnctapersm is not None and t != maxrreg:
            out.notes.append(
                f"Overriding global maxrregcount {maxrreg} with entry-specific value {t} "
                "computed using thread count"
            )
    elif maxrreg is not None and target.reports_regcount_override:
        out.notes.append(
            f"Overriding maximum register limit 256 for '{func.name}' with  {maxrreg} of "
            "maxrregcount option"
        )
    return out


def spill_warnings(
    name: str, frame: int, stores: int, loads: int, *, local: bool, spills: bool
) -> list[Diagnostic]:
    """``--warn-on-local-memory-usage`` and ``--warn-on-spills``, as ptxas words them."""
    out = []
    if local and frame:
        out.append(
            Diagnostic(
                Severity.WARNING,
                f"Local memory used for function '{name}', size of stack frame: {frame} bytes",
            )
        )
    if spills and (stores or loads):
        out.append(
            Diagnostic(
                Severity.WARNING,
                f"Registers are spilled to local memory in function '{name}', {stores} bytes "
                f"spill stores, {loads} bytes spill loads",
            )
        )
    return out
