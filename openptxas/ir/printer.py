"""Text form of the IR, for ``--dump-phase`` and tests."""

from __future__ import annotations

from openptxas.ir.core import Function


def format_function(fn: Function, *, control: bool = False) -> str:
    kind = ".entry" if fn.is_entry else ".func"
    lines = [f"{kind} {fn.name}"]
    for b in fn.blocks:
        lines.append(f"{b.name}:")
        for ins in b.instrs:
            ctrl = f"{ins.ctrl}  " if control and ins.ctrl is not None else ""
            lines.append(f"    {ctrl}{ins}")
    return "\n".join(lines) + "\n"
