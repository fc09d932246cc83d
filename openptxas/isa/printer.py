"""Instructions -> nvdisasm's text.

The text of an instruction is a function of its form (which operands nvdisasm leaves out, alias
modifiers, the blank before ``;``) and its values. ``labels`` maps code addresses to label names
(``.L_x_3``, function names) as in nvdisasm's listing of a cubin; without it, branch targets print
as addresses, as ``nvdisasm --binary`` does.
"""

from __future__ import annotations

from collections.abc import Mapping

from openptxas.diag import EncodingError
from openptxas.isa.codec import encode_with, format_list, match_mods
from openptxas.isa.family import Family
from openptxas.isa.floatfmt import format_float
from openptxas.isa.model import (
    PRED_FILES,
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
    SReg,
)
from openptxas.isa.spec import Alias, Form, OpKind, OpSpec, RegSpec


def hex_signed(v: int) -> str:
    return f"-{-v:#x}" if v < 0 else f"{v:#x}"


def format_reg(reg: Reg, rs: RegSpec | None = None, show_reuse: bool = True) -> str:
    """A register with its operand modifiers, in the form's style (``-|R5.H1|`` or
    ``-|R5|.H1``); ``.reuse`` only when ``show_reuse`` (nvdisasm hides it on yielding
    instructions), except a flag outside the control bits (HMMA.SP's metadata, bit 50), which
    nvdisasm always prints."""
    s = reg.name
    inside = rs is not None and rs.sel_in_abs and reg.abs
    if inside and reg.sel:
        s += "." + reg.sel
    if reg.abs:
        s = f"|{s}|"
    if reg.neg:
        s = "-" + s
    if reg.not_:
        s = ("!" if reg.file in PRED_FILES else "~") + s
    if reg.reuse and (show_reuse or (rs is not None and 0 <= rs.reuse < 105)):
        s += ".reuse"
    if reg.sel and not inside:
        s += "." + reg.sel
    return s


def _inner(
    reg: Reg | None,
    ureg: Reg | None,
    offset: int,
    has_offset: bool,
    rs: RegSpec | None = None,
    us: RegSpec | None = None,
    exact: bool = False,
) -> str:
    def shown(r: Reg, spec: RegSpec | None) -> bool:
        if not r.is_zero or (spec is not None and spec.show_zero):
            return True
        if r is ureg and reg is not None and reg.sel == "U32":
            # a 32-bit base ([R121.U32+URZ+-0x57a839], STAS): nvdisasm shows the zero UR too
            return True
        if spec is None or r.sel == spec.const_sel:
            return False
        # a zero register with a scale (RZ.X4): nvdisasm prints it in addresses that have a
        # uniform-register part ([RZ.X4+URZ+0x10], [RZ.64+0x10]) and hides it in the others
        # ([0x10]); the exact text keeps a selector it would lose
        return exact or (r is reg and us is not None and bool(spec.sel))

    terms: list[str] = []
    if reg is not None and shown(reg, rs):
        terms.append(str(reg))
    if ureg is not None and shown(ureg, us):
        terms.append(str(ureg))
    if offset or (has_offset and not terms and reg is None and ureg is None):
        terms.append(hex_signed(offset))
    if not terms:
        if reg is not None:
            terms.append(str(reg))
        elif ureg is not None:
            terms.append(str(ureg))
        else:
            terms.append("0x0")
    return "[" + "+".join(terms) + "]"


def format_operand(
    op: Operand,
    spec: OpSpec,
    addr: int = 0,
    labels: Mapping[int, str] | None = None,
    show_reuse: bool = True,
    exact: bool = False,
) -> str:
    if isinstance(op, Reg):
        return format_reg(op, spec.reg, show_reuse)
    if isinstance(op, Imm):
        if op.kind is ImmKind.INT:
            return hex_signed(op.value)
        low = spec.num.shift if spec.num is not None else 0
        return format_float(op.value, op.kind, exact, low)
    if isinstance(op, Label):
        if labels is not None and op.target in labels:
            return f"`({labels[op.target]})"
        return hex_signed(op.target)
    if isinstance(op, CBank):
        bank = f"[{op.ubank}]" if op.ubank is not None else f"[{op.bank:#x}]"
        prefix = "cx" if op.ubank is not None else "c"
        text = (
            prefix
            + bank
            + _inner(op.reg, None, op.offset, spec.num is not None, spec.regs[1], None, exact)
        )
        if op.abs:
            text = f"|{text}|"
        return ("-" if op.neg else "") + ("~" if op.not_ else "") + text
    if isinstance(op, Mem):
        desc = f"desc[{op.desc}]" if op.desc is not None else ""
        return desc + _inner(
            op.base, op.ubase, op.offset, spec.num is not None, spec.regs[1], spec.regs[2], exact
        )
    if isinstance(op, SReg | Keyword):
        return op.name
    if isinstance(op, GDesc):
        return f"gdesc[{op.reg}]" + (f".{op.sel}" if op.sel else "")
    raise TypeError(f"not an operand: {op!r}")


def default_operand(spec: OpSpec) -> Operand:
    """The value of an optional operand that nvdisasm leaves out."""
    if spec.kind is OpKind.REG and spec.reg is not None:
        zero = 7 if spec.reg.file.value in ("P", "UP") else 255
        return Reg(spec.reg.file, zero, not_=bool(spec.default & 1))
    if spec.kind is OpKind.IMM and spec.num is not None:
        return Imm(spec.default, spec.num.kind)
    if spec.kind is OpKind.LIST:
        return Keyword(format_list(spec.default))
    if spec.kind is OpKind.KEYWORD:
        return Keyword(spec.names[spec.default] if spec.enum else "")
    raise ValueError(f"operand kind {spec.kind} has no default")


def _is_default(op: Operand, spec: OpSpec) -> bool:
    return op == default_operand(spec)


def omit_table(form: Form, ins: Instruction) -> Mapping[int, int]:
    """The form's table of printed optional operands for the instruction's modifiers."""
    if form.omit_when:
        values = match_mods(form.mods, ins.mods)
        if values is not None:
            for fi, v, table in form.omit_when:
                if values[fi] == v:
                    return table
    return form.omit


def printed_operands(form: Form, ins: Instruction, exact: bool = False) -> list[int]:
    """Indices of the operands nvdisasm prints for ``ins`` (optional defaults left out).

    ``exact``: print every optional operand when nvdisasm's choice is ambiguous (two different
    sets of defaults print alike, as IADD3's single carry-out does)."""
    opt = [i for i, o in enumerate(form.operands) if o.optional]
    if not opt:
        return list(range(len(form.operands)))
    dmask = sum(1 << n for n, i in enumerate(opt) if _is_default(ins.operands[i], form.operands[i]))
    full = (1 << len(opt)) - 1
    omit = omit_table(form, ins)
    shown = omit.get(dmask, full)
    if exact and shown != full:
        # two different printed subsets of the same size read alike (one "P" operand)
        count = bin(shown).count("1")
        alike = {m for d in range(1 << len(opt)) if bin(m := omit.get(d, full)).count("1") == count}
        if len(alike) > 1:
            shown = full
            for n, i in enumerate(opt):
                op = ins.operands[i]
                if isinstance(op, Keyword) and not op.name:
                    shown &= ~(1 << n)  # an absent keyword has no text to show
    hidden = {i for n, i in enumerate(opt) if not shown >> n & 1}
    return [i for i in range(len(form.operands)) if i not in hidden]


def alias_test(op: Operand, test: str) -> bool:
    """Whether operand ``op`` passes an alias test (see :class:`openptxas.isa.spec.Alias`)."""
    is_int = isinstance(op, Imm) and op.kind is ImmKind.INT
    value = op.value if isinstance(op, Imm) else None
    if test == "zero":
        return (isinstance(op, Reg) and op.is_zero) or (is_int and value == 0)
    if test == "notzero":
        return not alias_test(op, "zero")
    name, _, arg = test.partition(":")
    if name == "eq":
        return is_int and value == int(arg, 0)
    if name == "pow2":
        if not is_int or value is None or value <= 0 or value & (value - 1):
            return False
        return bool(int(arg, 0) >> (value.bit_length() - 1) & 1)
    raise ValueError(f"unknown alias test {test}")


def _alias_holds(alias: Alias, ins: Instruction) -> bool:
    return all(alias_test(ins.operands[idx], test) for idx, test in alias.when)


def display_mods(form: Form, ins: Instruction) -> tuple[str, ...]:
    """The modifiers as printed: the instruction's, plus the alias modifiers that apply."""
    mods = list(ins.mods)
    for alias in form.aliases:
        if _alias_holds(alias, ins):
            mods.insert(min(alias.position, len(mods)), alias.token)
            break
    return tuple(mods)


def find_form(ins: Instruction, fam: Family, addr: int = 0) -> Form:
    for form in fam.forms_for_opcode(ins.opcode):
        if encode_with(form, ins, fam, addr) is not None:
            return form
    raise EncodingError(ins.opcode, detail=f"no {fam.name} form of {ins.opcode} matches {ins}")


def format_instruction(
    ins: Instruction,
    fam: Family,
    addr: int = 0,
    labels: Mapping[int, str] | None = None,
    form: Form | None = None,
    exact: bool = False,
) -> str:
    """The instruction as nvdisasm prints it, ``;`` included (``@P0 EXIT ;``).

    ``exact``: write what nvdisasm's text cannot tell apart so that the text identifies the
    encoding (the openptxas assembler reads it back bit-exactly): ``.reuse`` on yielding
    instructions, NaN payloads (``+QNAN(0x7ff00000)``), optional operands whose omission would be
    ambiguous, bits nvdisasm ignores that differ from ptxas's encoding (``(*"xbits 0x..."*)``).
    Without it the text is nvdisasm's, character for character."""
    form = form or find_form(ins, fam, addr)
    text = _format(ins, form, addr, labels, exact, printed_operands(form, ins, exact))
    if exact and len(form.operands) != len(printed_operands(form, ins)):
        # another form may read the shorter text (an operand left out at its default): write
        # every operand when the text does not read back to this encoding
        from openptxas.isa.asmparse import SassAsmError, parse_instruction

        want = encode_with(form, ins, fam, addr)
        names = {v: k for k, v in (labels or {}).items()}
        try:
            back = parse_instruction(text, fam, addr, names, ins.control)
            same = encode_with(find_form(back, fam, addr), back, fam, addr) == want
        except (SassAsmError, EncodingError):
            same = False
        if not same:
            every = [
                i
                for i, op in enumerate(ins.operands)
                if not (isinstance(op, Keyword) and not op.name)  # an absent keyword: no text
            ]
            text = _format(ins, form, addr, labels, exact, every)
    return text


def _format(
    ins: Instruction,
    form: Form,
    addr: int,
    labels: Mapping[int, str] | None,
    exact: bool,
    printed: list[int],
) -> str:
    head = ".".join((ins.opcode, *display_mods(form, ins)))
    if ins.guard != PT:
        head = f"@{'!' if ins.guard.not_ else ''}{ins.guard.name} {head}"
    parts: list[str] = [head]
    first = True
    show_reuse = exact or not ins.control.yield_
    for i in printed:
        spec = form.operands[i]
        sep = " " if first else spec.sep
        parts.append(sep + format_operand(ins.operands[i], spec, addr, labels, show_reuse, exact))
        first = False
    if exact and ins.xbits:
        # bits nvdisasm does not print (the form's loose bits) at other values than ptxas's
        parts.append(f' (*"xbits {ins.xbits:#x}"*)')
    c = ins.control
    tight = form.tight_semicolon(c.stall, c.wait, c.wr, c.rd)
    return "".join(parts) + (";" if tight else " ;")


def text_signature(form: Form, ins: Instruction) -> str:
    """The census-style form of an instruction: mnemonic and printed operand kinds."""
    kinds: list[str] = []
    for i in printed_operands(form, ins):
        op, spec = ins.operands[i], form.operands[i]
        if isinstance(op, Reg):
            kinds.append(op.file.value)
        elif isinstance(op, Imm):
            kinds.append("imm")
        elif isinstance(op, Label):
            kinds.append("label")
        elif isinstance(op, CBank):
            kinds.append("c[]" if op.ubank is None else "cx[]")
        elif isinstance(op, Mem):
            inner = [
                n for n, r in (("R", op.base), ("UR", op.ubase)) if r is not None and not r.is_zero
            ]
            if op.offset:
                inner.append("imm")
            shape = "[" + "+".join(inner or ["imm"]) + "]"
            kinds.append(("desc[UR]" if op.desc is not None else "") + shape)
        elif isinstance(op, SReg):
            kinds.append("SR")
        elif isinstance(op, GDesc):
            kinds.append("gdesc[UR]")
        elif spec.kind is OpKind.LIST:
            kinds.append("list")
        elif isinstance(op, Keyword) and op.name.startswith("SB"):
            kinds.append("SB")
        else:
            kinds.append("kw")
    mnem = ".".join((ins.opcode, *display_mods(form, ins)))
    return f"{mnem} {','.join(kinds)}".strip()


def form_template(form: Form) -> str:
    """A readable summary of a form's operand list, for people building instructions: kinds in
    order, optional ones in brackets with their default (``IADD3 R, [P=PT], [P=PT], R, R, R``)."""
    parts: list[str] = []
    for o in form.operands:
        if o.kind is OpKind.REG and o.reg is not None:
            kind = o.reg.file.value
        elif o.kind is OpKind.IMM and o.num is not None:
            kind = "imm" if o.num.kind is ImmKind.INT else o.num.kind.value
        elif o.kind is OpKind.MEM:
            kind = (
                "["
                + "+".join(
                    n for n, r in zip(("desc", "R", "UR"), o.regs, strict=True) if r is not None
                )
                + ("+imm" if o.num is not None else "")
                + "]"
            )
        else:
            kind = o.kind.value
        if o.optional:
            dflt = default_operand(o)
            kind = f"[{kind}={format_operand(dflt, o)}]"
        parts.append(kind)
    return f"{form.opcode} " + ", ".join(parts)
