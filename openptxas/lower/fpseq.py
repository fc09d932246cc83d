"""Instruction sequences written as IR text, for lowerings that copy a sequence ptxas emits.

A sequence is the IR text ``openptxas.ir.printer`` writes (``%p0, PT = FSETP.GTU.FTZ.AND |$a|,
f32:0x7f800000, PT``) with three kinds of names in it:

- ``$name``: a value. Names bound by the caller are its operands; every other name gets a new
  virtual register, a predicate when the name starts with ``p`` followed by a digit or ``_``
  (``$p0``, ``$p_nan``), a register pair when it starts with ``D`` (``$Dq``; ``$Dq.1`` is its
  high word), a 32-bit register otherwise.
- ``NAME:`` on a line of its own starts a new block, and `` `(NAME)`` names it as a branch
  target; each expansion gets its own block names.
- ``#`` starts a comment.
- ``.cold`` on a line of its own: the blocks that follow go after the function's last block
  (a slow path that the fast path branches to and that branches back, where ptxas calls a
  subroutine), until ``.hot``.
- ``!word ...``: a line the caller's ``hook`` emits (lower/fpslow.py: the call of a shared
  slow path and its return), given the line and functions from a ``$name`` (without ``$``) to
  its register and from a label to its block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from openptxas.ir.core import RC, Block, RegLike, VReg
from openptxas.ir.reader import read_instr
from openptxas.lower.context import LowerCtx

_NAME = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_LABEL = re.compile(r"`\(([A-Za-z_][A-Za-z0-9_]*)\)")
_PRED = re.compile(r"p(\d|_)")


Hook = Callable[[str, Callable[[str], RegLike], Callable[[str], Block]], None]


def expand(
    c: LowerCtx,
    text: str,
    bound: Mapping[str, RegLike],
    hook: Hook | None = None,
) -> dict[str, RegLike]:
    """Append the sequence ``text`` to the current block (and new blocks after it), with the
    ``$names`` of ``bound`` standing for the caller's registers; returns every name's register.
    The text's last block (which must not be cold) is the current block afterwards."""
    regs: dict[str, RegLike] = dict(bound)
    blocks: dict[str, Block] = {}
    cold = False
    c._label_count += 1
    tag = c._label_count

    def lookup(n: str) -> RegLike:
        r = regs.get(n)
        if r is None:
            if _PRED.match(n):
                r = c.new(RC.P)
            else:
                r = c.new(RC.R, 2 if n.startswith("D") else 1)
            regs[n] = r
        return r

    def reg(m: re.Match[str]) -> str:
        return str(lookup(m.group(1)))

    def block(name: str) -> Block:
        b = blocks.get(name)
        if b is None:
            b = Block(f".L_{name}_{tag}")
            blocks[name] = b
        return b

    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line in (".cold", ".hot"):
            cold = line == ".cold"
            continue
        if line.endswith(":"):
            b = block(line[:-1])
            if cold:
                c.cold_blocks.append(b)
            else:
                c.fn.blocks.append(b)
            c.block = b
            continue
        if line.startswith("!"):
            assert hook is not None, line
            hook(line, lookup, block)
            continue
        line = _LABEL.sub(lambda m: f"`({block(m.group(1)).name})", line)
        line = _NAME.sub(reg, line)
        ins = read_instr(line)
        ins.line = c.span.line if c.span else 0
        assert c.block is not None
        c.block.instrs.append(ins)
    assert not cold, "a sequence ends in a hot block"
    return regs


def vreg(regs: Mapping[str, RegLike], name: str) -> VReg:
    r = regs[name]
    assert isinstance(r, VReg)
    return r
