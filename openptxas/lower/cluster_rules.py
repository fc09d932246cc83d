"""Distributed shared memory of a thread-block cluster (sm_90), as ptxas 13.0.88 compiles it
(``scripts/probe_warp.py cluster``):

- ``mapa[.shared::cluster].u32 d, a, r``: ``PRMT d, r, 0x654, a`` (the CTA rank replaces bits
  24..31 of the shared-window address); ``.u64``: the same on the low word.
- ``getctarank[.shared::cluster].u32 d, a``: ``SHF.L.U64.HI d, a, 0x8, RZ`` (bits 24..31).
- ``ld``/``st``/``atom``/``red`` on ``.shared::cluster``: the generic address
  ``(SR_SWINHI << 32) | a`` and ``LD.E``/``ST.E``/``ATOM.E.<op>.STRONG.GPU`` through it (ptxas
  also aggregates a warp's ``add`` into one atomic; the effect is the same).
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, Addr, CBank, Imm, Operand, Src, SReg, VReg
from openptxas.lower.context import LowerCtx, width_of
from openptxas.lower.int_rules import half
from openptxas.lower.mem_rules import _load_into, _size_mod, _store_group, space_is
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType
CLUSTER = StateSpace.SHARED_CLUSTER
SHARED = (StateSpace.SHARED, StateSpace.SHARED_CTA, CLUSTER)


def mapa(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a, rank = ins.operands
    r = c.rvalue(rank, T.U32)
    if ins.type in (T.U64, T.B64, T.S64):
        src = c.rvalue(a, T.U64)
        dv = c.dst(d)
        c.emit("PRMT", (), [dv.lo], [r, Imm(0x654), half(src, 0)])
        c.emit("MOV", (), [dv.hi], [half(src, 1)])
        return
    c.emit("PRMT", (), [c.dst(d)], [r, Imm(0x654), c.rvalue(a, T.U32)])


def cvta_shared(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cvta.shared``: the shared-window address under ``SR_SWINHI`` (the generic window's
    upper word); ``cvta.to.shared``: its low word, upper word 0."""
    d, a = ins.operands
    if ins.type not in (T.U64, T.B64, T.S64):
        raise c.unsupported(f"instruction '{ins.name}'")
    dv = c.dst(d)
    window = c.target.abi.cb_shared_window
    if window >= 0:
        # sm_80: the window's 64-bit address in bank 0, added (subtracted for cvta.to), as ptxas
        # (ULDC.64 UR4, c[0x0][0x18]; UIADD3 UR4, UP0, -UR4, UR6, URZ; UIADD3.X ~UR5 ...)
        src = c.rvalue(a, T.U64)
        w = c.new(RC.UR, 2)
        c.emit("ULDC", ("64",), [w], [CBank(0, window)])
        carry = c.new(RC.P)
        to = ins.has("to")
        lo: Operand = Src(w.part(0), neg=True) if to else w.lo
        hi: Operand = Src(w.part(1), inv=True) if to else w.hi
        c.emit("IADD3", (), [dv.lo, carry], [half(src, 0), lo, RZ])
        c.emit("IADD3", ("X",), [dv.hi], [half(src, 1), hi, RZ, carry, Src(PT, inv=True)])
        return
    c.emit("MOV", (), [dv.lo], [half(c.rvalue(a, T.U64), 0)])
    if ins.has("to"):
        c.emit("MOV", (), [dv.hi], [RZ])
        return
    hi = c.new(RC.R)
    c.emit("S2R", (), [hi], [SReg("SR_SWINHI")])
    c.emit("MOV", (), [dv.hi], [hi])


_QSPC = {StateSpace.SHARED: "S", StateSpace.SHARED_CTA: "S", CLUSTER: "D", StateSpace.LOCAL: "L"}


def isspacep(ins: ast.Instruction, c: LowerCtx) -> None:
    """``isspacep.{shared[::cta|::cluster],local} p, a``: ``QSPC.E.{S,D,L} P, RZ, [a]``
    (``.global``, ``.const`` and ``.param`` compare against the windows: not built yet)."""
    kind = _QSPC.get(ins.space) if ins.space is not None else None
    if kind is None:
        raise c.unsupported(f"instruction '{ins.name}'")
    p, a = ins.operands
    c.emit("QSPC", ("E", kind), [c.dst(p), RZ], [Addr(c.rvalue(a, T.U64), 0)])


def getctarank(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    if ins.type in (T.U64, T.B64, T.S64):
        lo: Operand = half(c.rvalue(a, T.U64), 0)
    else:
        lo = c.rvalue(a, T.U32)
    c.emit("SHF", ("L", "U64", "HI"), [c.dst(d)], [lo, Imm(8), RZ])


def _generic(c: LowerCtx, a: ast.Operand) -> Addr:
    """The generic address of a ``.shared::cluster`` address operand."""
    if not isinstance(a, ast.Address) or not isinstance(a.base, ast.Reg):
        raise c.unsupported("a .shared::cluster address that is not a register")
    lo = c.rvalue(a.base, T.U32)
    pair = c.new(RC.R, 2)
    hi = c.new(RC.R)
    c.emit("S2R", (), [hi], [SReg("SR_SWINHI")])
    c.emit("MOV", (), [pair.lo], [lo])
    c.emit("MOV", (), [pair.hi], [hi])
    return Addr(pair, a.offset, wide=True)


def ld_cluster(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    if ins.mods.sem is not None or ins.has("volatile") or ins.mods.cache is not None:
        raise c.unsupported(f"instruction '{ins.name}'")
    addr = _generic(c, a)
    mods = _size_mod(t, ins.vec)
    _load_into(c, ins, d, lambda g: c.emit("LD", ("E", *mods), [g], [addr]))


def st_cluster(ins: ast.Instruction, c: LowerCtx) -> None:
    a, v = ins.operands
    t = ins.type
    assert t is not None
    if ins.mods.sem is not None or ins.has("volatile") or ins.mods.cache is not None:
        raise c.unsupported(f"instruction '{ins.name}'")
    addr = _generic(c, a)
    mods = tuple(m.replace("S8", "U8").replace("S16", "U16") for m in _size_mod(t, ins.vec))
    src = _store_group(c, ins, v)
    if isinstance(src, Imm):
        src = c.materialize(src.value, T.B32)
    c.emit("ST", ("E", *mods), [], [addr, src])


_OPS = {"add": "ADD", "min": "MIN", "max": "MAX", "and": "AND", "or": "OR", "xor": "XOR",
        "exch": "EXCH", "inc": "INC", "dec": "DEC", "cas": "CAS"}  # fmt: skip


def atom_cluster(ins: ast.Instruction, c: LowerCtx) -> None:
    t = ins.type
    op = _OPS.get(ins.op or "")
    if (
        op is None
        or t not in (T.U32, T.S32, T.B32)
        or ins.mods.sem is not None
        or ins.mods.scope is not None
    ):
        raise c.unsupported(f"instruction '{ins.name}'")
    ops = ins.operands
    red = ins.opcode == "red"
    a, b = (ops[0], ops[1]) if red else (ops[1], ops[2])
    ty = ("S32",) if t is T.S32 and op in ("MIN", "MAX") else ()
    addr = _generic(c, a)
    srcs: list[Operand] = [addr, c.rvalue(b, T.B32)]
    if op == "CAS":
        srcs.append(c.rvalue(ops[3], T.B32))
    dst: VReg | None = None if red else c.dst(ops[0])
    c.emit("ATOM", ("E", op, *ty, "STRONG", "GPU"), [PT, dst if dst is not None else RZ], srcs)
    _ = width_of


RULES: list[Rule] = [
    Rule("mapa", "mapa", always, mapa, "mapa.shared::cluster.u32 %r1, %r2, %r3;"),
    Rule("cvta.shared", "cvta", space_is(*SHARED), cvta_shared, "cvta.shared.u64 %rd1, %rd2;"),
    Rule("isspacep", "isspacep", always, isspacep, "isspacep.shared %p1, %rd2;"),
    Rule("getctarank", "getctarank", always, getctarank, "getctarank.u64 %r1, %rd2;"),
    Rule("ld.shared::cluster", "ld", space_is(CLUSTER), ld_cluster,
         "ld.shared::cluster.u32 %r1, [%r2];"),
    Rule("st.shared::cluster", "st", space_is(CLUSTER), st_cluster,
         "st.shared::cluster.u32 [%r2], %r1;"),
    Rule("atom.shared::cluster", "atom", space_is(CLUSTER), atom_cluster,
         "atom.shared::cluster.add.u32 %r1, [%r2], %r3;"),
    Rule("red.shared::cluster", "red", space_is(CLUSTER), atom_cluster,
         "red.shared::cluster.add.u32 [%r2], %r3;"),
]  # fmt: skip
