"""Bulk asynchronous copies, tensor-map (TMA) copies and asynchronous stores of sm_90 (issue 20),
as ptxas 13.0.88 compiles them (listings: ``python scripts/probe_bulk.py bulk`` and the
snippets in the module's tests, tests/compiler/test_bulk.py).

The copy engines take uniform registers: ptxas moves every operand to the uniform datapath with
``R2UR`` (``UMOV`` for an immediate) before the instruction, whatever the operand's uniformity,
so each copy uses the first active lane's operands. A PTX copy is per thread; a SASS copy is
issued once per warp. Where issuing it more than once matters (the copies that complete on an
mbarrier, reductions, tensor loads and reductions) ptxas runs it once per active thread:

    PLOP3.LUT P0 = true                    (threads still to issue)
 L: @P0 ELECT P1, URZ, PT                  (one of them)
    UBLKCP.S.G [UR4], [UR6], UR10
    @P1 PLOP3.LUT P0 = false               (done)
    PLOP3.LUT P1 = false
    @P0 BRA.U.ANY L

A copy to global memory (``UBLKCP.G.S``, ``UTMASTG``) and the prefetches are issued once.

Operands:

- ``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [s], n, [m]``:
  ``UBLKCP.S.G [URd], [URs], URn`` with URd = d, URd+1 = m, URs:URs+1 = s, URn = n / 16
  (a register size: ``(n >> 4) & 0xffff``); ``.multicast::cluster`` adds the CTA mask in
  bits 16-31 of URn (``UBLKCP.S.G.MULTICAST``). ``.shared::cluster.shared::cta``: ``UBLKCP.S.S``
  (one source register). ``.global.shared::cta.bulk_group``: ``UBLKCP.G.S [URd:URd+1], [URs]``.
- ``cp.reduce.async.bulk.<dst>.<src>...<op>.<type>``: ``UBLKRED.{G,S}.S.<OP>[.<TYPE>]`` (types:
  none for u32/b32 and and/or/xor of 32 bits, S32 for min/max.s32, U64, S64, F16.RN
  (.noftz.f16), BF16.RN, F32.RN, F64.RN).
- ``cp.async.bulk.prefetch.L2.global [a], n``: ``UBLKPF.L2 [URa:URa+1], URn``.
- ``cp.async.bulk.tensor.<n>d.shared::cluster.global.{tile,im2col}.mbarrier::complete_tx::bytes
  [d], [map, {c...}], [m]{, {off}}{, mask}``: ``UTMALDG.<n>D[.IM2COL][.MULTICAST] [URg], [URm]
  {, URx}`` with URg = d, m, c0 .. c(n-1) (consecutive), URm:URm+1 = the map's address, URx the
  3-D im2col offset (16 bits) or the CTA mask << 16.
- ``cp.async.bulk.tensor.<n>d.global.shared::cta.bulk_group [map, {c...}], [s]``:
  ``UTMASTG.<n>D [URg], [URm]`` with URg = s, c0 ..; ``cp.reduce.async.bulk.tensor``:
  ``UTMAREDG.<n>D.<OP>``; ``cp.async.bulk.prefetch.tensor``: ``UTMAPF.L2.<n>D [URc], [URm]``.
- ``prefetch.tensormap [a]``: ``UTMACCTL.PF [URa:URa+1]``.
- ``cp.async.bulk.commit_group``: ``UTMACMDFLUSH``; ``cp.async.bulk.wait_group[.read] n``:
  ``DEPBAR.LE SB0, n`` and, without ``.read``, ``CCTL.IVALL``.
- ``st.async...mbarrier::complete_tx::bytes[.v2|.v4].<t> [a], v, [m]``: ``STAS[.64|.128]
  [Ra.64], Rv`` with Ra = a (its offset added), Ra+1 = m; ``red.async...<op>.<t>``:
  ``REDAS.<OP>[.S32|.64]``.
- ``fence.proxy.tensormap::generic.release.<scope>``: ``MEMBAR.ALL.GPU; ERRBAR; CGAERRBAR``;
  ``.acquire.<scope> [a], 128``: ``DEPBAR {5,4,3,2,1,0}; UTMACCTL.IV [URa:URa+1]``.

Not yet (refused): predicated forms (``@p cp.async.bulk``), L2 cache hints (the ISA table has
no ``desc[UR]`` form of these instructions), ``.L2::cache_hint`` on tensors, ``tensormap.replace``.
"""

from __future__ import annotations

from collections.abc import Callable

from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    URZ,
    Addr,
    Guard,
    Imm,
    Label,
    Operand,
    Part,
    Src,
    SReg,
    VReg,
)  # fmt: skip
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import half
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType
NOT_PT = Src(PT, inv=True)
UDst = VReg | Part


# ------------------------------------------------------------------ operands on the uniform path
Moves = list[tuple[UDst, Operand]]  # uniform register <- immediate, uniform or vector register


def _shared(c: LowerCtx, op: ast.Operand) -> Operand:
    """A shared (or cluster-shared) address operand ``[a+off]``: a uniform register for a
    shared variable, else a vector register (the offset added)."""
    a = c.address(op)
    base = a.base
    if isinstance(base, ast.Sym):
        if base.name not in c.shared:
            raise c.unsupported(f"a bulk copy to or from '{base.name}'")
        off = c.shared[base.name] + base.offset + a.offset - c.shared_window_base
        u = c.new(RC.UR)
        ub = c.shared_ubase(base.name)
        if ub is None:  # (bulk copies exist from sm_90, whose shared window is the cluster's)
            raise c.unsupported(f"a bulk copy on {c.target.name}")
        c.emit("UIADD3", (), [u], [ub, Imm(off & 0xFFFFFFFF), URZ])
        return u
    if not isinstance(base, ast.Reg):
        raise c.unsupported("absolute address")
    v = c.reg_part(base)
    lo = half(v, 0) if isinstance(v, VReg) and v.width == 2 else v
    if not a.offset:
        return lo
    r = c.new(RC.R)
    c.emit("IADD3", (), [r], [lo, Imm(a.offset & 0xFFFFFFFF), RZ])
    return r


def _global(c: LowerCtx, op: ast.Operand) -> tuple[Operand, Operand]:
    """A 64-bit (global or generic) address operand ``[a+off]`` or ``a``: its two words."""
    base: object = op.base if isinstance(op, ast.Address) else op
    off = op.offset if isinstance(op, ast.Address) else 0
    if not isinstance(base, ast.Reg):
        raise c.unsupported(f"address operand {op!r}")
    v = c.reg_part(base)
    if not isinstance(v, VReg) or v.width != 2:
        raise c.unsupported("32-bit generic address")
    if off:
        w = c.new(RC.R, 2)
        carry = c.new(RC.P)
        hi: Operand = Imm(0xFFFFFFFF) if off < 0 else RZ
        c.emit("IADD3", (), [w.lo, carry], [v.lo, Imm(off & 0xFFFFFFFF), RZ])
        c.emit("IADD3", ("X",), [w.hi], [v.hi, hi, RZ, carry, NOT_PT])
        v = w
    return v.lo, v.hi


def _size(c: LowerCtx, op: ast.Operand, mask: ast.Operand | None = None) -> Operand:
    """The size word: bytes / 16 in bits 0-15, a multicast CTA mask in bits 16-31."""
    v = c.value(op, T.U32)
    m = None if mask is None else c.value(mask, T.U16)
    if isinstance(v, Imm) and (m is None or isinstance(m, Imm)):
        hi = 0 if m is None else (m.value & 0xFFFF) << 16
        return Imm(((v.value >> 4) & 0xFFFF) | hi)
    s = c.new(RC.R)
    c.emit(
        "SHF",
        ("R", "U32", "HI"),
        [s],
        [RZ, Imm(4), v if not isinstance(v, Imm) else c.rvalue(op, T.U32)],
    )
    r = c.new(RC.R)
    c.emit("PRMT", (), [r], [s, Imm(0x5410), _reg(c, m) if m is not None else RZ])
    return r


def _reg(c: LowerCtx, v: Operand) -> Operand:
    if isinstance(v, Imm):
        r = c.new(RC.R)
        c.emit("MOV", (), [r], [v])
        return r
    return v


def _mask(c: LowerCtx, op: ast.Operand) -> Operand:
    """A multicast CTA mask (16 bits) in bits 16-31."""
    v = c.value(op, T.U16)
    if isinstance(v, Imm):
        return Imm((v.value & 0xFFFF) << 16)
    r = c.new(RC.R)
    c.emit("PRMT", (), [r], [RZ, Imm(0x5410), v])
    return r


def _space_pair(ins: ast.Instruction) -> tuple[str, str]:
    """(destination, source) spaces of a bulk copy, from its modifiers."""
    sp = [m for m in ins.mods.raw if m in ("global", "shared::cluster", "shared::cta")]
    if len(sp) != 2:
        raise ValueError(ins.name)
    return sp[0], sp[1]


# ------------------------------------------------------------------ per-thread issue
def _per_thread(c: LowerCtx, moves: Moves, issue: Callable[[], object]) -> None:
    """Issue a uniform-datapath copy once per active thread (ptxas's ELECT loop), each time
    with the elected thread's operands: immediates and uniform values are moved to their
    uniform registers before the loop, vector registers by the elected thread in it
    (``@P1 R2UR``)."""
    inside: Moves = []
    for d, v in moves:
        if isinstance(v, Imm):
            c.emit("UMOV", (), [d], [Imm(v.value & 0xFFFFFFFF)])
        elif v is RZ:
            c.emit("UMOV", (), [d], [URZ])
        elif isinstance(v, VReg | Part) and _rc(v) is RC.UR:
            c.emit("UMOV", (), [d], [v])
        else:
            inside.append((d, v))
    pend = c.new(RC.P)
    el = c.new(RC.P)
    c.emit("PLOP3", ("LUT",), [pend, PT], [PT, PT, PT, Imm(0x80), Imm(0)])
    c.emit("PLOP3", ("LUT",), [el, PT], [PT, PT, PT, Imm(0x8), Imm(0)])
    loop = c.new_block("elect_")
    c.fn.blocks.append(loop)
    c.block = loop
    c.emit("ELECT", (), [el, URZ], [PT], guard=Guard(pend))
    for d, v in inside:
        c.emit("R2UR", (), [d], [v], guard=Guard(el))
    c.emit("PLOP3", ("LUT",), [pend, PT], [PT, el, PT, Imm(0x8), Imm(0)], guard=Guard(el))
    c.emit("PLOP3", ("LUT",), [el, PT], [PT, PT, PT, Imm(0x8), Imm(0)])
    issue()
    c.emit("BRA", ("U", "ANY"), [], [Label(loop.name)], guard=Guard(pend))
    after = c.new_block("elect_done")
    c.fn.blocks.append(after)
    c.block = after


def _rc(v: VReg | Part) -> RC:
    return v.v.rc if isinstance(v, Part) else v.rc


Emit = Callable[[ast.Instruction, LowerCtx], None]


def guarded(emit: Emit) -> Emit:
    """A predicated instruction (``@p cp.async.bulk...``, as Triton writes them) as a branch
    around its code (ptxas instead runs the ELECT loop from the threads with ``p`` and guards
    the copy with a uniform predicate, ``VOTEU.ALL UP0, !p; @!UP0 UBLKCP``: the same copies)."""

    def run(ins: ast.Instruction, c: LowerCtx) -> None:
        if ins.guard is None:
            emit(ins, c)
            return
        g = c.reg(ins.guard.reg)
        skip = c.new_block("unless_")
        c.emit("BRA", (), [], [Label(skip.name)], guard=Guard(g, not ins.guard.negated))
        body = c.new_block("when_")
        c.fn.blocks.append(body)
        c.block = body
        emit(ins, c)
        c.fn.blocks.append(skip)
        c.block = skip

    run.own_guard = True  # type: ignore[attr-defined]  # (lower_body: the rule handles the guard)
    run.__name__ = emit.__name__
    run.__doc__ = emit.__doc__
    return run


def _no_hint(c: LowerCtx, ins: ast.Instruction) -> None:
    if ins.has("L2::cache_hint"):
        raise c.unsupported(f"instruction '{ins.name}' (an L2 cache hint)")


# ------------------------------------------------------------------ cp.async.bulk / cp.reduce
_RED_OPS = {"add": "ADD", "min": "MIN", "max": "MAX", "inc": "INC", "dec": "DEC",
            "and": "AND", "or": "OR", "xor": "XOR"}  # fmt: skip


def _red_mods(c: LowerCtx, ins: ast.Instruction) -> tuple[str, ...]:
    op = ins.op
    t = ins.type
    if op is None or op not in _RED_OPS or t is None:
        raise c.unsupported(f"instruction '{ins.name}'")
    sop = _RED_OPS[op]
    name = t.value if hasattr(t, "value") else str(t)
    typ: tuple[str, ...]
    if name in ("u32", "b32"):
        typ = ()
    elif name == "s32":
        typ = ("S32",) if op in ("min", "max") else ()
    elif name in ("u64", "b64"):
        typ = ("U64",)
    elif name == "s64":
        typ = ("S64",) if op in ("min", "max") else ("U64",)
    elif name in ("f16", "bf16", "f32", "f64"):
        typ = (name.upper(), "RN")
    else:
        raise c.unsupported(f"instruction '{ins.name}'")
    return (sop, *typ)


def cp_async_bulk(ins: ast.Instruction, c: LowerCtx) -> None:
    _no_hint(c, ins)
    dsp, ssp = _space_pair(ins)
    red = ins.opcode == "cp.reduce.async.bulk"
    mods: tuple[str, ...] = _red_mods(c, ins) if red else ()
    ops = ins.operands
    op = "UBLKRED" if red else "UBLKCP"
    if dsp.startswith("shared") and ins.has("mbarrier::complete_tx::bytes"):
        multicast = ins.has("multicast::cluster")
        if multicast and (red or ssp != "global"):
            raise c.unsupported(f"instruction '{ins.name}'")
        if len(ops) != 4 + multicast:
            raise c.unsupported(f"instruction '{ins.name}'")
        dst = c.new(RC.UR, 2)
        moves: Moves = [(dst.lo, _shared(c, ops[0])), (dst.hi, _shared(c, ops[3]))]
        if ssp == "global":
            src = c.new(RC.UR, 2)
            lo, hi = _global(c, ops[1])
            moves += [(src.lo, lo), (src.hi, hi)]
            sk = "G"
        else:
            src = c.new(RC.UR)
            moves.append((src, _shared(c, ops[1])))
            sk = "S"
        size = c.new(RC.UR)
        moves.append((size, _size(c, ops[2], ops[4] if multicast else None)))
        mods = ("S", sk, *mods, *(("MULTICAST",) if multicast else ()))
        _per_thread(c, moves, lambda: c.emit(op, mods, [], [Addr(dst), Addr(src), size]))
        return
    if dsp == "global" and ssp == "shared::cta" and ins.has("bulk_group") and len(ops) == 3:
        gd = c.new(RC.UR, 2)
        lo, hi = _global(c, ops[0])
        s = c.new(RC.UR)
        size = c.new(RC.UR)
        moves = [(gd.lo, lo), (gd.hi, hi), (s, _shared(c, ops[1])), (size, _size(c, ops[2]))]
        mods = ("G", "S", *mods)
        _per_thread(c, moves, lambda: c.emit(op, mods, [], [Addr(gd), Addr(s), size]))
        return
    raise c.unsupported(f"instruction '{ins.name}'")


def cp_async_bulk_prefetch(ins: ast.Instruction, c: LowerCtx) -> None:
    _no_hint(c, ins)
    a, n = ins.operands
    g = c.new(RC.UR, 2)
    lo, hi = _global(c, a)
    size = c.new(RC.UR)
    moves: Moves = [(g.lo, lo), (g.hi, hi), (size, _size(c, n))]
    _per_thread(c, moves, lambda: c.emit("UBLKPF", ("L2",), [], [Addr(g), size]))


# ------------------------------------------------------------------ tensor maps
def _tensor_operand(c: LowerCtx, op: ast.Operand) -> tuple[ast.Operand, tuple[ast.Operand, ...]]:
    """``[map, {c0, ...}]``: the map's address operand and the coordinates."""
    if not isinstance(op, ast.MemList) or len(op.items) != 2:
        raise c.unsupported(f"tensor operand {op!r}")
    m, coords = op.items
    if not isinstance(coords, ast.Vector):
        raise c.unsupported(f"tensor operand {op!r}")
    return m, coords.items


def _rank(c: LowerCtx, ins: ast.Instruction) -> int:
    r = next(
        (int(m[0]) for m in ins.mods.raw if len(m) == 2 and m[1] == "d" and m[0] in "12345"), 0
    )
    if not r:
        raise c.unsupported(f"instruction '{ins.name}'")
    return r


def _im2col(c: LowerCtx, op: ast.Operand) -> Operand:
    """The im2col offset of a 3-D load: its low 16 bits (``UPRMT UR, UR, 0x5410, URZ``).
    With two or three offsets (4-D, 5-D) ptxas packs them in ways not understood yet (bytes:
    ``PRMT R0, R3, 0x40, R2`` for two): refused."""
    if not isinstance(op, ast.Vector) or len(op.items) != 1:
        raise c.unsupported(
            f"im2col with {len(op.items) if isinstance(op, ast.Vector) else 0} offsets"
        )
    v = c.value(op.items[0], T.U16)
    if isinstance(v, Imm):
        return Imm(v.value & 0xFFFF)
    r = c.new(RC.R)
    c.emit("PRMT", (), [r], [v, Imm(0x5410), RZ])
    return r


def _map(c: LowerCtx, op: ast.Operand, moves: Moves) -> VReg:
    m = c.new(RC.UR, 2)
    lo, hi = _global(c, op)
    moves += [(m.lo, lo), (m.hi, hi)]
    return m


def cp_async_bulk_tensor(ins: ast.Instruction, c: LowerCtx) -> None:
    _no_hint(c, ins)
    rank = _rank(c, ins)
    dsp, ssp = _space_pair(ins)
    ops = list(ins.operands)
    red = ins.opcode == "cp.reduce.async.bulk.tensor"
    im2col = ins.has("im2col")
    moves: Moves = []
    if dsp.startswith("shared") and ssp == "global" and not red:
        multicast = ins.has("multicast::cluster")
        if not ins.has("mbarrier::complete_tx::bytes") or (im2col and (rank < 3 or multicast)):
            raise c.unsupported(f"instruction '{ins.name}'")
        if len(ops) != 3 + im2col + multicast:
            raise c.unsupported(f"instruction '{ins.name}'")
        mp, coords = _tensor_operand(c, ops[1])
        if len(coords) != rank:
            raise c.unsupported(f"instruction '{ins.name}'")
        grp = c.new(RC.UR, 2 + rank)
        moves += [(grp.part(0), _shared(c, ops[0])), (grp.part(1), _shared(c, ops[2]))]
        moves += [(grp.part(2 + k), c.value(x, T.U32)) for k, x in enumerate(coords)]
        m = _map(c, mp, moves)
        mods: tuple[str, ...] = (f"{rank}D",)
        extra: list[Operand] = []
        if im2col or multicast:
            x = c.new(RC.UR)
            moves.append((x, _im2col(c, ops[3]) if im2col else _mask(c, ops[-1])))
            mods = (*mods, "IM2COL" if im2col else "MULTICAST")
            extra.append(x)
        _per_thread(c, moves, lambda: c.emit("UTMALDG", mods, [], [Addr(grp), Addr(m), *extra]))
        return
    if dsp == "global" and ssp == "shared::cta" and len(ops) == 2 and not im2col:
        mp, coords = _tensor_operand(c, ops[0])
        if len(coords) != rank:
            raise c.unsupported(f"instruction '{ins.name}'")
        grp = c.new(RC.UR, 1 + rank)
        moves.append((grp.part(0), _shared(c, ops[1])))
        moves += [(grp.part(1 + k), c.value(x, T.U32)) for k, x in enumerate(coords)]
        m = _map(c, mp, moves)
        if red:
            if ins.op not in _RED_OPS:
                raise c.unsupported(f"instruction '{ins.name}'")
            rmods = (f"{rank}D", _RED_OPS[ins.op])
            _per_thread(c, moves, lambda: c.emit("UTMAREDG", rmods, [], [Addr(grp), Addr(m)]))
        else:
            _per_thread(
                c, moves, lambda: c.emit("UTMASTG", (f"{rank}D",), [], [Addr(grp), Addr(m)])
            )
        return
    raise c.unsupported(f"instruction '{ins.name}'")


def cp_async_bulk_prefetch_tensor(ins: ast.Instruction, c: LowerCtx) -> None:
    """``UTMAPF.L2.<n>D [URc], [URm]`` in ptxas's code: the ISA tables do not hold UTMAPF yet
    (no cubin of the harvest had one), so it is refused."""
    if "UTMAPF" not in c.target.ops.family.by_opcode:
        raise c.unsupported(f"instruction '{ins.name}' (UTMAPF is not in the ISA tables yet)")
    _no_hint(c, ins)
    rank = _rank(c, ins)
    if ins.has("im2col") or len(ins.operands) != 1:
        raise c.unsupported(f"instruction '{ins.name}'")
    mp, coords = _tensor_operand(c, ins.operands[0])
    if len(coords) != rank:
        raise c.unsupported(f"instruction '{ins.name}'")
    grp = c.new(RC.UR, rank)
    moves: Moves = [(grp if rank == 1 else grp.part(k), c.value(x, T.U32))
                    for k, x in enumerate(coords)]  # fmt: skip
    m = _map(c, mp, moves)
    _per_thread(c, moves, lambda: c.emit("UTMAPF", ("L2", f"{rank}D"), [], [Addr(grp), Addr(m)]))


def prefetch_tensormap(ins: ast.Instruction, c: LowerCtx) -> None:
    if ins.space is not None and str(ins.space.value) not in ("const", "param"):
        raise c.unsupported(f"instruction '{ins.name}'")
    moves: Moves = []
    m = _map(c, ins.operands[0], moves)
    _per_thread(c, moves, lambda: c.emit("UTMACCTL", ("PF",), [], [Addr(m)]))


def bulk_commit(ins: ast.Instruction, c: LowerCtx) -> None:
    c.emit("UTMACMDFLUSH")


def bulk_wait(ins: ast.Instruction, c: LowerCtx) -> None:
    """``DEPBAR.LE SB0, n`` (+ ``CCTL.IVALL`` unless ``.read``)."""
    v = ins.operands[0]
    if not isinstance(v, ast.IntImm):
        raise c.unsupported("cp.async.bulk.wait_group with a register")
    c.emit("DEPBAR", ("LE",), [], [SReg("SB0"), Imm(v.value)])
    if not ins.has("read"):
        c.emit("CCTL", ("IVALL",), [], [])


# ------------------------------------------------------------------ st.async / red.async
def st_async(ins: ast.Instruction, c: LowerCtx) -> None:
    if not ins.has("mbarrier::complete_tx::bytes") or len(ins.operands) != 3:
        raise c.unsupported(f"instruction '{ins.name}'")
    a, v, m = ins.operands
    t = ins.type
    if t is None:
        raise c.unsupported(f"instruction '{ins.name}'")
    red = ins.opcode == "red.async"
    # the value: one register of the type, or a vector of them
    items = v.items if isinstance(v, ast.Vector) else (v,)
    words = (t.size + 3) // 4 * len(items)
    if words not in (1, 2, 4) or (red and words == 4):
        raise c.unsupported(f"instruction '{ins.name}'")
    data: Operand
    if words == 1 or len(items) == 1:
        data = c.rvalue(items[0], t)
    else:
        d = c.new(RC.R, words)
        per = words // len(items)
        for k, x in enumerate(items):
            xv = c.rvalue(x, t)
            for j in range(per):
                src = half(xv, j) if per == 2 else xv
                c.emit("MOV", (), [d.part(k * per + j)], [src])
        data = d
    pair = c.new(RC.R, 2)
    _reg_addr(c, pair.lo, a)
    _reg_addr(c, pair.hi, m)
    mods: tuple[str, ...] = {1: (), 2: ("64",), 4: ("128",)}[words]
    if red:
        if ins.op not in _RED_OPS:
            raise c.unsupported(f"instruction '{ins.name}'")
        name = t.value if hasattr(t, "value") else str(t)
        if words == 2 and ins.op != "add":
            raise c.unsupported(f"instruction '{ins.name}'")
        sub = ("S32",) if name == "s32" and ins.op in ("min", "max") else ()
        mods = (_RED_OPS[ins.op], *sub, *mods)
    c.emit("REDAS" if red else "STAS", mods, [], [Addr(pair, 0, ubase=URZ, wide=True), data])


def _reg_addr(c: LowerCtx, d: Part, op: ast.Operand) -> None:
    """``d`` = a (cluster) shared address operand, its offset added (ptxas's IADD3)."""
    a = c.address(op)
    base = a.base
    if isinstance(base, ast.Sym):
        if base.name not in c.shared:
            raise c.unsupported(f"st.async to '{base.name}'")
        c.shared_addr(d, c.shared[base.name] + base.offset + a.offset, base.name)
        return
    if not isinstance(base, ast.Reg):
        raise c.unsupported("absolute address")
    v = c.reg_part(base)
    lo = half(v, 0) if isinstance(v, VReg) and v.width == 2 else v
    if a.offset:
        c.emit("IADD3", (), [d], [lo, Imm(a.offset & 0xFFFFFFFF), RZ])
    else:
        c.emit("MOV", (), [d], [lo])


# ------------------------------------------------------------------ fence.proxy.tensormap
def fence_tensormap(ins: ast.Instruction, c: LowerCtx) -> None:
    if ins.has("release"):
        c.emit("MEMBAR", ("ALL", "GPU"), [], [])
        c.emit("ERRBAR")
        c.emit("CGAERRBAR")
        return
    if ins.has("acquire") and len(ins.operands) == 2:
        moves: Moves = []
        m = _map(c, ins.operands[0], moves)
        c.emit("DEPBAR", (), [], [Imm(0x3F)])
        _per_thread(c, moves, lambda: c.emit("UTMACCTL", ("IV",), [], [Addr(m)]))
        return
    raise c.unsupported(f"instruction '{ins.name}'")


def _tensormap(i: ast.Instruction) -> bool:
    return i.has("tensormap")


def _tensormap_fence(i: ast.Instruction) -> bool:
    return i.has("proxy") and i.has("tensormap::generic")


G2S = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
RULES: list[Rule] = [
    Rule("cp.async.bulk", "cp.async.bulk", always, guarded(cp_async_bulk),
         f"{G2S} [%r1], [%rd1], 256, [%r2];"),
    Rule("cp.reduce.async.bulk", "cp.reduce.async.bulk", always,
         guarded(cp_async_bulk),
         "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 128;"),
    Rule("cp.async.bulk.prefetch", "cp.async.bulk.prefetch", always,
         guarded(cp_async_bulk_prefetch),
         "cp.async.bulk.prefetch.L2.global [%rd1], 256;"),
    Rule("cp.async.bulk.tensor", "cp.async.bulk.tensor", always, guarded(cp_async_bulk_tensor),
         "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [%r3];"),
    Rule("cp.reduce.async.bulk.tensor", "cp.reduce.async.bulk.tensor", always,
         guarded(cp_async_bulk_tensor),
         "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group "
         "[%rd1, {%r1, %r2}], [%r3];"),
    Rule("cp.async.bulk.prefetch.tensor", "cp.async.bulk.prefetch.tensor", always,
         guarded(cp_async_bulk_prefetch_tensor),
         "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];"),
    Rule("prefetch.tensormap", "prefetch", _tensormap, guarded(prefetch_tensormap),
         "prefetch.tensormap [%rd1];"),
    Rule("cp.async.bulk.commit_group", "cp.async.bulk.commit_group", always, guarded(bulk_commit),
         "cp.async.bulk.commit_group;"),
    Rule("cp.async.bulk.wait_group", "cp.async.bulk.wait_group", always, guarded(bulk_wait),
         "cp.async.bulk.wait_group.read 0;"),
    Rule("st.async", "st.async", always, guarded(st_async),
         "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];"),
    Rule("red.async", "red.async", always, guarded(st_async),
         "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
         "[%r1], %r2, [%r3];"),
    Rule("fence.proxy.tensormap", "fence", _tensormap_fence, guarded(fence_tensormap),
         "fence.proxy.tensormap::generic.release.gpu;"),
]  # fmt: skip
