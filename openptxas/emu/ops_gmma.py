"""Warpgroup MMA (wgmma.mma_async): HGMMA (f16, bf16, tf32 inputs, f32 accumulator; f16 inputs
with an f16 accumulator), QGMMA (e4m3/e5m2 inputs, f32 or f16 accumulator) and IGMMA (s8/u8
inputs, s32 accumulator), with A and B from shared memory through matrix descriptors or A from
registers (f16/bf16).

``HGMMA.64xNxK.F32[.BF16|.TF32] Rd, {gdesc[URa] | [-]Ra, gdesc[URa]}, Rc|RZ, [!]UPp [, gsb0]``:
``gdesc[URa]`` names four uniform registers, the A descriptor in URa:URa+1 and the B descriptor in
URa+2:URa+3 (with A in registers only the B pair is used); ``.tnspA``/``.tnspB`` on it mark an
MN-major (transposed) operand; ``-Ra`` negates A (imm-scale-a = -1); the accumulator is added when
``Rc`` is not RZ and the predicate (scale-d) holds. ``gsb0`` marks the end of an asynchronous
group (``WARPGROUP.DEPBAR.LE gsb0, n`` waits for it; the emulator completes every wgmma at issue).

A warpgroup is 4 consecutive warps of a CTA; warp ``w`` of it owns rows 16w..16w+15 of D, so
each warp computes its 16 rows on its own. Accumulator fragment (f32/s32): lane ``4g + t`` holds
``d[4j + i] = D[16w + g + 8(i >> 1)][8j + 2t + (i & 1)]``. A from registers (f16/bf16, k16):
``a[r]`` holds ``A[16w + g + 8(r & 1)][2t + 8(r >> 1) + {0, 1}]``.

Matrix descriptors (64-bit): start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29),
stride byte offset >> 4 (32-45), swizzle (62-63: 0 none, 1 128B, 2 64B, 3 32B). Layouts in units
of 16-byte rows of 8 "core matrix" rows: K-major (A as M x K, B as N x K): element (r, k) at
``(r >> 3) SBO + (r & 7) W + kb`` plus ``(kb >> 4) LBO`` without swizzle (W = 16 bytes) or within
W-byte swizzled rows (W = 128/64/32, K bytes beyond W not supported); MN-major (the PTX ISA's
"swizzle atom" of 8 K rows of W bytes along M/N): ``(mn // E) LBO + (k >> 3) SBO + (k & 7) W +
(mn % E) size`` with E = W / size elements, LBO and SBO exchanged without swizzle (W = 16: then
``(mn >> 3) SBO + (k >> 3) LBO``). Swizzles XOR address bits 4-6 (128B; 4-5 for 64B, 4 for 32B)
with bits 7-9, as TMA writes them.

Numerics as for mma.sync (ops_mma): products exact, their sum with the accumulator in float64
(int64 for IGMMA, wrapped to 32 bits), rounded once (to f32, or to f16 for f16 accumulators,
which hold two elements per register: element 2k in the low half of register k); tf32 inputs
keep the top 19 bits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from openptxas.emu import fp
from openptxas.emu.bind import U32, Bound, Ctx, Reader, reg_row
from openptxas.emu.lanes import Sel, warp_lanes
from openptxas.emu.model import GDesc, Imm, Keyword, Reg
from openptxas.emu.ops_mma import sparse_expand, sparse_selector_ok

NDArray = np.ndarray[Any, Any]
F64 = np.float64
_SWIZZLE_BYTES = {0: 16, 1: 128, 2: 64, 3: 32}
_SWIZZLE_MASK = {0: 0, 1: 7, 2: 3, 3: 1}


def _addresses(desc: int, rows: NDArray, ks: NDArray, size: int, mn_major: bool) -> NDArray:
    """Shared-memory byte address of elements (rows[i], ks[i]) of an operand (rows: M or N)."""
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    mode = (desc >> 62) & 3
    kb = ks * size
    if mn_major:
        # a swizzle atom is 8 K values, each one W-byte row of W/size consecutive M/N elements
        # (W = 16 without swizzle); atoms repeat along K every SBO bytes (LBO without swizzle)
        # and along M/N every LBO bytes (SBO without swizzle)
        w = _SWIZZLE_BYTES[mode]
        per = w // size
        mn_step, k_step = (lbo, sbo) if mode else (sbo, lbo)
        a = start + (rows // per) * mn_step + (ks >> 3) * k_step + (ks & 7) * w
        a = a + (rows % per) * size
    elif mode == 0:
        a = start + (rows >> 3) * sbo + (rows & 7) * 16 + (kb >> 4) * lbo + (kb & 15)
    else:
        w = _SWIZZLE_BYTES[mode]
        if np.any(kb >= w):
            raise ValueError(f"K-major operand wider than its {w}-byte swizzle row")
        a = start + (rows >> 3) * sbo + (rows & 7) * w + kb
    m = _SWIZZLE_MASK[mode]
    return np.asarray(a ^ (((a >> 7) & m) << 4), dtype=np.int64)


_FP8 = ("E4M3", "E5M2")


def _decode_elems(bits: NDArray, typ: str) -> NDArray:
    if typ in _FP8:
        return fp.fp8_to_f64(bits, typ)
    if typ == "F16":
        return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(F64)
    if typ == "BF16":
        return fp.bf16_to_f32(np.asarray(bits, dtype=U32)).astype(F64)
    if typ == "TF32":
        return (np.asarray(bits, dtype=U32) & U32(0xFFFFE000)).view(np.float32).astype(F64)
    if typ == "S8":
        return np.asarray(bits, dtype=U32).astype(np.uint8).view(np.int8).astype(np.int64)
    return np.asarray(bits, dtype=U32).astype(np.int64)  # U8


def bind_gmma(ctx: Ctx) -> Bound:
    ins = ctx.ins
    integer = ins.opcode == "IGMMA"
    sparse = ins.mods[:1] == ("SP",)  # wgmma.mma_async.sp: K twice the dense one's
    mods = ins.mods[1:] if sparse else ins.mods
    try:
        m_, n_, k_ = (int(x) for x in mods[0].split("x"))
    except (ValueError, IndexError):
        raise ctx.unsupported() from None
    if sparse:
        k_ //= 2  # the columns A holds (the kept half); B has 2 k_
    rest = mods[1:]
    acc = "S32"
    sat = False
    if integer:
        sat = rest[-1:] == ("SAT",)
        rest = rest[:-1] if sat else rest
        if len(rest) != 2 or any(t not in ("S8", "U8") for t in rest):
            raise ctx.unsupported()
        atype, btype = rest
        size = 1
    elif ins.opcode == "QGMMA":
        # QGMMA.64xNx32.{F32,F16}.{E4M3,E5M2}.{E4M3,E5M2} (wgmma with 8-bit float inputs)
        if len(rest) != 3 or rest[0] not in ("F32", "F16") or any(t not in _FP8 for t in rest[1:]):
            raise ctx.unsupported()
        acc, atype, btype = rest
        size = 1
    else:
        if not rest or rest[0] not in ("F32", "F16") or len(rest) > 2:
            raise ctx.unsupported()
        acc = rest[0]
        atype = btype = rest[1] if len(rest) == 2 else "F16"
        if atype not in ("F16", "BF16", "TF32") or (acc == "F16" and atype != "F16"):
            raise ctx.unsupported()
        size = 4 if atype == "TF32" else 2
    half_acc = acc == "F16"
    if m_ != 64 or n_ % 8 or k_ * size != 32:
        raise ctx.unsupported()
    ops = [o for o in ctx.ops if not isinstance(o, Keyword)]
    d_op = ops[0]
    a_reg = ops[1] if isinstance(ops[1], Reg) else None
    g_op = ops[2] if a_reg is not None else ops[1]
    c_op = ops[3] if a_reg is not None else ops[2]
    p_at = 4 if a_reg is not None else 3
    tail = ops[p_at:]
    p_op: Reg | None = None
    head = tail[0] if tail else None
    if isinstance(head, Reg) and head.is_pred:
        p_op = head
        tail.pop(0)
    e_op: Reg | None = None
    fsel = 0
    chunk = 2 if size == 4 else 4  # sparse chunks: tf32 1 of 2 kept, else 2 of 4
    if sparse:  # the metadata register, then the selector (omitted when 0)
        top = tail.pop(0) if tail else None
        e_op = top if isinstance(top, Reg) and not top.is_pred else None
        top = tail[0] if tail else None
        if isinstance(top, Imm):
            fsel = top.value
            tail.pop(0)
        if e_op is None or not sparse_selector_ok(2 * k_, chunk, fsel):
            raise ctx.unsupported(f"{ins.mnemonic}: metadata or sparsity selector")
    if not (isinstance(d_op, Reg) and isinstance(g_op, GDesc) and isinstance(c_op, Reg)) or tail:
        raise ctx.unsupported()
    if a_reg is not None and (atype == "TF32" or a_reg.is_pred):
        raise ctx.unsupported("wgmma with A from registers (not tf32)")
    tnsp_a = "tnspA" in g_op.sel
    tnsp_b = "tnspB" in g_op.sel
    nelem = n_ // 2  # accumulator elements per thread
    ndreg = nelem // 2 if half_acc else nelem  # f16 accumulators: two per register
    m = ctx.m
    R = m.R
    d_row = reg_row(d_op)
    ctx.write(d_row, ndreg)
    g_row = reg_row(g_op.reg)
    ctx.read(g_row, 4, "addr")
    acc_row = None if c_op.is_zero else reg_row(c_op)
    if acc_row is not None:
        ctx.read(acc_row, ndreg)
    pred: Reader | None = ctx.psrc(p_op) if p_op is not None else None
    a_row = None
    if a_reg is not None:
        a_row = reg_row(a_reg)
        ctx.read(a_row, 4)
    e_row = None
    if e_op is not None:
        e_row = reg_row(e_op)
        ctx.read(e_row, 1)
    neg_a = (a_reg is not None and a_reg.neg) or "negA" in g_op.sel  # imm-scale-a = -1
    neg_b = "negB" in g_op.sel
    lpc = m.lanes_per_cta
    lane_t = np.arange(32)
    g_, t_ = lane_t >> 2, lane_t & 3
    # accumulator fragment: (lane, register) -> (row in the warp's 16, column)
    j, i = np.divmod(np.arange(nelem), 4)
    frag_r = g_[:, None] + 8 * (i[None, :] >> 1)
    frag_c = 8 * j[None, :] + 2 * t_[:, None] + (i[None, :] & 1)
    # A from registers: (lane, register, element) -> (row in the warp's 16, k); 16-bit types
    # two elements per register, 8-bit types four
    r4 = np.arange(4)
    per = 4 // size
    ra_r = np.broadcast_to(g_[:, None, None] + 8 * (r4[None, :, None] & 1), (32, 4, per))
    ra_k = (
        per * t_[:, None, None] + 4 * per * (r4[None, :, None] >> 1) + np.arange(per)[None, None, :]
    )

    kb = 2 * k_ if sparse else k_  # B's K

    def operand(
        desc: int, nrows: int, row0: int, lane: int, typ: str, mn_major: bool, kk: int
    ) -> NDArray:
        rows, ks = np.meshgrid(np.arange(nrows) + row0, np.arange(kk), indexing="ij")
        addr = _addresses(desc, rows.ravel(), ks.ravel(), size, mn_major)
        lanes = np.full(addr.size, lane, dtype=np.intp)
        bits = m.load("shared", addr, lanes, size, False)[0]
        return _decode_elems(bits, typ).reshape(nrows, kk)

    def fn(sel: Sel) -> None:
        lanes_all = m.index(warp_lanes(sel, m.L))
        for w0 in range(0, lanes_all.size, 32):
            lanes = lanes_all[w0 : w0 + 32]
            first = int(lanes[0])
            wq = ((first % lpc) >> 5) & 3  # the warp's place in its warpgroup
            gd = [int(R[g_row + q, first]) for q in range(4)]
            da, db = gd[0] | gd[1] << 32, gd[2] | gd[3] << 32
            try:
                bmat = operand(db, n_, 0, first, btype, tnsp_b, kb)  # [N, K]
                if a_row is None:
                    amat = operand(da, 16, 16 * wq, first, atype, tnsp_a, k_)  # [16, K]
                else:
                    regs = R[a_row : a_row + 4][:, lanes].T  # [32, 4]
                    width = 8 * size
                    parts = [(regs >> U32(width * p)) & U32((1 << width) - 1) for p in range(per)]
                    amat = np.zeros((16, k_), dtype=np.int64 if integer else F64)
                    amat[ra_r, ra_k] = _decode_elems(np.stack(parts, axis=-1), atype)
            except ValueError as exc:
                raise ctx.unsupported(f"{ins.mnemonic}: {exc}") from None
            if e_row is not None:
                meta = R[e_row][lanes][None, :]
                amat = sparse_expand(amat[None], meta, chunk, fsel)[0]  # [16, 2 K]
            if neg_a:
                amat = -amat
            if neg_b:
                bmat = -bmat
            prod = amat @ bmat.T  # [16, N]
            vals = prod[frag_r, frag_c]  # [32, ndreg]
            use_c = acc_row is not None
            if use_c and pred is not None:
                use_c = bool(np.all(np.asarray(pred(lanes[:1]))))
            if integer:
                out = vals.astype(np.int64)
                if use_c:
                    assert acc_row is not None
                    cur = R[acc_row : acc_row + ndreg][:, lanes].T
                    out = out + cur.view(np.int32).astype(np.int64)
                if sat:
                    out = np.clip(out, -(2**31), 2**31 - 1)
                res = (out & 0xFFFFFFFF).astype(U32)
            elif half_acc:
                # element 2k in the low half of register k, element 2k + 1 in the high half
                if use_c:
                    assert acc_row is not None
                    cur = R[acc_row : acc_row + ndreg][:, lanes].T
                    pairs = np.stack([cur & U32(0xFFFF), cur >> U32(16)], axis=-1)
                    vals = vals + fp.f16_to_f32(pairs.reshape(32, nelem)).astype(F64)
                h = fp.f64_to_f16_bits(vals).astype(U32).reshape(32, ndreg, 2)
                res = h[:, :, 0] | (h[:, :, 1] << U32(16))
            else:
                if use_c:
                    assert acc_row is not None
                    cur = R[acc_row : acc_row + ndreg][:, lanes].T
                    vals = vals + cur.view(np.float32).astype(F64)
                res = fp.canon32(vals.astype(np.float32))
            R[d_row : d_row + ndreg][:, lanes] = res.T

    return Bound(fn)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "HGMMA": bind_gmma,
    "QGMMA": bind_gmma,
    "IGMMA": bind_gmma,
}
