"""Peephole's wrapping shifts: ``x << (n & 31)`` and ``x >> (n & 31)`` (a rotate's halves) as
``SHF.L.W.U32`` / ``SHF.R.W.U32.HI`` by ``n`` itself, as ptxas writes them; the result must be
the PTX value for every amount, those of 32 and more included (the wrap takes them mod 32)."""

from __future__ import annotations

import pytest

from tests.conftest import run_ours

ROT = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [in]; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd2, %rd2, %rd3;
  ld.global.u32 %r2, [%rd2];
  ld.global.u32 %r3, [%rd2+4];
  and.b32 %r4, %r3, 31;
  shl.b32 %r5, %r2, %r4;
  sub.s32 %r6, 0, %r3;
  and.b32 %r7, %r6, 31;
  shr.u32 %r8, %r2, %r7;
  or.b32 %r9, %r5, %r8;
  add.s64 %rd1, %rd1, %rd3;
  st.global.u32 [%rd1], %r9;
  st.global.u32 [%rd1+4], %r5;
  ret;
}
"""

AMOUNTS = [0, 1, 5, 31, 32, 33, 63, 64, 100, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]


@pytest.mark.parametrize("opt", [3, 0])
def test_rotate_by_any_amount(opt: int) -> None:
    np = pytest.importorskip("numpy")
    x = 0x9ABCDEF1
    words = []
    for s in AMOUNTS:
        words += [x, s]
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [len(AMOUNTS), 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 2 * len(AMOUNTS), "init": "zeros"},
            {
                "kind": "buffer",
                "dtype": "u32",
                "count": len(words),
                "init": {"hex": np.array(words, dtype="<u4").tobytes().hex()},
            },
        ],
    }
    out = [int(v) for v in run_ours(ROT, spec, opt).outputs[0]]
    for i, s in enumerate(AMOUNTS):
        k = s & 31
        rot = ((x << k) | (x >> ((-s) & 31))) & 0xFFFFFFFF
        assert out[2 * i] == rot, f"amount {s:#x}"
        assert out[2 * i + 1] == (x << k) & 0xFFFFFFFF, f"amount {s:#x}"


def test_the_wrapping_forms_are_used() -> None:
    from openptxas.driver import compile_ptx
    from openptxas.isa.model import Instruction
    from openptxas.options import Options
    from openptxas.tools.sass_cli import disassemble_cubin

    cubin = compile_ptx(ROT, Options(arch="sm_90"), "k.ptx").cubin
    _, secs = disassemble_cubin(cubin)
    names = [
        ".".join((i.opcode, *i.mods))
        for sec in secs
        for i in sec.items
        if isinstance(i, Instruction)
    ]
    assert "SHF.L.W.U32" in names and "SHF.R.W.U32.HI" in names
    assert names.count("LOP3.LUT") == 1, names  # the OR; no "& 31" left
