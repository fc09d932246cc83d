"""IEEE arithmetic and conversions in every rounding mode against exact rational references
(``fractions.Fraction``, tests/emu/floatref.py): FADD/FMUL/FFMA (.rn/.rz/.rm/.rp, .ftz, .sat),
DADD/DMUL/DFMA, F2F (f64 -> f32, f32 -> f16), F2I (cvt.r*i.s32.f32, .u32.f64), I2F (cvt.r*.f32.s32,
.f64.s64), FRND (cvt.r*i.f32.f32).

Rules taken from the PTX ISA: results rounded once from the exact value; an exact zero sum is +0
(-0 in .rm) unless both addends are -0; .ftz flushes subnormal inputs and results to zero of the
same sign; .sat clamps to [0, 1] with NaN -> +0; float-to-integer conversions saturate, NaN -> 0;
f32 NaN results are the canonical 0x7FFFFFFF (f64 ones are only checked to be NaN).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from openptxas.emu.launch import launch
from tests.emu.floatref import F16_FMT, F32_FMT, F64_FMT, round_ieee
from tests.emu.ptxrun import cubin, ptx_header

NDArray = np.ndarray[Any, Any]
MODES = ("rn", "rz", "rm", "rp")


def bits32(x: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", x))[0])


def bits64(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def from32(b: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", b))[0])


def from64(b: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", b))[0])


def encode(v: Fraction | float, fmt: tuple[int, int, int], neg_zero: bool) -> float:
    if isinstance(v, float):
        return v
    if v == 0:
        return -0.0 if neg_zero else 0.0
    return float(v)  # exact: v is representable (f32/f16 values are exact doubles)


def ftz_in(x: float) -> float:
    return math.copysign(0.0, x) if x != 0 and abs(x) < 2.0**-126 else x


def arith(op: str, xs: list[float], mode: str, fmt: tuple[int, int, int]) -> float:
    """Exact-then-rounded result of add/mul/fma on finite or special inputs."""
    xs = xs[: 3 if op == "fma" else 2]
    if any(math.isnan(x) for x in xs):
        return math.nan
    if any(math.isinf(x) for x in xs):  # IEEE arithmetic on infinities is exact
        with np.errstate(all="ignore"):
            p = xs[0] * xs[1] if op != "add" else xs[0]
            q = xs[1] if op == "add" else (xs[2] if op == "fma" else 0.0)
            return p if op == "mul" else p + q
    f = [Fraction(x) for x in xs]
    neg = [math.copysign(1, x) < 0 for x in xs]
    if op == "add":
        exact = f[0] + f[1]
        if xs[0] == 0 and xs[1] == 0 and neg[0] == neg[1]:
            zsign = neg[0]  # zeros of one sign keep it
        else:
            zsign = mode == "rm"  # any other exact zero sum: -0 only when rounding down
    elif op == "mul":
        exact = f[0] * f[1]
        zsign = neg[0] != neg[1]
    else:
        exact = f[0] * f[1] + f[2]
        psign = neg[0] != neg[1]
        if f[0] * f[1] == 0 and xs[2] == 0 and psign == neg[2]:
            zsign = psign
        else:
            zsign = mode == "rm"
    r = round_ieee(exact, *fmt, mode.upper())
    if isinstance(r, Fraction) and r == 0 and exact != 0:
        zsign = exact < 0  # underflow to zero keeps the sign of the exact value
    return encode(r, fmt, zsign)


# name: (PTX line computing %o (b32) or %od (b64), input kind, reference)
Ref = Callable[[list[float], list[int]], int]
OPS: list[tuple[str, str, Ref]] = []


def _f32_ref(op: str, mode: str, ftz: bool = False, sat: bool = False) -> Ref:
    def ref(xs: list[float], _ints: list[int]) -> int:
        args = [ftz_in(x) for x in xs] if ftz else xs
        r = arith(op, args, mode, F32_FMT)
        if ftz and r != 0 and abs(r) < 2.0**-126:
            r = math.copysign(0.0, r)
        if sat:
            r = 0.0 if math.isnan(r) else min(max(r, 0.0), 1.0)
            if r == 0:
                r = 0.0
        return 0x7FFFFFFF if math.isnan(r) else bits32(r)

    return ref


def _f64_ref(op: str, mode: str) -> Ref:
    def ref(xs: list[float], _ints: list[int]) -> int:
        r = arith(op, xs, mode, F64_FMT)
        return -1 if math.isnan(r) else bits64(r)

    return ref


for _m in MODES:
    OPS.append((f"add.{_m}.f32 %o, %f1, %f2;", "f32", _f32_ref("add", _m)))
    OPS.append((f"mul.{_m}.f32 %o, %f1, %f2;", "f32", _f32_ref("mul", _m)))
    OPS.append((f"fma.{_m}.f32 %o, %f1, %f2, %f3;", "f32", _f32_ref("fma", _m)))
    OPS.append((f"add.{_m}.f64 %od, %d1, %d2;", "f64", _f64_ref("add", _m)))
    OPS.append((f"mul.{_m}.f64 %od, %d1, %d2;", "f64", _f64_ref("mul", _m)))
    OPS.append((f"fma.{_m}.f64 %od, %d1, %d2, %d3;", "f64", _f64_ref("fma", _m)))
OPS.append(("add.rn.ftz.f32 %o, %f1, %f2;", "f32", _f32_ref("add", "rn", ftz=True)))
OPS.append(("mul.rz.ftz.f32 %o, %f1, %f2;", "f32", _f32_ref("mul", "rz", ftz=True)))
OPS.append(("fma.rn.sat.f32 %o, %f1, %f2, %f3;", "f32", _f32_ref("fma", "rn", sat=True)))


def _cvt_f32_f64(mode: str) -> Ref:
    def ref(xs: list[float], _ints: list[int]) -> int:
        x = xs[0]
        if math.isnan(x):
            return 0x7FFFFFFF
        if math.isinf(x):
            return bits32(x)
        r = round_ieee(Fraction(x), *F32_FMT, mode.upper())
        return bits32(encode(r, F32_FMT, math.copysign(1, x) < 0))

    return ref


def _cvt_f16_f32(mode: str) -> Ref:
    def ref(xs: list[float], _ints: list[int]) -> int:
        x = xs[0]
        if math.isnan(x):
            return 0x7FFF
        if math.isinf(x):
            return 0x7C00 | (0x8000 if x < 0 else 0)
        r = round_ieee(Fraction(x), *F16_FMT, mode.upper())
        v = encode(r, F16_FMT, math.copysign(1, x) < 0)
        return int(np.array([v], dtype=np.float16).view(np.uint16)[0])

    return ref


def _f2i(mode: str, lo: int, hi: int, src64: bool = False) -> Ref:
    def ref(xs: list[float], _ints: list[int]) -> int:
        x = xs[0]
        if math.isnan(x):
            return 0
        if math.isinf(x):
            v = lo if x < 0 else hi
        else:
            f = Fraction(x)
            fl = math.floor(f)
            v = {
                "rzi": math.trunc(f),
                "rmi": fl,
                "rpi": math.ceil(f),
                "rni": fl
                + (1 if (f - fl > Fraction(1, 2) or (f - fl == Fraction(1, 2) and fl % 2)) else 0),
            }[mode]
            v = min(max(v, lo), hi)
        return v & 0xFFFFFFFF

    return ref


def _i2f(mode: str, fmt: tuple[int, int, int], width: int) -> Ref:
    def ref(_xs: list[float], ints: list[int]) -> int:
        v = ints[0]
        if width == 32:
            v = (v & 0xFFFFFFFF) - ((v >> 31 & 1) << 32)
        r = round_ieee(Fraction(v), *fmt, mode.upper())
        f = encode(r, fmt, False)
        return bits32(f) if fmt == F32_FMT else bits64(f)

    return ref


def _frnd(mode: str) -> Ref:
    def ref(xs: list[float], _ints: list[int]) -> int:
        x = xs[0]
        if math.isnan(x):
            return 0x7FFFFFFF
        if math.isinf(x) or x == 0:
            return bits32(x)
        f = Fraction(x)
        fl = math.floor(f)
        v = {
            "rzi": math.trunc(f),
            "rmi": fl,
            "rpi": math.ceil(f),
            "rni": fl
            + (1 if (f - fl > Fraction(1, 2) or (f - fl == Fraction(1, 2) and fl % 2)) else 0),
        }[mode]
        return bits32(math.copysign(float(v), x))

    return ref


for _m in MODES:
    OPS.append((f"cvt.{_m}.f32.f64 %o, %d1;", "f64", _cvt_f32_f64(_m)))
    OPS.append((f"cvt.{_m}.f16.f32 %h, %f1;\ncvt.u32.u16 %o, %h;", "f32", _cvt_f16_f32(_m)))
    OPS.append((f"cvt.{_m}i.s32.f32 %o, %f1;", "f32", _f2i(_m + "i", -(2**31), 2**31 - 1)))
    OPS.append((f"cvt.{_m}i.u32.f64 %o, %d1;", "f64", _f2i(_m + "i", 0, 2**32 - 1)))
    OPS.append((f"cvt.{_m}.f32.s32 %o, %i1;", "int", _i2f(_m, F32_FMT, 32)))
    OPS.append((f"cvt.{_m}.f64.s64 %od, %l1;", "int", _i2f(_m, F64_FMT, 64)))
    OPS.append((f"cvt.{_m}i.f32.f32 %o, %f1;", "f32", _frnd(_m + "i")))


def _ptx() -> str:
    body = []
    for j, (code, _kind, _ref) in enumerate(OPS):
        wide = "%od" in code
        store = f"st.global.b64 [%q+{8 * j}], %od;" if wide else f"st.global.b32 [%q+{8 * j}], %o;"
        body.append(
            "{\n  .reg .b32 %o;\n  .reg .b64 %od;\n  .reg .b16 %h;\n  "
            + code
            + "\n  "
            + store
            + "\n}"
        )
    return (
        ptx_header()
        + f""".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{{
  .reg .u64 %a, %b, %c, %off, %q;
  .reg .f32 %f<4>;
  .reg .f64 %d<4>;
  .reg .s32 %i1;
  .reg .s64 %l1;
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
  ld.global.v4.f32 {{%f1, %f2, %f3, %f0}}, [%a];
  mul.wide.u32 %off, %t, 32;
  add.u64 %b, %b, %off;
  ld.global.v2.f64 {{%d1, %d2}}, [%b];
  ld.global.f64 %d3, [%b+16];
  ld.global.s64 %l1, [%b+24];
  cvt.u32.u64 %i1, %l1;
  mul.wide.u32 %off, %t, {8 * len(OPS)};
  add.u64 %q, %c, %off;
"""
        + "\n".join(body)
        + "\n  ret;\n}\n"
    )


def _f32_inputs(rng: np.random.Generator, n: int) -> NDArray:
    kinds = rng.integers(0, 4, size=(n, 4))
    raw = rng.integers(0, 2**32, size=(n, 4), dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = (rng.standard_normal((n, 4)) * 2.0 ** rng.integers(-10, 10, (n, 4))).astype(np.float32)
    tiny = (rng.standard_normal((n, 4)) * 2.0**-130).astype(np.float32)
    big = (rng.standard_normal((n, 4)) * 2.0**126).astype(np.float32)
    out = np.choose(kinds, [raw, near, tiny, big])
    # cancellation: b close to -a, c close to -a*b
    out[: n // 4, 1] = -out[: n // 4, 0] * np.float32(1 + 2.0**-20)
    with np.errstate(all="ignore"):
        out[n // 4 : n // 2, 2] = -(out[n // 4 : n // 2, 0] * out[n // 4 : n // 2, 1])
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, 2.5, -0.5, 2.0**-149, 3e38], np.float32
    )
    out[: special.size, 0] = special
    out[special.size : 2 * special.size, 1] = special
    return out


def _f64_inputs(rng: np.random.Generator, n: int, f32: NDArray) -> NDArray:
    raw = rng.integers(0, 2**64, size=(n, 3), dtype=np.uint64).view(np.float64)
    near = rng.standard_normal((n, 3)) * 2.0 ** rng.integers(-40, 40, (n, 3))
    kinds = rng.integers(0, 3, size=(n, 3))
    out = np.choose(kinds, [raw, near, f32[:, :3].astype(np.float64) * (1 + 2.0**-30)])
    out[: n // 4, 1] = -out[: n // 4, 0] * (1 + 2.0**-45)
    out[:12, 0] = [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        2.5,
        -3.5,
        4294967295.5,
        -1.0,
        2.0**-1074,
        1e300,
        3.4e38,
    ]
    out[12:24, 0] = np.array(
        [
            2.0**-126 * 1.5,
            2.0**-150,
            2.0**-149 * 1.5,
            3.4028235677973366e38,
            3.4028236e38,
            6e4,
            65520.0,
            65519.0,
            2.0**-25,
            2.0**-24 * 1.5,
            4294967296.0,
            -0.5,
        ]
    )
    return out


@pytest.fixture(scope="module")
def fp_run() -> tuple[NDArray, NDArray, NDArray, NDArray]:
    n = 1024
    rng = np.random.default_rng(3)
    f = _f32_inputs(rng, n)
    d = _f64_inputs(rng, n, f)
    ints = rng.integers(-(2**63), 2**63, size=n, dtype=np.int64)
    ints[: n // 2] >>= rng.integers(0, 63, size=n // 2)
    dbuf = np.zeros((n, 4), dtype=np.float64)
    dbuf[:, :3] = d
    dbuf[:, 3] = ints.view(np.float64)
    out = np.zeros((n, len(OPS)), dtype=np.uint64)
    blob = cubin(_ptx())
    spec = {
        "kernel": "k",
        "grid": [n // 128],
        "block": [128],
        "args": [
            {"kind": "buffer", "dtype": "f32", "count": f.size},
            {"kind": "buffer", "dtype": "f64", "count": dbuf.size},
            {"kind": "buffer", "dtype": "u64", "count": out.size, "role": "out"},
        ],
    }
    res = launch(blob, spec, inputs={"arg0": f.ravel(), "arg1": dbuf.ravel()})
    return f, d, ints, res.args[2].reshape(n, len(OPS))


@pytest.mark.parametrize("j", range(len(OPS)), ids=[o[0].split()[0] for o in OPS])
def test_fp(j: int, fp_run: tuple[NDArray, NDArray, NDArray, NDArray]) -> None:
    f, d, ints, out = fp_run
    code, kind, ref = OPS[j]
    wide = "%od" in code
    bad = []
    for t in range(f.shape[0]):
        if kind == "f32":
            xs = [float(v) for v in f[t, :3]]
        elif kind == "f64":
            xs = [float(v) for v in d[t]]
        else:
            xs = []
        want = ref(xs, [int(ints[t])])
        got = int(out[t, j]) if wide else int(out[t, j]) & 0xFFFFFFFF
        if want == -1:  # an f64 NaN
            ok = math.isnan(from64(got))
        else:
            ok = got == want
        if not ok:
            bad.append((t, xs, int(ints[t]), hex(got), hex(want & (2**64 - 1))))
    assert not bad, (code, len(bad), bad[:4])
