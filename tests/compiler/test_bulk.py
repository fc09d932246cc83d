"""Bulk asynchronous copies, tensor-map copies and asynchronous stores (issue 20,
openptxas/lower/bulk_rules.py): each kernel below is compiled by openptxas and by ptxas (sm_90a)
and both cubins run in the emulator with the hazard checker; the outputs must be equal bit for
bit, and equal to what the PTX ISA defines where the test states it. The kernels issue copies
from several threads at once (each its own copy: ptxas's ELECT loop), from divergent code, with
immediate and register sizes, uniform and per-thread addresses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools

ARCH = "sm_90a"
HEAD = f""".version 8.7
.target {ARCH}
.address_size 64
"""


# long mnemonics, spelled out before compiling
ABBREV = {
    "STA.": "st.async.shared::cluster.mbarrier::complete_tx::bytes.",
    "G2S.": "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.",
    "REDA.": "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.",
    "TLOAD ": "cp.async.bulk.tensor.RANKd.shared::cluster.global.tile."
    "mbarrier::complete_tx::bytes ",
    "TRED ": "cp.reduce.async.bulk.tensor.RANKd.global.shared::cta.add.tile.bulk_group ",
}


def _spell(ptx: str, rank: int = 0) -> str:
    for k, v in ABBREV.items():
        ptx = ptx.replace(k, v.replace("RANK", str(rank)))
    return ptx


def _run_both(oracle: Any, ptx: str, spec: dict[str, Any], opt: int) -> dict[int, np.ndarray]:
    """Our outputs (hazard-free), asserted equal to ptxas's cubin's outputs."""
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    want = run_launch(oracle.ptxas(ptx, ARCH).cubin, spec, hazards=True)
    assert not want.hazards, want.hazards[:3]
    cubin = compile_ptx(ptx, Options(arch=ARCH, opt_level=opt, verify=True), "k.ptx").cubin
    got = run_launch(cubin, spec, hazards=True)
    assert not got.hazards, "\n".join(str(h) for h in got.hazards[:5])
    assert sorted(got.outputs) == sorted(want.outputs)
    for k in sorted(got.outputs):
        g, w = got.outputs[k].view(np.uint8), want.outputs[k].view(np.uint8)  # bit for bit
        assert np.array_equal(g, w), (k, np.nonzero(g.ravel() != w.ravel())[0][:10])
    return dict(got.outputs)


# ---------------------------------------------------------------- cp.async.bulk, 1-D
# Threads tid < ncopy each copy `size` bytes from src (at `soff(tid)`) to shared (at tid * size)
# completing on one mbarrier (every thread arrives with expect_tx of its bytes); all threads then
# write the shared buffer to out; threads tid < ncopy copy their chunk back to out2 (bulk_group)
# and reduce it into acc; wait_group then ends the kernel.
BULK = (
    HEAD
    + """
.visible .entry k(.param .u64 src, .param .u64 out, .param .u64 out2, .param .u64 acc)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<32>;
  .shared .align 128 .b8 buf[{buf}];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [out2];
  ld.param.u64 %rd4, [acc];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r3], %r2;
  fence.mbarrier_init.release.cluster;
INIT_DONE:
  bar.sync 0;
  mov.u32 %r4, buf;
  mov.u32 %r20, {size};
  {size_reg}
  mul.lo.u32 %r5, %r1, %r20;
  add.u32 %r6, %r4, %r5;           // shared destination of this thread
  {soff}                            // %r7: source byte offset
  cvt.u64.u32 %rd5, %r7;
  add.s64 %rd6, %rd1, %rd5;
  mov.u32 %r8, 0;
  setp.lt.u32 %p2, %r1, {ncopy};
  @!%p2 bra ISSUED;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd6], {size_op}, [%r3];
  mov.u32 %r8, %r20;
ISSUED:
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r8;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra WAIT;
  // every thread: out[i] = buf[i] for its words
  mov.u32 %r9, %r1;
COPY:
  setp.ge.u32 %p3, %r9, {words};
  @%p3 bra COPIED;
  shl.b32 %r10, %r9, 2;
  add.u32 %r11, %r4, %r10;
  ld.shared.u32 %r12, [%r11];
  cvt.u64.u32 %rd7, %r10;
  add.s64 %rd8, %rd2, %rd7;
  st.global.u32 [%rd8], %r12;
  add.u32 %r9, %r9, %r2;
  bra COPY;
COPIED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @!%p2 bra DONE;
  cvt.u64.u32 %rd9, %r5;
  add.s64 %rd10, %rd3, %rd9;
  add.s64 %rd11, %rd4, %rd9;
  cp.async.bulk.global.shared::cta.bulk_group [%rd10], [%r6], {size_op};
  cp.reduce.async.bulk.global.shared::cta.bulk_group.{red} [%rd11], [%r6], {size_op};
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  cp.async.bulk.wait_group 0;
DONE:
  ret;
}}
"""
)

_RED_DT = {"add.u32": "u32", "min.s32": "i32", "max.u32": "u32", "xor.b32": "u32",
           "and.b32": "u32", "or.b32": "u32", "inc.u32": "u32", "dec.u32": "u32",
           "add.u64": "u64", "min.s64": "i64", "add.f32": "f32", "add.f64": "f64",
           "add.noftz.f16": "f16", "min.bf16": "u16"}  # fmt: skip


_SIZE = {"32": 4, "64": 8, "16": 2}


def _bulk_case(size: int, ncopy: int, soff: str, reg_size: bool, red: str, block: int) -> Any:
    words = ncopy * size // 4
    ptx = BULK.format(
        buf=max(block * size, 16),
        size=size,
        size_reg="add.u32 %r20, %r20, 0;" if reg_size else "",
        size_op="%r20" if reg_size else str(size),
        soff=soff,
        ncopy=ncopy,
        words=words,
        red=red,
    )
    nbytes = 4096 * 2
    dt = _RED_DT[red]
    spec = {
        "kernel": "k",
        "grid": [2, 1, 1],
        "block": [block, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": nbytes // 4, "init": "random", "seed": 5},
            {"kind": "buffer", "dtype": "u32", "count": nbytes // 4, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": nbytes // 4, "init": "zeros"},
            {
                "kind": "buffer",
                "dtype": dt,
                "count": nbytes // _SIZE[dt[1:]],
                "init": "random",
                "seed": 6,
            },
        ],
    }
    return ptx, spec


PER_THREAD = "mul.lo.u32 %r7, %r1, %r20;"  # each thread its own chunk
REVERSED = "sub.u32 %r7, 31, %r1; mul.lo.u32 %r7, %r7, %r20;"
SAME = "mov.u32 %r7, 64;"  # every thread the same chunk (a uniform address)

BULK_CASES = [
    # size, ncopy, source offsets, size in a register, reduction, block, predicated (@p)
    (16, 1, PER_THREAD, False, "add.u32", 32, False),
    (64, 5, PER_THREAD, False, "min.s32", 32, True),
    (256, 3, REVERSED, True, "xor.b32", 64, False),
    (48, 32, PER_THREAD, True, "add.u64", 32, False),
    (32, 7, SAME, False, "max.u32", 96, True),
    (128, 2, PER_THREAD, False, "add.f32", 32, False),
    (64, 4, PER_THREAD, False, "add.f64", 32, False),
    (32, 4, PER_THREAD, True, "add.noftz.f16", 32, True),
    (16, 9, REVERSED, False, "inc.u32", 32, False),
    (16, 9, PER_THREAD, False, "dec.u32", 32, False),
    (32, 3, PER_THREAD, False, "and.b32", 32, False),
    (32, 3, PER_THREAD, False, "or.b32", 32, False),
    (32, 3, PER_THREAD, False, "min.s64", 32, False),
]


def _predicated(ptx: str) -> str:
    """The same kernel with ``@%p2`` on the copies instead of branches around them (Triton)."""
    g2s = "cp.async.bulk.shared::cluster"
    ptx = ptx.replace(f"@!%p2 bra ISSUED;\n  {g2s}", f"@%p2 {g2s}")
    ptx = ptx.replace("mov.u32 %r8, %r20;", "selp.u32 %r8, %r20, 0, %p2;")
    ptx = ptx.replace("@!%p2 bra DONE;\n", "")
    for op in ("cp.async.bulk.global", "cp.reduce.async.bulk.global", "cp.async.bulk.commit",
               "cp.async.bulk.wait_group"):  # fmt: skip
        ptx = ptx.replace(f"  {op}", f"  @%p2 {op}")
    return ptx


# every case at -O3, the first four also at -O0 (CI time)
BULK_PARAMS = [(c, 3) for c in BULK_CASES] + [(c, 0) for c in BULK_CASES[:4]]


@pytest.mark.parametrize(
    "case,opt",
    BULK_PARAMS,
    ids=[f"{c[0]}x{c[1]}-{c[4]}{'-pred' if c[6] else ''}-O{o}" for c, o in BULK_PARAMS],
)
def test_bulk_copy_and_reduce(case: tuple[Any, ...], opt: int, oracle: Any) -> None:
    size, ncopy, soff, reg_size, red, block, pred = case
    ptx, spec = _bulk_case(size, ncopy, soff, reg_size, red, block)
    if pred:
        ptx = _predicated(ptx)
        assert "@%p2 cp.reduce" in ptx and "bra ISSUED" not in ptx
    out = _run_both(oracle, ptx, spec, opt)
    o1 = out[1].view(np.uint32)
    words = ncopy * size // 4
    assert o1[:words].any()  # the copies landed (equal to ptxas's, checked above)
    assert not o1[words:].any()
    o2 = out[2].view(np.uint32)
    assert np.array_equal(o2[:words], o1[:words])  # shared -> global copies back


# ---------------------------------------------------------------- shared::cta -> shared::cluster
S2S = (
    HEAD
    + """
.visible .entry k(.param .u64 src, .param .u64 out)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<32>;
  .shared .align 128 .b8 a[1024];
  .shared .align 128 .b8 b[1024];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, bar;
  shl.b32 %r4, %r1, 2;
  cvt.u64.u32 %rd3, %r4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r5, [%rd4];
  mov.u32 %r6, a;
  add.u32 %r7, %r6, %r4;
  st.shared.u32 [%r7], %r5;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r3], %r2;
INIT_DONE:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  mov.u32 %r8, 0;
  setp.lt.u32 %p2, %r1, {ncopy};
  @!%p2 bra ISSUED;
  mul.lo.u32 %r9, %r1, {size};
  mov.u32 %r10, b;
  add.u32 %r10, %r10, %r9;
  add.u32 %r11, %r6, %r9;
  {op} [%r10], [%r11], {size}, [%r3];
  mov.u32 %r8, {size};
ISSUED:
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r8;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra WAIT;
  mov.u32 %r12, b;
  add.u32 %r12, %r12, %r4;
  ld.shared.u32 %r13, [%r12];
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r13;
  ret;
}}
"""
)


@pytest.mark.parametrize(
    "op",
    [
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32",
    ],
    ids=["copy", "reduce"],
)
@pytest.mark.parametrize("opt", [3, 0])
def test_bulk_shared_to_cluster(op: str, opt: int, oracle: Any) -> None:
    ptx = S2S.format(op=op, ncopy=4, size=64)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 64, "init": "random", "seed": 3},
            {"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros"},
        ],
    }
    out = _run_both(oracle, ptx, spec, opt)[1].view(np.uint32)
    assert out[:64].any()  # the first 4 * 16 words came through the copy (= ptxas's)


# ---------------------------------------------------------------- tensor maps (TMA), 1-D to 5-D
# Threads tid < ncopy each load the box at coordinates (tid * B0 - 1, ctaid, 0, ...) through map 0
# into their shared slot (zero fill outside the tensor), completing on one mbarrier; every thread
# copies the slots to out; then each of those threads stores its slot through map 1 at
# (tid * B0 + 1, ctaid, ...) and reduce-adds it through map 2 at (tid * B0 - 3, ctaid, ...).
TMA = (
    HEAD
    + """
.visible .entry k(.param .align 128 .b8 m0[128], .param .align 128 .b8 m1[128],
                  .param .align 128 .b8 m2[128], .param .u64 pin, .param .u64 pst,
                  .param .u64 pred, .param .u64 out)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<32>;
  .shared .align 128 .b8 buf[{buf}];
  .shared .align 8 .b64 bar;
  mov.b64 %rd20, m0;
  cvta.param.u64 %rd21, %rd20;
  mov.b64 %rd22, m1;
  cvta.param.u64 %rd23, %rd22;
  mov.b64 %rd24, m2;
  cvta.param.u64 %rd25, %rd24;
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, bar;
  mov.u32 %r30, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  prefetch.tensormap [%rd21];
  mbarrier.init.shared::cta.b64 [%r3], %r2;
  fence.mbarrier_init.release.cluster;
INIT_DONE:
  bar.sync 0;
  mov.u32 %r4, buf;
  mul.lo.u32 %r5, %r1, {box_bytes};
  add.u32 %r6, %r4, %r5;
  mul.lo.u32 %r10, %r1, {b0};
  sub.s32 %r11, %r10, 1;
  add.s32 %r12, %r10, 1;
  sub.s32 %r13, %r10, 3;
  mov.u32 %r14, 0;
  mov.u32 %r8, 0;
  setp.lt.u32 %p2, %r1, {ncopy};
  @!%p2 bra ISSUED;
  TLOAD [%r6], [%rd21, {{{c_load}}}], [%r3];
  mov.u32 %r8, {box_bytes};
ISSUED:
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r8;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra WAIT;
  mov.u32 %r9, %r1;
COPY:
  setp.ge.u32 %p3, %r9, {words};
  @%p3 bra COPIED;
  shl.b32 %r15, %r9, 2;
  add.u32 %r16, %r4, %r15;
  ld.shared.u32 %r17, [%r16];
  mad.lo.u32 %r18, %r30, {words}, %r9;
  mul.wide.u32 %rd7, %r18, 4;
  add.s64 %rd8, %rd2, %rd7;
  st.global.u32 [%rd8], %r17;
  add.u32 %r9, %r9, %r2;
  bra COPY;
COPIED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @!%p2 bra DONE;
  cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group [%rd23, {{{c_store}}}], [%r6];
  TRED [%rd25, {{{c_red}}}], [%r6];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
DONE:
  ret;
}}
"""
)

TMA_BOXES = {1: [32], 2: [8, 4], 3: [8, 2, 2], 4: [8, 2, 2, 1], 5: [8, 2, 1, 2, 1]}


def _tma_case(rank: int, ncopy: int, block: int) -> tuple[str, dict[str, Any]]:
    box = TMA_BOXES[rank]
    dims = [3 * box[0] + 4] + [2 + k for k in range(1, rank)]
    dims[1:2] = [3] if rank > 1 else []
    strides = [4 * int(np.prod(dims[: k + 1])) for k in range(rank - 1)]
    count = int(np.prod(dims))
    box_bytes = 4 * int(np.prod(box))
    rest = ["%r30"] + ["%r14"] * (rank - 2) if rank > 1 else []
    words = ncopy * box_bytes // 4
    ptx = _spell(TMA, rank=rank).format(
        buf=block * box_bytes,
        rank=rank,
        box_bytes=box_bytes,
        b0=box[0],
        ncopy=ncopy,
        words=words,
        c_load=", ".join(["%r11", *rest]),
        c_store=", ".join(["%r12", *rest]),
        c_red=", ".join(["%r13", *rest]),
    )

    def tmap(arg: int) -> dict[str, Any]:
        return {"kind": "bytes", "size": 128, "align": 128, "init": "zeros", "tensor_map": {
            "encode": "tiled", "buffer_arg": arg, "dtype": "int32", "rank": rank,
            "global_dim": dims, "global_strides_bytes": strides, "box_dim": box,
            "element_strides": [1] * rank, "interleave": "none", "swizzle": "none",
            "l2_promotion": "none", "oob_fill": "none"}}  # fmt: skip

    spec = {
        "kernel": "k",
        "grid": [2, 1, 1],
        "block": [block, 1, 1],
        "args": [
            tmap(3),
            tmap(4),
            tmap(5),
            {"kind": "buffer", "dtype": "i32", "count": count, "init": "random", "seed": 11},
            {"kind": "buffer", "dtype": "i32", "count": count, "init": "zeros"},
            {"kind": "buffer", "dtype": "i32", "count": count, "init": "random", "seed": 12},
            {"kind": "buffer", "dtype": "i32", "count": 2 * words, "init": "zeros"},
        ],
    }
    return ptx, spec


@pytest.mark.parametrize("rank,ncopy,block", [(1, 3, 32), (2, 2, 64), (3, 4, 32), (4, 1, 32),
                                              (5, 2, 32)])  # fmt: skip
@pytest.mark.parametrize("opt", [3, 0])
def test_tensor_copies(rank: int, ncopy: int, block: int, opt: int, oracle: Any) -> None:
    ptx, spec = _tma_case(rank, ncopy, block)
    out = _run_both(oracle, ptx, spec, opt)
    assert out[6].any() and out[4].any()  # loads and stores landed (equal to ptxas's)


# ---------------------------------------------------------------- st.async / red.async (cluster)
# Clusters of 2: every thread of each CTA writes into the other CTA's shared memory with
# st.async (b32, v2, v4, b64) and red.async (add.u32, min.s32, inc.u32, add.u64, xor.b32), all
# completing on the other CTA's mbarrier; each CTA then writes what it received to out.
NT = 64
ASYNC = (
    HEAD
    + f"""
.visible .entry k(.param .u64 pin, .param .u64 pout) .explicitcluster .reqnctapercluster 2, 1, 1
{{{{
  .reg .pred %p<4>;
  .reg .b32 %r<48>;
  .reg .b64 %rd<16>;
  .shared .align 16 .b8 v4[{NT * 16}];
  .shared .align 16 .b8 v2[{NT * 8}];
  .shared .align 16 .b8 w1[{NT * 4}];
  .shared .align 16 .b8 d2[{NT * 8}];
  .shared .align 16 .b8 cnt[32];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mov.u32 %r4, cnt;
  st.shared.v4.u32 [%r4], {{{{0, 2147483647, 5, 0}}}};
  st.shared.v4.u32 [%r4+16], {{{{7, 0, 0, 0}}}};
  fence.mbarrier_init.release.cluster;
INIT_DONE:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  mov.u32 %r5, %cluster_ctarank;
  xor.b32 %r6, %r5, 1;
  mapa.shared::cluster.u32 %r7, %r3, %r6;
  mov.u32 %r8, v4;
  mapa.shared::cluster.u32 %r9, %r8, %r6;
  mov.u32 %r10, v2;
  mapa.shared::cluster.u32 %r11, %r10, %r6;
  mov.u32 %r12, w1;
  mapa.shared::cluster.u32 %r13, %r12, %r6;
  mov.u32 %r14, cnt;
  mapa.shared::cluster.u32 %r15, %r14, %r6;
  mov.u32 %r40, d2;
  mapa.shared::cluster.u32 %r41, %r40, %r6;
  mov.u32 %r16, %ctaid.x;
  mad.lo.u32 %r17, %r16, {NT}, %r1;
  mul.wide.u32 %rd3, %r17, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {{{{%r20, %r21, %r22, %r23}}}}, [%rd4];
  mov.b64 %rd5, {{{{%r21, %r22}}}};
  shl.b32 %r24, %r1, 4;
  add.u32 %r25, %r9, %r24;
  STA.v4.b32 [%r25], {{{{%r20, %r21, %r22, %r23}}}}, [%r7];
  shl.b32 %r26, %r1, 3;
  add.u32 %r27, %r11, %r26;
  STA.v2.u32 [%r27+0], {{{{%r23, %r20}}}}, [%r7];
  shl.b32 %r28, %r1, 2;
  add.u32 %r29, %r13, %r28;
  STA.u32 [%r29], %r22, [%r7];
  add.u32 %r42, %r41, %r26;
  STA.b64 [%r42], %rd5, [%r7];
  REDA.add.u32 [%r15], %r20, [%r7];
  REDA.min.s32 [%r15+4], %r21, [%r7];
  and.b32 %r30, %r22, 15;
  REDA.inc.u32 [%r15+8], %r30, [%r7];
  REDA.xor.b32 [%r15+12], %r23, [%r7];
  REDA.add.u64 [%r15+16], %rd5, [%r7];
  @%p1 bra ARRIVED;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {NT * (16 + 8 + 4 + 8 + 4 * 4 + 8)};
ARRIVED:
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra WAIT;
  // out: v4 | v2 | w1 | d2 | cnt, per CTA
  mul.lo.u32 %r31, %r16, {NT * 44 + 32};
  mul.wide.u32 %rd6, %r31, 1;
  add.s64 %rd7, %rd2, %rd6;
  add.u32 %r32, %r8, %r24;
  ld.shared.v4.u32 {{{{%r20, %r21, %r22, %r23}}}}, [%r32];
  cvt.u64.u32 %rd8, %r24;
  add.s64 %rd9, %rd7, %rd8;
  st.global.v4.u32 [%rd9], {{{{%r20, %r21, %r22, %r23}}}};
  add.u32 %r33, %r10, %r26;
  ld.shared.v2.u32 {{{{%r20, %r21}}}}, [%r33];
  cvt.u64.u32 %rd8, %r26;
  add.s64 %rd9, %rd7, %rd8;
  st.global.v2.u32 [%rd9+{NT * 16}], {{{{%r20, %r21}}}};
  add.u32 %r34, %r12, %r28;
  ld.shared.u32 %r20, [%r34];
  cvt.u64.u32 %rd8, %r28;
  add.s64 %rd9, %rd7, %rd8;
  st.global.u32 [%rd9+{NT * 24}], %r20;
  add.u32 %r35, %r40, %r26;
  ld.shared.v2.u32 {{{{%r20, %r21}}}}, [%r35];
  cvt.u64.u32 %rd8, %r26;
  add.s64 %rd9, %rd7, %rd8;
  st.global.v2.u32 [%rd9+{NT * 28}], {{{{%r20, %r21}}}};
  @%p1 bra END;
  ld.shared.v4.u32 {{{{%r20, %r21, %r22, %r23}}}}, [%r14];
  st.global.v4.u32 [%rd7+{NT * 44}], {{{{%r20, %r21, %r22, %r23}}}};
  ld.shared.v4.u32 {{{{%r20, %r21, %r22, %r23}}}}, [%r14+16];
  st.global.v4.u32 [%rd7+{NT * 44 + 16}], {{{{%r20, %r21, %r22, %r23}}}};
END:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}}}}
"""
)


@pytest.mark.parametrize("opt", [3, 0])
def test_st_async_red_async(opt: int, oracle: Any) -> None:
    ptx = _spell(ASYNC.format())
    spec = {
        "kernel": "k",
        "grid": [2, 1, 1],
        "block": [NT, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 2 * NT * 4, "init": "random", "seed": 9},
            {"kind": "buffer", "dtype": "u8", "count": 2 * (NT * 44 + 32), "init": "zeros"},
        ],
    }
    out = _run_both(oracle, ptx, spec, opt)[1].view(np.uint8).reshape(2, NT * 44 + 32)
    v4 = out[:, : NT * 16].view(np.uint32).reshape(2, NT, 4)
    v2 = out[:, NT * 16 : NT * 24].view(np.uint32).reshape(2, NT, 2)
    w1 = out[:, NT * 24 : NT * 28].view(np.uint32)
    assert (v2[:, :, 0] == v4[:, :, 3]).all() and (v2[:, :, 1] == v4[:, :, 0]).all()
    assert (w1 == v4[:, :, 2]).all() and v4.any()  # (st.async: the other CTA's input)


# ---------------------------------------------------------------- what is refused yet
REFUSED = [
    ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint "
     "[%r1], [%rd1], 64, [%r2], %rd1;", "an L2 cache hint"),
    ("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];", "UTMAPF"),
    ("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd1], %rd1;",
     "tensormap.replace"),
    ("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
     "[%r1], [%rd1, {%r1, %r1, %r1, %r1}], [%r2], {%rs1, %rs1};", "im2col with 2 offsets"),
]  # fmt: skip


@pytest.mark.parametrize(
    "snippet,why", REFUSED, ids=["cache_hint", "prefetch_tensor", "replace", "im2col4d"]
)
def test_refused_with_a_diagnostic(snippet: str, why: str) -> None:
    from openptxas.diag import UnsupportedFeature
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = (
        HEAD
        + ".visible .entry k(.param .u64 p)\n{\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n"
        + " .reg .b16 %rs<2>;\n mov.u16 %rs1, 1;\n"
        + " ld.param.u64 %rd1, [p];\n ld.global.u32 %r1, [%rd1];\n ld.global.u32 %r2, [%rd1+4];\n"
        + f" {snippet}\n ret;\n}}\n"
    )
    with pytest.raises(UnsupportedFeature, match="not supported by openptxas yet") as e:
        compile_ptx(ptx, Options(arch=ARCH), "k.ptx")
    assert why in str(e.value)


# ---------------------------------------------------------------- Triton kernels through TMA
# PTX made by scripts/triton_tma_gen.py (Triton 3.9, sm_90a, host-side tensor descriptors: each
# a CUtensorMap parameter followed by its shape (2 x i32) and strides (2 x i64); the data buffer
# rides in the first stride slot, which the kernels do not read). Predicated bulk copies,
# mbarrier.init/inval under @p, elect.sync, dynamic shared memory.
TRITON = Path(__file__).parent / "data" / "triton_tma"


def _desc(
    buf_arg: int, dtype: str, shape: list[int], box: list[int], data: dict[str, Any]
) -> list[Any]:
    esz = {"float32": 4, "float16": 2}[dtype]
    tmap = {"kind": "bytes", "size": 128, "align": 64, "init": "zeros", "tensor_map": {
        "encode": "tiled", "buffer_arg": buf_arg, "dtype": dtype, "rank": 2,
        "global_dim": [shape[1], shape[0]], "global_strides_bytes": [shape[1] * esz],
        "box_dim": [box[1], box[0]], "element_strides": [1, 1], "interleave": "none",
        "swizzle": "none", "l2_promotion": "none", "oob_fill": "none"}}  # fmt: skip
    return [tmap, {"kind": "scalar", "dtype": "int32", "init": shape[0]},
            {"kind": "scalar", "dtype": "int32", "init": shape[1]}, data,
            {"kind": "scalar", "dtype": "int64", "init": 1}]  # fmt: skip


def _buf(dtype: str, n: int, seed: int | None = None) -> dict[str, Any]:
    if seed is None:
        return {"kind": "buffer", "dtype": dtype, "count": n, "init": "zeros"}
    return {"kind": "buffer", "dtype": dtype, "count": n, "init": "random", "seed": seed}


def _triton_spec(name: str) -> dict[str, Any]:
    scratch = [_buf("u8", 16), _buf("u8", 16)]
    if name == "tma_copy":  # out = in * 2 + 1, 96 x 64 f32 in boxes of 32 x 32
        args = [*_desc(3, "float32", [96, 64], [32, 32], _buf("f32", 96 * 64, 1)),
                *_desc(8, "float32", [96, 64], [32, 32], _buf("f32", 96 * 64))]  # fmt: skip
        grid, smem = [3, 2, 1], 4104
    elif name == "tma_add":  # c = a + b, 192 x 128 f16 in boxes of 64 x 64
        args = [*_desc(3, "float16", [192, 128], [64, 64], _buf("f16", 192 * 128, 2)),
                *_desc(8, "float16", [192, 128], [64, 64], _buf("f16", 192 * 128, 3)),
                *_desc(13, "float16", [192, 128], [64, 64], _buf("f16", 192 * 128))]  # fmt: skip
        grid, smem = [3, 2, 1], 8200
    else:  # row sums of 96 x 256 f16, boxes of 32 x 64
        args = [*_desc(3, "float16", [96, 256], [32, 64], _buf("f16", 96 * 256, 4)),
                _buf("f32", 96), {"kind": "scalar", "dtype": "int32", "init": 256}]  # fmt: skip
        grid, smem = [3, 1, 1], 4104
    return {"kernel": name, "grid": grid, "block": [128, 1, 1], "shared_bytes": smem,
            "args": args + scratch}  # fmt: skip


@pytest.mark.parametrize("name", ["tma_copy", "tma_add", "tma_rowsum"])
@pytest.mark.parametrize("opt", [3, 0])
def test_triton_tma(name: str, opt: int, oracle: Any) -> None:
    ptx = (TRITON / f"{name}.ptx").read_text()
    spec = _triton_spec(name)
    out = _run_both(oracle, ptx, spec, opt)
    if name == "tma_copy":
        assert np.array_equal(out[8].view(np.uint32), (out[3] * 2 + 1).view(np.uint32))
    elif name == "tma_add":
        assert np.array_equal(out[13].view(np.uint16), (out[3] + out[8]).view(np.uint16))
    else:
        assert np.allclose(out[5], out[3].reshape(96, 256).astype(np.float32).sum(axis=1),
                           rtol=1e-5, atol=1e-2)  # fmt: skip


# ---------------------------------------------------------------- multicast bulk copies
# Clusters of 2: in CTA rank 0, threads tid < 3 each multicast a 64-byte chunk (per-thread
# source, CTA mask 0b11: a register or an immediate) into both CTAs' shared memory, completing
# both CTAs' mbarriers; every CTA writes what arrived to out.
MCAST = (
    HEAD
    + """
.visible .entry k(.param .u64 src, .param .u64 out) .explicitcluster .reqnctapercluster 2, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .shared .align 128 .b8 buf[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 192;
  fence.mbarrier_init.release.cluster;
INIT_DONE:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  mov.u32 %r5, %cluster_ctarank;
  setp.ne.u32 %p2, %r5, 0;
  setp.ge.u32 %p3, %r1, 3;
  or.pred %p2, %p2, %p3;
  @%p2 bra ISSUED;
  mov.u16 %rs1, 3;
  shl.b32 %r6, %r1, 6;
  mov.u32 %r7, buf;
  add.u32 %r7, %r7, %r6;
  cvt.u64.u32 %rd3, %r6;
  add.s64 %rd4, %rd1, %rd3;
  G2S.multicast::cluster [%r7], [%rd4], 64, [%r3], {mask};
ISSUED:
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra WAIT;
  setp.ge.u32 %p3, %r1, 48;
  @%p3 bra END;
  shl.b32 %r8, %r1, 2;
  mov.u32 %r9, buf;
  add.u32 %r9, %r9, %r8;
  ld.shared.u32 %r10, [%r9];
  mov.u32 %r11, %ctaid.x;
  mad.lo.u32 %r12, %r11, 48, %r1;
  mul.wide.u32 %rd5, %r12, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r10;
END:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}}
"""
)


@pytest.mark.parametrize("mask", ["%rs1", "3"])
@pytest.mark.parametrize("opt", [3, 0])
def test_bulk_multicast(mask: str, opt: int, oracle: Any) -> None:
    ptx = _spell(MCAST.format(mask=mask))
    spec = {
        "kernel": "k",
        "grid": [2, 1, 1],
        "block": [64, 1, 1],
        "args": [_buf("u32", 64, 21), _buf("u32", 96)],
    }
    out = _run_both(oracle, ptx, spec, opt)
    got = out[1].view(np.uint32).reshape(2, 48)
    assert np.array_equal(got[0], out[0].view(np.uint32)[:48])  # the three chunks, in order
    assert np.array_equal(got[1], got[0])  # and the same in the other CTA
