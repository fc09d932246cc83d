"""Sparse ``mma.sp[::ordered_metadata].sync.aligned`` (A structured-sparse, metadata ``e`` and
sparsity selector ``f``), as ptxas 13.0.88 compiles them for sm_90 (the probes of
``scripts/isa_src/sparse_mma.ptx`` through ``ptxas -arch=sm_90`` and ``nvdisasm``):

- f16/bf16 ``m16n8k16``/``m16n8k32`` (f16 or f32 accumulators), tf32 ``m16n8k8``/``m16n8k16``:
  ``HMMA.SP.<shape>.<F16|F32>[.BF16|.TF32] d, a, b, c, e, f``;
- s8/u8 ``m16n8k32``/``m16n8k64``: ``IMMA.SP.<shape>.<A>.<B>[.SAT] d, a.ROW, b.COL, c, e, f``;
- s4/u4 ``m16n8k64``/``m16n8k128`` (ptxas: nibble unpacking and a subroutine): the 4:8 sparsity
  is 2:4 over nibble pairs (bytes), so the metadata of the 8-bit shape of half the K applies to
  the bytes; the low and the high nibble of every byte become bytes ``16 n`` (sign kept) and go
  through one ``IMMA.SP`` each with the same ``e, f``; the sum (256 times the dot product, exact)
  is shifted back and added to C (``.satfinite``: saturated as ptxas's subroutine does, on the
  final sum only).

``::ordered_metadata`` and plain ``.sp`` are the same instruction on sm_90. Not built (refused):
e4m3/e5m2 ``m16n8k64`` (ptxas moves metadata across lanes to build it from f16 HMMA.SP).
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Imm, Operand, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.mma_ext_rules import add_nibble_products
from openptxas.lower.rules import Rule
from openptxas.lower.tensor_rules import _store, _words
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

# (shape, A type class) -> (SASS shape, words of A, B, C/D for a 32-bit accumulator)
_SP_SHAPES: dict[tuple[str, str], tuple[str, int, int, int]] = {
    ("m16n8k16", "f16"): ("16816", 2, 2, 4),
    ("m16n8k32", "f16"): ("16832", 4, 4, 4),
    ("m16n8k8", "tf32"): ("1688", 2, 2, 4),
    ("m16n8k16", "tf32"): ("16816", 4, 4, 4),
    ("m16n8k32", "s8"): ("16832", 2, 2, 4),
    ("m16n8k64", "s8"): ("16864", 4, 4, 4),
    ("m16n8k64", "s4"): ("16832", 2, 2, 4),
    ("m16n8k128", "s4"): ("16864", 4, 4, 4),
}
_TYPES = ("f16", "bf16", "tf32", "s8", "u8", "s4", "u4", "e4m3", "e5m2", "f32", "s32")
_CLASS = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "s8": "s8", "u8": "s8", "s4": "s4",
          "u4": "s4"}  # fmt: skip
_NOT_PT = Src(PT, inv=True)


def _is_sparse(ins: ast.Instruction) -> bool:
    return ins.has("sp") or ins.has("sp::ordered_metadata")


def _nibble_bytes(c: LowerCtx, g: VReg, n: int, high: bool) -> VReg:
    """The low (``high``: high) nibble of every byte of the ``n`` words of ``g`` as the high
    nibble of that byte (16 n, the sign of an s4 kept as an s8's)."""
    out = c.new(RC.R, n)
    for j in range(n):
        src = g.part(j) if n > 1 else g
        dst = out.part(j) if n > 1 else out
        if high:
            c.emit("LOP3", ("LUT",), [dst], [src, Imm(0xF0F0F0F0), RZ, Imm(0xC0), _NOT_PT])
        else:
            t = c.new(RC.R)
            c.emit("SHF", ("L", "U32"), [t], [src, Imm(4), RZ])
            c.emit("LOP3", ("LUT",), [dst], [t, Imm(0xF0F0F0F0), RZ, Imm(0xC0), _NOT_PT])
    return out


def mma_sp(ins: ast.Instruction, c: LowerCtx) -> None:
    shape = next((m for m in ins.mods.raw_set if m.startswith("m") and "n" in m), "")
    tys = [m for m in ins.mods.suffix.split(".") if m in _TYPES]
    if len(tys) != 4 or not (ins.has("row") and ins.has("col")) or len(ins.operands) != 6:
        raise c.unsupported(f"instruction '{ins.name}'")
    dt, at, bt, ct = tys
    cls = _CLASS.get(at)
    form = _SP_SHAPES.get((shape, cls)) if cls is not None else None
    if form is None or cls != _CLASS.get(bt) or dt != ct:
        raise c.unsupported(f"instruction '{ins.name}'")
    sass, na, nb, nc = form
    d, a, b, cc, e, f = ins.operands
    if not isinstance(f, ast.IntImm) or not 0 <= f.value <= 3:
        raise c.unsupported(f"instruction '{ins.name}' with a sparsity selector that is not 0-3")
    sel = Imm(f.value)
    sat = ins.has("satfinite")
    if cls in ("f16", "tf32"):
        if at != bt or dt not in ("f32", "f16") or (dt == "f16" and at != "f16") or sat:
            raise c.unsupported(f"instruction '{ins.name}'")
        nc = nc if dt == "f32" else nc // 2
        mods = ("SP", sass, dt.upper(), *((at.upper(),) if at in ("bf16", "tf32") else ()))
        ga, gb, gc = _words(c, a, na, ins), _words(c, b, nb, ins), _words(c, cc, nc, ins)
        meta = c.value(e, PtxType.B32, allow_imm=False)
        gd = c.new(RC.R, nc)
        c.emit("HMMA", mods, [gd], [ga, gb, gc, meta, sel])
        _store(c, d, gd)
        return
    if dt != "s32":
        raise c.unsupported(f"instruction '{ins.name}'")
    ga, gb, gc = _words(c, a, na, ins), _words(c, b, nb, ins), _words(c, cc, nc, ins)
    meta = c.value(e, PtxType.B32, allow_imm=False)
    as8, bs8 = ("S8" if t in ("s8", "s4") else "U8" for t in (at, bt))
    if cls == "s8":
        gd = c.new(RC.R, nc)
        mods = ("SP", sass, as8, bs8, *(("SAT",) if sat else ()))
        c.emit("IMMA", mods, [gd], [Src(ga, sel="ROW"), Src(gb, sel="COL"), gc, meta, sel])
        _store(c, d, gd)
        return
    acc: Operand = RZ
    for high in (False, True):
        ua, ub = _nibble_bytes(c, ga, na, high), _nibble_bytes(c, gb, nb, high)
        nxt = c.new(RC.R, nc)
        c.emit("IMMA", ("SP", sass, as8, bs8),
               [nxt], [Src(ua, sel="ROW"), Src(ub, sel="COL"), acc, meta, sel])  # fmt: skip
        acc = nxt
    assert isinstance(acc, VReg)
    _store(c, d, add_nibble_products(c, acc, gc, nc, sat))


RULES: list[Rule] = [
    Rule("mma.sp", "mma", _is_sparse, mma_sp,
         "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
         "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, "
         "{%f5, %f6, %f7, %f8}, %r9, 0;"),
]  # fmt: skip
