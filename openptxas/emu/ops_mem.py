"""Memory instructions: loads and stores to global, shared, local and generic addresses, constant
loads, atomics and reductions, asynchronous copies (executed at once) and ``ldmatrix``.

Accesses are checked (:mod:`openptxas.emu.memory`). Atomics of several lanes on one address are
applied in lane order (lowest lane first), each seeing the previous one's result, which is one of
the orders the hardware may pick.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from openptxas.emu import fp
from openptxas.emu.bind import U32, U64, Bound, Ctx, Kind, Reader, reg_row
from openptxas.emu.lanes import Sel
from openptxas.emu.memory import LinearView, MemoryFault
from openptxas.emu.model import CBank, Imm, Mem, Reg

NDArray = np.ndarray[Any, Any]
I64 = np.int64

_SPACE = {
    "LDG": "global",
    "STG": "global",
    "LD": "generic",
    "ST": "generic",
    "LDS": "shared",
    "STS": "shared",
    "LDL": "local",
    "STL": "local",
    "ATOMG": "global",
    "ATOM": "generic",
    "ATOMS": "shared",
    "RED": "generic",
    "REDG": "global",
}


def access_width(mods: tuple[str, ...]) -> tuple[int, bool]:
    """(bytes, sign-extend) from the size modifiers (default 32 bits)."""
    for m in mods:
        if m == "U8":
            return 1, False
        if m == "S8":
            return 1, True
        if m == "U16":
            return 2, False
        if m == "S16":
            return 2, True
        if m == "64":
            return 8, False
        if m == "128":
            return 16, False
    return 4, False


_SCALE = {"X4": 4, "X8": 8, "X16": 16}


def addr_reader(ctx: Ctx, mem: Mem, wide: bool) -> Callable[[Sel], NDArray]:
    """Per-lane addresses (int64) of a memory operand. ``wide``: 64-bit register bases (global
    and generic addresses); otherwise 32-bit (shared, local)."""
    parts: list[tuple[Reader, int]] = []  # (reader, scale)
    ctx.role = "addr"
    base = mem.base
    # a 32-bit base register: .U32 (zero-extended beside a 64-bit uniform base), .X4/.X8/.X16
    # (scaled; sm_75-sm_89 shared and local addresses)
    narrow = base is not None and (base.sel == "U32" or base.sel in _SCALE)
    if base is not None and not base.is_zero:
        if (wide or base.sel == "64") and not narrow:
            parts.append((ctx.src64(Reg(base.file, base.index)), 1))
        else:
            parts.append((ctx.src(Reg(base.file, base.index)), _SCALE.get(base.sel, 1)))
    ub = mem.ubase
    if ub is not None and not ub.is_zero:
        if wide:  # (a 64-bit pointer: [UR4], [R2.64+UR4], [R2.U32+UR4])
            parts.append((ctx.src64(Reg(ub.file, ub.index)), 1))
        else:
            parts.append((ctx.src(Reg(ub.file, ub.index)), 1))
    off = I64(mem.offset)
    m = ctx.m
    ctx.role = "data"

    def rd(sel: Sel) -> NDArray:
        n = m.L if isinstance(sel, slice) else sel.size
        a = np.full(n, off, dtype=I64)
        for p, k in parts:
            v = np.asarray(p(sel))
            v = v.astype(U64).view(I64) if v.dtype == U64 else v.astype(I64)
            a += v * k if k != 1 else v
        return a

    return rd


def bind_load(ctx: Ctx) -> Bound:
    ins = ctx.ins
    space = _SPACE[ins.opcode]
    width, signed = access_width(ins.mods)
    dst = next((o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred), None)
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    if mem is None or dst is None:
        raise ctx.unsupported("load without an address")
    wide = space in ("global", "generic")
    ad = addr_reader(ctx, mem, wide)
    nregs = max(1, width // 4)
    wr = ctx.dstn(dst, nregs)
    m = ctx.m

    def fn(sel: Sel) -> None:
        a = ad(sel)
        idx = m.index(sel)
        words = m.load(space, a, idx, width, signed)
        wr(sel, words)

    return Bound(fn)


def bind_store(ctx: Ctx) -> Bound:
    ins = ctx.ins
    space = _SPACE[ins.opcode]
    width, _ = access_width(ins.mods)
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    data = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    if mem is None or not data:
        raise ctx.unsupported()
    wide = space in ("global", "generic")
    ad = addr_reader(ctx, mem, wide)
    nregs = max(1, width // 4)
    src = ctx.srcn(data[0], nregs) if isinstance(data[0], Reg) else None
    if src is None:
        raise ctx.unsupported("store of a non-register")
    m = ctx.m

    def fn(sel: Sel) -> None:
        a = ad(sel)
        idx = m.index(sel)
        m.store(space, a, idx, width, src(sel))

    return Bound(fn)


def bind_ldc(ctx: Ctx) -> Bound:
    ins = ctx.ins
    dst = next((o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred), ctx.ops[0])
    cb = next((o for o in ctx.ops if isinstance(o, CBank)), None)
    if cb is None:
        raise ctx.unsupported()
    width, signed = access_width(ins.mods)
    # ULDC (sm_75-sm_90) and LDCU (Blackwell's, up to 128 bits) load uniform registers
    kind = Kind.SIMPLE if ins.opcode == "LDC" else Kind.UNIFORM
    m = ctx.m
    if width == 16:
        words = [ctx.const(replace(cb, offset=cb.offset + 4 * k), 4) for k in range(4)]
        wrn = ctx.dstn(dst, 4)

        def ld128(sel: Sel) -> None:
            n = m.L if isinstance(sel, slice) else sel.size
            wrn(sel, np.stack([np.broadcast_to(np.asarray(w(sel), dtype=U32), n) for w in words]))

        return Bound(ld128, kind)
    if width in (4, 8):
        rd = ctx.const(cb, width)
        if width == 8:
            wr64 = ctx.dst64(dst)
            return Bound(lambda sel: wr64(sel, rd(sel)), kind)
        wr = ctx.dst(dst)
        return Bound(lambda sel: wr(sel, rd(sel)), kind)
    bank = m.cbank(cb.bank)
    wr = ctx.dst(dst)
    reg_r = ctx.src(cb.reg) if cb.reg is not None and not cb.reg.is_zero else None
    off = cb.offset if reg_r is not None else cb.offset & 0xFFFF  # as Binder.const

    def sub(sel: Sel) -> None:
        n = m.L if isinstance(sel, slice) else sel.size
        a = np.full(n, off, dtype=I64)
        if reg_r is not None:
            a = (a + np.asarray(reg_r(sel), dtype=U32).astype(I64)) & 0xFFFFFFFF  # (as Ctx.const)
        if a.size and (a.min() < 0 or a.max() + width > bank.size):
            raise ctx.fault("constant bank read out of bounds")
        if width == 1:
            v = bank.view(np.int8 if signed else np.uint8)[a]
        else:
            if np.any(a & 1):
                raise ctx.fault("misaligned constant bank read")
            v = bank.view(np.int16 if signed else np.uint16)[a >> 1]
        wr(sel, v.astype(np.int32).view(U32) if signed else v.astype(U32))

    return Bound(sub, kind)


# -- atomics -----------------------------------------------------------------------------------

# CAST (ATOMS.CAST.SPIN): compare-and-store that returns 1 when it stored, 0 when memory held
# another value (ptxas's shared-memory CAS loops for float add and 64-bit add).
_ATOM_OPS = (
    "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "CAS", "CAST", "SAFEADD",
)  # fmt: skip


def _atom_type(mods: tuple[str, ...]) -> str:
    for t in ("F16x2", "BF16x2", "F32", "F64", "S32", "U64", "S64", "64"):
        if t in mods:
            return "U64" if t == "64" else t
    return "U32"


def atom_apply(op: str, typ: str, old: NDArray, v: NDArray, v2: NDArray | None) -> NDArray:
    """The new memory value of ``op`` on ``old`` with operand ``v`` (arrays of the same dtype:
    uint32 or uint64 bit patterns)."""
    if op in ("ADD", "SAFEADD"):
        if typ == "F32":
            return fp.f32_add_bits(old, v, ftz=False)
        if typ == "F64":
            return fp.f64_add_bits(old, v)
        if typ == "F16x2":
            return fp.h2_op_bits("add", old, v, "f16")
        if typ == "BF16x2":
            return fp.h2_op_bits("add", old, v, "bf16")
        return old + v
    if op in ("MIN", "MAX"):
        if typ in ("S32", "S64"):
            sv = np.dtype(np.int32 if typ == "S32" else np.int64)
            a, b = old.view(sv), v.view(sv)
            r = np.minimum(a, b) if op == "MIN" else np.maximum(a, b)
            return r.view(old.dtype)
        if typ == "F32":
            return fp.f32_minmax_bits(old, v, op == "MIN")
        return np.minimum(old, v) if op == "MIN" else np.maximum(old, v)
    if op == "INC":
        return np.where(old >= v, np.zeros_like(old), old + old.dtype.type(1))
    if op == "DEC":
        one = old.dtype.type(1)
        return np.where((old == 0) | (old > v), v, old - one)
    if op == "AND":
        return old & v
    if op == "OR":
        return old | v
    if op == "XOR":
        return old ^ v
    if op == "EXCH":
        return v
    if op in ("CAS", "CAST"):
        assert v2 is not None
        return np.where(old == v, v2, old)
    raise ValueError(op)


def _bind_atoms_arrive(ctx: Ctx) -> Bound:
    """``ATOMS.ARRIVE.64 Rd, [a]`` (mbarrier.arrive on sm_75-sm_89): one arrival per lane in
    lane order, ``Rd`` the barrier's old 64-bit word (ops_async.arrive_sm80)."""
    from openptxas.emu.ops_async import arrive_sm80

    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    dst = next((o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred), None)
    if mem is None or "64" not in ctx.ins.mods or ctx.m.module.sm >= 90:
        raise ctx.unsupported()
    ad = addr_reader(ctx, mem, False)
    wr = ctx.dst64(dst) if dst is not None and not dst.is_zero else None
    m = ctx.m

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        a = ad(sel)
        old = np.zeros(idx.size, dtype=U64)
        for k, lane in enumerate(idx.tolist()):
            old[k] = arrive_sm80(m, int(a[k]), lane)
        if wr is not None:
            wr(sel, old)

    return Bound(fn)


def bind_atom(ctx: Ctx) -> Bound:
    ins = ctx.ins
    mods = ins.mods
    if ins.opcode == "ATOMS" and "ARRIVE" in mods:
        return _bind_atoms_arrive(ctx)
    space = _SPACE[ins.opcode]
    op = next((x for x in mods if x in _ATOM_OPS), "ADD")
    typ = _atom_type(mods)
    wide = typ in ("U64", "S64", "F64")
    popc = "POPC" in mods and op == "INC"
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    if mem is None:
        raise ctx.unsupported()
    before = [o for o in ctx.ops[: ctx.ops.index(mem)] if isinstance(o, Reg) and not o.is_pred]
    after = [o for o in ctx.ops[ctx.ops.index(mem) + 1 :]]
    is_red = ins.opcode in ("RED", "REDG")
    dst = None if is_red or not before else before[0]
    wr: Callable[[Sel, Any], None] | None = None
    if dst is not None and not dst.is_zero:
        wr = ctx.dst64(dst) if wide else ctx.dst(dst)
    srcs: list[Reader] = []
    for o in after:
        if isinstance(o, Imm) or (isinstance(o, Reg) and not o.is_pred):
            srcs.append(ctx.src64(o) if wide else ctx.src(o))
    if popc:
        srcs = []
    elif not srcs and op not in ("INC", "DEC"):
        raise ctx.unsupported("atomic without an operand")
    ad = addr_reader(ctx, mem, space in ("global", "generic"))
    m = ctx.m
    width = 8 if wide else 4
    dt = U64 if wide else U32
    # ATOM.E.ADD of floats and packed halves through a generic address acts on global memory
    # only: its predicate result says whether it did; ptxas's code then tries shared memory
    # (QSPC.E.S, a spin loop) and local memory itself (lower/mem_rules.py _atom_generic_half)
    pdst = next(
        (o for o in ctx.ops[: ctx.ops.index(mem)] if isinstance(o, Reg) and o.is_pred), None
    )
    global_only = ins.opcode == "ATOM" and typ in ("F16x2", "BF16x2", "F32")
    pwr = ctx.pdst(pdst) if global_only and pdst is not None and not pdst.is_zero else None
    # Blackwell's ATOMS.CAST.SPIN P1, [R2], R4, R5 says whether it stored in a predicate
    pcast = None
    if op == "CAST" and dst is None and pdst is not None and not pdst.is_zero:
        pcast = ctx.pdst(pdst)

    apply_op = "ADD" if popc else op
    # Integer additions commute: all lanes at once, each lane's old value the memory value plus
    # the additions of the lanes before it (lane order: the serialisation the emulator uses).
    int_add = apply_op == "ADD" and typ in ("U32", "S32", "U64", "S64")

    def fn(sel: Sel) -> None:
        a = ad(sel)
        idx = m.index(sel)
        n = idx.size
        vals = [np.broadcast_to(np.asarray(s(sel), dtype=dt), (n,)) for s in srcs]
        done = np.ones(n, dtype=bool)
        if global_only:
            sh, lo = m._split_generic(a)
            done = ~(sh | lo)
            if pwr is not None:
                pwr(sel, done)
            if not done.all():  # the other lanes keep their memory (and get 0)
                a, idx, vals = a[done], idx[done], [x[done] for x in vals]
                n = idx.size
        # ATOMS.POPC.INC (no operand): the warp's lanes that address one word add their count
        # to it, i.e. +1 per lane (ptxas only emits it with RZ as the destination).
        v = vals[0] if vals else np.ones(n, dtype=dt)
        v2 = vals[1] if len(vals) > 1 else None
        old_all = np.zeros(n, dtype=dt)
        for view, off, pos in _resolve(m, space, a, idx, width):
            # lanes by address, lane order kept within an address
            order = np.argsort(off, kind="stable")
            so, sp = off[order], pos[order]
            start = np.ones(so.size, dtype=bool)
            start[1:] = so[1:] != so[:-1]
            seg = np.cumsum(start) - 1
            heads = np.flatnonzero(start)
            mem0 = _view_load(view, so[heads], width).astype(dt)
            if int_add:
                vv: NDArray = np.asarray(v[sp], dtype=dt)
                cs: NDArray = np.cumsum(vv, dtype=dt)
                before = cs - vv  # the sum of the lanes before each lane
                base = before[heads]
                ends = np.append(heads[1:], so.size) - 1
                old_all[sp] = mem0[seg] + (before - base[seg])
                _view_store(view, so[heads], width, mem0 + (cs[ends] - base))
                continue
            # the r-th lane of every address together, r = 0, 1, ...
            rank = np.arange(so.size) - heads[seg]
            by_rank = np.argsort(rank, kind="stable")
            bounds = np.searchsorted(rank[by_rank], np.arange(int(rank.max()) + 2))
            cur = mem0.copy()
            for r in range(bounds.size - 1):
                k = by_rank[bounds[r] : bounds[r + 1]]
                lanes, segs = sp[k], seg[k]
                old = cur[segs]
                new = atom_apply(
                    apply_op, typ, old, v[lanes], v2[lanes] if v2 is not None else None
                )
                cur[segs] = new.astype(dt)
                old_all[lanes] = (old == v[lanes]).astype(dt) if op == "CAST" else old
            _view_store(view, so[heads], width, cur)
        if wr is not None:
            if not done.all():
                full = np.zeros(done.size, dtype=dt)
                full[done] = old_all
                old_all = full
            wr(sel, old_all)
        if pcast is not None:
            pcast(sel, old_all != 0)

    return Bound(fn)


def _resolve(
    m: Any, space: str, a: NDArray, idx: NDArray, width: int
) -> list[tuple[LinearView, NDArray, NDArray]]:
    """(memory view, checked byte offsets, positions in the selection) per memory space the
    per-lane addresses ``a`` fall in."""
    pos = np.arange(a.size)
    if space == "global":
        return [(m.gview, m.mem.offsets(a, width), pos)]
    if space == "shared":
        off = m.shared.offsets(a, width, m.cluster_base[idx], m.cluster_size[idx])
        return [(m.shared.view, off, pos)]
    sh, lo = m._split_generic(a)
    if lo.any():
        raise MemoryFault("local", int(a[lo][0]), width, "atomic on local memory")
    out = []
    if sh.any():
        out += [
            (v, o, pos[sh][p])
            for v, o, p in _resolve(m, "shared", a[sh] & 0xFFFFFFFF, idx[sh], width)
        ]
    if (~sh).any():
        out += [(v, o, pos[~sh][p]) for v, o, p in _resolve(m, "global", a[~sh], idx[~sh], width)]
    return out


def _view_load(view: LinearView, off: NDArray, width: int) -> NDArray:
    w = view.load(off, width)
    if width == 8:
        return w[0].astype(U64) | (w[1].astype(U64) << U64(32))  # type: ignore[no-any-return]
    return w[0]  # type: ignore[no-any-return]


def _view_store(view: LinearView, off: NDArray, width: int, v: NDArray) -> None:
    if width == 8:
        v = np.asarray(v, dtype=U64)
        words = np.stack([(v & U64(0xFFFFFFFF)).astype(U32), (v >> U64(32)).astype(U32)])
    else:
        words = np.asarray(v, dtype=U32)[None, :]
    view.store(off, width, words)


# -- asynchronous copies (done at issue) -------------------------------------------------------


def bind_ldgsts(ctx: Ctx) -> Bound:
    """LDGSTS [shared], [global] (cp.async), copied at once.

    ``.ZFILL ..., P`` (cp.async with a source size): with P false the destination is zeroed;
    with P true the low bits of the source address (``addr & (width-1)``, ptxas adds
    ``width - size`` to the address) count the trailing bytes to zero, and the copy reads the
    ``size`` bytes from the aligned address.
    """
    ins = ctx.ins
    width, _ = access_width(ins.mods)
    mems = [o for o in ctx.ops if isinstance(o, Mem)]
    if len(mems) != 2:
        raise ctx.unsupported()
    dst_a = addr_reader(ctx, mems[0], False)
    src_a = addr_reader(ctx, mems[1], True)
    zfill = "ZFILL" in ins.mods
    preds = [o for o in ctx.ops if isinstance(o, Reg) and o.is_pred]
    zp = ctx.psrc(preds[0]) if zfill and preds else None
    m = ctx.m
    nw = max(1, width // 4)

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        da = dst_a(sel)
        sa = src_a(sel)
        n = idx.size
        if not zfill:
            m.store("shared", da, idx, width, m.load("global", sa, idx, width, False))
            return
        copy = np.ones(n, dtype=bool)
        if zp is not None:
            copy = np.broadcast_to(np.asarray(zp(sel), dtype=bool), (n,)).copy()
        k = sa & (width - 1)
        base = sa - k
        size = np.where(copy, width - k, 0)
        data = np.zeros((width, n), dtype=np.uint8)
        for j in range(width):
            take = size > j
            if take.any():
                data[j, take] = m.load("global", base[take] + j, idx[take], 1, False)[0]
        words = data.reshape(nw, 4, n).astype(U32)
        packed = words[:, 0] | (words[:, 1] << U32(8)) | (words[:, 2] << U32(16))
        packed |= words[:, 3] << U32(24)
        m.store("shared", da, idx, width, packed)

    return Bound(fn)


def bind_ldsm(ctx: Ctx) -> Bound:
    """LDSM.16.{M88,MT88}[.2|.4] Rd, [addr] (ldmatrix): lanes 8j..8j+7 give the row addresses of
    matrix j; lane t gets row t/4, 32-bit column t%4 of each matrix (transposed for MT88)."""
    ins = ctx.ins
    mods = ins.mods
    n = 4 if "4" in mods else 2 if "2" in mods else 1
    trans = "MT88" in mods
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    if mem is None or "16" not in mods:
        raise ctx.unsupported()
    ad = addr_reader(ctx, mem, False)
    wr = ctx.dstn(ctx.ops[0], n)
    m = ctx.m
    L = m.L

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        full = np.zeros(L, dtype=I64)
        full[idx] = ad(sel)
        out = np.zeros((n, idx.size), dtype=U32)
        lane = idx & 31
        wbase = idx - lane
        for j in range(n):
            if trans:
                # element (r, c) of the 8x8 b16 matrix comes from row c, column r
                r = lane // 4
                c0 = (lane % 4) * 2
                lo = _lds16(m, full[wbase + 8 * j + c0] + 2 * r, wbase + 8 * j + c0)
                hi = _lds16(m, full[wbase + 8 * j + c0 + 1] + 2 * r, wbase + 8 * j + c0 + 1)
                out[j] = lo | (hi << U32(16))
            else:
                row_lane = wbase + 8 * j + lane // 4
                a = full[row_lane] + 4 * (lane % 4)
                out[j] = m.load("shared", a, row_lane, 4, False)[0]
        wr(sel, out)

    return Bound(fn)


def bind_stsm(ctx: Ctx) -> Bound:
    """STSM.16.{M88,MT88}[.2|.4] [addr], Rs (stmatrix, the inverse of LDSM): lanes 8j..8j+7 give
    the row addresses of matrix j; lane t's register j holds row t/4, 32-bit column t%4 of
    matrix j (for MT88 its two b16 halves are elements (t/4, 2(t%4)) and (t/4, 2(t%4)+1) of the
    transposed matrix, stored at row 2(t%4) (+1), column t/4)."""
    ins = ctx.ins
    mods = ins.mods
    n = 4 if "4" in mods else 2 if "2" in mods else 1
    trans = "MT88" in mods
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    data = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    if mem is None or "16" not in mods or len(data) != 1:
        raise ctx.unsupported()
    ad = addr_reader(ctx, mem, False)
    row = reg_row(data[0])
    ctx.read(row, n)
    m = ctx.m
    R = m.R
    L = m.L

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        full = np.zeros(L, dtype=I64)
        full[idx] = ad(sel)
        lane = idx & 31
        wbase = idx - lane
        for j in range(n):
            v = R[row + j][idx]
            if trans:
                r = lane // 4
                c0 = (lane % 4) * 2
                for h in range(2):
                    src = wbase + 8 * j + c0 + h
                    a = full[src] + 2 * r
                    m.store("shared", a, src, 2, ((v >> U32(16 * h)) & U32(0xFFFF))[None, :])
            else:
                row_lane = wbase + 8 * j + lane // 4
                a = full[row_lane] + 4 * (lane % 4)
                m.store("shared", a, row_lane, 4, v[None, :])

    return Bound(fn)


def _lds16(m: Any, a: NDArray, lanes: NDArray) -> NDArray:
    return m.load("shared", a, lanes, 2, False)[0]  # type: ignore[no-any-return]


def bind_qspc(ctx: Ctx) -> Bound:
    """``QSPC.E.{G,L,S,D} Pd, RZ, [Ra]`` (isspacep): whether a generic address lies in the
    global space (G: no other window), the thread's local window (L), its own CTA's shared
    memory (S, shared::cta) or the cluster's shared memory (D, shared::cluster)."""
    from openptxas.emu.memory import LOCAL_WINDOW, PARAM_WINDOW, PARAM_WINDOW_SIZE, SHARED_WINDOW_HI

    mods = ctx.ins.mods
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    regs = [o for o in ctx.ops if isinstance(o, Reg)]
    preds = [o for o in regs if o.is_pred]
    data = [o for o in regs if not o.is_pred]
    space = next((x for x in mods if x in ("G", "L", "S", "D")), None)
    if mem is None or not preds or any(not r.is_zero for r in data) or space is None:
        raise ctx.unsupported()
    ad = addr_reader(ctx, mem, "E" in mods)
    pw = ctx.pdst(preds[0])
    m = ctx.m

    def fn(sel: Sel) -> None:
        a = ad(sel)
        hi = a >> 32
        sh = hi == SHARED_WINDOW_HI
        loc = (a >= LOCAL_WINDOW) & (a < LOCAL_WINDOW + m.local.size)
        par = (a >= PARAM_WINDOW) & (a < PARAM_WINDOW + PARAM_WINDOW_SIZE)
        if space == "G":
            r = ~(sh | loc | par)
        elif space == "L":
            r = loc
        elif space == "D":
            r = sh
        else:
            rank = (a & 0xFFFFFFFF) >> 24
            own = m.cluster_rank[m.index(sel)].astype(np.int64)
            r = sh & ((rank == 0) | (rank == own))
        pw(sel, r)

    return Bound(fn)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "QSPC": bind_qspc,
    "STSM": bind_stsm,
    "LDG": bind_load,
    "LD": bind_load,
    "LDS": bind_load,
    "LDL": bind_load,
    "STG": bind_store,
    "ST": bind_store,
    "STS": bind_store,
    "STL": bind_store,
    "LDC": bind_ldc,
    "ULDC": bind_ldc,
    "LDCU": bind_ldc,
    "ATOMG": bind_atom,
    "ATOM": bind_atom,
    "ATOMS": bind_atom,
    "RED": bind_atom,
    "REDG": bind_atom,
    "LDGSTS": bind_ldgsts,
    "LDSM": bind_ldsm,
}
_ = reg_row
