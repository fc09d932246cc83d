"""The per-instruction differential suite (openptxas/testing/fpmath_cases.py) on a sample:
each sampled instruction compiled by openptxas and by ptxas, both run in the emulator on special
values and random inputs, every output word equal (scripts/fpmath_diff.py runs every case with
more inputs). Also F2IP (ptxas's cvt.rni/rzi.u8.f32) in the emulator against its definition."""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.testing.fpmath_cases import CASES, Case, inputs, ptx
from tests.conftest import need_tools

# the cases the public corpus needs first, then every 12th of the rest
FIRST = [
    "ex2.approx.f32",
    "ex2.approx.ftz.f32",
    "lg2.approx.f32",
    "sin.approx.f32",
    "tanh.approx.f32",
    "ex2.approx.f16x2",
    "tanh.approx.bf16x2",
    "mul.f16x2",
    "fma.rn.relu.bf16x2",
    "setp.ltu.f16x2",
    "mul+add.f16x2",
    "mul+sub.bf16",
    "mul+add+redef.f32",
    "mul+add+redef.f16x2",
    "fma.imm2",
    "alias0.max.f64",
    "cvt.rn.sat.f16.f32",
    "mad.hi.cc.s32",
    "add.cc.u64",
    "cvt.rn.ftz.f32.f64",
    "cvt.rm.ftz.f32.f64",
    "cvt.rn.relu.satfinite.bf16x2.f32",
    "cvt.rz.relu.f16.f32",
    "cvt.rz.relu.satfinite.f16.f32",
    "cvt.rna.satfinite.tf32.f32",
    "bmsk.clamp.b32",
    "min.xorsign.abs.f32",
    "neg.f64",
    "testp.normal.f64",
    "set.nan.u32.f16",
    "set.gtu.and.bf16.bf16",
    "set.lt.u32.s32",
    "mad.hi.s64",
    "mad.hi.cc.u64",
]
REST = [n for n in CASES if n not in FIRST]
SAMPLE = FIRST + REST[::12]


def test_case_names_unique() -> None:
    from openptxas.testing.fpmath_cases import _cases

    names = [c.name for c in _cases()]
    assert len(names) == len(set(names))
    assert set(FIRST) <= set(CASES)


@pytest.mark.parametrize("name", SAMPLE)
def test_same_as_ptxas(name: str) -> None:
    need_tools("ptxas")
    from openptxas.testing.fpmath_cases import run_case

    r = run_case(CASES[name], n=256, seed=1)
    assert r.mismatches == 0, r.first


def test_hsetp2_combining_predicate_is_a_destination() -> None:
    """ptxas -O0 writes setp.gtu.and.f16x2 p|q, a, b, !c as HSETP2 P0, P1, a, b, P0: the
    emulator read the combining P0 after writing the first destination (a view of the
    predicate file), so the high half saw the low half's result."""
    need_tools("ptxas")
    from openptxas.testing.fpmath_cases import run_case

    r = run_case(CASES["setp.gtu.and.f16x2"], n=512, seed=0, opt=0)
    assert r.mismatches == 0, r.first


def test_f2ip_definition() -> None:
    """ptxas compiles cvt.rni.u8.f32 / cvt.rzi.u8.f32 to F2IP.U8.F32[.TRUNC].NTZ d, RZ, a, RZ:
    the emulator's result is a rounded to an integer (nearest even / toward zero), clamped to
    [0, 255], NaN -> 0."""
    need_tools("ptxas", "nvdisasm")
    from openptxas.emu import run_launch
    from openptxas.testing.oracle import Oracle

    for rnd, ref in (("rni", np.rint), ("rzi", np.trunc)):
        case = Case(f"cvt.{rnd}.u8.f32", f"cvt.{rnd}.u8.f32 %rs4, %f0; cvt.u32.u16 %r4, %rs4",
                    ("f32",) * 4)  # fmt: skip
        n = 512
        inp = inputs(case, n, 3)
        f = inp[:, 0].view(np.float32).copy()
        f[:8] = [0.5, 1.5, 2.5, 254.5, 255.5, -0.5, -1.0, 300.25]
        inp[:, 0] = f.view(np.uint32)
        text = ptx(case)
        res = Oracle().ptxas(text, "sm_90")
        assert "F2IP.U8.F32" in Oracle().nvdisasm(res.cubin)
        spec = {
            "kernel": "k",
            "grid": [n // 256, 1, 1],
            "block": [256, 1, 1],
            "args": [
                {"kind": "buffer", "dtype": "u32", "count": n * 4, "init": "zeros"},
                {"kind": "buffer", "dtype": "u32", "count": n * 4,
                 "init": {"hex": inp.astype("<u4").tobytes().hex()}},
            ],
        }  # fmt: skip
        got = run_launch(res.cubin, spec).outputs[0].reshape(n, 4)[:, 0]
        with np.errstate(all="ignore"):
            want = np.where(np.isnan(f), 0, np.clip(ref(f.astype(np.float64)), 0, 255))
        assert np.array_equal(got, want.astype(np.uint32)), np.nonzero(got != want)[0][:5]
