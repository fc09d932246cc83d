"""Constant propagation and folding (part of ptxas's GeneralOptimize).

Pre: virtual IR. Post: same semantics;
- a register written once, unguarded, by ``MOV d, imm`` is replaced by the immediate in every
  source slot that takes one (``target.ops.slots(op).imm``: the B or C source of ALU ops, within
  the width of the slot's immediate field), and by RZ where the constant is zero and the slot
  takes a register;
- integer instructions whose sources are all immediates become ``MOV d, value``.

The evaluator covers the 32-bit integer ops the lowering emits; anything else is left alone.
"""

from __future__ import annotations

from openptxas.ir.analysis import DefInfo, def_info, map_regs, use_counts, word_writes
from openptxas.ir.core import (
    RC,
    RZ,
    URZ,
    CBank,
    Function,
    Imm,
    ImmKind,
    Instr,
    Operand,
    Part,
    Reg,
    Src,
    VReg,
    reg_class,
)
from openptxas.passes.manager import PassContext
from openptxas.targets.ops import Slots

M32 = 0xFFFFFFFF
# The instructions whose sources the pass replaces by immediates (where the target's table has a
# slot for one: ``target.ops.slots(op)``). Others have immediate slots too (SGXT, BMSK, FADD...);
# folding into them changes today's code and waits for a check against ptxas's choices.
FOLDS = frozenset({"IADD3", "IMAD", "LOP3", "SHF", "SEL", "ISETP", "VIMNMX", "LEA", "MOV", "PRMT"})
FOLDS_NARROW = frozenset({"SHFL"})  # lane and clamp: several immediates, narrow fields
# f64 instructions whose B (DFMA: B or C) source takes an immediate: the f64's high word, its low
# word zero (``DFMA R8, R6, R8, 6.75539944105574400000e+15``, ``DADD R22, R8, -1``), as ptxas
# writes a constant such as 2^52 * 1.5, 1.0 or 0.5 that the PTX moved into a register.
FOLDS_F64 = frozenset({"DFMA", "DADD", "DMUL", "DSETP"})
# f32 instructions whose B source (FFMA: B or C) takes a 32-bit float immediate
FOLDS_F32 = frozenset({"FFMA", "FADD", "FMUL", "FSETP", "FMNMX", "FSEL"})
# f16x2 operations whose constant operand ptxas writes as a pair of f16 immediates (``HFMA2
# R24, R20.H0_H0, 0.0001220703125, 0.0001220703125, R5``; the target says where and with which
# modifiers: targets.ops.half_pair_slot)
FOLDS_F16 = frozenset({"HFMA2", "HADD2", "HMUL2", "HSETP2", "HSET2"})
HALF_COMMUTES = frozenset({"HFMA2", "HADD2", "HMUL2"})
COMMUTES_AB = frozenset({"FFMA", "FADD", "FMUL", "FMNMX", "DFMA", "DADD", "DMUL"})
SIGN64 = 1 << 63
SIGN32 = 1 << 31


def _imm_int(op: Operand, consts: dict[int, int] | None = None) -> int | None:
    """The 32-bit value of ``op``: an integer immediate, RZ, a register of ``consts`` (written
    once, by a constant), negated where ``op`` says so."""
    if isinstance(op, Imm) and op.kind == ImmKind.INT:
        return op.value & M32
    if isinstance(op, Reg) and op.rc == RC.R and op.index == 255:
        return 0
    if consts is not None and isinstance(op, VReg) and op.id in consts:
        return consts[op.id]
    if isinstance(op, Src) and not op.abs and not op.inv and op.sel == "":
        v = _imm_int(op.x, consts)
        if v is not None:
            return (-v) & M32 if op.neg else v
    return None


def _imm_bits(op: Operand) -> int | None:
    """The 32 bits a move writes: an integer immediate, RZ, or an f32 one's pattern (an f32
    constant folds into an integer instruction as the same bits)."""
    if isinstance(op, Imm) and op.kind == ImmKind.F32:
        return op.value & M32
    return _imm_int(op)


def _eval(ins: Instr, consts: dict[int, int] | None = None) -> int | None:
    """The value of a 32-bit integer instruction with constant sources (immediates, or
    registers of ``consts``), or None."""
    if ins.guard is not None or len(ins.dsts) != 1:
        return None
    vals = [_imm_int(s, consts) for s in ins.srcs]
    if ins.op == "SHF" and len(vals) == 3:
        return _shf(ins.mods, vals[0], vals[1], vals[2])
    if ins.op == "IADD3" and not ins.mods and len(vals) == 3 and None not in vals:
        return sum(v for v in vals if v is not None) & M32
    if ins.op == "IMAD" and not ins.mods and len(vals) == 3 and None not in vals:
        a, b, c = (v for v in vals if v is not None)
        return (a * b + c) & M32
    if ins.op == "PRMT" and not ins.mods and len(vals) == 3 and None not in vals:
        a, sel, b = (v for v in vals if v is not None)
        pool = a | b << 32  # bytes 0-3 of a, 4-7 of b; bit 3 of a selector: the byte's sign
        r = 0
        for i in range(4):
            n = sel >> (4 * i) & 0xF
            byte = pool >> (8 * (n & 7)) & 0xFF
            if n & 8:
                byte = 0xFF if byte & 0x80 else 0
            r |= byte << (8 * i)
        return r
    if ins.op == "LOP3" and ins.mods == ("LUT",) and len(vals) >= 4 and None not in vals[:4]:
        a, b, c, lut = (v for v in vals[:4] if v is not None)
        r = 0
        for bit in range(32):
            idx = ((a >> bit & 1) << 2) | ((b >> bit & 1) << 1) | (c >> bit & 1)
            r |= (lut >> idx & 1) << bit
        return r
    return None


def _uniform_copy(ins: Instr, info: DefInfo) -> VReg | None:
    """The UR that ``R2UR d, r`` moves back when r is a copy ``MOV r, ur`` (both written
    once: the UR still holds the value at the R2UR)."""
    r = ins.srcs[0] if len(ins.srcs) == 1 else None
    if not isinstance(r, VReg) or r.width != 1:
        return None
    sites = info.defs(r)
    if len(sites) != 1 or sites[0].op != "MOV" or sites[0].guard is not None or sites[0].mods:
        return None
    u = sites[0].srcs[0]
    if not (isinstance(u, VReg) and u.rc == RC.UR and u.width == 1 and len(info.defs(u)) == 1):
        return None
    return u


def _shf(mods: tuple[str, ...], lo: int | None, sh: int | None, hi: int | None) -> int | None:
    """The 32-bit funnel shifts the lowering emits for plain shifts (amount under 32):
    ``SHF.L.U32 d, a, s, RZ`` (a << s), ``SHF.R.U32.HI d, RZ, s, c`` (c >> s) and
    ``SHF.R.S32.HI d, RZ, s, c`` (arithmetic); others are left alone."""
    if lo is None or sh is None or hi is None or sh >= 32:
        return None
    if mods == ("L", "U32") and hi == 0:
        return (lo << sh) & M32
    if mods == ("R", "U32", "HI") and lo == 0:
        return hi >> sh
    if mods == ("R", "S32", "HI") and lo == 0:
        signed = hi - (1 << 32) if hi >> 31 else hi
        return (signed >> sh) & M32
    return None


def _identity(ins: Instr) -> bool:
    """``IADD3 d, a, RZ, RZ`` and ``LOP3.LUT d, a, RZ, RZ, lut`` where lut passes a through:
    a plain copy of register a."""
    if ins.guard is not None or len(ins.dsts) != 1 or not ins.srcs:
        return False
    a = ins.srcs[0]
    if not isinstance(a, VReg | Part) or (isinstance(a, VReg) and a.width != 1):
        return False
    zero = [_imm_int(x) == 0 for x in ins.srcs[1:3]]
    if ins.op == "IADD3" and not ins.mods and len(ins.srcs) == 3 and all(zero):
        return True
    if ins.op == "LOP3" and ins.mods == ("LUT",) and len(ins.srcs) >= 4 and all(zero):
        lut = _imm_int(ins.srcs[3])
        return lut is not None and lut & 0x11 == 0x10 and (len(ins.srcs) < 5 or _np(ins.srcs[4]))
    return False


def _swap_sel(ins: Instr, consts: dict[int, int]) -> bool:
    """``SEL d, k, b, p`` with a constant k in the register-only first slot becomes
    ``SEL d, b, k, !p`` so that k can be an immediate (ptxas: ``SEL R, RZ, 0x1, !P0``)."""
    a, b, p = ins.srcs[0], ins.srcs[1], ins.srcs[2]
    if not (isinstance(a, VReg) and a.id in consts):
        return False
    if isinstance(b, Imm):
        if _imm_int(b) != 0:
            return False
        b = RZ
    if isinstance(b, VReg) and b.id in consts:
        return False
    q: Operand
    if isinstance(p, Src):
        q = p.x if p.inv else Src(p.x, inv=True)
    elif isinstance(p, VReg | Reg):
        q = Src(p, inv=True)
    else:
        return False
    ins.srcs[0], ins.srcs[1], ins.srcs[2] = b, Imm(consts[a.id]), q
    return True


def _scale_sel(ins: Instr, info: DefInfo, uses: dict[int, int]) -> bool:
    """``x = SEL RZ, k, p`` used only by ``d = IMAD x, m, RZ``: ``d = SEL RZ, k*m, p``."""
    if ins.op != "IMAD" or ins.mods or ins.guard is not None or len(ins.srcs) != 3:
        return False
    x, m = ins.srcs[0], _imm_int(ins.srcs[1])
    if m is None or _imm_int(ins.srcs[2]) != 0 or not isinstance(x, VReg) or x.width != 1:
        return False
    sites = info.defs(x)
    if len(sites) != 1 or uses.get(x.id, 0) != 1:
        return False
    sel = sites[0]
    if sel.op != "SEL" or sel.guard is not None or _imm_int(sel.srcs[0]) != 0:
        return False
    k = sel.srcs[1]
    if not (isinstance(k, Imm) and k.kind == ImmKind.INT):
        return False
    ins.op, ins.mods = "SEL", ()
    ins.srcs = [RZ, Imm((k.value * m) & M32), sel.srcs[2]]
    return True


def _small(op: Operand, info: DefInfo, consts: dict[int, int], mask: int) -> bool:
    """The value of op has no bits outside ``mask``: a constant, or a register written once by
    a SEL/MOV of such constants."""
    v = _imm_int(op)
    if v is not None:
        return v & ~mask == 0
    if not isinstance(op, VReg) or op.width != 1:
        return False
    if op.id in consts:
        return consts[op.id] & ~mask == 0
    sites = info.defs(op)
    if len(sites) != 1 or sites[0].guard is not None:
        return False
    d = sites[0]
    if d.op == "PRMT" and not d.mods and len(d.srcs) == 3 and _imm_int(d.srcs[2]) == 0:
        sel = _imm_int(d.srcs[1])
        if sel is None:
            return False
        # bytes taken from the zero register (nibble 4..7, no sign replication) are zero
        zero = [(sel >> (4 * i) & 0xF) in (4, 5, 6, 7) for i in range(4)]
        known = sum(0xFF << (8 * i) for i in range(4) if zero[i])
        return (M32 & ~known) & ~mask == 0
    if d.op == "SEL" and len(d.srcs) == 3:
        return all(
            ((w := _imm_int(x)) is not None and w & ~mask == 0)
            or (isinstance(x, VReg) and x.id in consts and consts[x.id] & ~mask == 0)
            for x in d.srcs[:2]
        )
    return False


def _redundant_mask(ins: Instr, info: DefInfo, consts: dict[int, int]) -> bool:
    """``LOP3.LUT d, a, m, RZ, 0xc0`` (a & m) where a never has bits outside m."""
    if ins.op != "LOP3" or ins.mods != ("LUT",) or ins.guard is not None or len(ins.srcs) < 4:
        return False
    if len(ins.dsts) != 1 or _imm_int(ins.srcs[3]) != 0xC0 or _imm_int(ins.srcs[2]) != 0:
        return False
    m = _imm_int(ins.srcs[1])
    return m is not None and _small(ins.srcs[0], info, consts, m)


# loads that sign-extend their value: the bits it comes from
_SIGNED_LOADS = frozenset({"LDG", "LDS", "LD", "LDL"})
_SIGNED_WIDTH = {"S8": 8, "S16": 16}


def _redundant_sext(ins: Instr, info: DefInfo) -> bool:
    """``SGXT d, a, n`` (sign-extend from bit n-1) of a value already sign-extended from n bits
    or fewer: a signed 8- or 16-bit load (``LDG.E.S8`` then ``cvt.f32.s16``'s SGXT 0x10), an
    SGXT from as few bits."""
    if ins.op != "SGXT" or ins.mods or ins.guard is not None or len(ins.srcs) != 2:
        return False
    a, n = ins.srcs
    if not isinstance(a, VReg) or a.width != 1 or not isinstance(n, Imm):
        return False
    sites = info.defs(a)
    if len(sites) != 1 or sites[0].guard is not None:
        return False
    d = sites[0]
    if d.op in _SIGNED_LOADS:
        bits = min((_SIGNED_WIDTH[m] for m in d.mods if m in _SIGNED_WIDTH), default=None)
        return bits is not None and bits <= n.value
    if d.op == "SGXT" and not d.mods and len(d.srcs) == 2:
        m = d.srcs[1]
        return isinstance(m, Imm) and m.value <= n.value
    return False


def _sext_past_mask(ins: Instr, info: DefInfo) -> bool:
    """``SGXT d, t, n`` (signed or not) of ``t = a & m`` where m keeps the n low bits: the
    extension reads ``a`` (it looks at those bits only; a 16-bit mask before an 8-bit
    extension). ``a`` written once, so that it holds the same value at both."""
    if ins.op != "SGXT" or ins.guard is not None or len(ins.srcs) != 2:
        return False
    t, n = ins.srcs
    if not isinstance(t, VReg) or t.width != 1 or not isinstance(n, Imm) or not 0 < n.value < 32:
        return False
    sites = info.defs(t)
    if len(sites) != 1:
        return False
    d = sites[0]
    if d.op != "LOP3" or d.mods != ("LUT",) or d.guard is not None or len(d.srcs) < 4:
        return False
    if _imm_int(d.srcs[3]) != 0xC0 or _imm_int(d.srcs[2]) != 0:
        return False
    a, m = d.srcs[0], _imm_int(d.srcs[1])
    low = (1 << n.value) - 1
    if m is None or m & low != low or not isinstance(a, VReg) or a.width != 1:
        return False
    if len(info.defs(a)) != 1 or info.defs(a)[0].guard is not None:
        return False
    ins.srcs[0] = a
    return True


def _reduce_lop3(ins: Instr, consts: dict[int, int]) -> Operand | None:
    """A LOP3 whose constant sources are all-zeros or all-ones and whose result then follows
    one register source unchanged, or is constant: that source, or the constant."""
    if ins.mods != ("LUT",) or ins.guard is not None or len(ins.dsts) != 1:
        return None
    if len(ins.srcs) < 4 or (len(ins.srcs) >= 5 and not _np(ins.srcs[4])):
        return None
    lut = _imm_int(ins.srcs[3])
    if lut is None:
        return None
    vals: list[int | None] = []
    for x in ins.srcs[:3]:
        v = _imm_int(x)
        if v is None and isinstance(x, VReg) and x.id in consts:
            v = consts[x.id]
        if v is not None and v not in (0, M32):
            return None
        vals.append(v)
    var = [i for i, v in enumerate(vals) if v is None]
    if len(var) > 1:
        return None

    def f(x: int) -> int:
        bits = [x if v is None else (v & 1) for v in vals]
        return (lut >> (bits[0] << 2 | bits[1] << 1 | bits[2])) & 1

    f0, f1 = f(0), f(1)
    if f0 == f1:
        return RZ if f0 == 0 else Imm(M32)
    if not var or f0 == 1:
        return None
    x = ins.srcs[var[0]]
    if not isinstance(x, VReg | Part) or (isinstance(x, VReg) and x.width != 1):
        return None
    return x


def _trivial_arith(ins: Instr) -> Operand | None:
    """``IMAD d, 0, x, c`` / ``IMAD d, x, 0, c`` is c; ``IADD3 d, x, 0, 0`` (any order,
    no carry) is x."""
    if ins.mods or ins.guard is not None or len(ins.dsts) != 1 or len(ins.srcs) != 3:
        return None
    z = [_imm_int(x) == 0 for x in ins.srcs]
    if ins.op == "IMAD" and (z[0] or z[1]):
        cc = ins.srcs[2]
        if isinstance(cc, Src) or (isinstance(cc, VReg) and cc.width != 1):
            return None
        return cc
    if ins.op == "IADD3" and sum(z) >= 2:
        x = next((s for s, zz in zip(ins.srcs, z, strict=True) if not zz), RZ)
        if isinstance(x, Src) or (isinstance(x, VReg) and x.width != 1):
            return None
        return x
    return None


def _np(op: Operand) -> bool:
    """The predicate source of LOP3 is !PT (no predicate result is asked for)."""
    return isinstance(op, Src) and op.inv and isinstance(op.x, Reg) and op.x.index == 7


def const_fold(fn: Function, ctx: PassContext) -> None:
    for _ in range(4):
        info = def_info(fn)
        consts: dict[int, int] = {}
        for vid, sites in info.sites.items():
            if len(sites) != 1:
                continue
            ins = sites[0]
            if (
                ins.op == "MOV"
                and not ins.mods
                and ins.guard is None
                and len(ins.dsts) == 1
                and isinstance(ins.dsts[0], VReg)
                and ins.dsts[0].rc == RC.R
                and ins.dsts[0].width == 1
            ):
                v = _imm_bits(ins.srcs[0])
                if v is not None:
                    consts[vid] = v
        parts = _constant_parts(info.sites)
        uses = use_counts(fn)
        changed = False
        for ins in fn.instrs():
            fold = ins.op in FOLDS or ins.op in FOLDS_NARROW
            slots = ctx.target.ops.slots(ins.op)
            if (ins.op in FOLDS_F64 or ins.op in FOLDS_F32) and _fold_float(
                ins, consts, parts, slots
            ):
                changed = True
            if ins.op in FOLDS_F16 and _fold_half(ins, consts, ctx):
                changed = True
            for k, s in enumerate(ins.srcs):
                val = None
                if isinstance(s, VReg) and s.id in consts:
                    val = consts[s.id]
                elif isinstance(s, Part) and s.n == 1:
                    val = parts.get((s.v.id, s.k))
                if val is not None:
                    if val == 0:
                        ins.srcs[k] = RZ
                        changed = True
                    elif (
                        fold
                        and k in slots.imm
                        and (k == slots.b or slots.multi_imm)
                        and ins.mods[:1] != ("WIDE",)
                        and val <= slots.imm_max(k)
                        and _other_sources_registers(ins, k, slots)
                    ):
                        ins.srcs[k] = Imm(val)
                        changed = True
            if (
                ins.op == "R2UR"
                and not ins.mods
                and len(ins.srcs) == 1
                and (c := _imm_int(ins.srcs[0], consts)) is not None
            ):
                # a constant reaches the uniform datapath without the variable-latency move
                ins.op, ins.srcs = "UMOV", [Imm(c) if c else URZ]
                changed = True
            elif ins.op == "R2UR" and not ins.mods and (u := _uniform_copy(ins, info)) is not None:
                ins.op, ins.srcs = "UMOV", [u]  # R2UR of MOV R, UR: the UR itself
                changed = True
            if ins.op == "SEL" and _swap_sel(ins, consts):
                changed = True
            if _scale_sel(ins, info, uses):
                changed = True
            if _sext_past_mask(ins, info):
                changed = True
            if _redundant_mask(ins, info, consts) or _redundant_sext(ins, info):
                ins.op, ins.mods, ins.srcs = "MOV", (), [ins.srcs[0]]
                changed = True
            folded = _eval(ins, consts)
            if folded is not None and ins.op != "MOV":
                ins.op, ins.mods, ins.srcs = "MOV", (), [Imm(folded)]
                changed = True
                d = ins.dsts[0]
                if (
                    isinstance(d, VReg)
                    and d.rc == RC.R
                    and d.width == 1
                    and len(info.sites.get(d.id, ())) == 1
                ):
                    consts[d.id] = folded  # (a chain folds in one pass)
            elif folded is None and _identity(ins):
                ins.op, ins.mods, ins.srcs = "MOV", (), [ins.srcs[0]]
                changed = True
            elif folded is None and ins.op == "LOP3":
                reduced = _reduce_lop3(ins, consts)
                if reduced is not None:
                    ins.op, ins.mods, ins.srcs = "MOV", (), [reduced]
                    changed = True
            elif folded is None and ins.op in ("IMAD", "IADD3"):
                reduced = _trivial_arith(ins)
                if reduced is not None:
                    ins.op, ins.mods, ins.srcs = "MOV", (), [reduced]
                    changed = True
        if not changed:
            return
    _ = map_regs


def _fold_float(
    ins: Instr, consts: dict[int, int], parts: dict[tuple[int, int], int], slots: Slots
) -> bool:
    """A floating-point source that is a constant becomes the instruction's immediate (its
    negation or absolute value folded into the sign), in the first slot that takes one, as
    ptxas writes the constants PTX moves into registers (``mov.f32 %f115, 0fBDF8CDCC`` then
    ``fma``: ``FFMA R3, R2, R3, -0.12148627638816833496``). f64: the two words constant, the
    low one zero (the immediate holds the high word). FFMA's, FMUL's, FADD's (and their f64
    twins') constant first factor or addend moves to B when B is not constant."""
    if len(ins.srcs) < 2:
        return False
    wide = ins.op in FOLDS_F64
    sign = SIGN64 if wide else SIGN32

    def value(op: Operand) -> int | None:
        x = op.x if isinstance(op, Src) else op
        if not isinstance(x, VReg) or x.rc != RC.R:
            return None
        if wide:
            if x.width != 2:
                return None
            lo, hi = parts.get((x.id, 0)), parts.get((x.id, 1))
            if lo != 0 or hi is None:
                return None
            bits = hi << 32
        else:
            if x.width != 1 or x.id not in consts:
                return None
            bits = consts[x.id]
        if isinstance(op, Src):
            if op.inv or op.sel:
                return None
            if op.abs:
                bits &= ~sign
            if op.neg:
                bits ^= sign
        return bits

    b = ins.srcs[1].x if isinstance(ins.srcs[1], Src) else ins.srcs[1]
    if (
        ins.op in COMMUTES_AB
        and value(ins.srcs[0]) is not None
        and value(ins.srcs[1]) is None
        and isinstance(b, VReg | Part)
        and reg_class(b) == RC.R
    ):
        ins.srcs[0], ins.srcs[1] = ins.srcs[1], ins.srcs[0]
    for k in sorted(slots.imm):
        if k == 0 or k >= len(ins.srcs):
            continue
        bits = value(ins.srcs[k])
        if bits is not None and _other_sources_registers(ins, k, slots):
            ins.srcs[k] = Imm(bits, ImmKind.F64 if wide else ImmKind.F32)
            return True
    return False


def _half_pair(op: Operand, consts: dict[int, int]) -> int | None:
    """The f16x2 pair (high half << 16 | low half) an H* instruction reads from ``op``, a
    constant register (its selector, negation and absolute value applied), or None."""
    x = op.x if isinstance(op, Src) else op
    if not isinstance(x, VReg) or x.rc != RC.R or x.width != 1 or x.id not in consts:
        return None
    v = consts[x.id]
    hi, lo = v >> 16 & 0xFFFF, v & 0xFFFF
    if isinstance(op, Src):
        if op.inv:
            return None
        if op.sel == "H0_H0":
            hi = lo
        elif op.sel == "H1_H1":
            lo = hi
        elif op.sel not in ("", "H1_H0"):
            return None
        if op.abs:
            hi, lo = hi & 0x7FFF, lo & 0x7FFF
        if op.neg:
            hi, lo = hi ^ 0x8000, lo ^ 0x8000
    return hi << 16 | lo


def _fold_half(ins: Instr, consts: dict[int, int], ctx: PassContext) -> bool:
    """A constant source of an f16x2 operation becomes its pair-of-halves immediate where the
    target has such a form (one immediate per instruction; the constant of a sum or product
    moves to B first)."""
    if any(isinstance(s, Imm | CBank) for s in ins.srcs):
        return False
    allowed = ctx.target.ops.half_pair_slot(ins.op, ins.mods, len(ins.dsts))
    if not allowed:
        return False
    if (
        ins.op in HALF_COMMUTES
        and 1 in allowed
        and _half_pair(ins.srcs[0], consts) is not None
        and _half_pair(ins.srcs[1], consts) is None
    ):
        ins.srcs[0], ins.srcs[1] = ins.srcs[1], ins.srcs[0]
    for k in sorted(allowed):
        if k >= len(ins.srcs):
            continue
        pair = _half_pair(ins.srcs[k], consts)
        if pair is not None:
            ins.srcs[k] = Imm(pair, ImmKind.F16X2)
            return True
    return False


def _other_sources_registers(ins: Instr, k: int, slots: Slots) -> bool:
    """Whether slot ``k`` may take an immediate next to the other sources: an ALU form holds one
    non-register source at most (``IMAD R, R, 0x3, R`` or ``IMAD R, R, R, 0x3``, never both),
    unless the table has forms with several (``SHFL``'s lane and clamp)."""
    if slots.multi_imm:
        return True
    for j in slots.imm | slots.ur | slots.cbank:
        if j == k or j >= len(ins.srcs):
            continue
        s = ins.srcs[j]
        if isinstance(s, Imm | CBank) or (isinstance(s, VReg | Part) and reg_class(s) == RC.UR):
            return False
    return True


def _constant_parts(sites: dict[int, list[Instr]]) -> dict[tuple[int, int], int]:
    """Words of wide registers (halves of 64-bit values) written once, by an unguarded move of
    an immediate, and by nothing else: (register id, word) -> value."""
    out: dict[tuple[int, int], int] = {}
    for vid, ins_list in sites.items():
        for k, ws in word_writes(vid, ins_list).items():
            if len(ws) != 1:
                continue
            ins = ws[0]
            d = ins.dsts[0] if len(ins.dsts) == 1 else None
            if (
                ins.op == "MOV"
                and not ins.mods
                and ins.guard is None
                and isinstance(d, Part)
                and d.n == 1
                and d.v.rc == RC.R
            ):
                v = _imm_bits(ins.srcs[0])
                if v is not None:
                    out[(vid, k)] = v
    return out
