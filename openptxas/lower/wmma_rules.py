"""Warp matrix functions (``wmma.load``, ``wmma.mma``, ``wmma.store``) on sm_90, lowered to the
mma.sync instructions ptxas 13.0.88 uses for them (``HMMA.16816`` for f16/bf16,
two ``HMMA.1684.F32.TF32`` for tf32, ``IMMA.16816`` for s8/u8, ``DMMA.8x8x4`` for f64; listings
from ``scripts/probe_wgmma.py wmma``) and plain loads and stores of the fragments.

A wmma fragment's contents are opaque in PTX (only wmma instructions and element-wise
operations touch them), so a fragment here is the list of the mma.sync fragments of its
tiles: A (M x K) as ceil(M/16) A tiles of 16 rows (an 8-row shape leaves the rows 8-15 of its
tile zero), B (K x N) as N/8 B tiles, C/D as the M/16 x N/8 accumulator tiles. Each fragment
word is loaded from its elements' addresses: element (r, c) of a ``row`` matrix at
``base + (r ld + c) size``, of a ``col`` one at ``base + (c ld + r) size``, one load per word
when its elements are adjacent in memory, else one per element (and a pack). The f16 A and B
fragments PTX declares twice as large as their data (8 registers for 4 words) hold their
words twice. ``wmma.mma`` runs one mma per tile (``m16n16k16``: two HMMAs); K is split only
where ptxas splits it (tf32: two k=4 halves per tile), so each result is rounded as ptxas's.
s4/u4 ``m8n8k32`` and b1 ``m8n8k128`` (ptxas: a subroutine
call) load their words as the 8-bit fragments of the same bytes and compute as mma.sync's
``m8n8k32``/``m8n8k128`` (lower/mma_ext_rules.py); ``.satfinite`` on s8/u8 is ``IMMA...SAT``.
"""

from __future__ import annotations

from dataclasses import dataclass

from openptxas.ir.core import PT, RC, RZ, Addr, Imm, Operand, Src, SReg, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import half
from openptxas.lower.mma_ext_rules import b1_core, s4_core
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType
_NOT_PT = Src(PT, inv=True)
Elem = tuple[int, int]  # (row, column) constant part of an element's coordinates


@dataclass(frozen=True)
class Frag:
    """A fragment: element (r0 + rg g + rt t, c0 + cg g + ct t) of lane 4 g + t, per word;
    a word of None is a zero (padding rows of an 8-row tile)."""

    lane: tuple[int, int, int, int]  # rg, rt, cg, ct
    words: tuple[tuple[Elem, ...] | None, ...]
    size: int  # bytes of an element
    wide: bool = False  # f64: a word is one 8-byte element (a register pair)


# base mma.sync fragments: name -> (lane coefficients, words)
def _a16(k8: bool, elems: int) -> tuple[tuple[int, int, int, int], list[tuple[Elem, ...]]]:
    if elems == 4:  # s8: 16 x 16 bytes, a0 rows g, a1 rows g + 8
        return (1, 0, 0, 4), [tuple((8 * i, e) for e in range(4)) for i in range(2)]
    if k8:  # tf32 16 x 8
        return (1, 0, 0, 1), [((8 * (i & 1), 4 * (i >> 1)),) for i in range(4)]
    words = [tuple((8 * (i & 1), 8 * (i >> 1) + e) for e in range(2)) for i in range(4)]
    return (1, 0, 0, 2), words


def _b8(k8: bool, elems: int) -> tuple[tuple[int, int, int, int], list[tuple[Elem, ...]]]:
    if elems == 4:
        return (0, 4, 1, 0), [tuple((e, 0) for e in range(4))]
    if k8:
        return (0, 1, 1, 0), [((4 * i, 0),) for i in range(2)]
    return (0, 2, 1, 0), [tuple((8 * i + e, 0) for e in range(2)) for i in range(2)]


def _c(half_acc: bool) -> tuple[tuple[int, int, int, int], list[tuple[Elem, ...]]]:
    if half_acc:
        return (1, 0, 0, 2), [tuple((8 * i, e) for e in range(2)) for i in range(2)]
    return (1, 0, 0, 2), [((8 * (i >> 1), i & 1),) for i in range(4)]


# wmma shape and type -> (M, N, K)
_SHAPES = {"m16n16k16": (16, 16, 16), "m32n8k16": (32, 8, 16), "m8n32k16": (8, 32, 16),
           "m16n16k8": (16, 16, 8), "m8n8k4": (8, 8, 4), "m8n8k32": (8, 8, 32),
           "m8n8k128": (8, 8, 128)}  # fmt: skip
_ELEM = {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "u8": 1, "f64": 8, "f32": 4, "s32": 4,
         "s4": 1, "u4": 1, "b1": 1}  # fmt: skip
# sub-byte types: addressed in bytes (a fragment word is 4 bytes of a row or a column, as the
# 8-bit fragments of the same rows); the stride in elements becomes ``(ld >> shift) & ~3``
# bytes: whole words, as ptxas's ``(ld >> 3) * 4`` (s4) and ``(ld >> 5) * 4`` (b1)
_SUB_BYTE = {"s4": 1, "u4": 1, "b1": 3}
# PTX fragment registers (32-bit) the f16 A/B fragments declare beyond their data
_F16_REGS = 8


def fragment(which: str, shape: str, ty: str) -> Frag:
    """The fragment of matrix ``which`` (a, b, c, d) of ``shape`` with element type ``ty``."""
    m, n, k = _SHAPES[shape]
    size = _ELEM[ty]
    if ty == "f64":
        if which == "a":
            return Frag((1, 0, 0, 1), (((0, 0),),), 8, True)
        if which == "b":
            return Frag((0, 1, 1, 0), (((0, 0),),), 8, True)
        return Frag((1, 0, 0, 2), (((0, 0),), ((0, 1),)), 8, True)
    elems = 4 // size if which in ("a", "b") else (2 if ty == "f16" else 1)
    words: list[tuple[Elem, ...] | None] = []
    if which == "a":
        lane, base = _a16(k == 8, elems)
        for mi in range((m + 15) // 16):
            for w in base:
                rows = {r for r, _ in w}
                words.append(None if m == 8 and min(rows) >= 8 else
                             tuple((r + 16 * mi, c) for r, c in w))  # fmt: skip
    elif which == "b":
        lane, base = _b8(k == 8, elems)
        for nj in range(n // 8):
            words += [tuple((r, c + 8 * nj) for r, c in w) for w in base]
    else:
        lane, base = _c(ty == "f16")
        for mi in range((m + 15) // 16):
            for nj in range(n // 8):
                for w in base:
                    if m == 8 and min(r for r, _ in w) >= 8:
                        words.append(None)
                        continue
                    words.append(tuple((r + 16 * mi, c + 8 * nj) for r, c in w))
    return Frag(lane, tuple(words), size)


def _data_words(f: Frag) -> list[int]:
    return [i for i, w in enumerate(f.words) if w is not None]


# ------------------------------------------------------------------------------- addressing


class _Addressing:
    """Addresses of one fragment's elements: ``P + maj0 ld size`` pointers, per distinct
    ``maj0``, with the minor offsets as immediates."""

    def __init__(self, c: LowerCtx, ins: ast.Instruction, f: Frag, row: bool, ty: str) -> None:
        self.c, self.f, self.row = c, f, row
        ops = ins.operands
        a = c.address(ops[1] if ins.opcode == "wmma.load" else ops[0])
        space = ins.space
        self.shared = space in (StateSpace.SHARED, StateSpace.SHARED_CTA)
        if space not in (None, StateSpace.GLOBAL, StateSpace.SHARED, StateSpace.SHARED_CTA):
            raise c.unsupported(f"instruction '{ins.name}'")
        self.op_load = "LDS" if self.shared else ("LDG" if space is StateSpace.GLOBAL else "LD")
        self.op_store = {"LDS": "STS", "LDG": "STG", "LD": "ST"}[self.op_load]
        if not isinstance(a.base, ast.Reg):
            raise c.unsupported(f"instruction '{ins.name}' on a variable")
        base: Operand = c.reg_part(a.base)
        if self.shared and isinstance(base, VReg) and base.width == 2:
            base = half(base, 0)
        if not self.shared and not (isinstance(base, VReg) and base.width == 2):
            raise c.unsupported("32-bit generic address")
        self.base_off = a.offset
        stride = ops[2] if len(ops) > 2 else None
        if stride is None:
            raise c.unsupported(f"instruction '{ins.name}' without a stride")
        self.ld: Operand = c.value(stride, T.U32)
        shift = _SUB_BYTE.get(ty)
        if shift is not None and isinstance(self.ld, Imm):
            self.ld = Imm((self.ld.value >> shift) & ~3)
        elif shift is not None:
            t0, t1 = c.new(RC.R), c.new(RC.R)
            c.emit("SHF", ("R", "U32", "HI"), [t0], [RZ, Imm(shift), self.ld])
            c.emit("LOP3", ("LUT",), [t1], [t0, Imm(0xFFFFFFFC), RZ, Imm(0xC0), _NOT_PT])
            self.ld = t1
        rg, rt, cg, ct = f.lane
        mg, mt, ng, nt = (rg, rt, cg, ct) if row else (cg, ct, rg, rt)
        lane = c.new(RC.R)
        c.emit("S2R", (), [lane], [SReg("SR_LANEID")])
        g, t = c.new(RC.R), c.new(RC.R)
        c.emit("SHF", ("R", "U32", "HI"), [g], [RZ, Imm(2), lane])
        c.emit("LOP3", ("LUT",), [t], [lane, Imm(3), RZ, Imm(0xC0), _NOT_PT])

        def lin(cg_: int, ct_: int) -> VReg:
            x, y = c.new(RC.R), c.new(RC.R)
            c.emit("IMAD", (), [x], [t, Imm(ct_), RZ])
            c.emit("IMAD", (), [y], [g, Imm(cg_), x])
            return y

        maj, mnr = lin(mg, mt), lin(ng, nt)
        el = c.new(RC.R)
        c.emit("IMAD", (), [el], [maj, self._ld_reg(), mnr])
        self.p = self._advance(base, el, f.size)
        self.ptrs: dict[int, VReg] = {}

    def _ld_reg(self) -> Operand:
        if isinstance(self.ld, Imm):
            v = self.c.new(RC.R)
            self.c.emit("MOV", (), [v], [self.ld])
            return v
        return self.ld

    def _advance(self, base: Operand, n: Operand, scale: int) -> VReg:
        """``base + n * scale`` (64-bit, or 32-bit for shared memory)."""
        c = self.c
        if self.shared:
            v = c.new(RC.R)
            c.emit("IMAD", (), [v], [n, Imm(scale), base])
            return v
        v = c.new(RC.R, 2)
        c.emit("IMAD", ("WIDE", "U32"), [v], [n, Imm(scale), base])
        return v

    def addr(self, e: Elem) -> Addr:
        r0, c0 = e
        maj, mnr = (r0, c0) if self.row else (c0, r0)
        off = self.base_off + mnr * self.f.size
        if isinstance(self.ld, Imm):
            p, off = self.p, off + maj * self.ld.value * self.f.size
        elif maj == 0:
            p = self.p
        else:
            if maj not in self.ptrs:
                self.ptrs[maj] = self._advance(self.p, self.ld, maj * self.f.size)
            p = self.ptrs[maj]
        if self.shared:
            return Addr(p, off)
        return Addr(p, off, desc=self.c.desc(), wide=True)

    def contiguous(self, w: tuple[Elem, ...]) -> bool:
        keys = [(r, c) if self.row else (c, r) for r, c in w]
        return all(k[0] == keys[0][0] and k[1] == keys[0][1] + i for i, k in enumerate(keys))

    def pre(self) -> tuple[str, ...]:
        return () if self.shared else ("E",)


_SIZE_MOD = {1: "U8", 2: "U16", 4: "", 8: "64"}


def _ptx_regs(c: LowerCtx, op: ast.Operand) -> list[ast.Operand]:
    return list(op.items) if isinstance(op, ast.Vector) else [op]


def _parse(ins: ast.Instruction, c: LowerCtx) -> tuple[str, str, bool]:
    shape = next((s for s in _SHAPES if ins.has(s)), None)
    ty = next((t for t in _ELEM if ins.has(t)), None)
    row = ins.has("row")
    if shape is None or ty is None or row == ins.has("col"):
        raise c.unsupported(f"instruction '{ins.name}'")
    return shape, ty, row


def _which(ins: ast.Instruction) -> str:
    return next(w for w in ("a", "b", "c", "d") if ins.has(w))


def wmma_load(ins: ast.Instruction, c: LowerCtx) -> None:
    shape, ty, row = _parse(ins, c)
    which = _which(ins)
    f = fragment(which, shape, ty)
    ax = _Addressing(c, ins, f, row, ty)
    items = _ptx_regs(c, ins.operands[0])
    words: list[VReg] = []
    for w in (f.words[i] for i in _data_words(f)):
        assert w is not None
        if f.wide:
            v = c.new(RC.R, 2)
            c.emit(ax.op_load, (*ax.pre(), "64"), [v], [ax.addr(w[0])])
        elif ax.contiguous(w):
            v = c.new(RC.R)
            mod = _SIZE_MOD[f.size * len(w)]
            c.emit(ax.op_load, (*ax.pre(), *((mod,) if mod else ())), [v], [ax.addr(w[0])])
        else:
            parts = []
            for e in w:
                p = c.new(RC.R)
                c.emit(ax.op_load, (*ax.pre(), _SIZE_MOD[f.size]), [p], [ax.addr(e)])
                parts.append(p)
            v = parts[0]
            for k, p in enumerate(parts[1:], 1):
                nv = c.new(RC.R)
                c.emit("IMAD", (), [nv], [p, Imm(1 << (8 * f.size * k)), v])
                v = nv
        words.append(v)
    if len(items) % len(words) or not items:
        raise c.unsupported(f"instruction '{ins.name}' with {len(items)} registers")
    for k, it in enumerate(items):
        if not isinstance(it, ast.Sink):
            c.emit("MOV", (), [c.dst(it)], [words[k % len(words)]])


def wmma_store(ins: ast.Instruction, c: LowerCtx) -> None:
    shape, ty, row = _parse(ins, c)
    f = fragment("d", shape, ty)
    ax = _Addressing(c, ins, f, row, ty)
    items = _ptx_regs(c, ins.operands[1])
    data = [f.words[i] for i in _data_words(f)]
    if len(items) != len(data):
        raise c.unsupported(f"instruction '{ins.name}' with {len(items)} registers")
    for it, w in zip(items, data, strict=True):
        assert w is not None
        v = c.rvalue(it, T.F64 if f.wide else T.B32)
        if f.wide or ax.contiguous(w):
            mod = _SIZE_MOD[f.size * len(w)]
            c.emit(ax.op_store, (*ax.pre(), *((mod,) if mod else ())), [], [ax.addr(w[0]), v])
            continue
        for k, e in enumerate(w):
            p: Operand = v
            if k:
                p = c.new(RC.R)
                c.emit("SHF", ("R", "U32", "HI"), [p], [RZ, Imm(8 * f.size * k), v])
            c.emit(ax.op_store, (*ax.pre(), _SIZE_MOD[f.size]), [], [ax.addr(e), p])


def wmma_mma(ins: ast.Instruction, c: LowerCtx) -> None:
    shape = next((s for s in _SHAPES if ins.has(s)), None)
    tys = [m for m in ins.mods.suffix.split(".") if m in _ELEM]
    sat = ins.has("satfinite")
    if shape is None:
        raise c.unsupported(f"instruction '{ins.name}'")
    if len(tys) == 2:  # .dtype.ctype: f16 inputs
        dt, ct = tys
        at = "f16"
    elif len(tys) == 4:
        dt, at, _, ct = tys
    else:
        raise c.unsupported(f"instruction '{ins.name}'")
    m, n, _k = _SHAPES[shape]
    fa, fb, fc = fragment("a", shape, at), fragment("b", shape, at), fragment("c", shape, ct)
    fd = fragment("d", shape, dt)
    if fc.words != fd.words or fc.wide != fd.wide:
        raise c.unsupported(f"instruction '{ins.name}'")
    d, a, b, cc = ins.operands
    wide = fa.wide

    def words(op: ast.Operand, f: Frag) -> list[Operand]:
        """The fragment's words (zero for padding), from its PTX registers."""
        regs = _ptx_regs(c, op)
        vals: list[Operand] = []
        for it in regs:
            v = c.value(it, T.F64 if wide else T.B32)
            if wide and isinstance(v, VReg):
                vals += [v.part(0), v.part(1)]
            else:
                vals.append(v)
        out: list[Operand] = []
        k = 0
        per = 2 if wide else 1
        for w in f.words:
            if w is None:
                out += [RZ] * per
            else:
                out += vals[k : k + per]
                k += per
        return out

    wa, wb, wc = words(a, fa), words(b, fb), words(cc, fc)
    if at in _SUB_BYTE:  # one m8n8 tile: A, B one word, C/D two (rows 8-15 are padding)
        if (at == "b1") != (shape == "m8n8k128") or dt != "s32" or tys[2] != at:
            raise c.unsupported(f"instruction '{ins.name}'")
        if at == "b1" and (sat or not ins.has("popc") or not (ins.has("and") or ins.has("xor"))):
            raise c.unsupported(f"instruction '{ins.name}'")
        ga, gb, gc = _group(c, wa[:1]), _group(c, wb[:1]), _group(c, wc[:2])
        if at == "b1":
            gd = b1_core(c, "m8n8k128", ga, gb, gc, ins.has("xor"))
        else:
            gd = s4_core(c, "m8n8k32", at, at, ga, gb, gc, sat)
        _store_d(c, d, [gd.part(0), gd.part(1)])
        return
    if sat and at not in ("s8", "u8"):
        raise c.unsupported(f"instruction '{ins.name}'")
    mods: tuple[str, ...]
    if at == "f64":
        op, mods, na, nb, ncw = "DMMA", ("8x8x4",), 2, 2, 4
    elif at in ("s8", "u8"):
        mods = ("16816", at.upper(), tys[2].upper(), *(("SAT",) if sat else ()))
        op, na, nb, ncw = "IMMA", 2, 1, 4
    elif at == "tf32":
        op, mods, na, nb, ncw = "HMMA", ("1688", "F32", "TF32"), 4, 2, 4
    else:
        acc = "F32" if dt == "f32" else "F16"
        if dt != ct and not (dt == "f32" and ct == "f32"):
            raise c.unsupported(f"instruction '{ins.name}' with .{dt}.{ct}")
        op, mods, na, nb = "HMMA", ("16816", acc, *(("BF16",) if at == "bf16" else ())), 4, 2
        ncw = 4 if dt == "f32" else 2
    mt, nt = (m + 15) // 16, n // 8
    out: list[Operand] = []
    for mi in range(mt):
        ga = _group(c, wa[mi * na : (mi + 1) * na])
        for nj in range(nt):
            gb = _group(c, wb[nj * nb : (nj + 1) * nb])
            tile = mi * nt + nj
            gc = _group(c, wc[tile * ncw : (tile + 1) * ncw])
            gd = c.new(RC.R, ncw)
            srcs: list[Operand] = [ga, gb, gc]
            if op == "IMMA":
                srcs = [Src(ga, sel="ROW"), Src(gb, sel="COL"), gc]
            if at == "tf32":
                # ptxas computes a tf32 tile as two k=4 halves, rounding between them
                # (HMMA.1684 on A words 0-1 and B word 0, then on A words 2-3 and B word 1: the
                # 1688 fragment's k 0-3 and 4-7); one HMMA.1688 rounds once, and
                # tf32TensorCoreGemm's results differed from ptxas's by an ulp on an H200
                lo = c.new(RC.R, ncw)
                for k, (c_in, dst) in enumerate(((gc, lo), (lo, gd))):
                    a2 = ga.part(2 * k, 2)  # (the A group's pairs: no copies of their own)
                    c.emit(op, ("1684", "F32", "TF32"), [dst], [a2, wb[nj * nb + k], c_in])
            else:
                c.emit(op, mods, [gd], srcs)
            out += [gd.part(j) for j in range(ncw)]
    # the D words that are data (padding rows dropped), into the PTX registers
    per = 2 if wide else 1
    data = [out[i * per + j] for i, w in enumerate(fd.words) if w is not None for j in range(per)]
    _store_d(c, d, data)


def _store_d(c: LowerCtx, d: ast.Operand, data: list[Operand]) -> None:
    dsts = [c.dst(it) for it in _ptx_regs(c, d)]
    if sum(dv.width for dv in dsts) != len(data):
        raise c.unsupported("wmma.mma with these D registers")
    k = 0
    for dv in dsts:
        for j in range(dv.width):
            c.emit("MOV", (), [dv.part(j) if dv.width > 1 else dv], [data[k]])
            k += 1


def _group(c: LowerCtx, vals: list[Operand]) -> VReg:
    g = c.new(RC.R, len(vals))
    for j, v in enumerate(vals):
        c.emit("MOV", (), [g.part(j) if len(vals) > 1 else g], [v])
    return g


RULES: list[Rule] = [
    Rule("wmma.load", "wmma.load", always, wmma_load,
         "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
         "%r8}, [%rd1], %r9;"),
    Rule("wmma.store", "wmma.store", always, wmma_store,
         "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, "
         "%f6, %f7, %f8}, %r9;"),
    Rule("wmma.mma", "wmma.mma", always, wmma_mma,
         "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
         "%f8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, "
         "%r15, %r16}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};"),
]  # fmt: skip
