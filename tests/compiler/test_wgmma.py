"""Warpgroup MMA (sm_90a wgmma) and the mma.sync forms sm_90 emulates (issue 20): small PTX
probes compiled by openptxas and by ptxas, both cubins run in the emulator (ours with the hazard
checker, 0 reports); every output word equal. Each probe fills shared memory from its input,
builds no-swizzle K-major descriptors and runs one or more wgmmas on accumulators read from
the input (a 128-thread warpgroup)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools

SMEM = 4096 + 8192  # A (64 x 32 bytes) at 0, B (up to 256 x 32 bytes) at 2048 (aligned 128)
B_AT = 2048


def _kernel(body: str, nacc: int, *, ints: bool = False) -> str:
    """A kernel: smem <- in[0:SMEM], acc registers %a0.. <- in[SMEM + 4 (tid nacc + i)],
    %p1 = flag != 0, ``body``, out[tid nacc + i] <- %a_i."""
    loads = "\n".join(f"\tld.global.b32 %a{i}, [%rd4+{4 * i}];" for i in range(nacc))
    stores = "\n".join(f"\tst.global.b32 [%rd5+{4 * i}], %a{i};" for i in range(nacc))
    return f""".version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 flag)
{{
\t.reg .b32 %r<40>;
\t.reg .{"b32" if ints else "f32"} %a<{nacc}>;
\t.reg .b32 %b<{nacc}>;
\t.reg .b32 %x<8>;
\t.reg .b64 %rd<20>;
\t.reg .pred %p<4>;
\t.shared .align 128 .b8 smem[{SMEM}];
\tld.param.u64 %rd1, [out];
\tld.param.u64 %rd2, [in];
\tld.param.u32 %r1, [flag];
\tcvta.to.global.u64 %rd1, %rd1;
\tcvta.to.global.u64 %rd2, %rd2;
\tmov.u32 %r2, %tid.x;
\tmov.u32 %r3, smem;
\tmov.u32 %r4, %r2;
$copy:
\tshl.b32 %r5, %r4, 2;
\tcvt.u64.u32 %rd3, %r5;
\tadd.s64 %rd3, %rd2, %rd3;
\tld.global.b32 %r6, [%rd3];
\tadd.s32 %r7, %r3, %r5;
\tst.shared.b32 [%r7], %r6;
\tadd.s32 %r4, %r4, 128;
\tsetp.lt.u32 %p2, %r4, {SMEM // 4};
\t@%p2 bra $copy;
\tfence.proxy.async.shared::cta;
\tbar.sync 0;
\tmul.lo.u32 %r8, %r2, {4 * nacc};
\tcvt.u64.u32 %rd6, %r8;
\tadd.s64 %rd4, %rd2, %rd6;
\tadd.s64 %rd4, %rd4, {SMEM};
\tadd.s64 %rd5, %rd1, %rd6;
{loads}
\tshr.u32 %r10, %r3, 4;
\tand.b32 %r10, %r10, 0x3fff;
\tor.b32 %r10, %r10, 0x80000;
\tmov.b64 %rd7, {{%r10, 16}};
\tadd.s32 %r11, %r3, {B_AT};
\tshr.u32 %r11, %r11, 4;
\tand.b32 %r11, %r11, 0x3fff;
\tor.b32 %r11, %r11, 0x80000;
\tmov.b64 %rd8, {{%r11, 16}};
\tsetp.ne.u32 %p1, %r1, 0;
\tld.global.b32 %x0, [%rd4];
\tld.global.b32 %x1, [%rd4+4];
\tld.global.b32 %x2, [%rd4+8];
\tld.global.b32 %x3, [%rd4+12];
{body}
{stores}
\tret;
}}
"""


def _acc(n: int) -> str:
    return "{" + ", ".join(f"%a{i}" for i in range(n)) + "}"


def _mma(shape: str, types: str, n: int, rest: str, a: str = "%rd7") -> str:
    return f"\twgmma.mma_async.sync.aligned.{shape}.{types} {_acc(n)}, {a}, %rd8, {rest};"


SYNC = "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;"


def _sp(shape: str, types: str, n: int, rest: str, a: str = "%rd7") -> str:
    return _mma(shape, types, n, rest, a).replace("mma_async.sync", "mma_async.sp.sync")


# sparse metadata: a pattern of valid nibbles (2:4: two different indices in increasing order;
# tf32: 0b0100 or 0b1110) rotated by 4 (tid % 8) bits
_META = (
    "\tand.b32 %r30, %r2, 7;\n\tshl.b32 %r30, %r30, 2;\n\tmov.b32 %r31, 0x9C8D4E84;\n"
    "\tshf.l.wrap.b32 %r32, %r31, %r31, %r30;\n"
)
_META_TF32 = _META.replace("0x9C8D4E84", "0x4EE4E44E")
FENCE = "\twgmma.fence.sync.aligned;"

# name -> (body, accumulator registers, integer accumulator, element kind of shared memory)
CASES: dict[str, tuple[str, int, bool, str]] = {
    "f16_scale_d_pred_negA": (
        f"{FENCE}\n{_mma('m64n8k16', 'f32.f16.f16', 4, '%p1, -1, 1, 0, 0')}\n{SYNC}", 4, False,
        "f16"),
    "bf16_transB_negB_n16": (
        f"{FENCE}\n{_mma('m64n16k16', 'f32.bf16.bf16', 8, '1, 1, -1, 0, 1')}\n{SYNC}", 8, False,
        "bf16"),
    "f16_acc_f16_n32_transA": (
        f"{FENCE}\n{_mma('m64n32k16', 'f16.f16.f16', 8, '1, 1, 1, 1, 0')}\n{SYNC}", 8, True,
        "f16"),
    "tf32_scale_d_0": (
        f"{FENCE}\n{_mma('m64n8k8', 'f32.tf32.tf32', 4, '0, 1, 1')}\n{SYNC}", 4, False, "tf32"),
    "e4m3_e5m2_f32": (
        f"{FENCE}\n{_mma('m64n8k32', 'f32.e4m3.e5m2', 4, '1, 1, -1')}\n{SYNC}", 4, False, "fp8"),
    "e5m2_e4m3_f16": (
        f"{FENCE}\n{_mma('m64n16k32', 'f16.e5m2.e4m3', 4, '%p1, -1, 1')}\n{SYNC}", 4, True,
        "fp8"),
    "s8_u8": (f"{FENCE}\n{_mma('m64n8k32', 's32.s8.u8', 4, '1')}\n{SYNC}", 4, True, "int"),
    "bf16_A_in_registers_neg": (
        f"{FENCE}\n{_mma('m64n8k16', 'f32.bf16.bf16', 4, '1, -1, 1, 0', '{%x0, %x1, %x2, %x3}')}"
        f"\n{SYNC}", 4, False, "bf16"),
    # 8-bit A in registers (IGMMA/QGMMA R, R, gdesc): .satfinite, scale-a -1 (-Ra)
    "u8_s8_A_in_registers_sat": (
        f"{FENCE}\n{_mma('m64n8k32', 's32.u8.s8.satfinite', 4, '%p1', '{%x0, %x1, %x2, %x3}')}"
        f"\n{SYNC}", 4, True, "int"),
    "e4m3_e5m2_A_in_registers_neg": (
        f"{FENCE}\n{_mma('m64n16k32', 'f32.e4m3.e5m2', 8, '1, -1, -1', '{%x0, %x1, %x2, %x3}')}"
        f"\n{SYNC}", 8, False, "fp8"),
    "e5m2_A_in_registers_f16": (
        f"{FENCE}\n{_mma('m64n16k32', 'f16.e5m2.e5m2', 4, '%p1, 1, 1', '{%x0, %x1, %x2, %x3}')}"
        f"\n{SYNC}", 4, True, "fp8"),
    # sparse A (wgmma.mma_async.sp): valid metadata nibbles rotated per lane, each selector
    "sp_f16_pred_negA_transA": (
        f"{_META}{FENCE}\n{_sp('m64n8k32', 'f32.f16.f16', 4, '%r32, 1, %p1, -1, 1, 1, 0')}"
        f"\n{SYNC}", 4, False, "f16"),
    "sp_bf16_A_in_registers": (
        f"{_META}{FENCE}\n"
        f"{_sp('m64n16k32', 'f32.bf16.bf16', 8, '%r32, 0, 1, 1, -1, 1', '{%x0, %x1, %x2, %x3}')}"
        f"\n{SYNC}", 8, False, "bf16"),
    "sp_tf32": (
        f"{_META_TF32}{FENCE}\n{_sp('m64n8k16', 'f32.tf32.tf32', 4, '%r32, 1, 1, 1, 1')}"
        f"\n{SYNC}", 4, False, "tf32"),
    "sp_s8_u8_sat_A_in_registers": (
        f"{_META}{FENCE}\n"
        f"{_sp('m64n8k64', 's32.s8.u8.satfinite', 4, '%r32, 0, %p1', '{%x0, %x1, %x2, %x3}')}"
        f"\n{SYNC}", 4, True, "int"),
    "sp_e4m3_e5m2_f16": (
        f"{_META}{FENCE}\n{_sp('m64n16k64', 'f16.e4m3.e5m2', 4, '%r32, 0, 1, 1, -1')}"
        f"\n{SYNC}", 4, True, "fp8"),
    # two chained k-steps, then a second group on other accumulators: wait 1, wait 0
    "n128_two_groups": (
        f"{FENCE}\n{_mma('m64n128k16', 'f32.f16.f16', 64, '1, 1, 1, 0, 0')}\n"
        f"{_mma('m64n128k16', 'f32.f16.f16', 64, '1, 1, 1, 0, 1')}\n"
        "\twgmma.commit_group.sync.aligned;\n"
        "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%a64, %a65, %a66, %a67}, %rd7, "
        "%rd8, 0, 1, 1, 0, 0;\n"
        "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 1;\n"
        "\twgmma.wait_group.sync.aligned 0;", 68, False, "f16"),
    # an accumulator register written between the wgmma and its wait: serialised (C7515)
    "serialised_c7515": (
        f"{FENCE}\n{_mma('m64n8k16', 'f32.f16.f16', 4, '1, 1, 1, 0, 0')}\n"
        "\tmov.f32 %a1, 0f3F800000;\n" + SYNC, 4, False, "f16"),
    # an accumulator register read before the wait_group (ptxas injects a wait: C7517)
    "read_before_wait": (
        f"{FENCE}\n{_mma('m64n8k16', 'f32.f16.f16', 4, '1, 1, 1, 0, 0')}\n"
        "\tmov.f32 %a4, %a1;\n" + SYNC, 5, False, "f16"),
    # overlapping accumulator lists: serialised (C7511). (With the permuted list {a0,a1,a3,a2}
    # and scale-d 1, ptxas 13.0.88 copies the second wgmma's accumulator before the first one
    # wrote it, across the wait_group between them: a stale read; ours accumulates.)
    "serialised_c7511": (
        f"{FENCE}\n{_mma('m64n8k16', 'f32.f16.f16', 4, '1, 1, 1, 0, 0')}\n{SYNC}\n"
        "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%a3, %a2, %a4, %a5}, %rd7, %rd8, "
        "0, 1, 1, 0, 1;\n" + SYNC, 6, False, "f16"),
}  # fmt: skip


def _input(kind: str, nacc: int, ints: bool, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "f16":
        sm = rng.integers(-8, 8, SMEM // 2).astype(np.float16).view(np.uint8)
    elif kind == "bf16":
        f = rng.integers(-8, 8, SMEM // 2).astype(np.float32).view(np.uint32)
        sm = (f >> 16).astype(np.uint16).view(np.uint8)
    elif kind == "tf32":
        sm = (rng.integers(-8, 8, SMEM // 4).astype(np.float32) * 0.375).view(np.uint8)
    else:  # fp8 (every byte, NaNs included) and 8-bit integers
        sm = rng.integers(0, 256, SMEM).astype(np.uint8)
    n = 128 * nacc
    if ints:  # s32 accumulators, or f16x2 pairs of small values
        acc = rng.integers(-1000, 1000, n).astype(np.int32).view(np.uint8)
        if kind in ("f16", "fp8"):
            acc = rng.integers(-4, 4, 2 * n).astype(np.float16).view(np.uint8)
    else:
        acc = (rng.integers(-64, 64, n).astype(np.float32) * 0.5).view(np.uint8)
    return np.concatenate([sm, acc])


def _spec(name: str) -> tuple[str, dict[str, Any]]:
    body, nacc, ints, kind = CASES[name]
    data = _input(kind, nacc, ints, seed=len(name))
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [128, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 128 * nacc, "init": "zeros"},
            {"kind": "buffer", "dtype": "u8", "count": data.size,
             "init": {"hex": data.tobytes().hex()}},
            {"kind": "scalar", "dtype": "u32", "value": 1},
        ],
    }  # fmt: skip
    return _kernel(body, nacc, ints=ints), spec


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("name", sorted(CASES))
def test_wgmma_equals_ptxas(name: str, opt: int, oracle: Any) -> None:
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    ptx, spec = _spec(name)
    theirs = oracle.ptxas(ptx, "sm_90a")
    want = run_launch(theirs.cubin, spec, hazards=True)
    assert not want.hazards, want.hazards[:3]
    res = compile_ptx(ptx, Options(arch="sm_90a", opt_level=opt, verify=True), "k.ptx")
    got = run_launch(res.cubin, spec, hazards=True)
    assert not got.hazards, "\n".join(str(h) for h in got.hazards[:5])
    assert sorted(got.outputs) == sorted(want.outputs)
    for k in sorted(got.outputs):
        g, w = got.outputs[k], want.outputs[k]
        assert np.array_equal(g, w), (k, np.nonzero(g != w)[0][:10])
    assert got.outputs[sorted(got.outputs)[0]].any()
    notes = [d.message for d in res.diagnostics]
    code = {"serialised_c7515": "(C7515)", "serialised_c7511": "(C7511)"}.get(name)
    assert [n[:7] for n in notes] == ([code] if code else [])
    if code:  # ptxas prints the same line
        assert notes[0] in theirs.log, theirs.log


def test_wgmma_refusals() -> None:
    from openptxas.diag import OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    # imm-scale-a 2 is not PTX: the front end rejects it with ptxas's message
    body = f"{FENCE}\n{_mma('m64n8k16', 'f32.f16.f16', 4, '1, 2, 1, 0, 0')}\n{SYNC}"
    with pytest.raises(OpenPtxasError, match="expected to be -1 or 1"):
        compile_ptx(_kernel(body, 4), Options(arch="sm_90a"), "k.ptx")


@pytest.mark.parametrize("sel", [0, 1])
def test_sparse_wgmma_reference(sel: int, oracle: Any) -> None:
    """wgmma.mma_async.sp m64n8k32 f32.f16.f16 (A and B from shared memory) against numpy: A's
    kept half (64 x 16) and B (8 x 32) read from the no-swizzle K-major layout the descriptors
    describe (8-row core matrices of 16-byte rows, K blocks 128 bytes apart, 8-row groups 256),
    A expanded by the PTX ISA's metadata (per warp: chunk c of row g / g + 8 in bits 4 (c % 4)
    / + 16 of thread 4 g + 2 sel + c // 4), D = A B^T + C; ptxas's cubin and ours."""
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    body = (f"{_META}{FENCE}\n{_sp('m64n8k32', 'f32.f16.f16', 4, f'%r32, {sel}, 1, 1, 1, 0, 0')}"
            f"\n{SYNC}")  # fmt: skip
    ptx = _kernel(body, 4)
    data = _input("f16", 4, False, seed=11 + sel)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [128, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 128 * 4, "init": "zeros"},
            {"kind": "buffer", "dtype": "u8", "count": data.size,
             "init": {"hex": data.tobytes().hex()}},
            {"kind": "scalar", "dtype": "u32", "value": 1},
        ],
    }  # fmt: skip
    smem = data[:SMEM].view(np.float16).astype(np.float64)

    def tile(base: int, rows: int, kbytes: int) -> np.ndarray:
        r, kb = np.meshgrid(np.arange(rows), np.arange(0, kbytes, 2), indexing="ij")
        addr = base + (r >> 3) * 256 + (r & 7) * 16 + (kb >> 4) * 128 + (kb & 15)
        return smem[addr // 2]

    a_kept, b = tile(0, 64, 32), tile(B_AT, 8, 64)  # [64, 16], [8, 32]
    tid = np.arange(128)
    rot = 4 * (tid % 8)
    meta = ((0x9C8D4E84 << rot) | (0x9C8D4E84 >> (32 - rot))) & 0xFFFFFFFF
    meta[rot == 0] = 0x9C8D4E84
    a = np.zeros((64, 32))
    for row in range(64):
        w, rr = divmod(row, 16)
        for c in range(8):
            lane = 32 * w + 4 * (rr % 8) + 2 * sel + c // 4
            nib = (int(meta[lane]) >> (16 * (rr // 8) + 4 * (c % 4))) & 0xF
            a[row, 4 * c + (nib & 3)] = a_kept[row, 2 * c]
            a[row, 4 * c + (nib >> 2)] = a_kept[row, 2 * c + 1]
    acc_in = data[SMEM:].view(np.float32).reshape(128, 4).astype(np.float64)
    g, t = (tid % 32) >> 2, tid & 3
    i = np.arange(4)
    rows = (16 * (tid // 32) + g)[:, None] + 8 * (i[None, :] >> 1)
    cols = 2 * t[:, None] + (i[None, :] & 1)
    want = (a @ b.T)[rows, cols] + acc_in
    theirs = run_launch(oracle.ptxas(ptx, "sm_90a").cubin, spec)
    ours = run_launch(
        compile_ptx(ptx, Options(arch="sm_90a", verify=True), "k.ptx").cubin, spec, hazards=True
    )
    assert not ours.hazards, ours.hazards[:3]
    for res in (theirs, ours):
        got = res.outputs[0].view(np.float32).reshape(128, 4).astype(np.float64)
        assert np.array_equal(got, want), np.argwhere(got != want)[:5]


def test_wgmma_accumulator_is_never_spilled(oracle: Any) -> None:
    """A wgmma's accumulator belongs to the tensor core until its WARPGROUP.DEPBAR: spill code
    beside the wgmma stored it before the wgmma had written it (here 132 read-before-DEPBAR
    hazards at -maxrregcount 77; 512 on the public corpus's Triton matmul_w4, whose 64-register
    group was an internal KeyError before that). The accumulators are never spill candidates:
    other values spill, or the compile is refused (ptxas: C7602 below 90 registers here)."""
    need_tools("ptxas")
    from openptxas.diag import InternalError, RegAllocError
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    ptx, spec = _spec("n128_two_groups")
    want = run_launch(oracle.ptxas(ptx, "sm_90a").cubin, spec)
    res = compile_ptx(ptx, Options(arch="sm_90a", maxrregcount=77, verify=True), "k.ptx")
    got = run_launch(res.cubin, spec, hazards=True)
    assert not got.hazards, "\n".join(str(h) for h in got.hazards[:5])
    for k in sorted(want.outputs):
        assert np.array_equal(got.outputs[k], want.outputs[k])
    with pytest.raises(RegAllocError) as exc:
        compile_ptx(ptx, Options(arch="sm_90a", maxrregcount=72), "k.ptx")
    assert not isinstance(exc.value, InternalError)
