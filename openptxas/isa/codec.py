"""The generic decoder and encoder: 128-bit words <-> :class:`~openptxas.isa.model.Instruction`.

Both walk the family's :class:`~openptxas.isa.spec.Form` rows; nothing here knows an opcode.
A word decodes with the first form (in table order) whose fixed bits match, whose every set bit
is accounted for, and whose fields all hold valid values; otherwise it is :class:`Unknown`.
An instruction encodes with the first form of its opcode that can represent it exactly.
"""

from __future__ import annotations

import functools

from openptxas.diag import EncodingError
from openptxas.isa.control import REUSE_MASK, decode_control, encode_control
from openptxas.isa.family import Family
from openptxas.isa.model import (
    PT,
    CBank,
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
    Unknown,
)
from openptxas.isa.spec import (
    Form,
    ModField,
    OpKind,
    OpSpec,
    RegSpec,
    bits_width,
    get_bits,
    put_bits,
)

WORD_MASK = (1 << 128) - 1


class _NoMatch(Exception):
    """The form cannot represent the operand/word (internal control flow)."""


# ----------------------------------------------------------------------------------------------
# Decoding


def _dec_reg(rs: RegSpec, word: int, fam: Family) -> Reg:
    if rs.index:
        code = get_bits(word, rs.index)
        if rs.inv:
            code ^= (1 << bits_width(rs.index)) - 1
        index = fam.reg_index(rs.file, code)
    else:
        index = rs.const_index
    if rs.sel:
        v = get_bits(word, rs.sel)
        if v >= len(rs.sel_names) or rs.sel_names[v] == "?":
            raise _NoMatch
        sel = rs.sel_names[v]
    else:
        sel = rs.const_sel
    return Reg(
        rs.file,
        index,
        neg=rs.neg >= 0 and bool(word >> rs.neg & 1),
        abs=rs.abs >= 0 and bool(word >> rs.abs & 1),
        not_=rs.const_not or (rs.not_ >= 0 and bool(word >> rs.not_ & 1)),
        sel=sel,
        reuse=rs.reuse >= 0 and bool(word >> rs.reuse & 1),
    )


def _opt_reg(rs: RegSpec | None, word: int, fam: Family) -> Reg | None:
    return None if rs is None else _dec_reg(rs, word, fam)


def format_list(mask: int) -> str:
    """A bit set as nvdisasm prints it: ``{5,4,0}`` (highest first)."""
    return "{" + ",".join(str(i) for i in reversed(range(mask.bit_length())) if mask >> i & 1) + "}"


def _dec_operand(o: OpSpec, word: int, fam: Family, addr: int) -> Operand:
    k = o.kind
    if k is OpKind.REG:
        assert o.reg is not None
        return _dec_reg(o.reg, word, fam)
    if k is OpKind.IMM:
        assert o.num is not None
        return Imm(o.num.decode(word), o.num.kind)
    if k is OpKind.LABEL:
        assert o.num is not None
        return Label(addr + 16 + o.num.decode(word))
    if k is OpKind.CBANK:
        bank = get_bits(word, o.bank) if o.bank else o.const_bank
        offset = o.num.decode(word) if o.num is not None else 0
        neg = o.neg >= 0 and bool(word >> o.neg & 1)
        abs_ = o.abs >= 0 and bool(word >> o.abs & 1)
        not_ = o.not_ >= 0 and bool(word >> o.not_ & 1)
        reg, ubank = _opt_reg(o.regs[1], word, fam), _opt_reg(o.regs[0], word, fam)
        return CBank(bank, offset, reg, ubank, neg, abs_, not_)
    if k is OpKind.MEM:
        desc, base, ubase = (_opt_reg(r, word, fam) for r in o.regs)
        offset = 0
        if o.num is not None:
            offset = o.num.decode(word)
            if o.num.signed and mem_is_absolute(o, base, ubase):
                offset &= (1 << (bits_width(o.num.bits) + o.num.shift)) - 1
        return Mem(base, ubase, offset, desc)
    if k in (OpKind.SREG, OpKind.KEYWORD):
        v = get_bits(word, o.enum) if o.enum else 0
        if v >= len(o.names) or o.names[v] == "?":
            raise _NoMatch
        if not o.names[v] and not (o.optional and v == o.default):
            raise _NoMatch  # an empty name is only the absent optional keyword
        return SReg(o.names[v]) if k is OpKind.SREG else Keyword(o.names[v])
    if k is OpKind.LIST:
        return Keyword(format_list(get_bits(word, o.enum)))
    if k is OpKind.GDESC:
        assert o.reg is not None
        r = _dec_reg(o.reg, word, fam)
        return GDesc(Reg(r.file, r.index), r.sel)
    raise AssertionError(k)


def _hidden(r: Reg | None, rs: RegSpec | None) -> bool:
    return r is None or rs is None or (r.is_zero and not rs.show_zero)


def mem_is_absolute(o: OpSpec, base: Reg | None, ubase: Reg | None) -> bool:
    """An address with no register printed: nvdisasm shows its offset unsigned (except in
    forms that print it signed anyway, ``abs_signed``: LDSM)."""
    return not o.abs_signed and _hidden(base, o.regs[1]) and _hidden(ubase, o.regs[2])


def decode_with(form: Form, word: int, fam: Family, addr: int = 0) -> Instruction | None:
    """Decode ``word`` with ``form``, or return None if the form does not describe it."""
    if word & form.mask != form.value or word & ~form.covered & WORD_MASK:
        return None
    mods: list[str] = []
    values: list[int] = []
    for mf in form.mods:
        v = get_bits(word, mf.bits)
        toks = mf.tokens.get(v)
        if toks is None or mf.rev[toks] != v:
            return None
        mods.extend(toks)
        values.append(v)
    if form.check_mods and match_mods(form.mods, tuple(mods)) != values:
        return None  # the modifier text would be read back as other field values
    try:
        ops = tuple(_dec_operand(o, word, fam, addr) for o in form.operands)
    except _NoMatch:
        return None
    guard = PT
    if form.guard:
        index, neg = (word >> 12) & 7, bool(word >> 15 & 1)
        if index != 7 or neg:
            guard = Reg(RegFile(form.guard), index, not_=neg)
    xbits = (word ^ form.loose_value) & form.loose
    return Instruction(form.opcode, tuple(mods), ops, guard, decode_control(word), xbits)


def decode_word(word: int, fam: Family, addr: int = 0) -> Instruction | Unknown:
    """Decode one 128-bit instruction word at byte address ``addr``."""
    for form in fam.forms_for_key(word & 0xFFF):
        ins = decode_with(form, word, fam, addr)
        if ins is not None:
            return ins
    return Unknown(word)


def form_of(word: int, fam: Family) -> Form | None:
    """The form that decodes ``word``, if any."""
    for form in fam.forms_for_key(word & 0xFFF):
        if decode_with(form, word, fam) is not None:
            return form
    return None


def decode_code(code: bytes, fam: Family, base: int = 0) -> list[Instruction | Unknown]:
    """Decode a code blob (a ``.text`` section): 16 bytes per instruction."""
    out: list[Instruction | Unknown] = []
    for off in range(0, len(code) - len(code) % 16, 16):
        word = int.from_bytes(code[off : off + 16], "little")
        out.append(decode_word(word, fam, base + off))
    return out


# ----------------------------------------------------------------------------------------------
# Encoding


def _enc_reg(rs: RegSpec, reg: Reg, word: int, fam: Family) -> int:
    if reg.file is not rs.file:
        raise _NoMatch
    if rs.index:
        code = fam.reg_code(reg.file, reg.index)
        width = bits_width(rs.index)
        if code < 0 or code >> width:
            raise _NoMatch
        if rs.inv:
            code ^= (1 << width) - 1
        word = put_bits(word, rs.index, code)
    elif reg.index != rs.const_index:
        raise _NoMatch
    if rs.const_not:
        if not reg.not_:
            raise _NoMatch
        reg = Reg(reg.file, reg.index, reg.neg, reg.abs, False, reg.sel, reg.reuse)
    for bit, flag in ((rs.neg, reg.neg), (rs.abs, reg.abs), (rs.not_, reg.not_)):
        if bit >= 0:
            word |= int(flag) << bit
        elif flag:
            raise _NoMatch
    if rs.reuse >= 0:
        word |= int(reg.reuse) << rs.reuse
    elif reg.reuse:
        raise _NoMatch
    if rs.sel:
        try:
            v = rs.sel_names.index(reg.sel)
        except ValueError:
            raise _NoMatch from None
        word = put_bits(word, rs.sel, v)
    elif reg.sel != rs.const_sel:
        raise _NoMatch
    return word


def _enc_opt_reg(rs: RegSpec | None, reg: Reg | None, word: int, fam: Family) -> int:
    if rs is None:
        if reg is not None:
            raise _NoMatch
        return word
    if reg is None:
        raise _NoMatch
    return _enc_reg(rs, reg, word, fam)


def _enc_num(o: OpSpec, value: int, word: int) -> int:
    num = o.num
    if num is None:
        if value:
            raise _NoMatch
        return word
    if not num.fits(value):
        raise _NoMatch
    return num.encode(word, value)


def parse_list(text: str) -> int:
    if not (text.startswith("{") and text.endswith("}")):
        raise _NoMatch
    mask = 0
    inner = text[1:-1]
    for part in inner.split(",") if inner else ():
        if not part.isdigit():
            raise _NoMatch
        mask |= 1 << int(part)
    return mask


def _enc_operand(o: OpSpec, op: Operand, word: int, fam: Family, addr: int) -> int:
    k = o.kind
    if k is OpKind.REG:
        if not isinstance(op, Reg):
            raise _NoMatch
        assert o.reg is not None
        return _enc_reg(o.reg, op, word, fam)
    if k is OpKind.IMM:
        if not isinstance(op, Imm) or o.num is None or op.kind is not o.num.kind:
            raise _NoMatch
        value = op.value
        if op.kind is not ImmKind.INT and value < 0:
            raise _NoMatch
        return _enc_num(o, value, word)
    if k is OpKind.LABEL:
        if not isinstance(op, Label):
            raise _NoMatch
        return _enc_num(o, op.target - addr - 16, word)
    if k is OpKind.CBANK:
        if not isinstance(op, CBank):
            raise _NoMatch
        if o.bank:
            if op.bank >> bits_width(o.bank) or op.bank < 0:
                raise _NoMatch
            word = put_bits(word, o.bank, op.bank)
        elif op.bank != o.const_bank:
            raise _NoMatch
        for b, flag in ((o.neg, op.neg), (o.abs, op.abs), (o.not_, op.not_)):
            if b >= 0:
                word |= int(flag) << b
            elif flag:
                raise _NoMatch
        word = _enc_num(o, op.offset, word)
        word = _enc_opt_reg(o.regs[0], op.ubank, word, fam)
        return _enc_opt_reg(o.regs[1], op.reg, word, fam)
    if k is OpKind.MEM:
        if not isinstance(op, Mem):
            raise _NoMatch
        offset = op.offset
        num = o.num
        if num is not None and num.signed and mem_is_absolute(o, op.base, op.ubase):
            top = 1 << (bits_width(num.bits) + num.shift - 1)
            if top <= offset < 2 * top:
                offset -= 2 * top  # printed unsigned, stored as the signed field
            elif offset < 0:
                raise _NoMatch
        word = _enc_num(o, offset, word)
        for rs, r in zip(o.regs, (op.desc, op.base, op.ubase), strict=True):
            word = _enc_opt_reg(rs, r, word, fam)
        return word
    if k in (OpKind.SREG, OpKind.KEYWORD):
        if not isinstance(op, SReg if k is OpKind.SREG else Keyword):
            raise _NoMatch
        if o.enum and not op.name:
            # an absent keyword: only an optional one at its default (as decoding reads it)
            if not o.optional or o.default >= len(o.names) or o.names[o.default]:
                raise _NoMatch
            return put_bits(word, o.enum, o.default)
        try:
            v = o.names.index(op.name)
        except ValueError:
            raise _NoMatch from None
        if not o.enum:
            if v:
                raise _NoMatch
            return word
        return put_bits(word, o.enum, v)
    if k is OpKind.LIST:
        if not isinstance(op, Keyword):
            raise _NoMatch
        mask = parse_list(op.name)
        if mask >> bits_width(o.enum):
            raise _NoMatch
        return put_bits(word, o.enum, mask)
    if k is OpKind.GDESC:
        if not isinstance(op, GDesc) or o.reg is None or op.reg != op.reg.plain():
            raise _NoMatch
        return _enc_reg(o.reg, Reg(op.reg.file, op.reg.index, sel=op.sel), word, fam)
    raise AssertionError(k)


def match_mods(fields: tuple[ModField, ...], mods: tuple[str, ...]) -> list[int] | None:
    """Field values whose tokens, concatenated in field order, spell ``mods`` exactly."""
    values = _match_mods(fields, mods)
    return None if values is None else list(values)


@functools.lru_cache(maxsize=1 << 16)
def _match_mods(fields: tuple[ModField, ...], mods: tuple[str, ...]) -> tuple[int, ...] | None:
    reverse = [mf.reverse() for mf in fields]

    def walk(i: int, pos: int) -> list[int] | None:
        if i == len(fields):
            return [] if pos == len(mods) else None
        for toks, v in sorted(reverse[i].items(), key=lambda kv: -len(kv[0])):
            n = len(toks)
            if mods[pos : pos + n] == toks:
                rest = walk(i + 1, pos + n)
                if rest is not None:
                    return [v, *rest]
        return None

    values = walk(0, 0)
    return None if values is None else tuple(values)


def encode_with(form: Form, ins: Instruction, fam: Family, addr: int = 0) -> int | None:
    """Encode ``ins`` with ``form``, or return None if the form cannot represent it."""
    if ins.opcode != form.opcode or len(ins.operands) != len(form.operands):
        return None
    if ins.xbits & ~form.loose:
        return None
    for i, j in form.ties:
        if ins.operands[i] != ins.operands[j]:
            return None
    values = match_mods(form.mods, ins.mods)
    if values is None:
        return None
    word = form.value | (form.loose_value ^ ins.xbits)
    for mf, v in zip(form.mods, values, strict=True):
        word = put_bits(word, mf.bits, v)
    try:
        for o, op in zip(form.operands, ins.operands, strict=True):
            word = _enc_operand(o, op, word, fam, addr)
    except _NoMatch:
        return None
    g = ins.guard
    if form.guard:
        if g != PT and g.file.value != form.guard:
            return None
        word |= (g.index & 7) << 12 | int(g.not_) << 15
    elif g != PT:
        return None
    return word | encode_control(ins.control)


def encode_instruction(ins: Instruction, fam: Family, addr: int = 0) -> int:
    """Encode ``ins`` at byte address ``addr``; raise EncodingError if no form fits."""
    for form in fam.forms_for_opcode(ins.opcode):
        word = encode_with(form, ins, fam, addr)
        if word is not None:
            return word
    if not fam.forms_for_opcode(ins.opcode):
        raise EncodingError(ins.opcode, detail=f"unknown opcode {ins.opcode} in {fam.name}")
    raise EncodingError(ins.opcode, detail=f"no {fam.name} form of {ins.opcode} encodes {ins}")


def encode(item: Instruction | Unknown, fam: Family, addr: int = 0) -> int:
    """Encode an instruction (or pass an Unknown's word through)."""
    if isinstance(item, Unknown):
        return item.word
    return encode_instruction(item, fam, addr)


def reuse_mask(word: int) -> int:
    return (word & REUSE_MASK) >> 122
