"""Per-opcode-family semantic tests of the emulator against independent references.

Each test compiles a tiny PTX kernel with ptxas (cached by the oracle harness), checks that the
SASS forms it is about are present, runs it in the emulator and compares every output with a
reference computed without the emulator: Python integers, numpy, ``fractions.Fraction`` for
rounding, or the rules of the PTX ISA. Comparisons are exact (bit patterns) wherever the emulator
claims exactness.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from openptxas.emu.model import Reg
from tests.emu.ptxrun import ptx_header, run, sass

NDArray = np.ndarray[Any, Any]
RNG = np.random.default_rng(20261125)


def _forms(blob: bytes) -> set[str]:
    return {".".join((i.opcode, *i.mods)) for i in sass(blob)}


def _u64(n: int) -> NDArray:
    return RNG.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


# -- 64-bit multiply-high: IMAD.WIDE.U32(.X), IMAD.HI.U32.X carry chains -------------------------

MULHI_CONSTS = (0xFFFFFFFF00000001, 0xCCCCCCCCCCCCCCCD, 0x8000000000000001, 0x3333333333333333)


def _mulhi_ptx(shift: int) -> str:
    body = []
    for j, c in enumerate(MULHI_CONSTS):
        body.append(f"mul.hi.u64 %t, %x, {c:#x};")
        if shift:
            body.append(f"shr.u64 %t, %t, {shift};")
        body.append(f"st.global.u64 [%o+{8 * j}], %t;")
    body.append("mul.hi.u64 %t, %x, %y;\nst.global.u64 [%o+32], %t;")
    body.append("mul.hi.s64 %t, %x, %y;\nst.global.u64 [%o+40], %t;")
    body.append("mad.hi.u64 %t, %x, %y, %x;\nst.global.u64 [%o+48], %t;")
    return (
        ptx_header()
        + """.visible .entry k(.param .u64 pa, .param .u64 pb)
{
  .reg .u64 %a, %b, %x, %y, %t, %o, %off;
  .reg .u32 %i;
  ld.param.u64 %a, [pa];
  ld.param.u64 %b, [pb];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  mov.u32 %i, %tid.x;
  mul.wide.u32 %off, %i, 16;
  add.u64 %a, %a, %off;
  ld.global.v2.u64 {%x, %y}, [%a];
  mul.wide.u32 %off, %i, 56;
  add.u64 %o, %b, %off;
"""
        + "\n".join(body)
        + "\n  ret;\n}\n"
    )


@pytest.mark.parametrize("shift", [0, 32, 40])
def test_mul_hi_u64_carry_chain(shift: int) -> None:
    """ptxas's mul.hi.u64 by constants: the IMAD.HI.U32.X carry enters bit 0 of the 64-bit sum
    (with ``shr 32``/``shr 40`` only the top word is needed: ptxas ends the chain with
    IMAD.HI.U32.X)."""
    n = 128
    xy = _u64(2 * n).reshape(n, 2)
    xy[:8, 0] = [0, 1, 2**64 - 1, 2**63, 2**32 - 1, 2**32, 0xFFFFFFFF00000000, 0x00000001FFFFFFFF]
    out = np.zeros((n, 7), dtype=np.uint64)
    (_, got), _, blob = run(_mulhi_ptx(shift), [xy, out], block=n)
    if shift:
        assert "IMAD.HI.U32.X" in _forms(blob)
    for t in range(n):
        x, y = int(xy[t, 0]), int(xy[t, 1])
        sx = x - (x >> 63 << 64)
        sy = y - (y >> 63 << 64)
        want = [(x * c) >> 64 >> shift for c in MULHI_CONSTS]
        want += [(x * y) >> 64, ((sx * sy) >> 64) % 2**64, (((x * y) >> 64) + x) % 2**64]
        assert [int(v) for v in got[t]] == want, (t, hex(x), hex(y))


# -- R2UR with a predicate destination ------------------------------------------------------------

R2UR_PTX = (
    ptx_header()
    + """.visible .entry k(.param .u64 pa, .param .u64 pb)
{
  .reg .u64 %a, %b, %off;
  .reg .b32 %v, %w, %o, %t;
  .reg .pred %p, %e;
  ld.param.u64 %a, [pa];
  ld.param.u64 %b, [pb];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 8;
  add.u64 %a, %a, %off;
  mul.wide.u32 %off, %t, 4;
  add.u64 %b, %b, %off;
  ld.global.v2.b32 {%v, %w}, [%a];
  setp.lt.u32 %e, %t, 5;
  @%e bra SKIP;
  setp.ne.u32 %p, %v, 12345;
  setp.ne.or.u32 %p, %w, 777, %p;
  selp.u32 %o, 1, 0, %p;
  st.global.b32 [%b], %o;
SKIP:
  ret;
}
"""
)


def test_r2ur_predicate() -> None:
    """``R2UR P, UR, R`` / ``R2UR.OR`` as ptxas's waterfall loops use them (bindless textures:
    ``@P1 R2UR P0, UR4, R8; @P1 R2UR.OR P0, UR5, R9; @!P0 TEX ...``): P is set on the lanes
    whose value differs from the one taken from the warp's first executing lane, .OR
    accumulates. ptxas's ``ISETP.NE`` pair is replaced by that pair in nvdisasm's listing (so
    the words keep their control fields); lanes 0-4 exit first, so lane 5 is the first."""
    from openptxas.emu.launch import launch
    from openptxas.testing.oracle import Oracle
    from tests.emu.harness import listing_decoder
    from tests.emu.ptxrun import cubin

    blob = cubin(R2UR_PTX)
    text = Oracle().nvdisasm(blob)
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if "ISETP.NE.U32.AND P0, PT, R" in ln)
    j = next(k for k, ln in enumerate(lines) if "ISETP.NE.U32.OR P0, PT, R" in ln)
    rv = lines[i].split("PT, ")[1].split(",")[0]
    rw = lines[j].split("PT, ")[1].split(",")[0]
    lines[i] = lines[i].replace(lines[i].split("*/", 1)[1].split(";")[0], f" R2UR P0, URZ, {rv} ")
    lines[j] = lines[j].replace(
        lines[j].split("*/", 1)[1].split(";")[0], f" R2UR.OR P0, URZ, {rw} "
    )
    vw = RNG.integers(0, 3, size=(64, 2)).astype(np.uint32)
    out = np.full(64, 99, dtype=np.uint32)
    spec = {
        "kernel": "k",
        "grid": [1],
        "block": [64],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 128},
            {"kind": "buffer", "dtype": "u32", "count": 64, "role": "inout"},
        ],
    }
    res = launch(
        blob,
        spec,
        inputs={"arg0": vw.ravel(), "arg1": out},
        decoder=listing_decoder("\n".join(lines)),
    )
    got = res.args[1]
    for t in range(64):
        first = 5 if t < 32 else 32
        want = 99 if t < 5 else int(vw[t, 0] != vw[first, 0] or vw[t, 1] != vw[first, 1])
        assert int(got[t]) == want, (t, vw[t], vw[first])


# -- BAR with its id and count in registers; trap -------------------------------------------------

BAR_PTX = (
    ptx_header()
    + """.visible .entry k(.param .u64 pa)
{
  .reg .u64 %a, %off;
  .reg .b32 %t, %id, %n, %v, %u, %peer;
  .shared .align 4 .b32 sm[256];
  .reg .u32 %s;
  ld.param.u64 %a, [pa];
  cvta.to.global.u64 %a, %a;
  mov.u32 %t, %tid.x;
  mov.u32 %s, sm;
  shl.b32 %v, %t, 2;
  add.u32 %s, %s, %v;
  mul.lo.u32 %v, %t, 3;
  st.shared.u32 [%s], %v;
  shr.u32 %id, %t, 7;
  add.u32 %id, %id, 1;
  mov.u32 %n, 128;
  bar.sync %id, %n;
  xor.b32 %peer, %t, 64;
  mov.u32 %s, sm;
  shl.b32 %u, %peer, 2;
  add.u32 %s, %s, %u;
  ld.shared.u32 %v, [%s];
  mul.wide.u32 %off, %t, 4;
  add.u64 %a, %a, %off;
  st.global.u32 [%a], %v;
  ret;
}
"""
)


def test_bar_sync_register_id() -> None:
    """``bar.sync id, n`` with both in registers (BAR.SYNC.DEFER_BLOCKING Rid, n): threads
    0-127 use barrier 1, 128-255 barrier 2, each of 128 threads; after it every thread reads
    what the thread 64 away in its half wrote before the barrier."""
    out = np.zeros(256, dtype=np.uint32)
    (got,), _res, blob = run(BAR_PTX, [out], block=256)
    bars = [i for i in sass(blob) if i.opcode == "BAR"]
    assert any(isinstance(o, Reg) and not o.is_pred for o in bars[0].operands)  # id in a register
    want = np.array([3 * (t ^ 64) for t in range(256)], dtype=np.uint32)
    assert np.array_equal(got, want)


def test_trap_faults() -> None:
    """``trap`` (BPT.TRAP) stops the launch with a KernelFault naming the instruction."""
    from openptxas.emu.errors import KernelFault

    ptx = (
        ptx_header()
        + """.visible .entry k(.param .u64 pa)
{
  .reg .u64 %a;
  .reg .b32 %v;
  .reg .pred %p;
  ld.param.u64 %a, [pa];
  cvta.to.global.u64 %a, %a;
  ld.global.u32 %v, [%a];
  setp.eq.u32 %p, %v, 7;
  @%p trap;
  st.global.u32 [%a], 1;
  ret;
}
"""
    )
    (got,), _res, _blob = run(ptx, [np.array([6], dtype=np.uint32)], block=1)
    assert int(got[0]) == 1
    with pytest.raises(KernelFault, match=r"BPT\.TRAP"):
        run(ptx, [np.array([7], dtype=np.uint32)], block=1)


def test_fmul_power_of_two_scale() -> None:
    """``x * y * 0.5`` (and * 4) folded by ptxas into FMUL.D2 / FMUL.M4: PTX's two roundings
    (numpy float32) agree with the scaled single rounding wherever the result is normal, which
    the inputs keep it (|x|, |y| in [2^-20, 2^20])."""
    ptx = (
        ptx_header()
        + """.visible .entry k(.param .u64 pa, .param .u64 pb)
{
  .reg .u64 %a, %b, %off;
  .reg .f32 %x, %y, %p, %q;
  .reg .u32 %t;
  ld.param.u64 %a, [pa];
  ld.param.u64 %b, [pb];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 8;
  add.u64 %a, %a, %off;
  add.u64 %b, %b, %off;
  ld.global.v2.f32 {%x, %y}, [%a];
  mul.f32 %p, %x, %y;
  mul.f32 %p, %p, 0f3F000000;
  mul.f32 %q, %x, %y;
  mul.f32 %q, %q, 0f40800000;
  st.global.v2.f32 [%b], {%p, %q};
  ret;
}
"""
    )
    n = 256
    mag = np.exp2(RNG.uniform(-20, 20, size=(n, 2)))
    xy = (mag * RNG.choice([-1.0, 1.0], size=(n, 2))).astype(np.float32)
    out = np.zeros((n, 2), dtype=np.float32)
    (_, got), _res, blob = run(ptx, [xy, out], block=n)
    assert {"FMUL.D2", "FMUL.M4"} <= {".".join((i.opcode, *i.mods)) for i in sass(blob)}
    prod = xy[:, 0] * xy[:, 1]
    want = np.stack([prod * np.float32(0.5), prod * np.float32(4.0)], axis=1)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


# -- extended-precision carry chains (add.cc/addc, sub.cc/subc, mad.cc/madc) ---------------------

CARRY_PTX = (
    ptx_header()
    + """.visible .entry k(.param .u64 pa, .param .u64 pb)
{
  .reg .u64 %a, %b, %off;
  .reg .b32 %x<4>, %y<4>, %s<4>, %d<4>, %p<4>;
  .reg .u32 %t;
  ld.param.u64 %a, [pa];
  ld.param.u64 %b, [pb];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 32;
  add.u64 %a, %a, %off;
  ld.global.v4.b32 {%x0, %x1, %x2, %x3}, [%a];
  ld.global.v4.b32 {%y0, %y1, %y2, %y3}, [%a+16];
  // 128-bit sum and difference
  add.cc.u32 %s0, %x0, %y0;
  addc.cc.u32 %s1, %x1, %y1;
  addc.cc.u32 %s2, %x2, %y2;
  addc.u32 %s3, %x3, %y3;
  sub.cc.u32 %d0, %x0, %y0;
  subc.cc.u32 %d1, %x1, %y1;
  subc.cc.u32 %d2, %x2, %y2;
  subc.u32 %d3, %x3, %y3;
  // 64 x 64 -> 128-bit product of (x1:x0) and (y1:y0), schoolbook with carry chains
  mul.lo.u32 %p0, %x0, %y0;
  mul.hi.u32 %p1, %x0, %y0;
  mad.lo.cc.u32 %p1, %x1, %y0, %p1;
  madc.hi.u32 %p2, %x1, %y0, 0;
  mad.lo.cc.u32 %p1, %x0, %y1, %p1;
  madc.hi.cc.u32 %p2, %x0, %y1, %p2;
  madc.hi.u32 %p3, %x1, %y1, 0;
  mad.lo.cc.u32 %p2, %x1, %y1, %p2;
  addc.u32 %p3, %p3, 0;
  mul.wide.u32 %off, %t, 48;
  add.u64 %b, %b, %off;
  st.global.v4.b32 [%b], {%s0, %s1, %s2, %s3};
  st.global.v4.b32 [%b+16], {%d0, %d1, %d2, %d3};
  st.global.v4.b32 [%b+32], {%p0, %p1, %p2, %p3};
  ret;
}
"""
)


def test_carry_chains() -> None:
    """128-bit add/sub through add.cc/addc/sub.cc/subc and a 64x64->128 product through
    mad.lo.cc/madc.hi(.cc) (IADD3.X, IMAD.X, IMAD.HI.U32.X carry forms), against Python."""
    n = 128
    words = RNG.integers(0, 2**32, size=(n, 8), dtype=np.uint64).astype(np.uint32)
    words[:8, :] = 0xFFFFFFFF  # all carries set
    words[8:16, 4:] = 0
    words[16:24, :4] = 0xFFFFFFFF
    words[16:24, 4:] = [1, 0, 0, 0]
    out = np.zeros((n, 12), dtype=np.uint32)
    (_, got), _res, _blob = run(CARRY_PTX, [words, out], block=n)

    def val(ws: Any) -> int:
        return sum(int(w) << (32 * i) for i, w in enumerate(ws))

    for t in range(n):
        x, y = val(words[t, :4]), val(words[t, 4:])
        want = [(x + y) % 2**128, (x - y) % 2**128, (x % 2**64) * (y % 2**64)]
        got_t = [val(got[t, 0:4]), val(got[t, 4:8]), val(got[t, 8:12])]
        assert got_t == want, (t, hex(x), hex(y))


# -- stmatrix (STSM) ------------------------------------------------------------------------------


def _stsm_ptx(n: int, trans: bool) -> str:
    regs = ", ".join(f"%r{j}" for j in range(n))
    t = ".trans" if trans else ""
    return (
        ptx_header("sm_90a")
        + f""".visible .entry k(.param .u64 pin, .param .u64 pout)
{{
  .reg .u64 %a, %b, %off;
  .reg .b32 %r<4>, %v<4>;
  .reg .u32 %t, %s, %row, %sa;
  .shared .align 16 .b8 sm[1024];
  ld.param.u64 %a, [pin];
  ld.param.u64 %b, [pout];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  mov.u32 %t, %tid.x;
  mov.u32 %sa, sm;
  shl.b32 %s, %t, 5;
  add.u32 %s, %s, %sa;
  st.shared.v4.b32 [%s], {{%t, %t, %t, %t}};
  st.shared.v4.b32 [%s+16], {{%t, %t, %t, %t}};
  bar.sync 0;
  mul.wide.u32 %off, %t, 16;
  add.u64 %a, %a, %off;
  ld.global.v4.b32 {{%r0, %r1, %r2, %r3}}, [%a];
  stmatrix.sync.aligned.m8n8.x{n}{t}.shared.b16 [%s], {{{regs}}};
  bar.sync 0;
  mul.wide.u32 %off, %t, 32;
  add.u64 %b, %b, %off;
  ld.shared.v4.b32 {{%v0, %v1, %v2, %v3}}, [%s];
  st.global.v4.b32 [%b], {{%v0, %v1, %v2, %v3}};
  ld.shared.v4.b32 {{%v0, %v1, %v2, %v3}}, [%s+16];
  st.global.v4.b32 [%b+16], {{%v0, %v1, %v2, %v3}};
  ret;
}}
"""
    )


@pytest.mark.parametrize(("n", "trans"), [(1, False), (2, True), (4, False), (4, True)])
def test_stmatrix(n: int, trans: bool) -> None:
    """stmatrix.m8n8.x{1,2,4}[.trans]: lane l gives the address of row l % 8 of matrix l / 8
    (rows 32 bytes apart here); lane t's register j holds row t/4, columns 2(t%4) and 2(t%4)+1
    of matrix j, stored transposed with .trans (PTX ISA fragment layout of ldmatrix/stmatrix)."""
    regs = RNG.integers(0, 2**32, size=(32, 4), dtype=np.uint64).astype(np.uint32)
    out = np.zeros((32, 8), dtype=np.uint32)
    (_, got), _res, blob = run(_stsm_ptx(n, trans), [regs, out], target="sm_90a", block=32)
    assert any(i.opcode == "STSM" for i in sass(blob))
    mem = got.view(np.uint16).reshape(32, 16)  # 32 rows of 16 b16 (only the first 8 are data)
    want = np.repeat(np.arange(32, dtype=np.uint32), 8).reshape(32, 8).view(np.uint16)
    want = want.reshape(32, 16).copy()
    for j in range(n):
        for t in range(32):
            for h in range(2):
                r, c = t // 4, 2 * (t % 4) + h
                v = (int(regs[t, j]) >> (16 * h)) & 0xFFFF
                if trans:
                    want[8 * j + c, r] = v
                else:
                    want[8 * j + r, c] = v
    assert np.array_equal(mem, want)


# -- cp.reduce.async.bulk (UBLKRED) and shared::cluster bulk copies (UBLKCP.S.S) ---------------

# (PTX op, PTX type, SASS modifiers after the spaces): every op/type the PTX ISA lists for the
# .global destination (.b64 and/or/xor print as .U64; .add.noftz for f16/bf16).
BULK_RED = [
    ("add", "u32", "ADD"),
    ("add", "s32", "ADD.S32"),
    ("min", "u32", "MIN"),
    ("min", "s32", "MIN.S32"),
    ("max", "u32", "MAX"),
    ("max", "s32", "MAX.S32"),
    ("inc", "u32", "INC"),
    ("dec", "u32", "DEC"),
    ("and", "b32", "AND"),
    ("or", "b32", "OR"),
    ("xor", "b32", "XOR"),
    ("add", "u64", "ADD.U64"),
    ("min", "u64", "MIN.U64"),
    ("max", "u64", "MAX.U64"),
    ("min", "s64", "MIN.S64"),
    ("max", "s64", "MAX.S64"),
    ("and", "b64", "AND.U64"),
    ("or", "b64", "OR.U64"),
    ("xor", "b64", "XOR.U64"),
    ("add", "f32", "ADD.F32.RN"),
    ("add", "f64", "ADD.F64.RN"),
    ("add.noftz", "f16", "ADD.F16.RN"),
    ("add.noftz", "bf16", "ADD.BF16.RN"),
    ("min", "f16", "MIN.F16.RN"),
    ("max", "f16", "MAX.F16.RN"),
    ("min", "bf16", "MIN.BF16.RN"),
    ("max", "bf16", "MAX.BF16.RN"),
]
BULK_BYTES = 256


def _bulk_red_ptx(op: str, typ: str) -> str:
    """Thread t copies word t of the source into shared memory; thread 0 reduces the 256 bytes
    into the destination buffer (bulk_group completion)."""
    return (
        ptx_header("sm_90a")
        + f"""
.visible .entry k(.param .u64 dst, .param .u64 src)
{{
    .reg .b64 %rd<8>;
    .reg .b32 %r<8>;
    .reg .pred %p;
    .shared .align 128 .b8 buf[{BULK_BYTES}];
    ld.param.u64 %rd1, [dst];
    ld.param.u64 %rd2, [src];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, buf;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r2;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p, %r1, 0;
    @%p bra DONE;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.{typ} [%rd1], [%r3], {BULK_BYTES};
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
DONE:
    ret;
}}
"""
    )


def _f_special(bits: int, n: int, sign: int, inf: int, nan: int) -> NDArray:
    """Random ``bits``-wide float patterns, zeros of both signs, infinities and NaNs first."""
    dt = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    v = RNG.integers(0, 2**bits, size=n, dtype=dt, endpoint=False)
    v[:8] = np.array([0, sign, inf, inf | sign, nan, 0, sign, 1], dtype=dt)
    return v


def _bulk_ref(op: str, typ: str, old: int, src: int) -> int:
    """The PTX ISA's element operation, on bit patterns (exact arithmetic for floats)."""
    from fractions import Fraction

    from tests.emu import floatref

    bits = {"f16": 16, "bf16": 16, "f64": 64, "u64": 64, "s64": 64, "b64": 64}.get(typ, 32)
    mask = (1 << bits) - 1

    def signed(x: int) -> int:
        return x - (1 << bits) if x >> (bits - 1) else x

    if typ in ("u32", "s32", "u64", "s64", "b32", "b64"):
        a, b = (signed(old), signed(src)) if typ[0] == "s" else (old, src)
        r = {
            "add": lambda: a + b,
            "min": lambda: min(a, b),
            "max": lambda: max(a, b),
            "inc": lambda: 0 if a >= b else a + 1,
            "dec": lambda: b if a == 0 or a > b else a - 1,
            "and": lambda: a & b,
            "or": lambda: a | b,
            "xor": lambda: a ^ b,
        }[op]()
        return r & mask
    if typ in ("f32", "f64"):
        fmt = (
            (24, -126, 127, np.float32, np.uint32)
            if typ == "f32"
            else (53, -1022, 1023, np.float64, np.uint64)
        )
        prec, emin, emax, ft, ut = fmt
        x, y = (float(np.array([v], dtype=ut).view(ft)[0]) for v in (old, src))
        if np.isnan(x) or np.isnan(y) or (np.isinf(x) and np.isinf(y) and x != y):
            return (1 << (bits - 1)) - 1  # the canonical NaN
        if np.isinf(x) or np.isinf(y):
            s = x if np.isinf(x) else y
        elif x == 0 and y == 0:
            s = x if np.signbit(x) and np.signbit(y) else 0.0
        else:
            s = float(floatref.round_ieee(Fraction(x) + Fraction(y), prec, emin, emax, "RN"))
        return int(np.array([s], dtype=ft).view(ut)[0])
    fmt = typ
    inf = 0x7C00 if fmt == "f16" else 0x7F80
    if op.startswith("add"):
        x, y = floatref.decode(fmt, old), floatref.decode(fmt, src)
        if np.isnan(x) or np.isnan(y) or (np.isinf(x) and np.isinf(y) and x != y):
            return floatref.NAN16
        if np.isinf(x) or np.isinf(y):
            return inf | (0x8000 if (x if np.isinf(x) else y) < 0 else 0)
        if x == 0 and y == 0:
            return old & src & 0x8000
        v = Fraction(x) + Fraction(y)
        if v == 0:
            return 0
        return floatref.round_magnitude(abs(v), fmt) | (0x8000 if v < 0 else 0)
    a_nan, b_nan = (old & 0x7FFF) > inf, (src & 0x7FFF) > inf
    if a_nan and b_nan:
        return floatref.NAN16
    if a_nan or b_nan:
        return src if a_nan else old

    def key(h: int) -> tuple[float, int]:  # -0 orders below +0
        return (floatref.decode(fmt, h), -(h >> 15))

    pick = min if op == "min" else max
    return pick(old, src, key=key)


@pytest.mark.parametrize(
    ("op", "typ", "sass_mods"), BULK_RED, ids=[f"{o}.{t}" for o, t, _ in BULK_RED]
)
def test_bulk_reduce(op: str, typ: str, sass_mods: str) -> None:
    """UBLKRED.G.S (cp.reduce.async.bulk .global.shared::cta): every element of the destination
    becomes ``op(destination, source)`` with the PTX ISA's definition of ``op`` for the type."""
    from tests.emu.ptxrun import cubin

    bits = {"f16": 16, "bf16": 16, "f64": 64, "u64": 64, "s64": 64, "b64": 64}.get(typ, 32)
    n = BULK_BYTES * 8 // bits
    dt = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    if typ in ("f16", "bf16", "f32", "f64"):
        sign = 1 << (bits - 1)
        inf, nan = {"f16": (0x7C00, 0x7E00), "bf16": (0x7F80, 0x7FC0)}.get(
            typ, (0x7F800000, 0x7FC00000) if bits == 32 else (0x7FF << 52, 0x7FF8 << 48)
        )
        dst0, src = _f_special(bits, n, sign, inf, nan), _f_special(bits, n, sign, inf, nan)
        src[:8] = np.roll(src[:8], 3)  # every special meets every other on some element
        if op.startswith("add") and bits >= 32:
            # also sums with cancellation and with subnormal results
            dst0[8:16] = src[8:16] ^ dt(sign)
            dst0[16:20] = dt(3)
            src[16:20] = np.array([5, sign | 1, sign | 4, 1 << (bits - 12)], dtype=dt)
    elif op in ("inc", "dec"):
        dst0 = RNG.integers(0, 40, size=n, dtype=dt)
        src = RNG.integers(0, 40, size=n, dtype=dt)
        dst0[:4] = [0, 7, 7, 8]
        src[:4] = [5, 7, 6, 7]
    else:
        dst0 = RNG.integers(0, 2**bits, size=n, dtype=dt, endpoint=False)
        src = RNG.integers(0, 2**bits, size=n, dtype=dt, endpoint=False)
        src[:4] = dst0[:4]  # equal elements
    ptx = _bulk_red_ptx(op, typ)
    blob = cubin(ptx, "sm_90a")
    assert f"UBLKRED.G.S.{sass_mods}" in _forms(blob)
    (dst, _), _, _ = run(
        ptx, [dst0.view(np.uint32), src.view(np.uint32)], target="sm_90a", block=BULK_BYTES // 4
    )
    got = dst.view(dt)
    want = [_bulk_ref(op, typ, int(a), int(b)) for a, b in zip(dst0, src, strict=True)]
    bad = [
        (i, hex(int(dst0[i])), hex(int(src[i])), hex(int(got[i])), hex(w))
        for i, w in enumerate(want)
        if int(got[i]) != w
    ]
    assert not bad, bad[:8]


DSMEM_PTX = (
    ptx_header("sm_90a")
    + """
.visible .entry k(.param .u64 out, .param .u64 in) .explicitcluster .reqnctapercluster 2, 1, 1
{
    .reg .b64 %rd<8>;
    .reg .b32 %r<24>;
    .reg .pred %p, %q;
    .shared .align 128 .b8 mine[256];
    .shared .align 128 .b8 got[256];
    .shared .align 128 .b8 acc[256];
    .shared .align 128 .b8 mc[256];
    .shared .align 8 .b64 bar;
    .reg .b16 %mask;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mad.lo.u32 %r3, %r2, 64, %r1;           // in[rank * 64 + t]: this CTA's source word
    mul.wide.u32 %rd3, %r3, 4;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r4, [%rd4];
    ld.global.u32 %r5, [%rd4+512];          // in[128 + rank * 64 + t]: the accumulator's start
    shl.b32 %r6, %r1, 2;
    mov.u32 %r7, mine;
    add.u32 %r8, %r7, %r6;
    st.shared.u32 [%r8], %r4;
    mov.u32 %r9, acc;
    add.u32 %r10, %r9, %r6;
    st.shared.u32 [%r10], %r5;
    mov.u32 %r11, bar;
    setp.ne.u32 %p, %r1, 0;
    @%p bra ARMED;
    mbarrier.init.shared::cta.b64 [%r11], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r11], 768;   // copy, reduction, multicast
ARMED:
    fence.mbarrier_init.release.cluster;
    fence.proxy.async.shared::cta;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @%p bra WAIT;
    xor.b32 %r12, %r2, 1;
    mov.u32 %r13, got;
    mapa.shared::cluster.u32 %r14, %r13, %r12;
    mapa.shared::cluster.u32 %r15, %r9, %r12;
    mapa.shared::cluster.u32 %r16, %r11, %r12;
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
        [%r14], [%r7], 256, [%r16];
    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32
        [%r15], [%r7], 256, [%r16];
    setp.ne.u32 %q, %r2, 0;
    @%q bra WAIT;
    mov.u32 %r20, mc;                   // rank 0: in[256..320) to mc of both CTAs
    add.u64 %rd6, %rd2, 1024;
    mov.b16 %mask, 3;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
        [%r20], [%rd6], 256, [%r11], %mask;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %q, [%r11], 0;
    @!%q bra WAIT;
    mov.u32 %r13, got;
    add.u32 %r17, %r13, %r6;
    ld.shared.u32 %r18, [%r17];
    ld.shared.u32 %r19, [%r10];
    mad.wide.u32 %rd5, %r3, 4, %rd1;
    st.global.u32 [%rd5], %r18;
    st.global.u32 [%rd5+512], %r19;
    mov.u32 %r20, mc;
    add.u32 %r21, %r20, %r6;
    ld.shared.u32 %r22, [%r21];
    st.global.u32 [%rd5+1024], %r22;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"""
)


def test_bulk_shared_cluster() -> None:
    """UBLKCP.S.S / UBLKRED.S.S (cp.async.bulk / cp.reduce.async.bulk .shared::cluster
    .shared::cta): in a cluster of 2, each CTA copies its 256 bytes into its partner's shared
    memory and adds them into the partner's accumulator, both completing on the partner's
    mbarrier, which the partner waits on; UBLKCP.S.G.MULTICAST (.multicast::cluster, mask 0b11):
    rank 0 copies 256 bytes of global memory into the same buffer of both CTAs, completing on
    each one's mbarrier (armed for 768 bytes)."""
    from tests.emu.ptxrun import cubin

    blob = cubin(DSMEM_PTX, "sm_90a")
    forms = _forms(blob)
    assert {"UBLKCP.S.S", "UBLKRED.S.S.ADD", "UBLKCP.S.G.MULTICAST"} <= forms, forms
    src = RNG.integers(0, 2**32, size=320, dtype=np.uint32)
    (out, _), _, _ = run(
        DSMEM_PTX,
        [np.zeros(384, dtype=np.uint32), src],
        target="sm_90a",
        grid=2,
        block=64,
        filled=True,  # a word of the multicast's set-up is not in the ISA tables yet
    )
    mine, acc0 = src[:128].reshape(2, 64), src[128:256].reshape(2, 64)
    want_got = mine[::-1].reshape(-1)
    want_acc = (acc0 + mine[::-1]).reshape(-1)  # uint32 wraps
    np.testing.assert_array_equal(out[:128], want_got)
    np.testing.assert_array_equal(out[128:256], want_acc)
    np.testing.assert_array_equal(out[256:], np.tile(src[256:], 2))


# -- constant-bank reads with a register index (LDC c[bank][R+off], ULDC c[bank][UR+off]) -------

CONST_TAB = [v for c in range(4) for v in ((3 - c) * 32, 16, (c * 7 + 1) * 16, 0)]
CONST_IDX_PTX = (
    ptx_header("sm_90a")
    + (".const .align 16 .b32 tab[16] = {" + ", ".join(map(str, CONST_TAB)) + "};\n")
    + """
.visible .entry k(.param .u64 out, .param .u64 lut)
{
    .reg .b64 %rd<8>;
    .reg .b32 %r<24>;
    .reg .pred %p;
    .shared .align 128 .b8 buf[32];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, buf;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r3, %r4;
    mad.lo.u32 %r6, %r2, 100, %r1;
    st.shared.u32 [%r5], %r6;
    mov.u32 %r8, tab;
    add.u32 %r14, %r8, %r4;             // per-thread indices: LDC c[0x3][R+off]
    ld.const.u32 %r15, [%r14];
    add.u32 %r16, %r8, %r1;
    ld.const.u8 %r17, [%r16+1];
    shl.b32 %r18, %r1, 1;
    add.u32 %r18, %r8, %r18;
    ld.const.s16 %r19, [%r18+2];
    ld.param.u64 %rd6, [lut];
    mad.lo.u32 %r20, %r2, 8, %r1;
    mul.wide.u32 %rd7, %r20, 16;
    add.u64 %rd7, %rd6, %rd7;
    st.global.v4.u32 [%rd7], {%r15, %r17, %r19, %r20};
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p, %r1, 0;
    @%p bra DONE;
    shl.b32 %r7, %r2, 4;                // per-CTA index, in uniform registers: the bulk copies'
    add.u32 %r9, %r8, %r7;              // addresses and size come from the table
    ld.const.u32 %r10, [%r9];
    ld.const.u32 %r11, [%r9+4];
    ld.const.u32 %r12, [%r9+8];
    cvt.u64.u32 %rd2, %r10;
    add.u64 %rd3, %rd1, %rd2;
    cp.async.bulk.global.shared::cta.bulk_group [%rd3], [%r3], %r11;
    cvt.u64.u32 %rd4, %r12;
    add.u64 %rd5, %rd1, %rd4;
    add.u32 %r13, %r3, 16;
    cp.async.bulk.global.shared::cta.bulk_group [%rd5], [%r13], 16;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
DONE:
    ret;
}
"""
)


def test_const_register_index() -> None:
    """``ULDC[.64] UR, c[0x3][UR+off]`` (a uniform index: CTA c reads its own table row, whose
    values place its two bulk stores, addresses summed by ``UIADD3.64``) and ``LDC[.U8/.S16] R,
    c[0x3][R+off]`` (per-thread). Runs on nvdisasm's decoding (the ISA tables may not decode the
    ULDC forms) and, where they decode every word, on the ISA tables' too."""
    from openptxas.emu.decode import UNDECODED
    from openptxas.emu.errors import Unsupported
    from openptxas.emu.launch import launch
    from openptxas.testing.oracle import Oracle
    from tests.conftest import need_tools
    from tests.emu.harness import text_decoder_for
    from tests.emu.ptxrun import cubin

    need_tools("nvdisasm")
    blob = cubin(CONST_IDX_PTX, "sm_90a")
    text = text_decoder_for(blob)
    listing = Oracle().nvdisasm(blob)
    for form in ("ULDC.64 UR", "ULDC UR", "LDC R", "LDC.U8 R", "LDC.S16 R"):
        assert re.search(re.escape(form) + r"\d+, c\[0x3\]\[U?R\d+", listing), form
    assert re.search(r"ULDC(\.64)? UR\d+, c\[0x3\]\[UR\d+\+0x8\]", listing)
    spec = {
        "kernel": "k",
        "grid": [4],
        "block": [8],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 96, "role": "inout"},
            {"kind": "buffer", "dtype": "u32", "count": 128, "role": "inout"},
        ],
    }
    tab = np.array(CONST_TAB, dtype=np.uint32)
    want = np.zeros(96, dtype=np.uint32)
    for c in range(4):
        want[tab[4 * c] // 4 : tab[4 * c] // 4 + 4] = c * 100 + np.arange(4)
        want[tab[4 * c + 2] // 4 : tab[4 * c + 2] // 4 + 4] = c * 100 + 4 + np.arange(4)
    tb = tab.view(np.uint8)
    th = tab.view(np.int16)
    want_lut = np.array(
        [
            [tab[t], tb[t + 1], np.uint32(np.int32(th[t + 1])), c * 8 + t]
            for c in range(4)
            for t in range(8)
        ],
        dtype=np.uint32,
    ).reshape(-1)
    inputs = {"arg0": np.zeros(96, dtype=np.uint32), "arg1": np.zeros(128, dtype=np.uint32)}
    decoders = {"text": text, "isa": None}
    ran = []
    for name, dec in decoders.items():
        try:
            res = launch(blob, spec, inputs=dict(inputs), decoder=dec)
        except Unsupported as exc:
            if name == "isa" and exc.instruction == UNDECODED:
                continue  # a gap of the ISA tables (the corpus test names it); text ran
            raise
        ran.append(name)
        np.testing.assert_array_equal(res.args[0], want, err_msg=name)
        np.testing.assert_array_equal(res.args[1], want_lut, err_msg=name)
    assert "text" in ran


# -- MUFU on bf16 (tanh.approx.bf16[x2], ex2.approx.ftz.bf16[x2]); tanh.approx.f32 subnormals --

MUFU_PTX = (
    ptx_header()
    + """
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
    .reg .b64 %rd<6>;
    .reg .b32 %r<12>;
    .reg .b16 %h<4>;
    .reg .f32 %f<3>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r1, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r4, [%rd4];
    mov.b32 %f1, %r4;
    tanh.approx.f32 %f2, %f1;
    mov.b32 %r5, %f2;
    cvt.u16.u32 %h1, %r4;
    tanh.approx.bf16 %h2, %h1;
    cvt.u32.u16 %r6, %h2;
    ex2.approx.ftz.bf16 %h3, %h1;
    cvt.u32.u16 %r7, %h3;
    tanh.approx.bf16x2 %r8, %r4;
    ex2.approx.ftz.bf16x2 %r9, %r4;
    mul.wide.u32 %rd3, %r1, 20;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r5;
    st.global.u32 [%rd5+4], %r6;
    st.global.u32 [%rd5+8], %r7;
    st.global.u32 [%rd5+12], %r8;
    st.global.u32 [%rd5+16], %r9;
    ret;
}
"""
)


def _bf16_ref(func: str, h: int) -> int:
    """The exact function of the bf16 ``h``, correctly rounded to bf16 (the emulator's MUFU
    error model: docs/emu.md); ex2's .ftz flushes subnormal inputs and results."""
    import math
    from fractions import Fraction

    from tests.emu import floatref

    if func == "ex2" and h & 0x7F80 == 0:
        h &= 0x8000
    x = float(np.array([h << 16], dtype=np.uint32).view(np.float32)[0])  # bf16: f32's top half
    if math.isnan(x):
        return floatref.NAN16
    if func == "tanh":
        y = math.tanh(x)
    else:
        y = 0.0 if x == -math.inf else math.inf if x >= 128 else 2.0**x
    if math.isinf(y):
        return 0x7F80
    if y == 0:
        return h & 0x8000 if func == "tanh" else 0
    r = floatref.round_magnitude(abs(Fraction(y)), "bf16") | (0x8000 if y < 0 else 0)
    if func == "ex2" and r & 0x7F80 == 0:
        return 0
    return r


def test_mufu_bf16_and_tanh_subnormal() -> None:
    """MUFU.TANH.BF16 / MUFU.EX2.BF16 on every bf16 value (scalar and both halves of the x2
    forms) against the correctly rounded exact function; MUFU.TANH (f32) returns a subnormal
    input unchanged (the PTX ISA's special values for tanh.approx.f32), other inputs within
    2^-22 of tanh."""
    import math

    from tests.emu.ptxrun import cubin

    forms = _forms(cubin(MUFU_PTX))
    assert {"MUFU.TANH.BF16", "MUFU.EX2.BF16", "MUFU.TANH"} <= forms, forms
    words = np.arange(65536, dtype=np.uint32)
    words |= np.roll(words, 12345) << np.uint32(16)  # high halves: every value too
    specials = [1e-40, -1e-40, 1e-45, -1e-45, 2.0**-126, 0.0, -0.0, 0.5, -3.0, 20.0]
    words[: len(specials)] = np.array(specials, dtype=np.float32).view(np.uint32)
    words[10:12] = [0x007FFFFF, 0x807FFFFF]  # the largest subnormals
    words[12:14] = [0x7F800000, 0xFF800000]
    (_, out), _, _ = run(
        MUFU_PTX, [words, np.zeros(5 * words.size, dtype=np.uint32)], grid=256, block=256
    )
    out = out.reshape(-1, 5)
    tanh_t = np.array([_bf16_ref("tanh", h) for h in range(65536)], dtype=np.uint32)
    ex2_t = np.array([_bf16_ref("ex2", h) for h in range(65536)], dtype=np.uint32)
    lo, hi = words & np.uint32(0xFFFF), words >> np.uint32(16)
    for col, want in (
        (1, tanh_t[lo]),
        (2, ex2_t[lo]),
        (3, tanh_t[lo] | tanh_t[hi] << np.uint32(16)),
        (4, ex2_t[lo] | ex2_t[hi] << np.uint32(16)),
    ):
        got = out[:, col] & np.uint32(0xFFFF) if col < 3 else out[:, col]
        bad = np.flatnonzero(got != want)
        assert not bad.size, [
            (hex(int(words[t])), hex(int(got[t])), hex(int(want[t]))) for t in bad[:8]
        ]
    for t, w in enumerate(words[:64].tolist()):
        x = float(np.array([w], dtype=np.uint32).view(np.float32)[0])
        y = float(out[t : t + 1, 0].view(np.float32)[0])
        if w & 0x7F800000 == 0 and w & 0x7FFFFF:
            assert int(out[t, 0]) == w, (t, hex(w), hex(int(out[t, 0])))
        elif math.isnan(x):
            assert math.isnan(y)
        else:
            assert abs(y - math.tanh(x)) <= 2.0**-22 * abs(math.tanh(x)), (t, x, y)


# -- DMMA.16x8xK (mma.sync.aligned.m16n8k{4,8,16}.row.col.f64) --------------------------------


def _dmma_ptx(k: int) -> str:
    na, nb = k // 2, k // 4
    a = ", ".join(f"%a{i}" for i in range(na))
    b = ", ".join(f"%b{i}" for i in range(nb))
    loads = "\n".join(
        [f"    ld.global.f64 %a{i}, [%rd4+{8 * i}];" for i in range(na)]
        + [f"    ld.global.f64 %b{i}, [%rd4+{8 * (na + i)}];" for i in range(nb)]
        + [f"    ld.global.f64 %c{i}, [%rd4+{8 * (na + nb + i)}];" for i in range(4)]
    )
    stores = "\n".join(f"    st.global.f64 [%rd5+{8 * i}], %d{i};" for i in range(4))
    return (
        ptx_header()
        + f"""
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
    .reg .b64 %rd<8>;
    .reg .b32 %r<4>;
    .reg .f64 %a<{na}>, %b<{nb}>, %c<4>, %d<4>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, {8 * (na + nb + 4)};
    add.u64 %rd4, %rd1, %rd3;
{loads}
    mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64
        {{%d0, %d1, %d2, %d3}}, {{{a}}}, {{{b}}}, {{%c0, %c1, %c2, %c3}};
    mul.wide.u32 %rd3, %r1, 32;
    add.u64 %rd5, %rd2, %rd3;
{stores}
    ret;
}}
"""
    )


@pytest.mark.parametrize("k", [4, 8, 16])
def test_dmma_m16n8k(k: int) -> None:
    """D = A B + C on f64 with the PTX ISA's m16n8k{4,8,16} .f64 fragments (g = lane >> 2,
    q = lane & 3): a_i at (g + 8 (i % 2), q + 4 (i // 2)), b_i at (q + 4 i, g), c_i/d_i at
    (g + 8 (i // 2), 2 q + i % 2). Small integers: every sum is exact."""
    na, nb = k // 2, k // 4
    A = RNG.integers(-64, 64, size=(16, k)).astype(np.float64)
    B = RNG.integers(-64, 64, size=(k, 8)).astype(np.float64)
    C = RNG.integers(-4096, 4096, size=(16, 8)).astype(np.float64)
    frag = np.zeros((32, na + nb + 4))
    for lane in range(32):
        g, q = lane >> 2, lane & 3
        frag[lane, :na] = [A[g + 8 * (i % 2), q + 4 * (i // 2)] for i in range(na)]
        frag[lane, na : na + nb] = [B[q + 4 * i, g] for i in range(nb)]
        frag[lane, na + nb :] = [C[g + 8 * (i // 2), 2 * q + i % 2] for i in range(4)]
    ptx = _dmma_ptx(k)
    from tests.emu.ptxrun import cubin

    assert f"DMMA.16x8x{k}" in _forms(cubin(ptx)), _forms(cubin(ptx))
    (_, out), _, _ = run(ptx, [frag.reshape(-1), np.zeros(32 * 4)], block=32)
    D = A @ B + C
    want = np.array(
        [[D[(ln >> 2) + 8 * (i // 2), 2 * (ln & 3) + i % 2] for i in range(4)] for ln in range(32)]
    )
    np.testing.assert_array_equal(out.reshape(32, 4), want)


# -- R2P/P2R with a byte selector ----------------------------------------------------------------


def _many_predicates_ptx() -> str:
    """31 predicates (bits of a per-thread value) computed early and used after a run of loads
    and stores: ptxas packs them into a register and unpacks them by byte (R2P PR, R.B3, 0x7f)."""
    lines = [".version 9.0", ".target sm_90", ".address_size 64",
             ".visible .entry k(.param .u64 o, .param .u64 d)", "{",
             "  .reg .pred %p<40>;", "  .reg .b32 %r<200>;", "  .reg .b64 %rd<8>;",
             "  ld.param.u64 %rd1, [o];", "  ld.param.u64 %rd2, [d];",
             "  cvta.to.global.u64 %rd3, %rd1;", "  cvta.to.global.u64 %rd4, %rd2;",
             "  mov.u32 %r1, %tid.x;", "  mul.lo.u32 %r2, %r1, 2654435761;",
             "  mul.wide.u32 %rd5, %r1, 4;", "  add.s64 %rd6, %rd3, %rd5;"]  # fmt: skip
    for j in range(31):
        lines += [
            f"  and.b32 %r{10 + j}, %r2, {1 << j};",
            f"  setp.eq.s32 %p{j + 1}, %r{10 + j}, 0;",
        ]
    lines.append("  mov.u32 %r100, 0;")
    for j in range(31):
        lines += [f"  ld.global.u32 %r{50 + j}, [%rd4+{4 * j}];",
                  f"  st.global.u32 [%rd4+{4 * j + 512}], %r{50 + j};"]  # fmt: skip
    for j in range(31):
        lines += [f"  selp.b32 %r{110 + j}, 0, %r{50 + j}, %p{j + 1};",
                  f"  xor.b32 %r100, %r100, %r{110 + j};"]  # fmt: skip
    lines += ["  st.global.u32 [%rd6], %r100;", "  ret;", "}"]
    return "\n".join(lines) + "\n"


def test_r2p_byte_selector(oracle) -> None:  # type: ignore[no-untyped-def]
    """ptxas's ``R2P PR, R4.B3, 0x7f`` sets P0..P6 from bits 24..30 (the emulator took bits
    0..6 and ran cuda-samples' Sobol initialisation wrong: scripts/public_diff.py, 127 words)."""
    from openptxas.emu import run_launch
    from openptxas.emu.decode import isa_decoder
    from openptxas.emu.program import load_module
    from tests.conftest import need_tools

    need_tools("ptxas")
    blob = oracle.ptxas(_many_predicates_ptx(), "sm_90").cubin
    mod = load_module(blob, isa_decoder("sm90"))
    k = next(iter(mod.kernels.values()))
    sels = {o.sel for i in mod.instructions(k).values() if i.opcode == "R2P"
            for o in i.operands if getattr(o, "sel", "")}  # fmt: skip
    assert sels & {"B1", "B2", "B3"}, "ptxas no longer unpacks by byte here: the test tests nothing"
    d = RNG.integers(0, 1 << 32, size=256, dtype=np.uint64).astype(np.uint32)
    spec = {
        "kernel": "k",
        "grid": [1],
        "block": [64],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros", "role": "out"},
            {"kind": "buffer", "dtype": "u32", "count": 256, "role": "inout",
             "init": {"hex": d.tobytes().hex()}},
        ],
    }  # fmt: skip
    got = run_launch(blob, spec, hazards=True)
    assert not got.hazards
    for t in range(64):
        g = (t * 2654435761) & 0xFFFFFFFF
        want = 0
        for j in range(31):
            if g >> j & 1:
                want ^= int(d[j])
        assert int(got.args[0][t]) == want, t


def test_exit_with_predicate_operand() -> None:
    """``@!P0 EXIT P1``: ptxas folds ``and.pred`` + ``bra`` to a ``ret`` into an EXIT whose
    predicate operand is ANDed with the guard (as BRA's is). The emulator ignored the operand and
    exited every lane under the guard: ptxas's cubin of cuda-samples' convolutionFFT2D
    spProcess2D_kernel then skipped its texture fetches (scripts/public_diff.py found it)."""
    ptx = (
        ptx_header()
        + """.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<5>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd4, [in];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd4, %rd4;
  ld.global.u32 %r1, [%rd4];
  ld.global.u32 %r2, [%rd4+4];
  mov.u32 %r3, %tid.x;
  and.b32 %r4, %r3, %r1;
  setp.eq.s32 %p2, %r4, 0;
  setp.gt.u32 %p3, %r3, %r2;
  and.pred %p4, %p3, %p2;
  @%p4 bra DONE;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
DONE:
  ret;
}
"""
    )
    out = np.full(64, 0xFFFFFFFF, dtype=np.uint32)
    a, b = 3, 20
    (got, _inp), _res, blob = run(ptx, [out, np.array([a, b], dtype=np.uint32)], block=64)
    assert any(i.opcode == "EXIT" and not i.guard.is_zero and i.operands for i in sass(blob))
    tid = np.arange(64, dtype=np.uint32)
    want = np.where(((tid & a) == 0) & (tid > b), np.uint32(0xFFFFFFFF), tid)
    assert np.array_equal(got, want), np.nonzero(got != want)[0]
