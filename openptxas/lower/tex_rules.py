"""Selection rules for texture and surface instructions on bindless handles.

sm_90 forms (ptxas 13.0.88, observed with scripts/tex_probe.py and tests/kernels/t2/texture_fetch,
surface_write):

* The handle is a kernel parameter of type u64 (``cudaTextureObject_t``): ptxas reads its low
  word straight from constant bank 0 into a uniform register (``ULDC UR4, c[0x0][0x210]``); a
  texture takes a UR pair whose high word is zero (``UMOV UR5, URZ``), a surface the single UR.
  A handle computed in a register is refused (ptxas moves it with ``R2UR`` when it proves it
  uniform, and otherwise loops over the lanes' distinct handles), and so are ``.texref`` and
  ``.surfref`` parameters (bound references without a parameter slot: the driver fills one
  after the parameters).
* ``tex`` with f32 coordinates is ``TEX.LL Pd, Rd1, Rd0, Ra, Rb, URh, 0x0, dim, mask``: ``Ra``
  the coordinate group (1D as 2D with y = 0.0; ``a1d``/``a2d`` the layer first, clamped as an
  unsigned to 0xffff with ISETP+SEL; ``cube`` the direction divided by its largest magnitude,
  FMNMX/MUFU.RCP/FMUL), ``Rb`` the level of detail (-32.0 for plain ``tex``, the operand of
  ``tex.level``). With s32 coordinates it is ``TLD.LZ`` without ``Rb`` (1D stays 1D; ptxas
  folds small constant coordinate offsets into ``TLD.LZ.AOFFI``, we add them).
  ``mask`` enables the components that are read anywhere in the function (the others are not
  written): the enabled ones are written packed, two to ``Rd0``'s pair, the rest to ``Rd1``.
* ``suld.b``/``sust.b`` are ``SULD/SUST.D.BA.dim[.size].STRONG.SM[.TRAP|.IGN]`` (``.clamp`` has
  no mode suffix, ``.zero`` is ``.IGN``) with the coordinate group in ``[Ra]`` (``a1d`` and
  ``a2d`` put the layer last) and data moved as ``ld``/``st`` move theirs.
"""

from __future__ import annotations

from dataclasses import dataclass

from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Addr,
    CBank,
    Imm,
    Operand,
    Part,
    Reg,
    RegLike,
    Src,
    SReg,
    VReg,
)
from openptxas.ir.core import URZ as RZ_U
from openptxas.lower.context import LowerCtx, imm_bits
from openptxas.lower.mem_rules import _load_into, _store_group
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType

# PTX geometry -> (SASS dimension, coordinates read from the PTX vector) per instruction kind
_TEX_DIMS = {
    "1d": "2D",
    "2d": "2D",
    "3d": "3D",
    "a1d": "ARRAY_1D",
    "a2d": "ARRAY_2D",
    "cube": "CUBE",
}
_TLD_DIMS = {"1d": "1D", "2d": "2D", "3d": "3D", "a1d": "ARRAY_1D", "a2d": "ARRAY_2D"}
_SURF_DIMS = {"1d": "1D", "2d": "2D", "3d": "3D", "a1d": "1D_ARRAY", "a2d": "2D_ARRAY"}
_NCOORD = {"1d": 1, "2d": 2, "3d": 3, "a1d": 2, "a2d": 3, "cube": 3}
_SURF_SIZE = {1: ("U8",), 2: ("U16",), 4: (), 8: ("64",), 16: ("128",)}
_SURF_MODE = {"trap": ("TRAP",), "clamp": (), "zero": ("IGN",)}
LOD_BASE = (
    0xC2000000  # -32.0f: the level of detail ptxas gives a plain tex (level 0 after clamping)
)


@dataclass
class _FnInfo:
    defs: dict[str, list[ast.Instruction]]
    reads: set[str]


_INFO: dict[int, tuple[ast.Function, _FnInfo]] = {}


def _names(op: ast.Operand, out: set[str]) -> None:
    out.update(x.name for x in ast.operand_leaves(op) if isinstance(x, ast.Reg))


def _stmts(b: ast.Block) -> list[ast.Instruction]:
    out: list[ast.Instruction] = []
    for s in b.stmts:
        if isinstance(s, ast.Block):
            out.extend(_stmts(s))
        elif isinstance(s, ast.Instruction):
            out.append(s)
    return out


def _info(c: LowerCtx) -> _FnInfo:
    """Definitions and reads of the function's PTX registers (by name; a name a nested block
    redeclares counts for both, which only keeps more components)."""
    hit = _INFO.get(id(c.func))
    if hit is not None and hit[0] is c.func:
        return hit[1]
    defs: dict[str, list[ast.Instruction]] = {}
    reads: set[str] = set()
    assert c.func.body is not None
    for ins in _stmts(c.func.body):
        if ins.guard is not None:
            reads.add(ins.guard.reg)
        ops = ins.operands
        first = ops[0] if ops else None
        if isinstance(first, ast.Reg | ast.Vector | ast.Pair):
            written: set[str] = set()
            _names(first, written)
            for n in written:
                defs.setdefault(n, []).append(ins)
            ops = ops[1:]
        for o in ops:
            _names(o, reads)
    info = _FnInfo(defs, reads)
    if len(_INFO) > 64:
        _INFO.clear()
    _INFO[id(c.func)] = (c.func, info)
    return info


def _param_offset(c: LowerCtx, op: ast.Operand) -> int | None:
    """The bank-0 offset of the u64 parameter a handle register was loaded from (None when it
    is computed)."""
    if isinstance(op, ast.Sym | ast.Address):
        name = op.name if isinstance(op, ast.Sym) else getattr(op.base, "name", "?")
        raise c.unsupported(f"texture/surface reference '{name}' (only u64 handles)")
    if not isinstance(op, ast.Reg) or op.comp:
        raise c.unsupported(f"texture/surface handle {op!r}")
    info = _info(c)
    name = op.name
    for _ in range(16):
        ds = info.defs.get(name, [])
        if len(ds) != 1:
            break
        d = ds[0]
        src = d.operands[1] if len(d.operands) == 2 else None
        if d.opcode == "mov" and isinstance(src, ast.Reg) and not src.comp:
            name = src.name
            continue
        if (
            c.func.is_entry
            and d.opcode == "ld"
            and d.space is not None
            and d.space.value == "param"
            and d.type in (T.U64, T.B64, T.S64)
            and isinstance(src, ast.Address)
            and isinstance(src.base, ast.Sym)
            and src.base.name in c.params
        ):
            # a handle inside a struct parameter: its offset in the parameter
            return c.target.param_base + c.params[src.base.name][0] + src.base.offset + src.offset
        break
    return None


def _handle(c: LowerCtx, op: ast.Operand, pair: bool) -> VReg:
    off = _param_offset(c, op)
    u = c.new(RC.UR, 2 if pair else 1)
    lo = u.part(0) if pair else u
    if off is None:
        # ptxas moves a handle it proves uniform with R2UR, and loops over the lanes' handles
        # otherwise (R2UR P / R2UR.OR and a predicated fetch per distinct handle)
        raise c.unsupported("texture/surface handle not loaded from a kernel parameter")
    c.emit("ULDC", (), [lo], [CBank(0, off)])
    if pair:
        c.emit("UMOV", (), [u.part(1)], [RZ_U])
    return u


def _group(c: LowerCtx, vals: list[Operand]) -> VReg:
    g = c.new(RC.R, len(vals))
    for k, v in enumerate(vals):
        c.emit("MOV", (), [g.part(k) if len(vals) > 1 else g], [v])
    return g


def _coord(c: LowerCtx, op: ast.Operand, t: PtxType) -> Operand:
    if isinstance(op, ast.IntImm | ast.FloatImm):
        return Imm(imm_bits(op, t) & 0xFFFFFFFF)
    return c.rvalue(op, t)


def _geometry(ins: ast.Instruction, table: dict[str, str]) -> str:
    for g in table:
        if ins.has(g):
            return g
    return ""


def _coords(ins: ast.Instruction, mem: ast.Operand, c: LowerCtx, geom: str) -> list[ast.Operand]:
    if not isinstance(mem, ast.MemList) or len(mem.items) != 2:
        raise c.unsupported(f"'{ins.name}' with a separate sampler")
    vec = mem.items[1]
    items: list[ast.Operand] = list(vec.items) if isinstance(vec, ast.Vector) else [vec]
    n = _NCOORD[geom]
    if len(items) < n:
        raise c.unsupported(f"'{ins.name}' with {len(items)} coordinates")
    return items[:n]


def _clamp_layer(c: LowerCtx, layer: Operand) -> VReg:
    """min(layer, 0xffff) as unsigned, as ptxas clamps a texture array's layer index."""
    p = c.new(RC.P)
    out = c.new()
    src = layer if not isinstance(layer, Imm) else c.materialize(layer.value, T.B32)
    c.emit("ISETP", ("GT", "U32", "AND"), [p, PT], [src, Imm(0xFFFF), PT])
    c.emit("SEL", (), [out], [src, Imm(0xFFFF), Src(p, inv=True)])
    return out


def _cube(c: LowerCtx, xs: list[Operand]) -> list[Operand]:
    """The direction divided by its largest magnitude (ptxas's projection before TEX CUBE)."""
    regs: list[RegLike] = []
    for x in xs:
        r = c.materialize(x.value, T.F32) if isinstance(x, Imm) else x
        assert isinstance(r, VReg | Part | Reg)
        regs.append(r)
    m1, m2 = c.new(), c.new()
    c.emit("FMNMX", (), [m1], [Src(regs[0], abs=True), Src(regs[1], abs=True), Src(PT, inv=True)])
    c.emit("FMNMX", (), [m2], [Src(regs[2], abs=True), m1, Src(PT, inv=True)])
    c.emit("MUFU", ("RCP",), [m2], [m2])
    out: list[Operand] = []
    for r in regs:
        v = c.new()
        c.emit("FMUL", (), [v], [r, m2])
        out.append(v)
    return out


def tex(ins: ast.Instruction, c: LowerCtx) -> None:
    ts = ins.types
    if len(ts) != 2 or ins.vec != 4:
        raise c.unsupported(f"instruction '{ins.name}'")
    rtype, ctype = ts
    if rtype not in (T.F32, T.S32, T.U32) or ctype not in (T.F32, T.S32):
        raise c.unsupported(f"instruction '{ins.name}'")
    if any(ins.has(m) for m in ("grad", "base", "2dms", "a2dms", "acube")) or len(ins.operands) > (
        3 if ins.has("level") else 2
    ):
        raise c.unsupported(f"instruction '{ins.name}'")
    geom = _geometry(ins, _TEX_DIMS)
    integer = ctype is T.S32
    if not geom or (integer and (geom not in _TLD_DIMS or ins.has("level"))):
        raise c.unsupported(f"instruction '{ins.name}'")
    dst, mem = ins.operands[0], ins.operands[1]
    if not isinstance(dst, ast.Vector) or len(dst.items) != 4:
        raise c.unsupported(f"'{ins.name}' with this destination")  # e.g. {..}|%p (residency)
    items = list(dst.items)
    reads = _info(c).reads
    comps = [
        k for k, it in enumerate(items) if isinstance(it, ast.Reg) and it.name in reads and k < 4
    ]
    coords = _coords(ins, mem, c, geom)
    assert isinstance(mem, ast.MemList)
    if not comps:
        return  # no result read: ptxas drops the fetch (it has no side effect)
    uh = _handle(c, mem.items[0], pair=True)
    vals = [_coord(c, x, ctype) for x in coords]
    if geom in ("a1d", "a2d"):
        vals[0] = _clamp_layer(c, _coord(c, coords[0], T.B32))  # the layer is an integer
    elif geom == "1d" and not integer:
        vals.append(RZ)  # 1D as 2D with y = 0.0
    elif geom == "cube":
        vals = _cube(c, vals)
    ra = _group(c, vals)
    rb: Operand
    if integer:
        rb = RZ
    elif ins.has("level"):
        rb = c.rvalue(ins.operands[2], T.F32)
    else:
        rb = c.materialize(LOD_BASE, T.F32)
    n = len(comps)
    rd0 = c.new(RC.R, min(2, n))
    rd1: Operand = c.new(RC.R, n - 2) if n > 2 else RZ
    mask = sum(1 << k for k in comps)
    dim = _TLD_DIMS[geom] if integer else _TEX_DIMS[geom]
    c.emit(
        "TLD" if integer else "TEX",
        ("LZ",) if integer else ("LL",),
        [PT, rd1, rd0],
        [ra, rb, uh, Imm(0), SReg(dim), Imm(mask)],
    )
    for j, k in enumerate(comps):
        g = rd0 if j < 2 else rd1
        assert isinstance(g, VReg)
        part = g.part(j % 2) if g.width > 1 else g
        c.emit("MOV", (), [c.dst(items[k])], [part])


def _surface(ins: ast.Instruction, c: LowerCtx, mem: ast.Operand) -> tuple[tuple[str, ...], Addr]:
    """SULD/SUST modifiers and the coordinate address of a surface access."""
    if not ins.has("b"):
        raise c.unsupported(f"instruction '{ins.name}'")
    geom = _geometry(ins, _SURF_DIMS)
    t = ins.type
    if not geom or t is None:
        raise c.unsupported(f"instruction '{ins.name}'")
    size = t.size * max(ins.vec, 1)
    mode = next((m for m in _SURF_MODE if ins.has(m)), "trap")
    coords = _coords(ins, mem, c, geom)
    vals = [_coord(c, x, T.B32) for x in coords]
    if geom in ("a1d", "a2d"):
        vals = vals[1:] + vals[:1]  # the layer last
    mods = ("D", "BA", _SURF_DIMS[geom], *_SURF_SIZE[size], "STRONG", "SM", *_SURF_MODE[mode])
    return mods, Addr(_group(c, vals), 0)


def suld(ins: ast.Instruction, c: LowerCtx) -> None:
    dst, mem = ins.operands
    assert isinstance(mem, ast.MemList | ast.Operand)
    mods, addr = _surface(ins, c, mem)
    assert isinstance(mem, ast.MemList)
    uh = _handle(c, mem.items[0], pair=False)
    _load_into(c, ins, dst, lambda g: c.emit("SULD", mods, [PT, g], [addr, uh, Imm(0)]))


def sust(ins: ast.Instruction, c: LowerCtx) -> None:
    mem, v = ins.operands
    mods, addr = _surface(ins, c, mem)
    assert isinstance(mem, ast.MemList)
    uh = _handle(c, mem.items[0], pair=False)
    src = _store_group(c, ins, v)
    if isinstance(src, Imm):
        src = c.materialize(src.value, T.B32)
    c.emit("SUST", mods, [], [addr, src, uh, Imm(0)])


RULES = [
    Rule("tex", "tex", always, tex, "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];"),
    Rule("suld.b", "suld", always, suld, "suld.b.2d.b32.trap {%r1}, [%rd1, {%r2, %r3}];"),
    Rule("sust.b", "sust", always, sust, "sust.b.2d.b32.trap [%rd1, {%r2, %r3}], {%r1};"),
]
