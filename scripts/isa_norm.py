"""Normalised views of nvdisasm text for the isa_* learning scripts.

``normalize(text, addr, label_ops)`` turns one instruction's text into a :class:`Norm`: guard,
opcode, modifiers and, per operand, a flat dict of *atoms* (register file and code, operand
modifiers, numbers, address parts), with every part nvdisasm leaves out filled in with its
default (``[R2]`` has ``ubase.index`` = URZ's code and ``offset`` = 0). Two Norms of nearby
encodings differ in exactly the atoms the flipped bits control.

Register numbers are *codes* (what the field holds): RZ = 255, URZ = 63, PT/UPT = 7 on sm_90.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openptxas.isa.model import GDesc, Keyword, Reg, RegFile, SReg
from openptxas.isa.syntax import (
    LabelRef,
    Num,
    SassSyntaxError,
    SynCBank,
    SynMem,
    parse_line,
)

ZERO_CODE = {RegFile.R: 255, RegFile.UR: 63, RegFile.P: 7, RegFile.UP: 7}
MODEL_ZERO = {RegFile.R: 255, RegFile.UR: 255, RegFile.P: 7, RegFile.UP: 7}

Atoms = dict[str, Any]


@dataclass(frozen=True)
class Norm:
    text: str
    guard: tuple[str, int, bool] | None
    opcode: str
    mods: tuple[str, ...]
    ops: tuple[tuple[tuple[str, Any], ...], ...]  # per operand: sorted (atom, value) pairs
    seps: tuple[str, ...]
    semi: str
    raw_mods: tuple[str, ...] = ()  # the modifiers as printed, alias tokens included

    def op(self, i: int) -> Atoms:
        return dict(self.ops[i])

    @property
    def shape(self) -> tuple[tuple[Any, ...], ...]:
        out = []
        for o in self.ops:
            d = dict(o)
            out.append((d["k"], d.get("file"), d.get("desc"), d.get("cx")))
        return tuple(out)


def code_of(r: Reg) -> int:
    if r.is_zero:
        return ZERO_CODE[r.file]
    return r.index


def reg_atoms(r: Reg, prefix: str = "") -> Atoms:
    return {
        prefix + "file": r.file.value,
        prefix + "index": code_of(r),
        prefix + "neg": r.neg,
        prefix + "abs": r.abs,
        prefix + "not": r.not_,
        prefix + "sel": r.sel,
        prefix + "reuse": r.reuse,
    }


def default_reg_atoms(file: RegFile, prefix: str) -> Atoms:
    return reg_atoms(Reg(file, MODEL_ZERO[file]), prefix)


def _bracket(terms: tuple[Reg | Num, ...], rfile: RegFile, ufile: RegFile | None) -> Atoms:
    d: Atoms = {}
    d.update(default_reg_atoms(rfile, "base."))
    if ufile is not None:
        d.update(default_reg_atoms(ufile, "ubase."))
    d["offset"] = 0
    seen_r = seen_u = seen_n = False
    for t in terms:
        if isinstance(t, Num):
            if seen_n or not t.is_int:
                raise ValueError("bad offset")
            d["offset"] = t.int_value()
            seen_n = True
        elif t.file is rfile and not seen_r:
            d.update(reg_atoms(t, "base."))
            seen_r = True
        elif ufile is not None and t.file is ufile and not seen_u:
            d.update(reg_atoms(t, "ubase."))
            seen_u = True
        else:
            raise ValueError("bad address term")
    return d


def normalize(
    text: str | None,
    addr: int = 0,
    label_ops: frozenset[int] = frozenset(),
    aliases: dict[str, frozenset[str]] | None = None,
) -> Norm | None:
    """The Norm of ``text`` (an instruction at byte address ``addr``), or None if unparsable.

    ``aliases``: opcode -> modifier tokens nvdisasm derives from operand values; they are left
    out of the Norm's modifiers."""
    if text is None:
        return None
    try:
        syn = parse_line(text)
    except SassSyntaxError:
        return None
    ops: list[tuple[tuple[str, Any], ...]] = []
    try:
        for i, o in enumerate(syn.operands):
            d: Atoms
            if isinstance(o, Reg):
                d = {"k": "reg", **reg_atoms(o)}
            elif isinstance(o, Num):
                if i in label_ops and o.is_int:
                    d = {"k": "label", "off": o.int_value() - addr - 16}
                else:
                    d = {"k": "num", "text": o.text}
            elif isinstance(o, SReg):
                d = {"k": "sreg", "name": o.name}
            elif isinstance(o, Keyword):
                d = {"k": "list" if o.name.startswith("{") else "kw", "name": o.name}
            elif isinstance(o, SynMem):
                # The uniform part of an address exists only in shared/local/generic forms;
                # any UR term is accepted here and the learner finds out which exist.
                d = {"k": "mem", "desc": o.desc is not None}
                if o.desc is not None:
                    d.update(reg_atoms(o.desc, "desc."))
                d.update(_bracket(o.addr.terms, RegFile.R, RegFile.UR))
            elif isinstance(o, SynCBank):
                d = {"k": "cbank", "cx": isinstance(o.bank, Reg)}
                d.update({"neg": o.neg, "abs": o.abs, "not": o.not_})
                if isinstance(o.bank, Reg):
                    d.update(reg_atoms(o.bank, "ubank."))
                    d["bank"] = 0
                else:
                    d["bank"] = o.bank.int_value()
                # the index register is an R, or a UR in ULDC's c[0x3][UR4]
                ufile = any(isinstance(t, Reg) and t.file is RegFile.UR for t in o.addr.terms)
                inner = _bracket(o.addr.terms, RegFile.UR if ufile else RegFile.R, None)
                d.update(
                    {("reg." + k[5:] if k.startswith("base.") else k): v for k, v in inner.items()}
                )
            elif isinstance(o, GDesc):
                d = {"k": "gdesc", **reg_atoms(Reg(o.reg.file, o.reg.index, sel=o.sel))}
            elif isinstance(o, LabelRef):
                d = {"k": "labelref", "name": o.name}
            else:
                return None
            ops.append(tuple(sorted(d.items())))
    except ValueError:
        return None
    guard = None
    if syn.guard is not None:
        guard = (syn.guard.file.value, code_of(syn.guard), syn.guard.not_)
    semi = ";" if text.rstrip().endswith(";") and not text.rstrip().endswith(" ;") else " ;"
    mods = syn.mods
    if aliases and syn.opcode in aliases:
        drop = aliases[syn.opcode]
        mods = tuple(m for m in mods if m not in drop)
    return Norm(text, guard, syn.opcode, mods, tuple(ops), syn.seps, semi, syn.mods)


def label_operands(text_a: str | None, text_b: str | None, delta: int = 16) -> frozenset[int]:
    """Operands whose number moves by ``delta`` between the same word at address a and
    a + delta."""
    if text_a is None or text_b is None:
        return frozenset()
    try:
        sa, sb = parse_line(text_a), parse_line(text_b)
    except SassSyntaxError:
        return frozenset()
    out = set()
    for i, (x, y) in enumerate(zip(sa.operands, sb.operands, strict=False)):
        if (
            isinstance(x, Num)
            and isinstance(y, Num)
            and x.is_int
            and y.is_int
            and y.int_value() - x.int_value() == delta
        ):
            out.add(i)
    return frozenset(out)
