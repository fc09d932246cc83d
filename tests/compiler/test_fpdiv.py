"""IEEE division, reciprocal and square root and their approximations (openptxas/lower/fpdiv.py):
each instruction compiled by openptxas and by ptxas, run in the emulator on the special values
(every pair for division: signed zeros and infinities, NaN payloads, subnormals around the
flush-to-zero boundary, the extremes) and a sample of random, halfway, overflowing and
underflowing operands: every result word equal to ptxas's, and the round-to-nearest forms equal to
numpy's IEEE result. Long runs: ``python scripts/fp_diff.py --n 100000``."""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.testing.fpdiff import INSTRUCTIONS, compare, inputs, reference
from tests.conftest import need_tools, run_ours


@pytest.mark.parametrize("instr", INSTRUCTIONS)
def test_same_as_ptxas(instr: str) -> None:
    need_tools("ptxas")
    r = compare(instr, 256, seed=1)
    assert r.mismatches == 0, [(tuple(map(hex, a)), hex(g), hex(w)) for a, g, w in r.examples]
    assert r.ieee_mismatches in (None, 0)


@pytest.mark.parametrize("instr", ["div.rn.f32", "sqrt.rn.f64"])
def test_same_as_ptxas_O0(instr: str) -> None:
    need_tools("ptxas")
    r = compare(instr, 64, seed=2, opt=0)
    assert r.mismatches == 0


@pytest.mark.parametrize("follow", ["add.f32", "sub.ftz.f32"])
@pytest.mark.parametrize(
    "instr", ["div.full.f32", "div.full.ftz.f32", "div.approx.f32", "div.approx.ftz.f32",
              "rcp.approx.f32", "sqrt.approx.f32", "div.rn.f32"]
)  # fmt: skip
def test_contracted_like_ptxas(instr: str, follow: str) -> None:
    """ptxas fuses the last multiply of div.full/div.approx/rcp.approx into a following add of the
    same .ftz (one rounding fewer); so must openptxas (triton's layernorm differed in 46 words)."""
    need_tools("ptxas")
    r = compare(instr, 64, seed=4, follow=follow)
    assert r.mismatches == 0, [(tuple(map(hex, a)), hex(g), hex(w)) for a, g, w in r.examples]


def test_reference_flushes_before_rounding() -> None:
    """0x00ffffff / 2 rounds up to 2^-126 but is tiny before rounding: .ftz gives +0."""
    bits = np.array([[0x00FFFFFF, 0x40000000]], dtype=np.uint32)
    ref_ftz = reference("div.rn.ftz.f32", bits)
    ref = reference("div.rn.f32", bits)
    assert ref_ftz is not None and ref is not None
    assert int(ref_ftz[0]) == 0 and int(ref[0]) == 0x00800000


def test_inputs_cover_every_pair_of_specials() -> None:
    b = inputs("div.rn.f32", 0).bits
    assert {(0x7F800000, 0x7F800000), (0, 0), (0x00000001, 0x7F7FFFFF)} <= set(map(tuple, b))


TWO_DIVS = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{
.reg .f32 %f<8>;
.reg .b32 %r<3>;
.reg .b64 %rd<6>;
ld.param.u64 %rd1, [out];
ld.param.u64 %rd2, [inp];
cvta.to.global.u64 %rd3, %rd1;
cvta.to.global.u64 %rd4, %rd2;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd4, %rd4, %rd5;
add.s64 %rd3, %rd3, %rd5;
ld.global.f32 %f1, [%rd4];
div.rn.f32 %f2, %f1, 0f40400000;
div.rn.f32 %f3, 0f3F800000, %f1;
sqrt.rn.f32 %f4, %f1;
div.rn.f32 %f1, %f1, %f4;
add.f32 %f5, %f2, %f3;
add.f32 %f5, %f5, %f1;
st.global.f32 [%rd3], %f5;
ret;
}
"""


def test_several_in_one_kernel(oracle) -> None:  # type: ignore[no-untyped-def]
    """Three slow paths in one function (each its own cold blocks), an immediate operand, and a
    destination that is also a source; against ptxas's cubin on specials and randoms."""
    need_tools("ptxas")
    from openptxas.emu import run_launch

    vals = np.concatenate(
        [
            np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 1, 0x00800000,
                      0x7F7FFFFF, 0x3F800000, 0xC0400000, 0x0D000000, 0x00400000], np.uint32),
            np.random.default_rng(3).integers(0, 1 << 32, 116, dtype=np.uint64).astype(np.uint32),
        ]
    )  # fmt: skip
    n = vals.size
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": n, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": n, "init": {"hex": vals.tobytes().hex()}},
        ],
    }
    want = run_launch(oracle.ptxas(TWO_DIVS, "sm_90").cubin, spec).outputs[0]
    got = run_ours(TWO_DIVS, spec).outputs[0]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]
