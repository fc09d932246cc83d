"""mbarrier objects (SYNCS.*), bulk asynchronous copies (UBLKCP, UBLKRED, UBLKPF), asynchronous
stores and reductions into (cluster) shared memory (STAS, REDAS) and tensor copies and
reductions (UTMALDG, UTMASTG, UTMAREDG).

Asynchronous copies complete at once; their mbarrier transaction counts are updated at issue,
so waits see the data as soon as the phase completes.

The 64-bit mbarrier word. ptxas initialises it itself (``mbarrier.init`` is ``SYNCS.EXCH.64``
of ``(2**20 - count) << 1 | (2**20 - count) << 43``); the emulator reads and updates the fields
that value implies:

======  =======================================================================
1-21    arrivals counted up: ``2**20 - pending arrivals`` (2**20: none pending)
22-42   pending transaction bytes (signed: ``complete_tx`` may come first)
43-62   ``2**20 - expected arrivals`` (reloaded into bits 1-21 when a phase completes)
63      the current phase's parity
======  =======================================================================

A phase completes when no arrival and no transaction byte is pending. ``PHASECHK P, [bar], R``
sets P when the phase of parity ``R >> 31`` has completed (the current parity differs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from openptxas.emu import fp
from openptxas.emu.bind import U32, U64, Bound, Ctx, Kind, reg_row
from openptxas.emu.errors import Unsupported
from openptxas.emu.lanes import Sel
from openptxas.emu.model import Mem, Reg
from openptxas.emu.ops_mem import addr_reader, atom_apply
from openptxas.emu.tma import TensorMap
from openptxas.spec import BF16_NAMES, SpecError, storage_dtype

NDArray = np.ndarray[Any, Any]
ONE20 = 1 << 20


def _decode(w: int) -> tuple[int, int, int, int]:
    """(pending arrivals, pending tx bytes, expected arrivals, phase)."""
    up = (w >> 1) & ((1 << 21) - 1)
    tx = (w >> 22) & ((1 << 21) - 1)
    if tx >> 20:
        tx -= 1 << 21
    exp = ONE20 - ((w >> 43) & (ONE20 - 1))
    return ONE20 - up, tx, exp, (w >> 63) & 1


def _encode(pending: int, tx: int, expected: int, phase: int) -> int:
    return (
        ((ONE20 - pending) & ((1 << 21) - 1)) << 1
        | (tx & ((1 << 21) - 1)) << 22
        | ((ONE20 - expected) & (ONE20 - 1)) << 43
        | (phase & 1) << 63
    )


def _apply(w: int, arrive: int, tx_add: int, drop: bool) -> int:
    pending, tx, expected, phase = _decode(w)
    if drop:
        expected -= 1
    tx += tx_add
    pending -= arrive
    if pending <= 0 and tx == 0:
        phase ^= 1
        pending = expected
    return _encode(max(pending, 0), tx, expected, phase)


def _read64(m: Any, a: int, lane: int) -> int:
    w = m.load("shared", np.array([a], dtype=np.int64), np.array([lane]), 8, False)
    return int(w[0, 0]) | int(w[1, 0]) << 32


def _write64(m: Any, a: int, lane: int, v: int) -> None:
    words = np.array([[v & 0xFFFFFFFF], [(v >> 32) & 0xFFFFFFFF]], dtype=U32)
    m.store("shared", np.array([a], dtype=np.int64), np.array([lane]), 8, words)


def mbar_update(m: Any, a: int, lane: int, arrive: int, tx_add: int, drop: bool = False) -> int:
    old = _read64(m, a, lane)
    _write64(m, a, lane, _apply(old, arrive, tx_add, drop))
    return old


def bind_syncs(ctx: Ctx) -> Bound:
    ins = ctx.ins
    mods = ins.mods
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    if mem is None:
        raise ctx.unsupported()
    ad = addr_reader(ctx, mem, False)
    m = ctx.m
    regs = [o for o in ctx.ops if isinstance(o, Reg)]
    if "EXCH" in mods:
        xdata = [o for o in regs if not o.is_pred]
        xdst = xdata[0]
        wr = ctx.dst64(xdst)
        rd = ctx.src64(xdata[-1])

        def exch(sel: Sel) -> None:
            idx = m.index(sel)
            a = ad(sel)
            v = np.broadcast_to(np.asarray(rd(sel), dtype=U64), idx.shape)
            old = np.zeros(idx.size, dtype=U64)
            for k, lane in enumerate(idx.tolist()):
                old[k] = _read64(m, int(a[k]), lane)
                _write64(m, int(a[k]), lane, int(v[k]))
            wr(sel, old)

        return Bound(exch, Kind.UNIFORM if xdst.file.value == "UR" else Kind.SIMPLE)
    if "PHASECHK" in mods:
        pd = next(o for o in regs if o.is_pred)
        par = ctx.src(next(o for o in regs if not o.is_pred))
        pw = ctx.pdst(pd)

        def phasechk(sel: Sel) -> None:
            idx = m.index(sel)
            a = ad(sel)
            p = np.broadcast_to(np.asarray(par(sel), dtype=U32) >> U32(31), idx.shape)
            out = np.zeros(idx.size, dtype=bool)
            for k, lane in enumerate(idx.tolist()):
                phase = _decode(_read64(m, int(a[k]), lane))[3]
                out[k] = phase != int(p[k])
            pw(sel, out)

        return Bound(phasechk)
    if "ARRIVE" in mods:
        # A1T0: one arrival; ART0: arrivals from the register; A0TR: expect_tx (register);
        # A0TX: complete_tx (register); no suffix: one arrival with expect_tx (register).
        kind = next((x for x in mods if x in ("A1T0", "ART0", "A0TR", "A0TX", "A0T1")), "A1TR")
        drop = "OPTOUT" in mods
        data = [o for o in regs if not o.is_pred]
        dst = data[0] if len(data) >= 2 else None
        src = ctx.src(data[-1]) if data else (lambda sel: U32(0))
        awr = ctx.dst64(dst) if dst is not None and not dst.is_zero else None

        def arrive(sel: Sel) -> None:
            idx = m.index(sel)
            a = ad(sel)
            v = np.broadcast_to(np.asarray(src(sel), dtype=U32), idx.shape).astype(np.int64)
            old = np.zeros(idx.size, dtype=U64)
            for k, lane in enumerate(idx.tolist()):
                n = int(v[k])
                arr, tx = {
                    "A1T0": (1, 0),
                    "ART0": (n, 0),
                    "A0TR": (0, n),
                    "A0TX": (0, -n),
                    "A0T1": (0, -1),
                    "A1TR": (1, n),
                }[kind]
                old[k] = mbar_update(m, int(a[k]), lane, arr, tx, drop)
            if awr is not None:
                awr(sel, old)

        return Bound(arrive)
    if "CCTL" in mods:
        return Bound(lambda sel: None)
    raise ctx.unsupported()


def _first_per_warp(idx: NDArray) -> NDArray:
    w = idx >> 5
    keep = np.ones(idx.size, dtype=bool)
    keep[1:] = w[1:] != w[:-1]
    return np.asarray(idx[keep])


def _ur(ctx: Ctx, op: Any, n: int = 1) -> Callable[[NDArray], list[int]]:
    """Consecutive uniform registers from ``op``'s base, per lane (list of ints per register)."""
    base = (
        (op.base if op.base is not None and not op.base.is_zero else op.ubase)
        if isinstance(op, Mem)
        else op
    )
    if not isinstance(base, Reg):
        raise ctx.unsupported()
    row = reg_row(base)
    ctx.read(row, n, "addr")
    R = ctx.m.R

    def rd(lanes: NDArray) -> list[int]:
        return [int(x) for x in R[row : row + n][:, lanes[0]]]

    return rd


_RED_TYPES = ("U64", "S64", "F64", "F32", "F16", "BF16", "S32")


def bulk_reduce(op: str, typ: str, old: NDArray, src: NDArray) -> NDArray:
    """cp.reduce.async.bulk's element operation (the PTX ISA's): ``old`` (the destination) and
    ``src`` as 32-bit words, consecutive in memory; returns the new destination words. ``typ``:
    the SASS type (``U32`` when none is printed; ``U64`` also for .b64 and/or/xor)."""
    old = np.asarray(old, dtype=U32)
    src = np.asarray(src, dtype=U32)
    if typ in ("F16", "BF16"):
        kind = typ.lower()
        if op == "ADD":  # .add.noftz: correctly rounded, subnormals kept
            return fp.h2_op_bits("add", old, src, kind)
        if op not in ("MIN", "MAX"):
            raise ValueError(f"{op}.{typ}")
        o16, s16 = old.view(np.uint16), src.view(np.uint16)
        return fp.h_minmax_bits(o16, s16, op == "MIN", kind).view(U32)
    if typ in ("U64", "S64", "F64"):
        o64, s64 = old.view(U64), src.view(U64)
        return atom_apply(op, typ, o64, s64, None).view(U32)
    return atom_apply(op, typ, old, src, None)


def bind_ublk(ctx: Ctx) -> Bound:
    """Bulk copies and reductions, once per warp: ``UBLKCP.D.S [dst], [src], size``
    (cp.async.bulk: S.G, G.S, S.S) and ``UBLKRED.D.S.op[.type] [dst], [src], size``
    (cp.reduce.async.bulk: G.S, S.S), D/S the destination and source spaces (G global, S
    shared). A global address is a 64-bit register pair; a shared destination ``[URd]`` is URd =
    the (cluster) shared address, URd+1 = the mbarrier, in the destination's CTA (``rank << 24 |
    offset``), whose transaction count completes by the size. Sizes are in 16-byte units (ptxas
    divides the PTX byte count by 16). ``UBLKCP.S.G.MULTICAST`` (.multicast::cluster): the size
    register holds the size in bits 0-15 and the CTA mask (cluster ranks) in bits 16-31; the data
    and the completion go to the same offsets in every CTA of the mask. UBLKPF (prefetch):
    nothing to do."""
    ins = ctx.ins
    if ins.opcode == "UBLKPF":
        return Bound(lambda sel: None)
    mems = [o for o in ctx.ops if isinstance(o, Mem)]
    size_op = next((o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred), None)
    spaces = {"G": "global", "S": "shared"}
    if len(mems) != 2 or size_op is None or len(ins.mods) < 2 or ins.mods[0] not in spaces:
        raise ctx.unsupported()
    dspace, sspace = spaces[ins.mods[0]], spaces.get(ins.mods[1], "")
    if not sspace or (dspace == "global" and sspace == "global"):
        raise ctx.unsupported()
    multicast = "MULTICAST" in ins.mods[2:]
    if ins.opcode == "UBLKCP" and set(ins.mods[2:]) - {"MULTICAST"}:
        raise ctx.unsupported()
    if multicast and (dspace, sspace) != ("shared", "global"):
        raise ctx.unsupported()
    red_op = ""
    red_typ = "U32"
    if ins.opcode == "UBLKRED":
        red_op = next(
            (
                x
                for x in ins.mods[2:]
                if x in ("ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR")
            ),
            "",
        )
        red_typ = next((x for x in ins.mods[2:] if x in _RED_TYPES), "U32")
        if not red_op or set(ins.mods[2:]) - {red_op, red_typ, "RN"}:
            raise ctx.unsupported()
        # the operation must exist (faults at bind time rather than mid-run)
        bulk_reduce(red_op, red_typ, np.zeros(4, dtype=U32), np.zeros(4, dtype=U32))
    m = ctx.m
    dst = _ur(ctx, mems[0], 2)
    src = _ur(ctx, mems[1], 2 if sspace == "global" else 1)  # a shared source: one register
    size = _ur(ctx, size_op, 1)

    def fn(sel: Sel) -> None:
        for lane in _first_per_warp(m.index(sel)).tolist():
            ln = np.array([lane])
            d, s, n = dst(ln), src(ln), size(ln)[0]
            ranks = [-1]  # the destination as addressed
            if multicast:  # .multicast::cluster: the CTA mask in the size register's bits 16-31
                ranks = [k for k in range(16) if n >> (16 + k) & 1]
                n &= 0xFFFF
            n *= 16  # size in 16-byte units
            da = d[0] | d[1] << 32 if dspace == "global" else d[0]
            sa = s[0] | s[1] << 32 if sspace == "global" else s[0]
            cnt = n // 4
            words = np.full(max(cnt, 1), lane)[:cnt]
            v = m.load(sspace, sa + 4 * np.arange(cnt), words, 4, False)
            for k in ranks:
                # multicast: the same offsets (data and mbarrier) in each CTA of the mask
                ta = da if k < 0 else (k << 24) | (da & 0xFFFFFF)
                if red_op:
                    old = m.load(dspace, ta + 4 * np.arange(cnt), words, 4, False)
                    v = bulk_reduce(red_op, red_typ, old[0], v[0])[None, :]
                m.store(dspace, ta + 4 * np.arange(cnt), words, 4, v)
                if dspace == "shared":
                    mbar_update(m, d[1] if k < 0 else (k << 24) | (d[1] & 0xFFFFFF), lane, 0, -n)

    return Bound(fn, Kind.UNIFORM)


_RED_ELEMENT = {
    ("f", 2): "F16", ("f", 4): "F32", ("f", 8): "F64", ("i", 4): "S32", ("i", 8): "S64",
    ("u", 4): "U32", ("u", 8): "U64",
}  # fmt: skip


def tensor_reduce_type(tm: TensorMap) -> str | None:
    """The SASS reduction type (:func:`bulk_reduce`) of a tensor map's elements, or None."""
    if tm.dtype in BF16_NAMES:
        return "BF16"
    try:
        dt = storage_dtype(tm.dtype.removesuffix("_ftz"))
    except SpecError:
        return None
    return _RED_ELEMENT.get((dt.kind, dt.itemsize))


def tensor_reduce(op: str, typ: str, old: NDArray, src: NDArray) -> NDArray:
    """cp.reduce.async.bulk.tensor's element operation on words as ``Machine.load`` returns them
    (``[max(1, size // 4), n]``; a 16-bit element in the low half of its word)."""
    if typ in ("F16", "BF16"):
        return bulk_reduce(op, typ, old[0], src[0])[None, :] & U32(0xFFFF)
    if typ in ("U64", "S64", "F64"):
        flat = bulk_reduce(op, typ, old.T.reshape(-1), src.T.reshape(-1))
        return np.ascontiguousarray(flat.reshape(-1, 2).T)
    return bulk_reduce(op, typ, old[0], src[0])[None, :]


_TMA_RED_OPS = ("ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR")


def bind_utma(ctx: Ctx) -> Bound:
    """Tensor copies through a tensor map (:mod:`openptxas.emu.tma`), once per warp:
    ``UTMALDG.nD [URd], [URm]``: URd = shared destination, URd+1 = mbarrier, URd+2.. = the n
    coordinates; the box is copied (zeros outside the tensor) and the mbarrier's transaction
    count completes by the box's bytes. ``UTMASTG.nD [URs], [URm]``: URs = shared source,
    URs+1.. = coordinates; elements outside the tensor are not written. ``UTMAREDG.nD.op [URs],
    [URm]`` (cp.reduce.async.bulk.tensor, operands as UTMASTG): each element of the box inside the
    tensor becomes ``op(global, shared)`` in the map's element type (:func:`tensor_reduce`).
    URm:URm+1 = the map's generic address. ``UTMALDG.nD.MULTICAST [URd], [URm], URk``: the box
    goes to the same shared offset (and mbarrier offset) of every cluster CTA whose rank is set
    in the CTA mask, bits 16-31 of URk. The shared side of the box is swizzled as the map says.
    ``UTMACCTL`` (prefetch, invalidate) does nothing (nor does ``UTMACMDFLUSH``,
    bound with the other no-ops): copies complete at issue."""
    ins = ctx.ins
    if ins.opcode == "UTMACCTL":
        return Bound(lambda sel: None, Kind.UNIFORM)
    rank = next((int(x[0]) for x in ins.mods if len(x) == 2 and x[1] == "D" and x[0] in "12345"), 0)
    multicast = "MULTICAST" in ins.mods
    red_op = ""
    if ins.opcode == "UTMAREDG":
        red_op = next((x for x in ins.mods if x in _TMA_RED_OPS), "")
        plain = {f"{rank}D", red_op}
    elif ins.opcode == "UTMALDG":
        plain = {f"{rank}D", "MULTICAST"}
    else:
        plain = {f"{rank}D"}
    if not rank or (ins.opcode == "UTMAREDG" and not red_op) or set(ins.mods) - plain:
        raise ctx.unsupported(f"{ins.mnemonic} (only tiled copies)")
    mems = [o for o in ctx.ops if isinstance(o, Mem)]
    if len(mems) != 2:
        raise ctx.unsupported()
    mask_r: Callable[[NDArray], list[int]] | None = None
    if multicast:
        mreg = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
        if len(mreg) != 1:
            raise ctx.unsupported()
        mask_r = _ur(ctx, mreg[0], 1)
    load = ins.opcode == "UTMALDG"
    head = 2 if load else 1
    regs = _ur(ctx, mems[0], head + rank)
    mp = _ur(ctx, mems[1], 2)
    m = ctx.m
    pc = ctx.pc

    def fn(sel: Sel) -> None:
        for lane in _first_per_warp(m.index(sel)).tolist():
            ln = np.array([lane])
            r = regs(ln)
            a = mp(ln)
            tm = m.tensor_maps.get(a[0] | a[1] << 32)
            if tm is None:
                raise ctx.fault(f"no tensor map at address {a[0] | a[1] << 32:#x}")
            why = tm.supported()
            red_typ = tensor_reduce_type(tm) if red_op else None
            if red_op and red_typ is None:
                why = f"tensor reduction on '{tm.dtype}' elements"
            if why is not None:
                raise Unsupported(why, pc, str(ins))
            coords = [int(np.int32(np.uint32(c))) for c in r[head:]]
            gaddr, inside = tm.box_addresses(coords)
            n = gaddr.size
            lanes = np.full(n, lane)
            soff = tm.shared_addresses(r[0])
            if load:
                data = np.zeros((max(1, tm.elem // 4), n), dtype=U32)
                if inside.any():
                    data[:, inside] = m.load("global", gaddr[inside], lanes[inside], tm.elem, False)
                if mask_r is None:
                    m.store("shared", soff, lanes, tm.elem, data)
                    mbar_update(m, r[1], lane, 0, -tm.box_bytes)
                    continue
                # .multicast::cluster: the box lands at the same offset in every CTA of the
                # mask (cluster ranks), each completing the mbarrier at the same offset there
                cmask = mask_r(ln)[0] >> 16  # ptxas: "UMOV UR4, 0x30000" for the mask 0b11
                for k in range(16):
                    if cmask >> k & 1:
                        dst = (k << 24) | (soff & 0xFFFFFF)
                        m.store("shared", dst, lanes, tm.elem, data)
                        mbar_update(m, (k << 24) | (r[1] & 0xFFFFFF), lane, 0, -tm.box_bytes)
            elif inside.any():
                data = m.load("shared", soff[inside], lanes[inside], tm.elem, False)
                if red_typ is not None:
                    old = m.load("global", gaddr[inside], lanes[inside], tm.elem, False)
                    data = tensor_reduce(red_op, red_typ, old, data)
                m.store("global", gaddr[inside], lanes[inside], tm.elem, data)

    return Bound(fn, Kind.UNIFORM)


def arrive_sm80(m: Any, a: int, lane: int, n: int = 1) -> int:
    """One arrival (``n`` of them) on an sm_75-sm_89 mbarrier, returning its old 64-bit word.
    The layout, as ptxas 13.0.88's code for those targets reads and writes it: the low word is
    ``0x40000000 - expected`` (mbarrier.init), the high word ``phase << 31 | (2^31 - pending)``
    (init stores ``0x80000000 - count``; an arrival adds to it, ptxas's own ``ATOMS.ADD`` on it
    adds a negative count for cp.async.mbarrier.arrive; test_wait compares bit 31 with the
    state's). When the pending count reaches zero the carry has flipped the phase, and the
    barrier re-arms with the expected count."""
    old = _read64(m, a, lane)
    lo, hi = old & 0xFFFFFFFF, old >> 32
    hi = (hi + n) & 0xFFFFFFFF
    if hi & 0x7FFFFFFF == 0:
        expected = (0x40000000 - lo) & 0xFFFFFFFF
        hi = (hi + (0x80000000 - expected)) & 0xFFFFFFFF
    _write64(m, a, lane, lo | hi << 32)
    return old


def bind_arrives(ctx: Ctx) -> Bound:
    """``ARRIVES.LDGSTSBAR.64.{ARVCNT,TRANSCNT} [bar]`` (cp.async.mbarrier.arrive[.noinc]): an
    arrival on the mbarrier once the thread's earlier cp.async copies are done, i.e. at once
    here (LDGSTS completes at issue). ``ARVCNT`` (.noinc) counts as one of the expected
    arrivals; ``TRANSCNT`` balances the ``SYNCS.ARRIVE.TRANS64.RED.A0T1`` ptxas issues before it
    (the increment of the pending count that PTX's form without .noinc makes)."""
    mods = ctx.ins.mods
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    if mem is None or "LDGSTSBAR" not in mods:
        raise ctx.unsupported()
    ad = addr_reader(ctx, mem, False)
    m = ctx.m
    if "ARVCNT" in mods:
        arr, tx = 1, 0
    elif "TRANSCNT" in mods:
        arr, tx = 0, 1
    elif m.module.sm < 90:
        # sm_75-sm_89 (no count kind): one arrival in their barrier layout; the form without
        # .noinc adds the pending arrival before it itself (ATOMS.ADD.S32 on the high word)

        def fn80(sel: Sel) -> None:
            idx = m.index(sel)
            a = ad(sel)
            for k, lane in enumerate(idx.tolist()):
                arrive_sm80(m, int(a[k]), lane)

        return Bound(fn80)
    else:
        raise ctx.unsupported()

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        a = ad(sel)
        for k, lane in enumerate(idx.tolist()):
            mbar_update(m, int(a[k]), lane, arr, tx)

    return Bound(fn)


def bind_stas(ctx: Ctx) -> Bound:
    """``STAS[.64|.128] [Ra.64+off], Rb`` (st.async) and ``REDAS.op[.S32|.64] [Ra.64+off], Rb``
    (red.async), each lane on its own: Ra = the (cluster) shared address of the data (``rank <<
    24 | offset``, in the CTA that owns it), Ra+1 = the mbarrier, in the same CTA, whose
    transaction count completes by the bytes written (4, 8 or 16); REDAS applies the PTX ISA's
    reduction (add/min/max/inc/dec/and/or/xor on .u32/.s32, add on .u64) in lane order."""
    ins = ctx.ins
    mods = ins.mods
    mem = next((o for o in ctx.ops if isinstance(o, Mem)), None)
    data = [o for o in ctx.ops if isinstance(o, Reg) and not o.is_pred]
    base = mem.base if mem is not None else None
    if (
        mem is None
        or len(data) != 1
        or base is None
        or base.is_zero
        or base.sel != "64"
        or (mem.ubase is not None and not mem.ubase.is_zero)
    ):
        raise ctx.unsupported()
    red_op = ""
    typ = "U32"
    width = 4
    if ins.opcode == "REDAS":
        red_op = next(
            (x for x in mods if x in ("ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR")), ""
        )
        typ = "S32" if "S32" in mods else "U64" if "64" in mods else "U32"
        if not red_op or set(mods) - {red_op, "S32", "64"} or (typ == "U64" and red_op != "ADD"):
            raise ctx.unsupported()
        width = 8 if typ == "U64" else 4
    else:
        if set(mods) - {"64", "128"}:
            raise ctx.unsupported()
        width = 16 if "128" in mods else 8 if "64" in mods else 4
    nw = width // 4
    row = reg_row(Reg(base.file, base.index))
    ctx.read(row, 2, "addr")
    src = ctx.srcn(data[0], nw)
    off = mem.offset
    m = ctx.m
    R = m.R
    dt = U64 if typ == "U64" else U32

    def fn(sel: Sel) -> None:
        idx = m.index(sel)
        v = np.broadcast_to(src(sel), (nw, idx.size))
        addr = R[row][idx].astype(np.int64) + off
        bars = R[row + 1][idx].astype(np.int64)
        for k, lane in enumerate(idx.tolist()):
            a = addr[k : k + 1]
            ln = np.array([lane])
            words = np.ascontiguousarray(v[:, k : k + 1])
            if red_op:
                old = np.ascontiguousarray(m.load("shared", a, ln, width, False)[:, 0])
                new = atom_apply(
                    red_op, typ, old.view(dt), np.ascontiguousarray(words[:, 0]).view(dt), None
                )
                words = np.asarray(new, dtype=dt).view(U32)[:, None]
            m.store("shared", a, ln, width, words)
            mbar_update(m, int(bars[k]), lane, 0, -width)

    return Bound(fn)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "ARRIVES": bind_arrives,
    "STAS": bind_stas,
    "REDAS": bind_stas,
    "UTMALDG": bind_utma,
    "UTMASTG": bind_utma,
    "UTMAREDG": bind_utma,
    "UTMACCTL": bind_utma,
    "SYNCS": bind_syncs,
    "UBLKCP": bind_ublk,
    "UBLKRED": bind_ublk,
    "UBLKPF": bind_ublk,
}
