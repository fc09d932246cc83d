"""Issue 19's form-by-form audit (scripts/fp_audit.py) on a sample: the forms it found ptxas
accepting and openptxas refusing or miscompiling compile and compute what ptxas's code computes
(both cubins in the emulator, special values and random inputs), and the sm_100 conversion
formats are refused for sm_90 with ptxas's own diagnostics."""

from __future__ import annotations

import pytest

from openptxas.diag import OpenPtxasError
from openptxas.driver import compile_ptx
from openptxas.options import Options
from openptxas.testing.fp_audit import FOUND, forms
from openptxas.testing.fpmath_cases import CASES, ptx, run_case
from tests.conftest import need_tools

# every FOUND form would take ~40 s; these cover each fix (the rest: scripts/fpmath_diff.py)
SAMPLE = [
    "cvt.f32.f32",  # the miscompile: a copy, not FADD x, -RZ (NaN payloads)
    "cvt.rzi.ftz.f32.f32",
    "cvt.rm.sat.f32.u16",
    "cvt.rn.ftz.f32.s32",
    "cvt.rn.sat.f64.s32",
    "cvt.sat.f64.f64",
    "cvt.rzi.sat.f16.f16",
    "cvt.bf16.f16",
    "cvt.rm.ftz.bf16.f32",
    "cvt.rp.f64.bf16",
    "cvt.ftz.sat.f32.f16",
    "cvt.rz.ftz.sat.f32.f64",
    "mad.rn.f64",
    "rcp.rn.ftz.f64",
    "slct.ftz.f32.f32",
    "slct.u32.s32",
    "slct.f64.f32",
    "max.ftz.NaN.xorsign.abs.f16",
    "min.NaN.xorsign.abs.bf16x2",
    "mad24.hi.sat.s32",
    "mov.b64.pack4",
    "cvt.rmi.s8.bf16 (8-bit register)",
    "cvt.ftz.f32.bf16",  # F2F.FTZ.F32.BF16 (the ISA table learned it from a probe)
    "cvt.rm.ftz.f32.bf16",
]


def test_found_forms_are_suite_cases() -> None:
    names = {f.name for f in forms()}
    assert set(SAMPLE) <= set(FOUND) <= names
    assert set(FOUND) <= set(CASES)


@pytest.mark.parametrize("name", SAMPLE)
def test_found_form_equals_ptxas(name: str) -> None:
    need_tools("ptxas")
    res = run_case(CASES[name], n=256, seed=3)
    assert res.mismatches == 0, res.first


@pytest.mark.parametrize(
    "name", ["fma.rn.oob.f16", "fma.rn.oob.sat.f16x2", "fma.rn.oob.relu.bf16x2"]
)
def test_fma_oob_keeps_oob(name: str) -> None:
    """HFMA2[.BF16_V2].OOB as ptxas (the emulator does not model .OOB: both cubins compute the
    same there with or without it, so the differential run cannot see a dropped .OOB)."""
    from openptxas.tools.sass_cli import disassemble_cubin

    form = next(f for f in forms() if f.name == name)
    cubin = compile_ptx(ptx(form.case), Options(arch="sm_90"), "k.ptx").cubin
    _, sections = disassemble_cubin(cubin)
    from openptxas.isa.model import Instruction

    mods = [
        i.mods
        for s in sections
        for i in s.items
        if isinstance(i, Instruction) and i.opcode == "HFMA2"
    ]
    assert mods and all("OOB" in m for m in mods), mods
    assert all(
        ("SAT" in m) == (".sat" in name) and ("RELU" in m) == (".relu" in name) for m in mods
    )


# ptxas 13.0's answers for sm_90 (scripts/fp_audit.py --group fp4 compares them live)
ON = " not supported on .target 'sm_90'"
REFUSED = {
    "cvt.rn.satfinite.e2m1x2.f32": "Instruction 'cvt with .e2m1x2'" + ON,
    "cvt.rn.f16x2.e3m2x2": "Instruction 'cvt with .e2m3x2/.e3m2x2'" + ON,
    "cvt.rz.satfinite.ue8m0x2.f32": "Instruction 'cvt with .ue8m0x2'" + ON,
    "cvt.rs.f16x2.f32": "Feature '.rs'" + ON,
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_sm100_formats_refused_as_ptxas(name: str) -> None:
    form = next(f for f in forms() if f.name == name)
    with pytest.raises(OpenPtxasError) as exc:
        compile_ptx(ptx(form.case), Options(arch="sm_90"), "k.ptx")
    assert [d.message for d in exc.value.diagnostics] == [REFUSED[name]]
