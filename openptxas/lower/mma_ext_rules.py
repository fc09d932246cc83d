"""``mma.sync`` forms that sm_90 has no single instruction for, as ptxas 13.0.88 computes them
(``scripts/probe_wgmma.py mma``):

- fp8 (``m16n8k32``/``m16n8k16 .row.col.<f32|f16>.<e4m3|e5m2>.<e4m3|e5m2>.<f32|f16>``): each
  A/B register holds four 8-bit floats; ``F2FP.F16.<E4M3|E5M2>.UNPACK_B`` turns its low pair
  (then, ``.H1``, its high pair) into f16x2, and two ``HMMA.16816``/``HMMA.1688`` (``.F32`` or
  ``.F16``) sum the two halves of K, the first from zero (``RZ``); the accumulator is added
  last with one ``FADD`` per element (f16: one ``HADD2`` per word), ptxas's order, so the same
  rounding.
- b1 ``.and.popc`` (``m8n8k128``, ``m16n8k128``, ``m16n8k256``): ``BMMA.<shape>.AND.POPC
  d, a.ROW, b.COL, c``. ``.xor.popc`` (ptxas calls a subroutine): popc(a ^ b) =
  popc(a) + popc(b) - 2 popc(a & b), summed over K: three BMMAs against all-ones operands
  and ``IADD3``/``IMAD``, exact in 32-bit arithmetic as the instruction's result is.
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Imm, Operand, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_helpers import saturating_add
from openptxas.lower.rules import Rule
from openptxas.lower.tensor_rules import _regs, _words
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

_FP8 = ("e4m3", "e5m2")
# b1 shapes: (SASS shape, words of A, B, C/D)
_B1 = {"m8n8k128": ("88128", 1, 1, 2), "m16n8k128": ("168128", 2, 1, 4),
       "m16n8k256": ("168256", 4, 2, 4)}  # fmt: skip


def _types(ins: ast.Instruction) -> list[str]:
    known = ("f32", "f16", "s32", "b1", *_FP8)
    return [m for m in ins.mods.suffix.split(".") if m in known]


def _is_fp8(ins: ast.Instruction) -> bool:
    return any(t in _FP8 for t in _types(ins))


def _is_b1(ins: ast.Instruction) -> bool:
    return "b1" in _types(ins)


def _store(c: LowerCtx, d: ast.Operand, g: VReg) -> None:
    for k, it in enumerate(_regs(d)):
        if not isinstance(it, ast.Sink):
            c.emit("MOV", (), [c.dst(it)], [g.part(k) if g.width > 1 else g])


# fp8 shapes: (HMMA shape of each f16 half, words of A, B)
_FP8_SHAPES = {"m16n8k32": ("16816", 4, 2), "m16n8k16": ("1688", 2, 1)}


def mma_fp8(ins: ast.Instruction, c: LowerCtx) -> None:
    tys = _types(ins)
    shape = next((s for s in _FP8_SHAPES if ins.has(s)), None)
    if len(tys) != 4 or shape is None or not (ins.has("row") and ins.has("col")):
        raise c.unsupported(f"instruction '{ins.name}'")
    dt, at, bt, ct = tys
    if dt != ct or dt not in ("f32", "f16") or at not in _FP8 or bt not in _FP8:
        raise c.unsupported(f"instruction '{ins.name}'")
    sass, na, nb = _FP8_SHAPES[shape]
    nc = 4 if dt == "f32" else 2
    d, a, b, cc = ins.operands
    ga = _words(c, a, na, ins)
    gb = _words(c, b, nb, ins)
    acc: Operand = RZ
    out = c.new(RC.R, nc)
    for half in range(2):
        ua, ub = c.new(RC.R, na), c.new(RC.R, nb)
        for grp, src, n, t in ((ua, ga, na, at), (ub, gb, nb, bt)):
            for j in range(n):
                part = src.part(j) if n > 1 else src
                s = Src(part, sel="H1") if half else part
                c.emit("F2FP", ("F16", t.upper(), "UNPACK_B"), [grp.part(j) if n > 1 else grp], [s])
        nxt = c.new(RC.R, nc)
        c.emit("HMMA", (sass, dt.upper()), [nxt], [ua, ub, acc])
        acc = nxt
    assert isinstance(acc, VReg)
    items = _regs(cc)
    if len(items) != nc:
        raise c.unsupported(f"instruction '{ins.name}' with these operands")
    for j, it in enumerate(items):
        if dt == "f32":
            c.emit("FADD", (), [out.part(j)], [c.value(it, PtxType.F32), acc.part(j)])
        else:  # f16x2 accumulators: HADD2 on the words, as ptxas
            c.emit("HADD2", (), [out.part(j)], [acc.part(j), c.value(it, PtxType.B32)])
    _store(c, d, out)


def mma_b1(ins: ast.Instruction, c: LowerCtx) -> None:
    tys = _types(ins)
    shape = next((s for s in _B1 if ins.has(s)), None)
    if shape is None or tys != ["s32", "b1", "b1", "s32"] or ins.has("sp"):
        raise c.unsupported(f"instruction '{ins.name}'")
    if not (ins.has("row") and ins.has("col") and ins.has("popc")):
        raise c.unsupported(f"instruction '{ins.name}'")
    if not (ins.has("and") or ins.has("xor")):
        raise c.unsupported(f"instruction '{ins.name}'")
    _, na, nb, nc = _B1[shape]
    d, a, b, cc = ins.operands
    ga, gb, gc = _words(c, a, na, ins), _words(c, b, nb, ins), _words(c, cc, nc, ins)
    _store(c, d, b1_core(c, shape, ga, gb, gc, ins.has("xor")))


def b1_core(c: LowerCtx, shape: str, ga: VReg, gb: VReg, gc: VReg, xor: bool) -> VReg:
    """D = C + popc(A op B) summed over K (op: and, or xor) of a b1 ``shape``."""
    sass, na, nb, nc = _B1[shape]
    mods = (sass, "AND", "POPC")
    out = c.new(RC.R, nc)
    if not xor:
        c.emit("BMMA", mods, [out], [Src(ga, sel="ROW"), Src(gb, sel="COL"), gc])
        return out
    ones_a, ones_b = c.new(RC.R, na), c.new(RC.R, nb)
    for grp, n in ((ones_a, na), (ones_b, nb)):
        for j in range(n):
            c.emit("MOV", (), [grp.part(j) if n > 1 else grp], [Imm(0xFFFFFFFF)])
    both, pa, pb = c.new(RC.R, nc), c.new(RC.R, nc), c.new(RC.R, nc)
    c.emit("BMMA", mods, [both], [Src(ga, sel="ROW"), Src(gb, sel="COL"), RZ])
    c.emit("BMMA", mods, [pa], [Src(ga, sel="ROW"), Src(ones_b, sel="COL"), RZ])
    c.emit("BMMA", mods, [pb], [Src(ones_a, sel="ROW"), Src(gb, sel="COL"), RZ])
    for j in range(nc):
        t = c.new(RC.R)
        c.emit("IADD3", (), [t], [pa.part(j), pb.part(j), gc.part(j)])
        c.emit("IMAD", (), [out.part(j)], [both.part(j), Imm(0xFFFFFFFE), t])
    return out


# s4/u4 shapes: (IMMA shape of the 8-bit halves, words of A, B, C/D)
_S4 = {"m8n8k32": ("8816", 1, 1, 2), "m16n8k32": ("16816", 2, 1, 4),
       "m16n8k64": ("16832", 4, 2, 4)}  # fmt: skip
_NOT_PT = Src(PT, inv=True)


def _is_s4(ins: ast.Instruction) -> bool:  # (.satfinite: the final sum saturated)
    return any(m in ("s4", "u4") for m in ins.mods.suffix.split("."))


def _nibbles_to_bytes(c: LowerCtx, x: Operand, high: bool) -> VReg:
    """Nibbles 0-3 (``high``: 4-7) of ``x`` as the high nibbles of four bytes (16 n)."""
    v = x
    if high:
        v = c.new(RC.R)
        c.emit("SHF", ("R", "U32", "HI"), [v], [RZ, Imm(16), x])
    acc: VReg | None = None
    for j in range(4):
        sh = c.new(RC.R)
        c.emit("SHF", ("L", "U32"), [sh], [v, Imm(4 * j + 4), RZ])
        nxt = c.new(RC.R)
        mask = Imm(0xF0 << (8 * j))
        if acc is None:
            c.emit("LOP3", ("LUT",), [nxt], [sh, mask, RZ, Imm(0xC0), _NOT_PT])
        else:  # acc | (mask & sh)
            c.emit("LOP3", ("LUT",), [nxt], [acc, mask, sh, Imm(0xF8), _NOT_PT])
        acc = nxt
    assert acc is not None
    return acc


def mma_s4(ins: ast.Instruction, c: LowerCtx) -> None:
    """``mma.sync ... .s32.<s4|u4>.<s4|u4>.s32``: ptxas unpacks the nibbles to bytes and calls a
    subroutine with IMMAs; here each nibble n becomes the byte 16 n (sign kept for s4), the
    low and the high nibbles go through one IMMA each (the same K split for A and B), the sum
    (256 times the dot product, exact) is shifted back and added to C: the same 32-bit
    result."""
    tys = [m for m in ins.mods.suffix.split(".") if m in ("s32", "s4", "u4")]
    shape = next((s for s in _S4 if ins.has(s)), None)
    if shape is None or len(tys) != 4 or tys[0] != "s32" or tys[3] != "s32" or ins.has("sp"):
        raise c.unsupported(f"instruction '{ins.name}'")
    if not (ins.has("row") and ins.has("col")):
        raise c.unsupported(f"instruction '{ins.name}'")
    d, a, b, cc = ins.operands
    _, na, nb, nc = _S4[shape]
    ga, gb, gc = _words(c, a, na, ins), _words(c, b, nb, ins), _words(c, cc, nc, ins)
    _store(c, d, s4_core(c, shape, tys[1], tys[2], ga, gb, gc, ins.has("satfinite")))


def s4_core(
    c: LowerCtx, shape: str, at: str, bt: str, ga: VReg, gb: VReg, gc: VReg, sat: bool
) -> VReg:
    """D = A B + C of an s4/u4 ``shape`` (``sat``: the final sum saturated, as ptxas)."""
    sass, na, nb, nc = _S4[shape]
    a8, b8 = ("S8" if t == "s4" else "U8" for t in (at, bt))
    acc: Operand = RZ
    for high in (False, True):
        ua, ub = c.new(RC.R, na), c.new(RC.R, nb)
        for src, dst, n in ((ga, ua, na), (gb, ub, nb)):
            for j in range(n):
                w = _nibbles_to_bytes(c, src.part(j) if n > 1 else src, high)
                c.emit("MOV", (), [dst.part(j) if n > 1 else dst], [w])
        nxt = c.new(RC.R, nc)
        c.emit("IMMA", (sass, a8, b8), [nxt], [Src(ua, sel="ROW"), Src(ub, sel="COL"), acc])
        acc = nxt
    assert isinstance(acc, VReg)
    return add_nibble_products(c, acc, gc, nc, sat)


def add_nibble_products(c: LowerCtx, acc: VReg, gc: VReg, nc: int, sat: bool) -> VReg:
    """D = C + acc / 256: the two byte-MMA passes over nibbles moved to the high half of each
    byte summed 16 a * 16 b (``sat``: the final sum saturated, as ptxas's subroutine's SELs).
    Shared by the dense and the sparse (mma_sp_rules) s4/u4 lowering."""
    out = c.new(RC.R, nc)
    for j in range(nc):
        t = c.new(RC.R)
        c.emit("SHF", ("R", "S32", "HI"), [t], [RZ, Imm(8), acc.part(j)])
        if sat:
            c.emit("MOV", (), [out.part(j)], [saturating_add(c, t, gc.part(j))])
        else:
            c.emit("IADD3", (), [out.part(j)], [t, gc.part(j), RZ])
    return out


RULES: list[Rule] = [
    Rule("mma.sync.s4", "mma", _is_s4, mma_s4,
         "mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32 {%r1, %r2, %r3, %r4}, "
         "{%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};"),
    Rule("mma.sync.fp8", "mma", _is_fp8, mma_fp8,
         "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, "
         "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"),
    Rule("mma.sync.b1", "mma", _is_b1, mma_b1,
         "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2, %r3, %r4}, "
         "{%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};"),
]  # fmt: skip
