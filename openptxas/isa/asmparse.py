"""nvdisasm's text -> instructions (the assembler's front half).

A line is ``[control] [/*addr*/] instruction [;] [/* comments */]``, e.g.::

    [B------:R-:W0:Y:S02]  /*0040*/  IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;

Labels in the text (``\\`(.L_x_3)``) resolve through ``labels`` (name -> address); a bare number
in a branch is an absolute address, as ``nvdisasm --binary`` prints it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from openptxas.diag import OpenPtxasError
from openptxas.isa.codec import encode_with
from openptxas.isa.control import parse_control
from openptxas.isa.direct import layouts, strip_aliases, wrap32
from openptxas.isa.family import Family
from openptxas.isa.floatfmt import parse_float
from openptxas.isa.model import (
    PT,
    CBank,
    Control,
    GDesc,
    Imm,
    ImmKind,
    Instruction,
    Keyword,
    Label,
    Mem,
    Operand,
    Reg,
    RegFile,
    SReg,
)
from openptxas.isa.printer import (
    default_operand,
    display_mods,
    format_instruction,
    printed_operands,
)
from openptxas.isa.spec import Form, OpKind, OpSpec, RegSpec
from openptxas.isa.syntax import (
    Bracket,
    LabelRef,
    Num,
    SassSyntaxError,
    SynCBank,
    SynInstr,
    SynMem,
    SynOperand,
    parse_line,
)


class SassAsmError(OpenPtxasError):
    """SASS text that no form of the family can represent."""


class _Mismatch(Exception):
    pass


@dataclass(frozen=True, slots=True)
class ParsedLine:
    instruction: Instruction
    addr: int | None  # from a /*0040*/ comment, if any


_CTRL = re.compile(r"^\s*(\[B[^\]]*\])\s*")
_ADDR = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s*")
_XBITS = re.compile(r'\(\*"xbits (0x[0-9a-fA-F]+)"\*\)')


def _num_int(n: SynOperand) -> int:
    if not isinstance(n, Num) or not n.is_int:
        raise _Mismatch
    return n.int_value()


def _reg_of(r: Reg | Num | SynOperand, rs: RegSpec | None) -> Reg:
    if rs is None or not isinstance(r, Reg) or r.file is not rs.file:
        raise _Mismatch
    return r


def _zero(rs: RegSpec) -> Reg:
    index = 7 if rs.file in (RegFile.P, RegFile.UP) else 255
    return Reg(rs.file, rs.const_index if not rs.index else index, sel=rs.const_sel)


def _split_bracket(
    b: Bracket, rs_r: RegSpec | None, rs_u: RegSpec | None
) -> tuple[Reg | None, Reg | None, int]:
    reg: Reg | None = None
    ureg: Reg | None = None
    offset = 0
    seen_num = False
    for t in b.terms:
        if isinstance(t, Num):
            if seen_num:
                raise _Mismatch
            offset, seen_num = t.int_value(), True
        elif (
            rs_u is not None
            and t.file is rs_u.file
            and ureg is None
            and (rs_r is None or t.file is not rs_r.file or reg is not None)
        ):
            ureg = t
        elif rs_r is not None and t.file is rs_r.file and reg is None:
            reg = t
        else:
            raise _Mismatch
    if reg is None and rs_r is not None:
        reg = _zero(rs_r)
    if ureg is None and rs_u is not None:
        ureg = _zero(rs_u)
    return reg, ureg, offset


def _operand(syn: SynOperand, spec: OpSpec, labels: Mapping[str, int] | None) -> Operand:
    k = spec.kind
    if k is OpKind.REG:
        return _reg_of(syn, spec.reg)
    if k is OpKind.IMM:
        if not isinstance(syn, Num) or spec.num is None:
            raise _Mismatch
        if spec.num.kind is ImmKind.INT:
            return Imm(wrap32(_num_int(syn), spec.num))
        if syn.is_int:
            raise _Mismatch
        try:
            return Imm(parse_float(syn.text, spec.num.kind, spec.num.shift), spec.num.kind)
        except ValueError:
            raise _Mismatch from None
    if k is OpKind.LABEL:
        if isinstance(syn, LabelRef):
            if labels is None or syn.name not in labels:
                raise SassAsmError(f"undefined label '{syn.name}'")
            return Label(labels[syn.name])
        return Label(_num_int(syn))
    if k is OpKind.CBANK:
        if not isinstance(syn, SynCBank):
            raise _Mismatch
        ubank_spec, reg_spec = spec.regs
        if isinstance(syn.bank, Reg):
            ubank = _reg_of(syn.bank, ubank_spec)
            bank = spec.const_bank
        else:
            if ubank_spec is not None:
                raise _Mismatch
            ubank, bank = None, syn.bank.int_value()
        reg, _, offset = _split_bracket(syn.addr, reg_spec, None)
        if (syn.neg and spec.neg < 0) or (syn.abs and spec.abs < 0) or (syn.not_ and spec.not_ < 0):
            raise _Mismatch
        return CBank(bank, offset, reg, ubank, syn.neg, syn.abs, syn.not_)
    if k is OpKind.MEM:
        if not isinstance(syn, SynMem):
            raise _Mismatch
        desc_spec, base_spec, ubase_spec = spec.regs
        desc = None
        if syn.desc is not None:
            desc = _reg_of(syn.desc, desc_spec)
        elif desc_spec is not None:
            raise _Mismatch
        base, ubase, offset = _split_bracket(syn.addr, base_spec, ubase_spec)
        return Mem(base, ubase, offset, desc)
    if k is OpKind.SREG:
        if isinstance(syn, Keyword) and syn.name in spec.names:
            return SReg(syn.name)  # a special register without the SR_ prefix (SM_SHADER_TYPE)
        if not isinstance(syn, SReg):
            raise _Mismatch
        return syn
    if k is OpKind.GDESC:
        if not isinstance(syn, GDesc):
            raise _Mismatch
        return syn
    if not isinstance(syn, Keyword):
        raise _Mismatch
    return syn


def _default_operand(spec: OpSpec) -> Operand:
    if not spec.optional:
        raise _Mismatch
    return default_operand(spec)


def match_form(
    form: Form,
    syn: SynInstr,
    fam: Family,
    control: Control,
    addr: int,
    labels: Mapping[str, int] | None,
    xbits: int = 0,
) -> Instruction | None:
    """The instruction ``syn`` denotes under ``form``, or None."""
    if syn.opcode != form.opcode:
        return None
    guard = syn.guard if syn.guard is not None else PT
    found: Instruction | None = None
    for mods, alias in strip_aliases(form, syn.mods):
        for layout in layouts(form):
            if len(layout) != len(syn.operands):
                continue
            try:
                ops: list[Operand] = []
                shown = dict(zip(layout, syn.operands, strict=True))
                for i, spec in enumerate(form.operands):
                    ops.append(
                        _operand(shown[i], spec, labels) if i in shown else _default_operand(spec)
                    )
            except _Mismatch:
                continue
            ins = Instruction(form.opcode, mods, tuple(ops), guard, control, xbits)
            if encode_with(form, ins, fam, addr) is None:
                continue
            if alias is not None and alias not in display_mods(form, ins):
                continue
            if tuple(printed_operands(form, ins)) == layout and display_mods(form, ins) == syn.mods:
                return ins
            found = found or ins
    return found


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text).rstrip(";")


def parse_instruction(
    text: str,
    fam: Family,
    addr: int = 0,
    labels: Mapping[str, int] | None = None,
    control: Control | None = None,
) -> Instruction:
    """Parse one instruction in nvdisasm's syntax (control prefix and address comment allowed)."""
    return parse_line_full(text, fam, addr, labels, control).instruction


def parse_line_full(
    text: str,
    fam: Family,
    addr: int | None = None,
    labels: Mapping[str, int] | None = None,
    control: Control | None = None,
) -> ParsedLine:
    s = text
    m = _CTRL.match(s)
    if m:
        try:
            control = parse_control(m.group(1))
        except ValueError as exc:
            raise SassAsmError(str(exc)) from None
        s = s[m.end() :]
    line_addr: int | None = None
    m = _ADDR.match(s)
    if m:
        line_addr = int(m.group(1), 16)
        s = s[m.end() :]
    at = addr if addr is not None else (line_addr or 0)
    xbits = 0
    m = _XBITS.search(s)
    if m:  # the exact text's bits nvdisasm ignores (printer.format_instruction)
        xbits = int(m.group(1), 16)
    s = re.sub(r'\(\*".*?"\*\)', "", s)  # nvdisasm's (*"BRANCH_TARGETS ..."*) annotation
    try:
        syn = parse_line(s)
    except SassSyntaxError as exc:
        raise SassAsmError(f"{exc.message}: {text.strip()}") from None
    ctl = control or Control()
    first: Instruction | None = None
    for form in fam.forms_for_opcode(syn.opcode):
        ins = match_form(form, syn, fam, ctl, at, labels, xbits)
        if ins is None:
            continue
        if first is None:
            first = ins
        # text that leaves operands out can match several forms ("[0x1]": no base, or RZ with
        # URZ): the one that prints that text again
        if _squeeze(format_instruction(ins, fam, at)) == _squeeze(s):
            return ParsedLine(ins, line_addr)
    if first is not None:
        return ParsedLine(first, line_addr)
    if not fam.forms_for_opcode(syn.opcode):
        raise SassAsmError(f"unknown opcode '{syn.opcode}' for {fam.name}: {text.strip()}")
    raise SassAsmError(f"no {fam.name} form of {syn.opcode} matches: {text.strip()}")
