"""cvt.sat between integer types (a miscompile: it was emitted as a plain copy).

Each conversion runs on edge values in the emulator, compiled by openptxas and by ptxas, and both
must equal the PTX ISA's definition: the source is read at its own width and sign, clamped to the
destination's range, and extended to the register by the destination's sign.
"""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.emu import run_launch
from tests.conftest import need_tools, run_ours

PAIRS = [
    "u32.s32", "s32.u32", "s8.s32", "u8.s32", "u16.u32", "s16.s32", "s32.s64", "u32.s64",
    "u32.u64", "s32.u64", "u64.s64", "s64.u64", "u8.u32", "s8.u8", "u8.s8", "s16.u16",
    "u16.s8", "s8.s64", "u8.u64", "u64.s32",
]  # fmt: skip

EDGES = [
    0, 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000,
    0xFFFFFFFF, 0x1_0000_0000, 0x1_7FFF_FFFF, 0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000,
    0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_8000_0000, 0xFFFF_FFFF_7FFF_FFFF, 0xFFFF_FFFF_FFFF_FF80,
    0xFFFF_FFFF_FFFF_FF7F, 0x0000_0000_FFFF_FF80, 0x1234_5678_9ABC_DEF0, 0xDEAD_BEEF_0000_0042,
    0x0000_0001_0000_00FF, 0xFFFF_FFFE_0000_0000, 0x0000_0000_8000_7F80,
]  # fmt: skip


def _bits(t: str) -> int:
    return int(t[1:])


def _expected(pair: str, x: int) -> int:
    d, s = pair.split(".")
    sb, db = _bits(s), _bits(d)
    v = x & ((1 << sb) - 1)
    if s[0] == "s" and v >> (sb - 1):
        v -= 1 << sb
    lo, hi = (-(1 << (db - 1)), (1 << (db - 1)) - 1) if d[0] == "s" else (0, (1 << db) - 1)
    v = min(max(v, lo), hi)
    reg = 64 if db == 64 else 32
    return v & ((1 << reg) - 1)


def _ptx(pair: str) -> str:
    d, s = pair.split(".")
    src = "%rd1" if _bits(s) == 64 else "%r1"
    dst = "%rd2" if _bits(d) == 64 else "%r2"
    load = "" if _bits(s) == 64 else "cvt.u32.u64 %r1, %rd1;"
    widen = "" if _bits(d) == 64 else "cvt.u64.u32 %rd2, %r2;"
    return f""".version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{{
  .reg .b32 %r<4>;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd4, [out];
  ld.param.u64 %rd5, [inp];
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd6, %r3, 8;
  add.s64 %rd7, %rd5, %rd6;
  add.s64 %rd8, %rd4, %rd6;
  ld.global.u64 %rd1, [%rd7];
  {load}
  cvt.sat.{d}.{s} {dst}, {src};
  {widen}
  st.global.u64 [%rd8], %rd2;
  ret;
}}
"""


def _spec() -> dict[str, object]:
    n = len(EDGES)
    data = np.array(EDGES, dtype=np.uint64).tobytes().hex()
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u64", "count": n, "init": "zeros"},
            {"kind": "buffer", "dtype": "u64", "count": n, "init": {"hex": data}},
        ],
    }


@pytest.mark.parametrize("pair", PAIRS)
def test_cvt_sat_int(pair: str, oracle) -> None:
    ptx = _ptx(pair)
    want = np.array([_expected(pair, x) for x in EDGES], dtype=np.uint64)
    for opt in (3, 0):
        got = run_ours(ptx, _spec(), opt).outputs[0]
        wrong = np.flatnonzero(got != want)
        bad = [(hex(EDGES[i]), hex(int(got[i])), hex(int(want[i]))) for i in wrong]
        assert not bad, f"-O{opt} cvt.sat.{pair}: (input, ours, expected) {bad[:4]}"
    need_tools("ptxas")
    theirs = oracle.ptxas(ptx, "sm_90").cubin
    r = run_launch(theirs, _spec())
    assert (r.outputs[0] == want).all(), "the reference disagrees with ptxas's code"
