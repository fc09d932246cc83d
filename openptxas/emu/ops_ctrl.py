"""Control flow, convergence, barriers, special registers and the instructions that only order
memory or time (no-ops for a sequentially consistent emulator).

Code addresses are offsets in the kernel's section: ``BRA``/``CALL.REL`` labels are absolute,
``BRX Ra, imm`` jumps to ``Ra + pc + 16 + imm``, ``CALL.REL.NOINC Ra `(f)`` to ``Ra + f``,
``RET.REL.NODEC Ra `(f)`` to ``Ra + f``; ``CALL.ABS.NOINC Ra`` to an absolute address, which for
the driver's functions (``vprintf``) runs the emulator's built-in and continues after the call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from openptxas.emu import abi, memory
from openptxas.emu.bind import PRED_BASE, U32, U64, Bound, Ctx, Kind, pred_row
from openptxas.emu.lanes import (
    ALL,
    Sel,
    lane_bit,
    mask_of,
    nwarps,
    subset,
    warp_lanes,
    warp_masks,
    warps_of,
)
from openptxas.emu.machine import Waiter
from openptxas.emu.model import Imm, Label, Reg, SReg

NDArray = np.ndarray[Any, Any]


def _nop(ctx: Ctx) -> Bound:
    return Bound(lambda sel: None)


def _label(ctx: Ctx) -> int:
    for o in ctx.ops:
        if isinstance(o, Label):
            return o.target
    raise ctx.unsupported("branch without a target")


# -- EXIT, branches, calls ---------------------------------------------------------------------


def _pred_operand(ctx: Ctx) -> Callable[[Sel], Sel | None] | None:
    """The filter of a BRA/EXIT predicate operand, ANDed with the guard (``@P1 BRA !P2, t``;
    ptxas's ``@!P0 EXIT P1``), or None without one; it is read as a guard. Blackwell's
    ``BRA.U PT, UP0, t`` has a predicate and a uniform predicate: both must hold."""
    cond_ops = [o for o in ctx.ops if isinstance(o, Reg) and o.is_pred]
    for c in cond_ops:
        if not c.is_zero:
            ctx.read(PRED_BASE + pred_row(c), 1, "guard")
    filters = [f for f in map(ctx.m.guard_filter, cond_ops) if f is not None]
    if len(filters) < 2:
        return filters[0] if filters else None

    def every(sel: Sel) -> Sel | None:
        out: Sel | None = sel
        for f in filters:
            out = f(out) if out is not None else None
        return out

    return every


def _push_rest(m: Any, pc: int, sel: Sel, taken: Sel) -> None:
    """Lanes of ``sel`` outside ``taken`` go on at the next instruction."""
    if taken is sel or (isinstance(taken, slice) and isinstance(sel, slice)):
        return
    idx = np.arange(m.L, dtype=np.intp) if isinstance(sel, slice) else sel
    tk = np.arange(m.L, dtype=np.intp) if isinstance(taken, slice) else taken
    rest = np.setdiff1d(idx, tk, assume_unique=True)
    if rest.size:
        m.push(pc + 16, rest, nwarps(rest, m.L))


def bind_exit(ctx: Ctx) -> Bound:
    """EXIT [Pp]: the lanes (under the guard, which the machine applies) exit where the
    predicate operand holds too; the others go on."""
    m = ctx.m
    hz = m.hazards
    pc = ctx.pc
    cond = _pred_operand(ctx)

    def fn(sel: Sel, nw: int) -> None:
        out = sel if cond is None else cond(sel)
        if out is None:
            m.push(pc + 16, sel, nw)
            return
        _push_rest(m, pc, sel, out)
        m.exit_lanes(out)
        if hz is not None:
            hz.exit(out)

    return Bound(fn, Kind.CONTROL)


def bind_kill(ctx: Ctx) -> Bound:
    return bind_exit(ctx)


def bind_bra(ctx: Ctx) -> Bound:
    m = ctx.m
    pc = ctx.pc
    nxt = pc + 16
    target = _label(ctx)
    mods = set(ctx.ins.mods)
    L = m.L
    g = ctx.ins.guard
    gf = m.guard_filter(g)
    anyw = "ANY" in mods
    div = "DIV" in mods
    div_r = None
    cond = _pred_operand(ctx)
    if div:
        regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
        if regs:
            div_r = ctx.src(regs[0])
        else:  # (sm_75-sm_89's BRA.DIV with no mask: divergent unless all 32 lanes run)
            full = U32(0xFFFFFFFF)
            div_r = lambda sel: full  # noqa: E731

    def fn(sel: Sel, nw: int) -> None:
        taken = sel if gf is None else gf(sel)
        if taken is not None and cond is not None:
            taken = cond(taken)
        if taken is not None and anyw and not isinstance(taken, slice):
            # .ANY: every lane of a warp branches when one of them would.
            wl = warps_of(taken, L)
            idx = np.arange(L, dtype=np.intp)[sel] if isinstance(sel, slice) else sel
            keep = np.isin(idx >> 5, wl)
            taken = subset(sel, keep, L)
        if taken is not None and div_r is not None:
            taken = _divergent(m, taken, div_r)
        if taken is None:
            m.push(nxt, sel, nw)
            return
        if taken is sel or (isinstance(taken, slice) and isinstance(sel, slice)):
            m.goto(pc, target, sel, nw)
            return
        _push_rest(m, pc, sel, taken)
        m.goto(pc, target, taken)

    return Bound(fn, Kind.CONTROL, guarded_inside=True)


def _divergent(m: Any, sel: Sel, mask_r: Callable[[Sel], Any]) -> Sel | None:
    """Lanes of warps whose executing lanes differ from the mask (``BRA.DIV``)."""
    L = m.L
    idx = np.arange(L, dtype=np.intp) if isinstance(sel, slice) else sel
    act = mask_of(idx, L).reshape(-1, 32)
    bits = (act.astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(U32)
    want = np.asarray(mask_r(idx), dtype=U32)
    w = idx >> 5
    div_lane = bits[w] != (np.broadcast_to(want, idx.shape) & U32(0xFFFFFFFF))
    return subset(idx, div_lane, L)


def bind_brx(ctx: Ctx) -> Bound:
    m = ctx.m
    pc = ctx.pc
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    if not regs:
        raise ctx.unsupported()
    r = ctx.src(regs[0])
    base = pc + 16
    for o in ctx.ops:
        if isinstance(o, Imm):
            base = pc + 16 + o.value
        elif isinstance(o, Label):
            base = o.target

    def fn(sel: Sel, nw: int) -> None:
        t = np.asarray(r(sel), dtype=U32).view(np.int32).astype(np.int64) + base
        m.goto_lanes(pc, t, sel)

    return Bound(fn, Kind.CONTROL)


def bind_call(ctx: Ctx) -> Bound:
    m = ctx.m
    pc = ctx.pc
    nxt = pc + 16
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    labels = [o.target for o in ctx.ops if isinstance(o, Label)]
    absolute = "ABS" in ctx.ins.mods
    if not regs:
        target = labels[0] if labels else None
        if target is None and absolute:
            return _bind_external_call(ctx)
        if target is None:
            raise ctx.unsupported("call without a target")
        t0 = target

        def direct(sel: Sel, nw: int) -> None:
            m.push(t0, sel, nw)

        return Bound(direct, Kind.CONTROL)
    r = ctx.src64(regs[0])
    base = 0 if absolute or not labels else labels[0]
    builtins = m.builtins
    run_builtin = m.run_builtin
    check = _return_check(ctx)

    def indirect(sel: Sel, nw: int) -> None:
        t = np.asarray(r(sel), dtype=U64).astype(np.int64) + base
        t = np.broadcast_to(t, (m.L,) if isinstance(sel, slice) else sel.shape)
        first = int(t[0])
        if first in builtins and (t == first).all():
            check(builtins[first], sel)
            run_builtin(builtins[first], pc, sel)
            m.push(nxt, sel, nw)
            return
        for v in np.unique(t):
            if int(v) in builtins:
                raise ctx.fault("divergent call to a driver function")
        m.goto_lanes(pc, t, sel)

    return Bound(indirect, Kind.CONTROL)


def _bind_external_call(ctx: Ctx) -> Bound:
    """``CALL.ABS.NOINC `(f)`` to a function the driver resolves at load time (the target is a
    relocation, the immediate 0): the emulator's built-in of that name runs (the device
    runtime's launch functions, emu/cdp.py) and execution continues after the call; a function
    without a built-in stops the launch there."""
    m = ctx.m
    pc = ctx.pc
    linked = m.linked_calls.get(pc)
    if isinstance(linked, int):  # a function of another section (emu/linked.py)

        def far(sel: Sel, nw: int) -> None:
            m.goto(pc, linked, sel, nw)

        return Bound(far, Kind.CONTROL)
    name = m.kernel.calls.get(pc) if linked is None else linked
    if name is None:
        raise ctx.unsupported("absolute call without a target or a relocation naming one")
    sym = m.module.symbols.get(name)
    if sym is not None and sym.section == m.kernel.section:
        target = sym.value  # a subroutine of the kernel's own section (unlinked code)

        def local(sel: Sel, nw: int) -> None:
            m.push(target, sel, nw)

        return Bound(local, Kind.CONTROL)
    run_builtin = m.run_builtin
    check = _return_check(ctx)

    def fn(sel: Sel, nw: int) -> None:
        check(name, sel)
        run_builtin(name, pc, sel)
        m.push(pc + 16, sel, nw)

    return Bound(fn, Kind.CONTROL)


# the register pair that holds the return address of a call to a driver function (ptxas's
# R20:R21 on sm_75-sm_90: targets.Abi.call_return_address)
RETURN_ADDRESS = 20


def _return_check(ctx: Ctx) -> Callable[[str, Sel], None]:
    """A driver function returns to the address in R20:R21 (LEPC's, or before sm_90 the PC of a
    LEPC plus the return site's distance): it must be the instruction after the call. The
    emulator checks it rather than following it (it keeps code addresses as section offsets)."""
    m = ctx.m
    after = U64(ctx.pc + 16)
    lo_r, hi_r = m.R[RETURN_ADDRESS], m.R[RETURN_ADDRESS + 1]

    def check(name: str, sel: Sel) -> None:
        if not m.check_return_address:
            return
        ra = np.asarray(lo_r[sel].astype(U64) | (hi_r[sel].astype(U64) << U64(32))).ravel()
        wrong = ra[ra != after]
        if len(wrong):
            raise ctx.fault(
                f"the call of '{name}' returns to {int(wrong[0]):#x} (R20:R21), not after the "
                f"call ({int(after):#x})"
            )

    return check


def bind_ret(ctx: Ctx) -> Bound:
    m = ctx.m
    pc = ctx.pc
    regs = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    labels = [o.target for o in ctx.ops if isinstance(o, Label)]
    if not regs:
        raise ctx.unsupported("RET without a return-address register")
    r = ctx.src64(regs[0])
    base = 0 if "ABS" in ctx.ins.mods or not labels else labels[0]

    def fn(sel: Sel, nw: int) -> None:
        t = np.asarray(r(sel), dtype=U64).astype(np.int64) + base
        t = np.broadcast_to(t, (m.L,) if isinstance(sel, slice) else sel.shape)
        m.goto_lanes(pc, t, sel)

    return Bound(fn, Kind.CONTROL)


def bind_lepc(ctx: Ctx) -> Bound:
    wr = ctx.dst64(ctx.ops[0])
    labels = [o.target for o in ctx.ops if isinstance(o, Label)]
    v = U64(labels[0] if labels else ctx.pc)
    return Bound(lambda sel: wr(sel, v))


# -- convergence barriers ----------------------------------------------------------------------


def _breg(ctx: Ctx) -> int:
    for o in ctx.ops:
        if isinstance(o, Reg) and o.file.value == "B":
            return o.index
    raise ctx.unsupported("no convergence barrier operand")


def bind_bssy(ctx: Ctx) -> Bound:
    """BSSY Bk, target: Bk = the executing lanes of each warp."""
    m = ctx.m
    k = _breg(ctx)

    def fn(sel: Sel) -> None:
        if isinstance(sel, slice):
            m.Bw[k] = U32(0xFFFFFFFF)
            m.Binst[k] = np.arange(m.L) // 32 + m.binst_next
            m.binst_next += m.L // 32
            return
        wids, masks, starts, counts = warp_masks(sel)
        old = m.Binst[k, sel]
        m.Bw[k, sel] = np.repeat(masks, counts)
        m.Binst[k, sel] = np.repeat(np.arange(wids.size) + m.binst_next, counts)
        m.binst_next += wids.size
        # lanes blocked in a BSYNC on the instance these lanes re-arm (a loop that executes
        # its BSSY again, as a barrier register re-armed by part of the warp) wait on the new
        # one; a callee's BSSY after BMOV.32.CLEAR (instance 0) leaves the caller's waiters
        blocked = m.bwait[k, wids]
        for i in np.flatnonzero(blocked).tolist():
            w, st, n = int(wids[i]), int(starts[i]), int(counts[i])
            lanes = np.arange(w * 32, w * 32 + 32)
            mine = set(old[st : st + n].tolist()) - {0}
            waiting = ((int(blocked[i]) >> np.arange(32)) & 1).astype(bool)
            moved = lanes[waiting & np.isin(m.Binst[k, lanes], list(mine))]
            if moved.size:
                bits = U32(int(masks[i]) | sum(1 << (int(x) & 31) for x in moved))
                m.Binst[k, moved] = m.Binst[k, int(sel[st])]
                m.Bw[k, moved] = bits
                m.Bw[k, sel[st : st + n]] = bits

    return Bound(fn)


def bind_break(ctx: Ctx) -> Bound:
    """BREAK Bk: the executing lanes leave Bk."""
    m = ctx.m
    k = _breg(ctx)

    def fn(sel: Sel) -> None:
        _w, masks, _s, _c = warp_masks(m.index(sel))
        # out of every copy in the warp: no lane waits for a lane that left (warp_lanes lists
        # the warps in the sorted order of warp_masks)
        m.Bw[k, warp_lanes(sel, m.L)] &= ~np.repeat(masks, 32)

    return Bound(fn)


def bind_bsync(ctx: Ctx) -> Bound:
    """BSYNC Bk: wait until every live member of Bk is blocked in a BSYNC on Bk; members then
    continue. Lanes that are not members (an inner recursion level cleared Bk while they waited)
    keep waiting until Bk names them again."""
    m = ctx.m
    pc = ctx.pc
    nxt = pc + 16
    k = _breg(ctx)
    L = m.L

    def fn(sel: Sel, nw: int) -> None:
        idx = m.index(sel)
        wids, masks, _starts, counts = warp_masks(idx)
        if not m.bwait[k, wids].any():
            # complete with the lanes arriving now (lanes of one warp at different recursion
            # depths run a BSYNC together: each waits for the members of its own instance);
            # with lanes already blocked, the machine releases them and these together
            complete, mem_lane = m.bsync_ready(k, idx, np.repeat(masks, counts))
            ok = complete & (lane_bit(mem_lane, idx) | (mem_lane == 0))
            if ok.all():
                m.push(nxt, sel, nw)
                return
            go = idx[ok]
            if go.size:
                m.push(nxt, go, nwarps(go, L))
            idx = idx[~ok]
        m.block_bsync(k, pc, idx)

    return Bound(fn, Kind.CONTROL)


def _lane_mask_bits(m: Any, sel: Sel, mask: NDArray) -> NDArray:
    """Per lane of ``sel``: whether each lane of its warp named in ``mask`` (the lane's copy of
    the 32-bit mask) is accounted for, as a boolean [lanes, 32] array of required lanes."""
    bits = (mask[:, None] >> np.arange(32, dtype=U32)[None, :]) & U32(1)
    return bits.astype(bool)


def bind_warpsync(ctx: Ctx) -> Bound:
    m = ctx.m
    pc = ctx.pc
    nxt = pc + 16
    L = m.L
    srcs = [o for o in ctx.ops if isinstance(o, Imm) or (isinstance(o, Reg) and not o.is_pred)]
    mask_r: Callable[[Sel], Any]
    if "ALL" in ctx.ins.mods or not srcs:
        full = U32(0xFFFFFFFF)
        mask_r = lambda sel: full  # noqa: E731
    else:
        mask_r = ctx.src(srcs[0])

    def complete(idx: NDArray, arrived: NDArray) -> NDArray:
        """For lanes ``idx``: every live lane of their warp named in their mask has arrived."""
        mask = np.broadcast_to(np.asarray(mask_r(idx), dtype=U32), idx.shape)
        req = _lane_mask_bits(m, idx, mask)  # [n, 32]
        w = idx >> 5
        live = (~m.exited).reshape(-1, 32)[w]
        arr = arrived.reshape(-1, 32)[w]
        return ~(req & live & ~arr).any(axis=1)  # type: ignore[no-any-return]

    def releaser(w: Waiter) -> NDArray | None:
        ok = complete(w.sel, mask_of(w.sel, L))
        return w.sel[ok] if ok.any() else None

    def fn(sel: Sel, nw: int) -> None:
        # a lane its own mask does not name traps: an H200 stopped sum.cu's sumKernel4 (fast.cu;
        # `redux.sync ... 0xff` with the whole warp converged) at `WARPSYNC R` with CUDA error
        # 715, "an illegal instruction was encountered"
        idx = np.arange(L, dtype=np.intp)[sel] if isinstance(sel, slice) else sel
        own = np.broadcast_to(np.asarray(mask_r(idx), dtype=U32), idx.shape)
        if ((own >> (idx & 31).astype(U32)) & U32(1) == 0).any():
            raise ctx.fault(
                "illegal instruction: WARPSYNC's member mask leaves out a lane that executes it"
            )
        if isinstance(sel, slice):
            m.push(nxt, sel, nw)
            return
        if complete(sel, mask_of(sel, L)).all():
            m.push(nxt, sel, nw)
            return
        m.block_sync(pc, sel, releaser)

    return Bound(fn, Kind.CONTROL)


def bind_bmov(ctx: Ctx) -> Bound:
    """BMOV.32 Bk, Ra (set the warp's barrier mask) / BMOV.32[.CLEAR] Rd, Bk (read it)."""
    m = ctx.m
    ops = ctx.ops
    clear = "CLEAR" in ctx.ins.mods
    if isinstance(ops[0], Reg) and ops[0].file.value == "B":
        k = ops[0].index
        r = ctx.src(ops[1])

        def to_b(sel: Sel) -> None:
            idx = m.index(sel)
            v = np.broadcast_to(np.asarray(r(sel), dtype=U32), idx.shape)
            restore = m.bsaved_top(k, idx) == v
            lanes = idx[restore]
            if lanes.size:  # a restore of the value a lane saved: it rejoins that instance
                m.Bw[k, lanes], m.Binst[k, lanes] = m.bsaved_pop(k, lanes)
            if restore.all():
                return
            # a new mask: the warp's register, for the whole warp
            sub, vs = idx[~restore], v[~restore]
            wids, _masks, starts, _c = warp_masks(sub)
            for w, st in zip(wids.tolist(), starts.tolist(), strict=True):
                m.Bw[k, w * 32 : w * 32 + 32] = vs[st]
                m.Binst[k, w * 32 : w * 32 + 32] = m.binst_next
                m.binst_next += 1

        return Bound(to_b)
    k = _breg(ctx)
    wr = ctx.dst(ops[0])

    def from_b(sel: Sel) -> None:
        idx = m.index(sel)
        wr(sel, m.Bw[k, idx])
        if clear:
            # a save (a callee about to use Bk itself): each lane's copy, for a restore by the
            # same lane (lanes of one warp at different recursion depths may run it together);
            # the executing lanes leave Bk, lanes waiting on it keep their copy
            m.bsaved_push(k, idx)
            m.Bw[k, idx] = 0
            m.Binst[k, idx] = 0

    return Bound(from_b)


# -- CTA and cluster barriers ------------------------------------------------------------------


def bind_bar(ctx: Ctx) -> Bound:
    m = ctx.m
    pc = ctx.pc
    nxt = pc + 16
    L = m.L
    mods = set(ctx.ins.mods)
    srcs = [o for o in ctx.ops if isinstance(o, Imm) or (isinstance(o, Reg) and not o.is_pred)]
    kind = "SYNC" if "SYNC" in mods else "ARV" if "ARV" in mods else "RED" if "RED" in mods else ""
    if not kind:
        raise ctx.unsupported()
    dst: Reg | None = None
    pin: Reg | None = None
    if kind == "RED":
        # BAR.RED.{POPC,AND,OR} [Rd,] id, [count,] {!}P
        regs = [o for o in ctx.ops if isinstance(o, Reg)]
        if regs and not regs[0].is_pred:
            dst = regs[0]
        pin = next((o for o in reversed(ctx.ops) if isinstance(o, Reg) and o.is_pred), None)
        srcs = [o for o in ctx.ops if isinstance(o, Imm) or (isinstance(o, Reg) and not o.is_pred)]
        if dst is not None:
            srcs = srcs[1:]
    if not srcs:
        raise ctx.unsupported("barrier without an id")
    id_op = srcs[0]
    count: int | None = None
    if not isinstance(id_op, Imm) or (len(srcs) > 1 and not isinstance(srcs[1], Imm)):
        # "BAR.SYNC.DEFER_BLOCKING R12, R12" (bar.sync a, b with registers): the id (and
        # count) are read when the lanes arrive; PTX requires them warp-uniform
        if kind != "SYNC":
            raise ctx.unsupported("BAR.RED/ARV with a barrier id or count in a register")
        return _bind_bar_regs(ctx, srcs)
    bid = id_op.value
    if len(srcs) > 1:
        c = srcs[1]
        assert isinstance(c, Imm)
        count = c.value or None  # 0 (the default): every thread of the CTA
    red = next((x for x in ("POPC", "AND", "OR") if x in mods), "") if kind == "RED" else ""
    pr = ctx.psrc(pin) if pin is not None else None
    wr = ctx.dst(dst) if dst is not None else None
    pwr = None
    if kind == "RED" and red in ("AND", "OR"):
        pd = [o for o in ctx.ops if isinstance(o, Reg) and o.is_pred]
        if len(pd) >= 2:
            pwr = ctx.pdst(pd[0])
    lpc = m.lanes_per_cta

    def finish_red(data: dict[str, Any]) -> Callable[[NDArray, NDArray, NDArray], None]:
        def fin(rel: NDArray, arrived: NDArray, done_cta: NDArray) -> None:
            vals = m.bar_red_vals[bid]
            slot = rel // lpc
            per = vals.reshape(-1, lpc)
            if red == "POPC":
                cnt = per.sum(axis=1).astype(U32)
                m.bar_result[rel] = cnt[slot]
                if wr is not None:
                    wr(rel, cnt[slot])
            else:
                arr = arrived.reshape(-1, lpc)
                r: NDArray
                if red == "AND":
                    r = np.asarray((per | ~arr).all(axis=1))
                else:
                    r = np.asarray((per & arr).any(axis=1))
                m.bar_result[rel] = r[slot].astype(U32)
                if pwr is not None:
                    pwr(rel, r[slot])
                if wr is not None:
                    wr(rel, r[slot].astype(U32))

        return fin

    def fn(sel: Sel, nw: int) -> None:
        if kind == "RED":
            vals = m.bar_red_vals.setdefault(bid, np.zeros(L, dtype=bool))
            if pr is not None:
                vals[sel] = np.broadcast_to(np.asarray(pr(sel), dtype=bool), vals[sel].shape)
        if kind == "ARV":
            # Arrive without waiting: counts towards the barrier, continues at once.
            idx = np.arange(L, dtype=np.intp) if isinstance(sel, slice) else sel
            m.bar_arrivals(bid, idx, count)
            m.push(nxt, sel, nw)
            return
        if isinstance(sel, slice) and count is None and bid not in m.bar_wait and kind == "SYNC":
            m.push(nxt, sel, nw)
            return
        idx = np.arange(L, dtype=np.intp) if isinstance(sel, slice) else sel
        data: dict[str, Any] = {}
        if count is not None:
            data["count"] = count
        if kind == "RED":
            data["finish"] = finish_red(data)
        m.block_bar(bid, Waiter(pc, idx, data))

    return Bound(fn, Kind.CONTROL)


def _bind_bar_regs(ctx: Ctx, srcs: list[Any]) -> Bound:
    """BAR.SYNC with its barrier id and/or thread count in registers: the lanes are parked on
    the barrier their id names (id & 15), with the count their register gives (0: the CTA)."""
    m = ctx.m
    pc = ctx.pc
    L = m.L
    id_r = ctx.src(srcs[0])
    cnt_r = ctx.src(srcs[1]) if len(srcs) > 1 else None

    def fn(sel: Sel, nw: int) -> None:
        idx = np.arange(L, dtype=np.intp) if isinstance(sel, slice) else sel
        ids = np.broadcast_to(np.asarray(id_r(sel), dtype=U32) & U32(15), idx.shape)
        cnts = (
            np.broadcast_to(np.asarray(cnt_r(sel), dtype=U32), idx.shape)
            if cnt_r is not None
            else np.zeros(idx.shape, dtype=U32)
        )
        for b, c in sorted(set(zip(ids.tolist(), cnts.tolist(), strict=True))):
            part = idx[(ids == b) & (cnts == c)]
            data: dict[str, Any] = {"count": c} if c else {}
            m.block_bar(int(b), Waiter(pc, part, data))

    return Bound(fn, Kind.CONTROL)


def bind_b2r(ctx: Ctx) -> Bound:
    """B2R.RESULT Rd[, Pd]: the result of the thread's last ``BAR.RED`` (the POPC count, or the
    AND/OR as 0/1); ``Pd`` is that result as a predicate."""
    if "RESULT" not in ctx.ins.mods:
        raise ctx.unsupported()
    data = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    preds = [o for o in ctx.ops if isinstance(o, Reg) and o.is_pred]
    if len(data) != 1 or len(preds) > 1:
        raise ctx.unsupported()
    wr = ctx.dst(data[0])
    pw = ctx.pdst(preds[0]) if preds else None
    m = ctx.m

    def fn(sel: Sel) -> None:
        v = m.bar_result[sel]
        wr(sel, v)
        if pw is not None:
            pw(sel, v != 0)

    return Bound(fn)


def bind_cgabar_arv(ctx: Ctx) -> Bound:
    m = ctx.m

    def fn(sel: Sel) -> None:
        m.cga_arrived[sel] += 1

    return Bound(fn)


def bind_cgabar_wait(ctx: Ctx) -> Bound:
    m = ctx.m
    pc = ctx.pc
    L = m.L

    def done(idx: NDArray) -> NDArray:
        cs = int(m.geo.cluster_size)
        per = m.lanes_per_cta * cs
        arrived = np.where(m.exited, np.iinfo(np.int64).max, m.cga_arrived).reshape(-1, per)
        least = arrived.min(axis=1)
        return least[idx // per] >= m.cga_arrived[idx]  # type: ignore[no-any-return]

    def releaser(w: Waiter) -> NDArray | None:
        ok = done(w.sel)
        return w.sel[ok] if ok.any() else None

    def fn(sel: Sel, nw: int) -> None:
        idx = np.arange(L, dtype=np.intp) if isinstance(sel, slice) else sel
        m.block_sync(pc, idx, releaser)

    return Bound(fn, Kind.CONTROL)


# -- special registers -------------------------------------------------------------------------


def sreg_reader(ctx: Ctx, name: str) -> Callable[[Sel], Any]:
    m = ctx.m
    if name == "SRZ":
        return lambda sel: U32(0)
    base, _, comp = name.partition(".")
    axis = {"X": 0, "Y": 1, "Z": 2}.get(comp, 0)
    if base == "SR_TID":
        row = m.tid[axis]
        return lambda sel: row[sel]
    if base == "SR_CTAID":
        row = m.ctaid[axis]
        return lambda sel: row[sel]
    if name == "SR_LANEID":
        return lambda sel: m.laneid[sel]
    if name == "SR_CgaCtaId":
        return lambda sel: m.cluster_rank[sel]
    if name == "SR_CgaSize":
        # Blackwell indexes its per-CGA bank-0 values with it; emu/abi.py fills them to agree
        cga = U32(abi.CGA_SIZE)
        return lambda sel: cga
    if name == "SR_SWINHI":
        v = U32(memory.SHARED_WINDOW_HI)
        return lambda sel: v
    if name in ("SR_CLOCKLO", "SR_GLOBALTIMERLO"):
        return lambda sel: U32((m.issued * 4) & 0xFFFFFFFF)
    if name in ("SR_CLOCKHI", "SR_GLOBALTIMERHI"):
        return lambda sel: U32((m.issued * 4) >> 32 & 0xFFFFFFFF)
    lane_masks: dict[str, Callable[[Any], Any]] = {
        "SR_EQMASK": lambda ln: U32(1) << ln,
        "SR_LTMASK": lambda ln: (U32(1) << ln) - U32(1),
        "SR_LEMASK": lambda ln: ((U32(1) << ln) - U32(1)) | (U32(1) << ln),
        "SR_GTMASK": lambda ln: ~(((U32(1) << ln) - U32(1)) | (U32(1) << ln)),
        "SR_GEMASK": lambda ln: ~((U32(1) << ln) - U32(1)),
    }
    if name in lane_masks:
        f = lane_masks[name]
        return lambda sel: f(m.laneid[sel])
    if name == "SR_VIRTID":
        # %warpid = (SR_VIRTID >> 8) & 0x7f: the warp's number in its CTA here.
        wid = ((m.lane % m.lanes_per_cta) // 32).astype(U32) << U32(8)
        return lambda sel: wid[sel]
    if name == "SR_VIRTCFG":
        v = U32(64 << 8)  # %nwarpid = 64 warps per SM
        return lambda sel: v
    if name == "SR_VIRTUALSMID":
        return lambda sel: (m.slot[sel] % 132).astype(U32)
    if name == "SR_SMEMSZ":
        v = U32(m.shared.valid)
        return lambda sel: v
    if name == "SR_LMEMHIOFF":
        # ptxas -O0's stack check after lowering R1 (ISETP.GE.U32 R1, SR_LMEMHIOFF, else
        # BPT.TRAP): the lowest address the stack may reach; the emulator's local memory is the
        # whole window below the initial stack pointer, so 0
        return lambda sel: U32(0)
    raise ctx.unsupported(f"special register {name}")


def bind_s2r(ctx: Ctx) -> Bound:
    ops = ctx.ops
    sr = next((o for o in ops if isinstance(o, SReg)), None)
    if sr is None:
        raise ctx.unsupported()
    rd = sreg_reader(ctx, sr.name)
    # S2UR and sm_120's CS2UR write uniform registers
    kind = Kind.UNIFORM if ctx.ins.opcode in ("S2UR", "CS2UR") else Kind.SIMPLE
    if ctx.ins.opcode in ("CS2R", "CS2UR") and "32" not in ctx.ins.mods:
        wr64 = ctx.dst64(ops[0])
        m = ctx.m
        if sr.name in ("SR_CLOCKLO", "SR_GLOBALTIMERLO"):
            return Bound(lambda sel: wr64(sel, U64(m.issued * 4)), kind)
        return Bound(lambda sel: wr64(sel, np.asarray(rd(sel), dtype=U32).astype(U64)), kind)
    wr = ctx.dst(ops[0])
    return Bound(lambda sel: wr(sel, rd(sel)), kind)


def bind_r2ur(ctx: Ctx) -> Bound:
    """R2UR [Pd,] URd, Ra: the value of the warp's first executing lane, for the whole warp.
    ``Pd`` (waterfall loops over a non-uniform value, ``__reduce_*_sync`` mask checks): per
    executing lane, whether its ``Ra`` differs from the value taken; ``R2UR.OR`` ORs that into
    ``Pd``."""
    m = ctx.m
    L = m.L
    # The full form has an optional predicate destination first ("R2UR PT, UR6, R17").
    preds = [o for o in ctx.ops if isinstance(o, Reg) and o.is_pred]
    ops = [o for o in ctx.ops if not (isinstance(o, Reg) and o.is_pred)]
    if len(ops) != 2 or len(preds) > 1:
        raise ctx.unsupported()
    pd = preds[0] if preds and not preds[0].is_zero else None
    orin = "OR" in ctx.ins.mods
    if orin and pd is None:
        raise ctx.unsupported()
    pw = ctx.pdst(pd) if pd is not None else None
    pr = ctx.psrc(pd) if pd is not None and orin else None
    wr = ctx.dst(ops[0])
    r = ctx.src(ops[1])

    def fn(sel: Sel) -> None:
        if isinstance(sel, slice):
            v = np.asarray(r(sel), dtype=U32).reshape(-1, 32)
            taken = v[:, 0]
            wr(sel, np.repeat(taken, 32))
            differs = (v != taken[:, None]).reshape(-1)
        else:
            v = np.broadcast_to(np.asarray(r(sel), dtype=U32), sel.shape)
            w = sel >> 5
            first = np.ones(sel.size, dtype=bool)
            first[1:] = w[1:] != w[:-1]
            starts = np.flatnonzero(first)
            taken = v[starts]
            wl = warp_lanes(sel, L)
            wr(wl, np.repeat(taken, 32))
            differs = v != np.repeat(taken, np.diff(np.append(starts, sel.size)))
        if pw is not None:
            if pr is not None:
                differs = differs | np.asarray(pr(sel), dtype=bool)
            pw(sel, differs)

    return Bound(fn)


def bind_bpt(ctx: Ctx) -> Bound:
    """BPT.TRAP n (``trap``, a failed device assert): the kernel faults when a lane executes
    it; other BPT forms (debugger breakpoints) do nothing without a debugger."""
    if "TRAP" not in ctx.ins.mods:
        return Bound(lambda sel: None)
    fault = ctx.fault("trap (BPT.TRAP) executed")

    def fn(sel: Sel) -> None:
        raise fault

    return Bound(fn)


def bind_setmaxreg(ctx: Ctx) -> Bound:
    """USETMAXREG.{TRY_ALLOC,DEALLOC}.CTAPOOL [UPd,] n (setmaxnreg): the register budget is not
    modelled, so an allocation always succeeds (UPd = true)."""
    preds = [o for o in ctx.ops if isinstance(o, Reg) and o.is_pred]
    if preds and not preds[0].is_zero:
        pw = ctx.pdst(preds[0])
        return Bound(lambda sel: pw(sel, np.bool_(True)), Kind.UNIFORM)
    return Bound(lambda sel: None, Kind.UNIFORM)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "USETMAXREG": bind_setmaxreg,
    "EXIT": bind_exit,
    "KILL": bind_kill,
    "BRA": bind_bra,
    "BRX": bind_brx,
    "JMX": bind_brx,
    "CALL": bind_call,
    "RET": bind_ret,
    "LEPC": bind_lepc,
    "BSSY": bind_bssy,
    "BSYNC": bind_bsync,
    "BREAK": bind_break,
    "WARPSYNC": bind_warpsync,
    "BMOV": bind_bmov,
    "BAR": bind_bar,
    "UCGABAR_ARV": bind_cgabar_arv,
    "UCGABAR_WAIT": bind_cgabar_wait,
    "S2R": bind_s2r,
    "S2UR": bind_s2r,
    "CS2R": bind_s2r,
    "CS2UR": bind_s2r,
    "R2UR": bind_r2ur,
    "B2R": bind_b2r,
    "NOP": _nop,
    "BPT": bind_bpt,
    "YIELD": _nop,
    "NANOSLEEP": _nop,
    "DEPBAR": _nop,
    "MEMBAR": _nop,
    "FENCE": _nop,
    "ERRBAR": _nop,
    "CGAERRBAR": _nop,
    "CCTL": _nop,
    "CCTLL": _nop,
    "ENDCOLLECTIVE": _nop,
    "LDGDEPBAR": _nop,
    "WARPGROUP": _nop,
    "PMTRIG": _nop,
    "UTMACMDFLUSH": _nop,
    # griddepcontrol.wait: waits for the grids this one depends on (programmatic dependent
    # launch); an emulated launch has none, so it completes at once
    "ACQBULK": _nop,
    "PREEXIT": _nop,  # griddepcontrol.launch_dependents: no dependent grid is launched
}
ALL_ = ALL
_ = pred_row
