"""cnot.b16/b32/b64 (was refused): 1 for a zero source, else 0; against ptxas in the emulator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from openptxas.emu import run_launch
from tests.conftest import need_tools, run_ours

PTX = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o)
{
  .reg .b32 %r<8>;
  .reg .b16 %h<3>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [o];
  mov.u32 %r4, %tid.x;
  mul.wide.u32 %rd4, %r4, 32;
  add.s64 %rd1, %rd1, %rd4;
  ld.global.u32 %r1, [%rd1];
  ld.global.u64 %rd2, [%rd1+8];
  cvt.u16.u32 %h1, %r1;
  cnot.b32 %r2, %r1;
  cnot.b64 %rd3, %rd2;
  cnot.b16 %h2, %h1;
  cvt.u32.u16 %r3, %h2;
  st.global.u32 [%rd1+4], %r2;
  st.global.u64 [%rd1+16], %rd3;
  st.global.u32 [%rd1+24], %r3;
  ret;
}
"""
VALUES = [(0, 0), (1, 1), (0x10000, 1 << 32), (0xFFFF0000, 1 << 63), (0xFFFFFFFF, 0xFFFFFFFF)]


def _spec() -> dict[str, object]:
    words = np.zeros((len(VALUES), 8), dtype=np.uint32)
    for i, (a, b) in enumerate(VALUES):
        words[i, 0] = a
        words[i, 2:4] = [b & 0xFFFFFFFF, b >> 32]
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [len(VALUES), 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": words.size,
                  "init": {"hex": words.tobytes().hex()}}],
    }  # fmt: skip


def _expected() -> list[list[int]]:
    out = []
    for a, b in VALUES:
        out.append([int(a == 0), int(b == 0), 0, int(a & 0xFFFF == 0)])
    return out


@pytest.mark.parametrize("opt", [3, 0])
def test_cnot(opt: int, oracle, tmp_path: Path) -> None:
    got = run_ours(PTX, _spec(), opt).outputs[0].reshape(len(VALUES), 8)
    assert got[:, [1, 4, 5, 6]].tolist() == _expected()
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(PTX, "sm_90").cubin, _spec()).outputs[0]
    assert np.array_equal(theirs.reshape(len(VALUES), 8)[:, [1, 4, 5, 6]], got[:, [1, 4, 5, 6]])
