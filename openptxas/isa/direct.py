"""Instructions from typed operands: form selection without text (the compiler's encoder).

A compiler knows each instruction as nvdisasm would print it (opcode, the printed modifiers and
the printed operands), but as values, not text. :func:`assemble` finds the form that represents
it exactly as the assembler (:mod:`openptxas.isa.asmparse`) would find it for its text, and builds
the full :class:`~openptxas.isa.model.Instruction` (every operand of the form, defaults put back,
alias modifiers taken out); :func:`encode_printed` also returns the 128-bit word.

Printed operands are model operands in the meaning the text would have:

* ``Reg`` as printed (``RZ``/``URZ`` index 255, ``PT``/``UPT`` index 7), operand modifiers
  included;
* ``Imm`` of kind INT: the integer as written (``0xffffffff`` or ``-0x1``); a field stores it at
  its width and signedness: a 32-bit pattern goes into a signed field as its two's-complement
  value, a negative value into an unsigned 32-bit field as its pattern;
* ``Imm`` of a floating-point kind: the bit pattern of a value of that kind; a field of an integer
  kind stores the 32-bit pattern, a floating-point field stores the same *value* in its own format
  (exactly, or not at all) and a NaN as the payload that the assembler uses for a NaN literal
  (nvdisasm does not print payloads);
* ``Label``: an absolute code address (the field holds it relative to the next instruction);
* ``CBank``: ``reg`` None when only an offset is given (a form with an index register gets the
  zero register), ``ubank`` for ``cx[UR][...]``;
* ``Mem``: its registers go to the form's address parts by register file, as the assembler reads
  ``[R2.64+UR4+0x10]``; parts left out are the zero registers;
* ``SReg``, ``Keyword``, ``GDesc`` as printed.

The search order is the assembler's: forms in table order; within a form, the printed modifiers
with an alias token taken out before the modifiers as given, and layouts of printed operands with
every optional operand first. Within a form a candidate whose own printing (operands and
modifiers) is the given one wins, otherwise the first that encodes. The word comes from the first
form in table order that encodes the instruction (:func:`~openptxas.isa.codec.encode_instruction`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from openptxas.diag import EncodingError
from openptxas.isa.codec import encode_with, match_mods
from openptxas.isa.family import Family, load_family
from openptxas.isa.floatfmt import bits_to_float, float_to_bits
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
from openptxas.isa.printer import default_operand, display_mods, printed_operands
from openptxas.isa.spec import Form, NumSpec, OpKind, OpSpec, RegSpec, bits_width


class Mismatch(Exception):
    """A printed operand that an operand of the form cannot hold. The message is written only
    when asked for (most mismatches are a search's ordinary dead ends)."""

    def __init__(self, op: Operand | None, reason: str) -> None:
        super().__init__(reason)
        self.op = op
        self.reason = reason

    def __str__(self) -> str:
        return self.reason if self.op is None else f"{_text(self.op)} {self.reason}"


# ----------------------------------------------------------------------------------------------
# The search space, shared with the assembler


def strip_aliases(form: Form, mods: tuple[str, ...]) -> list[tuple[tuple[str, ...], str | None]]:
    """The modifier tuples to try for printed modifiers ``mods``: with each alias token of the
    form taken out (``IMAD.MOV.U32`` -> ``IMAD.U32`` + alias ``MOV``), then ``mods`` as given."""
    out: list[tuple[tuple[str, ...], str | None]] = [(mods, None)]
    for alias in form.aliases:
        if alias.token in mods:
            rest = list(mods)
            rest.remove(alias.token)
            out.insert(0, (tuple(rest), alias.token))
    return out


@functools.cache
def layouts(form: Form) -> tuple[tuple[int, ...], ...]:
    """Candidate tuples of printed operand indices of ``form``, all printed first."""
    opt = [i for i, o in enumerate(form.operands) if o.optional]
    # All printed first, then the layouts showing the earliest optional operands (ambiguous
    # texts such as IADD3's single carry-out resolve to the first operand, as ptxas uses it).
    tables = [form.omit, *(t for _, _, t in form.omit_when)]
    rest = sorted(
        {m for t in tables for m in t.values()},
        key=lambda m: (-bin(m).count("1"), [n for n in range(len(opt)) if m >> n & 1]),
    )
    masks = [(1 << len(opt)) - 1, *rest]
    out: list[tuple[int, ...]] = []
    for m in masks:
        hidden = {i for n, i in enumerate(opt) if not m >> n & 1}
        layout = tuple(i for i in range(len(form.operands)) if i not in hidden)
        if layout not in out:
            out.append(layout)
    return tuple(out)


def spelled(forms: Sequence[Form], mods: tuple[str, ...]) -> bool:
    """Whether one of ``forms`` prints modifiers ``mods`` (an alias token taken out or not)."""
    return any(_spells(f, m) for f in forms for m, _ in strip_aliases(f, mods))


@dataclass(frozen=True, slots=True)
class _Candidate:
    mods: tuple[str, ...]  # the modifiers without the alias token
    alias: str | None
    layout: tuple[int, ...]  # the printed operands' indices in the form
    slots: tuple[int, ...]  # per operand of the form, its printed position (-1: not printed)


@functools.cache
def _spells(form: Form, mods: tuple[str, ...]) -> bool:
    """Whether the form's modifier fields spell ``mods``."""
    return match_mods(form.mods, mods) is not None


_KIND_OF: dict[type, OpKind] = {
    Reg: OpKind.REG,
    Imm: OpKind.IMM,
    Label: OpKind.LABEL,
    CBank: OpKind.CBANK,
    Mem: OpKind.MEM,
    SReg: OpKind.SREG,
    GDesc: OpKind.GDESC,
}


def _fits_kind(op: Operand, spec: OpSpec) -> bool:
    """Whether a full operand has the kind (and register file) of the form's operand, which
    ``encode_with`` needs (a quick test before it)."""
    kind = _KIND_OF.get(type(op))
    if kind is None:  # a Keyword: a keyword or a list operand
        return spec.kind is OpKind.KEYWORD or spec.kind is OpKind.LIST
    if kind is not spec.kind:
        return False
    return not isinstance(op, Reg) or (spec.reg is not None and spec.reg.file is op.file)


def _slots(layout: tuple[int, ...], n: int) -> tuple[int, ...]:
    return tuple(layout.index(i) if i in layout else -1 for i in range(n))


@functools.cache
def _candidates(
    family: str, opcode: str, mods: tuple[str, ...], count: int
) -> tuple[tuple[Form, tuple[_Candidate, ...]], ...]:
    """Per form of ``opcode`` (table order), the (modifiers, layout) pairs with ``count``
    printed operands, in the assembler's order."""
    fam = load_family(family)
    out: list[tuple[Form, tuple[_Candidate, ...]]] = []
    for form in fam.forms_for_opcode(opcode):
        # modifiers the form's fields cannot spell never encode (encode_with's first test)
        cands = [
            _Candidate(m, alias, layout, _slots(layout, len(form.operands)))
            for m, alias in strip_aliases(form, mods)
            if _spells(form, m)
            for layout in layouts(form)
            if len(layout) == count
        ]
        out.append((form, tuple(cands)))
    return tuple(out)


# ----------------------------------------------------------------------------------------------
# Printed operand -> the value the form's operand holds


def wrap32(v: int, num: NumSpec) -> int:
    """A 32-bit value in a field's terms: a pattern of 2**31 and up is its negative value in a
    signed field, a negative value its pattern in an unsigned field of 32 bits or more."""
    if num.fits(v):
        return v
    if num.signed and 1 << 31 <= v < 1 << 32:
        return v - (1 << 32)
    if not num.signed and -(1 << 31) <= v < 0 and num.fits(v + (1 << 32)):
        return v + (1 << 32)
    return v


_FLOAT_WIDTH = {ImmKind.F16: 16, ImmKind.F32: 32, ImmKind.F64: 64}
# (exponent mask, mantissa mask, quiet bit) per format
_FLOAT_LAYOUT = {
    ImmKind.F16: (0x7C00, 0x03FF, 0x0200),
    ImmKind.F32: (0x7F800000, 0x007FFFFF, 0x00400000),
    ImmKind.F64: (0x7FF0000000000000, 0x000FFFFFFFFFFFFF, 0x0008000000000000),
}


def float_in_field(bits: int, kind: ImmKind, num: NumSpec) -> int:
    """The bit pattern a floating-point field of ``num``'s kind holds for the value whose
    ``kind`` pattern is ``bits``; Mismatch if the value has none (not exact, out of range).

    A NaN becomes the field's NaN of the same sign and kind (quiet or signalling) with the payload
    the assembler gives a NaN literal: every mantissa bit the field holds for a quiet NaN, the
    lowest for a signalling one."""
    width = _FLOAT_WIDTH[kind]
    exp, man, quiet = _FLOAT_LAYOUT[kind]
    bits &= (1 << width) - 1
    to = num.kind
    if bits & exp == exp and bits & man:
        t_width = _FLOAT_WIDTH[to]
        t_exp, t_man, t_quiet = _FLOAT_LAYOUT[to]
        sign = (1 << (t_width - 1)) if bits >> (width - 1) & 1 else 0
        if bits & quiet:
            payload = t_man & ~((1 << num.shift) - 1)
        else:
            payload = 1 << num.shift
            if payload & t_quiet:
                raise Mismatch(None, f"a signalling NaN does not fit a {to.value} field")
        return sign | t_exp | payload
    v = bits_to_float(bits, kind)
    try:
        out = float_to_bits(v, to)
    except ValueError:
        raise Mismatch(None, f"{v!r} does not fit a {to.value} field") from None
    back = bits_to_float(out, to)
    if back != v and not math.isinf(back):
        raise Mismatch(None, f"{v!r} is not exactly representable as {to.value}")
    return out


def _reg(r: Operand, rs: RegSpec | None) -> Reg:
    if rs is None or not isinstance(r, Reg) or r.file is not rs.file:
        article = "an" if rs is not None and rs.file is RegFile.R else "a"
        want = "no register" if rs is None else f"{article} {rs.file.value} register"
        raise Mismatch(r, f"where the form has {want}")
    return r


def _zero(rs: RegSpec) -> Reg:
    index = 7 if rs.file in (RegFile.P, RegFile.UP) else 255
    return Reg(rs.file, rs.const_index if not rs.index else index, sel=rs.const_sel)


def _split(
    terms: Sequence[Reg], rs_r: RegSpec | None, rs_u: RegSpec | None
) -> tuple[Reg | None, Reg | None]:
    """An address's registers in the form's parts: a uniform register goes to the uniform part
    unless the register part takes that file and is still free; parts left out are zero."""
    reg: Reg | None = None
    ureg: Reg | None = None
    for t in terms:
        if (
            rs_u is not None
            and t.file is rs_u.file
            and ureg is None
            and (rs_r is None or t.file is not rs_r.file or reg is not None)
        ):
            ureg = t
        elif rs_r is not None and t.file is rs_r.file and reg is None:
            reg = t
        else:
            raise Mismatch(t, "has no part in the form's address")
    if reg is None and rs_r is not None:
        reg = _zero(rs_r)
    if ureg is None and rs_u is not None:
        ureg = _zero(rs_u)
    return reg, ureg


def resolve(op: Operand, spec: OpSpec) -> Operand:
    """The value operand ``spec`` of a form holds for printed operand ``op`` (module doc);
    Mismatch if it cannot hold it."""
    k = spec.kind
    if k is OpKind.REG:
        return _reg(op, spec.reg)
    if k is OpKind.IMM:
        num = spec.num
        if not isinstance(op, Imm) or num is None:
            raise Mismatch(op, "where the form has an immediate")
        if num.kind is ImmKind.INT:
            value = op.value if op.kind is ImmKind.INT else op.value & 0xFFFFFFFF
            return Imm(wrap32(value, num))
        if op.kind is ImmKind.INT:
            raise Mismatch(op, f"where the form has a {num.kind.value} immediate")
        return Imm(float_in_field(op.value, op.kind, num), num.kind)
    if k is OpKind.LABEL:
        if isinstance(op, Label):
            return op
        if isinstance(op, Imm) and op.kind is ImmKind.INT:
            return Label(op.value)
        raise Mismatch(op, "where the form has a code address")
    if k is OpKind.CBANK:
        if not isinstance(op, CBank):
            raise Mismatch(op, "where the form has a constant-bank operand")
        ubank_spec, reg_spec = spec.regs
        ubank: Reg | None = None
        bank = op.bank
        if op.ubank is not None:
            ubank, bank = _reg(op.ubank, ubank_spec), spec.const_bank
        elif ubank_spec is not None:
            raise Mismatch(op, "where the form has a bindless bank cx[UR]")
        reg, _ = _split(() if op.reg is None else (op.reg,), reg_spec, None)
        if (op.neg and spec.neg < 0) or (op.abs and spec.abs < 0) or (op.not_ and spec.not_ < 0):
            raise Mismatch(op, "where the form's constant operand has no such modifier")
        return CBank(bank, op.offset, reg, ubank, op.neg, op.abs, op.not_)
    if k is OpKind.MEM:
        if not isinstance(op, Mem):
            raise Mismatch(op, "where the form has an address")
        desc_spec, base_spec, ubase_spec = spec.regs
        desc = None
        if op.desc is not None:
            desc = _reg(op.desc, desc_spec)
        elif desc_spec is not None:
            raise Mismatch(None, "an address without the descriptor the form has")
        terms = tuple(r for r in (op.base, op.ubase) if r is not None)
        base, ubase = _split(terms, base_spec, ubase_spec)
        return Mem(base, ubase, op.offset, desc)
    if k is OpKind.SREG:
        if isinstance(op, Keyword) and op.name in spec.names:
            return SReg(op.name)  # a special register without the SR_ prefix (SM_SHADER_TYPE)
        if not isinstance(op, SReg):
            raise Mismatch(op, "where the form has a special register")
        return op
    if k is OpKind.GDESC:
        if not isinstance(op, GDesc):
            raise Mismatch(op, "where the form has a descriptor gdesc[UR]")
        return op
    if not isinstance(op, Keyword):
        raise Mismatch(op, "where the form has a keyword")
    return op


# ----------------------------------------------------------------------------------------------
# Selection and encoding


@dataclass(frozen=True, slots=True)
class Assembled:
    """An instruction as its form holds it: the encoding form and the 128-bit word."""

    instruction: Instruction
    form: Form
    word: int


def _text(op: Operand) -> str:
    """An operand for a message, about as nvdisasm writes it."""
    if isinstance(op, Mem | CBank):
        regs = (op.base, op.ubase) if isinstance(op, Mem) else (op.reg,)
        terms = [str(r) for r in regs if r is not None]
        if op.offset or not terms:
            terms.append(f"-{-op.offset:#x}" if op.offset < 0 else f"{op.offset:#x}")
        inner = "[" + "+".join(terms) + "]"
        if isinstance(op, CBank):
            return f"c[{op.ubank or hex(op.bank)}]{inner}"
        return f"desc[{op.desc}]{inner}" if op.desc is not None else inner
    if isinstance(op, Label):
        return f"`({op.target:#x})"
    if isinstance(op, SReg | Keyword):
        return op.name
    if isinstance(op, GDesc):
        return f"gdesc[{op.reg}]"
    return str(op)


def describe(opcode: str, mods: tuple[str, ...], ops: Sequence[Operand]) -> str:
    """An instruction given by its printed parts, about as nvdisasm writes it (for messages)."""
    head = ".".join((opcode, *mods))
    return f"{head} {', '.join(map(_text, ops))}".strip()


def encode_printed(
    fam: Family,
    opcode: str,
    mods: tuple[str, ...],
    operands: Sequence[Operand],
    guard: Reg = PT,
    control: Control | None = None,
    addr: int = 0,
) -> Assembled:
    """The instruction printed as ``opcode.mods operands`` (module doc), its encoding form and
    word at byte address ``addr``. Raises EncodingError with the reasons
    the forms do not take it."""
    ctl = control if control is not None else Control()
    per_form = _candidates(fam.name, opcode, mods, len(operands))
    if not per_form:
        raise EncodingError(opcode, detail=f"unknown opcode {opcode} in {fam.name}")
    why: list[tuple[str, _Why]] = []
    for form, cands in per_form:
        found: tuple[Instruction, int] | None = None
        last = len(cands) - 1
        for n, c in enumerate(cands):
            try:
                ops = tuple(
                    default_operand(spec) if k < 0 else resolve(operands[k], spec)
                    for k, spec in zip(c.slots, form.operands, strict=True)
                )
            except Mismatch as exc:
                why.append((form.name, exc))
                continue
            ins = Instruction(form.opcode, c.mods, ops, guard, ctl)
            word = encode_with(form, ins, fam, addr)
            if word is None:
                why.append((form.name, (form, ops)))
                continue
            shown = display_mods(form, ins) if c.alias is not None or n < last or found else ()
            if c.alias is not None and c.alias not in shown:
                why.append((form.name, f"alias {c.alias} does not apply"))
                continue
            if (n == last and not found) or (
                shown == mods and tuple(printed_operands(form, ins)) == c.layout
            ):
                found = (ins, word)  # the form's only choice left, or one that prints as given
                break
            found = found or (ins, word)
        if found is not None:
            ins, word = found
            form, word = _first_encoding(per_form, fam, form, ins, word, addr)
            return Assembled(ins, form, word)
    if not any(cands for _, cands in per_form):
        spelled = any(_spells(f, m) for f, _ in per_form for m, _ in strip_aliases(f, mods))
        if not spelled:
            why.append(("", f"no form has the modifiers {'.'.join(mods) or '(none)'}"))
        else:
            why.append(("", f"no form with these modifiers prints {len(operands)} operands"))
    detail = f"no {fam.name} form of {opcode} takes {describe(opcode, mods, operands)}"
    return _raise(opcode, detail, why)


# why a candidate failed: an operand's mismatch, operands encode_with rejects, or a text
_Why = Mismatch | tuple[Form, tuple[Operand, ...]] | str


def _field_problem(form: Form, ops: Sequence[Operand]) -> str:
    """Why ``encode_with`` rejects operands that each have the right kind: a value wider than
    its field, a register the field cannot number, modifiers the form does not have."""
    for o, op in zip(form.operands, ops, strict=True):
        if isinstance(op, Imm) and o.num is not None and not o.num.fits(op.value):
            sign = "signed" if o.num.signed else "unsigned"
            width = bits_width(o.num.bits)
            return f"{_text(op)} does not fit its {width}-bit {sign} field"
        if isinstance(op, Mem | CBank) and o.num is not None and not o.num.fits(op.offset):
            return f"offset {op.offset:#x} does not fit its {bits_width(o.num.bits)}-bit field"
    return "the modifiers or a register do not fit the form"


def _raise(opcode: str, detail: str, why: list[tuple[str, _Why]]) -> Assembled:
    """EncodingError with each distinct reason and the forms it rules out (table order)."""
    forms: dict[str, list[str]] = {}
    for name, w in why:
        reason = _field_problem(*w) if isinstance(w, tuple) else str(w)
        if name not in forms.setdefault(reason, []):
            forms[reason].append(name)
    parts = [r if f == [""] else f"{r} ({', '.join(f)})" for r, f in forms.items()]
    more = f"; {len(parts) - 6} more reasons" if len(parts) > 6 else ""
    text = "; ".join(parts[:6]) + more
    raise EncodingError(opcode, detail=f"{detail}: {text}" if text else detail)


def _first_encoding(
    per_form: tuple[tuple[Form, tuple[_Candidate, ...]], ...],
    fam: Family,
    form: Form,
    ins: Instruction,
    word: int,
    addr: int,
) -> tuple[Form, int]:
    """The form that encodes ``ins`` first in table order (the encoder's choice) and its word:
    an earlier form of the opcode may hold what ``form`` was matched for."""
    for f, _ in per_form:
        if f is form:
            return form, word
        if (
            len(f.operands) == len(ins.operands)
            and _spells(f, ins.mods)
            and all(map(_fits_kind, ins.operands, f.operands))
        ):
            w = encode_with(f, ins, fam, addr)
            if w is not None:
                return f, w
    raise AssertionError("the matched form is one of its opcode's forms")


def assemble(
    fam: Family,
    opcode: str,
    mods: tuple[str, ...],
    operands: Sequence[Operand],
    guard: Reg = PT,
    control: Control | None = None,
    addr: int = 0,
) -> Instruction:
    """The instruction printed as ``opcode.mods operands`` (see :func:`encode_printed`)."""
    return encode_printed(fam, opcode, mods, operands, guard, control, addr).instruction


__all__ = [
    "Assembled",
    "Mismatch",
    "assemble",
    "describe",
    "encode_printed",
    "float_in_field",
    "layouts",
    "resolve",
    "spelled",
    "strip_aliases",
    "wrap32",
]
