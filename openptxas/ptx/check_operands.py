"""Operand checks of the instructions whose operands do not fit the table's per-operand roles:
textures and surfaces (tex, tld4, txq, istypep, suld, sust, sured, suq), the video instructions,
cp.async.bulk.tensor and its reduce/prefetch forms, and elect.

Each checker raises `OperandError` with ptxas 13.0.88's messages, in its order (learned with
scripts/ptx_probe_operands.py; several messages may belong to one statement). The table's forms
still choose the modifiers and gates; these checkers replace the per-operand loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from openptxas.ptx.ast import (
    Address,
    FloatImm,
    Instruction,
    IntImm,
    MemList,
    Not,
    Operand,
    Pair,
    Param,
    Reg,
    Sink,
    SpecialReg,
    Sym,
    VarDecl,
    Vector,
)
from openptxas.ptx.types import PtxType, StateSpace

if TYPE_CHECKING:
    from openptxas.ptx.check_instr import InstrChecks


class OperandError(Exception):
    """Operands that do not fit a form: ptxas's messages, the first one primary."""

    def __init__(self, msg: str, *more: str) -> None:
        super().__init__(msg)
        self.more: tuple[str, ...] = more


_VEC_OK = frozenset({1, 2, 4, 8, 16, 32, 64, 128})
_INT = ("b", "u", "s")

# geometry -> (coordinate elements, gradient/offset elements, array geometry)
_GEOM: dict[str, tuple[int, int, bool]] = {
    "1d": (1, 1, False),
    "2d": (2, 2, False),
    "3d": (4, 4, False),
    "a1d": (2, 1, True),
    "a2d": (4, 2, True),
    "cube": (4, 4, False),
    "acube": (4, 4, True),
    "2dms": (4, 2, False),
    "a2dms": (4, 2, True),
}


def _class(t: PtxType) -> str:
    """The element class ptxas compares in a vector: bit types match any class."""
    return "f" if t.kind == "f" else ("i" if t.kind in ("u", "s") else "b")


class _Ops:
    """Helpers over one instruction's operands (message names, register types)."""

    def __init__(self, c: InstrChecks, ins: Instruction, name: str) -> None:
        self.c = c
        self.ins = ins
        self.name = name
        self.msgs: list[str] = []

    @property
    def mismatch(self) -> str:
        return f"Arguments mismatch for instruction '{self.name}'"

    def fail(self, *msgs: str) -> OperandError:
        allm = [*self.msgs, *msgs]
        return OperandError(allm[0], *allm[1:])

    def rtype(self, o: Operand) -> PtxType | None:
        if isinstance(o, Reg):
            return self.c._reg_type(o)
        if isinstance(o, SpecialReg):
            from openptxas.ptx.types import SPECIAL_REGISTERS

            return SPECIAL_REGISTERS.get(o.name)
        return None

    def vector_type(self, v: Vector, first: int = 0) -> PtxType | None:
        """The type of a brace vector (its first register's), after ptxas's element checks:
        a size different from the first's is 'Incompatible', a float next to an integer is
        'different types' (from element `first` on: an array index may differ)."""
        typed = [(i, self.rtype(it)) for i, it in enumerate(v.items)]
        regs = [(i, t) for i, t in typed if t is not None]
        if not regs:
            return None
        t0 = regs[0][1]
        prev: PtxType | None = None
        for i, t in regs:
            if i == regs[0][0]:
                prev = t if i >= first else None
                continue
            if t.bits != t0.bits:
                self.msgs.append("Incompatible elements of vector expression")
            elif (
                i >= first
                and prev is not None
                and _class(t) != _class(prev)
                and "b"
                not in (
                    _class(t),
                    _class(prev),
                )
            ):
                self.msgs.append(
                    f"Vector with elements of different types are not allowed in "
                    f"{self.ins.opcode} instruction"
                )
            if i >= first:
                prev = t
        if first and len(regs) > 1:
            later = [t for i, t in regs if i >= first]
            return later[0] if later else t0
        return t0

    def no_sink(self, v: Vector) -> None:
        if any(isinstance(it, Sink) for it in v.items):
            raise self.fail("Sink '_' not allowed as a source operand")

    def src_ok(
        self,
        o: Operand,
        ok: Callable[[PtxType], bool],
        *,
        imm_int: bool = True,
        imm_float: bool = True,
    ) -> bool:
        if isinstance(o, IntImm):
            return imm_int
        if isinstance(o, FloatImm):
            return imm_float
        t = self.rtype(o)
        return t is not None and ok(t)


def _is32(t: PtxType) -> bool:
    return t.bits == 32 and t.kind in ("b", "u", "s", "f")


def _int32(t: PtxType) -> bool:
    return t.bits == 32 and t.kind in _INT


def _f32(t: PtxType) -> bool:
    return t.bits == 32 and t.kind in ("b", "f")


def _u64(t: PtxType) -> bool:
    return t.bits == 64 and t.kind in _INT


# -- textures and surfaces ---------------------------------------------------------------------


def _handle(p: _Ops, o: Operand, argno: int, kind: str) -> None:
    """The texture/surface handle: a .texref/.surfref name or a 64-bit integer register."""
    if isinstance(o, Sym) or (isinstance(o, Reg) and p.c._reg_type(o) is None):
        d = p.c.lookup(o.name)
        if isinstance(d, (VarDecl, Param)) and d.type.value in ("texref", "samplerref", "surfref"):
            if d.type.value != kind:
                raise p.fail(
                    f"Argument {argno} of instruction '{p.name}': .{kind} or .u64 register expected"
                )
            return
        if d is None:
            return  # an unknown symbol, reported as such
        raise p.fail(p.mismatch)
    t = p.rtype(o)
    if t is None or not _u64(t):
        raise p.fail(p.mismatch)


def _sampler(p: _Ops, items: list[Operand]) -> None:
    """The sampler of [tex, sampler, coords]: required under texmode_independent (a .samplerref
    or a 64-bit register), optional in unified mode (where a texref also passes)."""
    independent = p.c.texmode == "texmode_independent"
    bad = f"Argument 2 of instruction '{p.name}': .samplerref or .u64 register expected"
    if len(items) == 2:
        if independent:
            raise p.fail(bad)
        return
    h = items[1]
    if isinstance(h, Sym) or (isinstance(h, Reg) and p.c._reg_type(h) is None):
        d = p.c.lookup(h.name)
        if d is None:
            return
        kinds = ("samplerref",) if independent else ("texref", "samplerref")
        if isinstance(d, (VarDecl, Param)) and d.type.value in kinds:
            return
        if (
            independent
            and isinstance(d, (VarDecl, Param))
            and d.type.value in ("texref", "surfref")
        ):
            raise p.fail(bad)
        raise p.fail(p.mismatch)
    t = p.rtype(h)
    if t is None or not _u64(t):
        raise p.fail(p.mismatch)


def _dest_vector(p: _Ops, o: Operand, want: PtxType, n: int, *, relaxed: bool) -> None:
    if isinstance(o, Pair):
        sec = o.second
        if not isinstance(sec, Sink) and p.rtype(sec) is not PtxType.PRED:
            raise p.fail(f"Predicate output expected for instruction '{p.name}'")
        o = o.first
    if not isinstance(o, Vector):
        raise p.fail(
            "Result vector expected", f"Argument vector size mismatch for instruction '{p.name}'"
        )
    if len(o.items) != n:
        raise p.fail(f"Argument vector size mismatch for instruction '{p.name}'")
    t = p.vector_type(o)
    ok = _is32 if want is PtxType.F32 else (lambda t: _data_ok(t, want, relaxed))
    if t is not None and not ok(t):
        raise p.fail(p.mismatch)


def _data_ok(t: PtxType, want: PtxType, relaxed: bool) -> bool:
    from openptxas.ptx.check_instr import type_compatible

    return type_compatible(t, want, relaxed)


def _coords(
    p: _Ops,
    o: Operand,
    need: int,
    elem_ok: Callable[[PtxType], bool],
    *,
    array: bool,
    float_index_msg: bool,
    geometry_msgs: int,
) -> None:
    """Texture/surface coordinates: a vector of at least `need` elements (an array index first
    in array geometries)."""
    geo = f"Operand vector size doesn't match geometry for instruction '{p.name}'"
    if not isinstance(o, Vector):
        if array:
            raise p.fail(p.mismatch)
        if not p.src_ok(o, elem_ok):
            raise p.fail(p.mismatch)
        return
    p.no_sink(o)
    if len(o.items) not in _VEC_OK:
        raise p.fail(f"Illegal vector size: {len(o.items)}")
    t = p.vector_type(o, first=1 if array else 0)
    if array:
        it = p.rtype(o.items[0])
        if it is not None and it.bits != 32:
            raise p.fail(p.mismatch)
        if it is not None and it.kind == "f" and float_index_msg:
            p.msgs.append(
                f"Array index in the '{p.ins.opcode}' instruction has unexpected type. "
                "Expecting type .u32"
            )
    if t is not None and not elem_ok(t):
        raise p.fail(p.mismatch)
    if len(o.items) < need:
        p.msgs.extend([geo] * geometry_msgs)


def _memlist(p: _Ops, o: Operand, argno: int) -> MemList:
    if not isinstance(o, MemList):
        if not isinstance(o, Sym):
            raise p.fail(p.mismatch)
        raise p.fail(
            f"Illegal Addressing Mode in instruction '{p.name}'",
            f"Address expected for argument {argno} of instruction '{p.name}'",
        )
    return o


def _tex(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    types = ins.mods.types
    dtype, ctype = types[0], types[-1]
    geom = next((g for g in ins.mods.raw if g in _GEOM), "2d")
    need, gneed, array = _GEOM[geom]
    flags = ins.mods.raw_set
    nfix = {"level": 3, "grad": 4}.get(next((m for m in ("level", "grad") if m in flags), ""), 2)
    if len(ops) < nfix or len(ops) > nfix + 2:
        raise p.fail(p.mismatch)
    _dest_vector(p, ops[0], dtype, ins.mods.vec or 4, relaxed=False)
    ml = _memlist(p, ops[1], 1)
    items = list(ml.items)
    if len(items) < 2:
        raise p.fail(p.mismatch)
    _handle(p, items[0], 1, "texref")
    _sampler(p, items)
    elem = _f32 if ctype is PtxType.F32 else _int32
    elem = _is32 if ctype is PtxType.F32 else _int32
    _coords(
        p, items[-1], need, elem, array=array, float_index_msg=ctype is PtxType.F32, geometry_msgs=2
    )
    rest = list(ops[2:])
    if "level" in flags:
        if not p.src_ok(rest[0], _f32, imm_int=False):
            raise p.fail(p.mismatch)
        rest = rest[1:]
    elif "grad" in flags:
        geo = f"Operand vector size doesn't match geometry for instruction '{p.name}'"
        grads = rest[:2]
        rest = rest[2:]
        notvec = [i for i, g in enumerate(grads) if not isinstance(g, Vector)]
        if notvec:
            raise p.fail(*(f"Vector expected for argument {3 + i}" for i in notvec))
        vecs = [g for g in grads if isinstance(g, Vector)]
        for g in vecs:
            p.no_sink(g)
        # an illegal size (3) was reported with the instruction's vectors already
        for g in vecs:
            t = p.vector_type(g)
            if t is not None and not _f32(t):
                raise p.fail(p.mismatch)
        p.msgs.extend(geo for g in vecs if len(g.items) != gneed)
    _tex_tail(p, rest, gneed)
    if p.msgs:
        raise p.fail()


def _tex_tail(p: _Ops, rest: Sequence[Operand], gneed: int) -> None:
    """The optional offset vector and depth-compare value after the coordinates."""
    geo = f"Operand vector size doesn't match geometry for instruction '{p.name}'"
    if not rest:
        return
    e = rest[0]
    if isinstance(e, Vector):
        p.no_sink(e)
        t = p.vector_type(e)
        if t is not None and not _int32(t):
            raise p.fail(p.mismatch)
        if len(e.items) < gneed:
            p.msgs.append(geo)
        if len(rest) > 1 and not p.src_ok(rest[1], _f32, imm_int=False):
            raise p.fail(p.mismatch)
    else:
        if not p.src_ok(e, _is32):
            raise p.fail(p.mismatch)
        if len(rest) > 1 and not p.src_ok(rest[1], _f32, imm_int=False):
            raise p.fail(p.mismatch)


def _tld4(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    types = ins.mods.types
    geom = next((g for g in ins.mods.raw if g in _GEOM), "2d")
    need, gneed, array = _GEOM[geom]
    if len(ops) < 2 or len(ops) > 4:
        raise p.fail(p.mismatch)
    _dest_vector(p, ops[0], types[0], 4, relaxed=False)
    ml = _memlist(p, ops[1], 1)
    items = list(ml.items)
    if len(items) < 2:
        raise p.fail(p.mismatch)
    _handle(p, items[0], 1, "texref")
    _sampler(p, items)
    _coords(p, items[-1], need, _is32, array=array, float_index_msg=True, geometry_msgs=2)
    _tex_tail(p, ops[2:], gneed)
    if p.msgs:
        raise p.fail()


def _query(kind: str) -> Callable[[InstrChecks, Instruction, str], None]:
    def check(c: InstrChecks, ins: Instruction, name: str) -> None:
        p = _Ops(c, ins, name)
        ops = ins.operands
        n = 3 if "level" in ins.mods.raw_set else 2
        if len(ops) != n:
            raise p.fail(p.mismatch)
        d = ops[0]
        t = p.rtype(d)
        if isinstance(d, Vector) or t is None or not _data_ok(t, PtxType.B32, False):
            raise p.fail(p.mismatch)
        a = ops[1]
        sampler_attr = kind == "texref" and any(m in _SAMPLER_ATTRS for m in ins.mods.raw)
        if isinstance(a, Address) and a.base is not None and a.offset == 0:
            base = a.base
            hd = c.lookup(base.name)
            if not (
                sampler_attr and isinstance(hd, (VarDecl, Param)) and hd.type.value == "samplerref"
            ):
                _handle(p, base, 1, kind)
        elif isinstance(a, (Address, MemList)):
            raise p.fail(p.mismatch)
        else:
            raise p.fail(f"Address expected for argument 1 of instruction '{name}'")
        if n == 3 and not p.src_ok(ops[2], _int32_strict, imm_float=False):
            raise p.fail(p.mismatch)

    return check


_SAMPLER_ATTRS = frozenset(
    {"filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2", "force_unnormalized_coords"}
)


def _int32_strict(t: PtxType) -> bool:
    return t.bits == 32 and t.kind in _INT


def _istypep(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    if len(ops) != 2:
        raise p.fail(p.mismatch)
    if p.rtype(ops[0]) is not PtxType.PRED:
        raise p.fail(p.mismatch)
    if not p.src_ok(ops[1], _u64, imm_float=False):
        raise p.fail(p.mismatch)


def _suld(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    if len(ops) > 1 and isinstance(ops[1], Sym):
        _memlist(p, ops[1], 1)
    if len(ops) != 2:
        raise p.fail(p.mismatch)
    want = ins.mods.types[-1]
    vec = ins.mods.vec
    d = ops[0]
    if vec:
        if not isinstance(d, Vector):
            raise p.fail(
                "Result vector expected", f"Argument vector size mismatch for instruction '{name}'"
            )
        if len(d.items) != vec:
            raise p.fail(f"Argument vector size mismatch for instruction '{name}'")
    if isinstance(d, Vector):
        t = p.vector_type(d)
    else:
        t = p.rtype(d)
        if t is None:
            raise p.fail(p.mismatch)
    if t is not None and not _data_ok(t, want, True):
        raise p.fail(p.mismatch)
    _surface_addr(p, ops[1], 1, geometry_msgs=2)
    if p.msgs:
        raise p.fail()


def _surface_addr(p: _Ops, o: Operand, argno: int, *, geometry_msgs: int) -> None:
    ml = _memlist(p, o, argno)
    items = list(ml.items)
    if len(items) != 2:
        raise p.fail(p.mismatch)
    _handle(p, items[0], argno, "surfref")
    geom = next((g for g in p.ins.mods.raw if g in _GEOM), "2d")
    need, _, _ = _GEOM[geom]
    _coords(
        p, items[1], need, _int32, array=False, float_index_msg=False, geometry_msgs=geometry_msgs
    )


def _sust(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    if ops and isinstance(ops[0], Sym):
        _memlist(p, ops[0], 0)
    if len(ops) != 2:
        raise p.fail(p.mismatch)
    _surface_addr(p, ops[0], 0, geometry_msgs=1)
    want = ins.mods.types[-1]
    vec = ins.mods.vec
    a = ops[1]
    if isinstance(a, Vector):
        if vec and len(a.items) != vec:
            raise p.fail(f"Argument vector size mismatch for instruction '{name}'")
        p.no_sink(a)
        t = p.vector_type(a)
        if t is not None and not _data_ok(t, want, True):
            raise p.fail(p.mismatch)
    elif not p.src_ok(a, lambda t: _data_ok(t, want, True)):
        raise p.fail(p.mismatch)
    if p.msgs:
        raise p.fail()


def _sured(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    if ops and isinstance(ops[0], Sym):
        _memlist(p, ops[0], 0)
    if len(ops) != 2:
        raise p.fail(p.mismatch)
    _surface_addr(p, ops[0], 0, geometry_msgs=1)
    want = ins.mods.types[-1]
    a = ops[1]
    if isinstance(a, Vector):
        raise p.fail(f"Vector operand is not allowed for instruction '{name}'")
    if not p.src_ok(a, lambda t: _data_ok(t, want, True), imm_float=False):
        raise p.fail(p.mismatch)
    if p.msgs:
        raise p.fail()


# -- video instructions ------------------------------------------------------------------------

_SCALAR_SEL = frozenset({"b0", "b1", "b2", "b3", "h0", "h1"})


def _selector_ok(op: str, sel: str) -> bool | None:
    """None: not a video selector at all; else whether it suits the instruction."""
    simd = op[-1] if op[-1] in "24" else ""
    if sel in _SCALAR_SEL:
        return not simd
    if simd == "2" and len(sel) == 3 and sel[0] == "h" and set(sel[1:]) <= {"0", "1", "2", "3"}:
        return True
    if simd == "4" and len(sel) == 5 and sel[0] == "b" and set(sel[1:]) <= set("01234567"):
        return True
    if 2 <= len(sel) <= 5 and sel[0] in "hb" and sel[1:].isdigit():
        digits = set(sel[1:])
        if sel[0] == "h" and digits <= {"0", "1", "2", "3"}:
            return False
        if sel[0] == "b" and digits <= set("01234567"):
            return False
    if len(sel) == 2 and sel[0] in "bh" and sel[1].isdigit():
        return False
    return None


def _video(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    op = ins.opcode
    ops = ins.operands
    simd = op[-1] in "24"
    secondary = any(m in ins.mods.raw_set for m in ("add", "min", "max"))
    if op == "vmad" or simd:
        n_req, n_max = 4, 4
    else:
        n_req, n_max = (4, 4) if secondary else (3, 4)
    if len(ops) < n_req or len(ops) > n_max:
        raise p.fail(p.mismatch)
    negated = [isinstance(o, Not) and o.arith for o in ops]
    ops = tuple(o.operand if isinstance(o, Not) and o.arith else o for o in ops)
    for o, neg in zip(ops, negated, strict=True):
        t = p.rtype(o) if neg else None
        if neg and (t is None or not _int32(t)):
            p.msgs.append("Illegal argument to unary minus")  # 32-bit integers only
    for o in ops:
        if isinstance(o, Vector):
            raise p.fail(f"Vector operand is not allowed for instruction '{name}'")
        if isinstance(o, Pair):
            raise p.fail(f"Predicate output not allowed for instruction '{name}'")
        if isinstance(o, (Address, MemList, Not, Sym)):
            raise p.fail(p.mismatch)
    d = ops[0]
    t = p.rtype(d)
    pred_ok = op == "vset" and False
    if t is None or not (_int32(t) or (pred_ok and t is PtxType.PRED)):
        raise p.fail(p.mismatch)
    for o in ops[1:]:
        if isinstance(o, (IntImm,)):
            continue
        t = p.rtype(o)
        if t is None or not _int32(t):
            raise p.fail(p.mismatch)
    if any(negated):
        if op != "vmad":
            p.msgs.append(f"Operand negation not allowed for instruction '{name}'")
        elif "po" in ins.mods.raw_set:
            p.msgs.append("Conflicting use of '.po' modifier with operand negation")
        elif negated[0] or (len(negated) > 3 and negated[3] and (negated[1] or negated[2])):
            p.msgs.append("Operand negation limited to either (source A xor source B) or source C")
    # selectors (a SIMD destination's is a mask)
    for i, o in enumerate(ops):
        if not isinstance(o, Reg) or not o.comp or (i == 0 and simd):
            continue
        ok = _selector_ok(op, o.comp)
        if ok is None:
            p.msgs.append(f"Unknown video selector: '.{o.comp}'")
            p.msgs.append(f"Incorrect video selector for operand {i}")
        elif not ok:
            p.msgs.append(f"Incorrect video selector for operand {i}")
    dsel = isinstance(d, Reg) and bool(d.comp)
    if dsel and not simd and (len(ops) == 3 or (op in ("vmad", "vset") and not secondary)):
        p.msgs.append(f"Video selector is not allowed on destination for instruction '{name}'")
    elif dsel and not simd and secondary:
        p.msgs.append("Video instruction cannot have destination selector and secondary operation")
    if len(ops) == 4 and isinstance(ops[3], Reg) and ops[3].comp:
        p.msgs.append("Video selector is not allowed on 'source C' operand")
    if p.msgs:
        raise p.fail()


# -- elect -------------------------------------------------------------------------------------


def _elect(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    if len(ops) != 2:
        raise p.fail(p.mismatch)
    d = ops[0]
    if not isinstance(d, Pair):
        if p.rtype(d) is PtxType.PRED:
            raise p.fail(p.mismatch)
        raise p.fail(f"Predicate output expected for instruction '{name}'")
    first, sec = d.first, d.second
    if not isinstance(first, Sink):
        t = p.rtype(first)
        if isinstance(first, Vector) or t is None or not _int32(t):
            raise p.fail(p.mismatch)
    if isinstance(sec, Sink) or p.rtype(sec) is not PtxType.PRED:
        raise p.fail(f"Predicate output expected for instruction '{name}'")
    if not p.src_ok(ops[1], lambda t: _data_ok(t, PtxType.B32, False), imm_float=False):
        raise p.fail(p.mismatch)


# -- cp.async.bulk.tensor ----------------------------------------------------------------------


def _bulk_tensor(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = list(ins.operands)
    flags = ins.mods.raw_set
    op = ins.opcode
    dim = int(next((m for m in ins.mods.raw if m in ("1d", "2d", "3d", "4d", "5d")), "1d")[0])
    im2col = "im2col" in flags
    if im2col and dim < 3:
        p.msgs.extend([f"Modifier '.{dim}d' cannot be combined with modifier '.im2col'"] * 2)
    to_shared = op == "cp.async.bulk.tensor" and "bulk_group" not in flags
    prefetch = op == "cp.async.bulk.prefetch.tensor"
    # the argument numbers of the flattened list: [dst], [tmap, coords], [mbar], ...
    if to_shared:
        tm_at, nfix = 1, 3
    elif prefetch:
        tm_at, nfix = 0, 1
    else:
        tm_at, nfix = 0, 2
    extra = ["im2col"] * im2col
    extra += ["msk"] * ("multicast::cluster" in flags)
    extra += ["pol"] * ("L2::cache_hint" in flags)
    want_n = nfix + len(extra)
    late: list[str] = []
    space = f"State space mismatch between instruction and address in instruction '{name}'"
    tm0 = ops[tm_at] if tm_at < len(ops) else None
    if isinstance(tm0, (Sym, Reg)):
        raise p.fail(
            *([space] if isinstance(tm0, Sym) and _not_global(c, tm0) else []),
            f"Illegal Addressing Mode in instruction '{name}'",
            f"Address expected for argument {tm_at} of instruction '{name}'",
        )
    if isinstance(tm0, Address):
        raise p.fail(p.mismatch)
    if (
        isinstance(tm0, MemList)
        and tm0.items
        and isinstance(tm0.items[0], (Sym, Reg))
        and _not_global(c, tm0.items[0])
    ):
        late.append(space)
    if len(ops) != want_n:
        if len(ops) < want_n and im2col and len(ops) == want_n - len(extra) + extra.index("im2col"):
            p.msgs.extend([p.mismatch] * 2)
        else:
            p.msgs.append(p.mismatch)
            if len(ops) < want_n:
                late = []  # too few operands: ptxas stops there
        raise p.fail(*late)
    # tensor map and coordinates
    tm = ops[tm_at]
    coord_arg = tm_at + 1
    if isinstance(tm, MemList):
        if len(tm.items) != 2:
            raise p.fail(p.mismatch)
        co = tm.items[1]
        if not isinstance(co, Vector):
            p.msgs.append(f"Vector expected for argument {coord_arg}")
            if not p.src_ok(co, _int32):
                raise p.fail(p.mismatch)
        else:
            p.no_sink(co)
            t = p.vector_type(co)
            if t is not None and not _int32(t):
                raise p.fail(p.mismatch)
            if len(co.items) != dim:
                p.msgs.append(
                    f"Argument {coord_arg} of instruction '{name}': Argument vector size mismatch"
                )
    nargs = coord_arg + 1
    # shared-memory operands
    mem_at = [0, 2] if to_shared else ([] if prefetch else [1])
    for i in mem_at:
        o = ops[i]
        if isinstance(o, IntImm):
            raise p.fail("Immediate addresses allowed only for .local state space")
        if isinstance(o, Address):
            if o.base is None:
                raise p.fail("Immediate addresses allowed only for .local state space")
            d = (
                c.lookup(o.base.name)
                if isinstance(o.base, Sym)
                or (isinstance(o.base, Reg) and c._reg_type(o.base) is None)
                else None
            )
            if isinstance(d, VarDecl) and d.space.base is not StateSpace.SHARED:
                late.insert(0, space)
    for k, what in enumerate(extra):
        o = ops[nfix + k]
        argno = nargs + (1 if to_shared else 0) + k
        if what == "im2col":
            n_off = dim - 2
            if not isinstance(o, Vector):
                p.msgs.append(f"Vector expected for argument {argno}")
                p.msgs.append(
                    f"Argument {argno} of instruction '{name}': Argument vector size mismatch"
                )
                continue
            t = p.vector_type(o)
            if t is not None and t.bits != 16:
                raise p.fail(p.mismatch)
            if len(o.items) != n_off:
                p.msgs.append(
                    f"Argument {argno} of instruction '{name}': Argument vector size mismatch"
                )
        elif what == "msk":
            if not p.src_ok(o, lambda t: t.bits == 16 and t.kind in _INT, imm_float=False):
                raise p.fail(p.mismatch)
        elif not p.src_ok(o, _u64, imm_float=False):
            raise p.fail(p.mismatch)
    p.msgs.extend(late)
    if p.msgs:
        raise p.fail()


# -- wgmma.mma_async -----------------------------------------------------------------------------

_WG_KIND = {
    "f16": "floating point types",
    "bf16": "floating point types",
    "tf32": "floating point types",
    "e4m3": "FP8 types",
    "e5m2": "FP8 types",
    "s8": "integer types",
    "u8": "integer types",
    "b1": "boolean type",
}


def gate_name(ins: Instruction, name: str) -> str:
    """The instruction name in ptxas's arch-specific target messages: wgmma.mma_async is named
    with its type class ('wgmma.mma_async with floating point types')."""
    types = ins.mods.types
    if ins.opcode == "wgmma.mma_async" and len(types) > 1 and types[1].value in _WG_KIND:
        return f"{name} with {_WG_KIND[types[1].value]}"
    if ins.opcode == "cvt":
        # the sm_100 formats (scripts/fp_audit.py, group 'fp4/fp6'): ptxas names the format
        vals = {t.value for t in types}
        for fmt in ("e2m1x2", "ue8m0x2"):
            if fmt in vals:
                return f"cvt with .{fmt}"
        if vals & {"e2m3x2", "e3m2x2"}:
            return "cvt with .e2m3x2/.e3m2x2"
    return name


# K of a dense wgmma per A type (sparse: twice)
_WG_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}


_WG_INT_N = frozenset({8, 16, 24, *range(32, 257, 16)})


def _wgmma_shape(p: _Ops, shape: str, atype: str, label: str, sp: int) -> None:
    """K per A type (sparse: twice); integer and .b1 types take fewer N. A K of another type
    of the same class is 'Illegal instruction types', any other 'Illegal matrix shape'."""
    try:
        n = int(shape.split("n")[1].split("k")[0])
        k = int(shape.split("k")[1])
    except (IndexError, ValueError):
        return
    scale = 2 if sp else 1
    want = _WG_K.get(atype, 0) * scale
    if not want:
        return
    kind = _WG_KIND.get(atype)
    if k != want:
        same_class = {v * scale for t, v in _WG_K.items() if _WG_KIND.get(t) == kind}
        if k in same_class:
            raise p.fail(f"Illegal instruction types specified for '{label}' with shape '.{shape}'")
        raise p.fail(f"Illegal matrix shape '.{shape}' for instruction '{label}'")
    if kind in ("integer types", "boolean type") and n not in _WG_INT_N:
        raise p.fail(f"Illegal matrix shape '.{shape}' for instruction '{label}'")


def _imm_value(p: _Ops, o: Operand, argno: int, label: str, allowed: tuple[int, ...]) -> None:
    if not isinstance(o, IntImm):
        raise p.fail(p.mismatch)
    if o.value not in allowed:
        p.msgs.append(
            f"Argument {argno} of instruction '{label}': unexpected value '{o.value}', expected "
            "to be " + " or ".join(str(v) for v in allowed)
        )


def _wgmma(c: InstrChecks, ins: Instruction, name: str) -> bool | None:
    """wgmma.mma_async: d, a (descriptor or register fragment), b-desc, scale-d, and per type
    the immediate scales of A and B (-1 or 1) and transposes (0 or 1)."""
    p = _Ops(c, ins, name)
    ops = ins.operands
    types = ins.mods.types
    if len(types) < 3:
        return False
    sp = 2 if "sp" in ins.mods.raw_set else 0  # sparse: metadata and selector after B
    dtype, atype = types[0], types[1].value
    label = ("Sparse " if sp else "") + f"{name} with {_WG_KIND.get(atype, 'floating point types')}"
    fp16 = atype in ("f16", "bf16")
    nscale = 2 if atype in ("f16", "bf16", "tf32", "e4m3", "e5m2") else 0
    counts = (7 + sp, 8 + sp) if fp16 else (4 + nscale + sp,)
    if len(ops) not in counts:
        labeled = not sp and len(ops) in (6, 8) and len(ops) > max(counts)
        raise p.fail(f"Arguments mismatch for instruction '{label}'" if labeled else p.mismatch)
    shape = ins.mods.shape or ""
    _wgmma_shape(p, shape, atype, label, sp)
    # D: the accumulator fragment
    d = ops[0]
    if not isinstance(d, Vector):
        raise p.fail("Vector expected for argument 0")
    for it in d.items:
        if isinstance(it, Sink):
            raise p.fail("Sink '_' not allowed as a source operand")
        if isinstance(it, (IntImm, FloatImm)):
            raise p.fail(f"Result register required for instruction '{name}'")
    t = p.vector_type(d)
    if p.msgs:
        raise p.fail()
    if t is not None:
        if dtype is PtxType.F32:
            ok = t.bits == 32 and t.kind in ("b", "f")
        elif dtype is PtxType.F16:
            ok = t is PtxType.F16X2 or (t.bits == 32 and t.kind == "b")
        else:
            ok = t.bits == 32 and t.kind in _INT
        if not ok:
            raise p.fail(p.mismatch)
    try:
        n = int(shape.split("n")[1].split("k")[0])
    except (IndexError, ValueError):
        n = 0
    want = n // 4 if dtype is PtxType.F16 else n // 2
    if n and len(d.items) != want:
        raise p.fail(f"Argument vector size mismatch for instruction '{label}'")
    # A: a descriptor, or a fragment of four 32-bit registers
    a = ops[1]
    desc_only = fp16 and len(ops) == 8 + sp
    frag_only = fp16 and len(ops) == 7 + sp
    if isinstance(a, Vector):
        if desc_only:
            raise p.fail(p.mismatch)
        if len(a.items) != 4:
            size = f"Argument vector size mismatch for instruction '{label}'"
            if len(a.items) < 3:
                raise p.fail(f"Arguments mismatch for instruction '{label}'", size)
            raise p.fail(size)
        p.no_sink(a)
        t = p.vector_type(a)
        if p.msgs:
            raise p.fail()
        if t is not None and not (t.bits == 32 and t.kind == "b"):
            if t in (PtxType.F16X2, PtxType.BF16X2) and fp16:
                pass
            elif t.kind == "f" and atype == "tf32":
                raise p.fail(f"Unexpected instruction types specified for '{label}'")
            else:
                raise p.fail(p.mismatch)
    elif frag_only:
        raise p.fail(p.mismatch)
    elif not isinstance(a, IntImm):
        t = p.rtype(a)
        if t is None or (t.bits == 64 and not _u64(t)):
            raise p.fail(p.mismatch)
        if t.bits != 64:
            if desc_only:
                raise p.fail(p.mismatch)
            raise p.fail("Vector expected for argument 1")
    # B: a descriptor
    b = ops[2]
    if not isinstance(b, IntImm):
        t = p.rtype(b)
        if isinstance(b, Vector) or t is None or not _u64(t):
            raise p.fail(p.mismatch)
    if sp:
        # the sparsity metadata (32-bit) and selector (0 or 1 for 16-bit types, else 0)
        if not p.src_ok(ops[3], _int32, imm_float=False):
            raise p.fail(p.mismatch)
        _imm_value(p, ops[4], 4, label, (0, 1) if fp16 or atype == "tf32" else (0,))
    # scale-d: a predicate (or an immediate)
    sd = ops[3 + sp]
    if not isinstance(sd, IntImm):
        q = sd.operand if isinstance(sd, Not) else sd
        if p.rtype(q) is not PtxType.PRED:
            raise p.fail(p.mismatch)
    for k in range(4 + sp, 4 + sp + nscale):
        _imm_value(p, ops[k], k, label, (-1, 1))
    for k in range(4 + sp + nscale, len(ops)):
        _imm_value(p, ops[k], k, label, (0, 1))
    if p.msgs:
        raise p.fail()
    return None


# -- tcgen05 ------------------------------------------------------------------------------------

# registers per thread of one repetition (.x1) of each tcgen05.ld/st shape
_TSHAPE_REGS = {"16x64b": 1, "16x128b": 2, "16x256b": 4, "32x32b": 1, "16x32bx2": 1}


def _tmem(p: _Ops, o: Operand) -> None:
    """A tensor-memory address: [r] with a 32-bit integer register (or an immediate)."""
    if not isinstance(o, Address) or isinstance(o.base, Sym):
        raise p.fail(p.mismatch)
    if o.base is not None:
        t = p.rtype(o.base)
        if t is None or not _int32(t):
            raise p.fail(p.mismatch)


def _tcgen05_ld(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    flags = ins.mods.raw_set
    red = "red" in flags
    shape = next((m for m in ins.mods.raw if m in _TSHAPE_REGS), "32x32b")
    num = next((int(m[1:]) for m in ins.mods.raw if m[:1] == "x" and m[1:].isdigit()), 1)
    halves = shape == "16x32bx2"
    want_n = 2 + red + halves
    if len(ops) != want_n:
        extra_imm = len(ops) == want_n + 1 and isinstance(ops[-1], IntImm)
        no_imm = halves and len(ops) == want_n - 1 and isinstance(ops[-1], Address)
        if extra_imm or no_imm:
            raise p.fail(
                f"Unexpected number of arguments specified for {name} with shape '.{shape}'"
            )
        raise p.fail(p.mismatch)
    d = ops[0]
    if isinstance(d, Vector) and any(isinstance(it, Sink) for it in d.items):
        c.fatal("Result discard mode is not allowed for instruction 'ld'", ins.span)
    _tmem_data(p, d, 0, num * _TSHAPE_REGS[shape])
    if red:
        r = ops[1]
        rt = p.vector_type(r) if isinstance(r, Vector) else p.rtype(r)
        if rt is None or not _is32(rt):
            raise p.fail(p.mismatch)
    _tmem(p, ops[1 + red])
    if halves and not isinstance(ops[-1], IntImm):
        raise p.fail(p.mismatch)


def _tmem_data(p: _Ops, d: Operand, argno: int, n: int) -> None:
    """The registers of a tcgen05.ld/st: a vector of n 32-bit registers."""
    size = f"Argument {argno} of instruction '{p.name}': Argument vector size mismatch"
    if not isinstance(d, Vector):
        raise p.fail(f"Vector expected for argument {argno}", size)
    p.no_sink(d)
    t = p.vector_type(d)
    if p.msgs or (t is not None and not _is32(t)):
        raise p.fail(p.mismatch)
    if len(d.items) != n:
        raise p.fail(size)


def _tcgen05_st(c: InstrChecks, ins: Instruction, name: str) -> None:
    p = _Ops(c, ins, name)
    ops = ins.operands
    shape = next((m for m in ins.mods.raw if m in _TSHAPE_REGS), "32x32b")
    num = next((int(m[1:]) for m in ins.mods.raw if m[:1] == "x" and m[1:].isdigit()), 1)
    halves = shape == "16x32bx2"
    want_n = 2 + halves
    if len(ops) != want_n:
        extra_imm = len(ops) == want_n + 1 and isinstance(ops[1], IntImm)
        no_imm = halves and len(ops) == want_n - 1
        if extra_imm or no_imm:
            raise p.fail(
                f"Unexpected number of arguments specified for {name} with shape '.{shape}'"
            )
        raise p.fail(p.mismatch)
    _tmem(p, ops[0])
    if halves and not isinstance(ops[1], IntImm):
        raise p.fail(p.mismatch)
    _tmem_data(p, ops[-1], want_n - 1, num * _TSHAPE_REGS[shape])


def _tcgen05_mma(c: InstrChecks, ins: Instruction, name: str) -> None:
    """tcgen05.mma [d], a-desc|[a], b-desc, [sp-meta]?, idesc, [scale-a], [scale-b]?,
    disable-output-lane?, enable-input-d, scale-input-d? (or .ws's zero-column mask)."""
    p = _Ops(c, ins, name)
    ops = list(ins.operands)
    flags = ins.mods.raw_set
    if len(ops) < 5:
        raise p.fail(p.mismatch)
    _tmem(p, ops[0])
    a = ops[1]
    if isinstance(a, Address):
        _tmem(p, a)
    elif not p.src_ok(a, _u64, imm_float=False):
        raise p.fail(p.mismatch)
    if not p.src_ok(ops[2], _u64, imm_float=False):
        raise p.fail(p.mismatch)
    i = 3
    if "sp" in flags:
        if not isinstance(ops[i], Address):
            # ptxas then tries the dense form, which has no .sp
            raise p.fail(p.mismatch, f"Illegal modifier '.sp' for instruction '{name}'")
        _tmem(p, ops[i])
        i += 1
    if i >= len(ops) or not p.src_ok(ops[i], _int32, imm_float=False):
        raise p.fail(p.mismatch)
    i += 1
    if "block_scale" in flags:
        for _ in range(2):
            if i >= len(ops):
                raise p.fail(p.mismatch)
            _tmem(p, ops[i])
            i += 1
    if i < len(ops) and isinstance(ops[i], Vector):
        v = ops[i]
        assert isinstance(v, Vector)
        t = p.vector_type(v)
        if p.msgs or (t is not None and not _int32(t)):
            raise p.fail(p.mismatch)
        if len(v.items) != (8 if "cta_group::2" in flags else 4):
            raise p.fail(f"Argument vector size mismatch for instruction '{name}'")
        i += 1
    if i >= len(ops):
        raise p.fail(p.mismatch)
    e = ops[i]
    q = e.operand if isinstance(e, Not) and not e.arith else e
    if not isinstance(q, IntImm) and p.rtype(q) is not PtxType.PRED:
        raise p.fail(p.mismatch)
    i += 1
    rest = ops[i:]
    if len(rest) > (1 if "ws" in flags else 2):
        raise p.fail(p.mismatch)
    for o in rest:
        ok = p.src_ok(o, _u64, imm_float=False) if "ws" in flags else isinstance(o, IntImm)
        if not ok:
            raise p.fail(p.mismatch)


def _not_global(c: InstrChecks, h: Sym | Reg) -> bool:
    """A tensor map named by a symbol outside .global (a kernel parameter, shared memory)."""
    if isinstance(h, Reg) and c._reg_type(h) is not None:
        return False
    d = c.lookup(h.name)
    if d is None:
        return False
    return not (isinstance(d, VarDecl) and d.space.base is StateSpace.GLOBAL)


_VIDEO = (
    *("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset"),
    *("vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2"),
    *("vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4"),
)

VIDEO_OPS = frozenset(_VIDEO)

# checker(c, ins, name): raises OperandError; False leaves the operands to the table's roles
OPERAND_CHECKS: dict[str, Callable[[InstrChecks, Instruction, str], bool | None]] = {
    "tex": _tex,
    "tld4": _tld4,
    "txq": _query("texref"),
    "suq": _query("surfref"),
    "istypep": _istypep,
    "suld": _suld,
    "sust": _sust,
    "sured": _sured,
    "elect": _elect,
    "wgmma.mma_async": _wgmma,
    "tcgen05.ld": _tcgen05_ld,
    "tcgen05.st": _tcgen05_st,
    "tcgen05.mma": _tcgen05_mma,
    "cp.async.bulk.tensor": _bulk_tensor,
    "cp.reduce.async.bulk.tensor": _bulk_tensor,
    "cp.async.bulk.prefetch.tensor": _bulk_tensor,
    **{v: _video for v in _VIDEO},
}
