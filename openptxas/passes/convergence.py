"""InsertConvergenceBarriers: BSSY/BSYNC around divergent regions, as ptxas 13.0 does on sm_90.

Pre: virtual IR, blocks in layout order. Post: every divergent conditional branch whose block
dominates its reconvergence point r (its immediate post-dominator) is preceded by
``BSSY Bk, <after r's BSYNC>``; r starts with a block holding only ``BSYNC Bk``, which the
region's branches target, and the BSSY's label names the block after it (ptxas's layout:
``BSYNC B0`` at ``.L_x_1``, the BSSY target ``.L_x_0`` right after). A region nested in another
uses another barrier register (see _barrier_registers); a divergent branch inside a region that
already reconverges at the same point gets no second BSSY. Branches whose region is not
single-entry get none (the warp then reconverges later; results are unaffected).

Subroutines (a kernel's device functions, placed after it) get their regions too, as ptxas's
do: B0-B5 are the callee's to change, B6-B15 the caller's. A region with a call in it (a
subroutine, vprintf; not ptxas's own division and square root subroutines, which use none)
takes a register from B6 up, so that the callee's own
regions cannot re-arm it; a subroutine that uses one of B6-B15 saves the caller's copy on
entry (``BMOV.32.CLEAR Rx, Bk``) and restores it before each return (``BMOV.32 Bk, Rx``). Without
them a warp that diverged in a subroutine ran the rest of it, and its caller, once per path:
t2/recursion executed 1.56 times ptxas's instructions.
"""

from __future__ import annotations

from openptxas.ir.cfg import (
    CFG,
    EXIT_NODE,
    Dominance,
    dominators,
    natural_loops,
    reverse_postorder,
)
from openptxas.ir.core import RC, RZ, Addr, Block, Function, Guard, Imm, Instr, Label, Operand, Reg
from openptxas.ir.uniform import analyze
from openptxas.passes.manager import PassContext

MAX_BARRIERS = 16
CALLEE_SAVED = 6  # B6-B15 keep their value across a call (ptxas 13.0's convention)


def _barrier_block(
    idom: list[int], member: dict[int, list[tuple[int, int, frozenset[int]]]], b: int, r: int
) -> int | None:
    """Where the BSSY for divergent branch block b (reconverging at r) goes: b itself, or, when
    b is in loops that r is not in (threads leave them at different iterations: a loop's exit
    test, at its top or its bottom), the preheader of the outermost of them, so that the
    barrier is armed once with every thread that enters the loop (arming it again on each
    iteration would drop the threads already waiting at the BSYNC). ``member``: the loops
    (size, header, blocks) each block is in."""
    outer = [(size, h) for size, h, body in member.get(b, ()) if r not in body]
    if not outer:
        return b
    h = max(outer)[1]
    p = idom[h]
    if p < 0 or p >= h:
        return None
    return p


def _barrier_registers(
    regions: list[tuple[int, int]],
    low: dict[tuple[int, int], int],
    limit: int = MAX_BARRIERS,
) -> dict[tuple[int, int], int]:
    """A barrier register per region (b, r): regions that threads of one warp can be inside
    at the same time get different registers. That is a region and those nested in it, and two
    regions nested in a common one (they may lie in its two arms, whose threads run interleaved:
    a BSSY in one arm must not re-arm the barrier the other arm's threads wait on). Disjoint
    regions outside any common region run one after the other and share registers (B0 for
    every top-level region, as ptxas). A region takes a register from ``low`` (the lowest it
    may use: B6 for one with a call inside) below ``limit``, or none."""

    def inside(x: tuple[int, int], y: tuple[int, int]) -> bool:  # x nested in y
        return x != y and y[0] < x[0] < y[1] and x[1] <= y[1]

    # Only regions whose block ranges overlap, directly or through others, can interfere (a
    # region nested in another overlaps it; two nested in a common one overlap it): each
    # cluster of overlapping ranges is allocated on its own, in the regions' order, which
    # gives every region the register the pairwise scan of all regions gave it.
    order = {x: k for k, x in enumerate(regions)}
    clusters: list[list[tuple[int, int]]] = []
    end = -1
    for x in sorted(regions):
        # a region starting where the others end is no neighbour: nesting needs a start
        # strictly inside the other's range (consecutive loops: one's exit, the next's entry)
        if not clusters or x[0] >= end:
            clusters.append([])
        clusters[-1].append(x)
        end = max(end, x[1])
    got: dict[tuple[int, int], int] = {}
    for cl in clusters:
        cl.sort(key=order.__getitem__)
        outer = {x: {y for y in cl if inside(x, y)} for x in cl}
        mine: dict[tuple[int, int], int] = {}
        for x in cl:
            used = {
                d
                for y, d in mine.items()
                if inside(x, y) or inside(y, x) or outer[x] & outer[y]  # nested, or in one
            }
            d = next((k for k in range(low.get(x, 0), limit) if k not in used), limit)
            if d < limit:
                mine[x] = d
        got.update(mine)
    return {x: got[x] for x in regions if x in got}


def drop_converged_warpsyncs(fn: Function) -> int:
    """Remove the ``WARPSYNC`` of a warp collective (or ``bar.warp.sync``) that no thread can
    reach with its warp diverged: in a kernel, before any divergent branch or call on every
    path from the entry. Every lane of the warp is there together, so the wait is a no-op for a
    mask that names them all, and ptxas 13.0.88 drops it whatever the mask: it compiles
    ``redux.sync.add.s32 d, a, 0xff`` in straight-line code to a bare ``REDUX.SUM.S32``, and
    fast.cu's sumKernel4 relies on that (a ``WARPSYNC 0xff`` run by the whole warp traps on an
    H200: CUDA error 715). Inside a divergent region the WARPSYNC stays, as in ptxas's code.
    The warp is together again after the BSYNCs of a region whose BSSY it executed together
    (runs after InsertConvergenceBarriers): ptxas's reduce7 (cuda-samples reduction) has a bare
    ``REDUX.SUM.S32`` right after the BSYNC of its grid-stride loop, for a ``redux.sync`` whose
    mask names lane 0 only; ours kept ``WARPSYNC 0x1``, which the whole warp cannot pass.
    Returns how many were removed."""
    if not fn.is_entry or not any(i.op == "WARPSYNC" for b in fn.blocks for i in b.instrs):
        return 0
    info = analyze(fn)
    cfg = CFG.of(fn, over_calls=True)
    calls = {bi for bi, b in enumerate(fn.blocks) if any(i.op == "CALL" for i in b.instrs)}
    index = {blk.name: i for i, blk in enumerate(fn.blocks)}
    armed: dict[int, list[int]] = {}  # a region's BSYNC block -> the blocks of its BSSYs
    for bi, blk in enumerate(fn.blocks):
        for k, ins in enumerate(blk.instrs):
            if ins.op == "BSSY" and ins.srcs and isinstance(ins.srcs[-1], Label):
                after_sync = index.get(ins.srcs[-1].block, 0)
                if not any(i.op == "CALL" for i in blk.instrs[:k]):
                    armed.setdefault(after_sync - 1, []).append(bi)
    # (a subroutine's blocks are not reachable from the entry over calls: never converged)
    reach = reverse_postorder(cfg.succs, [0])
    converged = set(reach)
    split = info.divergent | calls  # blocks after which the warp may run apart
    changed = True
    while changed:
        changed = False
        for b in reach:
            if b not in converged:
                continue
            if any(x in converged for x in armed.get(b, ())):
                continue  # every lane of a together-armed barrier waits here
            if all(p in converged and p not in split for p in cfg.preds[b]):
                continue
            converged.discard(b)
            changed = True
    removed = 0
    for bi, blk in enumerate(fn.blocks):
        kept: list[Instr] = []
        called = bi not in converged
        synced: list[Operand] = []  # masks whose lanes are together since their WARPSYNC
        for ins in blk.instrs:
            if ins.op == "WARPSYNC" and ins.guard is None:
                mask = ins.srcs[0] if ins.srcs else None
                if not called or (mask is not None and mask in synced):
                    # converged from the entry, or by the same mask's WARPSYNC earlier in the
                    # block (no branch in between: ptxas waits once before a row of SHFLs)
                    removed += 1
                    continue
                if mask is not None:
                    synced.append(mask)
            if ins.op == "CALL":
                called, synced = True, []
            written = set(ins.def_regs())
            synced = [m for m in synced if m not in written]
            kept.append(ins)
        blk.instrs = kept
    return removed


def insert_convergence_barriers(fn: Function, ctx: PassContext) -> None:
    info = analyze(fn, loads_by_address=True)
    if not info.divergent:
        return
    cfg = CFG.of(fn, over_calls=True)
    index = {blk.name: i for i, blk in enumerate(fn.blocks)}
    entries = [0] + [index[e] for _, e in fn.subroutines]
    idom = dominators(cfg, entries)
    dom = Dominance(idom)
    postdom = Dominance(info.ipdom)
    owner: dict[int, int] = {}  # block -> the entry of the function it is in
    for e in entries:
        for x in reverse_postorder(cfg.succs, [e]):
            owner.setdefault(x, e)
    # (branch block, reconvergence block) pairs, outermost first in layout order.
    candidates: set[tuple[int, int]] = set()
    member: dict[int, list[tuple[int, int, frozenset[int]]]] = {}
    for h, body in natural_loops(cfg, dom):
        for x in body:
            member.setdefault(x, []).append((len(body), h, body))
    for bb in sorted(info.divergent):
        r = info.ipdom[bb]
        b = _barrier_block(idom, member, bb, r) if r != EXIT_NODE else bb
        if b is None or r == EXIT_NODE or r <= b or not dom(b, r):
            continue
        if b != bb and not postdom(r, b):  # r post-dominates b
            # the preheader also branches past the loop (threads that skip it never reach r):
            # a BSSY there would wait for them forever (llm.c attention_backward
            # softmax_autoregressive_backward_kernel5 deadlocked); no barrier, the warp
            # reconverges later
            continue
        candidates.add((b, r))
    # ptxas's own subroutines (division and square root slow paths, 64-bit division) are
    # leaves: a region that calls only them keeps B0-B5, and theirs take the registers above
    # every one armed around a call of them (ptxas: B1 and B2 in the f32 division slow path
    # called inside a B0 region), none of B6-B15
    leaves = {index[e] for name, e in fn.subroutines if name.startswith("$__cuda")}
    regions: list[tuple[int, int]] = []
    in_leaves: list[tuple[int, int]] = []
    low: dict[tuple[int, int], int] = {}
    calls_of: dict[tuple[int, int], set[int]] = {}  # region -> the leaves called in it
    starts: dict[int, list[int]] = {}  # reconvergence block -> the regions' branch blocks
    for b, r in sorted(candidates):
        if any(dom(rb, b) for rb in starts.get(r, ())):
            continue  # an enclosing region already reconverges there
        inside = _region(cfg.succs, b, r)
        code = [i for x in inside for i in fn.blocks[x].instrs]
        if any(i.op == "RET" for i in code):
            continue  # (a guarded return: its threads would never reach the BSYNC)
        targets = [_callee(i, index) for i in code if i.op == "CALL"]
        calls_of[(b, r)] = {t for t in targets if t in leaves}
        if any(t not in leaves for t in targets):
            low[(b, r)] = CALLEE_SAVED
        (in_leaves if owner.get(b) in leaves else regions).append((b, r))
        starts.setdefault(r, []).append(b)
    if not regions and not in_leaves:
        return
    depth = _barrier_registers(regions, low)
    for lr in in_leaves:
        low[lr] = 1 + max(
            (d for y, d in depth.items() if owner.get(lr[0]) in calls_of[y]), default=-1
        )
    depth.update(_barrier_registers(in_leaves, low, limit=CALLEE_SAVED))
    _save_callers_barriers(fn, ctx, cfg, index, owner, depth)
    names = [blk.name for blk in fn.blocks]
    sync_blocks: dict[int, list[int]] = {}
    for (_b, r), d in depth.items():
        sync_blocks.setdefault(r, []).append(d)
    # Insert BSSY before each region's branch (at the end of a loop's preheader).
    for (b, r), d in depth.items():
        blk = fn.blocks[b]
        t = blk.terminator()
        at = len(blk.instrs) - 1 if t is not None else len(blk.instrs)
        line = t.line if t is not None else 0
        blk.instrs.insert(at, Instr("BSSY", (), [Reg(RC.B, d)], [Label(names[r])], line=line))
    # Split each reconvergence block: a BSYNC block that branches target, then the block itself
    # (the BSSYs' label). Inner barriers synchronise first.
    new_blocks: list[Block] = []
    retarget: dict[str, str] = {}
    for i, blk in enumerate(fn.blocks):
        if i in sync_blocks:
            sync = Block(
                f"{blk.name}.sync",
                [
                    Instr("BSYNC", (), [], [Reg(RC.B, d)])
                    for d in sorted(sync_blocks[i], reverse=True)
                ],
            )
            retarget[blk.name] = sync.name
            new_blocks.append(sync)
        new_blocks.append(blk)
    for blk in new_blocks:
        for ins in blk.instrs:
            if ins.op in ("BRA", "BRX"):
                ins.srcs = [
                    Label(retarget.get(s.block, s.block)) if isinstance(s, Label) else s
                    for s in ins.srcs
                ]
    fn.blocks = new_blocks


def _callee(call: Instr, index: dict[str, int]) -> int | None:
    """The entry block a CALL goes to (None: through a register, or resolved by the driver)."""
    s = call.srcs[0] if call.srcs else None
    return index.get(s.block) if isinstance(s, Label) else None


def _region(succs: list[list[int]], b: int, r: int) -> set[int]:
    """The blocks of region (b, r): those reached from b before r."""
    seen = {b}
    work = [b]
    while work:
        for s in succs[work.pop()]:
            if s != r and s not in seen:
                seen.add(s)
                work.append(s)
    return seen


def _save_callers_barriers(
    fn: Function,
    ctx: PassContext,
    cfg: CFG,
    index: dict[str, int],
    owner: dict[int, int],
    depth: dict[tuple[int, int], int],
) -> None:
    """In each subroutine, save the caller's copy of every callee-saved barrier register its
    regions use on entry and restore it before each return, as ptxas:
    ``BMOV.32.CLEAR Rx, B6`` ... ``BMOV.32 B6, Rx; RET.REL.NODEC``. A recursive function keeps
    the copy in its frame (every activation uses the same registers: lower/recursion.py saved
    the values live across its calls before this pass added one); the others in a register,
    which the allocator keeps from their callees as any value live across a call."""
    recursive = {index[entry] for entry, _frame in fn.frames.values()}
    sp = Reg(RC.R, ctx.target.abi.stack_pointer)
    for name, entry in fn.subroutines:
        e = index[entry]
        used = sorted(
            {d for (b, _r), d in depth.items() if owner.get(b) == e and d >= CALLEE_SAVED}
        )
        if not used:
            continue
        # the entry block runs once per call: the lowering starts each subroutine with a block
        # no branch targets (its loops begin in a later block)
        assert not cfg.preds[e], f"subroutine entry {entry} is a branch target"
        first = fn.blocks[e].instrs
        rets = [
            (blk, k)
            for x, blk in enumerate(fn.blocks)
            if owner.get(x) == e
            for k in range(len(blk.instrs) - 1, -1, -1)
            if blk.instrs[k].op == "RET"
        ]
        saves = [(d, fn.new_vreg(RC.R)) for d in used]
        enter = [Instr("BMOV", ("32", "CLEAR"), [v], [Reg(RC.B, d)]) for d, v in saves]
        if e not in recursive:
            first[0:0] = enter
            for blk, k in rets:
                ret = blk.instrs[k]
                blk.instrs[k:k] = [
                    _like(ret, Instr("BMOV", ("32",), [Reg(RC.B, d)], [v]))
                    for d, v in reversed(saves)
                ]
            continue
        # the frame grows by the slots, above the function's own (its locals and saves keep
        # their offsets from the stack pointer): the entry's and the returns' adjustments of the
        # stack pointer change, or are made
        grow = (4 * len(saves) + 7) // 8 * 8
        step = _sp_step(first[0], sp, None) if first else None
        size = 0 if step is None else -step
        if step is None:
            first.insert(0, Instr("IADD3", (), [sp], [sp, Imm(0), RZ]))
        first[0].srcs[1] = Imm((-(size + grow)) & 0xFFFFFFFF)
        first[1:1] = enter + [
            Instr("STL", (), [], [Addr(sp, size + 4 * j), v]) for j, (_d, v) in enumerate(saves)
        ]
        for blk, k in rets:
            # (a guarded return's release and restores run under its guard: the threads that
            # do not return yet keep the frame, fuzzer seed 156116)
            ret = blk.instrs[k]
            at = k - 1 if k and _sp_step(blk.instrs[k - 1], sp, ret.guard) == size else None
            if at is None:
                assert size == 0, f"{name}: a return without its frame's release"
                at = k
                blk.instrs.insert(at, _like(ret, Instr("IADD3", (), [sp], [sp, Imm(0), RZ])))
            blk.instrs[at].srcs[1] = Imm(size + grow)
            back = []
            for j, (d, _v) in enumerate(saves):
                w = fn.new_vreg(RC.R)
                back.append(_like(ret, Instr("LDL", (), [w], [Addr(sp, size + 4 * j)])))
                back.append(_like(ret, Instr("BMOV", ("32",), [Reg(RC.B, d)], [w])))
            blk.instrs[at:at] = back
        frame, saved = fn.sub_frames.get(name, (0, 0))
        fn.sub_frames[name] = (frame + grow, saved + 4 * len(saves))


def _like(ret: Instr, ins: Instr) -> Instr:
    """``ins`` on ``ret``'s line, under its guard."""
    ins.line, ins.guard = ret.line, ret.guard  # (a Guard is immutable: shared safely)
    return ins


def _sp_step(ins: Instr, sp: Reg, guard: Guard | None) -> int | None:
    """The signed change of the stack pointer by ``IADD3 sp, sp, imm, RZ`` under ``guard``."""
    if (
        ins.op != "IADD3"
        or ins.guard != guard
        or ins.dsts != [sp]
        or len(ins.srcs) != 3
        or ins.srcs[0] != sp
        or not isinstance(ins.srcs[1], Imm)
    ):
        return None
    v = ins.srcs[1].value & 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v
