"""mbarrier objects and asynchronous copies (sm_90), as ptxas 13.0.88 compiles them
(``scripts/probe_warp.py mbarrier``):

- address: a shared register ``[R+URZ+off]``; a 64-bit (generic) one by its low word, as ptxas;
  a shared variable by its shared-window address.
- ``mbarrier.init [a], n``: ``t = 0x100000 - n``; ``SYNCS.EXCH.64 URZ, [UR], {t << 1, t << 11}``
  (address and count through ``R2UR``, as ptxas).
- ``mbarrier.arrive[_drop][.expect_tx] d, [a]{, n}``: ``SYNCS.ARRIVE.TRANS64[.RED][.OPTOUT]
  .{A1T0 | ART0 | -} d, [a], {RZ | n | tx}`` (``.RED`` on ``.shared::cluster``); ``.release
  .cluster`` first ``MEMBAR.ALL.CTA; MEMBAR.ALL.GPU; ERRBAR; CGAERRBAR``;
  ``mbarrier.expect_tx``/``complete_tx``: ``SYNCS.ARRIVE.TRANS64.RED.A0TR``/``.A0TX RZ, [a], tx``.
- ``mbarrier.{test,try}_wait[.parity] p, [a], s``: ``SYNCS.PHASECHK.TRANS64[.TRYWAIT] P, [a],
  x`` with ``x`` the state's upper word or ``parity << 31``; ``.acquire.cluster``:
  ``@P CCTL.IVALL``;
  a suspend-time hint: ``@!P NANOSLEEP.SYNCS t; @!P SYNCS.PHASECHK.TRANS64 P, [a], x``.
- ``mbarrier.inval [a]``: ``SYNCS.CCTL.IV [UR]``.
- predicated ``mbarrier.init``/``inval`` (their SYNCS take no P guard): a branch around them
  (ptxas: ``VOTEU.ALL UP0, !p; @!UP0 SYNCS.EXCH.64``).
- ``mbarrier.pending_count d, s``: ``0x100000 - ((s.hi >> 11) & 0xfffff)``.
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, URZ, Addr, Guard, Imm, Operand, Src, SReg, VReg
from openptxas.lower.bulk_rules import guarded
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import add_low, half
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType
NOT_PT = Src(PT, inv=True)


def _addr(c: LowerCtx, op: ast.Operand) -> Addr:
    """``[R+URZ+off]`` for an mbarrier's address operand."""
    if not isinstance(op, ast.Address):
        raise c.unsupported(f"address operand {op!r}")
    base = op.base
    if isinstance(base, ast.Sym):
        if base.name not in c.shared:
            raise c.unsupported(f"an mbarrier in '{base.name}'")
        r = c.new(RC.R)
        c.shared_addr(r, c.shared[base.name] + base.offset, base.name)
        return Addr(r, op.offset, ubase=URZ)
    if not isinstance(base, ast.Reg):
        raise c.unsupported("absolute address")
    v = c.reg_part(base)
    lo = half(v, 0) if isinstance(v, VReg) and v.width == 2 else v
    return Addr(lo, op.offset, ubase=URZ)


def _uaddr(c: LowerCtx, op: ast.Operand) -> Addr:
    """``[UR+off]``: the address through R2UR (ptxas's init and inval)."""
    a = _addr(c, op)
    assert a.base is not None
    u = c.new(RC.UR)
    c.emit("R2UR", (), [u], [a.base])
    return Addr(u, a.offset)


def _check_space(c: LowerCtx, ins: ast.Instruction) -> None:
    if ins.space not in (None, StateSpace.SHARED, StateSpace.SHARED_CTA, StateSpace.SHARED_CLUSTER):
        raise c.unsupported(f"instruction '{ins.name}'")


def mbarrier_init(ins: ast.Instruction, c: LowerCtx) -> None:
    _check_space(c, ins)
    a, n = ins.operands
    addr = _uaddr(c, a)
    cnt = c.new(RC.UR)
    v = c.value(n, T.U32)
    if isinstance(v, Imm):
        c.emit("UMOV", (), [cnt], [v])
    else:
        c.emit("R2UR", (), [cnt], [v])
    t = c.new(RC.UR)
    c.emit("UIADD3", (), [t], [Src(cnt, neg=True), Imm(0x100000), URZ])
    val = c.new(RC.UR, 2)
    c.emit("USHF", ("L", "U32"), [val.hi], [t, Imm(11), URZ])
    c.emit("USHF", ("L", "U32"), [val.lo], [t, Imm(1), URZ])
    c.emit("SYNCS", ("EXCH", "64"), [URZ], [addr, val])


def _release_cluster(c: LowerCtx, ins: ast.Instruction) -> None:
    scope = ins.mods.scope
    if scope is not None and str(scope.value) == "cluster":
        c.emit("MEMBAR", ("ALL", "CTA"), [], [])
        c.emit("MEMBAR", ("ALL", "GPU"), [], [])
        c.emit("ERRBAR")
        c.emit("CGAERRBAR")


def _state_dst(c: LowerCtx, d: ast.Operand) -> Operand:
    if isinstance(d, ast.Sink):
        return RZ
    dv = c.dst(d)
    if dv.width != 2:
        raise c.unsupported("an mbarrier state that is not 64-bit")
    return dv


def mbarrier_arrive(ins: ast.Instruction, c: LowerCtx) -> None:
    _check_space(c, ins)
    ops = ins.operands
    if ins.has("noComplete"):
        raise c.unsupported(f"instruction '{ins.name}'")
    red = ins.space is StateSpace.SHARED_CLUSTER
    if red and not isinstance(ops[0], ast.Sink):
        raise c.unsupported("the state of a remote mbarrier.arrive")
    addr = _addr(c, ops[1])
    mods: tuple[str, ...] = ("TRANS64", *(("RED",) if red else ()))
    if ins.opcode == "mbarrier.arrive_drop":
        mods = (*mods, "OPTOUT")
    if ins.has("expect_tx"):
        if len(ops) != 3:
            raise c.unsupported(f"instruction '{ins.name}'")
        arg: Operand = c.rvalue(ops[2], T.U32)
    elif len(ops) == 3:
        mods = (*mods, "ART0")
        arg = c.rvalue(ops[2], T.U32)
    else:
        mods = (*mods, "A1T0")
        arg = RZ
    _release_cluster(c, ins)
    c.emit("SYNCS", ("ARRIVE", *mods), [_state_dst(c, ops[0])], [addr, arg])


def mbarrier_expect_tx(ins: ast.Instruction, c: LowerCtx) -> None:
    """``mbarrier.expect_tx`` (``.A0TR``: raise the transaction count) and
    ``mbarrier.complete_tx`` (``.A0TX``: lower it), no arrival."""
    _check_space(c, ins)
    a, tx = ins.operands
    addr = _addr(c, a)
    _release_cluster(c, ins)
    kind = "A0TR" if ins.opcode == "mbarrier.expect_tx" else "A0TX"
    c.emit("SYNCS", ("ARRIVE", "TRANS64", "RED", kind), [RZ], [addr, c.rvalue(tx, T.U32)])


def mbarrier_wait(ins: ast.Instruction, c: LowerCtx) -> None:
    _check_space(c, ins)
    ops = ins.operands
    p = c.dst(ops[0])
    addr = _addr(c, ops[1])
    if ins.has("parity"):
        x = c.new(RC.R)
        c.emit("SHF", ("L", "U32"), [x], [c.rvalue(ops[2], T.U32), Imm(0x1F), RZ])
        xs: Operand = x
    else:
        st = c.rvalue(ops[2], T.B64)
        xs = half(st, 1)
    try_ = ins.opcode == "mbarrier.try_wait"
    c.emit("SYNCS", ("PHASECHK", "TRANS64", *(("TRYWAIT",) if try_ else ())), [p], [addr, xs])
    if len(ops) > 3:
        hint = c.value(ops[3], T.U32)
        if not isinstance(hint, Imm):
            raise c.unsupported("a suspend-time hint in a register")
        c.emit("NANOSLEEP", ("SYNCS",), [], [hint], guard=Guard(p, True))
        c.emit("SYNCS", ("PHASECHK", "TRANS64"), [p], [addr, xs], guard=Guard(p, True))
    scope = ins.mods.scope
    if scope is not None and str(scope.value) == "cluster":
        c.emit("CCTL", ("IVALL",), [], [], guard=Guard(p))


def mbarrier_inval(ins: ast.Instruction, c: LowerCtx) -> None:
    _check_space(c, ins)
    c.emit("SYNCS", ("CCTL", "IV"), [], [_uaddr(c, ins.operands[0])])


def mbarrier_pending_count(ins: ast.Instruction, c: LowerCtx) -> None:
    d, s = ins.operands
    st = c.rvalue(s, T.B64)
    a = c.new(RC.R)
    c.emit("SHF", ("R", "U32", "HI"), [a], [RZ, Imm(0xB), half(st, 1)])
    b = c.new(RC.R)
    c.emit("LOP3", ("LUT",), [b], [a, Imm(0xFFFFF), RZ, Imm(0x40), NOT_PT])
    c.emit("IADD3", (), [c.dst(d)], [Src(b, neg=True), Imm(0x100000), RZ])


# cp.async: LDGSTS.E[.BYPASS][.LTC128B][.64|.128][.ZFILL] [shared], desc[UR][global.64][, P]
_CP_SIZE = {4: (), 8: ("64",), 16: ("128",)}


def cp_async(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cp.async.{ca,cg}.shared.global [d], [s], n{, src}``. With a source size ptxas adds
    ``(n - src) & (n - 1)`` to the source address and zero-fills (``.ZFILL``, predicated on
    ``src != 0`` for a register size); the emulator's LDGSTS defines the same bytes."""
    ops = ins.operands
    if len(ops) not in (3, 4) or ins.has("L2::cache_hint"):
        raise c.unsupported(f"instruction '{ins.name}'")
    n = ops[2]
    if not isinstance(n, ast.IntImm) or n.value not in _CP_SIZE:
        raise c.unsupported(f"cp.async of {n!r} bytes")
    size = n.value
    mods: tuple[str, ...] = ("E",)
    if ins.has("cg"):
        mods = (*mods, "BYPASS")
    if ins.has("L2::128B"):
        mods = (*mods, "LTC128B")
    elif any(ins.has(h) for h in ("L2::64B", "L2::256B")):
        raise c.unsupported(f"instruction '{ins.name}'")
    mods = (*mods, *_CP_SIZE[size])
    dst = c.mem_addr(c.address(ops[0]), StateSpace.SHARED)
    if dst.base is None:  # a shared variable: its window address in a register
        r = c.new(RC.R)
        c.emit("MOV", (), [r], [dst.ubase or RZ])
        dst = Addr(r, dst.offset)
    src = c.mem_addr(c.address(ops[1]), StateSpace.GLOBAL)
    pred: list[Operand] = []
    if len(ops) == 4:
        sv = c.value(ops[3], T.U32)
        if isinstance(sv, Imm) and sv.value == size:
            pass
        elif isinstance(sv, Imm) and 0 < sv.value < size:
            mods = (*mods, "ZFILL")
            src = Addr(src.base, src.offset + ((size - sv.value) & (size - 1)), src.ubase,
                       src.desc, src.wide)  # fmt: skip
        else:
            sr = c.rvalue(ops[3], T.U32)
            t = c.new(RC.R)
            c.emit("IADD3", (), [t], [Src(sr, neg=True), Imm(size), RZ])
            p = c.new(RC.P)
            c.emit("ISETP", ("NE", "U32", "AND"), [p, PT], [sr, RZ, PT])
            k = c.new(RC.R)
            c.emit("LOP3", ("LUT",), [k], [t, Imm(size - 1), RZ, Imm(0xC0), NOT_PT])
            assert src.base is not None
            a = add_low(c, src.base, k)
            src = Addr(a, src.offset, src.ubase, src.desc, src.wide)
            mods = (*mods, "ZFILL")
            pred = [p]
    c.emit("LDGSTS", mods, [], [dst, src, *pred])


def cp_async_commit(ins: ast.Instruction, c: LowerCtx) -> None:
    c.emit("LDGDEPBAR")


def cp_async_wait(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cp.async.wait_group n``: ``DEPBAR.LE SB0, n`` (LDGDEPBAR counts the groups on SB0);
    ``wait_all``: a commit, then ``n = 0``."""
    if ins.opcode == "cp.async.wait_all":
        c.emit("LDGDEPBAR")
        n = 0
    else:
        v = ins.operands[0]
        if not isinstance(v, ast.IntImm):
            raise c.unsupported("cp.async.wait_group with a register")
        n = v.value
    c.emit("DEPBAR", ("LE",), [], [SReg("SB0"), Imm(n)])


def cp_async_mbarrier_arrive(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cp.async.mbarrier.arrive[.noinc] [a]``: the barrier completes a pending arrival when
    this thread's earlier cp.async copies land (``ARRIVES.LDGSTSBAR.64``); without ``.noinc``
    the pending count is raised first (``SYNCS.ARRIVE.TRANS64.RED.A0T1``)."""
    _check_space(c, ins)
    addr = _uaddr(c, ins.operands[0])
    if not ins.has("noinc"):
        c.emit("SYNCS", ("ARRIVE", "TRANS64", "RED", "A0T1"), [RZ], [addr, RZ])
        c.emit("ARRIVES", ("LDGSTSBAR", "64", "TRANSCNT"), [], [addr])
    else:
        c.emit("ARRIVES", ("LDGSTSBAR", "64", "ARVCNT"), [], [addr])


RULES: list[Rule] = [
    Rule("cp.async", "cp.async", always, cp_async,
         "cp.async.ca.shared.global [%r1], [%rd1], 4;"),
    Rule("cp.async.commit_group", "cp.async.commit_group", always, cp_async_commit,
         "cp.async.commit_group;"),
    Rule("cp.async.wait_group", "cp.async.wait_group", always, cp_async_wait,
         "cp.async.wait_group 1;"),
    Rule("cp.async.wait_all", "cp.async.wait_all", always, cp_async_wait,
         "cp.async.wait_all;"),
    Rule("cp.async.mbarrier.arrive", "cp.async.mbarrier.arrive", always,
         cp_async_mbarrier_arrive, "cp.async.mbarrier.arrive.shared.b64 [%r1];"),
    Rule("mbarrier.init", "mbarrier.init", always, guarded(mbarrier_init),
         "mbarrier.init.shared.b64 [%r1], %r2;"),
    Rule("mbarrier.arrive", "mbarrier.arrive", always, mbarrier_arrive,
         "mbarrier.arrive.shared.b64 %rd1, [%r1];"),
    Rule("mbarrier.arrive_drop", "mbarrier.arrive_drop", always, mbarrier_arrive,
         "mbarrier.arrive_drop.shared.b64 %rd1, [%r1];"),
    Rule("mbarrier.expect_tx", "mbarrier.expect_tx", always, mbarrier_expect_tx,
         "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;"),
    Rule("mbarrier.complete_tx", "mbarrier.complete_tx", always, mbarrier_expect_tx,
         "mbarrier.complete_tx.shared::cta.b64 [%r1], %r2;"),
    Rule("mbarrier.test_wait", "mbarrier.test_wait", always, mbarrier_wait,
         "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;"),
    Rule("mbarrier.try_wait", "mbarrier.try_wait", always, mbarrier_wait,
         "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;"),
    Rule("mbarrier.inval", "mbarrier.inval", always, guarded(mbarrier_inval),
         "mbarrier.inval.shared.b64 [%r1];"),
    Rule("mbarrier.pending_count", "mbarrier.pending_count", always, mbarrier_pending_count,
         "mbarrier.pending_count.b64 %r1, %rd2;"),
]  # fmt: skip
