"""Packing conversions against references built from the PTX ISA's definitions: cvt to and from
.e4m3x2/.e5m2x2 (F2FP ... PACK_AB_MERGE_C / UNPACK_B), .f16x2/.bf16x2 packs with .relu and
.satfinite (F2FP ... PACK_AB), cvt.pack.sat (I2IP).

The 8- and 16-bit float references enumerate every finite value of the format from its
definition (sign, exponent, mantissa, bias; E4M3 without infinities, S.1111.111 its NaN) as
``fractions.Fraction`` and round by exact comparison: nearest, ties to the even encoding, toward
zero for .rz; .satfinite clamps to the largest finite value first; .relu maps negative values
(and -0) to +0. NaN results are 0x7F (8-bit) and 0x7FFF (f16/bf16), the canonical NaNs.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import numpy as np
import pytest

from openptxas.emu.launch import launch
from openptxas.testing.oracle import Oracle
from tests.emu.floatref import NAN16, decode, encode, finite_values
from tests.emu.harness import filled_decoder
from tests.emu.ptxrun import cubin, ptx_header

NDArray = np.ndarray[Any, Any]


def _f32_inputs(n: int, rng: np.random.Generator) -> NDArray:
    """f32 inputs covering every 8-bit float's neighbourhood: the values themselves, midpoints
    between neighbours (ties), points just off them, overflow, subnormals and specials."""
    pts: list[float] = []
    for fmt in ("e4m3", "e5m2"):
        vals = [float(v) for v in finite_values(fmt)[0]]
        for a, b in itertools.pairwise(vals):
            mid = (a + b) / 2
            pts += [a, mid, float(np.nextafter(np.float32(mid), np.float32(0))), -mid]
        pts += [vals[-1] * 1.06, vals[-1] * 1.2, -vals[-1] * 1.2, 1e30, -1e30]
    pts += [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-40, 2.0**-20]
    pts += list(rng.standard_normal(200) * 100.0)
    arr = np.array(pts, dtype=np.float32)
    reps = -(-n // arr.size)
    arr = np.tile(arr, reps)[:n]
    return arr


def _ptx() -> str:
    cv = [
        "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\ncvt.u32.u16 %o0, %h1;",
        "cvt.rn.satfinite.e5m2x2.f32 %h1, %f1, %f2;\ncvt.u32.u16 %o1, %h1;",
        "cvt.rn.satfinite.relu.e4m3x2.f32 %h1, %f3, %f4;\ncvt.u32.u16 %o2, %h1;",
        "cvt.rn.satfinite.relu.e5m2x2.f32 %h1, %f3, %f4;\ncvt.u32.u16 %o3, %h1;",
        "cvt.u16.u32 %h1, %i0;\ncvt.rn.f16x2.e4m3x2 %o4, %h1;",
        "cvt.u16.u32 %h1, %i0;\ncvt.rn.f16x2.e5m2x2 %o5, %h1;",
        "cvt.rn.satfinite.e4m3x2.f16x2 %h1, %i1;\ncvt.u32.u16 %o6, %h1;",
        "cvt.rn.satfinite.e5m2x2.f16x2 %h1, %i1;\ncvt.u32.u16 %o7, %h1;",
        "cvt.rn.relu.f16x2.f32 %o8, %f1, %f2;",
        "cvt.rn.satfinite.bf16x2.f32 %o9, %f1, %f2;",
        "cvt.rz.satfinite.relu.bf16x2.f32 %o10, %f3, %f4;",
        "cvt.rn.f16x2.f32 %o11, %f1, %f2;",
        "cvt.rn.satfinite.f16x2.f32 %o12, %f3, %f4;",
        "cvt.pack.sat.s8.s32.b32 %o13, %i0, %i1, %i2;",
        "cvt.pack.sat.u8.s32.b32 %o14, %i1, %i2, %i3;",
        "cvt.pack.sat.s16.s32 %o15, %i2, %i3;",
    ]
    outs = ", ".join(f"%o{j}" for j in range(16))
    stores = "\n".join(
        f"st.global.v4.b32 [%q+{16 * j}], {{" + ", ".join(f"%o{4 * j + i}" for i in range(4)) + "};"
        for j in range(4)
    )
    return (
        ptx_header()
        + f""".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{{
  .reg .u64 %a, %b, %c, %off, %q;
  .reg .f32 %f<5>;
  .reg .b32 %i<4>, {outs};
  .reg .b16 %h<2>;
  .reg .u32 %t, %cta, %nt;
  ld.param.u64 %a, [pa];
  ld.param.u64 %b, [pb];
  ld.param.u64 %c, [pc];
  cvta.to.global.u64 %a, %a;
  cvta.to.global.u64 %b, %b;
  cvta.to.global.u64 %c, %c;
  mov.u32 %t, %tid.x;
  mov.u32 %cta, %ctaid.x;
  mov.u32 %nt, %ntid.x;
  mad.lo.u32 %t, %cta, %nt, %t;
  mul.wide.u32 %off, %t, 16;
  add.u64 %a, %a, %off;
  add.u64 %b, %b, %off;
  ld.global.v4.f32 {{%f1, %f2, %f3, %f4}}, [%a];
  ld.global.v4.b32 {{%i0, %i1, %i2, %i3}}, [%b];
  mul.wide.u32 %off, %t, 64;
  add.u64 %q, %c, %off;
"""
        + "\n".join(cv)
        + "\n"
        + stores
        + "\n  ret;\n}\n"
    )


def _sat(v: int, lo: int, hi: int) -> int:
    return min(max(v, lo), hi)


@pytest.fixture(scope="module")
def conversions() -> tuple[NDArray, NDArray, NDArray, bytes]:
    n = 2048
    rng = np.random.default_rng(5)
    f = _f32_inputs(4 * n, rng).reshape(n, 4)
    rng.shuffle(f, axis=0)
    ints = rng.integers(-(2**31), 2**31, size=(n, 4), dtype=np.int64)
    ints[:, :2] = rng.integers(-400, 400, size=(n, 2))
    ints[:256, 0] = np.arange(256) | (np.arange(256)[::-1] << 8)  # every 8-bit float, both bytes
    # f16x2 inputs around the 8-bit floats' ranges
    with np.errstate(over="ignore"):
        h = np.abs(f[:, :2]).astype(np.float16) * np.where(rng.random((n, 2)) < 0.5, -1, 1)
    hb = h.astype(np.float16).view(np.uint16).astype(np.int64)
    ints[:, 1] = hb[:, 0] | (hb[:, 1] << 16)
    ints[:, 1] = np.where(ints[:, 1] >= 2**31, ints[:, 1] - 2**32, ints[:, 1])
    ints32 = ints.astype(np.int32).view(np.uint32)
    out = np.zeros((n, 16), dtype=np.uint32)
    blob = cubin(_ptx())
    spec = {
        "kernel": "k",
        "grid": [n // 256],
        "block": [256],
        "args": [
            {"kind": "buffer", "dtype": "f32", "count": f.size},
            {"kind": "buffer", "dtype": "u32", "count": ints32.size},
            {"kind": "buffer", "dtype": "u32", "count": out.size, "role": "out"},
        ],
    }
    # filled: F2FP's 8-bit float forms come from nvdisasm until the ISA tables decode them
    res = launch(
        blob,
        spec,
        inputs={"arg0": f.ravel(), "arg1": ints32.ravel()},
        decoder=filled_decoder(blob),
    )
    return f, ints32, res.args[2].reshape(n, 16), blob


def test_forms_present(conversions: tuple[NDArray, NDArray, NDArray, bytes]) -> None:
    blob = conversions[3]
    text = Oracle().nvdisasm(blob)  # nvdisasm's names: some forms are not in the ISA tables yet
    got = set(re.findall(r"\b((?:F2FP|I2IP)[.A-Z0-9_]*)", text))
    assert {
        "F2FP.F16.E4M3.UNPACK_B",
        "F2FP.F16.E5M2.UNPACK_B",
        "F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C",
        "F2FP.SATFINITE.E5M2.F32.PACK_AB_MERGE_C",
        "F2FP.SATFINITE.RELU.E4M3.F32.PACK_AB_MERGE_C",
        "F2FP.SATFINITE.RELU.E5M2.F32.PACK_AB_MERGE_C",
        "F2FP.SATFINITE.E4M3.F16.UNPACK_B_MERGE_C",
        "F2FP.SATFINITE.E5M2.F16.UNPACK_B_MERGE_C",
        "F2FP.RELU.F16.F32.PACK_AB",
        "F2FP.SATFINITE.F16.F32.PACK_AB",
        "F2FP.SATFINITE.BF16.F32.PACK_AB",
        "F2FP.SATFINITE.RELU.BF16.F32.PACK_AB.RZ",
        "I2IP.S8.S32.SAT",
        "I2IP.U8.S32.SAT",
        "I2IP.S16.S32.SAT",
    } <= got


def _f16x2(word: int) -> tuple[float, float]:
    lo = float(np.array([word & 0xFFFF], dtype=np.uint16).view(np.float16)[0])
    hi = float(np.array([word >> 16], dtype=np.uint16).view(np.float16)[0])
    return lo, hi


COLS = {
    0: ("e4m3", 0, 1, {"satfinite": True}),
    1: ("e5m2", 0, 1, {"satfinite": True}),
    2: ("e4m3", 2, 3, {"satfinite": True, "relu": True}),
    3: ("e5m2", 2, 3, {"satfinite": True, "relu": True}),
    8: ("f16", 0, 1, {"relu": True}),
    9: ("bf16", 0, 1, {"satfinite": True}),
    10: ("bf16", 2, 3, {"satfinite": True, "relu": True, "rz": True}),
    11: ("f16", 0, 1, {}),
    12: ("f16", 2, 3, {"satfinite": True}),
}


@pytest.mark.parametrize("col", sorted(COLS))
def test_pack_f32(col: int, conversions: tuple[NDArray, NDArray, NDArray, bytes]) -> None:
    f, _i, out, _ = conversions
    fmt, ia, ib, kw = COLS[col]
    width = 8 if fmt in ("e4m3", "e5m2") else 16
    for t in range(f.shape[0]):
        a, b = float(f[t, ia]), float(f[t, ib])
        want = encode(a, fmt, **kw) << width | encode(b, fmt, **kw)
        assert int(out[t, col]) == want, (col, t, a, b, hex(int(out[t, col])), hex(want))


@pytest.mark.parametrize(("col", "fmt"), [(4, "e4m3"), (5, "e5m2")])
def test_unpack_fp8(
    col: int, fmt: str, conversions: tuple[NDArray, NDArray, NDArray, bytes]
) -> None:
    _f, ints, out, _ = conversions
    for t in range(ints.shape[0]):
        src = int(ints[t, 0]) & 0xFFFF
        lo, hi = _f16x2(int(out[t, col]))
        for got, byte in ((lo, src & 0xFF), (hi, src >> 8)):
            want = decode(fmt, byte)
            assert (math.isnan(got) and math.isnan(want)) or (
                got == want and math.copysign(1, got) == math.copysign(1, want)
            ), (t, hex(byte), got, want)
        words = [int(out[t, col]) & 0xFFFF, int(out[t, col]) >> 16]
        for w, byte in zip(words, (src & 0xFF, src >> 8), strict=True):
            if math.isnan(decode(fmt, byte)) and fmt == "e4m3":
                assert w == NAN16


@pytest.mark.parametrize(("col", "fmt"), [(6, "e4m3"), (7, "e5m2")])
def test_pack_f16x2(
    col: int, fmt: str, conversions: tuple[NDArray, NDArray, NDArray, bytes]
) -> None:
    _f, ints, out, _ = conversions
    for t in range(ints.shape[0]):
        lo, hi = _f16x2(int(ints[t, 1]))
        want = encode(hi, fmt, satfinite=True) << 8 | encode(lo, fmt, satfinite=True)
        assert int(out[t, col]) == want, (t, lo, hi, hex(int(out[t, col])), hex(want))


def test_pack_sat(conversions: tuple[NDArray, NDArray, NDArray, bytes]) -> None:
    _f, ints, out, _ = conversions
    s = ints.view(np.int32).astype(int)
    for t in range(s.shape[0]):
        i0, i1, i2, i3 = (int(v) for v in s[t])
        c2, c3 = int(ints[t, 2]), int(ints[t, 3])
        w13 = (
            c2 << 16 | (_sat(i0, -128, 127) & 0xFF) << 8 | (_sat(i1, -128, 127) & 0xFF)
        ) & 0xFFFFFFFF
        w14 = (c3 << 16 | _sat(i1, 0, 255) << 8 | _sat(i2, 0, 255)) & 0xFFFFFFFF
        w15 = (_sat(i2, -(2**15), 2**15 - 1) & 0xFFFF) << 16 | (
            _sat(i3, -(2**15), 2**15 - 1) & 0xFFFF
        )
        assert [int(out[t, 13]), int(out[t, 14]), int(out[t, 15])] == [w13, w14, w15], t


# -- scalar f16/bf16 and tf32 conversions, .relu on the 8-bit-float unpack (sm_90) ------------

SCALAR_CVT = [
    "cvt.rn.relu.f16.f32 %h1, %f1;\ncvt.u32.u16 %o0, %h1;",
    "cvt.rn.relu.bf16.f32 %h1, %f1;\ncvt.u32.u16 %o1, %h1;",
    "cvt.rn.tf32.f32 %o2, %f1;",
    "cvt.rz.tf32.f32 %o3, %f1;",
    "cvt.rn.relu.tf32.f32 %o4, %f1;",
    "cvt.rz.relu.tf32.f32 %o5, %f1;",
    "cvt.u16.u32 %h1, %i0;\ncvt.rn.relu.f16x2.e4m3x2 %o6, %h1;",
    "cvt.u16.u32 %h1, %i0;\ncvt.rn.relu.f16x2.e5m2x2 %o7, %h1;",
]


def _scalar_ptx() -> str:
    outs = ", ".join(f"%o{j}" for j in range(8))
    return (
        ptx_header()
        + f""".visible .entry k(.param .u64 pa, .param .u64 pc)
{{
  .reg .u64 %a, %c, %off;
  .reg .f32 %f1;
  .reg .b32 %i0, {outs};
  .reg .b16 %h1;
  .reg .u32 %t, %cta, %nt;
  ld.param.u64 %a, [pa];
  ld.param.u64 %c, [pc];
  mov.u32 %t, %tid.x;
  mov.u32 %cta, %ctaid.x;
  mov.u32 %nt, %ntid.x;
  mad.lo.u32 %t, %cta, %nt, %t;
  mul.wide.u32 %off, %t, 4;
  add.u64 %a, %a, %off;
  ld.global.f32 %f1, [%a];
  mov.b32 %i0, %f1;
  mul.wide.u32 %off, %t, 32;
  add.u64 %c, %c, %off;
"""
        + "\n".join(SCALAR_CVT)
        + "\n  st.global.v4.b32 [%c], {%o0, %o1, %o2, %o3};"
        + "\n  st.global.v4.b32 [%c+16], {%o4, %o5, %o6, %o7};"
        + "\n  ret;\n}\n"
    )


def _tf32_ref(bits: int, mode: str, relu: bool) -> int:
    """cvt.{rn,rz}{.relu}.tf32.f32 from the definition: the exact value rounded to 11 significant
    bits with f32's exponent range (subnormals included), kept as an f32 bit pattern; overflow to
    infinity (rn) or the largest finite tf32 (rz); NaN to the canonical NaN."""
    from fractions import Fraction

    from tests.emu.floatref import round_ieee

    x = float(np.array([bits], dtype=np.uint32).view(np.float32)[0])
    if math.isnan(x):
        return 0x7FFFFFFF
    neg = bits >> 31 == 1
    if relu and neg:
        return 0
    if math.isinf(x):
        return bits
    r = round_ieee(Fraction(x), 11, -126, 127, mode)
    rb = int(np.array([float(r)], dtype=np.float32).view(np.uint32)[0])
    return rb | (0x80000000 if neg else 0)


@pytest.fixture(scope="module")
def scalar_conversions() -> tuple[NDArray, NDArray, bytes]:
    rng = np.random.default_rng(7)
    f = _f32_inputs(4096, rng).view(np.uint32).copy()
    # tf32: random patterns of every exponent (subnormals, NaNs), ties and near-ties at bit 13
    f[:1024] = rng.integers(0, 2**32, size=1024, dtype=np.uint64).astype(np.uint32)
    base = rng.integers(0, 2**32, size=512, dtype=np.uint64).astype(np.uint32) & np.uint32(
        0xFFFFE000
    )
    f[1024:1536] = base | np.uint32(0x1000)  # exact ties (even and odd kept bit)
    f[1536:1792] = (base[:256] | np.uint32(0x1000)) + np.uint32(1)
    f[1792:1800] = [0x7F7FFFFF, 0xFF7FFFFF, 0x7F7FF000, 0x7F7FEFFF, 0x00001000, 0x80001FFF, 1, 0]
    f[2048:2304] = np.arange(256) | (np.arange(256)[::-1] << 8)  # every 8-bit float, both bytes
    blob = cubin(_scalar_ptx())
    spec = {
        "kernel": "k",
        "grid": [f.size // 256],
        "block": [256],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": f.size},
            {"kind": "buffer", "dtype": "u32", "count": 8 * f.size, "role": "out"},
        ],
    }
    # filled: these F2FP forms come from nvdisasm until the ISA tables decode them
    res = launch(blob, spec, inputs={"arg0": f}, decoder=filled_decoder(blob))
    return f, res.args[1].reshape(f.size, 8), blob


def test_scalar_forms_present(scalar_conversions: tuple[NDArray, NDArray, bytes]) -> None:
    text = Oracle().nvdisasm(scalar_conversions[2])
    got = set(re.findall(r"\b(F2FP[.A-Z0-9_]*)", text))
    assert {
        "F2FP.RELU.F16.F32.MERGE_C",
        "F2FP.RELU.BF16.F32.MERGE_C",
        "F2FP.TF32.F32.PACK_B",
        "F2FP.TF32.F32.PACK_B.RZ",
        "F2FP.RELU.TF32.F32.PACK_B",
        "F2FP.RELU.TF32.F32.PACK_B.RZ",
        "F2FP.RELU.F16.E4M3.UNPACK_B",
        "F2FP.RELU.F16.E5M2.UNPACK_B",
    } <= got, got


def test_scalar_f16_bf16_relu(scalar_conversions: tuple[NDArray, NDArray, bytes]) -> None:
    f, out, _ = scalar_conversions
    x = f.view(np.float32)
    for t in range(f.size):
        for col, fmt in ((0, "f16"), (1, "bf16")):
            want = encode(float(x[t]), fmt, relu=True)
            assert int(out[t, col]) == want, (col, hex(int(f[t])), hex(int(out[t, col])), hex(want))


@pytest.mark.parametrize(
    ("col", "mode", "relu"), [(2, "RN", False), (3, "RZ", False), (4, "RN", True), (5, "RZ", True)]
)
def test_tf32(
    col: int, mode: str, relu: bool, scalar_conversions: tuple[NDArray, NDArray, bytes]
) -> None:
    f, out, _ = scalar_conversions
    for t in range(f.size):
        want = _tf32_ref(int(f[t]), mode, relu)
        assert int(out[t, col]) == want, (col, hex(int(f[t])), hex(int(out[t, col])), hex(want))


@pytest.mark.parametrize(("col", "fmt"), [(6, "e4m3"), (7, "e5m2")])
def test_unpack_fp8_relu(
    col: int, fmt: str, scalar_conversions: tuple[NDArray, NDArray, bytes]
) -> None:
    """cvt.rn.relu.f16x2.{e4m3x2,e5m2x2}: exact, negative results (-0 included) become +0, NaN
    the canonical NaN."""
    f, out, _ = scalar_conversions
    for t in range(f.size):
        src = int(f[t]) & 0xFFFF
        for half, byte in ((0, src & 0xFF), (1, src >> 8)):
            v = decode(fmt, byte)
            want = NAN16 if math.isnan(v) else encode(v, "f16", relu=True)
            got = int(out[t, col]) >> (16 * half) & 0xFFFF
            assert got == want, (t, hex(byte), hex(got), hex(want))
