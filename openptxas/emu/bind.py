"""Binding: each instruction is turned once into a handler closure over the machine's arrays.

A binder (one per opcode, registered by the ``ops_*`` modules) receives a :class:`Ctx` and returns
a :class:`Bound`: the function that executes the instruction for a lane selection, and how the
engine drives it (fall-through, uniform datapath, or its own control flow).

Operand readers return a numpy array aligned with the selection or a numpy scalar (immediates,
constant-bank values, zero registers); handlers combine them by broadcasting.

Register rows: R0-R254 are rows 0-254 and RZ row 255 (always zero, writes dropped); UR0-UR79 are
rows 256-335 (sm_90 and before have UR0-UR62; Blackwell 80) and URZ row 336. Predicate rows:
P0-P6, PT = 7 (always true), UP0-UP6 = 8-14, UPT = 15.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from openptxas.emu.errors import KernelFault, Unsupported
from openptxas.emu.lanes import Sel
from openptxas.emu.model import CBank, Imm, ImmKind, Instruction, Mem, Operand, Reg, RegFile

if TYPE_CHECKING:
    from openptxas.emu.machine import Machine

NDArray = np.ndarray[Any, Any]
Value = Any  # an array aligned with the selection, or a numpy scalar
Reader = Callable[[Sel], Value]
Writer = Callable[[Sel, Value], None]

U32 = np.uint32
U64 = np.uint64
UR_BASE = 256
UR_COUNT = 80  # the largest uniform register file (Blackwell's; URZ is UR255 in the model)
RZ_ROW = 255
URZ_ROW = UR_BASE + UR_COUNT
NROWS = URZ_ROW + 1
UP_BASE = 8
PRED_BASE = NROWS  # predicate rows in the hazard checker's row space: PRED_BASE + pred_row
F32_SIGN = U32(0x80000000)
F32_ABS = U32(0x7FFFFFFF)
F64_SIGN = U64(1 << 63)
F64_ABS = U64((1 << 63) - 1)


class Kind(Enum):
    SIMPLE = 1  # executes, then every lane falls through to pc + 16
    UNIFORM = 2  # like SIMPLE, on every lane of the warps involved (uniform datapath)
    CONTROL = 3  # the handler schedules the lanes itself: fn(sel, nwarps)


@dataclass(frozen=True, slots=True)
class Bound:
    fn: Callable[..., None]
    kind: Kind = Kind.SIMPLE
    guarded_inside: bool = False  # CONTROL handlers that evaluate the guard themselves


def uniform_twin(binder: Callable[[Ctx], Bound]) -> Callable[[Ctx], Bound]:
    """The binder of an opcode's uniform-datapath twin (sm_120's UFMUL of FMUL, UI2F of I2F):
    the same semantics on uniform registers, run for every lane of the warps involved."""

    def bind(ctx: Ctx) -> Bound:
        b = binder(ctx)
        return replace(b, kind=Kind.UNIFORM) if b.kind is Kind.SIMPLE else b

    return bind


def reg_row(r: Reg) -> int:
    if r.file is RegFile.R:
        return r.index
    if r.file is RegFile.UR:
        return URZ_ROW if r.index == 255 else UR_BASE + r.index
    raise ValueError(f"not a data register: {r}")


def pred_row(r: Reg) -> int:
    if r.file is RegFile.P:
        return r.index
    if r.file is RegFile.UP:
        return UP_BASE + r.index
    raise ValueError(f"not a predicate: {r}")


def is_zero_row(row: int) -> bool:
    return row in (RZ_ROW, URZ_ROW)


class Ctx:
    """What a binder sees: the machine, the instruction and its address."""

    def __init__(self, m: Machine, ins: Instruction, pc: int) -> None:
        self.m = m
        self.ins = ins
        self.pc = pc
        self.ops = ins.operands
        # Register accesses the handler makes (for the hazard checker): rows as in reg_row /
        # PRED_BASE + pred_row, with counts (register pairs, vectors) and the reading role.
        self.reads: list[tuple[int, int, str]] = []
        self.writes: list[tuple[int, int]] = []
        self.role = "data"

    def read(self, row: int, n: int = 1, role: str | None = None) -> None:
        if not is_zero_row(row) and row not in (PRED_BASE + 7, PRED_BASE + 15):
            self.reads.append((row, n, role or self.role))

    def write(self, row: int, n: int = 1) -> None:
        if not is_zero_row(row) and row not in (PRED_BASE + 7, PRED_BASE + 15):
            self.writes.append((row, n))

    def has_mod(self, mod: str) -> bool:
        return mod in self.ins.mods

    # -- errors ---------------------------------------------------------------------------
    def unsupported(self, what: str = "") -> Unsupported:
        return Unsupported(what or f"instruction {self.ins.mnemonic}", self.pc, str(self.ins))

    def fault(self, msg: str) -> KernelFault:
        return KernelFault(msg, self.pc, str(self.ins))

    # -- operand classification -----------------------------------------------------------
    def split(
        self, pred_then_dst: bool = False
    ) -> tuple[list[Operand], list[Reg], list[Operand], list[Reg]]:
        """(data destinations, predicate destinations, data sources, predicate sources) for the
        common ``OP Rd, [Pd...], srcs..., [Ps...]`` shape, by operand kind: leading data
        register(s), then predicates, then sources, then trailing predicates. Works for the
        printed operand list and for the full one (hidden ``PT``/``!PT`` included)."""
        ops = list(self.ops)
        i = 0
        dsts: list[Operand] = []
        pdst: list[Reg] = []
        if i < len(ops) and isinstance(ops[i], Reg) and not ops[i].is_pred:  # type: ignore[union-attr]
            dsts.append(ops[i])
            i += 1
        while i < len(ops) and isinstance(ops[i], Reg) and ops[i].is_pred:  # type: ignore[union-attr]
            pdst.append(ops[i])  # type: ignore[arg-type]
            i += 1
        if (
            pred_then_dst
            and not dsts
            and i < len(ops)
            and isinstance(ops[i], Reg)
            and not ops[i].is_pred  # type: ignore[union-attr]
        ):
            dsts.append(ops[i])  # LOP3.LUT P0, R5, ...: predicate first
            i += 1
        srcs: list[Operand] = []
        while i < len(ops) and not (isinstance(ops[i], Reg) and ops[i].is_pred):  # type: ignore[union-attr]
            srcs.append(ops[i])
            i += 1
        psrc: list[Reg] = []
        while i < len(ops):
            o = ops[i]
            if isinstance(o, Reg) and o.is_pred:
                psrc.append(o)
            else:
                srcs.append(o)  # an immediate after the predicates (rare forms)
            i += 1
        return dsts, pdst, srcs, psrc

    # -- readers ---------------------------------------------------------------------------
    def const(self, op: CBank, width: int = 4) -> Reader:
        """A constant-bank operand (32 or 64 bits)."""
        m = self.m
        bank = m.cbank(op.bank) if op.ubank is None else None
        if bank is None:
            raise self.unsupported("bindless constant bank operands")
        off = op.offset
        if op.reg is None or op.reg.is_zero:
            # the 16-bit field is printed signed but read as an offset into the 64 KB bank: ptxas
            # writes ULDC c[0x3][-0x4] for the word at 0xfffc
            off &= 0xFFFF
            if off + width > bank.size:
                raise self.fault(f"constant bank {op.bank} read at {off:#x} is out of bounds")
            raw = int.from_bytes(bank[off : off + width].tobytes(), "little")
            val: Value = U64(raw) if width == 8 else U32(raw)
            return lambda sel: val
        row = reg_row(op.reg)
        self.read(row, 1, "addr")
        R = m.R
        nbank = bank.size
        b32 = bank.view(U32) if bank.size % 4 == 0 else None
        bnum = op.bank
        fault = self.fault

        def rd(sel: Sel) -> Value:
            # 32-bit address arithmetic: Blackwell's per-CGA reads add a negative index
            # (SR_CgaSize * -0xa0) to the offset
            a = (R[row][sel].astype(np.int64) + off) & 0xFFFFFFFF
            if a.size and (a.min() < 0 or a.max() + width > nbank):
                bad = int(a[(a < 0) | (a + width > nbank)][0])
                raise fault(f"constant bank {bnum} read at {bad:#x} is out of bounds")
            if a.size and np.any(a & (min(width, 4) - 1)):
                raise fault("misaligned constant bank read")
            assert b32 is not None
            lo = b32[a >> 2]
            if width == 8:
                hi = b32[(a >> 2) + 1]
                return lo.astype(U64) | (hi.astype(U64) << U64(32))
            return lo

        return rd

    def src(self, op: Operand, fp: bool = False) -> Reader:
        """A 32-bit source. ``fp``: ``-``/``|x|`` act on the sign bit (else integer negate);
        ``~`` is bitwise not."""
        if isinstance(op, Reg):
            if op.is_pred:
                raise self.unsupported(f"predicate {op} as a data operand")
            row = reg_row(op)
            self.read(row)
            if is_zero_row(row):
                v = U32(0)
                if op.not_:
                    v = U32(0xFFFFFFFF)
                if fp and op.neg:
                    v = v ^ F32_SIGN
                elif op.neg:
                    v = U32((-int(v)) & 0xFFFFFFFF)
                return lambda sel: v
            r = self.m.R[row]
            return self._modified(op, lambda sel: r[sel], fp)
        if isinstance(op, Imm):
            if op.kind is ImmKind.F64:
                v = U32((op.value >> 32) & 0xFFFFFFFF)
            else:
                v = U32(op.value & 0xFFFFFFFF)
            return lambda sel: v
        if isinstance(op, CBank):
            return self._modified(op, self.const(op, 4), fp)
        raise self.unsupported(f"operand {op}")

    def plain_constant(self, op: Operand) -> None:
        """Refuse a constant-bank source with modifiers where a form reads it in parts (16-bit
        halves): ``src`` would apply them to the whole word."""
        if isinstance(op, CBank) and (op.neg or op.abs or op.not_):
            raise self.unsupported(f"modifiers on the constant-bank source {op}")

    def _modified(self, op: Reg | CBank, rd: Reader, fp: bool, wide: bool = False) -> Reader:
        """``rd`` with ``op``'s source modifiers applied, on 32 or (``wide``) 64 bits: ``fp``,
        ``-``/``|x|`` act on the sign bit; else integer negate and absolute value; ``~`` is
        bitwise not."""
        neg, absv, notv = op.neg, op.abs, op.not_
        if not (neg or absv or notv):
            return rd
        sign, mag = (F64_SIGN, F64_ABS) if wide else (F32_SIGN, F32_ABS)
        if fp:
            if absv and neg:
                return lambda sel: (rd(sel) & mag) | sign
            if absv:
                return lambda sel: rd(sel) & mag
            if neg:
                return lambda sel: rd(sel) ^ sign
        signed, unsigned = (np.int64, U64) if wide else (np.int32, U32)
        if notv and not neg:
            return lambda sel: ~rd(sel)
        if neg and not notv:
            if absv:
                return lambda sel: -np.abs(rd(sel).view(signed)).view(unsigned)
            return lambda sel: -rd(sel)
        if absv:
            return lambda sel: np.abs(rd(sel).view(signed)).view(unsigned)
        raise self.unsupported(f"operand modifiers on {op}")

    def src64(self, op: Operand, fp: bool = False) -> Reader:
        """A 64-bit source: a register pair, a 64-bit constant, or an immediate (f64 bit pattern,
        or a 32-bit integer sign-extended... as the form defines: integers zero-extended)."""
        if isinstance(op, Reg):
            row = reg_row(op)
            self.read(row, 2)
            if is_zero_row(row):
                v = U64(0)
                if fp and op.neg:
                    v = F64_SIGN
                return lambda sel: v
            R = self.m.R
            lo_r, hi_r = R[row], R[row + 1]

            def rd(sel: Sel) -> Value:
                return lo_r[sel].astype(U64) | (hi_r[sel].astype(U64) << U64(32))

            return self._modified(op, rd, fp, wide=True)
        if isinstance(op, Imm):
            if op.kind is ImmKind.F64:
                v64 = U64(op.value & ((1 << 64) - 1))
            elif op.kind is ImmKind.F32:
                f = np.array([op.value & 0xFFFFFFFF], U32).view(np.float32).astype(np.float64)
                v64 = U64(int(f.view(U64)[0]))
            else:
                v64 = U64(op.value & ((1 << 64) - 1))
            return lambda sel: v64
        if isinstance(op, CBank):
            return self._modified(op, self.const(op, 8), fp, wide=True)
        raise self.unsupported(f"64-bit operand {op}")

    def psrc(self, op: Reg) -> Reader:
        """A predicate source (bool array or numpy bool scalar)."""
        row = pred_row(op)
        self.read(PRED_BASE + row, 1, "pred" if self.role == "data" else self.role)
        if row in (7, 15):
            v = np.bool_(not op.not_)
            return lambda sel: v
        p = self.m.P[row]
        if op.not_:
            return lambda sel: ~p[sel]
        # a copy: a lane slice is a view, and an instruction may write this predicate before
        # it uses the value it read (FSETP P0, P1, a, b, P0 sets P1 from the old P0)
        return lambda sel: p[sel].copy()

    # -- writers ---------------------------------------------------------------------------
    def dst(self, op: Operand) -> Writer:
        if not isinstance(op, Reg) or op.is_pred:
            raise self.unsupported(f"destination {op}")
        row = reg_row(op)
        self.write(row)
        if is_zero_row(row):
            return lambda sel, v: None
        r = self.m.R[row]

        def wr(sel: Sel, v: Value) -> None:
            r[sel] = v

        return wr

    def dst64(self, op: Operand) -> Writer:
        if not isinstance(op, Reg) or op.is_pred:
            raise self.unsupported(f"destination {op}")
        row = reg_row(op)
        self.write(row, 2)
        if is_zero_row(row):
            return lambda sel, v: None
        lo, hi = self.m.R[row], self.m.R[row + 1]

        def wr(sel: Sel, v: Value) -> None:
            v = np.asarray(v, dtype=U64)
            lo[sel] = (v & U64(0xFFFFFFFF)).astype(U32)
            hi[sel] = (v >> U64(32)).astype(U32)

        return wr

    def dstn(self, op: Operand, n: int) -> Callable[[Sel, NDArray], None]:
        """``n`` consecutive registers from ``op`` (vector loads): value is ``[n, lanes]``."""
        if not isinstance(op, Reg) or op.is_pred:
            raise self.unsupported(f"destination {op}")
        row = reg_row(op)
        self.write(row, n)
        if is_zero_row(row):
            return lambda sel, v: None
        R = self.m.R
        if row + n > (RZ_ROW if row < UR_BASE else URZ_ROW):
            raise self.unsupported(f"register range {op} x{n}")
        if n == 1:
            r = R[row]

            def w1(sel: Sel, v: NDArray) -> None:
                r[sel] = v[0]

            return w1
        rows = R[row : row + n]

        def wn(sel: Sel, v: NDArray) -> None:
            if isinstance(sel, slice):
                rows[:, :] = v
            else:
                rows[:, sel] = v

        return wn

    def srcn(self, op: Operand, n: int) -> Callable[[Sel], NDArray]:
        """``n`` consecutive registers from ``op`` (vector stores) as ``[n, lanes]``."""
        if not isinstance(op, Reg):
            raise self.unsupported(f"source {op}")
        row = reg_row(op)
        self.read(row, n)
        R = self.m.R
        if is_zero_row(row):
            m = self.m

            def z(sel: Sel) -> NDArray:
                k = m.L if isinstance(sel, slice) else sel.size
                return np.zeros((n, k), dtype=U32)

            return z
        if n == 1:
            r = R[row]
            return lambda sel: r[sel][None, :]
        rows = R[row : row + n]
        return lambda sel: rows[:, sel]

    def pdst(self, op: Reg) -> Writer:
        row = pred_row(op)
        self.write(PRED_BASE + row)
        if row in (7, 15):
            return lambda sel, v: None
        p = self.m.P[row]

        def wr(sel: Sel, v: Value) -> None:
            p[sel] = v

        return wr

    def mem(self, op: Operand) -> Mem:
        if not isinstance(op, Mem):
            raise self.unsupported(f"memory operand {op}")
        return op


def find_mem(ins: Instruction) -> list[Mem]:
    return [o for o in ins.operands if isinstance(o, Mem)]
