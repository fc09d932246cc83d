"""Warpgroup MMA (sm_90a ``wgmma``), as ptxas 13.0.88 compiles it (``scripts/probe_wgmma.py``):

- ``wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b> d, a, b, scale-d[, imm-scale-a,
  imm-scale-b[, imm-trans-a, imm-trans-b]]``: ``HGMMA.64xNxK.<F32|F16>[.BF16|.TF32]`` (f16,
  bf16, tf32), ``QGMMA.64xNx32.<F32|F16>.<E4M3|E5M2>.<E4M3|E5M2>`` (fp8),
  ``IGMMA.64xNx32.<S8|U8>.<S8|U8>[.SAT]`` (s8/u8) ``Rd, gdesc[URq][.negA.negB.tnspA.tnspB],
  Rc|RZ, [!]UPp[, gsb0]`` or, with A in registers, ``Rd, [-]Ra, gdesc[URq][.negB.tnspB], ...``:
  the descriptors go to a uniform quad through ``R2UR`` (A in URq:URq+1, B in URq+2:URq+3),
  a scale-d predicate through ``VOTEU.ANY UPp, Pp`` (constant 1: no predicate, constant 0:
  ``RZ, !UPT``), imm-scale -1 is ``negA``/``negB`` (``-Ra`` for A in registers), imm-trans
  1 is ``tnspA``/``tnspB``.
- ``wgmma.fence``: ``WARPGROUP.ARRIVE`` right before the next wgmma (ptxas places it there; one
  ARRIVE covers the wgmmas that follow until an instruction writes a register they read).
- ``wgmma.commit_group``: the last wgmma of the group carries ``gsb0``.
- ``wgmma.wait_group N``: ``WARPGROUP.DEPBAR.LE gsb0, N``.

Register constraints. A wgmma reads and writes its accumulator in place in one contiguous
group of registers (``R24..R31`` for m64n16 f32). As ptxas, when every wgmma of the function
names its accumulator with the same list of 32-bit registers, or with disjoint lists, each list
becomes one register group and its PTX registers are parts of it (``bind``, after the function
is lowered), so no copies are needed and the wgmmas run asynchronously (pipelined). Otherwise
ptxas serialises the wgmmas with a note, and so do we (each wgmma copies its accumulator into a
group, waits for itself and copies it back):

- (C7511) ... serialized due to insufficient register resources for the wgmma pipeline: the
  accumulator lists overlap without being equal (or are not 32-bit registers);
- (C7515) ... serialized due to non wgmma instructions defining accumulator registers of a wgmma
  between start and end of the pipeline stage: an instruction writes an accumulator register
  between a wgmma and the next ``wait_group``.

An instruction that reads an accumulator register before its ``wait_group`` makes ptxas inject a
wait there (note C7517); here it serialises the wgmmas (without a note).

The registers an asynchronous wgmma reads or writes stay allocated until the ``wait_group``
that completes it: the ``WARPGROUP.DEPBAR`` lists them as sources (the encoder drops them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from openptxas.ir.core import RC, RZ, UPT, Instr, Operand, Part, Reg, RegLike, Src, SReg, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType
GMMA = frozenset({"HGMMA", "IGMMA", "QGMMA"})
GSB0 = SReg("gsb0")
_SHAPE = re.compile(r"m64n(\d+)k(\d+)$")
_SERIAL_REGS = (
    "(C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
    "insufficient register resources for the wgmma pipeline in the function '{}'"
)
_SERIAL_DEFS = (
    "(C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non "
    "wgmma instructions defining accumulator registers of a wgmma between start and end of the "
    "pipeline stage in the function '{}'"
)
_F16 = ("f16", "bf16", "tf32")
_FP8 = ("e4m3", "e5m2")
_INT = ("s8", "u8")


@dataclass
class WgmmaState:
    """What the lowering of one function's wgmmas needs: the accumulator groups (pipelined) or
    the reason they are serialised."""

    serial: str | None = None  # ptxas's note when the wgmmas are serialised ("": none)
    lists: dict[tuple[str, ...], VReg] = field(default_factory=dict)  # accumulator list -> group
    inflight: list[RegLike] = field(default_factory=list)  # read/written by unfinished wgmmas
    since_commit: list[Instr] = field(default_factory=list)  # wgmmas of the open group


def _acc_names(ins: ast.Instruction) -> tuple[str, ...] | None:
    d = ins.operands[0] if ins.operands else None
    items = d.items if isinstance(d, ast.Vector) else (d,) if d is not None else ()
    names = []
    for it in items:
        if not isinstance(it, ast.Reg) or it.comp:
            return None
        names.append(it.name)
    return tuple(names)


def _written(ins: ast.Instruction) -> list[str]:
    """PTX registers an instruction (not a store) writes: its first operand."""
    if not ins.operands or ins.opcode.startswith(("st", "red", "wgmma", "bar", "cp.")):
        return []
    d = ins.operands[0]
    items = d.items if isinstance(d, ast.Vector) else (d,)
    out = [it.name for it in items if isinstance(it, ast.Reg)]
    if isinstance(d, ast.Pair):
        out += [x.name for x in (d.first, d.second) if isinstance(x, ast.Reg)]
    return out


def _named(ins: ast.Instruction) -> set[str]:
    """Every PTX register an instruction names."""
    out = {x.name for op in ins.operands for x in ast.operand_leaves(op) if isinstance(x, ast.Reg)}
    if ins.guard is not None:
        out.add(ins.guard.reg)
    return out


def prepare(c: LowerCtx, stmts: list[ast.Stmt]) -> None:
    """Decide how ``c.func``'s wgmmas are compiled (module doc), before it is lowered."""
    instrs = [s for s in stmts if isinstance(s, ast.Instruction)]
    mmas = [s for s in instrs if s.opcode == "wgmma.mma_async"]
    if not mmas:
        return
    st = WgmmaState()
    c.wgmma = st
    where: dict[str, tuple[tuple[str, ...], int]] = {}
    for ins in mmas:
        names = _acc_names(ins)
        ok = names is not None and len(set(names)) == len(names)
        if ok and names is not None:
            ok = all((t := c.reg_types.get(n)) is not None and t.size == 4 for n in names)
            for k, n in enumerate(names):
                prev = where.setdefault(n, (names, k))
                ok = ok and prev == (names, k)
        if not ok:
            st.serial = _SERIAL_REGS.format(c.func.name)
            c.fn.notes.append(st.serial)
            return
    # a non-wgmma instruction writing an accumulator register of a wgmma not yet waited for
    # (in program order: the open group, and the committed groups a wait_group N leaves)
    open_: set[str] = set()
    groups: list[set[str]] = []
    for ins in instrs:
        pending = open_.union(*groups)
        if ins.opcode == "wgmma.mma_async":
            open_ |= set(_acc_names(ins) or ())
        elif ins.opcode == "wgmma.commit_group":
            groups.append(open_)
            open_ = set()
        elif ins.opcode == "wgmma.wait_group":
            left = ins.operands[0].value if isinstance(ins.operands[0], ast.IntImm) else 0
            groups = groups[max(0, len(groups) - left) :] if left else []
        elif pending & set(_written(ins)):
            st.serial = _SERIAL_DEFS.format(c.func.name)
            c.fn.notes.append(st.serial)
            return
        elif pending & _named(ins):
            # read before its wait_group: ptxas injects a wait there ("(C7517) warpgroup.wait
            # is injected ..."); serialised here (no note: ptxas's code differs)
            st.serial = ""
            return
    for ins in mmas:
        names = _acc_names(ins)
        assert names is not None
        if names not in st.lists:
            st.lists[names] = c.new(RC.R, len(names))


def bind(c: LowerCtx) -> None:
    """After lowering (pipelined wgmmas): each accumulator register becomes its part of its
    group; the copies this leaves (``MOV x, x``) are dropped."""
    st = c.wgmma
    if st is None or st.serial is not None:
        return
    to: dict[int, Part] = {}
    for names, g in st.lists.items():
        for k, n in enumerate(names):
            v = c.regs.get(n)
            if v is not None:
                to[v.id] = g.part(k)

    def conv(x: RegLike) -> RegLike:
        if isinstance(x, VReg) and x.id in to:
            return to[x.id]
        if isinstance(x, Part) and x.v.id in to and x.k == 0 and x.n == 1:
            return to[x.v.id]
        return x

    from openptxas.ir.analysis import map_regs

    for b in [*c.fn.blocks, *c.cold_blocks]:
        for ins in b.instrs:
            map_regs(ins, conv, dsts=True)
        b.instrs = [
            i
            for i in b.instrs
            if not (i.op == "MOV" and i.guard is None and len(i.srcs) == 1 and i.dsts == i.srcs)
        ]


# ------------------------------------------------------------------------------------ rules


def fence(ins: ast.Instruction, c: LowerCtx) -> None:
    """``wgmma.fence.sync.aligned``: the ARRIVE goes right before the next wgmma."""
    if not (ins.has("sync") and ins.has("aligned")):
        raise c.unsupported(f"instruction '{ins.name}'")


def commit(ins: ast.Instruction, c: LowerCtx) -> None:
    st = c.wgmma
    if st is None or st.serial is not None:
        return  # serialised: every wgmma is its own group, complete when it returns
    if not st.since_commit:
        raise c.unsupported(f"instruction '{ins.name}' without a wgmma.mma_async before it")
    last = st.since_commit[-1]
    if c.block is None or last not in c.block.instrs:
        raise c.unsupported(f"instruction '{ins.name}' in another block than its last wgmma")
    last.srcs.append(GSB0)
    st.since_commit = []


def wait(ins: ast.Instruction, c: LowerCtx) -> None:
    (n,) = ins.operands
    if not isinstance(n, ast.IntImm) or not 0 <= n.value < 8:
        raise c.unsupported(f"instruction '{ins.name}' with this count")
    st = c.wgmma
    if st is None or st.serial is not None:
        return
    from openptxas.ir.core import Imm

    keep: list[Operand] = []
    for r in st.inflight:
        if r not in keep:
            keep.append(r)
    c.emit("WARPGROUP", ("DEPBAR", "LE"), [], [GSB0, Imm(n.value), *keep])
    if n.value == 0:
        st.inflight = []


def _desc_words(c: LowerCtx, op: ast.Operand, q: VReg, at: int) -> None:
    """A 64-bit descriptor into ``q.part(at), q.part(at + 1)``."""
    if isinstance(op, ast.IntImm):
        for k in range(2):
            from openptxas.ir.core import Imm

            c.emit("UMOV", (), [q.part(at + k)], [Imm((op.value >> (32 * k)) & 0xFFFFFFFF)])
        return
    if not isinstance(op, ast.Reg):
        raise c.unsupported(f"wgmma descriptor operand {op!r}")
    v = c.reg_part(op)
    if not isinstance(v, VReg) or v.width != 2:
        raise c.unsupported("wgmma descriptor that is not a 64-bit register")
    for k in range(2):
        c.emit("R2UR", (), [q.part(at + k)], [v.part(k)])


def _imm(c: LowerCtx, op: ast.Operand, allowed: tuple[int, ...], what: str) -> int:
    if not isinstance(op, ast.IntImm) or op.value not in allowed:
        raise c.unsupported(f"wgmma {what} {op!r}")
    return op.value


def _needs_arrive(c: LowerCtx, reads: set[int]) -> bool:
    """Whether an ARRIVE must precede a wgmma reading registers ``reads`` (vreg ids): unless
    an earlier wgmma (or ARRIVE) of this block comes first, looking back, with no write to
    those registers in between."""
    assert c.block is not None
    for i in reversed(c.block.instrs):
        if i.op in GMMA or (i.op == "WARPGROUP" and i.mods == ("ARRIVE",)):
            return False
        for d in i.dsts:
            v = d.v if isinstance(d, Part) else d
            if isinstance(v, VReg) and v.id in reads:
                return True
    return True


def mma_async(ins: ast.Instruction, c: LowerCtx) -> None:
    st = c.wgmma
    assert st is not None
    shape = next((m for m in ins.mods.raw_set if _SHAPE.match(m)), None)
    tys = [m for m in ins.mods.suffix.split(".") if m in ("f32", "f16", "s32", *_F16, *_FP8, *_INT)]
    if shape is None or len(tys) != 3 or not ins.has("aligned"):
        raise c.unsupported(f"instruction '{ins.name}'")
    m = _SHAPE.match(shape)
    assert m is not None
    n, k = int(m.group(1)), int(m.group(2))
    sp = 2 if ins.has("sp") else 0  # .sp: the metadata and selector operands after B; K doubled
    k //= 2 if sp else 1
    dt, at, bt = tys
    ops = list(ins.operands)
    a_regs = isinstance(ops[1], ast.Vector)
    sat = ins.has("satfinite")
    if at in _F16:
        if bt != at or dt not in ("f32", "f16") or (dt == "f16" and at != "f16"):
            raise c.unsupported(f"instruction '{ins.name}'")
        if k != (8 if at == "tf32" else 16):
            raise c.unsupported(f"instruction '{ins.name}'")
        op = "HGMMA"
        mods = (f"64x{n}x{k << (sp // 2)}", dt.upper(), *((at.upper(),) if at != "f16" else ()))
        nscale, ntrans = (2, 0 if at == "tf32" else (1 if a_regs else 2))
    elif at in _FP8:
        if bt not in _FP8 or dt not in ("f32", "f16") or k != 32:
            raise c.unsupported(f"instruction '{ins.name}'")
        shp = f"64x{n}x{32 << (sp // 2)}"
        op, mods, nscale, ntrans = "QGMMA", (shp, dt.upper(), at.upper(), bt.upper()), 2, 0
    elif at in _INT:
        if bt not in _INT or dt != "s32" or k != 32:
            raise c.unsupported(f"instruction '{ins.name}'")
        mods = (f"64x{n}x{32 << (sp // 2)}", at.upper(), bt.upper(), *(("SAT",) if sat else ()))
        op, nscale, ntrans = "IGMMA", 0, 0
    else:
        raise c.unsupported(f"instruction '{ins.name}'")
    if n % 8 or not 8 <= n <= 256 or ins.guard is not None:
        raise c.unsupported(f"instruction '{ins.name}'")
    nd = n // 2 if dt in ("f32", "s32") else n // 4
    names = _acc_names(ins)
    if names is None or len(names) != nd:
        raise c.unsupported(f"instruction '{ins.name}' with these operands")
    want = 4 + sp + nscale + ntrans
    if len(ops) != want:
        raise c.unsupported(f"instruction '{ins.name}' with {len(ops)} operands")
    meta: VReg | None = None
    fsel = 0
    if sp:
        fsel = _imm(c, ops[4], (0, 1, 2, 3), "sparsity selector")
        meta = c.new(RC.R)
        c.emit("MOV", (), [meta], [c.value(ops[3], T.B32)])
        ops = ops[:3] + ops[5:]
    scale_d = ops[3]
    sa = _imm(c, ops[4], (1, -1), "imm-scale-a") if nscale else 1
    sb = _imm(c, ops[5], (1, -1), "imm-scale-b") if nscale else 1
    ta = tb = 0
    if ntrans == 2:
        ta = _imm(c, ops[4 + nscale], (0, 1), "imm-trans-a")
        tb = _imm(c, ops[5 + nscale], (0, 1), "imm-trans-b")
    elif ntrans == 1:
        tb = _imm(c, ops[4 + nscale], (0, 1), "imm-trans-b")
    flags = (("negA", sa < 0 and not a_regs), ("negB", sb < 0), ("tnspA", ta), ("tnspB", tb))
    sel = ".".join(s for s, on in flags if on)
    # descriptors into a uniform quad (A's half unused with A in registers: zeroed)
    q = c.new(RC.UR, 4)
    if a_regs:
        for j in range(2):
            from openptxas.ir.core import URZ

            c.emit("UMOV", (), [q.part(j)], [URZ])
    else:
        _desc_words(c, ops[1], q, 0)
    _desc_words(c, ops[2], q, 2)
    a_group: VReg | None = None
    if a_regs:
        items = ops[1].items  # type: ignore[union-attr]
        if len(items) != 4:
            raise c.unsupported(f"instruction '{ins.name}' with these A registers")
        a_group = c.new(RC.R, 4)
        for j, it in enumerate(items):
            c.emit("MOV", (), [a_group.part(j)], [c.value(it, T.B32)])
    # scale-d
    pred: Operand | None = None
    use_c = True
    if isinstance(scale_d, ast.IntImm):
        if scale_d.value == 0:
            use_c, pred = False, Src(UPT, inv=True)
        elif scale_d.value != 1:
            raise c.unsupported(f"wgmma scale-d {scale_d.value}")
    elif isinstance(scale_d, ast.Reg):
        up = c.new(RC.UP)
        c.emit("VOTEU", ("ANY",), [up], [c.value(scale_d, T.PRED)])
        pred = up
    else:
        raise c.unsupported(f"wgmma scale-d operand {scale_d!r}")
    serial = st.serial is not None
    if serial:
        g = c.new(RC.R, nd)
        if use_c:
            for j, nm in enumerate(names):
                c.emit("MOV", (), [g.part(j)], [c.reg(nm)])
    else:
        g = st.lists[names]
    reads = {g.id} | {x.id for x in (a_group, meta) if x is not None}
    reads |= {c.regs[nm].id for nm in names if nm in c.regs}
    if serial or _needs_arrive(c, reads):
        c.emit("WARPGROUP", ("ARRIVE",))
    srcs: list[Operand] = []
    if a_group is not None:
        srcs.append(Src(a_group, neg=sa < 0))
    srcs.append(Src(q, sel=sel))
    srcs.append(g if use_c else RZ)
    if pred is not None:
        srcs.append(pred)
    if meta is not None:
        from openptxas.ir.core import Imm

        srcs += [meta, Imm(fsel)]
        mods = ("SP", *mods)
    gmma = c.emit(op, mods, [g], srcs)
    if serial:
        gmma.srcs.append(GSB0)
        from openptxas.ir.core import Imm

        c.emit("WARPGROUP", ("DEPBAR", "LE"), [], [GSB0, Imm(0)])
        for j, nm in enumerate(names):
            c.emit("MOV", (), [c.reg(nm)], [g.part(j)])
        return
    st.since_commit.append(gmma)
    st.inflight.append(g)
    for x in (a_group, meta):
        if x is not None:
            st.inflight.append(x)


RULES: list[Rule] = [
    Rule("wgmma.fence", "wgmma.fence", always, fence, "wgmma.fence.sync.aligned;"),
    Rule("wgmma.commit_group", "wgmma.commit_group", always, commit,
         "wgmma.commit_group.sync.aligned;"),
    Rule("wgmma.wait_group", "wgmma.wait_group", always, wait,
         "wgmma.wait_group.sync.aligned 0;"),
    Rule("wgmma.mma_async", "wgmma.mma_async", always, mma_async,
         "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, "
         "1, 1, 1, 0, 0;"),
]  # fmt: skip

_ = Reg
