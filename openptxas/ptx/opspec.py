"""Instruction forms: the data model of the PTX instruction table and its small text notation.

The table (optable.py) lists, per mnemonic, the forms of the PTX ISA 9.0 specification in a
notation close to the spec's own syntax blocks::

    add
      {.sat}.s32                   : d, a, b
      {.rnd}{.ftz}{.sat}.f32       : d, a, b
      {.rn}{.ftz}{.sat}.(f16|f16x2): d, a, b          @sm_53 @ptx4.2

Modifier items: ``.x`` required literal, ``{.x}`` optional literal, ``.NAME``/``{.NAME}`` a
required/optional choice from the named set NAME (see SETS in optable.py), ``.(a|b)`` /
``{.(a|b)}`` an inline choice. Choices whose values are PTX types are *type slots*: they are
ordered (``cvt.f32.s32``); every other modifier may appear in any order, as ptxas allows.

Operands, comma separated: ``ROLE[:TYPE][?]`` where ROLE is

    d   destination register (a vector of N when the instruction has .vN)
    a b c e f g h   source: register, immediate or special register (vector with .vN)
    r   source register only          i   integer immediate only
    m   memory operand [addr]         l   label
    p   predicate destination         q   predicate source, may be negated (!p)
    dp  d or d|p                      pq  p or p|q
    v   brace vector, any length      x   anything (checked elsewhere, or not at all)
    ds  destination register or the sink _

and TYPE is ``T`` (the first type slot, the default), ``T1``.. (later slots), a PTX type name, or
``addr`` (an integer register or immediate of 32 or 64 bits). ``?`` marks a trailing optional
operand.

Gates: ``@sm_NN`` (any target with SM >= NN), ``@x90a`` (exactly sm_90a), ``@a90`` (any
arch-specific target, a or f, SM >= 90), ``@fam100`` (the sm_100 family's arch-specific targets:
sm_100/103/110 with a or f), ``@fam103`` (sm_103/110 a or f), ``@fam120`` (sm_120/121 a or f),
``@ptxM.N`` (PTX ISA version).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from openptxas.ptx.types import TYPE_NAMES


@dataclass(frozen=True, slots=True)
class Group:
    """One modifier slot of a form."""

    values: frozenset[str]
    optional: bool
    is_type: bool
    category: str  # rnd, cmp, space, shape, ... (chooses the diagnostic when missing)
    name: str


@dataclass(frozen=True, slots=True)
class OperandSpec:
    role: str
    type: str  # "T", "T1", ..., a type name, "addr" or ""
    optional: bool


@dataclass(frozen=True, slots=True)
class Gate:
    """A target or version requirement of a form."""

    kind: str  # "sm" (generic minimum), "x" (exact arch), "a" (any arch-specific >= sm),
    # "fam" (arch-specific family), "ptx"
    sm: int = 0
    variant: str = ""
    ptx: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Form:
    opcode: str
    text: str
    groups: tuple[Group, ...]
    type_slots: tuple[Group, ...]
    operands: tuple[OperandSpec, ...]
    gates: tuple[Gate, ...]

    @property
    def min_operands(self) -> int:
        return sum(1 for o in self.operands if not o.optional)


_ITEM = re.compile(r"\{\.([\w:]+|\([^)]*\))\}|\.([\w:]+|\([^)]*\))")


def parse_form(opcode: str, text: str, sets: dict[str, tuple[str, frozenset[str]]]) -> Form:
    """Parse one form line ``MODS : OPERANDS @gates`` (see the module docstring)."""
    gates: list[Gate] = []
    parts = text.split("@")
    body = parts[0]
    for g in parts[1:]:
        gates.append(_gate(g.strip()))
    # ' : ' separates modifiers from operands (a bare ':' would clash with '::' modifiers)
    body = body.strip()
    if body.startswith(":"):
        mods_s, ops_s = "", body[1:]
    else:
        m = re.match(r"^(.*?)\s:(?:\s(.*))?$", body)
        if m is None:
            raise ValueError(f"{opcode}: form without ' : ' separator: {text!r}")
        mods_s, ops_s = m.group(1), m.group(2) or ""
    groups: list[Group] = []
    pos = 0
    mods_s = mods_s.strip()
    while pos < len(mods_s):
        mm = _ITEM.match(mods_s, pos)
        if mm is None:
            raise ValueError(f"{opcode}: bad form {text!r} at {mods_s[pos:]!r}")
        optional = mm.group(1) is not None
        item = mm.group(1) or mm.group(2)
        if item.startswith("("):
            vals = frozenset(v.strip() for v in item[1:-1].split("|"))
            cat, name = _category(vals), "|".join(sorted(vals))
        elif item in sets:
            cat, vals = sets[item]
            name = item
        else:
            vals = frozenset({item})
            cat, name = _category(vals), item
        is_type = all(v in TYPE_NAMES for v in vals)
        groups.append(Group(vals, optional, is_type, "type" if is_type else cat, name))
        pos = mm.end()
    ops: list[OperandSpec] = []
    ops_s = ops_s.strip()
    if ops_s:
        for o in ops_s.split(","):
            o = o.strip()
            opt = o.endswith("?")
            o = o.rstrip("?")
            role, _, ty = o.partition(":")
            ops.append(OperandSpec(role, ty, opt))
    return Form(
        opcode=opcode,
        text=text.strip(),
        groups=tuple(g for g in groups if not g.is_type),
        type_slots=tuple(g for g in groups if g.is_type),
        operands=tuple(ops),
        gates=tuple(gates),
    )


def _category(vals: frozenset[str]) -> str:
    if vals <= {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs"}:
        return "rnd"
    if vals <= {"approx", "full"}:
        return "approx"
    if vals <= {"clamp", "wrap"}:
        return "clamp"
    if vals == {"aligned"}:
        return "aligned"
    return "mod"


def _gate(g: str) -> Gate:
    if g.startswith("ptx"):
        a, b = g[3:].split(".")
        return Gate("ptx", ptx=(int(a), int(b)))
    if g.startswith("sm_"):
        return Gate("sm", sm=int(g[3:]))
    if g.startswith("x"):
        m = re.fullmatch(r"x(\d+)([af])", g)
        assert m, g
        return Gate("x", sm=int(m.group(1)), variant=m.group(2))
    if g.startswith("a"):
        return Gate("a", sm=int(g[1:]))
    if g.startswith("fam"):
        return Gate("fam", sm=int(g[3:]))
    raise ValueError(f"bad gate {g!r}")


# Arch-specific families: which SM numbers share the 'a'/'f' features of the family's first.
FAMILIES: dict[int, frozenset[int]] = {
    100: frozenset({100, 103, 110}),
    120: frozenset({120, 121}),
    103: frozenset({103, 110}),  # tcgen05.ld.red: sm_103 and sm_110 (ptxas 13.0), not sm_100
}


def gate_ok(g: Gate, sm: int, variant: str, ptx: tuple[int, int]) -> bool:
    """Whether a target (SM number and a/f variant) and PTX version satisfy a gate."""
    if g.kind == "ptx":
        return ptx >= g.ptx
    if g.kind == "sm":
        return sm >= g.sm
    if g.kind == "x":
        return sm == g.sm and variant in ("a", "f") and (variant == g.variant or g.variant == "f")
    if g.kind == "a":
        return sm >= g.sm and variant in ("a", "f")
    if g.kind == "fam":
        return sm in FAMILIES.get(g.sm, frozenset({g.sm})) and variant in ("a", "f")
    return True


def parse_table(
    text: str, sets: dict[str, tuple[str, frozenset[str]]]
) -> dict[str, tuple[Form, ...]]:
    """Parse the whole table text: a mnemonic at column 0, its indented forms below."""
    out: dict[str, list[Form]] = {}
    aliases: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            aliases = line.split()
            for n in aliases:
                out.setdefault(n, [])
            continue
        for n in aliases:
            out[n].append(parse_form(n, line, sets))
    return {k: tuple(v) for k, v in out.items()}
