"""Encoding a scheduled, allocated function: IR instructions straight to 128-bit words.

Each IR instruction lists its operands as nvdisasm prints them (``openptxas.ir.core``), so it
maps one-to-one onto the ISA model's printed operands: registers with their operand modifiers,
immediates (a floating-point one keeps its kind, and a floating-point field stores its value),
constant-bank references, addresses, special registers, and block labels resolved to code
addresses. :func:`openptxas.isa.direct.encode_printed` then chooses the form through the ISA
table as the assembler would for the same text, and encodes. After the code come ptxas's end
padding: a ``BRA`` to itself, then ``NOP``s up to a 128-byte boundary.

The listing (``EncodedFunction.text``, for ``-v``/``--dump`` and the tests) is the ISA printer's
text of each encoded word, as nvdisasm prints it, written when first read.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import overload

from openptxas.diag import EncodingError, InternalError
from openptxas.ir.core import (
    RC,
    Addr,
    CBank,
    Control,
    Function,
    Imm,
    ImmKind,
    Instr,
    Label,
    Operand,
    Part,
    Reg,
    RegLike,
    Src,
    SReg,
    VReg,
)
from openptxas.isa import model as isa
from openptxas.isa.codec import decode_word
from openptxas.isa.direct import Assembled, encode_printed
from openptxas.isa.family import Family, load_family
from openptxas.isa.printer import format_instruction
from openptxas.isa.spec import Form, OpKind
from openptxas.targets import SMInfo

INSTR_BYTES = 16
CODE_ALIGN = 128
# Opcodes that end the first block (the frame program's first advance, codegen.frame_program).
_BLOCK_ENDS = frozenset({"BRA", "EXIT", "BRX", "RET", "CALL", "BREAK"})


class Listing(Sequence[str]):
    """A function's listing, one line per instruction as nvdisasm prints it: the ISA printer's
    text of each word, decoded when the line is first read (compiling does not pay for a listing
    nobody reads, nor keep an instruction object per line)."""

    def __init__(
        self, fam: Family, names: Mapping[int, str], words: Sequence[int], notes: Mapping[int, str]
    ) -> None:
        self._fam = fam
        self._names = names  # address -> label
        self._words = words  # the function's words, from address 0
        self._notes = notes  # index -> text before the ";" (BRX's branch targets)
        self._lines: dict[int, str] = {}

    def _line(self, k: int) -> str:
        line = self._lines.get(k)
        if line is None:
            at = INSTR_BYTES * k
            ins = decode_word(self._words[k], self._fam, at)
            if not isinstance(ins, isa.Instruction):
                raise InternalError(f"codegen: the word at {at:#x} does not decode: {ins}")
            line = format_instruction(ins, self._fam, at, self._names)
            if k in self._notes:
                line = f"{line.removesuffix(';').rstrip()} {self._notes[k]} ;"
            self._lines[k] = line
        return line

    @overload
    def __getitem__(self, k: int) -> str: ...
    @overload
    def __getitem__(self, k: slice) -> list[str]: ...
    def __getitem__(self, k: int | slice) -> str | list[str]:
        if isinstance(k, slice):
            return [self._line(i) for i in range(len(self._words))[k]]
        return self._line(range(len(self._words))[k])

    def __len__(self) -> int:
        return len(self._words)


@dataclass
class EncodedFunction:
    name: str
    code: bytes
    exit_offsets: tuple[int, ...]
    text: Sequence[str]  # the listing (a Listing: written when read)
    first_branch: int  # address of the first instruction that ends a block
    branches: tuple[tuple[int, tuple[int, ...]], ...] = ()  # BRX address, target addresses
    const2: bytes | None = None  # jump tables (.nv.constant2.<f>)


_FILE = {RC.R: isa.RegFile.R, RC.UR: isa.RegFile.UR, RC.P: isa.RegFile.P, RC.UP: isa.RegFile.UP}
_FILE[RC.B] = isa.RegFile.B


_GMMA = frozenset({"HGMMA", "IGMMA", "QGMMA"})


class _Unencodable(Exception):
    """An IR operand with no machine form (a virtual register left after allocation)."""


@dataclass(frozen=True, slots=True)
class _Operands:
    """IR operands -> ISA model operands, for one function."""

    urz: int  # the target's URZ index in the IR (63 on sm_90): the model's 255
    addrs: dict[str, int]  # block name -> code address
    desc_printed: bool = True  # Abi.desc_printed: global accesses show desc[UR]
    wide_printed: bool = True  # Abi.wide_printed: a 64-bit address register shows .64

    def reg(self, x: RegLike, src: Src | None = None) -> isa.Reg:
        if not isinstance(x, Reg):
            raise _Unencodable(f"virtual register {x} (not allocated)")
        index = 255 if x.rc is RC.UR and x.index == self.urz else x.index
        if src is None:
            return isa.Reg(_FILE[x.rc], index)
        return isa.Reg(_FILE[x.rc], index, src.neg, src.abs, src.inv, src.sel)

    def operand(self, op: Operand, ins: Instr) -> isa.Operand:
        if ins.op in _GMMA and isinstance(op, Src) and isinstance(op.x, Reg) and op.x.rc is RC.UR:
            # the wgmma descriptor quad: gdesc[UR4][.negA.negB.tnspA.tnspB] (lower/wgmma_rules)
            return isa.GDesc(self.reg(op.x), op.sel)
        if isinstance(op, Reg | VReg | Part):
            return self.reg(op)
        if isinstance(op, Src):
            return self.reg(op.x, op)
        if isinstance(op, Imm):
            if op.kind is ImmKind.F32:
                return isa.Imm(op.value & 0xFFFFFFFF, isa.ImmKind.F32)
            if op.kind is ImmKind.F64:
                return isa.Imm(op.value, isa.ImmKind.F64)
            return isa.Imm(op.value & 0xFFFFFFFF)  # INT (F16X2: _half_pair)
        if isinstance(op, CBank):
            return isa.CBank(op.bank, op.offset, None if op.reg is None else self.reg(op.reg))
        if isinstance(op, Addr):
            if ins.op in ("ATOMG", "ATOM") and "CAS" in ins.mods:
                # ATOM[G].CAS takes its 64-bit address without descriptor or .64: [R8+0x4]
                op = Addr(op.base, op.offset)
            base = None
            if op.base is not None:
                base = self.reg(op.base)
                if op.wide and self.wide_printed:
                    base = isa.Reg(base.file, base.index, sel="64")
            return isa.Mem(
                base,
                None if op.ubase is None else self.reg(op.ubase),
                op.offset,
                None if op.desc is None else self.reg(op.desc),
            )
        if isinstance(op, SReg):
            return isa.SReg(op.name) if op.name.startswith("SR") else isa.Keyword(op.name)
        if isinstance(op, Label):
            if op.block not in self.addrs:
                raise _Unencodable(f"branch to unknown block {op.block}")
            return isa.Label(self.addrs[op.block])
        raise _Unencodable(f"operand {op!r}")


def _hidden_desc(
    explicit: Assembled,
    fam: Family,
    mods: tuple[str, ...],
    ops: tuple[isa.Operand, ...],
    guard: isa.Reg,
    at: int,
) -> int:
    """The word of a global access whose descriptor register is not printed (sm_80: ptxas writes
    ``LDG.E R7, [R6.64]`` after ``ULDC.64 UR6, c[0x0][0x118]``; the form that prints
    ``desc[UR6]`` sets one more bit, which ptxas never does there). The unprinted form is
    encoded from the same operands less the descriptor, then takes the descriptor's register
    field from the printed form's word: in the unprinted form those bits are loose (they do not
    change the text), so the table encodes them with the value nvdisasm's probes left there."""
    plain = tuple(isa.Mem(o.base, o.ubase, o.offset) if isinstance(o, isa.Mem) else o for o in ops)
    a = encode_printed(
        fam, explicit.instruction.opcode, mods, plain, guard, explicit.instruction.control, at
    )
    field = _desc_field(explicit.form)
    if field & ~a.form.loose:
        raise EncodingError(a.instruction.opcode, detail="the descriptor's field is not loose")
    return (a.word & ~field) | (explicit.word & field)


@functools.cache
def _desc_field(form: Form) -> int:
    """The bits of ``form``'s descriptor register field (``desc[UR][...]``'s UR), per form."""
    field = 0
    for spec in form.operands:
        ur = spec.regs[0] if spec.kind is OpKind.MEM and spec.regs else None
        if ur is not None:  # (the descriptor's slot: desc[UR][base+ubase+offset])
            assert ur.file is isa.RegFile.UR
            for lo, width in ur.index:
                field |= ((1 << width) - 1) << lo
    return field


def _half_pair(op: Imm) -> tuple[isa.Operand, isa.Operand]:
    """An f16x2 immediate as the machine form writes it: two f16 operands, the high half
    first (``HMUL2 R9, R0, 1, 0.5`` holds 0x3c003800)."""
    return (
        isa.Imm(op.value >> 16 & 0xFFFF, isa.ImmKind.F16),
        isa.Imm(op.value & 0xFFFF, isa.ImmKind.F16),
    )


def _control(c: Control | None) -> isa.Control:
    c = c or Control()
    return isa.Control(stall=c.stall, yield_=c.yield_, wr=c.wr_sb, rd=c.rd_sb, wait=c.wait)


def encode_function(fn: Function, target: SMInfo) -> EncodedFunction:
    """Encode ``fn``'s instructions (registers allocated, control codes set) for ``target``."""
    fam = load_family(target.family)
    # A block's label is the address of its first instruction.
    addrs: dict[str, int] = {}
    names: dict[int, str] = {}  # address -> label, for the listing
    addr = 0
    for i, b in enumerate(fn.blocks):
        addrs[b.name] = addr
        names.setdefault(addr, f".L_x_{i}")
        addr += INSTR_BYTES * len(b.instrs)
    end = addr
    names.setdefault(end, f".L_x_{len(fn.blocks)}")
    conv = _Operands(target.urz, addrs, target.abi.desc_printed, target.abi.wide_printed)
    words: list[int] = []
    notes: dict[int, str] = {}
    exits: list[int] = []
    first_branch = -1
    branches: list[tuple[int, tuple[int, ...]]] = []
    at = 0
    lepc_at = -1  # the address of the block's LEPC (IADD3 of a return site: lower/extcalls)
    for b in fn.blocks:
        lepc_at = -1
        for ins in b.instrs:
            if ins.op == "BRX":
                labels = [t for t in ins.srcs[1:] if isinstance(t, Label)]
                targets = tuple(_address(addrs, t.block, fn.name) for t in labels)
                branches.append((at, targets))
                notes[len(words)] = f'(*"BRANCH_TARGETS {",".join(names[t] for t in targets)}"*)'
            if ins.op in target.lacks:  # the family's table has it, this SM does not
                raise InternalError(f"codegen: {fn.name}: {ins.op} does not exist on {target.name}")
            if ins.op == "LEPC":
                lepc_at = at
            words.append(_encode(ins, fam, conv, at, fn.name, lepc_at))
            if ins.op == "EXIT":
                exits.append(at)
            if first_branch < 0 and ins.op in _BLOCK_ENDS:
                first_branch = at
            at += INSTR_BYTES
    # End padding: BRA to itself, then NOPs to the 128-byte boundary (stall 0, as ptxas).
    pad = isa.Control(stall=0, yield_=True)
    tail: list[tuple[str, tuple[isa.Operand, ...]]] = [("BRA", (isa.Label(end),))]
    n = len(words) + 1
    while (n * INSTR_BYTES) % CODE_ALIGN:
        tail.append(("NOP", ()))
        n += 1
    for opcode, ops in tail:
        a = encode_printed(fam, opcode, (), ops, isa.PT, pad, at)
        words.append(a.word)
        at += INSTR_BYTES
    code = b"".join(w.to_bytes(16, "little") for w in words)
    const2 = b"".join(
        _address(addrs, t, fn.name).to_bytes(4, "little") for tbl in fn.jump_tables for t in tbl
    )
    text = Listing(fam, names, words, notes)
    return EncodedFunction(
        fn.name, code, tuple(exits), text, first_branch, tuple(branches), const2 or None
    )


def with_reuse_flags(enc: EncodedFunction, fn: Function, target: SMInfo) -> EncodedFunction:
    """``enc`` with operand-reuse flags (``sched.reuse``) on ``fn``'s instructions."""
    from openptxas.sched.reuse import set_reuse_flags

    fam = load_family(target.family)
    n = sum(len(b.instrs) for b in fn.blocks)
    words = [
        int.from_bytes(enc.code[k : k + INSTR_BYTES], "little")
        for k in range(0, len(enc.code), INSTR_BYTES)
    ]
    words[:n] = set_reuse_flags(fn, words[:n], fam, target.latency)
    text = enc.text
    if isinstance(text, Listing):
        text = Listing(fam, text._names, words, text._notes)
    code = b"".join(w.to_bytes(INSTR_BYTES, "little") for w in words)
    return replace(enc, code=code, text=text)


def _address(addrs: Mapping[str, int], block: str, fname: str) -> int:
    """A branch target's (or jump-table entry's) code address."""
    if block not in addrs:
        raise InternalError(f"codegen: {fname}: branch to unknown block {block}")
    return addrs[block]


def _encode(
    ins: Instr, fam: Family, conv: _Operands, at: int, fname: str, lepc_at: int = -1
) -> int:
    """One instruction's word at address ``at`` (``lepc_at``: the address of the LEPC earlier in
    its block, -1: none)."""
    try:
        if ins.op == "IADD3" and any(isinstance(s, Label) for s in ins.srcs):
            # the return address of an external call before sm_90: the LEPC's PC plus the
            # return site's distance from it (lower/extcalls.py)
            if lepc_at < 0:
                raise _Unencodable("a return site's distance with no LEPC before it")
            ops: tuple[isa.Operand, ...] = tuple(
                isa.Imm((conv.addrs[s.block] - lepc_at) & 0xFFFFFFFF)
                if isinstance(s, Label)
                else conv.operand(s, ins)
                for s in (*ins.dsts, *ins.srcs)
            )
        elif ins.op == "BRX":
            # BRX R2 -0x190: the register pair holds the target's offset in the function, the
            # immediate subtracts the address of the next instruction
            ops = (conv.operand(ins.srcs[0], ins), isa.Imm(-(at + INSTR_BYTES)))
        elif ins.op == "CALL" and len(ins.srcs) >= 2 and isinstance(ins.srcs[0], Label):
            # CALL.REL.NOINC `(sub): the return site (the second label) is in the CFG only
            ops = (conv.operand(ins.srcs[0], ins),)
        elif ins.op == "CALL" and len(ins.srcs) >= 2:
            # CALL.REL.NOINC Rf `(kernel): an indirect call, Rf relative to the function's start
            ops = (conv.operand(ins.srcs[0], ins), isa.Label(0))
        elif ins.op == "RET" and "ABS" in ins.mods:
            # RET.ABS.NODEC Rra 0x0: an absolute return address (-c device functions)
            ops = (conv.operand(ins.srcs[0], ins), isa.Imm(0))
        elif ins.op == "RET" and len(ins.srcs) == 2:
            # RET.REL.NODEC Rra `(f): the return address is relative to the function's start
            ops = (conv.operand(ins.srcs[0], ins), isa.Label(0))
        elif ins.op == "WARPGROUP":
            # DEPBAR's register sources only keep wgmma registers allocated (lower/wgmma_rules)
            keep = [o for o in ins.srcs if not isinstance(o, Reg | Part | VReg)]
            ops = tuple(conv.operand(o, ins) for o in keep)
        elif ins.op == "MOV" and len(ins.srcs) == 1 and isinstance(ins.srcs[0], Label):
            # a return address: the code offset of the return site
            ops = (conv.operand(ins.dsts[0], ins), isa.Imm(conv.addrs[ins.srcs[0].block]))
        else:
            ops = tuple(
                x
                for o in (*ins.dsts, *ins.srcs)
                for x in (
                    _half_pair(o)
                    if isinstance(o, Imm) and o.kind is ImmKind.F16X2
                    else (conv.operand(o, ins),)
                )
            )
        guard = isa.PT
        if ins.guard is not None:
            g = conv.reg(ins.guard.pred)
            guard = isa.Reg(g.file, g.index, not_=ins.guard.inv)
    except _Unencodable as exc:
        raise InternalError(f"codegen: {fname}: cannot encode '{ins}' at {at:#x}: {exc}") from None
    mods = tuple(t for m in ins.mods for t in m.split("."))
    try:
        a = encode_printed(fam, ins.op, mods, ops, guard, _control(ins.ctrl), at)
        if not conv.desc_printed and any(isinstance(o, isa.Mem) and o.desc for o in ops):
            return _hidden_desc(a, fam, mods, ops, guard, at)
        return a.word
    except EncodingError as err:  # (not ``exc`` again: mypyc gives a name one type per function)
        raise InternalError(f"codegen: {fname}: cannot encode '{ins}' at {at:#x}: {err}") from None
