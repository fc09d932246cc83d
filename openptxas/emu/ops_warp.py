"""Warp-collective instructions: SHFL, VOTE/VOTEU, MATCH, REDUX, ELECT.

"Executing lanes" of a warp are the lanes of the instruction's selection in that warp (after the
guard); the engine runs every lane at one address together, so they are the lanes the hardware
would have active after ptxas's WARPSYNC/BSSY reconvergence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from openptxas.emu.bind import U32, U64, Bound, Ctx
from openptxas.emu.lanes import Sel, warp_lanes
from openptxas.emu.model import Imm, Reg, RegFile

NDArray = np.ndarray[Any, Any]


def segments(idx: NDArray) -> tuple[NDArray, NDArray]:
    """(start offsets, lane counts) of each warp's run in a sorted lane index array."""
    w = idx >> 5
    starts = np.flatnonzero(np.concatenate(([True], w[1:] != w[:-1])))
    counts = np.diff(np.append(starts, idx.size))
    return starts, counts


def ballot(idx: NDArray, p: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Per lane of ``idx``: (ballot of ``p`` over its warp's executing lanes, the warp's
    executing-lane mask, counts per segment)."""
    starts, counts = segments(idx)
    lane = (idx & 31).astype(U32)
    bits = np.where(p, U32(1) << lane, U32(0)).astype(U32)
    act = (U32(1) << lane).astype(U32)
    b = np.bitwise_or.reduceat(bits, starts)
    a = np.bitwise_or.reduceat(act, starts)
    return np.repeat(b, counts), np.repeat(a, counts), counts


def bind_shfl(ctx: Ctx) -> Bound:
    ops = ctx.ops
    mode = next((m for m in ctx.ins.mods if m in ("IDX", "UP", "DOWN", "BFLY")), None)
    regs = list(ops)
    if mode is None or len(regs) < 4:
        raise ctx.unsupported()
    pd: Reg | None = None
    if isinstance(regs[0], Reg) and regs[0].is_pred:
        pd = regs[0]
        regs = regs[1:]
    dst, a_op, b_op, c_op = regs[0], regs[1], regs[2], regs[3]
    wr = ctx.dst(dst)
    pw = ctx.pdst(pd) if pd is not None and not pd.is_zero else None
    a_row = ctx.m.R[_row(ctx, a_op)] if isinstance(a_op, Reg) and not a_op.is_zero else None
    if isinstance(a_op, Reg):
        ctx.read(_row(ctx, a_op))
    b_r = ctx.src(b_op)
    c_r = ctx.src(c_op)
    m = ctx.m
    pc = ctx.pc

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        lane = (idx & 31).astype(np.int64)
        b = np.broadcast_to(np.asarray(b_r(sel), dtype=U32), idx.shape).astype(np.int64) & 31
        c = np.broadcast_to(np.asarray(c_r(sel), dtype=U32), idx.shape).astype(np.int64)
        cval = c & 31
        seg = (c >> 8) & 31
        max_lane = (lane & seg) | (cval & ~seg)
        min_lane = lane & seg
        if mode == "IDX":
            j = min_lane | (b & ~seg)
            ok = j <= max_lane
        elif mode == "UP":
            j = lane - b
            ok = j >= max_lane
        elif mode == "DOWN":
            j = lane + b
            ok = j <= max_lane
        else:
            j = lane ^ b
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        src = idx - lane + j
        # idx is sorted, so a source lane is executing iff searchsorted finds it
        if pc not in m.undefined and idx.size:
            at = np.minimum(np.searchsorted(idx, src), idx.size - 1)
            miss = idx[at] != src
            if miss.any():
                k = int(np.flatnonzero(miss)[0])
                m.undefined[pc] = (
                    f"SHFL: lane {int(lane[k])} reads lane {int(j[k])}, which is not executing it"
                )
        val = a_row[src] if a_row is not None else np.zeros(idx.size, dtype=U32)
        wr(sel, val)
        if pw is not None:
            pw(sel, ok)

    return Bound(fn)


def _row(ctx: Ctx, op: Reg) -> int:
    from openptxas.emu.bind import reg_row

    return reg_row(op)


def bind_vote(ctx: Ctx) -> Bound:
    ops = ctx.ops
    mode = next((m for m in ctx.ins.mods if m in ("ALL", "ANY", "EQ")), None)
    if mode is None:
        raise ctx.unsupported()
    uniform = ctx.ins.opcode == "VOTEU"
    data = [o for o in ops if isinstance(o, Reg) and not o.is_pred]
    preds = [o for o in ops if isinstance(o, Reg) and o.is_pred]
    if not preds:
        raise ctx.unsupported()
    ps = ctx.psrc(preds[-1])
    pdst = preds[0] if len(preds) >= 2 else None
    wr = ctx.dst(data[0]) if data else None
    pw = ctx.pdst(pdst) if pdst is not None and not pdst.is_zero else None
    m = ctx.m
    L = m.L

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        p = np.broadcast_to(np.asarray(ps(sel), dtype=bool), idx.shape)
        b, act, _counts = ballot(idx, p)
        if mode == "ANY":
            res = b != 0
        elif mode == "ALL":
            res = b == act
        else:
            res = (b == act) | (b == 0)
        if uniform:
            wl = warp_lanes(sel, L)
            widx = m.index(wl)
            # one value per warp, from the warp's first executing lane
            first = np.concatenate(([True], (idx >> 5)[1:] != (idx >> 5)[:-1]))
            bw = np.repeat(b[first], 32)
            rw = np.repeat(res[first], 32)
            if wr is not None:
                wr(widx, bw)
            if pw is not None:
                pw(widx, rw)
            return
        if wr is not None:
            wr(sel, b)
        if pw is not None:
            pw(sel, res)

    return Bound(fn)


def bind_match(ctx: Ctx) -> Bound:
    mode = next((m for m in ctx.ins.mods if m in ("ANY", "ALL")), None)
    wide = "U64" in ctx.ins.mods
    ops = ctx.ops
    data = [o for o in ops if isinstance(o, Reg) and not o.is_pred]
    preds = [o for o in ops if isinstance(o, Reg) and o.is_pred]
    if mode is None or len(data) < 2:
        raise ctx.unsupported()
    wr = ctx.dst(data[0])
    src = ctx.src64(data[1]) if wide else ctx.src(data[1])
    pw = ctx.pdst(preds[0]) if preds and not preds[0].is_zero else None
    m = ctx.m

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        v = np.broadcast_to(np.asarray(src(sel), dtype=U64), idx.shape)
        w = idx >> 5
        lane = (idx & 31).astype(U32)
        starts, counts = segments(idx)
        out = np.zeros(idx.size, dtype=U32)
        allp = np.zeros(idx.size, dtype=bool)
        for s, n in zip(starts, counts, strict=True):
            vv = v[s : s + n]
            ll = lane[s : s + n]
            eq = vv[:, None] == vv[None, :]
            bits = (eq * (U32(1) << ll)[None, :].astype(np.uint64)).sum(axis=1).astype(U32)
            if mode == "ANY":
                out[s : s + n] = bits
            else:
                same = bool(eq.all())
                mask = np.bitwise_or.reduce((U32(1) << ll).astype(U32))
                out[s : s + n] = mask if same else 0
                allp[s : s + n] = same
        del w
        wr(sel, out)
        if pw is not None:
            pw(sel, allp)

    return Bound(fn)


def bind_redux(ctx: Ctx) -> Bound:
    mods = ctx.ins.mods
    op = next((x for x in mods if x in ("SUM", "MIN", "MAX", "AND", "OR", "XOR")), "AND")
    signed = "S32" in mods
    ops = ctx.ops
    dst, src_op = ops[0], ops[1]
    wr = ctx.dst(dst)
    src = ctx.src(src_op)
    m = ctx.m
    L = m.L
    uniform_dst = isinstance(dst, Reg) and dst.file is RegFile.UR

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        v = np.broadcast_to(np.asarray(src(sel), dtype=U32), idx.shape)
        starts, counts = segments(idx)
        if op == "SUM":
            r = np.add.reduceat(v.astype(U64), starts).astype(U32)
        elif op in ("MIN", "MAX"):
            vv = v.view(np.int32) if signed else v
            f = np.minimum if op == "MIN" else np.maximum
            r = f.reduceat(vv, starts).view(U32) if signed else f.reduceat(vv, starts)
        elif op == "AND":
            r = np.bitwise_and.reduceat(v, starts)
        elif op == "OR":
            r = np.bitwise_or.reduceat(v, starts)
        else:
            r = np.bitwise_xor.reduceat(v, starts)
        if uniform_dst:
            wl = warp_lanes(sel, L)
            wr(m.index(wl), np.repeat(np.asarray(r, dtype=U32), 32))
        else:
            wr(sel, np.repeat(np.asarray(r, dtype=U32), counts))

    return Bound(fn)


def bind_elect(ctx: Ctx) -> Bound:
    """ELECT Pd, URd, Pmember: Pd is true on the lowest executing lane of each warp (among those
    whose member predicate holds); URd gets that lane's number."""
    ops = ctx.ops
    preds = [o for o in ops if isinstance(o, Reg) and o.is_pred]
    data = [o for o in ops if isinstance(o, Reg) and not o.is_pred]
    pd = preds[0] if preds else None
    member = ctx.psrc(preds[1]) if len(preds) > 1 else (lambda sel: np.bool_(True))
    pw = ctx.pdst(pd) if pd is not None and not pd.is_zero else None
    wr = ctx.dst(data[0]) if data else None
    m = ctx.m
    L = m.L

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        ok = np.broadcast_to(np.asarray(member(sel), dtype=bool), idx.shape)
        cand = idx[ok]
        leader = np.zeros(idx.size, dtype=bool)
        lanes_of_leader = np.zeros(L // 32, dtype=U32)
        if cand.size:
            w = cand >> 5
            first = np.concatenate(([True], w[1:] != w[:-1]))
            leaders = cand[first]
            leader = np.isin(idx, leaders)
            lanes_of_leader[leaders >> 5] = (leaders & 31).astype(U32)
        if pw is not None:
            pw(sel, leader)
        if wr is not None:
            wl = m.index(warp_lanes(sel, L))
            wr(wl, lanes_of_leader[wl >> 5])

    return Bound(fn)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "SHFL": bind_shfl,
    "VOTE": bind_vote,
    "VOTEU": bind_vote,
    "MATCH": bind_match,
    "REDUX": bind_redux,
    "CREDUX": bind_redux,  # Blackwell's REDUX.MIN/MAX (CREDUX.MIN.S32 UR9, R3)
    "ELECT": bind_elect,
}
_ = Imm
