"""Per-instruction differential check of the floating-point, half-precision, MUFU and conversion
lowering: one PTX instruction in a kernel, compiled by openptxas and by ptxas, both cubins run in
the emulator (ours with the hazard checker) on the same inputs (special values of the operands'
format, then random bit patterns), every output word compared bit for bit (NaN payloads too).

Each case is a PTX snippet over the kernel's registers: the inputs are the thread's four words
``%r0..%r3``, also seen as ``%f0..%f3`` (f32), ``%fd0 = {%r0,%r1}``, ``%fd1 = {%r2,%r3}`` (f64),
``%rs0..%rs3`` (the low 16 bits of each word) and the predicates ``%p0 = %r3 & 1``; the snippet
writes its results into ``%r4..%r7`` (zero unless written), which are stored.

    from openptxas.testing.fpmath_cases import CASES, run_case
    res = run_case(CASES["ex2.approx.f32"], n=1024, seed=0)   # CaseResult(mismatches=0, ...)

scripts/fpmath_diff.py runs every case (``--n`` inputs each); tests/compiler/test_fpmath_diff.py
runs a sample in CI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

NDArray = np.ndarray[Any, Any]

HEAD = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{
\t.reg .b32 %r<12>;
\t.reg .b64 %rd<8>;
\t.reg .b16 %rs<8>;
\t.reg .f32 %f<8>;
\t.reg .f64 %fd<4>;
\t.reg .pred %p<4>;
\tld.param.u64 %rd4, [out];
\tld.param.u64 %rd5, [inp];
\tmov.u32 %r8, %tid.x;
\tmov.u32 %r9, %ctaid.x;
\tmov.u32 %r10, %ntid.x;
\tmad.lo.u32 %r8, %r9, %r10, %r8;
\tmul.wide.u32 %rd6, %r8, 16;
\tadd.s64 %rd5, %rd5, %rd6;
\tadd.s64 %rd4, %rd4, %rd6;
\tld.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd5];
\tmov.b32 %f0, %r0;
\tmov.b32 %f1, %r1;
\tmov.b32 %f2, %r2;
\tmov.b32 %f3, %r3;
\tmov.b64 %fd0, {%r0, %r1};
\tmov.b64 %fd1, {%r2, %r3};
\tcvt.u16.u32 %rs0, %r0;
\tcvt.u16.u32 %rs1, %r1;
\tcvt.u16.u32 %rs2, %r2;
\tcvt.u16.u32 %rs3, %r3;
\tand.b32 %r9, %r3, 1;
\tsetp.ne.u32 %p0, %r9, 0;
\tmov.u32 %r4, 0;
\tmov.u32 %r5, 0;
\tmov.u32 %r6, 0;
\tmov.u32 %r7, 0;
"""
TAIL = """\tst.global.v4.u32 [%rd4], {%r4, %r5, %r6, %r7};
\tret;
}
"""

# special values of each format, as bit patterns
_F32 = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000,
        0xFFC00000, 0x7F800001, 0x7FC12345, 0xFFBFFFFF, 0x00000001, 0x80000001, 0x007FFFFF,
        0x807FFFFF, 0x00800000, 0x80800000, 0x00800001, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F000000,
        0x40000000, 0x42FC0000, 0xC2FC0000, 0xC2FA0000, 0xC2FE0000, 0xC3000000, 0xC3150000,
        0x43000000, 0x4B000000, 0x4B7FFFFF, 0x3FC00000, 0x40490FDB, 0x3E22F983, 0x33800000,
        0x34000000, 0x477FE000, 0x477FF000, 0x387FC000, 0x38800000, 0x33000000, 0x337FFFFF,
        0x3F7FFFFF, 0x3F800001, 0x4F000000, 0xCF000000, 0x5F000000, 0x7E967699, 0x01000000,
        0x3F801000, 0x3F800800, 0x3F808000, 0x3F8FFFFF]  # fmt: skip
_F64_HI = [0x00000000, 0x80000000, 0x3FF00000, 0xBFF00000, 0x7FF00000, 0xFFF00000, 0x7FF80000,
           0xFFF80000, 0x7FF00001, 0x000FFFFF, 0x800FFFFF, 0x00100000, 0x7FEFFFFF, 0xFFEFFFFF,
           0x3FE00000, 0x43300000, 0x43E00000, 0xC3E00000, 0x41E00000, 0xC1E00000, 0x47EFFFFF,
           0x36A00000, 0x380FFFFF, 0x3FF00001, 0x40F00000]  # fmt: skip
_F16 = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7D23, 0x0001,
        0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF, 0x3800, 0x4000, 0x3BFF, 0x3C01,
        0x4BFF, 0x5BFF, 0xCC00, 0x3555, 0x0200, 0x1400, 0x4900, 0xC900]  # fmt: skip
_BF16 = [0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FA5, 0x0001,
         0x8001, 0x007F, 0x807F, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x3F00, 0x4000, 0x3F7F, 0x3F81,
         0x4B00, 0xC2FC, 0x42FC, 0xC300, 0x3EAB, 0x0040, 0x4300, 0xC348]  # fmt: skip
_I32 = [0, 1, 2, 31, 32, 33, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x8000, 0xFFFF,
        0x10000, 0x7FFF, 0xFFFF8000, 0x00FFFFFF, 0x01000000, 0x01000001, 0x7F, 0x80, 0xFF,
        0x100, 0xFFFFFF80, 0x12345678, 0x9ABCDEF0]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Case:
    """One instruction under test: its PTX snippet and the format of each input word (``f32``,
    ``f64`` for a pair's high word, ``f16``/``bf16``, ``f16x2``/``bf16x2``, ``i32``)."""

    name: str
    body: str
    fmt: tuple[str, str, str, str]


def _values(fmt: str, rng: np.random.Generator, n: int) -> NDArray:
    """``n`` input words of format ``fmt``: its special values (in random order, so two words of
    one thread meet different ones), then random patterns (a third of them near the specials)."""
    if fmt in ("f16", "bf16", "f16x2", "bf16x2"):
        sp = np.array(_F16 if fmt.startswith("f16") else _BF16, dtype=np.uint32)
        lo = _mix(sp, rng, n, 0xFFFF)
        hi = _mix(sp, rng, n, 0xFFFF) if fmt.endswith("x2") else rng.integers(0, 1 << 16, n)
        packed: NDArray = (lo | (hi.astype(np.uint32) << 16)).astype(np.uint32)
        return packed
    if fmt == "f64lo":
        v = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        v[: n // 2] = rng.choice(np.array([0, 1, 0xFFFFFFFF, 0x80000000], dtype=np.uint32), n // 2)
        return v
    sp = np.array({"f32": _F32, "f64": _F64_HI, "i32": _I32}[fmt], dtype=np.uint32)
    return _mix(sp, rng, n, 0xFFFFFFFF)


def _mix(sp: NDArray, rng: np.random.Generator, n: int, mask: int) -> NDArray:
    out = rng.integers(0, mask + 1, n, dtype=np.uint64).astype(np.uint32)
    k = min(n, 3 * len(sp))
    out[:k] = rng.choice(sp, k)
    near = rng.random(n) < 0.33
    near[:k] = False
    delta = rng.integers(-3, 4, n).astype(np.int64)
    base = rng.choice(sp, n).astype(np.int64)
    out = np.where(near, ((base + delta) & mask).astype(np.uint32), out)
    return out.astype(np.uint32)


def inputs(case: Case, n: int, seed: int) -> NDArray:
    rng = np.random.default_rng(seed)
    cols = [_values(f, rng, n) for f in case.fmt]
    return np.stack(cols, axis=1).astype(np.uint32)


def ptx(case: Case) -> str:
    return HEAD + "".join(f"\t{s.strip()};\n" for s in case.body.split(";") if s.strip()) + TAIL


@dataclass(frozen=True, slots=True)
class CaseResult:
    name: str
    runs: int
    mismatches: int
    first: str = ""


BLOCK = 256


def run_case(case: Case, n: int = 512, seed: int = 0, opt: int = 3) -> CaseResult:
    """Compile ``case`` with openptxas (``-O<opt>``, verifier on) and ptxas (the same level),
    run both on ``n`` inputs (a multiple of 256 threads), compare every output word."""
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options
    from openptxas.testing.oracle import Oracle

    n = max(BLOCK, (n + BLOCK - 1) // BLOCK * BLOCK)
    text = ptx(case)
    theirs = Oracle().ptxas(text, "sm_90", () if opt == 3 else (f"-O{opt}",)).cubin
    ours = compile_ptx(text, Options(arch="sm_90", opt_level=opt, verify=True), "k.ptx").cubin
    inp = inputs(case, n, seed)
    spec = {
        "kernel": "k",
        "grid": [n // BLOCK, 1, 1],
        "block": [BLOCK, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": n * 4, "init": "zeros"},
            {
                "kind": "buffer",
                "dtype": "u32",
                "count": n * 4,
                "init": {"hex": inp.astype("<u4").tobytes().hex()},
            },
        ],
    }
    want = run_launch(theirs, spec).outputs[0].reshape(n, 4)
    res = run_launch(ours, spec, hazards=True)
    if res.hazards:
        return CaseResult(case.name, n, n, f"hazard: {res.hazards[0]}")
    got = res.outputs[0].reshape(n, 4)
    bad = np.nonzero((got != want).any(axis=1))[0]
    first = ""
    if len(bad):
        i = int(bad[0])
        first = (
            f"inputs {[hex(int(x)) for x in inp[i]]}: ours {[hex(int(x)) for x in got[i]]}, "
            f"ptxas {[hex(int(x)) for x in want[i]]}"
        )
    return CaseResult(case.name, n, len(bad), first)


def _c(body: str, *fmt: str, name: str = "") -> Case:
    """A case named after its first instruction's mnemonic (or ``name``)."""
    f = tuple(fmt) + (fmt[-1],) * (4 - len(fmt))
    first = next(s for s in body.split(";") if not s.strip().startswith("mov.b64 %rd0"))
    return Case(name or first.split()[0], body, (f[0], f[1], f[2], f[3]))


F32_OUT = "mov.b32 %r4, %f4"
H_OUT = "cvt.u32.u16 %r4, %rs4"
D_OUT = "mov.b64 {%r4, %r5}, %fd2"


def _cases() -> list[Case]:
    out: list[Case] = []
    # MUFU approximations, f32
    for op in ("ex2", "lg2", "sin", "cos"):
        for ftz in ("", ".ftz"):
            out.append(_c(f"{op}.approx{ftz}.f32 %f4, %f0; {F32_OUT}", "f32"))
    out.append(_c(f"tanh.approx.f32 %f4, %f0; {F32_OUT}", "f32"))
    # MUFU approximations, half precision
    for t, pre in (("f16", ""), ("bf16", ".ftz")):
        out.append(_c(f"ex2.approx{pre}.{t} %rs4, %rs0; {H_OUT}", t))
        out.append(_c(f"ex2.approx{pre}.{t}x2 %r4, %r0", f"{t}x2"))
        out.append(_c(f"tanh.approx.{t} %rs4, %rs0; {H_OUT}", t))
        out.append(_c(f"tanh.approx.{t}x2 %r4, %r0", f"{t}x2"))
    # half-precision arithmetic
    for t in ("f16", "bf16"):
        ftzs = ("", ".ftz") if t == "f16" else ("",)
        for x2 in ("", "x2"):
            ty = f"{t}{x2}"
            d, a, b, e = ("%r4", "%r0", "%r1", "%r2") if x2 else ("%rs4", "%rs0", "%rs1", "%rs2")
            tail = "" if x2 else f"; {H_OUT}"
            for ftz in ftzs:
                for op in ("add", "sub", "mul"):
                    for m in ("", ".rn") + ((".sat",) if t == "f16" else ()):
                        out.append(_c(f"{op}{m}{ftz}.{ty} {d}, {a}, {b}{tail}", ty))
                for m in (".rn", ".rn.relu") + ((".rn.sat",) if t == "f16" else ()):
                    out.append(_c(f"fma{m}{ftz}.{ty} {d}, {a}, {b}, {e}{tail}", ty))
                for op in ("min", "max"):
                    for m in ("", ".NaN"):
                        out.append(_c(f"{op}{ftz}{m}.{ty} {d}, {a}, {b}{tail}", ty))
                for op in ("neg", "abs"):
                    out.append(_c(f"{op}{ftz}.{ty} {d}, {a}{tail}", ty))
                for cmp in ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu",
                            "gtu", "geu", "num", "nan"):  # fmt: skip
                    if x2:
                        body = (f"setp.{cmp}{ftz}.{ty} %p1|%p2, {a}, {b}; "
                                "selp.u32 %r4, 1, 0, %p1; selp.u32 %r5, 1, 0, %p2")  # fmt: skip
                        if not ftz and t == "f16":
                            out.append(_c(f"set.{cmp}.{ty}.{ty} %r6, {a}, {b}", ty))
                            out.append(_c(f"set.{cmp}.u32.{ty} %r6, {a}, {b}", ty))
                    else:
                        body = f"setp.{cmp}{ftz}.{ty} %p1, {a}, {b}; selp.u32 %r4, 1, 0, %p1"
                    out.append(_c(body, ty))
    for ty in ("f16x2", "bf16x2"):
        for bop in ("and", "or", "xor"):
            body = (f"setp.gtu.{bop}.{ty} %p1|%p2, %r0, %r1, !%p0; "
                    "selp.u32 %r4, 1, 0, %p1; selp.u32 %r5, 1, 0, %p2")  # fmt: skip
            out.append(_c(body, ty))
        t1 = ty[:-2]
        out.append(_c(f"setp.le.or.{t1} %p1, %rs0, %rs1, %p0; selp.u32 %r4, 1, 0, %p1", t1))
    for t, a, b, fmts2 in (
        ("f32", "%f0", "%f1", ("f32",)),
        ("f64", "%fd0", "%fd1", ("f64lo", "f64")),
    ):
        for bop in ("and", "or", "xor"):
            body = (f"setp.ltu.{bop}.{t} %p1|%p2, {a}, {b}, !%p0; "
                    "selp.u32 %r4, 1, 0, %p1; selp.u32 %r5, 1, 0, %p2")  # fmt: skip
            out.append(_c(body, *fmts2))
    # FMA contraction of half-precision multiply and add (ptxas contracts as for f32)
    for ty in ("f16", "f16x2", "bf16", "bf16x2"):
        wide = ty.endswith("x2")
        d, a, b, e, p, q = (
            ("%r4", "%r0", "%r1", "%r2", "%r5", "%r6")
            if wide
            else ("%rs4", "%rs0", "%rs1", "%rs2", "%rs5", "%rs6")
        )
        tail = "" if wide else f"; {H_OUT}"
        for add, keep in (("add", ""), ("sub", ""), ("add.rn", ""), ("add", "x"), ("sub", "y")):
            ftzs = ("", ".ftz") if ty.startswith("f16") else ("",)
            for ftz in ftzs:
                ops = f"{p}, {e}" if keep == "y" else f"{e}, {p}" if add == "sub" else f"{p}, {e}"
                body = f"mul{ftz}.{ty} {p}, {a}, {b}; {add}{ftz}.{ty} {d}, {ops}{tail}"
                if keep == "x":  # the product has a second use: no contraction
                    body += f"; {add}{ftz}.{ty} {q}, {p}, {a}"
                    body += "" if wide else "; cvt.u32.u16 %r6, %rs6"
                out.append(_c(body, ty, name=f"mul+{add}{ftz}.{ty}{keep}"))
    # fma with two immediates (an internal error before: FFMA takes one)
    out.append(
        _c(f"fma.rn.f32 %f4, %f0, 0f40000000, 0fC5000000; {F32_OUT}", "f32", name="fma.imm2")
    )
    out.append(_c(f"fma.rz.f32 %f4, %f0, %f1, 0fC5000000; {F32_OUT}", "f32", name="fma.imm1"))
    # a product register written again by one of its adds: ptxas contracts both
    for t, ftz in (("f32", ""), ("f32", ".ftz"), ("f64", "")):
        if t == "f32":
            body = (f"mul{ftz}.f32 %f5, %f0, %f1; add{ftz}.f32 %f4, %f5, %f2; "
                    f"sub{ftz}.f32 %f5, %f5, %f3; mov.b32 %r4, %f4; mov.b32 %r5, %f5")  # fmt: skip
            out.append(_c(body, "f32", name=f"mul+add+redef{ftz}.f32"))
        else:
            body = ("mul.f64 %fd2, %fd0, %fd1; add.f64 %fd3, %fd2, %fd0; "
                    "add.f64 %fd2, %fd2, %fd1; mov.b64 {%r4, %r5}, %fd2; "
                    "mov.b64 {%r6, %r7}, %fd3")  # fmt: skip
            out.append(_c(body, "f64lo", "f64", name="mul+add+redef.f64"))
    for ty in ("f16x2", "bf16"):
        d2 = "%r5" if ty.endswith("x2") else "%rs5"
        a, b = ("%r0", "%r1") if ty.endswith("x2") else ("%rs0", "%rs1")
        tail = "" if ty.endswith("x2") else "; cvt.u32.u16 %r6, %rs5"
        body = f"mul.{ty} {d2}, {a}, {b}; add.{ty} {d2}, {d2}, {a}{tail}"
        body += f"; mov.b32 %r7, {d2}" if ty.endswith("x2") else ""
        out.append(_c(body, ty, name=f"mul+add+redef.{ty}"))
    # destination = a source (multi-instruction lowerings must read before they write)
    alias = [
        ("max.f64 %fd1, %fd0, %fd1; mov.b64 {%r4, %r5}, %fd1", ("f64lo", "f64")),
        ("min.f64 %fd0, %fd0, %fd1; mov.b64 {%r4, %r5}, %fd0", ("f64lo", "f64")),
        ("ex2.approx.f32 %f0, %f0; mov.b32 %r4, %f0", ("f32",)),
        ("lg2.approx.f32 %f0, %f0; mov.b32 %r4, %f0", ("f32",)),
        ("sin.approx.f32 %f0, %f0; mov.b32 %r4, %f0", ("f32",)),
        ("ex2.approx.f16x2 %r0, %r0; mov.b32 %r4, %r0", ("f16x2",)),
        ("cvt.rna.satfinite.tf32.f32 %r0, %f0; mov.b32 %r4, %r0", ("f32",)),
        ("mul24.hi.s32 %r0, %r0, %r1; mov.b32 %r4, %r0", ("i32",)),
        ("mad24.hi.u32 %r2, %r0, %r1, %r2; mov.b32 %r4, %r2", ("i32",)),
        ("mov.b64 %rd0, {%r0, %r1}; mov.b64 %rd1, {%r2, %r3}; add.cc.u64 %rd1, %rd0, %rd1; "
         "addc.cc.u64 %rd0, %rd0, %rd1; addc.u32 %r6, 0, 0; mov.b64 {%r4, %r5}, %rd0", ("i32",)),
        ("testp.subnormal.f64 %p0, %fd0; selp.u32 %r4, 1, 0, %p0", ("f64lo", "f64")),
        ("set.lt.and.f32.f32 %f0, %f0, %f1, %p0; mov.b32 %r4, %f0", ("f32",)),
    ]  # fmt: skip
    for k, (body, fmts) in enumerate(alias):
        out.append(_c(body, *fmts, name=f"alias{k}." + body.split(" ")[0]))
    # conversions
    for rnd in ("rn", "rz", "rm", "rp"):
        out.append(_c(f"cvt.{rnd}.ftz.f32.f64 %f4, %fd0; {F32_OUT}", "f64lo", "f64"))
        out.append(_c(f"cvt.{rnd}.f32.f64 %f4, %fd0; {F32_OUT}", "f64lo", "f64"))
    for t in ("f16x2", "bf16x2"):
        for m in ("rn", "rz", "rn.relu", "rn.satfinite", "rn.relu.satfinite", "rz.relu",
                  "rz.satfinite", "rz.relu.satfinite"):  # fmt: skip
            out.append(_c(f"cvt.{m}.{t}.f32 %r4, %f0, %f1", "f32"))
    for t in ("f16", "bf16"):
        # F2FP[.SATFINITE][.RELU].<t>.F32.MERGE_C[.RZ]
        for m in ("rn.relu", "rn.satfinite", "rn.relu.satfinite", "rz.relu", "rz.satfinite",
                  "rz.relu.satfinite"):  # fmt: skip
            out.append(_c(f"cvt.{m}.{t}.f32 %rs4, %f0; {H_OUT}", "f32"))
    for f8 in ("e4m3x2", "e5m2x2"):
        for m in ("rn.satfinite", "rn.relu.satfinite"):
            out.append(_c(f"cvt.{m}.{f8}.f32 %rs4, %f0, %f1; {H_OUT}", "f32"))
            out.append(_c(f"cvt.{m}.{f8}.f16x2 %rs4, %r0; {H_OUT}", "f16x2"))
        for m in ("rn", "rn.relu"):
            out.append(_c(f"cvt.{m}.f16x2.{f8} %r4, %rs0", "i32"))
    for m in ("rn", "rz", "rn.relu", "rz.relu", "rna", "rna.satfinite"):
        out.append(_c(f"cvt.{m}.tf32.f32 %r4, %f0", "f32"))
    # between f16, bf16 and f64, and to the same type
    regs = {"f16": ("%rs0", "%rs4", H_OUT, "f16"), "bf16": ("%rs0", "%rs4", H_OUT, "bf16"),
            "f64": ("%fd0", "%fd2", D_OUT, "f64lo")}  # fmt: skip
    for dt, (_, d, tail, _) in regs.items():
        for st, (src, _, _, fmt) in regs.items():
            if dt == st:
                for rnd in ("", ".rni", ".rzi", ".rmi", ".rpi"):
                    out.append(_c(f"cvt{rnd}.{dt}.{st} {d}, {src}; {tail}", fmt, "f64"))
                continue
            rnds = ("",) if dt == "f64" else (".rn", ".rz", ".rm", ".rp")
            for rnd in rnds:
                out.append(_c(f"cvt{rnd}.{dt}.{st} {d}, {src}; {tail}", fmt, "f64"))
    # .sat to f16, .ftz between f16/bf16 and f32
    for rnd in ("rn", "rz", "rm", "rp"):
        out.append(_c(f"cvt.{rnd}.sat.f16.f32 %rs4, %f0; {H_OUT}", "f32"))
        out.append(_c(f"cvt.{rnd}.ftz.sat.f16.f32 %rs4, %f0; {H_OUT}", "f32"))
        out.append(_c(f"cvt.{rnd}.sat.f16.f64 %rs4, %fd0; {H_OUT}", "f64lo", "f64"))
        out.append(_c(f"cvt.{rnd}.sat.f16.s32 %rs4, %r0; {H_OUT}", "i32"))
        out.append(_c(f"cvt.{rnd}.ftz.f16.f32 %rs4, %f0; {H_OUT}", "f32"))
    out.append(_c(f"cvt.ftz.f32.f16 %f4, %rs0; {F32_OUT}", "f16"))
    out.append(_c(f"cvt.sat.f32.f16 %f4, %rs0; {F32_OUT}", "f16"))
    # integer helpers
    for m in ("clamp", "wrap"):
        out.append(_c(f"bmsk.{m}.b32 %r4, %r0, %r1", "i32"))
        out.append(_c(f"bmsk.{m}.b32 %r4, %r0, 7", "i32", name=f"bmsk.{m}.b32.imm"))
    for sg in ("u32", "s32"):
        for hl in ("lo", "hi"):
            out.append(_c(f"mul24.{hl}.{sg} %r4, %r0, %r1", "i32"))
            out.append(_c(f"mad24.{hl}.{sg} %r4, %r0, %r1, %r2", "i32"))
        out.append(_c(f"szext.clamp.{sg} %r4, %r0, %r1", "i32"))
        out.append(_c(f"szext.wrap.{sg} %r4, %r0, %r1", "i32"))
    out.append(
        _c("add.cc.u32 %r4, %r0, %r2; addc.cc.u32 %r5, %r1, %r3; addc.u32 %r6, %r0, %r1", "i32")
    )
    out.append(
        _c("sub.cc.u32 %r4, %r0, %r2; subc.cc.u32 %r5, %r1, %r3; subc.u32 %r6, %r0, %r1", "i32")
    )
    out.append(
        _c(
            "add.cc.s32 %r4, %r0, 5; addc.cc.s32 %r5, %r1, -1; subc.cc.u32 %r6, %r3, 7; "
            "addc.u32 %r7, 0, 0",
            "i32",
            name="add.cc.imm",
        )
    )
    pre = "mov.b64 %rd0, {%r0, %r1}; mov.b64 %rd1, {%r2, %r3}; "
    post = "mov.b64 {%r4, %r5}, %rd2; mov.b64 {%r6, %r7}, %rd3"
    for op, opc in (("add", "addc"), ("sub", "subc")):
        body = (f"{pre}{op}.cc.u64 %rd2, %rd0, %rd1; {opc}.cc.u64 %rd3, %rd0, %rd1; "
                f"{opc}.u64 %rd3, %rd3, %rd3; {post}")  # fmt: skip
        out.append(_c(body, "i32", name=f"{op}.cc.u64"))
    out.append(
        _c(
            "mov.b32 %r4, {%rs0, %rs1}; mov.b32 {%rs4, %rs5}, %r2; cvt.u32.u16 %r5, %rs4; "
            "cvt.u32.u16 %r6, %rs5",
            "i32",
        )
    )
    for hl in ("lo", "hi"):
        for t in ("u32", "s32"):
            body = (f"mad.{hl}.cc.{t} %r4, %r0, %r1, %r2; madc.{hl}.cc.{t} %r5, %r1, %r2, %r3; "
                    f"madc.{hl}.{t} %r6, %r3, %r0, %r1; addc.u32 %r7, 0, 0")  # fmt: skip
            out.append(_c(body, "i32", name=f"mad.{hl}.cc.{t}"))
            body = f"add.cc.u32 %r4, %r0, %r1; madc.{hl}.{t} %r5, %r1, %r2, %r3"
            out.append(_c(body, "i32", name=f"madc.{hl}.{t}"))
    for t in ("u16", "s16"):
        out.append(_c(f"cvt.pack.sat.{t}.s32 %r4, %r0, %r1", "i32"))
    for t in ("u8", "s8"):
        out.append(_c(f"cvt.pack.sat.{t}.s32.b32 %r4, %r0, %r1, %r2", "i32"))
    # f32 and f64 arithmetic with every rounding, min/max, sign operations, testp, setp
    for rnd in ("", ".rn", ".rz", ".rm", ".rp"):
        for ftz in ("", ".ftz"):
            for op in ("add", "sub", "mul"):
                out.append(_c(f"{op}{rnd}{ftz}.f32 %f4, %f0, %f1; {F32_OUT}", "f32"))
            if rnd:
                out.append(_c(f"fma{rnd}{ftz}.f32 %f4, %f0, %f1, %f2; {F32_OUT}", "f32"))
                out.append(_c(f"fma{rnd}{ftz}.sat.f32 %f4, %f0, %f1, %f2; {F32_OUT}", "f32"))
            out.append(_c(f"add{rnd}{ftz}.sat.f32 %f4, %f0, %f1; {F32_OUT}", "f32"))
        for op in ("add", "sub", "mul"):
            out.append(_c(f"{op}{rnd}.f64 %fd2, %fd0, %fd1; {D_OUT}", "f64lo", "f64"))
        if rnd:
            out.append(_c(f"fma{rnd}.f64 %fd2, %fd0, %fd1, %fd0; {D_OUT}", "f64lo", "f64"))
    for op in ("min", "max"):
        for m in ("", ".ftz", ".NaN", ".ftz.NaN", ".xorsign.abs", ".ftz.NaN.xorsign.abs"):
            out.append(_c(f"{op}{m}.f32 %f4, %f0, %f1; {F32_OUT}", "f32"))
        out.append(_c(f"{op}.f64 %fd2, %fd0, %fd1; mov.b64 {{%r4, %r5}}, %fd2", "f64lo", "f64"))
    for op in ("neg", "abs"):
        for ftz in ("", ".ftz"):
            out.append(_c(f"{op}{ftz}.f32 %f4, %f0; {F32_OUT}", "f32"))
        out.append(_c(f"{op}.f64 %fd2, %fd0; mov.b64 {{%r4, %r5}}, %fd2", "f64lo", "f64"))
    out.append(_c(f"copysign.f32 %f4, %f0, %f1; {F32_OUT}", "f32"))
    out.append(_c("copysign.f64 %fd2, %fd0, %fd1; mov.b64 {%r4, %r5}, %fd2", "f64lo", "f64"))
    for t in ("finite", "infinite", "number", "notanumber", "normal", "subnormal"):
        out.append(_c(f"testp.{t}.f32 %p1, %f0; selp.u32 %r4, 1, 0, %p1", "f32"))
        out.append(_c(f"testp.{t}.f64 %p1, %fd0; selp.u32 %r4, 1, 0, %p1", "f64lo", "f64"))
    for cmp in ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                "num", "nan"):  # fmt: skip
        out.append(_c(f"setp.{cmp}.f64 %p1, %fd0, %fd1; selp.u32 %r4, 1, 0, %p1", "f64lo", "f64"))
        out.append(_c(f"setp.{cmp}.ftz.f32 %p1, %f0, %f1; selp.u32 %r4, 1, 0, %p1", "f32"))
        out.append(_c(f"set.{cmp}.f32.f32 %f4, %f0, %f1; {F32_OUT}", "f32"))
        out.append(_c(f"set.{cmp}.ftz.u32.f32 %r4, %f0, %f1", "f32"))
        out.append(_c(f"set.{cmp}.or.s32.f64 %r4, %fd0, %fd1, %p0", "f64lo", "f64"))
        out.append(_c(f"set.{cmp}.and.f32.f32 %f4, %f0, %f1, !%p0; {F32_OUT}", "f32"))
    # cvt between every integer type and f16/f32/f64
    ints = ("u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64")
    for it in ints:
        src = {"8": "%rs0", "16": "%rs0", "32": "%r0", "64": "%rd0"}[it[1:]]
        pre = "mov.b64 %rd0, {%r0, %r1}; " if it.endswith("64") else ""
        for ft, d, tail in (("f16", "%rs4", H_OUT), ("bf16", "%rs4", H_OUT),
                            ("f32", "%f4", F32_OUT), ("f64", "%fd2", D_OUT)):  # fmt: skip
            if ft == "bf16" and it[1:] == "8":
                continue  # ptxas: no cvt between bf16 and 8-bit integers
            for rnd in ("rn", "rz", "rm", "rp"):
                out.append(_c(f"{pre}cvt.{rnd}.{ft}.{it} {d}, {src}; {tail}", "i32"))
            dsts = {"8": "%rs4", "16": "%rs4", "32": "%r4", "64": "%rd1"}[it[1:]]
            store = {"8": "cvt.u32.u16 %r4, %rs4", "16": "cvt.u32.u16 %r4, %rs4", "32": "",
                     "64": "mov.b64 {%r4, %r5}, %rd1"}[it[1:]]  # fmt: skip
            fsrc = {"f16": "%rs0", "bf16": "%rs0", "f32": "%f0", "f64": "%fd0"}[ft]
            fmt = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64lo"}[ft]
            for rnd in ("rni", "rzi", "rmi", "rpi"):
                for sat in ("", ".sat") if ft != "bf16" else ("",):
                    body = f"cvt.{rnd}{sat}.{it}.{ft} {dsts}, {fsrc}; {store}".rstrip("; ")
                    out.append(_c(body, fmt, "f64"))
    from openptxas.testing.fp19_cases import cases as fp19_cases

    out += fp19_cases()
    from openptxas.testing.fp_audit import found_cases

    have = {c.name for c in out}
    out += [c for c in found_cases() if c.name not in have]
    return out


CASES: dict[str, Case] = {c.name: c for c in _cases()}
# cases where ptxas -O0 and -O3 compute different values (openptxas follows -O3 at every level):
# cvt[.ftz].sat.f32.f16 of -0 is +0 at -O3 (FADD.SAT) and -0 at -O0 (HADD2.F32.SAT); cvt.f64.f64
# and cvt.f32.f32 of a NaN keep its payload at -O3 (a copy) and give the canonical NaN at -O0
# (DADD -RZ, x / FADD -RZ, x)
O3_ONLY = frozenset({"cvt.sat.f32.f16", "cvt.ftz.sat.f32.f16", "cvt.f64.f64", "cvt.f32.f32"})
