"""Cases of the per-instruction differential suite (openptxas/testing/fpmath_cases.py) for the
forms issue 19's second round added: ``set`` with scalar f16/bf16 sources and into f16/bf16
destinations, ``set`` with integer sources, ``mad.hi`` on 64-bit integers (with and without
``.cc``), ``cvt`` with ``.relu``, and predicated division."""

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
    other = [
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
    return out
