"""Integer, logic and predicate instructions (and their uniform-datapath twins).

Semantics as the hardware computes them (cross-checked with ptxas-compiled kernels; Mesa NAK's
``fold()`` functions state the same rules): IADD3 negation is literal two's complement
(``~x + 1``, which feeds the carry-out), carry-out predicates are ``sum >= 2**32`` and
``sum >= 2**33``; ``.X`` forms add their carry-in predicates; ``ISETP.EX`` takes the low-word
predicate when the high words are equal; ``LOP3``'s predicate output is ``(result != 0) | Pin``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from openptxas.emu.bind import U32, U64, Bound, Ctx, Kind, Reader, Value
from openptxas.emu.lanes import Sel
from openptxas.emu.model import CBank, Imm, Operand, Reg

NDArray = np.ndarray[Any, Any]
M32 = U64(0xFFFFFFFF)
I64 = np.int64


def _kind(ctx: Ctx) -> Kind:
    return Kind.UNIFORM if ctx.ins.opcode.startswith("U") else Kind.SIMPLE


def _packed(mods: tuple[str, ...]) -> bool:
    """A SIMD form (``.16x2``; sm_120's ``.U8x4``): ops_simd's binders take it."""
    return any(m.endswith(("16x2", "8x4")) for m in mods)


def _wide(mods: tuple[str, ...]) -> bool:
    """A 64-bit form on register pairs (sm_120: ``MOV.64``, ``SEL.64``, ``ISETP.GE.U64``,
    ``IMNMX.S64``)."""
    return bool({"64", "S64", "U64"} & set(mods))


def _bool(v: Value) -> Value:
    return np.asarray(v, dtype=bool) if not isinstance(v, np.bool_) else v


def _plain(op: Operand) -> Operand:
    """The operand without its negation flag (IADD3/LEA negate literally themselves; sm_75-sm_89
    negate constant-bank sources too)."""
    if isinstance(op, Reg | CBank) and op.neg:
        return replace(op, neg=False)
    return op


def _imm_neg(op: Operand) -> bool:
    return isinstance(op, Reg | CBank) and op.neg


# -- IADD3 -------------------------------------------------------------------------------------


def bind_iadd3(ctx: Ctx) -> Bound:
    dsts, pdst, srcs, psrc = ctx.split()
    if len(dsts) != 1 or len(srcs) != 3:
        raise ctx.unsupported()
    x = ctx.has_mod("X")
    if ctx.has_mod("64"):
        # UIADD3.64: a 64-bit sum of register pairs (ptxas's 64-bit uniform address arithmetic)
        if x or any(not p.is_zero for p in pdst) or any(not p.is_zero for p in psrc):
            raise ctx.unsupported()
        r64 = [ctx.src64(s) for s in srcs]
        wr64 = ctx.dst64(dsts[0])

        def add64(sel: Sel) -> None:
            a, b, c = (np.asarray(rd(sel), dtype=U64) for rd in r64)
            wr64(sel, a + b + c)

        return Bound(add64, _kind(ctx))
    wr = ctx.dst(dsts[0])
    pw = [ctx.pdst(p) for p in pdst if not p.is_zero]
    pdn = [p for p in pdst if not p.is_zero]
    terms: list[tuple[Reader, bool]] = []
    for s in srcs:
        neg = _imm_neg(s) and not x
        terms.append((ctx.src(_plain(s) if neg else s), neg))
    carries = [ctx.psrc(p) for p in psrc] if x else []
    simple = not pdn and not any(n for _, n in terms) and not carries

    if simple:
        a, b, c = (t[0] for t in terms)

        def fast(sel: Sel) -> None:
            wr(sel, a(sel) + b(sel) + c(sel))

        return Bound(fast, _kind(ctx))
    want0 = len(pdst) > 0 and not pdst[0].is_zero
    want1 = len(pdst) > 1 and not pdst[1].is_zero
    p0 = ctx.pdst(pdst[0]) if want0 else None
    p1 = ctx.pdst(pdst[1]) if want1 else None
    del pw

    def full(sel: Sel) -> None:
        s: Value = U64(0)
        for rd, neg in terms:
            v = np.asarray(rd(sel), dtype=U32).astype(U64)
            if neg:
                v = (~v & M32) + U64(1)
            s = s + v
        for cr in carries:
            s = s + np.asarray(cr(sel), dtype=U64)
        wr(sel, (s & M32).astype(U32))
        if p0 is not None:
            p0(sel, s >= U64(1 << 32))
        if p1 is not None:
            p1(sel, s >= U64(2 << 32))

    return Bound(full, _kind(ctx))


def bind_iadd64(ctx: Ctx) -> Bound:
    """IADD.64[.X] Rd, [Pc,] a, b [, Pin] (sm_120): a 64-bit sum of register pairs, uniform
    pairs, 64-bit constants or sign-extended immediates. As IADD3's: ``-a`` is a + ~b + 1, so
    the carry of a subtraction is its no-borrow flag; ``.X`` adds the carry-in ``Pin``; ``Pc``
    gets the carry out of bit 63 (ptxas's 128-bit sums: ``IADD.64 RZ, P0, R14, R22`` then
    ``IADD.64.X R4, R16, R4, P0``)."""
    dsts, pdst, srcs, psrc = ctx.split()
    if not ctx.has_mod("64") or len(dsts) != 1 or len(srcs) != 2:
        raise ctx.unsupported()
    x = ctx.has_mod("X")
    negs = [_imm_neg(s) and not x for s in srcs]
    rds = [ctx.src64(_plain(s) if n else s) for s, n in zip(srcs, negs, strict=True)]
    carry_in = [ctx.psrc(p) for p in psrc] if x else []
    pc = next((ctx.pdst(p) for p in pdst if not p.is_zero), None)
    wr = ctx.dst64(dsts[0])
    ones = U64(sum(negs))

    def fn(sel: Sel) -> None:
        total: Value = U64(0)
        carry: Value = np.bool_(False)
        extra: Value = ones
        for rd, neg in zip(rds, negs, strict=True):
            v = np.asarray(rd(sel), dtype=U64)
            t = total + (~v if neg else v)
            carry = carry | (t < total)
            total = t
        for cr in carry_in:
            extra = extra + np.asarray(cr(sel), dtype=U64)
        t = total + extra
        carry = carry | (t < total)
        wr(sel, t)
        if pc is not None:
            pc(sel, carry)

    return Bound(fn, _kind(ctx))


# -- IMAD --------------------------------------------------------------------------------------


def bind_imad(ctx: Ctx) -> Bound:
    dsts, pdst, srcs, psrc = ctx.split()
    if len(dsts) != 1 or len(srcs) != 3:
        raise ctx.unsupported()
    mods = set(ctx.ins.mods)
    wide = "WIDE" in mods
    hi = "HI" in mods
    x = "X" in mods
    unsigned = "U32" in mods
    a_r = ctx.src(srcs[0])
    b_r = ctx.src(srcs[1])
    carry = ctx.psrc(psrc[0]) if x and psrc else None
    pouts = [p for p in pdst if not p.is_zero]
    cout = ctx.pdst(pouts[0]) if pouts else None
    if wide:
        c_r = ctx.src64(srcs[2])
        wr64 = ctx.dst64(dsts[0])

        def wide_fn(sel: Sel) -> None:
            a = np.asarray(a_r(sel), dtype=U32)
            b = np.asarray(b_r(sel), dtype=U32)
            if unsigned:
                p = a.astype(U64) * b.astype(U64)
            else:
                p = (a.view(np.int32).astype(I64) * b.view(np.int32).astype(I64)).view(U64)
            r = np.atleast_1d(p + c_r(sel))
            over = r < p
            if carry is not None:
                ci = np.asarray(carry(sel), dtype=U64)
                r2 = r + ci
                over = over | (r2 < r)
                r = r2
            wr64(sel, r)
            if cout is not None:
                cout(sel, over)

        return Bound(wide_fn, _kind(ctx))
    wr = ctx.dst(dsts[0])
    if hi:
        # IMAD.HI: the high word of A*B + C, where C is a 64-bit register pair (ptxas folds an
        # addend into the high word by passing it as C's high register).
        c64 = ctx.src64(srcs[2])

        def hi_fn(sel: Sel) -> None:
            a = np.asarray(a_r(sel), dtype=U32)
            b = np.asarray(b_r(sel), dtype=U32)
            if unsigned:
                p = a.astype(U64) * b.astype(U64)
            else:
                p = (a.view(np.int32).astype(I64) * b.view(np.int32).astype(I64)).view(U64)
            s = np.atleast_1d(p + c64(sel))
            over = s < p
            if carry is not None:
                # the carry-in enters bit 0 of the 64-bit sum (ptxas's mul.hi.u64 chains: the
                # carry of the low words' sum, "IMAD.HI.U32.X R6, R3, -0x1, R6, P0"), so it
                # reaches the high word only through the low word's overflow
                s2 = s + np.asarray(carry(sel), dtype=U64)
                over = over | (s2 < s)
                s = s2
            wr(sel, (s >> U64(32)).astype(U32))
            if cout is not None:
                # "IMAD.HI.U32 R16, P1, R15, R21, R16": the carry out of the 64-bit sum, as the
                # 128-bit products of 64-bit division chain them
                cout(sel, over)

        return Bound(hi_fn, _kind(ctx))
    c_r = ctx.src(srcs[2])
    if carry is not None or cout is not None:

        def x_fn(sel: Sel) -> None:
            lo = (np.asarray(a_r(sel), dtype=U32) * np.asarray(b_r(sel), dtype=U32)).astype(U64)
            tot = lo + np.asarray(c_r(sel), dtype=U32).astype(U64)
            if carry is not None:
                tot = tot + np.asarray(carry(sel), dtype=U64)
            wr(sel, (tot & M32).astype(U32))
            if cout is not None:
                cout(sel, tot >= U64(1 << 32))

        return Bound(x_fn, _kind(ctx))
    # IMAD.MOV / .IADD / .SHL are this form with RZ or 1 or 2**n operands.
    a0, b0 = srcs[0], srcs[1]
    if (isinstance(a0, Reg) and a0.is_zero) or (isinstance(b0, Reg) and b0.is_zero):

        def mov_fn(sel: Sel) -> None:
            wr(sel, c_r(sel))

        return Bound(mov_fn, _kind(ctx))
    if isinstance(b0, Imm) and b0.value == 1:

        def add_fn(sel: Sel) -> None:
            wr(sel, a_r(sel) + c_r(sel))

        return Bound(add_fn, _kind(ctx))

    def mad_fn(sel: Sel) -> None:
        wr(sel, a_r(sel) * b_r(sel) + c_r(sel))

    return Bound(mad_fn, _kind(ctx))


# -- LOP3 / PLOP3 ------------------------------------------------------------------------------

_LUT_FAST: dict[int, Callable[[Value, Value, Value], Value]] = {
    0x00: lambda a, b, c: a ^ a,
    0xFF: lambda a, b, c: ~(a ^ a),
    0xF0: lambda a, b, c: a,
    0xCC: lambda a, b, c: b,
    0xAA: lambda a, b, c: c,
    0x0F: lambda a, b, c: ~a,
    0x33: lambda a, b, c: ~b,
    0x55: lambda a, b, c: ~c,
    0xC0: lambda a, b, c: a & b,
    0xA0: lambda a, b, c: a & c,
    0x88: lambda a, b, c: b & c,
    0xFC: lambda a, b, c: a | b,
    0xFA: lambda a, b, c: a | c,
    0xEE: lambda a, b, c: b | c,
    0x3C: lambda a, b, c: a ^ b,
    0x5A: lambda a, b, c: a ^ c,
    0x66: lambda a, b, c: b ^ c,
    0x96: lambda a, b, c: a ^ b ^ c,
    0x30: lambda a, b, c: a & ~b,
    0x0C: lambda a, b, c: ~a & b,
    0x50: lambda a, b, c: a & ~c,
    0x44: lambda a, b, c: b & ~c,
    0x80: lambda a, b, c: a & b & c,
    0xFE: lambda a, b, c: a | b | c,
    0xF8: lambda a, b, c: a | (b & c),
    0xEA: lambda a, b, c: (a & b) | c,
    0xE0: lambda a, b, c: a & (b | c),
    0xA8: lambda a, b, c: (a | b) & c,
    0xE2: lambda a, b, c: (a & b) | (c & ~b),
    0xB8: lambda a, b, c: (a & ~b) | (c & b),
    0xCA: lambda a, b, c: (a & b) | (c & ~a),
    0xE4: lambda a, b, c: (a & c) | (b & ~c),
    0x3F: lambda a, b, c: ~(a & b),
    0x03: lambda a, b, c: ~(a | b),
    0xC3: lambda a, b, c: ~(a ^ b),
    0x6A: lambda a, b, c: (a & b) ^ c,
    0x78: lambda a, b, c: a ^ (b & c),
    0x1E: lambda a, b, c: a ^ (b | c),
    0xF6: lambda a, b, c: a | (b ^ c),
    0xBE: lambda a, b, c: (a ^ b) | c,
    0x7F: lambda a, b, c: ~(a & b & c),
    0x01: lambda a, b, c: ~(a | b | c),
}


def lut_eval(lut: int, a: Value, b: Value, c: Value) -> Value:
    """Evaluate a 3-input truth table (bit ``4a+2b+c`` of ``lut``) bitwise."""
    f = _LUT_FAST.get(lut & 0xFF)
    if f is not None:
        return f(a, b, c)
    out: Value = None
    for i in range(8):
        if lut >> i & 1:
            t = (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
            out = t if out is None else out | t
    return a ^ a if out is None else out


def bind_lop3(ctx: Ctx) -> Bound:
    dsts, pdst, srcs, psrc = ctx.split(pred_then_dst=True)
    if len(srcs) != 4 or not isinstance(srcs[3], Imm):
        raise ctx.unsupported()
    lut = srcs[3].value & 0xFF
    a_r, b_r, c_r = (ctx.src(s) for s in srcs[:3])
    wr = ctx.dst(dsts[0]) if dsts else (lambda sel, v: None)
    pd = [p for p in pdst if not p.is_zero]
    pw = ctx.pdst(pd[0]) if pd else None
    pin = ctx.psrc(psrc[0]) if psrc and pw is not None else None
    f = _LUT_FAST.get(lut)
    if pw is None and f is not None:

        def fast(sel: Sel) -> None:
            wr(sel, f(a_r(sel), b_r(sel), c_r(sel)))

        return Bound(fast, _kind(ctx))

    def full(sel: Sel) -> None:
        r = lut_eval(lut, a_r(sel), b_r(sel), c_r(sel))
        wr(sel, r)
        if pw is not None:
            p = np.asarray(r) != 0
            if pin is not None:
                p = p | pin(sel)
            pw(sel, p)

    return Bound(full, _kind(ctx))


def _plop3_src(ctx: Ctx, op: Reg) -> Reader:
    """A PLOP3 source: a predicate, or ``Rx.SIGN`` (the sign bit of a general register, as
    ptxas's saturating s32 sums use it)."""
    if op.is_pred:
        return ctx.psrc(op)
    if op.sel != "SIGN" or op.not_ or op.neg or op.abs:
        raise ctx.unsupported(f"PLOP3 source {op}")
    r = ctx.src(Reg(op.file, op.index))
    return lambda sel: (np.asarray(r(sel), dtype=U32) >> U32(31)).astype(bool)


def bind_plop3(ctx: Ctx) -> Bound:
    ops = ctx.ops
    preds = [o for o in ops if isinstance(o, Reg)]
    imms = [o for o in ops if isinstance(o, Imm)]
    if len(preds) != 5 or len(imms) < 1:
        raise ctx.unsupported()
    d0, d1 = ctx.pdst(preds[0]), ctx.pdst(preds[1])
    a_r, b_r, c_r = (_plop3_src(ctx, p) for p in preds[2:5])
    l0 = imms[0].value & 0xFF
    l1 = imms[1].value & 0xFF if len(imms) > 1 else 0

    def fn(sel: Sel) -> None:
        a, b, c = (np.asarray(r(sel), dtype=bool) for r in (a_r, b_r, c_r))
        d0(sel, lut_eval(l0, a, b, c))
        if not preds[1].is_zero:
            d1(sel, lut_eval(l1, a, b, c))

    return Bound(fn, _kind(ctx))


# -- shifts, LEA -------------------------------------------------------------------------------


def _shift64(x: NDArray, s: NDArray, right: bool, signed: bool) -> NDArray:
    """x (uint64) shifted by s (0..64) as uint64 (arithmetic right shift when signed)."""
    s = np.asarray(s, dtype=U64)
    big = s >= U64(64)
    sc = np.minimum(s, U64(63))
    if right:
        if signed:
            r = (x.view(I64) >> sc.astype(I64)).view(U64)
            fill = (x.view(I64) >> I64(63)).view(U64)
        else:
            r = x >> sc
            fill = np.zeros_like(x)
    else:
        r = x << sc
        fill = np.zeros_like(x)
    if np.any(big):
        r = np.where(big, fill, r)
    return np.asarray(r)


def bind_shf(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    if len(srcs) != 3:
        raise ctx.unsupported()
    mods = set(ctx.ins.mods)
    right = "R" in mods
    wrap = "W" in mods
    hi_out = "HI" in mods
    signed = "S32" in mods or "S64" in mods
    bits = 64 if ("U64" in mods or "S64" in mods) else 32
    lo_r, sh_r, hi_r = (ctx.src(s) for s in srcs)
    wr = ctx.dst(dsts[0])
    # Fast paths: 32-bit shifts by an immediate.
    sh_op = srcs[1]
    if isinstance(sh_op, Imm) and bits == 32:
        s = sh_op.value & 0xFFFFFFFF
        s = s & 31 if wrap else min(s, 32)
        lo_zero = isinstance(srcs[0], Reg) and srcs[0].is_zero
        hi_zero = isinstance(srcs[2], Reg) and srcs[2].is_zero
        if not right and not hi_out and hi_zero and s < 32:
            sv = U32(s)
            return Bound(lambda sel: wr(sel, lo_r(sel) << sv), _kind(ctx))
        if right and hi_out and lo_zero and s < 32:
            sv = U32(s)
            if signed:

                def sra(sel: Sel) -> None:
                    wr(sel, (np.asarray(hi_r(sel), U32).view(np.int32) >> np.int32(s)).view(U32))

                return Bound(sra, _kind(ctx))
            return Bound(lambda sel: wr(sel, hi_r(sel) >> sv), _kind(ctx))

    def fn(sel: Sel) -> None:
        lo = np.asarray(lo_r(sel), dtype=U32).astype(U64)
        hi = np.asarray(hi_r(sel), dtype=U32).astype(U64)
        x = np.atleast_1d(lo | (hi << U64(32)))
        s = np.asarray(sh_r(sel), dtype=U32).astype(U64)
        s = s & U64(bits - 1) if wrap else np.minimum(s, U64(bits))
        if bits == 32 and signed and right:
            # S32: the 64-bit value is shifted arithmetically as a whole.
            pass
        # operands may be lane vectors or one value for all lanes (RZ, a constant, a UR) in
        # any combination: a per-lane amount with constant halves widens x too
        x, s = np.broadcast_arrays(x, s)
        r = _shift64(x, s, right, signed)
        out = (r >> U64(32)) if hi_out else r
        wr(sel, (out & M32).astype(U32))

    return Bound(fn, _kind(ctx))


def bind_lea(ctx: Ctx) -> Bound:
    dsts, pdst, srcs, psrc = ctx.split()
    mods = set(ctx.ins.mods)
    hi = "HI" in mods
    x = "X" in mods
    sx = "SX32" in mods
    if not srcs or not isinstance(srcs[-1], Imm):
        raise ctx.unsupported()
    shift = srcs[-1].value & 0x1F
    body = srcs[:-1]
    if hi and not sx:
        if len(body) != 3:
            raise ctx.unsupported()
        a_op, b_op, c_op = body
    else:
        if len(body) != 2:
            raise ctx.unsupported()
        a_op, b_op = body
        c_op = None
    neg_a = _imm_neg(a_op)
    neg_b = _imm_neg(b_op) and not x
    a_r = ctx.src(_plain(a_op) if neg_a else a_op)
    b_r = ctx.src(_plain(b_op) if neg_b else b_op)
    c_r = ctx.src(c_op) if c_op is not None else None
    carry = ctx.psrc(psrc[0]) if x and psrc else None
    wr = ctx.dst(dsts[0])
    pd = [p for p in pdst if not p.is_zero]
    pw = ctx.pdst(pd[0]) if pd else None
    sh = U64(shift)
    if not hi and not neg_a and not neg_b and pw is None and carry is None:
        s32 = U32(shift)
        return Bound(lambda sel: wr(sel, (a_r(sel) << s32) + b_r(sel)), _kind(ctx))

    def fn(sel: Sel) -> None:
        a = np.asarray(a_r(sel), dtype=U32)
        if hi:
            if sx:
                top = (a.view(np.int32) >> np.int32(31)).view(U32).astype(U64)
            else:
                assert c_r is not None
                top = np.asarray(c_r(sel), dtype=U32).astype(U64)
            full = a.astype(U64) | (top << U64(32))
            t = ((full << sh) >> U64(32)) & M32 if shift else top
        else:
            t = (a.astype(U64) << sh) & M32
        s = t.astype(U64)
        if neg_a:
            s = (~s & M32) + U64(1)
        b = np.asarray(b_r(sel), dtype=U32).astype(U64)
        if neg_b:
            b = (~b & M32) + U64(1)
        tot = s + b
        if carry is not None:
            tot = tot + np.asarray(carry(sel), dtype=U64)
        wr(sel, (tot & M32).astype(U32))
        if pw is not None:
            pw(sel, tot >= U64(1 << 32))

    return Bound(fn, _kind(ctx))


# -- compares and selects ----------------------------------------------------------------------

_CMP: dict[str, Callable[[Value, Value], Value]] = {
    "EQ": lambda a, b: a == b,
    "NE": lambda a, b: a != b,
    "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b,
    "GT": lambda a, b: a > b,
    "GE": lambda a, b: a >= b,
    "T": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
    "F": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
}
_BOP: dict[str, Callable[[Value, Value], Value]] = {
    "AND": lambda x, y: x & y,
    "OR": lambda x, y: x | y,
    "XOR": lambda x, y: x ^ y,
}


def combine(bop: str, v: Value, acc: Value) -> Value:
    return _BOP[bop](v, acc)


def bind_isetp(ctx: Ctx) -> Bound:
    _dsts, pdst, srcs, psrc = ctx.split()
    mods = ctx.ins.mods
    cmp = next((m for m in mods if m in _CMP), None)
    bop = next((m for m in mods if m in _BOP), "AND")
    if cmp is None or len(srcs) != 2 or len(pdst) < 1:
        raise ctx.unsupported()
    unsigned = "U32" in mods or "U64" in mods
    wide = _wide(mods)  # ISETP.GE.U64 / .S64 (sm_120): register pairs
    ex = "EX" in mods
    a_r, b_r = (ctx.src64(x) for x in srcs) if wide else (ctx.src(x) for x in srcs)
    acc = ctx.psrc(psrc[0]) if psrc else (lambda sel: np.bool_(True))
    low = ctx.psrc(psrc[1]) if ex and len(psrc) > 1 else None
    d0 = ctx.pdst(pdst[0])
    d1 = ctx.pdst(pdst[1]) if len(pdst) > 1 and not pdst[1].is_zero else None
    f = _CMP[cmp]
    bf = _BOP[bop]
    acc_true = not psrc or (psrc[0].is_zero and not psrc[0].not_)

    def fn(sel: Sel) -> None:
        a = a_r(sel)
        b = b_r(sel)
        if not unsigned:
            ut, st = (U64, np.int64) if wide else (U32, np.int32)
            a = np.asarray(a, dtype=ut).view(st)
            b = np.asarray(b, dtype=ut).view(st)
        c = f(a, b)
        if low is not None:
            c = np.where(np.asarray(a) == np.asarray(b), low(sel), c)
        if acc_true and bop == "AND":
            d0(sel, c)
            if d1 is not None:
                d1(sel, ~np.asarray(c, dtype=bool))
            return
        av = acc(sel)
        d0(sel, bf(c, av))
        if d1 is not None:
            d1(sel, bf(~np.asarray(c, dtype=bool), av))

    return Bound(fn, _kind(ctx))


def bind_sel(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, psrc = ctx.split()
    if len(srcs) != 2 or len(psrc) != 1:
        raise ctx.unsupported()
    fp = ctx.ins.opcode in ("FSEL", "UFSEL")
    wide = _wide(ctx.ins.mods)  # SEL.64 / USEL.64 (sm_120)
    src, dst = (ctx.src64, ctx.dst64) if wide else (ctx.src, ctx.dst)
    a_r, b_r = src(srcs[0], fp=fp), src(srcs[1], fp=fp)
    p_r = ctx.psrc(psrc[0])
    wr = dst(dsts[0])

    def fn(sel: Sel) -> None:
        wr(sel, np.where(p_r(sel), a_r(sel), b_r(sel)))

    return Bound(fn, _kind(ctx))


def bind_mov(ctx: Ctx) -> Bound:
    """MOV Rd, a [, lane mask]; MOV.64 / UMOV.64 (sm_120): a register pair or a 64-bit
    immediate."""
    ops = ctx.ops
    if len(ops) < 2:
        raise ctx.unsupported()
    if _wide(ctx.ins.mods):
        wr64, rd64 = ctx.dst64(ops[0]), ctx.src64(ops[1])
        return Bound(lambda sel: wr64(sel, rd64(sel)), _kind(ctx))
    wr = ctx.dst(ops[0])
    rd = ctx.src(ops[1])
    return Bound(lambda sel: wr(sel, rd(sel)), _kind(ctx))


def bind_mnmx(ctx: Ctx) -> Bound:
    """VIMNMX / IMNMX Rd, a, b, Pmin (PT = min); VIADDMNMX Rd, a, b, c, Pmin: min/max(a+b, c)."""
    if _packed(ctx.ins.mods) or "RELU" in ctx.ins.mods:
        from openptxas.emu.ops_simd import PACKED

        return PACKED["VIMNMX"](ctx)
    if _wide(ctx.ins.mods):
        return _bind_mnmx64(ctx)
    dsts, _pdst, srcs, psrc = ctx.split()
    op = ctx.ins.opcode
    unsigned = "U32" in ctx.ins.mods
    add = op in ("VIADDMNMX", "UVIADDMNMX")
    if len(psrc) != 1 or len(srcs) != (3 if add else 2):
        raise ctx.unsupported()
    rs = [ctx.src(s) for s in srcs]
    pm = ctx.psrc(psrc[0])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        if add:
            a = np.asarray(rs[0](sel) + rs[1](sel), dtype=U32)
            b = np.asarray(rs[2](sel), dtype=U32)
        else:
            a = np.asarray(rs[0](sel), dtype=U32)
            b = np.asarray(rs[1](sel), dtype=U32)
        if not unsigned:
            a, b = a.view(np.int32), b.view(np.int32)
        r = np.where(pm(sel), np.minimum(a, b), np.maximum(a, b))
        wr(sel, np.asarray(r).view(U32) if not unsigned else r)

    return Bound(fn, _kind(ctx))


def _bind_mnmx64(ctx: Ctx) -> Bound:
    """IMNMX.{S64,U64} Pd0, Pd1, Rd, a, b, Pmin, Pq (sm_120; ``PT, PT, ..., !PT`` as ptxas
    writes it): min (Pmin) or max of two register pairs. The predicate outputs and the last
    predicate source are not modelled: only ``PT`` / ``!PT`` are accepted there."""
    dsts, pdst, srcs, psrc = ctx.split(pred_then_dst=True)
    if len(dsts) != 1 or len(srcs) != 2 or len(psrc) not in (1, 2):
        raise ctx.unsupported()
    if any(not p.is_zero for p in pdst) or any(not (p.is_zero and p.not_) for p in psrc[1:]):
        raise ctx.unsupported()
    signed = "S64" in ctx.ins.mods
    a_r, b_r = ctx.src64(srcs[0]), ctx.src64(srcs[1])
    pm = ctx.psrc(psrc[0])
    wr = ctx.dst64(dsts[0])

    def fn(sel: Sel) -> None:
        a, b = np.asarray(a_r(sel), dtype=U64), np.asarray(b_r(sel), dtype=U64)
        if signed:
            a, b = a.view(np.int64), b.view(np.int64)
        r = np.where(pm(sel), np.minimum(a, b), np.maximum(a, b))
        wr(sel, np.asarray(r).view(U64) if signed else r)

    return Bound(fn, _kind(ctx))


def bind_viadd(ctx: Ctx) -> Bound:
    if _packed(ctx.ins.mods):
        from openptxas.emu.ops_simd import PACKED

        return PACKED["VIADD"](ctx)
    dsts, _pdst, srcs, _psrc = ctx.split()
    if len(srcs) != 2:
        raise ctx.unsupported()
    a_r, b_r = ctx.src(srcs[0]), ctx.src(srcs[1])
    wr = ctx.dst(dsts[0])
    return Bound(lambda sel: wr(sel, a_r(sel) + b_r(sel)), _kind(ctx))


def bind_iabs(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    a_r = ctx.src(srcs[0])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        a = np.asarray(a_r(sel), dtype=U32).view(np.int32)
        wr(sel, np.abs(a).view(U32))

    return Bound(fn, _kind(ctx))


# -- bit counting and fields ------------------------------------------------------------------


def _clz32(v: NDArray) -> NDArray:
    v = np.asarray(v, dtype=U32)
    n = np.full(v.shape, 32, dtype=np.int64)
    nz = v != 0
    if nz.any():
        # floor(log2) via float64 is exact for 32-bit integers
        n[nz] = 31 - np.floor(np.log2(v[nz].astype(np.float64))).astype(np.int64)
    return n


def bind_flo(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    signed = "U32" not in ctx.ins.mods  # FLO is signed unless .U32
    sh = "SH" in ctx.ins.mods
    a_r = ctx.src(srcs[0])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        a = np.atleast_1d(np.asarray(a_r(sel), dtype=U32))
        if signed:
            a = np.where(a & U32(0x80000000), ~a, a)
        lz = _clz32(a)
        r = np.where(a == 0, -1, lz if sh else 31 - lz)  # no bit found: 0xffffffff
        wr(sel, (r & 0xFFFFFFFF).astype(U32))

    return Bound(fn, _kind(ctx))


_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=U32)


def popcount32(v: NDArray) -> NDArray:
    v = np.asarray(v, dtype=U32)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(v).astype(U32)  # type: ignore[no-any-return]
    b = v.view(np.uint8).reshape(*v.shape, 4) if v.ndim else v.reshape(1).view(np.uint8)
    return np.asarray(_POP8[b].sum(axis=-1).astype(U32))


def bind_popc(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    a_r = ctx.src(srcs[0])
    wr = ctx.dst(dsts[0])
    return Bound(lambda sel: wr(sel, popcount32(a_r(sel))), _kind(ctx))


_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=U32)


def brev32(v: NDArray) -> NDArray:
    v = np.atleast_1d(np.asarray(v, dtype=U32))
    r: NDArray = (
        (_REV8[v & U32(0xFF)] << U32(24))
        | (_REV8[(v >> U32(8)) & U32(0xFF)] << U32(16))
        | (_REV8[(v >> U32(16)) & U32(0xFF)] << U32(8))
        | _REV8[v >> U32(24)]
    )
    return r


def bind_brev(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    a_r = ctx.src(srcs[0])
    wr = ctx.dst(dsts[0])
    return Bound(lambda sel: wr(sel, brev32(a_r(sel))), _kind(ctx))


def bind_bmsk(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    wrap = "W" in ctx.ins.mods
    p_r, w_r = ctx.src(srcs[0]), ctx.src(srcs[1])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        p = np.asarray(p_r(sel), dtype=U32).astype(U64)
        w = np.asarray(w_r(sel), dtype=U32).astype(U64)
        if wrap:
            p, w = p & U64(31), w & U64(31)
        else:
            p, w = np.minimum(p, U64(32)), np.minimum(w, U64(32))
        m = ((U64(1) << w) - U64(1)) << p
        wr(sel, (m & M32).astype(U32))

    return Bound(fn, _kind(ctx))


def bind_sgxt(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    unsigned = "U32" in ctx.ins.mods
    wrap = "W" in ctx.ins.mods
    a_r, w_r = ctx.src(srcs[0]), ctx.src(srcs[1])
    wr = ctx.dst(dsts[0])

    def fn(sel: Sel) -> None:
        a = np.asarray(a_r(sel), dtype=U32).astype(U64)
        w = np.asarray(w_r(sel), dtype=U32).astype(U64)
        w = w & U64(31) if wrap else np.minimum(w, U64(32))
        mask = (U64(1) << w) - U64(1)
        v = a & mask
        if not unsigned:
            sign = np.where(w > 0, (v >> np.maximum(w, U64(1)) - U64(1)) & U64(1), U64(0))
            v = np.where(sign != 0, v | (~mask & M32), v)
        wr(sel, (v & M32).astype(U32))

    return Bound(fn, _kind(ctx))


# -- PRMT --------------------------------------------------------------------------------------


def bind_prmt(ctx: Ctx) -> Bound:
    dsts, _pdst, srcs, _psrc = ctx.split()
    if len(srcs) != 3:
        raise ctx.unsupported()
    mode = next((m for m in ctx.ins.mods if m in ("F4E", "B4E", "RC8", "ECL", "ECR", "RC16")), "")
    a_r, s_r, b_r = (ctx.src(s) for s in srcs)
    wr = ctx.dst(dsts[0])
    sel_op = srcs[1]
    if mode == "" and isinstance(sel_op, Imm):
        sv = sel_op.value & 0xFFFF
        plan = [((sv >> (4 * i)) & 7, bool((sv >> (4 * i)) & 8)) for i in range(4)]

        def fixed(sel: Sel) -> None:
            a = np.asarray(a_r(sel), dtype=U32)
            b = np.asarray(b_r(sel), dtype=U32)
            out = np.zeros(np.broadcast(a, b).shape, dtype=U32)
            for i, (byte, msb) in enumerate(plan):
                src = a if byte < 4 else b
                v = (src >> U32(8 * (byte & 3))) & U32(0xFF)
                if msb:
                    v = np.where(v & U32(0x80), U32(0xFF), U32(0))
                out |= np.asarray(v, dtype=U32) << U32(8 * i)
            wr(sel, out)

        return Bound(fixed, _kind(ctx))

    def dyn(sel: Sel) -> None:
        a = np.asarray(a_r(sel), dtype=U32).astype(U64)
        b = np.asarray(b_r(sel), dtype=U32).astype(U64)
        s = np.asarray(s_r(sel), dtype=U32)
        x = a | (b << U64(32))
        x, s = np.broadcast_arrays(x, s)
        out = np.zeros(x.shape, dtype=U32)
        for i in range(4):
            if mode == "":
                nib = (s >> U32(4 * i)) & U32(0xF)
                byte = (nib & U32(7)).astype(U64)
                msb = (nib & U32(8)) != 0
            else:
                byte, msb = _prmt_mode_byte(mode, i, s)
            v = ((x >> (U64(8) * byte)) & U64(0xFF)).astype(U32)
            v = np.where(msb, np.where(v & U32(0x80), U32(0xFF), U32(0)), v)
            out |= v << U32(8 * i)
        wr(sel, out)

    return Bound(dyn, _kind(ctx))


def _prmt_mode_byte(mode: str, i: int, s: NDArray) -> tuple[NDArray, NDArray]:
    k = (s & U32(3)).astype(U64)
    no = np.zeros(s.shape, dtype=bool)
    if mode == "F4E":
        return (k + U64(i)) & U64(7), no
    if mode == "B4E":
        return (k + U64(8) - U64(i)) & U64(7), no
    if mode == "RC8":
        return k, no
    if mode == "RC16":
        return (k & U64(1)) * U64(2) + U64(i & 1), no
    if mode == "ECL":
        return np.maximum(k, U64(i)), no
    return np.minimum(k, U64(i)), no  # ECR


# -- predicate <-> register --------------------------------------------------------------------


def _byte_shift(op: object) -> int:
    """The bit position of a byte-selected register operand (``R0.B3``: 24): P2R/R2P move the
    predicates to or from that byte (ptxas packs up to 28 predicates in one register)."""
    sel = getattr(op, "sel", "")
    return {"B1": 8, "B2": 16, "B3": 24}.get(sel, 0)


def bind_p2r(ctx: Ctx) -> Bound:
    """P2R Rd, PR, Ra[.Bk], mask: Rd = (Ra & ~(mask << 8k)) | ((predicates & mask) << 8k)."""
    ops = ctx.ops
    wr = ctx.dst(ops[0])
    a_r = ctx.src(ops[2])
    if not isinstance(ops[3], Imm):
        raise ctx.unsupported()
    mask = ops[3].value & 0xFF
    shift = _byte_shift(ops[2])
    m = ctx.m
    uniform = ctx.ins.opcode.startswith("U")
    base = 8 if uniform else 0

    def fn(sel: Sel) -> None:
        bits = np.zeros(m.L if isinstance(sel, slice) else sel.size, dtype=U32)
        for i in range(7):
            if mask >> i & 1:
                bits |= m.P[base + i][sel].astype(U32) << U32(i + shift)
        a = np.asarray(a_r(sel), dtype=U32)
        wr(sel, (a & U32(~(mask << shift) & 0xFFFFFFFF)) | bits)

    return Bound(fn, _kind(ctx))


def bind_r2p(ctx: Ctx) -> Bound:
    """R2P PR, Ra[.Bk], mask: predicate i = bit 8k + i of Ra where mask bit i is set."""
    ops = ctx.ops
    a_r = ctx.src(ops[1])
    if not isinstance(ops[2], Imm):
        raise ctx.unsupported()
    mask = ops[2].value & 0x7F
    shift = _byte_shift(ops[1])
    m = ctx.m
    base = 8 if ctx.ins.opcode.startswith("U") else 0

    def fn(sel: Sel) -> None:
        a = np.asarray(a_r(sel), dtype=U32)
        for i in range(7):
            if mask >> i & 1:
                m.P[base + i][sel] = (a >> U32(i + shift)) & U32(1) != 0

    return Bound(fn, _kind(ctx))


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "IADD3": bind_iadd3,
    "UIADD3": bind_iadd3,
    "IADD": bind_iadd64,
    "IMAD": bind_imad,
    "UIMAD": bind_imad,
    "LOP3": bind_lop3,
    "ULOP3": bind_lop3,
    "PLOP3": bind_plop3,
    "UPLOP3": bind_plop3,
    "SHF": bind_shf,
    "USHF": bind_shf,
    "LEA": bind_lea,
    "ULEA": bind_lea,
    "ISETP": bind_isetp,
    "UISETP": bind_isetp,
    "SEL": bind_sel,
    "USEL": bind_sel,
    "FSEL": bind_sel,
    "UFSEL": bind_sel,
    "MOV": bind_mov,
    "UMOV": bind_mov,
    "VIMNMX": bind_mnmx,
    "IMNMX": bind_mnmx,
    "UIMNMX": bind_mnmx,
    "UVIMNMX": bind_mnmx,
    "VIADDMNMX": bind_mnmx,
    "VIADD": bind_viadd,
    "UVIADD": bind_viadd,
    "IABS": bind_iabs,
    "FLO": bind_flo,
    "UFLO": bind_flo,
    "POPC": bind_popc,
    "UPOPC": bind_popc,
    "BREV": bind_brev,
    "UBREV": bind_brev,
    "BMSK": bind_bmsk,
    "UBMSK": bind_bmsk,
    "SGXT": bind_sgxt,
    "USGXT": bind_sgxt,
    "PRMT": bind_prmt,
    "UPRMT": bind_prmt,
    "P2R": bind_p2r,
    "UP2UR": bind_p2r,
    "R2P": bind_r2p,
}
