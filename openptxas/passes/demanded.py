"""Masks nothing needs (part of ptxas's GeneralOptimize algebraic simplification).

nvcc narrows 16- and 8-bit values with ``and``: ``cvt.u16.u32`` then ``and.b16 %rs3, %rs2,
255`` is ``LOP3.LUT R9, R7, 0xffff`` then, after an addition, ``LOP3.LUT R8, R0, 0xff`` in
ours. ptxas keeps only the last mask (t2/surface_write's ``write_3d_u8``: its code has one
``LOP3 ... 0xff``, ours had both). A mask whose result's readers only look at bits the mask
keeps is the value itself.

The bits of a 32-bit value its readers can see (demanded bits): a LOP3 reads, of each input,
the positions where its truth table (with its constant inputs' bits) depends on that input,
of the bits its own result's readers see; a PRMT the bytes it selects (the top bit of a
sign-replicated one); a shift by a constant its readers' bits shifted back; an addition or
multiplication (no carry out, no high half) the bits up to the highest one its readers see;
a narrow store (``.U8``, ``.U16``) the low 8 or 16 bits of its data; anything else all.

Pre: virtual IR. Post: same semantics; for ``t = LOP3.LUT x, C, RZ, 0xc0`` (``x & C``), ``t``
written only there, read only later in its block with ``x`` unchanged since, and no reader
seeing a bit of ``t`` outside ``C``, the readers read ``x`` (the mask goes with DCE).
"""

from __future__ import annotations

from collections.abc import Callable

from openptxas.ir.analysis import def_info, map_regs, read_sites, renamer, unchanged_since
from openptxas.ir.core import PT, RC, RZ, Function, Imm, ImmKind, Instr, Operand, Src, VReg
from openptxas.passes.manager import PassContext

M32 = 0xFFFFFFFF
_STORES = frozenset({"STG", "STS", "ST", "STL"})
_ARITH = frozenset({"IADD3", "IMAD", "LEA"})


def drop_useless_masks(fn: Function, ctx: PassContext) -> None:
    _ = ctx
    if not any(_mask(i) is not None for b in fn.blocks for i in b.instrs):
        return
    info = def_info(fn)
    at, sites = read_sites(fn)
    readers = {vid: [ins for _, _, ins in rs] for vid, rs in sites.items()}
    memo: dict[int, int] = {}

    def demanded(v: VReg, depth: int) -> int:
        got = memo.get(v.id)
        if got is not None:
            return got
        if depth > 6 or v.width != 1 or v.rc is not RC.R or len(info.defs(v)) != 1:
            return M32
        memo[v.id] = M32  # (a cycle sees everything demanded: conservative)
        out = 0
        for r in readers.get(v.id, ()):
            out |= _demand_at(r, v, lambda d: demanded(d, depth + 1))
            if out == M32:
                break
        memo[v.id] = out
        return out

    alias: dict[int, VReg] = {}
    for blk in fn.blocks:
        for ins in blk.instrs:
            got = _mask(ins)
            if got is None:
                continue
            t, x, c = got
            if len(info.defs(t)) != 1 or demanded(t, 0) & ~c & M32:
                continue
            if not _local_readers(readers.get(t.id, []), at, at[ins.uid], blk.instrs, ins, x):
                continue
            alias[t.id] = x
    if alias:
        f = renamer(alias)
        for ins in fn.instrs():
            map_regs(ins, f)


def _mask(ins: Instr) -> tuple[VReg, VReg, int] | None:
    """(t, x, C) of ``t = LOP3.LUT x, C, RZ, 0xc0, !PT``, both 32-bit R registers."""
    if ins.op != "LOP3" or ins.mods != ("LUT",) or ins.guard is not None or len(ins.dsts) != 1:
        return None
    if len(ins.srcs) != 5 or ins.srcs[3] != Imm(0xC0) or ins.srcs[2] != RZ:
        return None
    t, x, c = ins.dsts[0], ins.srcs[0], ins.srcs[1]
    if not (isinstance(t, VReg) and t.rc is RC.R and t.width == 1):
        return None
    if not (isinstance(x, VReg) and x.rc is RC.R and x.width == 1):
        return None
    if not (isinstance(c, Imm) and c.kind == ImmKind.INT):
        return None
    if not (isinstance(ins.srcs[4], Src) and ins.srcs[4].inv and ins.srcs[4].x == PT):
        return None
    return t, x, c.value & M32


def _local_readers(
    rs: list[Instr],
    at: dict[int, tuple[int, int]],
    where: tuple[int, int],
    code: list[Instr],
    mask: Instr,
    x: VReg,
) -> bool:
    """Every reader of the mask's result sits after it in its block with ``x`` unchanged."""
    bi, k = where
    for r in rs:
        rb, rk = at[r.uid]
        if rb != bi or rk <= k or not unchanged_since(code, [mask], rk, {x.id}):
            return False
    return True


def _is(op: Operand, v: VReg) -> bool:
    return op == v or (isinstance(op, Src) and op.x == v and not op.sel)


def _demand_at(r: Instr, v: VReg, demanded: Callable[[VReg], int]) -> int:
    """The bits of ``v`` reader ``r`` can see (``demanded``: the same for its result)."""
    if r.guard is not None and r.guard.pred == v:
        return M32
    d = r.dsts[0] if len(r.dsts) == 1 else None
    own = demanded(d) if isinstance(d, VReg) and d.rc is RC.R and d.width == 1 else M32
    s = r.srcs
    if r.op == "LOP3" and r.mods == ("LUT",) and len(s) == 5 and isinstance(s[3], Imm):
        return own & _lop3_depends(s[:3], s[3].value, v)
    if r.op == "PRMT" and not r.mods and len(s) == 3 and isinstance(s[1], Imm):
        if not (_is(s[0], v) or _is(s[2], v)) or (isinstance(s[0], Src) or isinstance(s[2], Src)):
            return M32
        out = 0
        for i in range(4):
            if not own >> (8 * i) & 0xFF:
                continue
            n = s[1].value >> (4 * i) & 0xF
            src = s[0] if n & 7 < 4 else s[2]
            if src == v:
                out |= (0x80 if n & 8 else 0xFF) << (8 * (n & 3))
        return out
    if r.op == "SHF" and len(s) == 3 and isinstance(s[1], Imm) and d is not None:
        k = s[1].value & 31
        if r.mods == ("L", "U32") and s[0] == v and s[2] == RZ:
            return own >> k
        if r.mods == ("R", "U32", "HI") and s[2] == v and s[0] == RZ:
            return (own << k) & M32
        return M32
    if (
        r.op in _ARITH
        and not r.mods
        and len(r.dsts) == 1
        and not any(isinstance(x, Src) and (x.inv or x.abs or x.sel) for x in s)
    ):
        return (1 << own.bit_length()) - 1
    if r.op in _STORES and len(s) >= 2 and s[-1] == v and s.count(v) == 1:
        if any(m in r.mods for m in ("U8", "S8")):
            return 0xFF
        if any(m in r.mods for m in ("U16", "S16")):
            return 0xFFFF
    return M32


def _lop3_depends(slots: list[Operand], lut: int, v: VReg) -> int:
    """The bit positions where a LOP3 of ``slots`` with truth table ``lut`` depends on ``v``
    (every slot holding it tied; another register free; an immediate's bits fixed)."""
    imm = next((x.value & M32 for x in slots if isinstance(x, Imm)), None)
    if any(isinstance(x, Imm) and x.kind != ImmKind.INT for x in slots):
        return M32
    if any(isinstance(x, Src) and (x.x == v) and (x.neg or x.abs or x.sel) for x in slots):
        return M32
    out = 0
    for bit in (0, 1):
        if imm is None and bit:
            continue
        if _depends(slots, lut, v, bit):
            out |= M32 if imm is None else (imm if bit else ~imm & M32)
    return out


def _depends(slots: list[Operand], lut: int, v: VReg, imm_bit: int) -> bool:
    free = [j for j, x in enumerate(slots) if not _is(x, v) and not isinstance(x, Imm) and x != RZ]
    for assign in range(1 << len(free)):
        outs = []
        for vv in (0, 1):
            idx = 0
            for j, x in enumerate(slots):
                if _is(x, v):
                    b = vv ^ (1 if isinstance(x, Src) and x.inv else 0)
                elif isinstance(x, Imm):
                    b = imm_bit
                elif x == RZ:
                    b = 0
                else:
                    b = assign >> free.index(j) & 1
                idx |= b << (2 - j)
            outs.append(lut >> idx & 1)
        if outs[0] != outs[1]:
            return True
    return False
