"""MUFU approximations (``ex2``, ``lg2``, ``sin``, ``cos``, ``tanh`` ``.approx``), as ptxas 13.0
compiles them for sm_90 (observed with scripts/fpmath_probe.py):

- ``ex2.approx.f32``: a source below -126 (whose result is subnormal, which MUFU.EX2 flushes) is
  halved, and the result squared::

      FSETP.GEU.AND P, PT, x, -126, PT;  @!P FMUL x, x, 0.5;  MUFU.EX2 d, x;  @!P FMUL d, d, d

  ``.ftz`` is the bare ``MUFU.EX2``.
- ``lg2.approx.f32``: a subnormal source (``|x| < 2^-126``) is scaled by 2^24 and 24 subtracted::

      FSETP.GEU.AND P, PT, |x|, 1.17549435e-38, PT;  @!P FMUL x, x, 16777216;
      MUFU.LG2 d, x;  @!P FADD d, d, -24

  ``.ftz`` is the bare ``MUFU.LG2``.
- ``sin``/``cos.approx[.ftz].f32``: ``FMUL.RZ t, x, 1/(2 pi)`` (MUFU.SIN/COS take revolutions),
  then ``MUFU.SIN|COS``.
- ``tanh.approx.f32``: ``MUFU.TANH``.
- ``ex2.approx.f16``, ``ex2.approx.ftz.bf16``, ``tanh.approx.f16|bf16``: ``MUFU.EX2|TANH.F16|BF16``;
  the ``x2`` forms run it on each half (``.H1`` for the high one) and pack the two results
  with ``PRMT d, lo, 0x5410, hi``.
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, Guard, Imm, ImmKind, RegLike, Src
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule, types
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType


def _f32(bits: int) -> Imm:
    return Imm(bits, ImmKind.F32)


def _mufu_f32(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    func = {"ex2": "EX2", "lg2": "LG2", "sin": "SIN", "cos": "COS", "tanh": "TANH"}[ins.opcode]
    x: RegLike = c.rvalue(a, T.F32)
    dv = c.dst(d)
    ftz = ins.has("ftz")
    if func in ("SIN", "COS"):
        t = c.new()
        c.emit("FMUL", ("RZ",), [t], [x, _f32(0x3E22F983)])  # 1 / (2 pi)
        c.emit("MUFU", (func,), [dv], [t])
        return
    if func == "TANH" or ftz:
        c.emit("MUFU", (func,), [dv], [x])
        return
    p = c.new(RC.P)
    s = c.new()
    # the test before the copy: where x dies at the copy, the allocator gives s x's register
    # (ptxas's in-place ``@!P FMUL x, x, k``) instead of a MOV
    if func == "EX2":
        c.emit("FSETP", ("GEU", "AND"), [p, PT], [x, _f32(0xC2FC0000), PT])  # -126
        c.emit("MOV", (), [s], [x])
        c.emit("FMUL", (), [s], [s, _f32(0x3F000000)], guard=Guard(p, inv=True))  # 0.5
        c.emit("MUFU", ("EX2",), [dv], [s])
        c.emit("FMUL", (), [dv], [dv, dv], guard=Guard(p, inv=True))
        return
    c.emit("FSETP", ("GEU", "AND"), [p, PT], [Src(x, abs=True), _f32(0x00800000), PT])
    c.emit("MOV", (), [s], [x])
    c.emit("FMUL", (), [s], [s, _f32(0x4B800000)], guard=Guard(p, inv=True))  # 2^24
    c.emit("MUFU", ("LG2",), [dv], [s])
    c.emit("FADD", (), [dv], [dv, _f32(0xC1C00000)], guard=Guard(p, inv=True))  # -24


def _mufu_half(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    func = "EX2" if ins.opcode == "ex2" else "TANH"
    kind = "BF16" if t in (T.BF16, T.BF16X2) else "F16"
    x = c.rvalue(a, t)
    dv = c.dst(d)
    if t in (T.F16, T.BF16):
        c.emit("MUFU", (func, kind), [dv], [x])
        return
    lo, hi = c.new(), c.new()
    c.emit("MUFU", (func, kind), [lo], [x])
    c.emit("MUFU", (func, kind), [hi], [Src(x, sel="H1")])
    c.emit("PRMT", (), [dv], [lo, Imm(0x5410), hi])


_HALF = (T.F16, T.F16X2, T.BF16, T.BF16X2)


def _ex2_half_ok(ins: ast.Instruction) -> bool:
    # PTX: ex2.approx.f16[x2] and ex2.approx.ftz.bf16[x2]
    return ins.type in _HALF


RULES: list[Rule] = [
    Rule("ex2.f32", "ex2", types(T.F32), _mufu_f32, "ex2.approx.ftz.f32 %f1, %f2;"),
    Rule("lg2.f32", "lg2", types(T.F32), _mufu_f32, "lg2.approx.f32 %f1, %f2;"),
    Rule("sin.f32", "sin", types(T.F32), _mufu_f32, "sin.approx.f32 %f1, %f2;"),
    Rule("cos.f32", "cos", types(T.F32), _mufu_f32, "cos.approx.ftz.f32 %f1, %f2;"),
    Rule("tanh.f32", "tanh", types(T.F32), _mufu_f32, "tanh.approx.f32 %f1, %f2;"),
    Rule("ex2.half", "ex2", _ex2_half_ok, _mufu_half, "ex2.approx.f16x2 %r1, %r2;"),
    Rule("tanh.half", "tanh", types(*_HALF), _mufu_half, "tanh.approx.bf16 %rs1, %rs2;"),
]
