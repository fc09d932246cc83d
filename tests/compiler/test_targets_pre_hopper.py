"""Code generation for sm_75, sm_80, sm_86 and sm_89 (issue 23): the kernels the target-specific
rules touch, compiled by openptxas for each target, give ptxas's results for that target in the
emulator with the target's hazard model, and nvdisasm reads our cubin as our decoder does.

The rules (lower/ and passes/legalize.py, the target model's ``lacks`` and ``desc_printed``):
sm_80's LDG/STG print no descriptor, VIMNMX and REDG are IMNMX and RED, CGAERRBAR is dropped,
WARPSYNC.ALL is WARPSYNC 0xffffffff, F2FP and DMMA are spelled as sm_80 spells them, sm_80 has
no I2FP, and a static shared variable's address is its offset (no cluster window). sm_75 has no
descriptors at all, spells memory order its own way (LDG.E.SYS for a weak load), writes BAR.SYNC
and LDS.U, and votes all/uni from the ballot (Lowering.mem_mods, drop_mods, add_mods,
vote_by_ballot)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from openptxas.diag import UnsupportedFeature
from openptxas.driver import compile_ptx
from openptxas.emu import run_launch
from openptxas.isa import model as isa
from openptxas.isa.codec import decode_code
from openptxas.isa.direct import encode_printed
from openptxas.isa.family import load_family
from openptxas.options import Options
from openptxas.targets import get_target
from openptxas.testing.corpus import discover
from tests.conftest import need_tools, run_ours
from tests.emu.harness import Case, check_case, compile_ours, differences

DATA = Path(__file__).parent / "data"
# kernel -> what it exercises on these targets
KERNELS = {
    "t1/int32_arith": "VIMNMX as IMNMX",
    "t1/atomics_global": "REDG as RED; hidden descriptor",
    "t1/atomics_shared": "static shared variables at their offsets",
    "t1/last_block_reduce": "fence without CGAERRBAR",
    "t1/reduce_tree": "WARPSYNC 0xffffffff",
    "t1/int_convert": "I2F where sm_80 has no I2FP",
    "t2/f16_convert": "F2FP.PACK_AB",
    "t3/mma_sync": "DMMA.884",
    "t3/cp_async": "LDGSTS with a hidden descriptor",
}
KERNELS_75 = {
    "t1/vote_ballot": "vote.all/uni from the ballot",
    "t1/syncthreads_variants": "BAR.SYNC and BAR.RED without DEFER_BLOCKING",
    "t1/shared_static": "LDS.U",
    "t1/atomics_global": "no descriptor, RED",
    "t1/int_convert": "I2F",
    "t2/f64_math": "doubles",
    "t2/f16_arith": "cvt.rn.f16.f32 as F2F.F16.F32 (no F2FP)",
    "t2/half2_arith": "two halves packed by PRMT, not by F2FP.PACK_AB",
}
TARGETS = ("sm_80", "sm_86", "sm_89")
# sm_86 and sm_89 differ from sm_80 only in their tables and models: fewer kernels for them
PARAMS = [(t, k) for t in TARGETS for k in (KERNELS if t == "sm_80" else list(KERNELS)[:4])]
PARAMS += [("sm_75", k) for k in KERNELS_75]


@pytest.mark.parametrize(("target", "name"), PARAMS)
def test_kernel_matches_ptxas(target: str, name: str, oracle) -> None:
    need_tools("nvcc", "ptxas")
    ks = next(k for k in discover() if k.name == name)
    cubin = compile_ours(ks, 3, oracle, target)
    for spec in ks.specs:
        case = Case(ks, target, spec)
        ours = run_launch(cubin, spec, hazards=True)
        assert not ours.hazards, "\n".join(str(h) for h in ours.hazards[:5])
        theirs = run_launch(case.cubin(), spec)
        assert not differences(ours, theirs), differences(ours, theirs)
        assert not check_case(case, ours)
    if need_nvdisasm():
        from openptxas.testing.sass_check import compare_cubin

        res = compare_cubin(cubin, oracle.nvdisasm(cubin, f"{name} [{target}]"))
        assert not res.problems, "\n".join(res.problems[:20])
        assert res.instructions == res.decoded == res.bit_exact == res.same_text > 0


def need_nvdisasm() -> bool:
    from openptxas.testing.tools import find_tool

    return find_tool("nvdisasm") is not None


def test_hidden_descriptor_is_ptxas_word() -> None:
    """ptxas's sm_80 ``LDG.E R7, [R6.64]`` after ``ULDC.64 UR6, c[0x0][0x118]`` (t1/atomics_shared)
    keeps UR6 in a field nvdisasm does not print; the explicit form sets one more bit."""
    from openptxas.codegen_encode import _hidden_desc

    fam = load_family("sm80")
    ops = (
        isa.Reg(isa.RegFile.R, 7),
        isa.Mem(isa.Reg(isa.RegFile.R, 6, sel="64"), None, 0, isa.Reg(isa.RegFile.UR, 6)),
    )
    explicit = encode_printed(fam, "LDG", ("E",), ops, isa.PT, isa.Control(stall=1, wr=2))
    word = _hidden_desc(explicit, fam, ("E",), ops, isa.PT, 0)
    ptxas = 0x0000000606077981 | (0x000EA2000C1E1900 << 64)
    assert word & ((1 << 105) - 1) == ptxas & ((1 << 105) - 1)  # (less the wait/reuse bits)
    assert explicit.word != word
    (ins,) = decode_code(word.to_bytes(16, "little"), fam)
    assert isinstance(ins, isa.Instruction) and ins.operands[2].desc is None


def test_no_i2fp_on_sm80_only() -> None:
    assert not get_target("sm_80").has_op("I2FP") and get_target("sm_80").has_op("I2F")
    assert get_target("sm_86").has_op("I2FP")


SHARED_PTX = """.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
 .reg .b32 %r<8>; .reg .b64 %rd<9>;
 .shared .align 4 .b8 buf[128];
 .shared .align 4 .b8 buf2[128];
 ld.param.u64 %rd1, [p];
 mov.u32 %r2, %tid.x;
 mov.u64 %rd5, buf2;
 cvta.shared.u64 %rd6, %rd5;
 mul.wide.u32 %rd8, %r2, 4;
 add.s64 %rd3, %rd6, %rd8;
 st.u32 [%rd3], %r2;
 cvta.to.shared.u64 %rd7, %rd6;
 cvt.u32.u64 %r5, %rd7;
 mov.u32 %r6, buf;
 shl.b32 %r7, %r2, 2;
 add.u32 %r6, %r6, %r7;
 st.shared.u32 [%r6], %r2;
 bar.sync 0;
 ld.shared.u32 %r3, [buf+8];
 ld.shared.u32 %r4, [%r5+12];
 cvta.to.global.u64 %rd2, %rd1;
 st.global.u32 [%rd2], %r3;
 st.global.u32 [%rd2+4], %r4;
 st.global.u64 [%rd2+8], %rd6;
 ret;
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_shared_window_sm80(opt: int, oracle) -> None:
    """cvta.shared adds the generic window of bank 0 (c[0x0][0x18]), cvta.to.shared subtracts
    it, and a shared variable's address is its offset, as ptxas computes them on sm_80."""
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 4, "init": {"hex": "00" * 16}},
            {"kind": "scalar", "dtype": "u64", "value": 0},
        ],
    }
    ours = run_ours(SHARED_PTX, spec, opt, "sm_80").outputs[0]
    assert (
        ours[0] == 2 and ours[1] == 3 and ours[2] == 0x80
    )  # buf[2], buf2[3]: threads 2 and 3 stored them
    need_tools("ptxas")
    theirs = run_launch(oracle.ptxas(SHARED_PTX, "sm_80").cubin, spec).outputs[0]
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_89"])
def test_external_calls_before_sm90(arch: str, oracle) -> None:
    """Before sm_90 LEPC gives its own address: the return address is that plus the return
    site's distance (an IADD3 the encoder resolves). The emulator checks that a driver function
    returns after its call, so a wrong distance faults (the mutation below)."""
    from openptxas.emu.errors import KernelFault

    ptx = (DATA / "calls_ext" / "vprintf_clobbers.ptx").read_text()
    ptx = re.sub(r"\.target sm_\d+a?", f".target {arch}", ptx)
    spec = {
        "kernel": "clob",
        "grid": [1, 1, 1],
        "block": [2, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 40, "init": "random", "seed": 9},
            {"kind": "buffer", "dtype": "u32", "count": 40, "init": "zeros"},
        ],
    }
    got = run_ours(ptx, spec, 3, arch)
    assert got.printf == "h\n" * 2
    need_tools("ptxas")
    want = run_launch(oracle.ptxas(ptx, arch).cubin, spec)
    assert all(np.array_equal(a, b) for a, b in zip(got.outputs, want.outputs, strict=True))
    # the same cubin with the distance 16 bytes short returns into the call itself
    cubin = bytearray(compile_ptx(ptx, Options(arch=arch)).cubin)
    fam = load_family(get_target(arch).family)
    from openptxas.elf.reader import read_cubin

    (_, sec), *_ = read_cubin(bytes(cubin)).find_sections(".text.")
    code = sec.data()
    for k in range(0, len(code), 16):
        (ins,) = decode_code(code[k : k + 16], fam)
        if isinstance(ins, isa.Instruction) and ins.opcode == "IADD3":
            r, imm = ins.operands[0], ins.operands[4]
            if isinstance(r, isa.Reg) and r.index == 20 and isinstance(imm, isa.Imm):
                old = code[k : k + 16]
                word = int.from_bytes(old, "little")
                word = word & ~(0xFFFFFFFF << 32) | ((imm.value - 16) & 0xFFFFFFFF) << 32
                at = bytes(cubin).index(old)
                cubin[at : at + 16] = word.to_bytes(16, "little")
                break
    else:
        raise AssertionError("no IADD3 R20 in the cubin")
    with pytest.raises(KernelFault, match="returns to"):
        run_launch(bytes(cubin), spec)


MEMORY_ORDER_PTX = """.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
 .reg .b32 %r<16>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [p];
 cvta.to.global.u64 %rd2, %rd1;
 ld.global.u32 %r1, [%rd2];
 ld.volatile.global.u32 %r2, [%rd2+4];
 ld.relaxed.gpu.global.u32 %r3, [%rd2+8];
 ld.acquire.gpu.global.u32 %r4, [%rd2+12];
 ld.relaxed.sys.global.u32 %r5, [%rd2+16];
 ld.global.nc.u32 %r6, [%rd2+20];
 ld.relaxed.cta.global.u32 %r7, [%rd2+24];
 add.u32 %r9, %r1, %r2; add.u32 %r9, %r9, %r3; add.u32 %r9, %r9, %r4;
 add.u32 %r9, %r9, %r5; add.u32 %r9, %r9, %r6; add.u32 %r9, %r9, %r7;
 st.global.u32 [%rd2+32], %r9;
 st.volatile.global.u32 [%rd2+36], %r9;
 st.relaxed.gpu.global.u32 [%rd2+40], %r9;
 st.release.gpu.global.u32 [%rd2+44], %r9;
 st.relaxed.sys.global.u32 [%rd2+48], %r9;
 ret;
}
"""


def _memory_spellings(cubin: bytes, family: str) -> list[str]:
    from openptxas.elf.reader import read_cubin

    out = []
    for _, sec in read_cubin(cubin).find_sections(".text."):
        for ins in decode_code(sec.data(), load_family(family)):
            if isinstance(ins, isa.Instruction) and ins.opcode in ("LDG", "STG"):
                out.append(".".join((ins.opcode, *ins.mods)))
    return sorted(out)


def test_sm75_memory_order_as_ptxas(oracle) -> None:
    """Weak, volatile, relaxed, acquire/release and .nc loads and stores: sm_75's spellings
    (LDG.E.SYS, LDG.E.CONSTANT.SYS, LDG.E.STRONG.CTA for relaxed.cta ...) are ptxas's."""
    ours = compile_ptx(MEMORY_ORDER_PTX, Options(arch="sm_75")).cubin
    got = _memory_spellings(ours, "sm75")
    assert "LDG.E.SYS" in got and "LDG.E.STRONG.CTA" in got
    need_tools("ptxas")
    assert got == _memory_spellings(oracle.ptxas(MEMORY_ORDER_PTX, "sm_75").cubin, "sm75")


def test_sm75_has_no_descriptor_load() -> None:
    cubin = compile_ptx(MEMORY_ORDER_PTX, Options(arch="sm_75")).cubin
    from openptxas.elf.reader import read_cubin

    for _, sec in read_cubin(cubin).find_sections(".text."):
        for ins in decode_code(sec.data(), load_family("sm75")):
            assert isinstance(ins, isa.Instruction)
            assert not (ins.opcode == "ULDC" and ins.mods == ("64",)), "a descriptor load"


def test_sm75_half_rz_refused() -> None:
    """ptxas's sm_75 cvt.rz.f16.f32 is an HADD2 the emulator rounds otherwise: refused until the
    hardware says which is right."""
    ptx = """.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
 .reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<2>; .reg .b64 %rd<3>;
 ld.param.u64 %rd1, [p];
 cvta.to.global.u64 %rd2, %rd1;
 ld.global.f32 %f1, [%rd2];
 cvt.rz.f16.f32 %h1, %f1;
 st.global.b16 [%rd2+4], %h1;
 ret;
}
"""
    with pytest.raises(UnsupportedFeature, match="F2FP"):
        compile_ptx(ptx, Options(arch="sm_75"))
    assert compile_ptx(ptx.replace("cvt.rz.", "cvt.rn."), Options(arch="sm_75")).cubin


def _byte_differences(a: bytes, b: bytes) -> list[int]:
    assert len(a) == len(b)
    return [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


@pytest.mark.parametrize("name", ["t1/int32_arith", "t1/atomics_global"])
def test_sm88_is_sm86(name: str, oracle) -> None:
    """sm_88's cubin is sm_86's but for the ELF header's SM number and the tool command line,
    in ptxas's output and in ours (targets/data/sm_88.toml: ``like = "sm_86"``)."""
    need_tools("nvcc", "ptxas")
    ks = next(k for k in discover() if k.name == name)
    ptx = oracle.cu_to_ptx(ks.cu_path, "sm_86", ks.nvcc_flags)
    theirs = {t: oracle.ptxas(ptx, t, [*ks.ptxas_flags]).cubin for t in ("sm_86", "sm_88")}
    ours = {t: compile_ptx(ptx, Options(arch=t)).cubin for t in ("sm_86", "sm_88")}
    for pair in (theirs, ours):
        diff = _byte_differences(pair["sm_86"], pair["sm_88"])
        assert diff and diff[0] == 0x31  # e_flags' SM byte (0x56 -> 0x58)
        assert all(pair["sm_86"][i : i + 1] == b"6" for i in diff[1:])  # "-arch sm_86"


@pytest.mark.parametrize("arch", ["sm_87", "sm_103", "sm_110", "sm_121"])
def test_known_targets_without_code_generation_are_refused(arch: str) -> None:
    """ptxas compiles for these; openptxas knows them but does not generate their code yet:
    refused with a diagnostic, not 'not defined' (sm_87 starts every kernel with its own
    barrier-reset sequence; sm_103/sm_121 are Blackwell; sm_110 has its own table)."""
    ptx = MEMORY_ORDER_PTX.replace(".target sm_75", ".target sm_80")
    with pytest.raises(UnsupportedFeature, match=f"compiling for {arch} is not supported"):
        compile_ptx(ptx, Options(arch=arch))
