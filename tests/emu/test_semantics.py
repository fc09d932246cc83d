"""Per-opcode-family semantic tests of the emulator against independent references.

Each test compiles a tiny PTX kernel with ptxas (cached by the oracle harness), checks that the
SASS forms it is about are present, runs it in the emulator and compares every output with a
reference computed without the emulator: Python integers, numpy, ``fractions.Fraction`` for
rounding, or the rules of the PTX ISA. Comparisons are exact (bit patterns) wherever the emulator
claims exactness.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.emu.ptxrun import ptx_header, run, sass

NDArray = np.ndarray[Any, Any]
RNG = np.random.default_rng(20261125)


def _forms(blob: bytes) -> set[str]:
    return {".".join((i.opcode, *i.mods)) for i in sass(blob)}


def _u64(n: int) -> NDArray:
    return RNG.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


# -- 64-bit multiply-high: IMAD.WIDE.U32(.X), IMAD.HI.U32.X carry chains -------------------------

MULHI_CONSTS = (0xFFFFFFFF00000001, 0xCCCCCCCCCCCCCCCD, 0x8000000000000001, 0x3333333333333333)


def _mulhi_ptx(shift: int) -> str:
    body = []
    for j, c in enumerate(MULHI_CONSTS):
        body.append(f"mul.hi.u64 %t, %x, {c:#x};")
        if shift:
            body.append(f"shr.u64 %t, %t, {shift};")
        body.append(f"st.global.u64 [%o+{8 * j}], %t;")
    body.append("mul.hi.u64 %t, %x, %y;\nst.global.u64 [%o+32], %t;")
    body.append("mul.hi.s64 %t, %x, %y;\nst.global.u64 [%o+40], %t;")
    body.append("mad.hi.u64 %t, %x, %y, %x;\nst.global.u64 [%o+48], %t;")
    return (
        ptx_header()
        + """.visible .entry k(.param .u64 pa, .param .u64 pb)
{
  .reg .u64 %a, %b, %x, %y, %t, %o, %off;
  .reg .u32 %i;
  ld.param.u64 %a, [pa];
  ld.param.u64 %b, [pb];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  mov.u32 %i, %tid.x;
  mul.wide.u32 %off, %i, 16;
  add.u64 %a, %a, %off;
  ld.global.v2.u64 {%x, %y}, [%a];
  mul.wide.u32 %off, %i, 56;
  add.u64 %o, %b, %off;
"""
        + "\n".join(body)
        + "\n  ret;\n}\n"
    )


@pytest.mark.parametrize("shift", [0, 32, 40])
def test_mul_hi_u64_carry_chain(shift: int) -> None:
    """ptxas's mul.hi.u64 by constants: the IMAD.HI.U32.X carry enters bit 0 of the 64-bit sum
    (with ``shr 32``/``shr 40`` only the top word is needed: ptxas ends the chain with
    IMAD.HI.U32.X)."""
    n = 128
    xy = _u64(2 * n).reshape(n, 2)
    xy[:8, 0] = [0, 1, 2**64 - 1, 2**63, 2**32 - 1, 2**32, 0xFFFFFFFF00000000, 0x00000001FFFFFFFF]
    out = np.zeros((n, 7), dtype=np.uint64)
    (_, got), _, blob = run(_mulhi_ptx(shift), [xy, out], block=n)
    if shift:
        assert "IMAD.HI.U32.X" in _forms(blob)
    for t in range(n):
        x, y = int(xy[t, 0]), int(xy[t, 1])
        sx = x - (x >> 63 << 64)
        sy = y - (y >> 63 << 64)
        want = [(x * c) >> 64 >> shift for c in MULHI_CONSTS]
        want += [(x * y) >> 64, ((sx * sy) >> 64) % 2**64, (((x * y) >> 64) + x) % 2**64]
        assert [int(v) for v in got[t]] == want, (t, hex(x), hex(y))
