"""Differential check of one floating-point division, reciprocal or square root instruction:
the same one-instruction kernel compiled by openptxas and by ptxas, both cubins run in the
emulator (ours with the hazard checker) on the same operands, every result word compared.

Operands are the special values of the type (signed zeros and infinities, NaNs with payloads,
subnormals at and around the flush-to-zero boundary, the extremes, 1 and its neighbours) in every
pair, operands whose quotient (or root) is an exact halfway case, quotients that overflow and
underflow into the subnormals, then random bit patterns and random values of every exponent.
Used by scripts/fp_diff.py (long runs) and tests/compiler/test_fpdiv.py (a sample).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

NDArray = np.ndarray[Any, Any]
BLOCK = 128

# Every instruction the lowering in openptxas/lower/fpdiv.py handles.
INSTRUCTIONS = (
    "div.rn.f32",
    "div.rn.ftz.f32",
    "div.full.f32",
    "div.full.ftz.f32",
    "div.approx.f32",
    "div.approx.ftz.f32",
    "rcp.approx.f32",
    "rcp.approx.ftz.f32",
    "sqrt.approx.f32",
    "sqrt.approx.ftz.f32",
    "rsqrt.approx.f32",
    "rsqrt.approx.ftz.f32",
    "rcp.rn.f32",
    "rcp.rn.ftz.f32",
    "sqrt.rn.f32",
    "sqrt.rn.ftz.f32",
    "div.rn.f64",
    "rcp.rn.f64",
    "sqrt.rn.f64",
    "rcp.approx.ftz.f64",
    "rsqrt.approx.f64",
    "rsqrt.approx.ftz.f64",
    *(
        f"{op}.{r}{ftz}.f32"
        for op in ("div", "rcp", "sqrt")
        for r in ("rz", "rm", "rp")
        for ftz in ("", ".ftz")
    ),
    *(f"{op}.{r}.f64" for op in ("div", "rcp", "sqrt") for r in ("rz", "rm", "rp")),
)


def arity(instr: str) -> int:
    return 2 if instr.startswith("div") else 1


def is_f64(instr: str) -> bool:
    return instr.endswith(".f64")


def kernel(instr: str, follow: str = "") -> str:
    """Thread i reads its operands from ``in[arity*i ...]`` and writes ``out[i]``; with
    ``follow`` (``add.f32``, ``sub.ftz.f32``) the result is first combined with the first operand
    by that instruction (ptxas contracts the approximations' last multiply into it)."""
    f64 = is_f64(instr)
    t, bt, r, sz = ("f64", "b64", "%fd", 8) if f64 else ("f32", "b32", "%f", 4)
    n = arity(instr)
    loads = "\n".join(f"ld.global.{t} {r}{k + 1}, [%rd5+{k * sz}];" for k in range(n))
    srcs = ", ".join(f"{r}{k + 1}" for k in range(n))
    return f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{{
.reg .{t} {r}<4>;
.reg .b32 %r<5>;
.reg .b64 %rd<8>;
ld.param.u64 %rd1, [out];
ld.param.u64 %rd2, [inp];
cvta.to.global.u64 %rd3, %rd1;
cvta.to.global.u64 %rd4, %rd2;
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
mov.u32 %r3, %ntid.x;
mad.lo.s32 %r4, %r2, %r3, %r1;
mul.wide.s32 %rd6, %r4, {n * sz};
add.s64 %rd5, %rd4, %rd6;
{loads}
{instr} {r}3, {srcs};
{f"{follow} {r}0, {r}3, {r}1;" if follow else ""}
mul.wide.s32 %rd7, %r4, {sz};
add.s64 %rd7, %rd3, %rd7;
st.global.{bt} [%rd7], {r}{0 if follow else 3};
ret;
}}
"""


def _special32() -> list[int]:
    v = [
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000,  # zeros, infinities
        0x7FC00000, 0xFFC00000, 0x7FFFFFFF, 0x7F800001, 0xFFA00005, 0x7FC12345,  # NaNs
        0x00000001, 0x80000001, 0x00000002, 0x007FFFFF, 0x807FFFFF, 0x00400000,  # subnormals
        0x00800000, 0x80800000, 0x00800001, 0x00FFFFFF, 0x01000000, 0x01800000,  # smallest normals
        0x0C800000, 0x0D000000, 0x0D000001, 0x0CFFFFFF, 0x1F800000, 0x20000000,
        0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x7E800000, 0x7E7FFFFF, 0x5F800000, 0x60000000,
        0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0x40000000, 0x40400000, 0x3EAAAAAB,
        0x40490FDB, 0x3F000000, 0x34000000, 0x4B800000, 0x33800000, 0x3FFFFFFF,
    ]  # fmt: skip
    return v


def _special64() -> list[int]:
    return [
        0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000,
        0x7FF8000000000000, 0xFFF8000000000000, 0x7FFFFFFFFFFFFFFF, 0x7FF0000000000001,
        0xFFF4000000000005, 0x7FF8123456789ABC,
        1, (1 << 63) | 1, 2, 0x000FFFFFFFFFFFFF, 0x800FFFFFFFFFFFFF, 0x0008000000000000,
        0x0010000000000000, 0x8010000000000000, 0x0010000000000001, 0x001FFFFFFFFFFFFF,
        0x0020000000000000, 0x0360000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
        0x7FE0000000000000, 0x7FD0000000000000, 0x3FF0000000000000, 0xBFF0000000000000,
        0x3FF0000000000001, 0x3FEFFFFFFFFFFFFF, 0x4000000000000000, 0x4008000000000000,
        0x3FD5555555555555, 0x400921FB54442D18, 0x3FE0000000000000, 0x4340000000000000,
        0x3CA0000000000000, 0x5FF0000000000000, 0x2000000000000000,
    ]  # fmt: skip


@dataclass
class Inputs:
    """Operand bits, one row per case (``arity`` columns), as unsigned integers."""

    bits: NDArray


def inputs(instr: str, n_random: int, seed: int = 0) -> Inputs:
    f64 = is_f64(instr)
    ut: Any = np.uint64 if f64 else np.uint32
    ft: Any = np.float64 if f64 else np.float32
    ebits, mbits = (11, 52) if f64 else (8, 23)
    spec: Any = np.array(_special64() if f64 else _special32(), dtype=ut)
    rng = np.random.default_rng(seed)
    n = arity(instr)
    rows: list[NDArray] = []
    if n == 2:
        a, b = np.meshgrid(spec, spec, indexing="ij")
        rows.append(np.stack([a.ravel(), b.ravel()], axis=1))
    else:
        near = np.concatenate([spec, spec + 1, spec - 1, spec ^ (1 << (ebits + mbits))])
        rows.append(near.astype(ut)[:, None])

    def randbits(k: int) -> NDArray:
        hi = np.iinfo(ut).max
        return rng.integers(0, hi, size=k, dtype=ut, endpoint=True)

    def any_exponent(k: int) -> NDArray:
        """Values of every exponent (uniform over the exponent field), random mantissas."""
        e = rng.integers(0, (1 << ebits), size=k).astype(ut)
        m = randbits(k) & ut((1 << mbits) - 1)
        s = rng.integers(0, 2, size=k).astype(ut)
        out: NDArray = (s << ut(ebits + mbits)) | (e << ut(mbits)) | m
        return out

    k = max(n_random, 0)
    if n == 2:
        # exact halfway quotients: a = b * (q + half an ulp of q), q and b with short mantissas
        short = mbits // 2 - 1
        qm = rng.integers(0, 1 << short, size=k // 4).astype(ft) / ft(1 << short) + ft(1)
        bm = rng.integers(1, 1 << short, size=k // 4).astype(ft)
        with np.errstate(all="ignore"):
            a_half = ((qm + ft(2.0**-mbits)) * bm).astype(ft)
        half = np.stack([a_half.view(ut), bm.view(ut)], axis=1)
        # quotients near overflow / underflow: exponents of a and b far apart
        ext = np.stack([any_exponent(k // 4), any_exponent(k // 4)], axis=1)
        rows += [
            half,
            ext,
            np.stack([randbits(k // 4), randbits(k // 4)], axis=1),
            np.stack([any_exponent(k // 4), any_exponent(k // 4)], axis=1),
        ]
    else:
        # squares of short mantissas plus half an ulp: exact halfway square roots
        rows += [randbits(k // 2)[:, None], any_exponent(k - k // 2)[:, None]]
    bits = np.concatenate(rows).astype(ut)
    return Inputs(bits)


def spec(instr: str, inp: Inputs) -> dict[str, object]:
    """A launch spec: ``out`` (one word of the type per case) and ``inp`` (the operands)."""
    count = inp.bits.shape[0]
    blocks = (count + BLOCK - 1) // BLOCK
    pad = blocks * BLOCK - count
    bits = np.concatenate([inp.bits, np.repeat(inp.bits[:1], pad, axis=0)]) if pad else inp.bits
    f64 = is_f64(instr)
    dt = "u64" if f64 else "u32"
    le = "<u8" if f64 else "<u4"
    return {
        "kernel": "k",
        "grid": [blocks, 1, 1],
        "block": [BLOCK, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": dt, "count": blocks * BLOCK, "init": "zeros"},
            {
                "kind": "buffer",
                "dtype": dt,
                "count": bits.size,
                "init": {"hex": bits.astype(le).tobytes().hex()},
            },
        ],
    }


def _ftz(x: NDArray, f64: bool) -> NDArray:
    """Subnormals (as bits) replaced by zeros of their sign."""
    ebits: Any = np.uint64(0x7FF0000000000000) if f64 else np.uint32(0x7F800000)
    sign: Any = np.uint64(1 << 63) if f64 else np.uint32(0x80000000)
    return np.where((x & ebits) == 0, x & sign, x)


def reference(instr: str, bits: NDArray) -> NDArray | None:
    """The IEEE result (as bits) of the round-to-nearest forms, from numpy (whose f32/f64
    division and square root are correctly rounded); None for the others. With .ftz (f32 only),
    subnormal operands are zeros of their sign, and so is a result whose exact value is below
    2^-126 in magnitude (tininess before rounding: ptxas's code flushes 0x00ffffff / 2, whose
    quotient rounds up to 2^-126). The exact value's side of 2^-126 is that of its float64
    value: a quotient of two f32 is never within 2^-48 of a power of two unless equal to it."""
    name = instr.split(".")
    directed = next((m for m in ("rz", "rm", "rp") if m in name), None)
    if "rn" not in name and directed is None:
        return None
    f64 = is_f64(instr)
    ut: Any = np.uint64 if f64 else np.uint32
    ft: Any = np.float64 if f64 else np.float32
    ftz = "ftz" in name
    ops = [_ftz(bits[:, k], f64) if ftz else bits[:, k] for k in range(bits.shape[1])]
    vals = [o.astype(ut).view(ft) for o in ops]
    with np.errstate(all="ignore"):
        if name[0] == "div":
            r = vals[0] / vals[1]
        elif name[0] == "rcp":
            r = ft(1) / vals[0]
        else:
            r = np.sqrt(vals[0])
    out: NDArray = np.asarray(r, dtype=ft).view(ut)
    if directed is not None:
        finite = np.ones(len(ops[0]), dtype=bool)
        for v in vals:
            finite &= np.isfinite(v) & (v != 0)
        if name[0] == "sqrt":
            finite &= vals[0] > 0
        for i in np.nonzero(finite)[0].tolist():
            out[i] = _round_exact(name[0], [float(v[i]) for v in vals], directed, f64, ftz)
        return out
    if not ftz:
        return out
    with np.errstate(all="ignore"):
        v64 = [v.astype(np.float64) for v in vals]
        if name[0] == "div":
            r64 = v64[0] / v64[1]
        elif name[0] == "rcp":
            r64 = 1.0 / v64[0]
        else:
            r64 = np.sqrt(v64[0])
    tiny = np.abs(r64) < 2.0**-126
    flushed: NDArray = np.where(tiny, out & ut(0x80000000), out)
    return flushed


def _round_exact(op: str, xs: list[float], mode: str, f64: bool, ftz: bool) -> int:
    """``op`` (div, rcp, sqrt) of finite nonzero ``xs`` rounded toward zero (rz), -inf (rm) or
    +inf (rp) to f32/f64 bits, from the exact value (fractions; an integer square root), with
    subnormal results (.ftz: tiny before rounding -> a zero of its sign)."""
    mbits, emin, emax = (52, -1022, 1023) if f64 else (23, -126, 127)
    fr = [Fraction(x) for x in xs]
    if op == "div":
        v, sq = fr[0] / fr[1], False
    elif op == "rcp":
        v, sq = 1 / fr[0], False
    else:
        v, sq = fr[0], True  # the radicand
    neg = v < 0
    v = abs(v)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    if sq:
        e = e // 2  # 2^(2e) <= v < 2^(2e+2)
    sign = (1 << (63 if f64 else 31)) if neg else 0
    if ftz and e < emin:
        return sign
    ulp = Fraction(2) ** (max(e, emin) - mbits)
    if sq:
        t = v / (ulp * ulp)
        m = math.isqrt(t.numerator // t.denominator)
        exact = m * m == t
    else:
        t = v / ulp
        m = t.numerator // t.denominator
        exact = m == t
    up = (mode == "rp" and not neg) or (mode == "rm" and neg)
    if up and not exact:
        m += 1
    val = m * ulp
    inf = 0x7FF0000000000000 if f64 else 0x7F800000
    if val >= Fraction(2) ** (emax + 1):
        return sign | (inf if up else inf - 1)
    f = float(val)
    b = struct.unpack("<Q", struct.pack("<d", f))[0] if f64 else int(np.float32(f).view(np.uint32))
    return sign | b


@dataclass
class Result:
    instr: str
    cases: int
    mismatches: int
    examples: list[tuple[tuple[int, ...], int, int]]  # (operands, ours, ptxas's), the first 20
    # against numpy's IEEE result (round-to-nearest forms; any NaN for a NaN): None if not checked
    ieee_mismatches: int | None = None


def compare(instr: str, n_random: int, seed: int = 0, opt: int = 3, follow: str = "") -> Result:
    """Run ``instr`` (then ``follow``: kernel()) on the special values and ``n_random`` more
    cases with both compilers."""
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options
    from openptxas.testing.oracle import Oracle

    ptx = kernel(instr, follow)
    inp = inputs(instr, n_random, seed)
    sp = spec(instr, inp)
    flags = ["-O0"] if opt == 0 else []  # ptxas contracts at -O3 only, as openptxas does
    theirs = Oracle().ptxas(ptx, "sm_90", flags, subject=instr).cubin
    ours = compile_ptx(ptx, Options(arch="sm_90", opt_level=opt), f"{instr}.ptx").cubin
    want = run_launch(theirs, sp).outputs[0]
    res = run_launch(ours, sp, hazards=True)
    if res.hazards:
        raise AssertionError("\n".join(str(h) for h in res.hazards[:5]))
    got = res.outputs[0]
    count = inp.bits.shape[0]
    bad = np.nonzero(got[:count] != want[:count])[0]
    ex = [
        (tuple(int(x) for x in inp.bits[i]), int(got[i]), int(want[i])) for i in bad[:20].tolist()
    ]
    ref = None if follow else reference(instr, inp.bits)
    ieee = None
    if ref is not None:
        f64 = is_f64(instr)
        ft: Any = np.float64 if f64 else np.float32
        g = got[:count]
        both_nan = np.isnan(g.view(ft)) & np.isnan(ref.view(ft))
        ieee = int(np.count_nonzero(~both_nan & (g != ref)))
    return Result(instr, count, len(bad), ex, ieee)
