"""Cases of the per-instruction differential suite (openptxas/testing/fpmath_cases.py) for the
forms issue 19's second round added: ``set`` with scalar f16/bf16 sources, ``set`` with integer
sources, ``mad.hi`` on 64-bit integers (with and without ``.cc``), predicated division, and
kernels with several division slow paths (lower/fpslow.py's shared subroutines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openptxas.testing.fpmath_cases import Case

CMPS = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
H_OUT = "cvt.u32.u16 %r4, %rs4"
# a half result packed with a known high half: ptxas 13.0 drops the zero-extension of
# ``cvt.u32.u16`` after a scalar ``HSET2.BF`` in some contexts (the word keeps 1.0 in both halves,
# 0x3c003c00, against PTX's cvt), which openptxas does not reproduce
HP_OUT = "mov.b32 %r4, {%rs4, %rs3}"
RD = "mov.b64 %rd0, {%r0, %r1}; mov.b64 %rd1, {%r2, %r3}; mov.b64 %rd2, {%r3, %r1}; "


def cases() -> list[Case]:
    from openptxas.testing.fpmath_cases import _c

    out: list[Case] = []
    # set with scalar half sources
    for t in ("f16", "bf16"):
        ftzs = ("", ".ftz") if t == "f16" else ("",)
        for cmp in CMPS:
            for ftz in ftzs:
                out.append(_c(f"set.{cmp}{ftz}.{t}.{t} %rs4, %rs0, %rs1; {HP_OUT}", t))
                out.append(_c(f"set.{cmp}{ftz}.u32.{t} %r4, %rs0, %rs1", t))
        for dt in ("u16", "s16", "s32"):
            out.append(_c(f"set.lt.{dt}.{t} %{'rs4' if '16' in dt else 'r4'}, %rs0, %rs1"
                          + (f"; {H_OUT}" if "16" in dt else ""), t))  # fmt: skip
        for bop in ("and", "or", "xor"):
            out.append(_c(f"set.gtu.{bop}.{t}.{t} %rs4, %rs0, %rs1, !%p0; {HP_OUT}", t))
            out.append(_c(f"set.le.{bop}.s32.{t} %r4, %rs0, %rs1, %p0", t))
    out.append(_c(f"set.nan.and.ftz.f16.f16 %rs4, %rs0, %rs1, %p0; {HP_OUT}", "f16"))
    # set with integer sources (ptxas also takes f32/f64/integer sources into f16/bf16
    # destinations; the front end's table does not have those forms yet)
    other: list[tuple[str, tuple[str, ...]]] = [
        ("set.lt.u32.s32 %r4, %r0, %r1", ("i32",)),
        ("set.ls.s32.u32 %r4, %r0, %r1", ("i32",)),
        ("set.ge.xor.f32.s32 %f4, %r0, %r1, !%p0; mov.b32 %r4, %f4", ("i32",)),
        ("set.eq.u32.b16 %r4, %rs0, %rs1", ("i32",)),
        (RD + "set.lt.u32.s64 %r4, %rd0, %rd1", ("i32",)),
    ]
    for body, fmts in other:
        name = next(s for s in body.split("; ") if not s.startswith("mov.b64")).split()[0]
        out.append(_c(body, *fmts, name=name))
    # 64-bit mad.hi
    d_out = "mov.b64 {%r4, %r5}, %rd3"
    for t in ("s64", "u64"):
        out.append(_c(RD + f"mad.hi.{t} %rd3, %rd0, %rd1, %rd2; {d_out}", "i32",
                      name=f"mad.hi.{t}"))  # fmt: skip
        out.append(_c(RD + f"mad.hi.{t} %rd3, %rd0, 12345678901, %rd2; {d_out}", "i32",
                      name=f"mad.hi.{t}.imm"))  # fmt: skip
        out.append(_c(RD + f"mad.hi.{t} %rd3, %rd0, -7, %rd2; {d_out}", "i32",
                      name=f"mad.hi.{t}.neg"))  # fmt: skip
        for lh in ("hi", "lo"):
            out.append(_c(RD + f"mad.{lh}.cc.{t} %rd3, %rd0, %rd1, %rd2; "
                          f"addc.cc.u32 %r6, %r0, %r1; madc.{lh}.cc.{t} %rd0, %rd1, %rd2, %rd3; "
                          f"madc.{lh}.{t} %rd1, %rd0, %rd3, %rd2; addc.u32 %r7, %r6, 0; "
                          f"xor.b64 %rd3, %rd3, %rd0; xor.b64 %rd3, %rd3, %rd1; {d_out}",
                          "i32", name=f"mad.{lh}.cc.{t}"))  # fmt: skip
    out.append(_c(RD + f"mad.hi.u64 %rd1, %rd0, %rd1, %rd1; mov.b64 %rd3, %rd1; {d_out}", "i32",
                  name="alias.mad.hi.u64"))  # fmt: skip
    # predicated division, reciprocal and square root (computed, then a guarded copy)
    f64: tuple[str, ...] = ("f64lo", "f64")
    pred: list[tuple[str, tuple[str, ...]]] = [
        ("@%p0 div.rn.f32 %f0, %f1, %f2; mov.b32 %r4, %f0", ("f32",)),
        ("@!%p0 div.rn.ftz.f32 %f1, %f1, %f2; mov.b32 %r4, %f1", ("f32",)),
        ("@%p0 sqrt.rn.f32 %f0, %f1; mov.b32 %r4, %f0", ("f32",)),
        ("@%p0 rcp.rn.f32 %f0, %f1; mov.b32 %r4, %f0", ("f32",)),
        ("@%p0 div.rz.f32 %f0, %f1, %f2; mov.b32 %r4, %f0", ("f32",)),
        ("@%p0 div.full.f32 %f0, %f1, %f2; mov.b32 %r4, %f0", ("f32",)),
        ("@%p0 div.rn.f64 %fd1, %fd0, %fd1; mov.b64 {%r4, %r5}, %fd1", f64),
        ("@!%p0 sqrt.rn.f64 %fd1, %fd0; mov.b64 {%r4, %r5}, %fd1", f64),
        ("@%p0 rcp.rn.f64 %fd1, %fd0; mov.b64 {%r4, %r5}, %fd1", f64),
    ]
    for body, fmts in pred:
        out.append(_c(body, *fmts, name="pred." + body.split(" ")[1]))
    # several slow paths in one kernel: one subroutine each, called from every site
    many: list[tuple[str, tuple[str, ...], str]] = [
        ("div.rn.f32 %f4, %f0, %f1; div.rn.f32 %f5, %f1, %f2; sqrt.rn.f32 %f6, %f4; "
         "rcp.rn.f32 %f7, %f5; div.rn.f32 %f4, %f6, %f7; @%p0 div.rn.f32 %f5, %f7, %f3; "
         "mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7",
         ("f32",), "many.f32"),
        ("div.rn.ftz.f32 %f4, %f0, %f1; div.rn.ftz.f32 %f5, %f4, %f2; sqrt.rn.ftz.f32 %f6, %f5; "
         "div.rz.f32 %f7, %f6, %f3; div.rz.f32 %f6, %f7, %f0; "
         "mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7",
         ("f32",), "many.ftz.f32"),
        ("div.rn.f64 %fd2, %fd0, %fd1; sqrt.rn.f64 %fd3, %fd2; div.rn.f64 %fd2, %fd3, %fd0; "
         "rcp.rn.f64 %fd3, %fd2; rsqrt.approx.f64 %fd0, %fd3; rsqrt.approx.f64 %fd1, %fd1; "
         "add.f64 %fd0, %fd0, %fd1; add.f64 %fd2, %fd2, %fd0; "
         "mov.b64 {%r4, %r5}, %fd2; mov.b64 {%r6, %r7}, %fd3", f64, "many.f64"),
    ]  # fmt: skip
    # the destination is a source (the result goes through a temporary: its high word was
    # lost, a MOV of a register pair copied one word)
    many += [
        ("div.rn.f64 %fd0, %fd0, %fd1; mov.b64 {%r4, %r5}, %fd0", f64, "alias.div.rn.f64"),
        ("sqrt.rn.f64 %fd0, %fd0; mov.b64 {%r4, %r5}, %fd0", f64, "alias.sqrt.rn.f64"),
        ("rsqrt.approx.f64 %fd1, %fd1; mov.b64 {%r4, %r5}, %fd1", f64, "alias.rsqrt.approx.f64"),
        ("div.rz.f64 %fd1, %fd0, %fd1; mov.b64 {%r4, %r5}, %fd1", f64, "alias.div.rz.f64"),
    ]
    for body, fmts, name in many:
        out.append(_c(body, *fmts, name=name))
    # one-source f32 -> f16/bf16 toward zero with .relu/.satfinite (F2FP...MERGE_C.RZ) are
    # fpmath_cases' cvt cases
    return out
