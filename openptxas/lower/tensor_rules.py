"""Warp-level matrix loads, stores and transposes (sm_90), as ptxas 13.0.88 compiles them
(``scripts/probe_warp.py matrix``):

- ``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 {d..}, [a]``:
  ``LDSM.16.{M88,MT88}[.2|.4] R(group), [a]``;
- ``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 [a], {s..}``:
  ``STSM.16.{M88,MT88}[.2|.4] [a], R(group)``;
- ``movmatrix.sync.aligned.m8n8.trans.b16 d, a``: ``MOVM.16.MT88 d, a``.

A 64-bit address register is used by its low word, as ptxas does.
"""

from __future__ import annotations

from openptxas.ir.core import RC, Addr, Operand, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import half
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType
_COUNT = {"x1": 1, "x2": 2, "x4": 4}


def _shape(c: LowerCtx, ins: ast.Instruction) -> tuple[int, tuple[str, ...]]:
    n = next((v for k, v in _COUNT.items() if ins.has(k)), None)
    if n is None or not ins.has("m8n8") or ins.type is not T.B16:
        raise c.unsupported(f"instruction '{ins.name}'")
    if ins.space not in (None, StateSpace.SHARED, StateSpace.SHARED_CTA):
        raise c.unsupported(f"instruction '{ins.name}'")
    mods = ("16", "MT88" if ins.has("trans") else "M88", *((str(n),) if n > 1 else ()))
    return n, mods


def _addr(c: LowerCtx, op: ast.Operand) -> Addr:
    a = c.address(op)
    if isinstance(a.base, ast.Reg):
        v = c.reg_part(a.base)
        if isinstance(v, VReg) and v.width == 2:
            return Addr(half(v, 0), a.offset)
    return c.mem_addr(a, StateSpace.SHARED)


def _regs(op: ast.Operand) -> list[ast.Operand]:
    return list(op.items) if isinstance(op, ast.Vector) else [op]


def _store(c: LowerCtx, d: ast.Operand, g: VReg) -> None:
    """Copy the fragment group ``g`` word by word into the registers of the vector ``d``
    (a sink ``_`` skips its word)."""
    k = 0
    for it in _regs(d):
        if isinstance(it, ast.Sink):
            k += 1
            continue
        dv = c.dst(it)
        for j in range(dv.width):
            c.emit("MOV", (), [dv.part(j) if dv.width > 1 else dv], [g.part(k)])
            k += 1


def ldmatrix(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    n, mods = _shape(c, ins)
    items = _regs(d)
    if len(items) != n:
        raise c.unsupported(f"instruction '{ins.name}'")
    addr = _addr(c, a)
    if n == 1 and not isinstance(items[0], ast.Sink):
        c.emit("LDSM", mods, [c.dst(items[0])], [addr])
        return
    g = c.new(RC.R, n)
    c.emit("LDSM", mods, [g], [addr])
    for k, it in enumerate(items):
        if not isinstance(it, ast.Sink):
            c.emit("MOV", (), [c.dst(it)], [g.part(k)])


def stmatrix(ins: ast.Instruction, c: LowerCtx) -> None:
    a, s = ins.operands
    n, mods = _shape(c, ins)
    items = _regs(s)
    if len(items) != n:
        raise c.unsupported(f"instruction '{ins.name}'")
    addr = _addr(c, a)
    if n == 1:
        c.emit("STSM", mods, [], [addr, c.rvalue(items[0], T.B32)])
        return
    g = c.new(RC.R, n)
    for k, it in enumerate(items):
        c.emit("MOV", (), [g.part(k)], [c.value(it, T.B32)])
    c.emit("STSM", mods, [], [addr, g])


def movmatrix(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    if not (ins.has("m8n8") and ins.has("trans")) or ins.type is not T.B16:
        raise c.unsupported(f"instruction '{ins.name}'")
    c.emit("MOVM", ("16", "MT88"), [c.dst(d)], [c.rvalue(a, T.B32)])


# mma.sync: (shape, A/B type) -> (SASS shape, words of A, B, C/D for a 32-bit accumulator)
_MMA_SHAPES: dict[tuple[str, str], tuple[str, int, int, int]] = {
    ("m16n8k16", "f16"): ("16816", 4, 2, 4),
    ("m16n8k8", "f16"): ("1688", 2, 1, 4),
    ("m16n8k16", "bf16"): ("16816", 4, 2, 4),
    ("m16n8k8", "bf16"): ("1688", 2, 1, 4),
    ("m16n8k8", "tf32"): ("1688", 4, 2, 4),
    ("m16n8k4", "tf32"): ("1684", 2, 1, 4),
    ("m16n8k32", "s8"): ("16832", 4, 2, 4),
    ("m16n8k16", "s8"): ("16816", 2, 1, 4),
    ("m8n8k16", "s8"): ("8816", 1, 1, 2),
    ("m8n8k4", "f64"): ("8x8x4", 2, 2, 4),
    ("m16n8k4", "f64"): ("16x8x4", 4, 2, 8),
    ("m16n8k8", "f64"): ("16x8x8", 8, 4, 8),
    ("m16n8k16", "f64"): ("16x8x16", 16, 8, 8),
}
_MMA_TYPES = ("f16", "bf16", "tf32", "s8", "u8", "f64", "f32", "s32")


def _words(c: LowerCtx, op: ast.Operand, n: int, ins: ast.Instruction) -> VReg:
    """A group of ``n`` consecutive registers holding operand ``op`` (a vector of 32- or
    64-bit registers)."""
    items = _regs(op)
    parts: list[Operand] = []
    for it in items:
        v = c.value(it, T.B32) if not isinstance(it, ast.Reg) else c.reg_part(it)
        if isinstance(v, VReg) and v.width == 2:
            parts += [v.part(0), v.part(1)]
        else:
            parts.append(v)
    if len(parts) != n:
        raise c.unsupported(f"instruction '{ins.name}' with these operands")
    g = c.new(RC.R, n)
    for k, p in enumerate(parts):
        c.emit("MOV", (), [g.part(k) if n > 1 else g], [p])
    return g


def mma(ins: ast.Instruction, c: LowerCtx) -> None:
    """``mma.sync.aligned.<shape>.row.col[.satfinite].<d>.<a>.<b>.<c>``: ``HMMA.<shape>.<d>
    [.BF16|.TF32]``, ``IMMA.<shape>.<a>.<b>[.SAT] d, a.ROW, b.COL, c``, ``DMMA.{8x8x4,16x8xK}``."""
    shape = next((m for m in ins.mods.raw_set if m.startswith("m") and "n" in m), "")
    tys = [m for m in ins.mods.suffix.split(".") if m in _MMA_TYPES]
    if len(tys) != 4 or not (ins.has("row") and ins.has("col")) or ins.has("sp"):
        raise c.unsupported(f"instruction '{ins.name}'")
    dt, at, bt, ct = tys
    key = (shape, "s8" if at in ("s8", "u8") else at)
    form = _MMA_SHAPES.get(key)
    if form is None or dt != ct:
        raise c.unsupported(f"instruction '{ins.name}'")
    sass, na, nb, nc = form
    d, a, b, cc = ins.operands
    if at == "f64":
        op, mods = "DMMA", (sass,)
    elif at in ("s8", "u8"):
        if bt not in ("s8", "u8") or dt != "s32":
            raise c.unsupported(f"instruction '{ins.name}'")
        op = "IMMA"
        mods = (sass, at.upper(), bt.upper(), *(("SAT",) if ins.has("satfinite") else ()))
    else:
        if at != bt or dt not in ("f32", "f16") or (dt == "f16" and at != "f16"):
            raise c.unsupported(f"instruction '{ins.name}'")
        op = "HMMA"
        nc = nc if dt == "f32" else nc // 2
        mods = (sass, dt.upper(), *((at.upper(),) if at in ("bf16", "tf32") else ()))
    ga = _words(c, a, na, ins)
    gb = _words(c, b, nb, ins)
    gc = _words(c, cc, nc, ins)
    gd = c.new(RC.R, nc)
    srcs: list[Operand] = [ga, gb, gc]
    if op == "IMMA":
        srcs = [Src(ga, sel="ROW"), Src(gb, sel="COL"), gc]
    c.emit(op, mods, [gd], srcs)
    _store(c, d, gd)


RULES: list[Rule] = [
    Rule("mma.sync", "mma", always, mma,
         "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, "
         "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"),
    Rule("ldmatrix", "ldmatrix", always, ldmatrix,
         "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];"),
    Rule("stmatrix", "stmatrix", always, stmatrix,
         "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1};"),
    Rule("movmatrix", "movmatrix", always, movmatrix,
         "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;"),
]  # fmt: skip
