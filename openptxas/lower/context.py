"""Lowering state for one function: PTX names to virtual registers, parameters, shared
variables, blocks, and helpers that emit SASS-level IR instructions.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from openptxas.diag import Span, UnsupportedFeature
from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Addr,
    Block,
    CBank,
    Function,
    Guard,
    Imm,
    ImmKind,
    Instr,
    Operand,
    Part,
    Reg,
    RegLike,
    Src,
    SReg,
    VReg,
)
from openptxas.ir.core import URZ as RZ_U
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace
from openptxas.targets import SMInfo

if TYPE_CHECKING:
    from openptxas.lower.calls import CallState, ParamWords, Sub
    from openptxas.lower.wgmma_rules import WgmmaState


def _call_state() -> CallState:
    from openptxas.lower.calls import CallState

    return CallState()


def width_of(t: PtxType) -> int:
    """32-bit registers a value of type ``t`` occupies."""
    return max(1, (t.size + 3) // 4)


@dataclass
class LowerCtx:
    target: SMInfo
    module: ast.Module
    func: ast.Function
    fn: Function
    reg_types: dict[str, PtxType] = field(default_factory=dict)
    regs: dict[str, VReg] = field(default_factory=dict)
    params: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (offset, size)
    shared: dict[str, int] = field(default_factory=dict)  # name -> offset
    locals: dict[str, int] = field(default_factory=dict)  # .local name -> frame offset
    debug: bool = False  # -g: the kernel's subroutines' registers are recorded (debuginfo)
    # -O0: the few forms ptxas writes differently without optimisation (cvt.f32.f32)
    unoptimized: bool = False
    consts: dict[str, int] = field(default_factory=dict)  # __constant__ name -> bank-3 offset
    globals: dict[str, int] = field(default_factory=dict)  # .global name -> bank-4 slot
    branch_targets: dict[str, tuple[str, ...]] = field(default_factory=dict)  # .branchtargets
    # .param variables held in registers (lower.calls): call sequences', a device function's own
    param_regs: dict[str, ParamWords] = field(default_factory=dict)
    calls: CallState = field(default_factory=lambda: _call_state())
    sub: Sub | None = None  # the subroutine being lowered (None: the kernel)
    frame_params: list[ast.Param] = field(default_factory=list)  # parameters in the frame
    block: Block | None = None
    span: Span | None = None
    _desc: VReg | None = None
    _shared_base: VReg | None = None
    # -c (lower/reldata.py): relocations for shared and constant variables; each shared
    # variable's own base (the window base plus its relocated offset), by name
    relocatable: bool = False
    _shared_syms: dict[str, tuple[VReg, int]] = field(default_factory=dict)
    _label_count: int = 0
    # blocks placed after the function's last block (slow paths: lower/fpseq.py)
    cold_blocks: list[Block] = field(default_factory=list)
    wgmma: WgmmaState | None = None  # the function's wgmmas (lower/wgmma_rules.py)
    # a predicated instruction whose lowering spans blocks guards only its tail: from this
    # (block, index) on (lower/fpdiv.py: a predicated division's copy of the result)
    guard_tail: tuple[Block, int] | None = None
    _reg_consts: dict[str, int] | None = None  # (known_int) registers set once, to a constant
    # (recall/remember) values a lowering computed in this block, for the next lowering of the
    # same value: key -> (block, its first and last instruction, the values). 32-bit division's
    # reciprocal of a divisor (lower/divide.py), mul.hi.64's unsigned high product.
    _memo: dict[tuple[object, ...], tuple[Block, Instr, Instr, tuple[Operand, ...]]] = field(
        default_factory=dict
    )

    # ------------------------------------------------------------------ emission
    def emit(
        self,
        op: str,
        mods: Sequence[str] = (),
        dsts: Sequence[Operand] = (),
        srcs: Sequence[Operand] = (),
        guard: Guard | None = None,
    ) -> Instr:
        assert self.block is not None
        ins = Instr(
            op, tuple(mods), list(dsts), list(srcs), guard, line=self.span.line if self.span else 0
        )
        self.block.instrs.append(ins)
        return ins

    def recall(
        self, key: tuple[object, ...], reads: Sequence[Operand]
    ) -> tuple[Operand, ...] | None:
        """The values ``remember`` recorded under ``key``, when they were computed in this
        block, unguarded (not part of a predicated instruction's lowering), and no register of
        ``reads`` has been written since. ptxas computes one reciprocal per divisor and one
        unsigned high product for mul.hi.s64 and mul.hi.u64 of the same operands."""
        hit = self._memo.get(key)
        if hit is None:
            return None
        blk, first, last, vals = hit
        if blk is not self.block or first.guard is not None or last.guard is not None:
            return None
        at = next((k for k, x in enumerate(blk.instrs) if x is first), None)
        if at is None:
            return None
        ids = {(r.v if isinstance(r, Part) else r).id for r in reads if isinstance(r, VReg | Part)}
        for x in blk.instrs[at:]:
            if x.guard is not None and x.uid <= last.uid:
                return None
            for d in x.def_regs():
                if isinstance(d, VReg | Part) and (d.v if isinstance(d, Part) else d).id in ids:
                    return None
        return vals

    def remember(self, key: tuple[object, ...], start: int, vals: tuple[Operand, ...]) -> None:
        """Record ``vals``, computed by this block's instructions from index ``start`` on."""
        if self.block is not None and len(self.block.instrs) > start:
            code = self.block.instrs
            self._memo[key] = (self.block, code[start], code[-1], vals)

    def new(self, rc: RC = RC.R, width: int = 1) -> VReg:
        return self.fn.new_vreg(rc, width)

    def new_block(self, hint: str = "") -> Block:
        self._label_count += 1
        return Block(f".L_{hint or 'b'}{self._label_count}")

    def unsupported(self, what: str) -> UnsupportedFeature:
        return UnsupportedFeature(f"{what} is not supported by openptxas yet", self.span)

    # ------------------------------------------------------------------ registers
    def reg(self, name: str) -> VReg:
        v = self.regs.get(name)
        if v is None:
            t = self.reg_types.get(name)
            if t is None:
                # ptxas reads a range index as a number: %r01 is %r1 (the same register)
                k = len(name)
                while k > 0 and name[k - 1].isdigit():
                    k -= 1
                if len(name) - k > 1 and name[k] == "0":
                    v = self.reg(name[:k] + str(int(name[k:])))
                    self.regs[name] = v
                    return v
                raise UnsupportedFeature(f"Unknown symbol '{name}'", self.span)
            if t is PtxType.PRED:
                v = self.new(RC.P)
            else:
                v = self.new(RC.R, width_of(t))
            self.regs[name] = v
        return v

    def reg_type(self, name: str) -> PtxType:
        t = self.reg_types.get(name)
        if t is None and name in self.regs:  # %r01, read as %r1
            k = len(name)
            while k > 0 and name[k - 1].isdigit():
                k -= 1
            t = self.reg_types.get(name[:k] + str(int(name[k:])))
        if t is None:
            raise UnsupportedFeature(f"Unknown symbol '{name}'", self.span)
        return t

    @property
    def sp(self) -> Reg:
        """The stack pointer register (the target's ABI)."""
        return Reg(RC.R, self.target.abi.stack_pointer)

    @property
    def shared_window_base(self) -> int:
        """Shared-window address of the first static shared byte (the target's ABI)."""
        return self.target.abi.shared_base

    def desc(self) -> VReg | None:
        """The UR pair holding the global memory descriptor (loaded once at entry); None on a
        target whose global accesses take none (sm_75)."""
        if not self.target.abi.desc_encoded:
            return None
        if self._desc is None:
            self._desc = self.new(RC.UR, 2)
        return self._desc

    @property
    def desc_loaded(self) -> VReg | None:
        return self._desc

    def shared_base(self) -> VReg | None:
        """A UR holding the shared-window address of the first static shared byte:
        ``(SR_CgaCtaId << 24) + shared_base`` on targets whose shared addresses carry the CTA's
        rank in its cluster in bits 24 and up (ptxas computes the same); None where a static
        shared byte's address is its offset (sm_80: ``LDS R9, [0x8]``)."""
        if not self.target.lowering.cluster_shared_window:
            return None
        if self._shared_base is None:
            self._shared_base = self.new(RC.UR)
        return self._shared_base

    def prologue(self) -> list[Instr]:
        """Instructions for the entry block, after the stack-pointer load."""
        out: list[Instr] = []
        if self._desc is not None:
            out.append(
                Instr("ULDC", ("64",), [self._desc], [CBank(0, self.target.abi.cb_global_desc)])
            )
        if self._shared_base is not None:
            rank = self.new(RC.UR)
            base = self.new(RC.UR)
            out.append(Instr("S2UR", (), [rank], [SReg("SR_CgaCtaId")]))
            out.append(Instr("UMOV", (), [base], [Imm(self.shared_window_base)]))
            out.append(Instr("ULEA", (), [self._shared_base], [rank, base, Imm(0x18)]))
        for v, slot in self._shared_syms.values():
            if self._shared_base is None:  # the variable's address is its offset
                out.append(Instr("ULDC", (), [v], [CBank(4, slot)]))
                continue
            off = self.new(RC.UR)
            out.append(Instr("ULDC", (), [off], [CBank(4, slot)]))  # lower/reldata.py
            out.append(Instr("UIADD3", (), [v], [self._shared_base, off, RZ_U]))
        return out

    def shared_ubase(self, name: str) -> VReg | None:
        """The UR that shared variable ``name``'s offsets (``shared[name]`` less the window
        base) are relative to: the first static shared byte's address (None: address 0), or
        with ``-c`` the variable's own address (its offset is the linker's:
        lower/reldata.py)."""
        base = self.shared_base()
        if not self.relocatable:
            return base
        got = self._shared_syms.get(name)
        if got is None:
            from openptxas.lower.reldata import symbol_for

            sym = symbol_for(self.module, self.func.name, name)
            if sym is None:
                raise self.unsupported(f"shared variable '{name}' under -c")
            got = (self.new(RC.UR), sym.slot)
            self._shared_syms[name] = got
        return got[0]

    def shared_addr(self, dst: VReg | Part, offset: int, name: str | None = None) -> None:
        """``dst = `` the shared-window address of static shared offset ``offset`` (in
        variable ``name``: ``-c`` relocates it)."""
        base = self.shared_base() if name is None else self.shared_ubase(name)
        if base is None:
            self.emit("MOV", (), [dst], [Imm(offset & 0xFFFFFFFF)])
            return
        if offset == self.shared_window_base:
            self.emit("MOV", (), [dst], [base])
            return
        u = self.new(RC.UR)
        self.emit(
            "UIADD3", (), [u], [base, Imm((offset - self.shared_window_base) & 0xFFFFFFFF), RZ_U]
        )
        self.emit("MOV", (), [dst], [u])

    # ------------------------------------------------------------------ operands
    def value(self, op: ast.Operand, t: PtxType, *, allow_imm: bool = True) -> Operand:
        """A source operand of type ``t``: a register, or an immediate when allowed."""
        if isinstance(op, ast.Reg):
            return self.reg_part(op)
        if isinstance(op, ast.IntImm | ast.FloatImm) and t is PtxType.PRED:
            return PT if imm_bits(op, PtxType.U32) else Src(PT, inv=True)
        if isinstance(op, ast.IntImm | ast.FloatImm):
            bits = imm_bits(op, t)
            if allow_imm and width_of(t) == 1:
                return imm_operand(bits, t)
            return self.materialize(bits, t)
        if isinstance(op, ast.Not):
            inner = self.value(op.operand, t, allow_imm=allow_imm)
            if isinstance(inner, VReg | Part | Reg):
                return Src(inner, inv=True)
        if isinstance(op, ast.SpecialReg):
            return self.special(op)
        raise self.unsupported(f"operand {op!r}")

    def known_int(self, op: ast.Operand, t: PtxType) -> int | None:
        """The bits of an integer operand known now: an immediate, or a register the function
        writes once, with ``mov`` of an immediate (nvcc's ``mov.u64 %rd8, -1; mul.hi.s64 %rd9,
        %rd7, %rd8``: ptxas folds the constant into the multiply). Reading such a register
        before its write reads an undefined value, which the constant may stand for."""
        if isinstance(op, ast.IntImm):
            return imm_bits(op, t)
        if not isinstance(op, ast.Reg) or op.comp:
            return None
        if self._reg_consts is None:
            self._reg_consts = _single_constant_regs(self.func)
        v = self._reg_consts.get(op.name)
        return None if v is None else v & ((1 << (8 * max(t.size, 4))) - 1)

    def reg_part(self, op: ast.Reg) -> VReg | Part:
        v = self.reg(op.name)
        if op.comp:
            raise self.unsupported(f"register component '.{op.comp}'")
        return v

    def rvalue(self, op: ast.Operand, t: PtxType) -> RegLike:
        """A source that must be a register (immediates are moved into one)."""
        v = self.value(op, t, allow_imm=False)
        assert isinstance(v, VReg | Part | Reg)
        return v

    def dst(self, op: ast.Operand) -> VReg:
        if isinstance(op, ast.Reg) and not op.comp:
            return self.reg(op.name)
        if isinstance(op, ast.Sink):
            return self.new(RC.R)
        raise self.unsupported(f"destination {op!r}")

    def materialize(self, bits: int, t: PtxType) -> VReg | Reg:
        """A register holding constant ``bits`` of type ``t`` (RZ for a 32-bit zero)."""
        w = width_of(t)
        if w == 1 and bits & 0xFFFFFFFF == 0:
            return RZ
        v = self.new(RC.R, w)
        if w == 1:
            self.emit("MOV", (), [v], [Imm(bits & 0xFFFFFFFF)])
        else:
            for k in range(w):
                self.emit("MOV", (), [v.part(k)], [Imm((bits >> (32 * k)) & 0xFFFFFFFF)])
        return v

    def special(self, op: ast.SpecialReg) -> VReg:
        from openptxas.lower.sreg import special_extra, special_pred

        extra = special_pred(self, op) or special_extra(self, op)
        if extra is not None:
            return extra
        name = op.name
        if name in ("%warpid", "%nwarpid"):
            from openptxas.lower.bit_rules import mov_sreg_special

            return mov_sreg_special(self, name)  # type: ignore[return-value]
        comp = op.comp or "x"
        axis = "xyz".index(comp) if comp in ("x", "y", "z") else 0
        v = self.new(RC.R)
        if comp == "w" and name in ("%tid", "%ntid", "%ctaid", "%nctaid"):
            # ptxas accepts the 4th component and reads it as 0 (its cubin stores RZ; found
            # by scripts/ptx_fuzz.py --full: S2R SR_TID.W has no encoding)
            self.emit("MOV", (), [v], [Imm(0)])
            return v
        if name == "%ntid":
            self.emit("LDC", (), [v], [CBank(0, self.target.abi.cb_ntid[axis])])
        elif name == "%nctaid":
            self.emit("LDC", (), [v], [CBank(0, self.target.abi.cb_nctaid[axis])])
        else:
            sr = self.target.lowering.smid_sreg if name == "%smid" else _SREG.get(name)
            if sr is None:
                raise self.unsupported(f"special register {name}")
            if "{}" in sr:
                sr = sr.format(comp.upper())
            self.emit("S2R", (), [v], [SReg(sr)])
        return v

    def global_address(self, name: str) -> VReg:
        """The 64-bit address of a .global variable: ptxas reads it from constant bank 4,
        which the cubin fills through relocations (``LDC.64 R, c[0x4][slot]``)."""
        v = self.new(RC.R, 2)
        self.emit("LDC", ("64",), [v], [CBank(4, self.globals[name])])
        return v

    def address(self, op: ast.Operand) -> ast.Address:
        if not isinstance(op, ast.Address):
            raise self.unsupported(f"address operand {op!r}")
        return op

    def mem_addr(self, a: ast.Address, space: StateSpace | None) -> Addr:
        """An IR address for a global/generic (64-bit) or shared/local (32-bit) access."""
        base = a.base
        off = a.offset
        if isinstance(base, ast.Sym):
            if base.name in self.shared and space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
                rel = self.shared[base.name] - self.shared_window_base + base.offset + off
                ubase = self.shared_ubase(base.name)
                return Addr(None, rel) if ubase is None else Addr(None, rel, ubase=ubase)
            if base.name in self.locals and space is StateSpace.LOCAL:
                return Addr(self.sp, self.locals[base.name] + base.offset + off)
            if base.name in self.globals and space in (StateSpace.GLOBAL, None):
                ptr = self.global_address(base.name)
                return Addr(ptr, base.offset + off, desc=self.desc(), wide=True)
            raise self.unsupported(f"direct access to variable '{base.name}'")
        if base is None:
            raise self.unsupported("absolute address")
        r = self.reg_part(base)
        # an offset wider than the instruction's signed 24-bit field: ptxas adds its high part
        # (a multiple of 2^24, rounded to nearest) to the base first (IADD3 R0, R0, 0x1000000,
        # RZ; LDS R5, [R0+-0x8da00]; found by scripts/ptx_fuzz.py --full: an InternalError)
        hi = 0 if -(1 << 23) <= off < (1 << 23) else (off + (1 << 23)) & ~0xFFFFFF
        if space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
            if hi:
                moved = self.new(RC.R)
                self.emit("IADD3", (), [moved], [r, Imm(hi & 0xFFFFFFFF), RZ])
                return Addr(moved, off - hi)
            return Addr(r, off)
        if space is StateSpace.LOCAL:
            # a local address is 32 bits; PTX keeps it in a 64-bit register (high word 0)
            return Addr(r.part(0) if isinstance(r, VReg) and r.width == 2 else r, off)
        if space in (StateSpace.GLOBAL, None):
            if not isinstance(r, VReg) or r.width != 2:
                raise self.unsupported("32-bit generic address")
            if hi:
                if not -(1 << 31) <= hi < (1 << 31):
                    raise self.unsupported(f"address offset {off:#x}")
                wide, carry = self.new(RC.R, 2), self.new(RC.P)
                self.emit("IADD3", (), [wide.part(0), carry], [r.part(0), Imm(hi & 0xFFFFFFFF), RZ])
                hi_word = Imm(0xFFFFFFFF) if hi < 0 else RZ
                self.emit(
                    "IADD3",
                    ("X",),
                    [wide.part(1)],
                    [hi_word, r.part(1), RZ, carry, Src(PT, inv=True)],
                )
                return Addr(wide, off - hi, desc=self.desc(), wide=True)
            return Addr(r, off, desc=self.desc(), wide=True)
        raise self.unsupported(f"{space} memory access")


_SREG = {
    "%tid": "SR_TID.{}",
    "%ctaid": "SR_CTAID.{}",
    "%laneid": "SR_LANEID",
    "%lanemask_eq": "SR_EQMASK",
    "%lanemask_lt": "SR_LTMASK",
    "%lanemask_le": "SR_LEMASK",
    "%lanemask_gt": "SR_GTMASK",
    "%lanemask_ge": "SR_GEMASK",
    "%clock": "SR_CLOCKLO",
    "%warpid": "SR_VIRTID",
}


def imm_bits(op: ast.IntImm | ast.FloatImm, t: PtxType) -> int:
    """The bit pattern of an immediate as a value of type ``t``."""
    if isinstance(op, ast.IntImm):
        if t in (PtxType.F32,):
            return struct.unpack("<I", struct.pack("<f", float(op.value)))[0]  # type: ignore[no-any-return]
        if t is PtxType.F64:
            return struct.unpack("<Q", struct.pack("<d", float(op.value)))[0]  # type: ignore[no-any-return]
        mask = (1 << (8 * max(t.size, 4))) - 1 if t.size else 0xFFFFFFFF
        return op.value & mask
    if t is PtxType.F32:
        if op.width == 32:
            return op.bits
        return struct.unpack("<I", struct.pack("<f", op.value))[0]  # type: ignore[no-any-return]
    if t is PtxType.F64:
        if op.width == 64:
            return op.bits
        return struct.unpack("<Q", struct.pack("<d", op.value))[0]  # type: ignore[no-any-return]
    return op.bits


def _written(op: ast.Operand) -> Iterator[str]:
    """The register names a destination operand names (vectors, pairs and lists included)."""
    if isinstance(op, ast.Reg):
        yield op.name
    elif isinstance(op, ast.Vector | ast.ArgList):
        for x in op.items:
            yield from _written(x)
    elif isinstance(op, ast.Pair):
        yield from _written(op.first)
        yield from _written(op.second)


def _single_constant_regs(func: ast.Function) -> dict[str, int]:
    """Registers of ``func`` written by exactly one instruction, a ``mov`` of an integer
    immediate (its value, sign-extended as the mov's type has it). Every instruction's first
    operand counts as written (PTX puts destinations first; a store's address only makes this
    more conservative); parameters held in registers are written by the caller."""
    if func.body is None:
        return {}
    writes: dict[str, int] = {}
    value: dict[str, int] = {}
    for ins in func.body.instructions():
        if not ins.operands:
            continue
        for name in _written(ins.operands[0]):
            writes[name] = writes.get(name, 0) + 1
        d = ins.operands[0]
        if (
            ins.opcode == "mov"
            and len(ins.operands) == 2
            and isinstance(d, ast.Reg)
            and not d.comp
            and isinstance(ins.operands[1], ast.IntImm)
            and ins.type is not None
            and ins.type.value[0] in "bus"
            and ins.type.size in (2, 4, 8)
        ):
            value[d.name] = imm_bits(ins.operands[1], ins.type)
    params = {p.name for p in (*func.params, *func.rets)}
    return {n: v for n, v in value.items() if writes.get(n) == 1 and n not in params}


def imm_operand(bits: int, t: PtxType) -> Imm:
    return Imm(bits & 0xFFFFFFFF, ImmKind.F32 if t is PtxType.F32 else ImmKind.INT)


def is_imm(op: ast.Operand) -> bool:
    return isinstance(op, ast.IntImm | ast.FloatImm)


__all__ = ["PT", "RZ", "RZ_U", "LowerCtx", "imm_bits", "is_imm", "width_of"]
