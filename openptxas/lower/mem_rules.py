"""Selection rules for memory instructions: parameters, global/generic/shared loads and stores,
address conversions, atomics, and barriers.

sm_90 forms (ptxas 13.0.88): kernel parameters come from constant bank 0 at ``param_base``
(``LDC``), global and generic accesses go through the 64-bit descriptor in ``c[0x0][0x208]``
(``LDG.E R, desc[UR4][R2.64+0x8]``), shared accesses use 32-bit addresses (``LDS R, [R0+0x4]``).
"""

from __future__ import annotations

from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Addr,
    CBank,
    Guard,
    Imm,
    Label,
    Operand,
    Part,
    Reg,
    RegLike,
    Src,
    VReg,
)
from openptxas.lower.context import LowerCtx, width_of
from openptxas.lower.int_rules import add_low, half
from openptxas.lower.rules import Pred, Rule, always, both, has
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType
SHARED = (StateSpace.SHARED, StateSpace.SHARED_CTA)


def _space(ins: ast.Instruction) -> StateSpace | None:
    return ins.space


def space_is(*spaces: StateSpace | None) -> Pred:
    s = frozenset(spaces)
    return lambda ins: _space(ins) in s


def _size_mod(t: PtxType, vec: int) -> tuple[str, ...]:
    """The SASS size modifier of an access of ``vec`` x ``t``."""
    n = t.size * max(vec, 1)
    if vec <= 1 and t.size < 4:
        signed = t in (T.S8, T.S16)
        return (("S" if signed else "U") + str(8 * t.size),)
    # vectors of bytes/halves move as one packed access
    return {1: ("U8",), 2: ("U16",), 4: (), 8: ("64",), 16: ("128",)}[n]


def _dest_regs(c: LowerCtx, op: ast.Operand) -> list[ast.Operand]:
    return list(op.items) if isinstance(op, ast.Vector) else [op]


def _load_into(c: LowerCtx, ins: ast.Instruction, dst: ast.Operand, emit_load: object) -> None:
    """Load into a register group, then spread it over the PTX destinations."""
    t = ins.type
    assert t is not None
    items = _dest_regs(c, dst)
    words = width_of(t) * len(items)
    if len(items) > 1 and t.size < 4:
        # packed sub-word elements: one access, then each element extended out of its word
        # by a PRMT (selector nibbles: byte k, 4 = a zero byte of RZ, k|8 = k's sign)
        packed = c.new(RC.R, max(1, t.size * len(items) // 4))
        emit_load(packed)  # type: ignore[operator]
        signed = t.is_signed
        for k, it in enumerate(items):
            if isinstance(it, ast.Sink):
                continue
            off = k * t.size
            word = packed.part(off // 4) if packed.width > 1 else packed
            b = off % 4
            if t.size == 1:
                sel = [b, b | 8, b | 8, b | 8] if signed else [b, 4, 4, 4]
            else:
                sel = [b, b + 1, (b + 1) | 8, (b + 1) | 8] if signed else [b, b + 1, 4, 4]
            code = sum(v << (4 * i) for i, v in enumerate(sel))
            c.emit("PRMT", (), [c.dst(it)], [word, Imm(code), RZ])
        return
    if len(items) == 1 and not isinstance(items[0], ast.Sink):
        group = c.dst(items[0])
        if group.width != words:
            # A destination wider than the access gets the value extended by the access's
            # signedness (PTX: "ld.param.s16 %rd" sign-extends); a narrower one its low word.
            d = group
            group = c.new(RC.R, words)
            emit_load(group)  # type: ignore[operator]
            c.emit("MOV", (), [d.lo if d.width > 1 else d], [group.lo])
            for j in range(words, d.width):
                if t.is_signed:
                    c.emit("SHF", ("R", "S32", "HI"), [d.part(j)], [RZ, Imm(31), group.lo])
                else:
                    c.emit("MOV", (), [d.part(j)], [RZ])
            return
        emit_load(group)  # type: ignore[operator]
        return
    group = c.new(RC.R, words)
    emit_load(group)  # type: ignore[operator]
    w = width_of(t)
    for k, it in enumerate(items):
        if isinstance(it, ast.Sink):
            continue
        d = c.dst(it)
        for j in range(w):
            c.emit("MOV", (), [d.part(j) if d.width > 1 else d], [group.part(k * w + j)])


def _store_group(c: LowerCtx, ins: ast.Instruction, src: ast.Operand) -> Operand:
    t = ins.type
    assert t is not None
    items = _dest_regs(c, src)
    w = width_of(t)
    if len(items) > 1 and t.size < 4:
        return _pack_subwords(c, t, items)
    if len(items) == 1:
        v = c.value(items[0], t, allow_imm=False)
        if isinstance(v, VReg) and v.width == w:
            return v
        if w == 1:
            return v
        raise c.unsupported("store of this operand")
    group = c.new(RC.R, w * len(items))
    for k, it in enumerate(items):
        v = c.value(it, t, allow_imm=True)
        for j in range(w):
            part = half(v, j) if isinstance(v, VReg) and v.width > 1 else v
            c.emit("MOV", (), [group.part(k * w + j)], [part])
    return group


def _pack_subwords(c: LowerCtx, t: PtxType, items: list[ast.Operand]) -> Operand:
    """Vector elements of 8 or 16 bits packed into words with PRMT (bytes: pairs with
    0x0040, then halves with 0x5410)."""
    vals = [c.rvalue(it, T.B32) if not isinstance(it, ast.Sink) else RZ for it in items]
    if t.size == 1:
        halves: list[Operand] = []
        for k in range(0, len(vals), 2):
            if k + 1 == len(vals):
                halves.append(vals[k])
                break
            h = c.new()
            c.emit("PRMT", (), [h], [vals[k], Imm(0x0040), vals[k + 1]])
            halves.append(h)
    else:
        halves = list(vals)
    if len(halves) == 1:
        return halves[0]
    words: list[Operand] = []
    for k in range(0, len(halves), 2):
        wv = c.new()
        c.emit("PRMT", (), [wv], [halves[k], Imm(0x5410), halves[k + 1]])
        words.append(wv)
    if len(words) == 1:
        return words[0]
    group = c.new(RC.R, len(words))
    for k, wo in enumerate(words):
        c.emit("MOV", (), [group.part(k)], [wo])
    return group


def ld_param(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    addr = c.address(a)
    if isinstance(addr.base, ast.Sym) and addr.base.name in c.param_regs:
        from openptxas.lower.calls import ld_param_reg

        return ld_param_reg(ins, c)  # a call's parameter or result, or a device function's
    if isinstance(addr.base, ast.Sym) and addr.base.name in c.locals:
        from openptxas.lower.calls import ld_param_frame

        return ld_param_frame(ins, c)  # a device function's parameter kept in its frame
    if isinstance(addr.base, ast.Reg) and c.func.is_entry:
        # an address computed from a kernel parameter's (mov d, param): an indexed bank-0 read
        r = c.reg_part(addr.base)
        reg = half(r, 0) if isinstance(r, VReg) and r.width == 2 else r
        ti = ins.type
        assert ti is not None
        base0 = c.target.param_base + addr.offset

        def load_ix(group: VReg) -> None:
            n = group.width
            k = 0
            while k < n:
                step = 2 if n - k >= 2 else 1
                dst = group.part(k, step) if n > 1 else group
                mods = (
                    _size_mod(ti, ins.vec)
                    if ti.size * max(ins.vec, 1) < 4
                    else (("64",) if step == 2 else ())
                )
                c.emit("LDC", mods, [dst], [CBank(0, base0 + 4 * k, reg)])
                k += step

        return _load_into(c, ins, d, load_ix)
    if not isinstance(addr.base, ast.Sym) or addr.base.name not in c.params:
        raise c.unsupported("ld.param from this address")
    off, _size = c.params[addr.base.name]
    t = ins.type
    assert t is not None
    base = c.target.param_base + off + addr.base.offset + addr.offset

    def load(group: VReg) -> None:
        n = group.width
        k = 0
        while k < n:
            step = 2 if n - k >= 2 and (base + 4 * k) % 8 == 0 else 1
            dst = group.part(k, step) if n > 1 else group
            mods = (
                _size_mod(t, ins.vec)
                if t.size * max(ins.vec, 1) < 4
                else (("64",) if step == 2 else ())
            )
            c.emit("LDC", mods, [dst], [CBank(0, base + 4 * k)])
            k += step

    _load_into(c, ins, d, load)


def ld_const(ins: ast.Instruction, c: LowerCtx) -> None:
    """__constant__ data lives in bank 3: ``LDC R, c[0x3][R+off]``."""
    d, a = ins.operands
    addr = c.address(a)
    t = ins.type
    assert t is not None
    reg = None
    if isinstance(addr.base, ast.Sym):
        if addr.base.name not in c.consts:
            raise c.unsupported(f"ld.const from '{addr.base.name}'")
        base = c.consts[addr.base.name] + addr.base.offset + addr.offset
    elif isinstance(addr.base, ast.Reg):
        r = c.reg_part(addr.base)
        reg = half(r, 0) if isinstance(r, VReg) and r.width == 2 else r
        base = addr.offset
    else:
        base = addr.offset

    def load(group: VReg) -> None:
        n = group.width
        k = 0
        while k < n:
            # a pair of words only where it is 8-aligned in the bank (ptxas splits kMat+65532)
            pair = n - k >= 2 and (reg is not None or (base + 4 * k) % 8 == 0)
            step = 2 if pair else 1
            dst = group.part(k, step) if n > 1 else group
            mods = (
                _size_mod(t, ins.vec)
                if t.size * max(ins.vec, 1) < 4
                else (("64",) if step == 2 else ())
            )
            c.emit("LDC", mods, [dst], [_const_ref(c, base + 4 * k, reg)])
            k += step

    _load_into(c, ins, d, load)


def _const_ref(c: LowerCtx, off: int, reg: RegLike | None) -> CBank:
    """``c[0x3][reg+off]``, its offset in the signed 16-bit field: a wider one (kMat+540000, beyond
    a 64 KB bank, but ptxas accepts it) has its high part added to a register first, split at 64 KB
    as ptxas does (UMOV 0x80000, then c[0x3][R+0x3d60])."""
    if -0x8000 <= off <= 0x7FFF:
        return CBank(3, off, reg)
    if c.relocatable and reg is None:
        raise c.unsupported(f"relocatable output (-c): constant bank 3 offset {off:#x}")
    lo = ((off + 0x8000) & 0xFFFF) - 0x8000  # the field is signed: 0xfffc is 0x10000 - 4
    hi = off - lo
    t = c.new()
    if reg is None:
        c.emit("MOV", (), [t], [Imm(hi & 0xFFFFFFFF)])
    else:
        c.emit("IADD3", (), [t], [reg, Imm(hi & 0xFFFFFFFF), RZ])
    return CBank(3, lo, t)


# Cache operators and volatile/relaxed accesses as ptxas 13.0 spells them on sm_90 (observed on
# tests/kernels/t1/ldst_cache_hints.cu).
_LD_CACHE = {
    "ca": ("STRONG", "SM"),
    "cg": ("STRONG", "GPU"),
    "cs": ("EF",),
    "lu": ("LU",),
    "cv": ("STRONG", "SYS"),
}
_ST_CACHE = {
    "wb": ("STRONG", "SM"),
    "cg": ("STRONG", "GPU"),
    "cs": ("EF",),
    "wt": ("STRONG", "SYS"),
}
_SCOPE = {"cta": "SM", "cluster": "GPU", "gpu": "GPU", "sys": "SYS"}


def _order_mods(ins: ast.Instruction) -> tuple[str, ...] | None:
    """``STRONG.<scope>`` of a volatile/relaxed/acquire/release access, None for a weak one."""
    if ins.has("volatile"):
        return ("STRONG", "SYS")
    sem = ins.mods.sem
    if sem is not None and str(sem.value) in ("relaxed", "acquire", "release"):
        return ("STRONG", _access_scope(ins))
    return None


def _access_scope(ins: ast.Instruction) -> str:
    scope = ins.mods.scope
    return _SCOPE.get(str(scope.value) if scope else "sys", "SYS")


def _cache_mods(ins: ast.Instruction, table: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    order = _order_mods(ins)
    if order is not None:
        return order
    cache = ins.mods.cache
    return table.get(str(cache.value), ()) if cache is not None else ()


def _sem(ins: ast.Instruction) -> str:
    return str(ins.mods.sem.value) if ins.mods.sem is not None else ""


def _release_fence(c: LowerCtx, scope: str) -> None:
    """Before a release (ptxas 13.0): ``MEMBAR.ALL.CTA`` at CTA scope, else
    ``MEMBAR.ALL.<scope>; ERRBAR; CGAERRBAR``."""
    if scope == "SM":
        c.emit("MEMBAR", ("ALL", "CTA"), [], [])
        return
    c.emit("MEMBAR", ("ALL", scope), [], [])
    c.emit("ERRBAR")
    c.emit("CGAERRBAR")


def _acquire_fence(c: LowerCtx, scope: str) -> None:
    """After an acquire beyond the CTA: ``CCTL.IVALL`` (ptxas 13.0)."""
    if scope != "SM":
        c.emit("CCTL", ("IVALL",), [], [])


# L1 eviction priorities of loads (ptxas 13.0: LDG.E.EF/NA/EU/EL; scripts/probe_warp.py ldst)
_L1_HINT = {
    "L1::evict_first": ("EF",),
    "L1::no_allocate": ("NA",),
    "L1::evict_unchanged": ("EU",),
    "L1::evict_last": ("EL",),
}
_EVICT = ("EF", "EL", "LU", "EU", "NA")


def _evict_first(mods: tuple[str, ...]) -> tuple[str, ...]:
    """nvdisasm's order: the eviction priority before the size (LDG.E.EF.128, STG.E.EF.128,
    LDG.E.NA.128.CONSTANT), a memory order after it (LDG.E.128.STRONG.SYS)."""
    return (*[m for m in mods if m in _EVICT], *[m for m in mods if m not in _EVICT])


def ld_mem(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    t = ins.type
    assert t is not None
    space = _space(ins)
    addr = c.mem_addr(c.address(a), space)
    mods = _size_mod(t, ins.vec)
    pre: tuple[str, ...]
    if space in SHARED:
        op, pre = "LDS", ()
    elif space is StateSpace.LOCAL:
        op, pre = "LDL", ()
    elif space is StateSpace.GLOBAL and (ins.has("nc") or ins.opcode == "ldu"):
        op, pre = "LDG", ("E",)
        mods = (*mods, "CONSTANT")
    elif space is StateSpace.GLOBAL:
        op, pre = "LDG", ("E",)
        mods = (*mods, *_cache_mods(ins, _LD_CACHE))
    else:
        op, pre = "LD", ("E",)
        mods = (*mods, *(_order_mods(ins) or ()))
    if op == "LDG":
        hint = _L1_HINT.get(next((m for m in _L1_HINT if ins.has(m)), ""), ())
        mods = (*hint, *mods)
    if op not in ("LDS", "LDL") and "CONSTANT" in mods:
        # nvdisasm order: size, then CONSTANT (LDG.E.128.CONSTANT)
        mods = (*[m for m in mods if m != "CONSTANT"], "CONSTANT")
    mods = _evict_first(mods)
    _load_into(c, ins, d, lambda g: c.emit(op, (*pre, *mods), [g], [addr]))
    if _sem(ins) == "acquire":
        _acquire_fence(c, _access_scope(ins))


def st_mem(ins: ast.Instruction, c: LowerCtx) -> None:
    a, v = ins.operands
    t = ins.type
    assert t is not None
    space = _space(ins)
    addr = c.mem_addr(c.address(a), space)
    mods = _size_mod(t, ins.vec)
    mods = tuple(m.replace("S8", "U8").replace("S16", "U16") for m in mods)
    src = _store_group(c, ins, v)
    if isinstance(src, Imm):
        src = c.materialize(src.value, T.B32)
    if _sem(ins) == "release":
        _release_fence(c, _access_scope(ins))
    if space in SHARED:
        c.emit("STS", mods, [], [addr, src])
    elif space is StateSpace.LOCAL:
        c.emit("STL", mods, [], [addr, src])
    elif space is StateSpace.GLOBAL:
        c.emit("STG", ("E", *_evict_first((*mods, *_cache_mods(ins, _ST_CACHE)))), [], [addr, src])
    else:
        c.emit("ST", ("E", *mods, *(_order_mods(ins) or ())), [], [addr, src])


def cvta(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    if ins.space is not StateSpace.GLOBAL:
        raise c.unsupported(f"cvta for {ins.space} addresses")
    # Generic and global addresses coincide on sm_90.
    dv = c.dst(d)
    src = c.rvalue(a, T.U64)
    for k in range(2):
        c.emit("MOV", (), [dv.part(k)], [half(src, k)])


_ATOM_OPS = {
    "add": "ADD",
    "min": "MIN",
    "max": "MAX",
    "and": "AND",
    "or": "OR",
    "xor": "XOR",
    "exch": "EXCH",
    "inc": "INC",
    "dec": "DEC",
    "cas": "CAS",
}


def atom(ins: ast.Instruction, c: LowerCtx) -> None:
    t = ins.type
    assert t is not None and ins.op is not None
    is_red = ins.opcode == "red"
    ops = ins.operands
    if is_red:
        a, b = ops[0], ops[1]
        d = None
        extra: list[ast.Operand] = []
    else:
        d, a, b = ops[0], ops[1], ops[2]
        extra = list(ops[3:])
        if isinstance(d, ast.Sink):  # 'atom _, [a], b': the old value is not wanted
            d = None
    op = _ATOM_OPS.get(ins.op)
    if op is None:
        raise c.unsupported(f"atom.{ins.op}")
    if t in (T.F16, T.BF16):
        raise c.unsupported(f"instruction '{ins.name}'")
    space = _space(ins)
    ty: tuple[str, ...] = ()
    shared = space in (StateSpace.SHARED, StateSpace.SHARED_CTA)
    if t in _ATOM_FLOAT and (
        op != "ADD"
        or (t not in (T.F32, T.F64, T.F16X2, T.BF16X2) and space is not StateSpace.GLOBAL)
        or (t is T.F64 and space is None)
    ):
        # packed-half adds exist on global memory only, f64 adds on global and (a CAS loop)
        # shared memory; ptxas reaches shared memory through a generic address with a
        # fallback loop
        raise c.unsupported(f"instruction '{ins.name}'")
    if t in _ATOM_FLOAT and t is not T.F32 and not shared:
        ty = _ATOM_FLOAT[t]
    elif t is T.F32:
        ty = ("F32", "FTZ", "RN")
    elif t in (T.S32,) and op in ("MIN", "MAX", "ADD"):
        ty = ("S32",) if op != "ADD" else ()
    elif t is T.S64 and op in ("MIN", "MAX"):
        ty = ("S64",)
    elif t in (T.U64, T.B64, T.S64):
        ty = ("64",)
    packed = t in (T.F16X2, T.BF16X2)
    if space is None and (width_of(t) == 2 or t is T.F32) and not (packed and op == "ADD"):
        # ptxas: ATOM.E with a fallback for shared/local addresses (not built yet)
        raise c.unsupported(f"instruction '{ins.name}' on a generic address")
    addr = c.mem_addr(c.address(a), space)
    scope = _ATOM_SCOPE[str(ins.mods.scope.value) if ins.mods.scope is not None else "gpu"]
    sem = str(ins.mods.sem.value) if ins.mods.sem is not None else "relaxed"
    if sem in ("release", "acq_rel"):
        _release_fence(c, scope)
    _atom_body(c, ins, space, addr, op, ty, scope, d, b, extra)
    if sem in ("acquire", "acq_rel") and scope != "SM":
        c.emit("CCTL", ("IVALL",), [], [])


# atom/red scopes as ATOMG/ATOM/REDG spell them (release/acquire fences: _release_fence,
# _acquire_fence)
_ATOM_SCOPE = {"cta": "SM", "cluster": "GPU", "gpu": "GPU", "sys": "SYS"}
_ATOM_FLOAT = {T.F64: ("F64", "RN"), T.F16X2: ("F16x2", "RN"), T.BF16X2: ("BF16x2", "RN"),
               T.F32: ("F32", "FTZ", "RN")}  # fmt: skip


def _atom_body(
    c: LowerCtx,
    ins: ast.Instruction,
    space: StateSpace | None,
    addr: Addr,
    op: str,
    ty: tuple[str, ...],
    scope: str,
    d: ast.Operand | None,
    b: ast.Operand,
    extra: list[ast.Operand],
) -> None:
    t = ins.type
    assert t is not None
    dst = c.dst(d) if d is not None else None
    if op == "CAS" and t.size == 2:
        return _cas16(c, space, addr, dst, b, extra[0])
    if op == "CAS":
        # the compare and swap values in registers of their own: ATOM/ATOMG/ATOMS.CAS encode
        # Rb (bits 32-39) and Rc (bits 64-71) apart (the sm_90 table); copying them into one
        # pair first cost a MOV per word in every CAS loop (ptxas: one, the loop-carried value)
        srcs: list[Operand] = [addr, c.rvalue(b, t), c.rvalue(extra[0], t)]
    else:
        srcs = [addr, c.value(b, t, allow_imm=False)]
    if space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
        if op == "ADD" and (t in (T.F32, T.F16X2, T.BF16X2) or width_of(t) == 2):
            return _atoms_spin(c, t, addr, srcs[1], dst)
        mods = (op, *ty)
        if dst is None:
            dst = c.new(RC.R, width_of(t))
        c.emit("ATOMS", mods, [dst], srcs)
        return
    if space not in (StateSpace.GLOBAL, None):
        raise c.unsupported(f"atomics on {space}")
    mods = ("E", op, *ty, "STRONG", scope)
    if space is None and t in (T.F16X2, T.BF16X2):
        return _atom_generic_half(c, t, addr, srcs[1], dst, mods)
    if space is None:
        # generic: ATOM.E, which also reaches shared memory (ptxas 13.0)
        c.emit("ATOM", mods, [PT, dst if dst is not None else RZ], srcs)
        return
    if dst is None and op not in ("CAS", "EXCH"):
        c.emit("REDG", mods, [], srcs)
    else:
        # no REDG form swaps: ptxas writes ATOMG.E.CAS PT, RZ for 'atom.cas _, ...'
        c.emit("ATOMG", mods, [PT, dst if dst is not None else RZ], srcs)


NOT_PT = Src(PT, inv=True)


def _atom_generic_half(
    c: LowerCtx, t: PtxType, addr: Addr, val: Operand, dst: VReg | None, mods: tuple[str, ...]
) -> None:
    """``atom.add.noftz.{f16x2,bf16x2}`` on a generic address, as ptxas 13.0 writes it:
    ``ATOM.E`` sets P when the address was global (done); else ``QSPC.E.S`` asks whether it is
    shared: then a spin loop on the 32-bit shared address (``_atoms_spin``), else a plain
    load, add and store on local memory, where ptxas adds the words as
    integers (``IADD3``: what its code computes, so ours does too)."""
    base = addr.base
    assert isinstance(base, VReg | Part | Reg) and addr.wide
    if addr.offset:  # QSPC and the shared path take the address itself
        full = add_low(c, base, Imm(addr.offset))
        base = full
        addr = Addr(full, 0, desc=addr.desc, wide=True)
    d = dst if dst is not None else c.new(RC.R)
    ok = c.new(RC.P)
    c.emit("ATOM", mods, [ok, d], [addr, val])
    done = c.new_block("atom_done")
    c.emit("BRA", (), [], [Label(done.name)], guard=Guard(ok))
    probe = c.new_block("atom_space")
    c.fn.blocks.append(probe)
    c.block = probe
    shared = c.new(RC.P)
    c.emit("QSPC", ("E", "S"), [shared, RZ], [Addr(base, 0)])
    local = c.new_block("atom_local")
    c.emit("BRA", (), [], [Label(local.name)], guard=Guard(shared, True))
    spin = c.new_block("atom_shared")
    c.fn.blocks.append(spin)
    c.block = spin
    a32 = c.new(RC.R)
    c.emit("MOV", (), [a32], [half(base, 0)])
    _atoms_spin(c, t, Addr(a32, 0), val, d)
    c.emit("BRA", (), [], [Label(done.name)])
    c.fn.blocks.append(local)
    c.block = local
    c.emit("LD", ("E",), [d], [addr])
    tmp = c.new(RC.R)
    c.emit("IADD3", (), [tmp], [val, d, RZ])
    c.emit("ST", ("E",), [], [addr, tmp])
    c.fn.blocks.append(done)
    c.block = done


def _atoms_spin(c: LowerCtx, t: PtxType, addr: Addr, val_op: Operand, dst: VReg | None) -> None:
    """Shared-memory adds SASS lacks (f32, 64-bit, packed halves), as ptxas: read the word,
    add, and ``ATOMS.CAST.SPIN`` it in (the result is 1 when the word still held what was
    read), until it sticks. Packed halves add with ``HADD2[.BF16_V2]``."""
    wide = width_of(t) == 2
    assert isinstance(val_op, VReg | Part | Reg)
    val = val_op
    if addr.base is None and addr.ubase is not None:
        # a shared variable: ATOMS.CAST.SPIN takes its address in a register (ptxas)
        r = c.new(RC.R)
        c.emit("MOV", (), [r], [addr.ubase])
        addr = Addr(r, addr.offset)
    loop = c.new_block("spin_")
    c.fn.blocks.append(loop)
    c.block = loop
    old = c.new(RC.R, 2 if wide else 1)
    c.emit("LDS", ("64",) if wide else (), [old], [addr])
    new = c.new(RC.R, 2 if wide else 1)
    if t is T.F32:
        c.emit("FADD", ("FTZ",), [new], [val, old])
    elif t is T.F64:
        c.emit("DADD", (), [new], [val, old])
    elif t in (T.F16X2, T.BF16X2):
        # (ptxas: HFMA2.MMA old, 1, val, a form with an immediate B the ISA table has not
        # learned; old * 1 is exact, so the one rounding of the add gives the same bits)
        c.emit("HADD2", ("BF16_V2",) if t is T.BF16X2 else (), [new], [old, val])
    else:
        carry = c.new(RC.P)
        c.emit("IADD3", (), [new.lo, carry], [half(val, 0), old.lo, RZ])
        c.emit("IADD3", ("X",), [new.hi], [half(val, 1), old.hi, RZ, carry, NOT_PT])
    ok = c.new(RC.R, 2 if wide else 1)
    c.emit("ATOMS", ("CAST", "SPIN", *(("64",) if wide else ())), [ok], [addr, old, new])
    done = c.new(RC.P)
    lo = ok.lo if wide else ok
    c.emit("ISETP", ("EQ", "U32", "AND"), [done, PT], [lo, Imm(1), PT])
    if wide:
        c.emit("ISETP", ("EQ", "U32", "AND", "EX"), [done, PT], [ok.hi, RZ, PT, done])
    c.emit("BRA", (), [], [Label(loop.name)], guard=Guard(done, True))
    after = c.new_block("spin_done")
    c.fn.blocks.append(after)
    c.block = after
    if dst is not None:
        if wide:
            c.emit("MOV", (), [dst.lo], [old.lo])
            c.emit("MOV", (), [dst.hi], [old.hi])
        else:
            c.emit("MOV", (), [dst], [old])


def _cas16(
    c: LowerCtx,
    space: StateSpace | None,
    addr: Addr,
    dst: VReg | None,
    cmp: ast.Operand,
    new: ast.Operand,
) -> None:
    """``atom.cas.b16``: there is no 16-bit CAS, so a 32-bit CAS loop on the aligned word
    holding the half: the word is swapped for one with the new half when the half equals cmp,
    else for itself, until no other thread changed the word in between."""
    shared = space in (StateSpace.SHARED, StateSpace.SHARED_CTA)
    base = addr.base
    if shared and addr.ubase is not None:
        raise c.unsupported("atom.cas.b16 on a shared variable by name")
    assert base is not None
    lo = half(base, 0) if addr.wide else base
    full_lo = c.new()
    c.emit("IADD3", (), [full_lo], [lo, Imm(addr.offset & 0xFFFFFFFF), RZ])
    if addr.wide:
        if addr.offset:
            raise c.unsupported("atom.cas.b16 with an address offset")
        aligned: Operand = c.new(RC.R, 2)
        assert isinstance(aligned, VReg)
        c.emit("LOP3", ("LUT",), [aligned.lo], [full_lo, Imm(0xFFFFFFFC), RZ, Imm(0xC0), NOT_PT])
        c.emit("MOV", (), [aligned.hi], [half(base, 1)])
        waddr = Addr(aligned, 0, desc=addr.desc, wide=True)
    else:
        aligned = c.new()
        c.emit("LOP3", ("LUT",), [aligned], [full_lo, Imm(0xFFFFFFFC), RZ, Imm(0xC0), NOT_PT])
        waddr = Addr(aligned, 0)
    two = c.new()
    c.emit("LOP3", ("LUT",), [two], [full_lo, Imm(2), RZ, Imm(0xC0), NOT_PT])
    shift = c.new()
    c.emit("SHF", ("L", "U32"), [shift], [two, Imm(3), RZ])
    ones = c.new()
    c.emit("MOV", (), [ones], [Imm(0xFFFF)])
    mask = c.new()
    c.emit("SHF", ("L", "U32"), [mask], [ones, shift, RZ])
    vals = []
    for x in (cmp, new):
        m = c.new()
        c.emit("LOP3", ("LUT",), [m], [c.rvalue(x, T.B32), Imm(0xFFFF), RZ, Imm(0xC0), NOT_PT])
        sv = c.new()
        c.emit("SHF", ("L", "U32"), [sv], [m, shift, RZ])
        vals.append(sv)
    cmp_s, new_s = vals
    old = c.new()
    c.emit("LDS" if shared else "LDG", () if shared else ("E",), [old], [waddr])
    loop = c.new_block("cas16_")
    c.fn.blocks.append(loop)
    c.block = loop
    cur = c.new()
    c.emit("LOP3", ("LUT",), [cur], [old, mask, RZ, Imm(0xC0), NOT_PT])
    eq = c.new(RC.P)
    c.emit("ISETP", ("EQ", "U32", "AND"), [eq, PT], [cur, cmp_s, PT])
    swapped = c.new()
    # (old & ~mask) | new_s
    c.emit("LOP3", ("LUT",), [swapped], [old, mask, new_s, Imm(0xBA), NOT_PT])
    word = c.new()
    c.emit("SEL", (), [word], [swapped, old, eq])
    prev = c.new()
    cas_srcs: list[Operand] = [waddr, old, word]  # Rb and Rc apart (see _atom)
    if shared:
        c.emit("ATOMS", ("CAS",), [prev], cas_srcs)
    else:
        c.emit("ATOMG", ("E", "CAS", "STRONG", "GPU"), [PT, prev], cas_srcs)
    again = c.new(RC.P)
    c.emit("ISETP", ("NE", "U32", "AND"), [again, PT], [prev, old, PT])
    c.emit("MOV", (), [old], [prev])
    c.emit("BRA", (), [], [Label(loop.name)], guard=Guard(again, False))
    after = c.new_block("cas16_done")
    c.fn.blocks.append(after)
    c.block = after
    if dst is not None:
        got = c.new()
        c.emit("LOP3", ("LUT",), [got], [prev, mask, RZ, Imm(0xC0), NOT_PT])
        c.emit("SHF", ("R", "U32", "HI"), [dst], [RZ, shift, got])


def bar_sync(ins: ast.Instruction, c: LowerCtx) -> None:
    ops = ins.operands
    if ins.has("arrive"):
        raise c.unsupported("bar.arrive")
    bid = c.value(ops[0], T.U32) if ops else Imm(0)
    srcs: list[Operand] = [bid]
    if len(ops) > 1:
        srcs.append(c.value(ops[1], T.U32))
    if isinstance(bid, Imm):
        c.fn.barriers = max(c.fn.barriers, bid.value + 1)
    else:
        c.fn.barriers = 16
    c.emit("BAR", ("SYNC", "DEFER_BLOCKING"), [], srcs)


def bar_red(ins: ast.Instruction, c: LowerCtx) -> None:
    """``bar.red.{popc,and,or} d, a{, b}, {!}p``: ``BAR.RED.<op>`` then ``B2R.RESULT`` reads
    the reduction (a count into a register, or a predicate), as ptxas."""
    ops = ins.operands
    d, bid, pred = ops[0], ops[1], ops[-1]
    if len(ops) > 3:
        raise c.unsupported("bar.red with a thread count")
    op = "POPC" if ins.has("popc") else "AND" if ins.has("and") else "OR"
    vb = c.value(bid, T.U32)
    if isinstance(vb, Imm):
        c.fn.barriers = max(c.fn.barriers, vb.value + 1)
    else:
        c.fn.barriers = 16
    c.emit("BAR", ("RED", op, "DEFER_BLOCKING"), [], [vb, c.value(pred, T.PRED)])
    if op == "POPC":
        c.emit("B2R", ("RESULT",), [c.dst(d)], [])
    else:
        c.emit("B2R", ("RESULT",), [RZ, c.dst(d)], [])


RULES: list[Rule] = [
    Rule(
        "ld.param",
        "ld",
        space_is(StateSpace.PARAM, StateSpace.PARAM_ENTRY),
        ld_param,
        "ld.param.u64 %rd1, [k_param_0];",
    ),
    Rule(
        "ld.mem",
        "ld",
        space_is(
            StateSpace.GLOBAL,
            StateSpace.SHARED,
            StateSpace.SHARED_CTA,
            StateSpace.LOCAL,
            None,
        ),
        ld_mem,
        "ld.global.f32 %f1, [%rd1+4];",
    ),
    Rule("ld.const", "ld", space_is(StateSpace.CONST), ld_const, "ld.const.u32 %r1, [%rd1+8];"),
    Rule("ldu", "ldu", always, ld_mem, "ldu.global.f32 %f1, [%rd1];"),
    Rule(
        "st.mem",
        "st",
        space_is(
            StateSpace.GLOBAL,
            StateSpace.SHARED,
            StateSpace.SHARED_CTA,
            StateSpace.LOCAL,
            None,
        ),
        st_mem,
        "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};",
    ),
    Rule(
        "cvta.to.global",
        "cvta",
        both(has("to"), space_is(StateSpace.GLOBAL)),
        cvta,
        "cvta.to.global.u64 %rd1, %rd2;",
    ),
    Rule(
        "cvta.global",
        "cvta",
        space_is(StateSpace.GLOBAL),
        cvta,
        "cvta.global.u64 %rd1, %rd2;",
    ),
    Rule("atom", "atom", always, atom, "atom.global.add.u32 %r1, [%rd1], %r2;"),
    Rule("red", "red", always, atom, "red.shared.add.u32 [%r1], %r2;"),
    Rule("bar.red", "bar", lambda i: i.has("red"), bar_red, "bar.red.popc.u32 %r1, 0, %p1;"),
    Rule("bar.sync", "bar", lambda i: not i.has("arrive"), bar_sync, "bar.sync 0;"),
    Rule("barrier.sync", "barrier", lambda i: not i.has("arrive"), bar_sync, "barrier.sync 0;"),
]

_ = (RZ, Src, Addr)
