"""Selection rules for warp collectives, barriers, fences and small instructions of sm_90
(issue 20), as ptxas 13.0.88 compiles them (listings: ``scripts/probe_warp.py <family>``).

- ``redux.sync.<op>.<t> d, a, m``: ``REDUX[.SUM|.MIN|.MAX|.OR|.XOR][.S32] UR, R`` then ``MOV``;
  a member mask other than all lanes is first waited for with ``WARPSYNC m`` (ptxas adds a
  ``BRA.DIV`` to a ``WARPSYNC.COLLECTIVE`` copy for ``.add``; the effect is the same).
- ``match.{any,all}.sync.b32/b64``: ``MATCH.ANY[.U64] R, R`` / ``MATCH.ALL[.U64] P, R, R``.
- ``elect.sync d|p, m``: ``ELECT P, UR, PT`` (ptxas ignores the member mask) then ``MOV``.
- ``bar.arrive``/``barrier.arrive a{, b}``: ``BAR.ARV a{, b}``.
- ``membar``/``fence.{sc,acq_rel}.<scope>``: ``MEMBAR.{SC,ALL}.{CTA,GPU,SYS}``, and beyond the
  CTA ``ERRBAR; CGAERRBAR; CCTL.IVALL``; ``fence.proxy.async[.shared::cta|.shared::cluster|
  .global]``: ``MEMBAR.ALL.{CTA,GPU}`` (not for .global) then ``FENCE.VIEW.ASYNC.{S,G}``;
  ``fence.mbarrier_init``: nothing.
- ``barrier.cluster.arrive[.release|.relaxed]``: on an explicit cluster launch (the bank-0 flag
  of ``%is_explicit_cluster``) ``MEMBAR.ALL.GPU; ERRBAR; CGAERRBAR`` (not when relaxed) and
  ``UCGABAR_ARV``, else nothing; ``barrier.cluster.wait``: ``UCGABAR_WAIT; CCTL.IVALL`` on an
  explicit cluster launch, else ``BAR.SYNC 0``.
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, URZ, Addr, Block, CBank, Guard, Imm, Label, Operand
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType
ALL_LANES = 0xFFFFFFFF


def nanosleep(ins: ast.Instruction, c: LowerCtx) -> None:
    """``nanosleep.u32 t``: ``NANOSLEEP R`` or ``NANOSLEEP imm``."""
    c.emit("NANOSLEEP", (), [], [c.value(ins.operands[0], T.U32)])


def _all_lanes(op: ast.Operand) -> bool:
    return isinstance(op, ast.IntImm) and op.value & ALL_LANES == ALL_LANES


def warpsync(c: LowerCtx, mask: ast.Operand) -> None:
    """``WARPSYNC mask`` unless the mask names every lane (InsertConvergenceBarriers drops it
    again where the warp cannot be diverged, as ptxas does)."""
    if not _all_lanes(mask):
        c.emit("WARPSYNC", (), [], [c.rvalue(mask, T.B32)])  # no immediate form


_REDUX = {"add": "SUM", "min": "MIN", "max": "MAX", "and": "", "or": "OR", "xor": "XOR"}


def redux(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, mask = ins.operands
    t = ins.type
    op = _REDUX.get(ins.op or "")
    if op is None or t not in (T.U32, T.S32, T.B32) or ins.has("abs") or ins.has("NaN"):
        raise c.unsupported(f"instruction '{ins.name}'")
    mods = tuple(m for m in (op, "S32" if t is T.S32 and op else "") if m)
    warpsync(c, mask)
    u = c.new(RC.UR)
    c.emit("REDUX", mods, [u], [c.rvalue(a, T.B32)])
    c.emit("MOV", (), [c.dst(d)], [u])


def match(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, mask = ins.operands
    t = ins.type
    wide = t in (T.B64, T.U64, T.S64)
    mods = ("ANY" if ins.op == "any" else "ALL", *(("U64",) if wide else ()))
    warpsync(c, mask)  # (where the warp may be diverged: "WARPSYNC R4; MATCH.ANY R5, R7")
    src = c.rvalue(a, T.B64 if wide else T.B32)
    if ins.op == "any":
        c.emit("MATCH", mods, [c.dst(d)], [src])
        return
    if isinstance(d, ast.Pair):
        rd, pd = c.dst(d.first), (PT if isinstance(d.second, ast.Sink) else c.dst(d.second))
    else:
        rd, pd = c.dst(d), PT
    c.emit("MATCH", mods, [pd, rd], [src])


def elect(ins: ast.Instruction, c: LowerCtx) -> None:
    d, mask = ins.operands
    _ = mask  # ptxas: ELECT P, UR, PT whatever the member mask
    assert isinstance(d, ast.Pair)
    pd: Operand = PT if isinstance(d.second, ast.Sink) else c.dst(d.second)
    if isinstance(d.first, ast.Sink):
        c.emit("ELECT", (), [pd, URZ], [PT])
        return
    u = c.new(RC.UR)
    c.emit("ELECT", (), [pd, u], [PT])
    c.emit("MOV", (), [c.dst(d.first)], [u])


def _barrier_id(c: LowerCtx, op: ast.Operand) -> Operand:
    v = c.value(op, T.U32)
    if isinstance(v, Imm):
        c.fn.barriers = max(c.fn.barriers, v.value + 1)
    else:
        c.fn.barriers = 16
    return v


def bar_arrive(ins: ast.Instruction, c: LowerCtx) -> None:
    ops = ins.operands
    if not all(isinstance(o, ast.IntImm) for o in ops[1:]):
        raise c.unsupported("bar.arrive with a thread count in a register")
    srcs = [_barrier_id(c, ops[0]), *(c.value(o, T.U32) for o in ops[1:])]
    c.emit("BAR", ("ARV",), [], srcs)


_MEMBAR_SCOPE = {"cta": "CTA", "gpu": "GPU", "cluster": "GPU", "sys": "SYS", "gl": "GPU"}


def _membar(c: LowerCtx, order: str, scope: str) -> None:
    c.emit("MEMBAR", (order, scope), [], [])
    if scope != "CTA":
        c.emit("ERRBAR")
        c.emit("CGAERRBAR")
        c.emit("CCTL", ("IVALL",), [], [])


def membar(ins: ast.Instruction, c: LowerCtx) -> None:
    scope = next((s for m, s in _MEMBAR_SCOPE.items() if ins.has(m)), None)
    if scope is None or ins.has("proxy"):
        raise c.unsupported(f"instruction '{ins.name}'")
    _membar(c, "SC", scope)


_PROXY_ASYNC = frozenset({"proxy", "async", "shared::cta", "shared::cluster", "global"})


def fence(ins: ast.Instruction, c: LowerCtx) -> None:
    if ins.has("mbarrier_init"):
        return  # ptxas emits nothing (the mbarrier.init stores are ordered already)
    if ins.has("proxy"):
        if not ins.has("async") or ins.mods.raw_set - _PROXY_ASYNC:
            raise c.unsupported(f"instruction '{ins.name}'")
        if ins.has("global"):
            c.emit("FENCE", ("VIEW", "ASYNC", "G"), [], [])
            return
        c.emit("MEMBAR", ("ALL", "CTA" if ins.has("shared::cta") else "GPU"), [], [])
        c.emit("FENCE", ("VIEW", "ASYNC", "S"), [], [])
        return
    scope = next((s for m, s in _MEMBAR_SCOPE.items() if ins.has(m)), None)
    if scope is None or not (ins.has("sc") or ins.has("acq_rel")):
        raise c.unsupported(f"instruction '{ins.name}'")
    _membar(c, "SC" if ins.has("sc") else "ALL", scope)


def _if_explicit_cluster(c: LowerCtx) -> Block:
    """Branch over what follows unless this is an explicit cluster launch; the block the
    branch goes to (not yet placed)."""
    flag = c.new(RC.R)
    c.emit("LDC", (), [flag], [CBank(0, c.target.abi.cb_is_explicit_cluster)])
    p = c.new(RC.P)
    c.emit("ISETP", ("EQ", "U32", "AND"), [p, PT], [flag, Imm(1), PT])
    skip = c.new_block("ncl")
    c.emit("BRA", (), [], [Label(skip.name)], guard=Guard(p, True))
    _place(c, c.new_block("cl"))
    return skip


def _place(c: LowerCtx, b: Block) -> None:
    c.fn.blocks.append(b)
    c.block = b


def barrier_cluster(ins: ast.Instruction, c: LowerCtx) -> None:
    if c.target.abi.cb_is_explicit_cluster < 0:
        raise c.unsupported(f"instruction '{ins.name}'")
    skip = _if_explicit_cluster(c)
    if ins.has("arrive"):
        if not ins.has("relaxed"):
            c.emit("MEMBAR", ("ALL", "GPU"), [], [])
            c.emit("ERRBAR")
            c.emit("CGAERRBAR")
        c.emit("UCGABAR_ARV")
        _place(c, skip)
        return
    c.emit("UCGABAR_WAIT")
    if not ins.has("relaxed"):
        c.emit("CCTL", ("IVALL",), [], [])
    end = c.new_block("cl_end")
    c.emit("BRA", (), [], [Label(end.name)])
    _place(c, skip)
    c.fn.barriers = max(c.fn.barriers, 1)
    c.emit("BAR", ("SYNC", "DEFER_BLOCKING"), [], [Imm(0)])
    _place(c, end)


def setmaxnreg(ins: ast.Instruction, c: LowerCtx) -> None:
    """``setmaxnreg.{inc,dec}``: ptxas 13.0 ignores it ("(C7508) Potential Performance Loss:
    'setmaxnreg' ignored; unable to determine register count at entry") unless the kernel has
    ``.maxnreg``; then it emits ``USETMAXREG.TRY_ALLOC.CTAPOOL`` retry loops and
    ``USETMAXREG.DEALLOC.CTAPOOL`` and allocates within the new limits, which we do not yet."""
    if c.func.maxnreg is not None:
        raise c.unsupported(f"instruction '{ins.name}' in a kernel with .maxnreg")


_PREFETCH = {"L1": "PF1", "L2": "PF2", "L2::evict_normal": "PF2", "L2::evict_last": "PML2"}


def _cctl(ins: ast.Instruction, c: LowerCtx, op: str) -> None:
    """``CCTL.E.<op> [R+off]`` on a global or generic address (no descriptor, as ptxas), or
    ``CCTLL.<op> [R+off]`` on a local one (the frame's stack-pointer-relative address)."""
    space = ins.space if ins.space is not StateSpace.GLOBAL else None
    if space not in (None, StateSpace.LOCAL):
        raise c.unsupported(f"instruction '{ins.name}'")
    a = c.mem_addr(c.address(ins.operands[0]), space)
    if space is StateSpace.LOCAL:
        c.emit("CCTLL", (op,), [], [Addr(a.base, a.offset)])
    else:
        c.emit("CCTL", ("E", op), [], [Addr(a.base, a.offset)])


def prefetch(ins: ast.Instruction, c: LowerCtx) -> None:
    """``prefetch[.global|.local].{L1,L2} [a]``, ``prefetch[.global].L2::evict_{normal,last}``,
    ``prefetchu.L1``: ``CCTL.E.<PF1|PF2|PML2>`` (``CCTLL.<PF1|PF2>`` for local memory)."""
    level = next((v for k, v in _PREFETCH.items() if ins.has(k)), None)
    if level is None:
        raise c.unsupported(f"instruction '{ins.name}'")
    _cctl(ins, c, level)


def discard(ins: ast.Instruction, c: LowerCtx) -> None:
    """``discard[.global].L2 [a], 128``: ``CCTL.E.RML2 [R+off]`` (the line's data is dropped
    from L2 without being written back; the emulator treats it as a no-op)."""
    _cctl(ins, c, "RML2")


def applypriority(ins: ast.Instruction, c: LowerCtx) -> None:
    """``applypriority[.global].L2::evict_normal [a], 128``: ``CCTL.E.DML2 [R+off]`` (the
    line's L2 eviction priority is reset to normal)."""
    _cctl(ins, c, "DML2")


RULES: list[Rule] = [
    Rule("prefetch", "prefetch", always, prefetch, "prefetch.global.L2 [%rd1];"),
    Rule("prefetchu", "prefetchu", always, prefetch, "prefetchu.L1 [%rd1];"),
    Rule("discard", "discard", always, discard, "discard.global.L2 [%rd1], 128;"),
    Rule(
        "applypriority",
        "applypriority",
        always,
        applypriority,
        "applypriority.global.L2::evict_normal [%rd1], 128;",
    ),
    Rule("setmaxnreg", "setmaxnreg", always, setmaxnreg, "setmaxnreg.inc.sync.aligned.u32 232;"),
    Rule("nanosleep", "nanosleep", always, nanosleep, "nanosleep.u32 %r1;"),
    Rule("redux.sync", "redux", always, redux, "redux.sync.add.u32 %r1, %r2, -1;"),
    Rule("match.sync", "match", always, match, "match.any.sync.b32 %r1, %r2, -1;"),
    Rule("elect.sync", "elect", always, elect, "elect.sync %r1|%p1, -1;"),
    Rule(
        "barrier.cluster",
        "barrier.cluster",
        always,
        barrier_cluster,
        "barrier.cluster.arrive;",
    ),
    Rule("bar.arrive", "bar", lambda i: i.has("arrive"), bar_arrive, "bar.arrive 1, 64;"),
    Rule(
        "barrier.arrive",
        "barrier",
        lambda i: i.has("arrive"),
        bar_arrive,
        "barrier.arrive 1, 64;",
    ),
    Rule("membar", "membar", always, membar, "membar.gl;"),
    Rule("fence", "fence", always, fence, "fence.sc.gpu;"),
]
