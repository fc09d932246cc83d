"""Hypothesis strategies: random instructions of a family, built from its table rows."""

from __future__ import annotations

from hypothesis import strategies as st

from openptxas.isa.codec import decode_word
from openptxas.isa.family import Family
from openptxas.isa.model import Instruction, Unknown
from openptxas.isa.spec import Form, OpKind, RegSpec, bits_width, put_bits


def _reg(draw: st.DrawFn, w: int, rs: RegSpec | None) -> int:
    if rs is None:
        return w
    if rs.index:
        w = put_bits(w, rs.index, draw(st.integers(0, (1 << bits_width(rs.index)) - 1)))
    for b in (rs.neg, rs.abs, rs.not_, rs.reuse):
        if b >= 0:
            w |= draw(st.integers(0, 1)) << b
    if rs.sel:
        valid = [i for i, n in enumerate(rs.sel_names) if n != "?"]
        w = put_bits(w, rs.sel, draw(st.sampled_from(valid)))
    return w


@st.composite
def words(draw: st.DrawFn, form: Form) -> int:
    """A random word of ``form``: every field and loose bit at a random value, a random control
    field."""
    w = form.value | (draw(st.integers(0, (1 << 105) - 1)) & form.loose)
    if form.guard:
        w |= draw(st.integers(0, 15)) << 12
    for mf in form.mods:
        # values nvdisasm prints as INVALIDn are not instructions (and two fields may spell the
        # same INVALIDn, which no text can tell apart): only when a field has nothing else
        valid = [v for t, v in mf.rev.items() if not any("INVALID" in x for x in t)]
        w = put_bits(w, mf.bits, draw(st.sampled_from(sorted(valid or mf.rev.values()))))
    for o in form.operands:
        w = _reg(draw, w, o.reg)
        for r in o.regs:
            w = _reg(draw, w, r)
        if o.num is not None:
            w = put_bits(w, o.num.bits, draw(st.integers(0, (1 << bits_width(o.num.bits)) - 1)))
        if o.bank:
            w = put_bits(w, o.bank, draw(st.integers(0, (1 << bits_width(o.bank)) - 1)))
        if o.enum:
            if o.kind is OpKind.LIST:
                w = put_bits(w, o.enum, draw(st.integers(0, (1 << bits_width(o.enum)) - 1)))
            else:
                valid = [i for i, n in enumerate(o.names) if n != "?"]
                w = put_bits(w, o.enum, draw(st.sampled_from(valid)))
    return w | draw(st.integers(0, (1 << 17) - 1)) << 105  # any control field


@st.composite
def instructions(draw: st.DrawFn, fam: Family) -> tuple[int, Instruction]:
    """(word, decoded instruction) for a random form of ``fam`` with random field values."""
    forms = fam.all_forms()
    form = draw(st.sampled_from(forms))
    w = draw(words(form))
    ins = decode_word(w, fam, 0)
    if isinstance(ins, Unknown):
        # a value combination no form describes (a non-canonical modifier value, an empty
        # optional keyword elsewhere): not an instruction
        from hypothesis import reject

        reject()
    assert isinstance(ins, Instruction)
    return w, ins
