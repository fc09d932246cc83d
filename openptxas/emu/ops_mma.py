"""Warp-level matrix instructions: HMMA (f16/bf16/tf32), IMMA (s8/u8), DMMA (f64), BMMA (b1),
MOVM.

Each warp's fragments are gathered from the registers of its 32 lanes with the PTX ISA's
``mma.sync`` fragment layouts (lane ``t``: group ``g = t >> 2``, thread-in-group ``q = t & 3``),
multiplied, and scattered back. Accumulation model: every product is exact and the sum of the
products and the accumulator is computed in float64 (int64 for IMMA, wrapping to 32 bits), then
rounded once to the destination type (round to nearest even). The hardware's internal
accumulation order and width are not documented; results agree with it whenever the float64 sum
is exact (docs/emu.md, error model). BMMA is exact: popcounts summed in int64, wrapped to 32 bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from openptxas.emu import fp
from openptxas.emu.bind import U32, U64, Bound, Ctx, reg_row
from openptxas.emu.lanes import Sel, warp_lanes
from openptxas.emu.model import Imm, Reg

NDArray = np.ndarray[Any, Any]
F64 = np.float64

_T = np.arange(32)
_G = _T >> 2
_Q = _T & 3

Layout = Callable[[NDArray], tuple[NDArray, NDArray]]  # element index -> (row, col) per lane


@dataclass(frozen=True)
class Frag:
    """One operand's fragment: ``n`` elements per lane of ``bits`` bits, at (row, col)."""

    n: int
    bits: int
    rows: NDArray  # [32, n]
    cols: NDArray  # [32, n]

    @property
    def regs(self) -> int:
        return max(1, self.n * self.bits // 32)


def _frag(n: int, bits: int, f: Callable[[NDArray, NDArray, NDArray], tuple[Any, Any]]) -> Frag:
    e = np.arange(n)[None, :]
    g = _G[:, None]
    q = _Q[:, None]
    r, c = f(e, g, q)
    return Frag(n, bits, np.broadcast_to(r, (32, n)).copy(), np.broadcast_to(c, (32, n)).copy())


def _c_f32_16x8() -> Frag:
    return _frag(4, 32, lambda e, g, q: (g + 8 * (e >> 1), 2 * q + (e & 1)))


def _c_f16_16x8() -> Frag:
    return _frag(4, 16, lambda e, g, q: (g + 8 * (e >> 1), 2 * q + (e & 1)))


@dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    a: Frag
    b: Frag  # rows = k, cols = n


def _shape(name: str, atype: str) -> Shape | None:
    if name == "16816" and atype in ("F16", "BF16"):
        a = _frag(
            8,
            16,
            lambda e, g, q: (g + 8 * ((e >> 1) & 1), 2 * q + (e & 1) + 8 * (e >> 2)),
        )
        b = _frag(4, 16, lambda e, g, q: (2 * q + (e & 1) + 8 * (e >> 1), g))
        return Shape(16, 8, 16, a, b)
    if name == "1688" and atype in ("F16", "BF16"):
        a = _frag(4, 16, lambda e, g, q: (g + 8 * (e >> 1), 2 * q + (e & 1)))
        b = _frag(2, 16, lambda e, g, q: (2 * q + e, g))
        return Shape(16, 8, 8, a, b)
    if name == "1688" and atype == "TF32":
        a = _frag(4, 32, lambda e, g, q: (g + 8 * (e & 1), q + 4 * (e >> 1)))
        b = _frag(2, 32, lambda e, g, q: (q + 4 * e, g))
        return Shape(16, 8, 8, a, b)
    if name == "1684" and atype == "TF32":
        a = _frag(2, 32, lambda e, g, q: (g + 8 * e, q))
        b = _frag(1, 32, lambda e, g, q: (q + 0 * e, g))
        return Shape(16, 8, 4, a, b)
    if name == "16832" and atype in ("S8", "U8", "E4M3", "E5M2"):
        a = _frag(16, 8, lambda e, g, q: (g + 8 * ((e >> 2) & 1), 4 * q + (e & 3) + 16 * (e >> 3)))
        b = _frag(8, 8, lambda e, g, q: (4 * q + (e & 3) + 16 * (e >> 2), g))
        return Shape(16, 8, 32, a, b)
    if name == "16864" and atype in ("S4", "U4"):  # (sm_75-sm_89; sm_90 has no int4 IMMA)
        a = _frag(32, 4, lambda e, g, q: (g + 8 * ((e >> 3) & 1), 8 * q + (e & 7) + 32 * (e >> 4)))
        b = _frag(16, 4, lambda e, g, q: (8 * q + (e & 7) + 32 * (e >> 3), g))
        return Shape(16, 8, 64, a, b)
    if name == "16832" and atype in ("S4", "U4"):
        a = _frag(16, 4, lambda e, g, q: (g + 8 * (e >> 3), 8 * q + (e & 7)))
        b = _frag(8, 4, lambda e, g, q: (8 * q + e, g))
        return Shape(16, 8, 32, a, b)
    if name == "8832" and atype in ("S4", "U4"):
        a = _frag(8, 4, lambda e, g, q: (g + 0 * e, 8 * q + e))
        b = _frag(8, 4, lambda e, g, q: (8 * q + e, g))
        return Shape(8, 8, 32, a, b)
    if name == "16816" and atype in ("S8", "U8"):
        a = _frag(8, 8, lambda e, g, q: (g + 8 * (e >> 2), 4 * q + (e & 3)))
        b = _frag(4, 8, lambda e, g, q: (4 * q + e, g))
        return Shape(16, 8, 16, a, b)
    if name == "8816" and atype in ("S8", "U8"):
        a = _frag(4, 8, lambda e, g, q: (g + 0 * e, 4 * q + e))
        b = _frag(4, 8, lambda e, g, q: (4 * q + e, g))
        return Shape(8, 8, 16, a, b)
    return None


def _elements(words: NDArray, frag: Frag, typ: str) -> NDArray:
    """Register words [regs, W, 32] -> element values [W, 32, n] (float64 or int64)."""
    w = np.moveaxis(words, 0, -1)  # [W, 32, regs]
    if frag.bits == 32:
        v = w.view(np.float32) if typ != "TF32" else (w & U32(0xFFFFE000)).view(np.float32)
        return v.astype(F64)
    per = 32 // frag.bits
    parts = [(w >> U32(frag.bits * j)) & U32((1 << frag.bits) - 1) for j in range(per)]
    raw = np.stack(parts, axis=-1).reshape(*w.shape[:2], -1)[..., : frag.n]
    if typ == "F16":
        return raw.astype(np.uint16).view(np.float16).astype(F64)
    if typ == "BF16":
        return fp.bf16_to_f32(raw).astype(F64)
    if typ == "S8":
        return raw.astype(np.uint8).view(np.int8).astype(np.int64)
    if typ in ("U8", "U4"):
        return raw.astype(np.int64)
    if typ in ("E4M3", "E5M2"):
        return fp.fp8_to_f64(raw, typ)
    if typ == "S4":
        return ((raw.astype(np.int64) ^ 8) - 8).astype(np.int64)
    raise ValueError(typ)


def _matrix(vals: NDArray, frag: Frag, rows: int, cols: int) -> NDArray:
    W = vals.shape[0]
    out = np.zeros((W, rows, cols), dtype=vals.dtype)
    out[:, frag.rows, frag.cols] = vals
    return out


def _regs(m: Any, op: Reg, n: int, lanes: NDArray) -> NDArray:
    """Registers op..op+n-1 of the given lanes (warp-major), as [n, W, 32]."""
    if op.is_zero:
        return np.zeros((n, lanes.size // 32, 32), dtype=U32)
    row = reg_row(op)
    return m.R[row : row + n][:, lanes].reshape(n, -1, 32)  # type: ignore[no-any-return]


def _f64_regs(m: Any, op: Reg, n: int, lanes: NDArray) -> NDArray:
    """``n`` f64 values per lane from ``2n`` consecutive registers: [n, warps, 32]."""
    w = _regs(m, op, 2 * n, lanes)
    return (w[0::2].astype(U64) | (w[1::2].astype(U64) << U64(32))).view(F64)


def _bind_dmma16(ctx: Ctx, k: int, d_op: Reg, a_op: Reg, b_op: Reg, c_op: Reg) -> Bound:
    """``DMMA.16x8xK`` (mma.sync.m16n8k{4,8,16}.f64), the PTX ISA's fragments (g = lane / 4,
    q = lane % 4): A (16 x K) value i at row g + 8 (i % 2), column q + 4 (i // 2); B (K x 8)
    value i at row q + 4 i, column g; C and D (16 x 8) value i at row g + 8 (i // 2), column
    2 q + i % 2. Products are exact and summed with the accumulator in float64 (docs/emu.md)."""
    m = ctx.m
    L = m.L
    na, nb = k // 2, k // 4
    for r, n in ((a_op, 2 * na), (b_op, 2 * nb), (c_op, 8)):
        ctx.read(reg_row(r), n)
    ctx.write(reg_row(d_op), 8)

    def dmma(sel: Sel) -> None:
        lanes = m.index(warp_lanes(sel, L))
        a64 = _f64_regs(m, a_op, na, lanes)
        b64 = _f64_regs(m, b_op, nb, lanes)
        c64 = _f64_regs(m, c_op, 4, lanes)
        W = a64.shape[1]
        A = np.zeros((W, 16, k))
        B = np.zeros((W, k, 8))
        C = np.zeros((W, 16, 8))
        for i in range(na):
            A[:, _G + 8 * (i % 2), _Q + 4 * (i // 2)] = a64[i]
        for i in range(nb):
            B[:, _Q + 4 * i, _G] = b64[i]
        for i in range(4):
            C[:, _G + 8 * (i // 2), 2 * _Q + i % 2] = c64[i]
        D = np.einsum("wik,wkj->wij", A, B) + C
        out = np.zeros((8, W, 32), dtype=U32)
        for i in range(4):
            bits = np.ascontiguousarray(D[:, _G + 8 * (i // 2), 2 * _Q + i % 2]).view(U64)
            out[2 * i] = (bits & U64(0xFFFFFFFF)).astype(U32)
            out[2 * i + 1] = (bits >> U64(32)).astype(U32)
        if not d_op.is_zero:
            row = reg_row(d_op)
            m.R[row : row + 8][:, lanes] = out.reshape(8, -1)

    return Bound(dmma)


def bind_mma(ctx: Ctx) -> Bound:
    ins = ctx.ins
    mods = ins.mods
    if mods and mods[0] == "SP":
        return _bind_mma_sp(ctx)
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    if len(regs) != 4 or not mods:
        raise ctx.unsupported()
    d_op, a_op, b_op, c_op = regs
    op = ins.opcode
    m = ctx.m
    L = m.L
    if op == "DMMA" and mods[0] in ("16x8x4", "16x8x8", "16x8x16"):
        return _bind_dmma16(ctx, int(mods[0].split("x")[2]), d_op, a_op, b_op, c_op)
    if op == "DMMA":
        if mods[0] not in ("8x8x4", "884"):  # (sm_80 spells it DMMA.884)
            raise ctx.unsupported()
        for r, n in ((a_op, 2), (b_op, 2), (c_op, 4)):
            ctx.read(reg_row(r), n)
        ctx.write(reg_row(d_op), 4)

        def dmma(sel: Sel) -> None:
            lanes = m.index(warp_lanes(sel, L))
            aw = _regs(m, a_op, 2, lanes)
            bw = _regs(m, b_op, 2, lanes)
            cw = _regs(m, c_op, 4, lanes)
            a64 = (aw[0].astype(U64) | (aw[1].astype(U64) << U64(32))).view(F64)
            b64 = (bw[0].astype(U64) | (bw[1].astype(U64) << U64(32))).view(F64)
            c64 = (cw[0::2].astype(U64) | (cw[1::2].astype(U64) << U64(32))).view(F64)
            W = a64.shape[0]
            A = np.zeros((W, 8, 4))
            B = np.zeros((W, 4, 8))
            C = np.zeros((W, 8, 8))
            A[:, _G, _Q] = a64
            B[:, _Q, _G] = b64
            for e in range(2):
                C[:, _G, 2 * _Q + e] = c64[e]
            D = np.einsum("wik,wkj->wij", A, B) + C
            out = np.zeros((4, W, 32), dtype=U32)
            for e in range(2):
                bits = D[:, _G, 2 * _Q + e].view(U64)
                out[2 * e] = (bits & U64(0xFFFFFFFF)).astype(U32)
                out[2 * e + 1] = (bits >> U64(32)).astype(U32)
            if not d_op.is_zero:
                row = reg_row(d_op)
                m.R[row : row + 4][:, lanes] = out.reshape(4, -1)

        return Bound(dmma)
    shape_name = mods[0]
    if op == "HMMA":
        dtype = "F32" if "F32" in mods[1:2] else "F16"
        atype = next((t for t in mods[2:] if t in ("BF16", "TF32")), "F16")
    elif op in ("IMMA", "QMMA"):
        # (QMMA: sm_89's fp8 mma.sync, QMMA.16832.F32.E4M3.E5M2; the int8 layouts)
        dtype = "S32" if op == "IMMA" else "F32" if "F32" in mods else "F16"
        known = ("S8", "U8", "S4", "U4") if op == "IMMA" else ("E4M3", "E5M2")
        types = [t for t in mods[1:] if t in known]
        if len(types) != 2:
            raise ctx.unsupported()
        atype = types[0]
    else:
        raise ctx.unsupported()
    shape = _shape(shape_name, atype)
    if shape is None:
        raise ctx.unsupported(f"{op}.{shape_name} on {atype}")
    btype = types[1] if op in ("IMMA", "QMMA") else atype
    if op == "IMMA" and shape.m == 8:
        cfrag = _frag(2, 32, lambda e, g, q: (g + 0 * e, 2 * q + e))
    else:
        cfrag = _c_f16_16x8() if dtype == "F16" else _c_f32_16x8()
    sat = "SAT" in mods
    for r, n in ((a_op, shape.a.regs), (b_op, shape.b.regs), (c_op, cfrag.regs)):
        ctx.read(reg_row(r), n)
    ctx.write(reg_row(d_op), cfrag.regs)

    def mma(sel: Sel) -> None:
        lanes = m.index(warp_lanes(sel, L))
        A = _matrix(
            _elements(_regs(m, a_op, shape.a.regs, lanes), shape.a, atype),
            shape.a,
            shape.m,
            shape.k,
        )
        B = _matrix(
            _elements(_regs(m, b_op, shape.b.regs, lanes), shape.b, btype),
            shape.b,
            shape.k,
            shape.n,
        )
        _accumulate(m, lanes, A, B, c_op, d_op, cfrag, dtype, sat)

    return Bound(mma)


def _accumulate(
    m: Any, lanes: NDArray, A: NDArray, B: NDArray, c_op: Reg, d_op: Reg, cfrag: Frag,
    dtype: str, sat: bool,
) -> None:  # fmt: skip
    """D = A B + C for the warps of ``lanes`` (A [W, M, K], B [W, K, N]), written to ``d_op``."""
    cw = _regs(m, c_op, cfrag.regs, lanes)
    if dtype == "S32":
        cvals = np.moveaxis(cw, 0, -1).view(np.int32).astype(np.int64)
    elif dtype == "F32":
        cvals = np.moveaxis(cw, 0, -1).view(np.float32).astype(F64)
    else:
        cvals = _elements(cw, cfrag, "F16")
    C = _matrix(cvals, cfrag, A.shape[1], B.shape[2])
    D = np.einsum("wik,wkj->wij", A, B) + C
    dv = D[:, cfrag.rows, cfrag.cols]  # [W, 32, n]
    if dtype == "S32":
        if sat:
            dv = np.clip(dv, -(2**31), 2**31 - 1)
        words = (dv & 0xFFFFFFFF).astype(U32)
    elif dtype == "F32":
        words = fp.canon32(dv.astype(np.float32))
    else:
        h = fp.f64_to_f16_bits(dv).astype(U32)  # [W, 32, 4]
        words = h[..., 0::2] | (h[..., 1::2] << U32(16))
    if not d_op.is_zero:
        row = reg_row(d_op)
        nreg = words.shape[-1]
        m.R[row : row + nreg][:, lanes] = np.moveaxis(words, -1, 0).reshape(nreg, -1)


def _sparse_shape(op: str, name: str, atype: str) -> tuple[Shape, int] | None:
    """``HMMA.SP``/``IMMA.SP``: (the shape with A's fragment over the compressed M x K/2
    matrix, the elements of a metadata chunk: 4 for 2:4, 2 for tf32's 1:2)."""
    if op == "HMMA" and atype in ("F16", "BF16") and name in ("16816", "16832"):
        k = int(name[3:])
        dense_a = _shape("1688" if k == 16 else "16816", atype)
        assert dense_a is not None
        b = _frag(k // 4, 16, lambda e, g, q: (2 * q + (e & 1) + 8 * (e >> 1), g))
        return Shape(16, 8, k, dense_a.a, b), 4
    if op == "HMMA" and atype == "TF32" and name in ("1688", "16816"):
        k = int(name[3:])
        dense_a = _shape("1684" if k == 8 else "1688", "TF32")
        assert dense_a is not None
        b = _frag(k // 4, 32, lambda e, g, q: (q + 4 * e, g))
        return Shape(16, 8, k, dense_a.a, b), 2
    if op == "IMMA" and atype in ("S8", "U8") and name in ("16832", "16864"):
        k = int(name[3:])
        dense_a = _shape("16816" if k == 32 else "16832", atype)
        assert dense_a is not None
        b = _frag(k // 4, 8, lambda e, g, q: (4 * q + (e & 3) + 16 * (e >> 2), g))
        return Shape(16, 8, k, dense_a.a, b), 4
    return None


def sparse_selector_ok(k: int, chunk: int, fsel: int) -> bool:
    """Whether selector ``fsel`` names threads of a group of 4 for a K of ``k``."""
    nch = k // chunk
    per = max(1, nch // 4)
    return 0 <= fsel * per + (nch - 1) // 4 < 4


def sparse_expand(Ac: NDArray, meta: NDArray, chunk: int, fsel: int) -> NDArray:
    """A warp's structured-sparse A (mma.sp, wgmma.sp; the PTX ISA's sparse matrix storage):
    ``Ac`` [W, 16, K/2] (the kept elements in order) and the metadata words of the warp's lanes
    ``meta`` [W, 32] -> A [W, 16, K]. A row has K / chunk chunks (chunk 4, 2 kept, 2-bit
    indices, the first in the low bits; tf32: chunk 2, 1 kept, index 0b0100 or 0b1110); in each
    group of 4 threads, thread ``f n + c // 4`` (n = chunks per row / 4, at least 1) holds
    chunk ``c`` of row ``g`` in bits ``4 (c % 4)`` and of row ``g + 8`` 16 bits higher. Two
    indices naming one element (undefined in the PTX ISA): the second kept."""
    W, rows, kc = Ac.shape
    k = 2 * kc
    nch = k // chunk
    per = max(1, nch // 4)
    rr, cc = np.meshgrid(np.arange(rows), np.arange(nch), indexing="ij")
    lane = 4 * (rr & 7) + fsel * per + cc // 4
    shift = (16 * (rr >> 3) + 4 * (cc % 4)).astype(U32)
    nib = (meta[:, lane] >> shift) & U32(0xF)  # [W, 16, nch]
    jj = np.arange(kc)
    if chunk == 4:
        idx = (nib[:, :, jj // 2] >> U32(2) * (jj % 2).astype(U32)) & U32(3)
        col = 4 * (jj // 2) + idx.astype(np.int64)  # [W, 16, kc]
    else:
        col = 2 * jj + ((nib[:, :, jj] & U32(3)) >> U32(1)).astype(np.int64)
    A = np.zeros((W, rows, k), dtype=Ac.dtype)
    A[np.arange(W)[:, None, None], np.arange(rows)[None, :, None], col] = Ac
    return A


def _bind_mma_sp(ctx: Ctx) -> Bound:
    """``HMMA.SP.<shape>.<F16|F32>[.BF16|.TF32]`` and ``IMMA.SP.<shape>.<A>.<B>[.SAT]`` ``d, a, b,
    c, e, f`` (mma.sp): A holds the non-zero half of a structured-sparse M x K matrix (the
    fragment of the dense shape with K/2), placed by the metadata ``e`` of the threads the
    selector ``f`` names (``sparse_expand``)."""
    ins = ctx.ins
    mods = ins.mods
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    imms = [o for o in ctx.ops if isinstance(o, Imm)]
    if len(regs) != 5 or len(imms) != 1 or len(mods) < 3:
        raise ctx.unsupported()
    d_op, a_op, b_op, c_op, e_op = regs
    op = ins.opcode
    name = mods[1]
    if op == "HMMA":
        dtype = "F32" if mods[2] == "F32" else "F16"
        atype = next((t for t in mods[3:] if t in ("BF16", "TF32")), "F16")
        btype = atype
    else:
        dtype = "S32"
        types = [t for t in mods[2:] if t in ("S8", "U8")]
        if len(types) != 2:
            raise ctx.unsupported()
        atype, btype = types
    found = _sparse_shape(op, name, atype)
    if found is None:
        raise ctx.unsupported(f"{op}.SP.{name} on {atype}")
    shape, chunk = found
    fsel = imms[0].value
    if not sparse_selector_ok(shape.k, chunk, fsel):
        raise ctx.unsupported(f"{ins.mnemonic}: sparsity selector {fsel}")
    cfrag = _c_f16_16x8() if dtype == "F16" else _c_f32_16x8()
    sat = "SAT" in mods
    for r, n in ((a_op, shape.a.regs), (b_op, shape.b.regs), (c_op, cfrag.regs), (e_op, 1)):
        ctx.read(reg_row(r), n)
    ctx.write(reg_row(d_op), cfrag.regs)
    m = ctx.m
    L = m.L
    kc = shape.k // 2  # compressed columns

    def mma(sel: Sel) -> None:
        lanes = m.index(warp_lanes(sel, L))
        Ac = _matrix(
            _elements(_regs(m, a_op, shape.a.regs, lanes), shape.a, atype), shape.a, 16, kc
        )
        B = _matrix(
            _elements(_regs(m, b_op, shape.b.regs, lanes), shape.b, btype),
            shape.b,
            shape.k,
            shape.n,
        )
        A = sparse_expand(Ac, _regs(m, e_op, 1, lanes)[0], chunk, fsel)
        _accumulate(m, lanes, A, B, c_op, d_op, cfrag, dtype, sat)

    return Bound(mma)


# BMMA (mma.sync .b1 .and.popc): fragments in units of 32-bit words, each holding 32
# consecutive K bits (the PTX ISA's .b1 layouts: A element (row, 32 w + i) is bit i of the
# word at word column w; B likewise along K). Per shape: (m, n, k, A, B, C).
def _bmma_shape(name: str) -> tuple[int, int, int, Frag, Frag, Frag] | None:
    if name == "88128":  # m8n8k128: a0 (g, q), b0 (q, g), c_i (g, 2q + i)
        a = _frag(1, 32, lambda e, g, q: (g + 0 * e, q))
        b = _frag(1, 32, lambda e, g, q: (q + 0 * e, g))
        return 8, 8, 128, a, b, _frag(2, 32, lambda e, g, q: (g + 0 * e, 2 * q + e))
    if name == "168128":  # m16n8k128: a_i (g + 8 i, q), b0 (q, g)
        a = _frag(2, 32, lambda e, g, q: (g + 8 * e, q))
        b = _frag(1, 32, lambda e, g, q: (q + 0 * e, g))
        return 16, 8, 128, a, b, _c_f32_16x8()
    if name == "168256":  # m16n8k256: a_i (g + 8 (i % 2), q + 4 (i // 2)), b_i (q + 4 i, g)
        a = _frag(4, 32, lambda e, g, q: (g + 8 * (e & 1), q + 4 * (e >> 1)))
        b = _frag(2, 32, lambda e, g, q: (q + 4 * e, g))
        return 16, 8, 256, a, b, _c_f32_16x8()
    return None


def _words(m: Any, op: Reg, frag: Frag, lanes: NDArray, rows: int, cols: int) -> NDArray:
    """A fragment's registers as the word matrix [W, rows, cols] (uint32)."""
    w = np.moveaxis(_regs(m, op, frag.regs, lanes), 0, -1)  # [W, 32, regs]
    return _matrix(np.ascontiguousarray(w), frag, rows, cols)


def bind_bmma(ctx: Ctx) -> Bound:
    """``BMMA.<shape>.AND.POPC Rd, Ra.ROW, Rb.COL, Rc`` (mma.sync .b1 .and.popc; sm_90's ptxas
    builds .xor.popc from two of them, sm_75-sm_89 have ``.XOR.POPC``): ``D[m][n] = C[m][n] +
    sum_k popc(A[m][k] & B[k][n])`` (``^`` with .XOR) over 32-bit words of K bits, exact (int64,
    wrapped to 32 bits)."""
    mods = ctx.ins.mods
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    shape = _bmma_shape(mods[0]) if mods else None
    # (.XOR.POPC: sm_75-sm_89 have it, sm_90 builds it from two .AND)
    if len(regs) != 4 or shape is None or set(mods[1:]) not in ({"AND", "POPC"}, {"XOR", "POPC"}):
        raise ctx.unsupported()
    xor = "XOR" in mods
    d_op, a_op, b_op, c_op = regs
    rows, cols, k, afrag, bfrag, cfrag = shape
    kw = k // 32
    for r, n in ((a_op, afrag.regs), (b_op, bfrag.regs), (c_op, cfrag.regs)):
        ctx.read(reg_row(r), n)
    ctx.write(reg_row(d_op), cfrag.regs)
    m = ctx.m
    L = m.L

    def bmma(sel: Sel) -> None:
        lanes = m.index(warp_lanes(sel, L))
        A = _words(m, a_op, afrag, lanes, rows, kw)  # [W, M, KW]
        B = _words(m, b_op, bfrag, lanes, kw, cols)  # [W, KW, N]
        C = _words(m, c_op, cfrag, lanes, rows, cols).view(np.int32).astype(np.int64)
        a4, b4 = A[:, :, :, None], B[:, None, :, :]
        both = a4 ^ b4 if xor else a4 & b4  # [W, M, KW, N]
        D = np.bitwise_count(both).astype(np.int64).sum(axis=2) + C
        words = (D[:, cfrag.rows, cfrag.cols] & 0xFFFFFFFF).astype(U32)  # [W, 32, n]
        if not d_op.is_zero:
            row = reg_row(d_op)
            m.R[row : row + cfrag.regs][:, lanes] = np.moveaxis(words, -1, 0).reshape(
                cfrag.regs, -1
            )

    return Bound(bmma)


def bind_movm(ctx: Ctx) -> Bound:
    """MOVM.16.MT88 Rd, Ra (movmatrix): transpose the warp's 8x8 b16 matrix (lane t holds row
    t >> 2, columns 2(t & 3) and 2(t & 3) + 1)."""
    if "U4TO8" in ctx.ins.mods and "M832" in ctx.ins.mods:
        return _bind_movm_u4to8(ctx)
    if "MT88" not in ctx.ins.mods:
        raise ctx.unsupported()
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    d_op, a_op = regs[0], regs[1]
    ctx.read(reg_row(a_op))
    ctx.write(reg_row(d_op))
    m = ctx.m
    L = m.L

    def fn(sel: Sel) -> None:
        lanes = m.index(warp_lanes(sel, L))
        w = _regs(m, a_op, 1, lanes)[0]  # [W, 32]
        Wn = w.shape[0]
        mat = np.zeros((Wn, 8, 8), dtype=U32)
        mat[:, _G, 2 * _Q] = w & U32(0xFFFF)
        mat[:, _G, 2 * _Q + 1] = w >> U32(16)
        t = np.swapaxes(mat, 1, 2)
        out = t[:, _G, 2 * _Q] | (t[:, _G, 2 * _Q + 1] << U32(16))
        if not d_op.is_zero:
            m.R[reg_row(d_op)][lanes] = out.reshape(-1)

    return Bound(fn)


def _bind_movm_u4to8(ctx: Ctx) -> Bound:
    """MOVM.U4TO8.M832 Rd, Ra (Blackwell; ptxas's code for a b1 mma.sync.m16n8k256 runs it as
    u8 IMMA.16832 on 0/1 values): the warp's 8x32 u4 matrix in the layout of an m16n8k64 u4
    fragment register (lane 4r + t holds row r, columns 8t..8t+7, nibble i column 8t + i)
    widened to u8 in the layout of an m16n8k32 u8 fragment pair: Rd holds row r, columns
    4t..4t+3 and Rd+1 columns 16 + 4t..16 + 4t + 3, a byte each. Inferred from that code (the
    IMMA takes (Rd of a0, Rd of a1, Rd+1 of a0, Rd+1 of a1) as its A fragment). Its results
    equal the reference (t3/mma_shapes m16n8k256_b1), which checks the rows (a row moved to
    another gives 121 of 128 wrong words) but not the order of the columns within a row: A and
    B go through the same MOVM, and a permutation of k common to both leaves the sums alone."""
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    d_op, a_op = regs[0], regs[1]
    ctx.read(reg_row(a_op))
    wr = None if d_op.is_zero else ctx.dstn(d_op, 2)
    m = ctx.m
    L = m.L
    nib = np.arange(8, dtype=U32) * U32(4)
    byte = np.arange(4, dtype=U32) * U32(8)

    def fn(sel: Sel) -> None:
        wl = warp_lanes(sel, L)
        w = _regs(m, a_op, 1, m.index(wl))[0]  # [W, 32]
        # [W, row r, lane-in-row t, nibble i] -> the [W, 8, 32] matrix of u4
        mat = ((w[:, :, None] >> nib) & U32(0xF)).reshape(-1, 8, 32)
        out = np.zeros((2, w.shape[0], 32), dtype=U32)
        for half in range(2):
            cols = 16 * half + 4 * _Q[:, None] + np.arange(4)  # [32 lanes, 4 bytes]
            vals = mat[:, _G[:, None], cols]  # [W, 32, 4]
            out[half] = (vals << byte).sum(axis=2, dtype=U32)
        if wr is not None:
            wr(wl, out.reshape(2, -1))

    return Bound(fn)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "HMMA": bind_mma,
    "IMMA": bind_mma,
    "DMMA": bind_mma,
    "QMMA": bind_mma,
    "BMMA": bind_bmma,
    "MOVM": bind_movm,
}
