"""``add.sat.s32`` / ``sub.sat.s32``: compiled by openptxas and by ptxas, both cubins run in the
emulator (ours with the hazard checker), equal to each other and to the clamped sum. (The
``.sat`` was dropped before: a wrapping ``IADD3``, a miscompile found while building the s4/u4
``.satfinite`` mma forms, issue 20.)"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.compiler.test_wmma import _compare
from tests.conftest import need_tools

_PTX = """.version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
\t.reg .b32 %r<12>;
\t.reg .b64 %rd<8>;
\tld.param.u64 %rd1, [pin];
\tld.param.u64 %rd2, [pout];
\tcvta.to.global.u64 %rd1, %rd1;
\tcvta.to.global.u64 %rd2, %rd2;
\tmov.u32 %r1, %tid.x;
\tmul.wide.u32 %rd3, %r1, 8;
\tadd.s64 %rd4, %rd1, %rd3;
\tmul.wide.u32 %rd5, %r1, 16;
\tadd.s64 %rd6, %rd2, %rd5;
\tld.global.s32 %r2, [%rd4];
\tld.global.s32 %r3, [%rd4+4];
\tadd.sat.s32 %r4, %r2, %r3;
\tsub.sat.s32 %r5, %r2, %r3;
\tadd.sat.s32 %r6, %r2, 2147483000;
\tsub.sat.s32 %r7, %r2, -2147483000;
\tst.global.v4.b32 [%rd6], {%r4, %r5, %r6, %r7};
\tret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_add_sub_sat_s32(opt: int, oracle: Any) -> None:
    need_tools("ptxas")
    rng = np.random.default_rng(5)
    edge = np.array([2**31 - 1, -(2**31), -1, 0, 1, 2**30, -(2**30), 12345], np.int64)
    a = np.concatenate([np.repeat(edge, 8), rng.integers(-(2**31), 2**31, 64)])
    b = np.concatenate([np.tile(edge, 8), rng.integers(-(2**31), 2**31, 64)])
    n = a.size
    words = np.stack([a, b], 1).astype(np.int32)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u8", "count": words.nbytes,
             "init": {"hex": words.tobytes().hex()}},
            {"kind": "buffer", "dtype": "u32", "count": 4 * n, "init": "zeros"},
        ],
    }  # fmt: skip
    _compare(_PTX, spec, opt, oracle)
    from openptxas.emu import run_launch

    # the definition, on ptxas's cubin (_compare asserted ours equal to it)
    out = run_launch(oracle.ptxas(_PTX, "sm_90").cubin, spec).outputs[1]
    got = out.view(np.int32).reshape(n, 4).astype(np.int64)
    want = np.stack([a + b, a - b, a + 2147483000, a + 2147483000], 1)
    assert np.array_equal(got, np.clip(want, -(2**31), 2**31 - 1))
