"""Operand-reuse flags (control bits 122-125), set on the encoded words of a function.

A register source's reuse flag keeps its value in the operand collector's cache for the slot it
is read in (each form says which flag belongs to which operand: bit 122 slot A, 123 B, 124 C);
the next instruction reading the same register in the same slot takes it from there. As ptxas
13.0 does (``IADD3 R17, R15.reuse, 0x8, RZ`` then ``VIADD R19, R15, 0x10``;
``@!P0 IMAD R15, R23, UR7, R8.reuse`` then ``@!P2 IMAD R19, R17, UR7, R8``), the flag is set on
an instruction whose **next** instruction, in the same block, reads the same general register
in the operand that owns the same reuse bit, when

- neither is a memory, variable-latency or late-reading instruction, a branch or an instruction
  with side effects (they do not read through the ALU collectors ptxas caches);
- the first does not write the register (the cache would hold the old value) and both read the
  register with the same width;
- the first does not yield (nvdisasm does not even list the flags of a yielding instruction);
- the forms have reuse bits for the operands (the ISA table's forms with a uniform-register
  operand have none).

ptxas also reuses across instructions that do not touch the slot (``FFMA R3, R2.reuse, ..``,
``LDC``, ..., ``FFMA R3, R2, ..``); openptxas sets the subset between neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from openptxas.ir.analysis import has_side_effects
from openptxas.ir.core import RC, TERMINATORS, Addr, Function, Instr, Reg, Src
from openptxas.isa import model as isa
from openptxas.isa.codec import decode_with, decode_word
from openptxas.isa.family import Family
from openptxas.isa.spec import OpKind
from openptxas.targets.latency import LatencyModel

REUSE_BITS = (122, 123, 124, 125)


def _eligible(ins: Instr, model: LatencyModel) -> bool:
    if ins.op in TERMINATORS or has_side_effects(ins) or ins.op.startswith("U"):
        return False
    if model.is_variable(ins.op) or model.is_variable(ins.name) or model.is_late_reader(ins.op):
        return False
    return not any(isinstance(s, Addr) for s in ins.srcs)


def _src_widths(ins: Instr) -> dict[int, int]:
    """General-register sources of ``ins``: index -> width (0 where two widths are read)."""
    out: dict[int, int] = {}
    for s in ins.srcs:
        r = s.x if isinstance(s, Src) else s
        if isinstance(r, Reg) and r.rc == RC.R and r.index != 255:
            out[r.index] = r.width if out.get(r.index, r.width) == r.width else 0
    return out


def _writes(ins: Instr, index: int, width: int) -> bool:
    for r in ins.def_regs():
        overlap = index < r.index + r.width if isinstance(r, Reg) else False
        if overlap and isinstance(r, Reg) and r.rc == RC.R and r.index < index + width:
            return True
    return False


def _slots(word: int, fam: Family) -> dict[int, int]:
    """reuse bit -> the general register read by the operand that owns it, in the form of
    ``word``'s that has reuse fields (the table keeps a twin without them, which the encoder
    picks first)."""
    best: dict[int, int] = {}
    for form in fam.forms_for_key(word & 0xFFF):
        dec = decode_with(form, word, fam)
        if dec is None:
            continue
        out: dict[int, int] = {}
        for spec, op in zip(form.operands, dec.operands, strict=False):
            rs = spec.reg
            if spec.kind is not OpKind.REG or rs is None or rs.reuse not in REUSE_BITS:
                continue  # (HMMA.SP's metadata prints .reuse for bit 50: ptxas never sets it)
            if isinstance(op, isa.Reg) and op.file is isa.RegFile.R and op.index != 255:
                out[rs.reuse] = op.index
        if len(out) > len(best):
            best = out
    return best


def _same_but_reuse(old: int, new: int, fam: Family) -> bool:
    """``new`` decodes to ``old``'s instruction, reuse flags aside."""
    a, b = decode_word(old, fam), decode_word(new, fam)
    if not isinstance(a, isa.Instruction) or not isinstance(b, isa.Instruction):
        return False

    def plain(ins: isa.Instruction) -> tuple[object, ...]:
        ops = tuple(replace(o, reuse=False) if isinstance(o, isa.Reg) else o for o in ins.operands)
        return (ins.opcode, ins.mods, ops, ins.guard, ins.control)

    return plain(a) == plain(b)


def set_reuse_flags(fn: Function, words: list[int], fam: Family, model: LatencyModel) -> list[int]:
    """``words`` (the function's body, one per instruction in block order) with reuse flags."""
    out = list(words)
    at = 0
    for b in fn.blocks:
        instrs: Sequence[Instr] = b.instrs
        for k in range(len(instrs) - 1):
            a, c = instrs[k], instrs[k + 1]
            j = at + k
            if not (_eligible(a, model) and _eligible(c, model)):
                continue
            if a.ctrl is None or a.ctrl.yield_:
                continue  # a yielding instruction's flags are not kept (nvdisasm hides them)
            wa, wc = _src_widths(a), _src_widths(c)
            sa, sc = _slots(out[j], fam), _slots(out[j + 1], fam)
            for bit, reg in sa.items():
                if sc.get(bit) != reg:
                    continue
                w = wa.get(reg, 0)
                if not w or wc.get(reg, 0) != w or _writes(a, reg, w):
                    continue
                new = out[j] | 1 << bit
                if _same_but_reuse(out[j], new, fam):
                    out[j] = new
        at += len(instrs)
    return out
