"""Asynchronous stores and reductions into a cluster peer's shared memory (STAS, REDAS) and tensor
copies through swizzled maps and tensor reductions (UTMALDG/UTMASTG with 32/64/128-byte
swizzles, UTMAREDG), against references computed without the emulator: Python integers, numpy
and the layouts the CUDA driver API and the PTX ISA define.

Swizzle reference (``_swizzled``): ``CU_TENSOR_MAP_SWIZZLE_{32,64,128}B`` "swizzle 16B chunks
within a 32/64/128B span" (CUDA driver API); the box's W-byte rows are consecutive and the
16-byte chunk index of shared byte ``a`` is XORed with ``(a >> 7) % (W / 16)`` (the pattern
repeats every 8 W bytes; CUTLASS's Swizzle<3,4,3>/<2,4,3>/<1,4,3> on byte addresses, the layout
wgmma descriptors with the same swizzle mode read, which tests/emu/test_wgmma_triton.py checks on
Triton's code). The test writes the expected shared-memory image from that rule, element by
element.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from openptxas.emu.launch import launch
from tests.emu.ptxrun import cubin, ptx_header, run, sass

NDArray = np.ndarray[Any, Any]
RNG = np.random.default_rng(20261127)


def _forms(blob: bytes) -> set[str]:
    return {".".join((i.opcode, *i.mods)) for i in sass(blob)}


# -- STAS / REDAS: st.async and red.async into the partner CTA (cluster of 2) ------------------

# red.async operations, in the order of the accumulator words (the last one is 64-bit)
RED_OPS = ("min.s32", "max.u32", "inc.u32", "dec.u32", "and.b32", "or.b32", "xor.b32", "add.u32")
INC_BOUND, DEC_BOUND = 40, 25
BYTES_PER_THREAD = 4 + 8 + 16 + 8 + 4 * len(RED_OPS) + 8
ST = "st.async.shared::cluster.mbarrier::complete_tx::bytes"
RED = "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes"

STAS_PTX = (
    ptx_header("sm_90a")
    + f"""
.visible .entry k(.param .u64 out, .param .u64 in, .param .u64 init)
    .explicitcluster .reqnctapercluster 2, 1, 1
{{
    .reg .b64 %rd<12>;
    .reg .b32 %r<40>, %x<7>;
    .reg .b64 %y;
    .reg .pred %p, %q;
    .shared .align 16 .b8 got1[128];
    .shared .align 16 .b8 got2[256];
    .shared .align 16 .b8 got4[512];
    .shared .align 16 .b8 got8[256];
    .shared .align 16 .b8 acc[40];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.param.u64 %rd3, [init];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mad.lo.u32 %r3, %r2, 32, %r1;           // this thread's row of `in` (9 words)
    mul.wide.u32 %rd4, %r3, 36;
    add.u64 %rd5, %rd2, %rd4;
    ld.global.u32 %x0, [%rd5];
    ld.global.u32 %x1, [%rd5+4];
    ld.global.u32 %x2, [%rd5+8];
    ld.global.u32 %x3, [%rd5+12];
    ld.global.u32 %x4, [%rd5+16];
    ld.global.u32 %x5, [%rd5+20];
    ld.global.u32 %x6, [%rd5+24];
    ld.global.u32 %r38, [%rd5+28];
    ld.global.u32 %r39, [%rd5+32];
    mov.b64 %y, {{%r38, %r39}};
    mov.u32 %r4, acc;
    mov.u32 %r5, bar;
    setp.ne.u32 %p, %r1, 0;
    @%p bra ARMED;
    mul.wide.u32 %rd6, %r2, 40;             // this CTA's accumulators start at init[rank]
    add.u64 %rd7, %rd3, %rd6;
    ld.global.v2.u32 {{%r6, %r7}}, [%rd7];
    ld.global.v2.u32 {{%r8, %r9}}, [%rd7+8];
    ld.global.v2.u32 {{%r10, %r11}}, [%rd7+16];
    ld.global.v2.u32 {{%r12, %r13}}, [%rd7+24];
    ld.global.u64 %rd8, [%rd7+32];
    st.shared.v2.u32 [%r4], {{%r6, %r7}};
    st.shared.v2.u32 [%r4+8], {{%r8, %r9}};
    st.shared.v2.u32 [%r4+16], {{%r10, %r11}};
    st.shared.v2.u32 [%r4+24], {{%r12, %r13}};
    st.shared.u64 [%r4+32], %rd8;
    mbarrier.init.shared::cta.b64 [%r5], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], {32 * BYTES_PER_THREAD};
ARMED:
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    xor.b32 %r14, %r2, 1;                   // the partner
    mapa.shared::cluster.u32 %r15, %r5, %r14;
    shl.b32 %r16, %r1, 2;
    mov.u32 %r17, got1;
    add.u32 %r18, %r17, %r16;
    mapa.shared::cluster.u32 %r18, %r18, %r14;
    {ST}.u32 [%r18], %x0, [%r15];
    shl.b32 %r19, %r1, 3;
    mov.u32 %r20, got2;
    add.u32 %r21, %r20, %r19;
    mapa.shared::cluster.u32 %r21, %r21, %r14;
    {ST}.v2.u32 [%r21], {{%x1, %x2}}, [%r15];
    shl.b32 %r22, %r1, 4;
    mov.u32 %r23, got4;
    add.u32 %r24, %r23, %r22;
    mapa.shared::cluster.u32 %r24, %r24, %r14;
    {ST}.v4.u32 [%r24], {{%x3, %x4, %x5, %x6}}, [%r15];
    mov.u32 %r25, got8;
    add.u32 %r26, %r25, %r19;
    mapa.shared::cluster.u32 %r26, %r26, %r14;
    {ST}.b64 [%r26], %y, [%r15];
    mapa.shared::cluster.u32 %r27, %r4, %r14;
    {RED}.min.s32 [%r27], %x0, [%r15];
    {RED}.max.u32 [%r27+4], %x1, [%r15];
    mov.u32 %r28, {INC_BOUND};
    {RED}.inc.u32 [%r27+8], %r28, [%r15];
    mov.u32 %r29, {DEC_BOUND};
    {RED}.dec.u32 [%r27+12], %r29, [%r15];
    {RED}.and.b32 [%r27+16], %x2, [%r15];
    {RED}.or.b32 [%r27+20], %x3, [%r15];
    {RED}.xor.b32 [%r27+24], %x4, [%r15];
    {RED}.add.u32 [%r27+28], %x5, [%r15];
    {RED}.add.u64 [%r27+32], %y, [%r15];
WAIT:
    mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %q, [%r5], 0;
    @!%q bra WAIT;
    mad.lo.u32 %r30, %r2, 32, %r1;          // out: per CTA 32 rows of 9 words (what arrived), then
    mul.wide.u32 %rd9, %r30, 36;            // 10 words of accumulators after the 64 rows
    add.u64 %rd10, %rd1, %rd9;
    add.u32 %r31, %r17, %r16;
    ld.shared.u32 %r32, [%r31];
    st.global.u32 [%rd10], %r32;
    add.u32 %r31, %r20, %r19;
    ld.shared.v2.u32 {{%r32, %r33}}, [%r31];
    st.global.u32 [%rd10+4], %r32;
    st.global.u32 [%rd10+8], %r33;
    add.u32 %r31, %r23, %r22;
    ld.shared.v4.u32 {{%r32, %r33, %r34, %r35}}, [%r31];
    st.global.u32 [%rd10+12], %r32;
    st.global.u32 [%rd10+16], %r33;
    st.global.u32 [%rd10+20], %r34;
    st.global.u32 [%rd10+24], %r35;
    add.u32 %r31, %r25, %r19;
    ld.shared.u64 %rd11, [%r31];
    st.global.u32 [%rd10+28], %rd11;
    shr.u64 %rd11, %rd11, 32;
    st.global.u32 [%rd10+32], %rd11;
    setp.ge.u32 %p, %r1, 10;
    @%p bra DONE;
    add.u32 %r36, %r4, %r16;                // thread t < 10: accumulator word t
    ld.shared.u32 %r37, [%r36];
    mad.lo.u32 %r38, %r2, 10, %r1;
    mul.wide.u32 %rd9, %r38, 4;
    add.u64 %rd10, %rd1, %rd9;
    st.global.u32 [%rd10+{64 * 36}], %r37;
DONE:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}}
"""
)


def _red_ref(op: str, acc: int, operands: list[int]) -> int:
    """The accumulator after every operand, in order (the PTX ISA's red operations)."""
    for v in operands:
        if op == "min.s32":
            s = lambda x: x - (x >> 31 << 32)  # noqa: E731
            acc = acc if s(acc) <= s(v) else v
        elif op == "max.u32":
            acc = max(acc, v)
        elif op == "inc.u32":
            acc = 0 if acc >= v else acc + 1
        elif op == "dec.u32":
            acc = v if acc == 0 or acc > v else acc - 1
        elif op == "and.b32":
            acc &= v
        elif op == "or.b32":
            acc |= v
        elif op == "xor.b32":
            acc ^= v
        elif op == "add.u32":
            acc = (acc + v) % 2**32
        else:
            acc = (acc + v) % 2**64
    return acc


def test_st_async_red_async_cluster() -> None:
    """STAS (.u32, .v2, .v4, .b64) and REDAS (min.s32, max.u32, inc, dec, and, or, xor, add.u32,
    add.u64): in a cluster of 2, each thread stores into its partner CTA's shared memory and
    reduces into the partner's accumulators (all 32 threads on the same words), everything
    completing on the partner's mbarrier, armed for exactly the bytes that arrive."""
    blob = cubin(STAS_PTX, "sm_90a")
    forms = _forms(blob)
    want_forms = {"STAS", "STAS.64", "STAS.128", "REDAS.MIN.S32", "REDAS.MAX", "REDAS.INC"}
    want_forms |= {"REDAS.DEC", "REDAS.AND", "REDAS.OR", "REDAS.XOR", "REDAS.ADD", "REDAS.ADD.64"}
    assert want_forms <= forms, want_forms - forms
    src = RNG.integers(0, 2**32, size=(64, 9), dtype=np.uint32)
    src[:, 0] = RNG.integers(-1000, 1000, size=64).astype(np.int32).view(np.uint32)
    init = RNG.integers(0, 2**32, size=(2, 10), dtype=np.uint32)
    init[:, 2] = [3, 30]  # inc: 32 increments wrap at the bound (40) from 30, not from 3
    init[:, 3] = [0, 17]  # dec: starts at 0 (-> the bound) and below the bound
    out = np.zeros(64 * 9 + 20, dtype=np.uint32)
    (got, _, _), _, _ = run(STAS_PTX, [out, src, init], target="sm_90a", grid=2, block=32)
    for rank in range(2):
        partner = src[32 * (1 - rank) : 32 * (2 - rank)]
        np.testing.assert_array_equal(
            got[: 64 * 9].reshape(64, 9)[32 * rank : 32 * rank + 32], partner
        )
        accs = got[64 * 9 + 10 * rank : 64 * 9 + 10 * rank + 10]
        operands = {
            "min.s32": partner[:, 0],
            "max.u32": partner[:, 1],
            "inc.u32": [INC_BOUND] * 32,
            "dec.u32": [DEC_BOUND] * 32,
            "and.b32": partner[:, 2],
            "or.b32": partner[:, 3],
            "xor.b32": partner[:, 4],
            "add.u32": partner[:, 5],
        }
        for j, op in enumerate(RED_OPS):
            want = _red_ref(op, int(init[rank, j]), [int(v) for v in operands[op]])
            assert int(accs[j]) == want, (rank, op)
        y = [int(lo) | int(hi) << 32 for lo, hi in partner[:, 7:9]]
        want64 = _red_ref("add.u64", int(init[rank, 8]) | int(init[rank, 9]) << 32, y)
        assert int(accs[8]) | int(accs[9]) << 32 == want64


# -- swizzled tensor copies: UTMALDG / UTMASTG with CU_TENSOR_MAP_SWIZZLE_{32,64,128}B ---------

TCOLS, TROWS = 40, 36  # the f32 tensor (innermost first: 40 columns, 36 rows)
BOX_ROWS = 16  # two repeats of the 8-row swizzle pattern


def _swizzle_ptx(w: int) -> str:
    nbytes = BOX_ROWS * w
    return (
        ptx_header("sm_90a")
        + f"""
.visible .entry k(.param .align 128 .b8 map[128], .param .u64 tensor, .param .u64 out,
                  .param .u32 cx, .param .u32 cy, .param .u32 sx, .param .u32 sy)
{{
    .reg .b64 %rd<8>;
    .reg .b32 %r<16>;
    .reg .pred %p, %q;
    .shared .align 1024 .b8 box[{nbytes}];
    .shared .align 8 .b64 bar;
    mov.b64 %rd1, map;
    cvta.param.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [cx];
    ld.param.u32 %r2, [cy];
    ld.param.u32 %r3, [sx];
    ld.param.u32 %r4, [sy];
    mov.u32 %r5, %tid.x;
    mov.u32 %r6, box;
    mov.u32 %r7, bar;
    setp.ne.u32 %p, %r5, 0;
    @%p bra LOADED;
    mbarrier.init.shared::cta.b64 [%r7], 1;
    fence.mbarrier_init.release.cluster;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r7], {nbytes};
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
        [%r6], [%rd1, {{%r1, %r2}}], [%r7];
LOADED:
    bar.sync 0;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %q, [%r7], 0;
    @!%q bra WAIT;
    mov.u32 %r8, %r5;                   // the raw shared image, word by word
COPY:
    shl.b32 %r9, %r8, 2;
    add.u32 %r10, %r6, %r9;
    ld.shared.u32 %r11, [%r10];
    mul.wide.u32 %rd3, %r8, 4;
    add.u64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r11;
    add.u32 %r8, %r8, 128;
    setp.lt.u32 %q, %r8, {nbytes // 4};
    @%q bra COPY;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @%p bra DONE;
    cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {{%r3, %r4}}], [%r6];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
DONE:
    ret;
}}
"""
    )


def _tensor_map(w: int, dtype: str, cols: int, rows: int, box: list[int], elem: int) -> Any:
    return {
        "kind": "bytes",
        "size": 128,
        "align": 128,
        "role": "in",
        "init": "zeros",
        "tensor_map": {
            "encode": "tiled",
            "buffer_arg": 1,
            "dtype": dtype,
            "rank": 2,
            "global_dim": [cols, rows],
            "global_strides_bytes": [cols * elem],
            "box_dim": box,
            "element_strides": [1, 1],
            "interleave": "none",
            "swizzle": f"{w}b" if w else "none",
            "l2_promotion": "none",
            "oob_fill": "none",
        },
    }


def _swizzled(box: NDArray, w: int) -> NDArray:
    """The shared-memory image (32-bit words) of a box of f32 rows of ``w`` bytes at a
    pattern-aligned address: element (r, c) at byte ``d = r w + 4 c`` with its 16-byte chunk
    XORed with ``(d >> 7) % (w / 16)``."""
    image = np.zeros(box.size, dtype=box.dtype)
    for r in range(box.shape[0]):
        for c in range(box.shape[1]):
            d = r * w + 4 * c
            image[(d ^ (((d >> 7) % (w // 16)) << 4)) // 4] = box[r, c]
    return image


@pytest.mark.parametrize("w", [128, 64, 32])
def test_tensor_copy_swizzle(w: int) -> None:
    """A box of (w / 4) x 16 f32 loaded through a map with a w-byte swizzle, partly outside the
    tensor (zero fill): the raw shared image must be the swizzled layout; stored back through the
    same map at negative coordinates, the (unswizzled) box lands in the tensor, clipped."""
    bw = w // 4
    ptx = _swizzle_ptx(w)
    blob = cubin(ptx, "sm_90a")
    assert {"UTMALDG.2D", "UTMASTG.2D"} <= _forms(blob)
    tensor = RNG.standard_normal((TROWS, TCOLS)).astype(np.float32)
    cx, cy, sx, sy = TCOLS - bw + 4, TROWS - 12, -4, -2
    spec = {
        "kernel": "k",
        "grid": [1],
        "block": [128],
        "shared_bytes": 0,
        "args": [
            _tensor_map(w, "float32", TCOLS, TROWS, [bw, BOX_ROWS], 4),
            {"kind": "buffer", "dtype": "f32", "count": tensor.size, "role": "inout"},
            {"kind": "buffer", "dtype": "u32", "count": BOX_ROWS * bw, "role": "out"},
            *({"kind": "scalar", "dtype": "i32", "init": v} for v in (cx, cy, sx, sy)),
        ],
    }
    res = launch(blob, spec, inputs={"arg1": tensor.reshape(-1)}, hazards=True)
    assert not res.hazards, res.hazards
    box = np.zeros((BOX_ROWS, bw), dtype=np.float32)
    inside = tensor[cy : cy + BOX_ROWS, cx : cx + bw]
    box[: inside.shape[0], : inside.shape[1]] = inside
    image = res.args[2].view(np.float32)
    np.testing.assert_array_equal(image, _swizzled(box, w))
    assert not np.array_equal(image, box.reshape(-1))  # the swizzle moved something
    want = tensor.copy()
    want[0 : BOX_ROWS + sy, 0 : bw + sx] = box[-sy:, -sx:]
    np.testing.assert_array_equal(res.args[1].reshape(TROWS, TCOLS), want)


# -- UTMAREDG: cp.reduce.async.bulk.tensor on every element type --------------------------------

RCOLS, RROWS = 24, 6
RBOX = (16, 4)  # innermost first
RCOORDS = ((-4, -1), (12, 3))  # both boxes partly outside the tensor


def _reduce_ptx(op: str, bits: int) -> str:
    return (
        ptx_header("sm_90a")
        + f"""
.visible .entry k(.param .align 128 .b8 map[128], .param .u64 tensor, .param .u64 vals)
{{
    .reg .b64 %rd<8>;
    .reg .b32 %r<8>;
    .reg .b{bits} %v;
    .reg .pred %p;
    .shared .align 128 .b8 box[{RBOX[0] * RBOX[1] * bits // 8}];
    mov.b64 %rd1, map;
    cvta.param.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [vals];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, {bits // 8};
    add.u64 %rd4, %rd2, %rd3;
    ld.global.b{bits} %v, [%rd4];
    mov.u32 %r2, box;
    mad.lo.u32 %r3, %r1, {bits // 8}, %r2;
    st.shared.b{bits} [%r3], %v;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p, %r1, 0;
    @%p bra DONE;
    mov.u32 %r4, {RCOORDS[0][0]};
    mov.u32 %r5, {RCOORDS[0][1]};
    cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group
        [%rd1, {{%r4, %r5}}], [%r2];
    mov.u32 %r4, {RCOORDS[1][0]};
    mov.u32 %r5, {RCOORDS[1][1]};
    cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group
        [%rd1, {{%r4, %r5}}], [%r2];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
DONE:
    ret;
}}
"""
    )


def _elem_ref(op: str, dtype: str, old: Any, v: Any) -> Any:
    """The PTX ISA's reduction of one element (old: the tensor's, v: the box's)."""
    if dtype in ("float16", "bfloat16"):
        from openptxas.spec import bf16_bits_to_float, float_to_bf16_bits

        if dtype == "float16":
            a, b = float(np.uint16(old).view(np.float16)), float(np.uint16(v).view(np.float16))
        else:
            a, b = (float(bf16_bits_to_float(np.array([x]))[0]) for x in (old, v))
        if op == "add":
            r = a + b  # exact in float64 (the inputs are chosen so for bf16: see the test)
        else:
            r = min(a, b) if op == "min" else max(a, b)
        if dtype == "float16":
            return np.float16(r).view(np.uint16)
        return float_to_bf16_bits(np.array([r], dtype=np.float32))[0]
    if dtype == "float32":
        return np.float32(old) + np.float32(v)
    bits = np.dtype(dtype).itemsize * 8
    mask = (1 << bits) - 1
    o, x = int(old), int(v)
    signed = np.dtype(dtype).kind == "i"
    return {
        "add": lambda: ((o + x) & mask) - (((o + x) >> (bits - 1) & 1) << bits if signed else 0),
        "min": lambda: min(o, x),
        "max": lambda: max(o, x),
        "inc": lambda: 0 if o >= x else o + 1,
        "dec": lambda: x if o == 0 or o > x else o - 1,
        "and": lambda: o & x,
        "or": lambda: o | x,
        "xor": lambda: o ^ x,
    }[op]()


REDUCE_CASES = [
    *(("int32", op) for op in ("add", "min", "max", "and", "or", "xor")),
    ("uint32", "inc"),
    ("uint32", "dec"),
    ("uint32", "min"),
    ("uint32", "max"),
    ("int64", "min"),
    ("uint64", "add"),
    ("uint64", "max"),
    ("float32", "add"),
    ("float16", "add"),
    ("float16", "min"),
    ("float16", "max"),
    ("bfloat16", "add"),
    ("bfloat16", "max"),
]


def _values(dtype: str, n: int, inc_dec: bool) -> NDArray:
    if dtype == "float16":
        return RNG.standard_normal(n).astype(np.float16).view(np.uint16)
    if dtype == "bfloat16":
        from openptxas.spec import float_to_bf16_bits

        mag = RNG.uniform(0.5, 64, n) * RNG.choice([-1, 1], n)  # sums exact in float32
        return float_to_bf16_bits(mag.astype(np.float32))
    if dtype == "float32":
        return RNG.standard_normal(n).astype(np.float32)
    if inc_dec:
        return RNG.integers(0, 12, n).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize(("dtype", "op"), REDUCE_CASES)
def test_tensor_reduce(dtype: str, op: str) -> None:
    """UTMAREDG.2D.<op> (cp.reduce.async.bulk.tensor): a 16 x 4 box reduced into a 24 x 6 tensor
    at two places, each partly outside it (those elements are dropped); the element type is the
    map's."""
    storage = np.dtype(np.uint16) if dtype in ("float16", "bfloat16") else np.dtype(dtype)
    bits = storage.itemsize * 8
    ptx = _reduce_ptx(op, bits)
    blob = cubin(ptx, "sm_90a")
    assert f"UTMAREDG.2D.{op.upper()}" in _forms(blob)
    tensor = _values(dtype, RCOLS * RROWS, op in ("inc", "dec")).reshape(RROWS, RCOLS)
    vals = _values(dtype, RBOX[0] * RBOX[1], op in ("inc", "dec")).reshape(RBOX[1], RBOX[0])
    sdt = {np.dtype(np.uint16): "u16"}.get(storage, storage.name)
    spec = {
        "kernel": "k",
        "grid": [1],
        "block": [RBOX[0] * RBOX[1]],
        "shared_bytes": 0,
        "args": [
            _tensor_map(0, dtype, RCOLS, RROWS, list(RBOX), storage.itemsize),
            {"kind": "buffer", "dtype": sdt, "count": tensor.size, "role": "inout"},
            {"kind": "buffer", "dtype": sdt, "count": vals.size, "role": "in"},
        ],
    }
    res = launch(
        blob, spec, inputs={"arg1": tensor.reshape(-1), "arg2": vals.reshape(-1)}, hazards=True
    )
    assert not res.hazards, res.hazards
    want = tensor.copy()
    for x0, y0 in RCOORDS:
        for r in range(RBOX[1]):
            for c in range(RBOX[0]):
                y, x = y0 + r, x0 + c
                if 0 <= y < RROWS and 0 <= x < RCOLS:
                    want[y, x] = _elem_ref(op, dtype, want[y, x], vals[r, c])
    got = np.asarray(res.args[1]).view(storage).reshape(RROWS, RCOLS)
    np.testing.assert_array_equal(got.view(storage), want.view(storage))
