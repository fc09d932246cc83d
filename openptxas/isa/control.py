"""The control field of sm_70+ instructions (bits 105-125 of the 128-bit word).

Layout (every bit verified against ptxas 13.0.88 output by ``scripts/isa_learn.py``; the
evidence is in docs/isa.md)::

    105-108  stall      cycles before the next instruction may issue (0-15)
    109      yield bit  0 = the warp may yield (printed "Y"), 1 = keep issuing this warp
    110-112  wr         scoreboard set when the result is written (7 = none)
    113-115  rd         scoreboard set when the sources have been read (7 = none)
    116-121  wait       scoreboards to wait for (bit n = SBn)
    122-125  reuse      operand-reuse flags; per form, each belongs to one register operand
    126-127  zero

The text form (CuAssembler's) is ``[B012345:R-:W0:Y:S04]``: the wait mask (a digit per awaited
scoreboard, ``-`` otherwise), the read and write scoreboards, ``Y`` or ``-``, the stall count.
"""

from __future__ import annotations

import re

from openptxas.isa.model import Control

CONTROL_SHIFT = 105
CONTROL_MASK = ((1 << 17) - 1) << CONTROL_SHIFT  # bits 105-121 (reuse bits excluded)
REUSE_BITS = (122, 123, 124, 125)
REUSE_MASK = 0xF << 122


def decode_control(word: int) -> Control:
    c = word >> CONTROL_SHIFT
    wr = (c >> 5) & 7
    rd = (c >> 8) & 7
    return Control(
        stall=c & 0xF,
        yield_=not (c >> 4) & 1,
        wr=None if wr == 7 else wr,
        rd=None if rd == 7 else rd,
        wait=(c >> 11) & 0x3F,
    )


def encode_control(ctl: Control) -> int:
    c = ctl.stall | (0 if ctl.yield_ else 1) << 4
    c |= (7 if ctl.wr is None else ctl.wr) << 5
    c |= (7 if ctl.rd is None else ctl.rd) << 8
    c |= ctl.wait << 11
    return c << CONTROL_SHIFT


def format_control(ctl: Control) -> str:
    wait = "".join(str(i) if ctl.wait >> i & 1 else "-" for i in range(6))
    rd = "-" if ctl.rd is None else str(ctl.rd)
    wr = "-" if ctl.wr is None else str(ctl.wr)
    return f"[B{wait}:R{rd}:W{wr}:{'Y' if ctl.yield_ else '-'}:S{ctl.stall:02d}]"


_CTRL_RE = re.compile(r"\[B([0-5-]{6}):R([0-6-]):W([0-6-]):([Y-]):S(\d\d)\]")


def parse_control(text: str) -> Control:
    """Parse ``[B------:R-:W-:Y:S04]``; raise ValueError on anything else."""
    m = _CTRL_RE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"bad control field '{text}'")
    wait = 0
    for i, ch in enumerate(m.group(1)):
        if ch != "-":
            if ch != str(i):
                raise ValueError(f"bad wait mask '{m.group(1)}' (digit {ch} at position {i})")
            wait |= 1 << i
    rd = None if m.group(2) == "-" else int(m.group(2))
    wr = None if m.group(3) == "-" else int(m.group(3))
    return Control(int(m.group(5)), m.group(4) == "Y", wr, rd, wait)
