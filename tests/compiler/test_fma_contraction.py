"""FMA contraction against ptxas: which multiply/add pairs fuse, and the values computed.

Each case is a small kernel. ptxas's cubin and ours must contain the same floating-point
arithmetic (the multiset of FFMA/FMUL/FADD/DFMA/DMUL/DADD opcodes with their modifiers, operand
negation included), and both, run in the emulator on the same inputs, must give identical bits.
``-O0`` and ``--fmad=false`` must not contract, as ptxas.
"""

from __future__ import annotations

import numpy as np
import pytest

from openptxas.driver import compile_ptx
from openptxas.emu import run_launch
from openptxas.options import Options
from openptxas.tools.sass_cli import disassemble_cubin
from tests.conftest import need_tools

# a multiply and an add with an integer division between them (its result stored)
_DIV = (
    "mul.f32 %f4, %f1, {mul}; cvt.rzi.s32.f32 %r2, %f3; {div} add.f32 %f5, %f4, %f3;"
    " st.global.u32 [%rd2], %r3;"
)
CASES = {
    "basic": "mul.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3;",
    "mul_rn": "mul.rn.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3;",
    "add_rn": "mul.f32 %f4, %f1, %f2; add.rn.f32 %f5, %f4, %f3;",
    "add_rz": "mul.f32 %f4, %f1, %f2; add.rz.f32 %f5, %f4, %f3;",
    "mul_rz": "mul.rz.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3;",
    "ftz_mixed": "mul.ftz.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3;",
    "ftz_both": "mul.ftz.f32 %f4, %f1, %f2; add.ftz.f32 %f5, %f4, %f3;",
    "add_sat": "mul.f32 %f4, %f1, %f2; add.sat.f32 %f5, %f4, %f3;",
    "mul_sat": "mul.sat.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3;",
    "sub_product_first": "mul.f32 %f4, %f1, %f2; sub.f32 %f5, %f4, %f3;",
    "sub_product_second": "mul.f32 %f4, %f1, %f2; sub.f32 %f5, %f3, %f4;",
    "two_adds": (
        "mul.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3; add.f32 %f6, %f4, %f1;"
        " add.f32 %f5, %f5, %f6;"
    ),
    "stored_product": "mul.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f3; st.global.f32 [%rd2], %f4;",
    "two_products": "mul.f32 %f4, %f1, %f2; mul.f32 %f6, %f3, %f1; add.f32 %f5, %f4, %f6;",
    # the first operand's product is absorbed, whichever multiply comes first (nv12_to_bgr_planar
    # was an ulp away from ptxas's results on an H200 when the earlier multiply was)
    "two_products_later_first": (
        "mul.f32 %f6, %f3, %f1; mul.f32 %f4, %f1, %f2; add.f32 %f5, %f4, %f6;"
    ),
    "two_products_sub": (
        "mul.f32 %f6, %f3, 0f3EC89A02; mul.f32 %f4, %f1, 0fBF5020C5; sub.f32 %f5, %f4, %f6;"
    ),
    "other_block": (
        "mul.f32 %f4, %f1, %f2; setp.gt.f32 %p1, %f3, 0f00000000; @%p1 bra L1;"
        " add.f32 %f3, %f3, %f1; L1: add.f32 %f5, %f4, %f3;"
    ),
    "f64": (
        "cvt.f64.f32 %fd1, %f1; cvt.f64.f32 %fd2, %f2; cvt.f64.f32 %fd3, %f3;"
        " mul.f64 %fd4, %fd1, %fd2; add.f64 %fd5, %fd4, %fd3; cvt.rn.f32.f64 %f5, %fd5;"
    ),
    "f64_rn": (
        "cvt.f64.f32 %fd1, %f1; cvt.f64.f32 %fd2, %f2; cvt.f64.f32 %fd3, %f3;"
        " mul.rn.f64 %fd4, %fd1, %fd2; add.f64 %fd5, %fd4, %fd3; cvt.rn.f32.f64 %f5, %fd5;"
    ),
    "immediate": "mul.f32 %f4, %f1, 0f3FC00000; add.f32 %f5, %f4, %f3;",
    # both constants: the multiplier goes to a register (FFMA has one immediate slot)
    "two_immediates": "mul.f32 %f4, %f1, 0f3DCCCCCD; add.f32 %f5, %f4, 0f3F000000;",
    "two_immediates_sub": "mul.f32 %f4, %f1, 0f3DCCCCCD; sub.f32 %f5, 0f3F000000, %f4;",
    "imm_first": "mul.f32 %f4, 0f3DCCCCCD, %f1; add.f32 %f5, 0f3F000000, %f4;",
    "fma_two_immediates": "fma.rn.f32 %f5, %f1, 0f2F800000, 0f2F000000;",
    # a signed 32-bit or any 16-bit division between them blocks a product of two registers
    # (difffuzz --pressure seed 7092), not one with a constant operand; unsigned 32-bit does not
    "across_div_s32": _DIV.format(mul="%f2", div="div.s32 %r3, %r2, %r1;"),
    "across_rem_s32_imm": _DIV.format(mul="%f2", div="rem.s32 %r3, %r2, 7;"),
    "across_div_s32_pow2": _DIV.format(mul="%f2", div="div.s32 %r3, %r2, 8;"),
    "across_div_u32": _DIV.format(mul="%f2", div="div.u32 %r3, %r2, %r1;"),
    "across_div_s32_imm_mul": _DIV.format(mul="0f3FC00000", div="div.s32 %r3, %r2, %r1;"),
    # a product written again on every path after its block: its readers are all in the
    # block, it fuses (difffuzz seed 67417, after a counted loop was unrolled)
    "product_rewritten_on_every_path": (
        "mul.f32 %f4, %f1, %f2; sub.f32 %f5, %f4, %f3; setp.gt.f32 %p1, %f5, 0f00000000;"
        " @%p1 bra $La; mov.f32 %f4, %f1; bra $Lb; $La: mov.f32 %f4, %f2;"
        " $Lb: st.global.f32 [%rd2], %f4;"
    ),
    "across_div_s32_f64": (
        "cvt.f64.f32 %fd1, %f1; cvt.f64.f32 %fd2, %f2; cvt.f64.f32 %fd3, %f3;"
        " mul.f64 %fd4, %fd1, %fd2; cvt.rzi.s32.f32 %r2, %f3; div.s32 %r3, %r2, %r1;"
        " add.f64 %fd5, %fd4, %fd3; cvt.rn.f32.f64 %f5, %fd5; st.global.u32 [%rd2], %r3;"
    ),
}
FP = ("FFMA", "FMUL", "FADD", "DFMA", "DMUL", "DADD")
N = 128


def _ptx(body: str) -> str:
    return f""".version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o, .param .u64 x)
{{
  .reg .f32 %f<8>;
  .reg .f64 %fd<8>;
  .reg .b32 %r<4>;
  .reg .b16 %rs<4>;
  .reg .b64 %rd<6>;
  .reg .pred %p<3>;
  ld.param.u64 %rd3, [o];
  ld.param.u64 %rd4, [x];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 12;
  add.s64 %rd1, %rd4, %rd5;
  add.s64 %rd2, %rd3, %rd5;
  ld.global.f32 %f1, [%rd1];
  ld.global.f32 %f2, [%rd1+4];
  ld.global.f32 %f3, [%rd1+8];
  {body}
  st.global.f32 [%rd2+4], %f5;
  ret;
}}
"""


def _fp_ops(cubin: bytes) -> list[str]:
    _, sections = disassemble_cubin(cubin)
    out = []
    for sec in sections:
        for ins in sec.items:
            op = getattr(ins, "opcode", None)
            if op in FP:
                negs = "".join("-" if str(o).startswith("-") else "+" for o in ins.operands[1:])
                out.append(".".join((op, *ins.mods)) + " " + negs)
    return sorted(out)


def _spec() -> dict[str, object]:
    rng = np.random.default_rng(7)
    x = rng.standard_normal(3 * N).astype(np.float32)
    x[:6] = [1.0 + 2.0**-23, 1.0 - 2.0**-24, -1.0, 3e38, 3e38, -1e-39]  # rounding, overflow
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "f32", "count": 3 * N, "init": "zeros"},
            {"kind": "buffer", "dtype": "f32", "count": 3 * N, "init": {"hex": x.tobytes().hex()}},
        ],
    }


def _ours(ptx: str, **opts: object) -> bytes:
    return compile_ptx(ptx, Options(arch="sm_90", verify=True, **opts), "k.ptx").cubin  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(CASES))
def test_contraction_as_ptxas(name: str, oracle) -> None:
    need_tools("ptxas")
    ptx = _ptx(CASES[name])
    theirs = oracle.ptxas(ptx, "sm_90").cubin
    ours = _ours(ptx)
    assert _fp_ops(ours) == _fp_ops(theirs)
    a = run_launch(ours, _spec(), hazards=True)
    b = run_launch(theirs, _spec())
    assert a.hazards == ()
    assert a.outputs[0].view(np.uint32).tolist() == b.outputs[0].view(np.uint32).tolist()


@pytest.mark.parametrize("op", ["rem.u16", "div.s16"])
def test_not_across_a_16_bit_division(op: str, oracle) -> None:  # type: ignore[no-untyped-def]
    """ptxas divides 16-bit integers in floating point (FMUL.RZ, ...), so only the FFMAs are
    compared: none, on either side."""
    need_tools("ptxas")
    div = f"cvt.u16.u32 %rs1, %r2; cvt.u16.u32 %rs2, %r1; {op} %rs3, %rs1, %rs2;"
    ptx = _ptx(_DIV.format(mul="%f2", div=div + " cvt.u32.u16 %r3, %rs3;"))
    theirs = oracle.ptxas(ptx, "sm_90").cubin
    ours = _ours(ptx)
    assert [o for o in _fp_ops(ours) if o.startswith("FFMA")] == []
    assert [o for o in _fp_ops(theirs) if o.startswith("FFMA")] == []
    a = run_launch(ours, _spec(), hazards=True)
    b = run_launch(theirs, _spec())
    assert a.hazards == ()
    assert a.outputs[0].view(np.uint32).tolist() == b.outputs[0].view(np.uint32).tolist()


@pytest.mark.parametrize(
    ("flags", "opts"), [(["-O0"], {"opt_level": 0}), (["--fmad=false"], {"fmad": False})]
)
def test_no_contraction(flags: list[str], opts: dict[str, object], oracle) -> None:
    need_tools("ptxas")
    ptx = _ptx(CASES["basic"])
    theirs = oracle.ptxas(ptx, "sm_90", flags).cubin
    ours = _ours(ptx, **opts)
    assert _fp_ops(ours) == _fp_ops(theirs) == ["FADD ++", "FMUL ++"]
    a = run_launch(ours, _spec(), hazards=True)
    b = run_launch(theirs, _spec())
    assert a.outputs[0].view(np.uint32).tolist() == b.outputs[0].view(np.uint32).tolist()


def test_product_that_overwrites_its_source(oracle) -> None:  # type: ignore[no-untyped-def]
    """``mul.f32 %f0, %f0, %f0; add.f32 %f0, %f2, %f0``: the add became an FFMA of the multiply's
    sources while the FMUL, still writing %f0, stayed before it: the FFMA squared the product
    ((f0^2)^2 + f2; difffuzz --pressure seed 7092, reduced). Compared at -O3 with ptxas -O3
    (at -O0 neither contracts, and ptxas's -O3 reference would differ by the rounding)."""
    from pathlib import Path

    from openptxas.testing.difffuzz import check_ptx, inputs_for

    need_tools("ptxas")
    text = (Path(__file__).parent / "data" / "fma_product_overwrites_source.ptx").read_text()
    for seed in (1, 2, 3):
        r = check_ptx(text, inputs_for(seed, 64), 64, (3,), oracle)
        assert r.status == "ok", f"seed {seed}: {r.status}: {r.detail}"
