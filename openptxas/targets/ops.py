"""Operation properties of a target family, derived from its ISA table where the table knows.

The passes ask these instead of keeping their own opcode sets:

- **operand slots**: which source positions of an instruction (``Instr.srcs`` indices, nvdisasm
  order) accept an immediate, a uniform register or a constant-bank operand instead of a general
  register, and how wide each immediate field is. Derived from the forms: a slot is *variable*
  where one form of the opcode has an immediate (UR, c[]) and a sibling form, otherwise the same,
  has an R register (``IADD3 R, R, 0x1, R`` next to ``IADD3 R, R, R, R``).
- **half-pair immediates**: where an f16x2 instruction takes a pair of f16 immediates instead of
  a register (``HFMA2 R7, R0, R7, 1, 0.5``; the IR holds the pair as one ``f16x2`` immediate),
  and with which modifiers;
- **uniform twin**: the uniform-datapath opcode computing the same (``IADD3`` -> ``UIADD3``,
  ``S2R`` -> ``S2UR``, ``LDC`` -> ``ULDC``), when the table has one.
- **memory operations**: opcodes with an address operand ``[R+UR+imm]``, and the range of its
  immediate offset.
- **variable latency** and **late readers**: from the family's latency model
  (``openptxas.targets.latency``), which the hazard checkers read too.

Source positions follow the ALU forms' layout: the destinations come first, and the variable
slot B directly follows the first source A (``IADD3 R0, R1, B, C``), or the destinations when the
form has no A (``MOV R0, B``, ``FLO R0, P0?, B``: the operand before B is the first destination or
an optional one); a second variable slot C counts on from B.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from openptxas.isa.family import Family, load_family
from openptxas.isa.model import ImmKind, RegFile
from openptxas.isa.spec import Form, OpKind, OpSpec, bits_width


@dataclass(frozen=True, slots=True)
class Slots:
    """What each variable source position of an opcode accepts (``Instr.srcs`` indices)."""

    imm: frozenset[int] = frozenset()
    ur: frozenset[int] = frozenset()
    cbank: frozenset[int] = frozenset()
    imm_bits: Mapping[int, int] | None = None  # slot -> widest immediate field (bits)
    multi_imm: bool = False  # a form takes immediates in two slots at once (SHFL lane, clamp)
    b: int | None = None  # slot B: the first variable slot (IADD3 R, R, B, R; MOV R, B)

    def imm_max(self, slot: int) -> int:
        """The largest unsigned value slot ``slot``'s immediate field holds."""
        bits = (self.imm_bits or {}).get(slot, 0)
        return (1 << bits) - 1 if bits else 0


_NO_SLOTS = Slots()


def _kind(o: OpSpec) -> str:
    """An operand's kind for comparing sibling forms: ``R``, ``UR``, ``P``... for registers."""
    if o.kind is OpKind.REG and o.reg is not None:
        return o.reg.file.value
    return o.kind.value


def _variable_positions(
    forms: tuple[Form, ...],
) -> tuple[dict[tuple[str, ...], dict[int, set[str]]], bool]:
    """Operand positions (in the form's full operand list) where some form has an immediate,
    UR or c[] operand and a sibling form has an R register, by the all-register form's operand
    kinds (the *shape*): shape -> position -> kinds seen; and whether one form has immediates in
    two such positions."""
    sigs = [tuple(_kind(o) for o in f.operands) for f in forms]
    known = set(sigs)
    out: dict[tuple[str, ...], dict[int, set[str]]] = {}
    multi = False
    for f, sig in zip(forms, sigs, strict=True):
        var = [
            j
            for j, k in enumerate(sig)
            if k in ("imm", "UR", "cbank")
            and not f.operands[j].optional
            and (*sig[:j], "R", *sig[j + 1 :]) in known
        ]
        if not var:
            continue
        shape = tuple("R" if j in var else k for j, k in enumerate(sig))
        for j in var:
            out.setdefault(shape, {}).setdefault(j, set()).add(sig[j])
        multi = multi or sum(sig[j] == "imm" for j in var) > 1
    return out, multi


@dataclass(frozen=True)
class OpProperties:
    """The operation properties of one ISA family (``load_op_properties(family)``)."""

    family: Family
    # Memo tables per opcode. Fields, not functools.cached_property: mypyc compiles a
    # cached_property into a plain property (no instance __dict__), a fresh empty memo per access.
    _slot_cache: dict[str, Slots] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _memory_cache: dict[str, bool] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _half_cache: dict[str, tuple[tuple[int, frozenset[str]], ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def slots(self, opcode: str) -> Slots:
        """The variable source slots of ``opcode`` (none for an opcode without such forms).
        Per opcode on first use: building every form of the family for a table of all of them
        was a third of a small file's compile."""
        got = self._slot_cache.get(opcode)
        if got is None:
            got = self._slot_cache[opcode] = self._slots_of(opcode)
        return got

    def _slots_of(self, op: str) -> Slots:
        forms = self.family.forms_for_opcode(op)
        shapes, multi = _variable_positions(forms)
        if not shapes:
            return _NO_SLOTS
        imm: set[int] = set()
        ur: set[int] = set()
        cb: set[int] = set()
        bits: dict[int, int] = {}
        b: int | None = None
        for shape, var in shapes.items():
            first = min(var)
            # B follows A, or the destinations when the operand before it is one
            f0 = next(f for f in forms if len(f.operands) == len(shape))
            has_a = first > 1 and not f0.operands[first - 1].optional
            base = 1 if has_a else 0
            b = base if b is None else min(b, base)
            for j, kinds in var.items():
                slot = base + j - first
                if "imm" in kinds:
                    imm.add(slot)
                    for f in forms:
                        if len(f.operands) != len(shape) or j >= len(f.operands):
                            continue
                        o = f.operands[j]
                        if o.kind is OpKind.IMM and o.num is not None:
                            w = bits_width(o.num.bits) + o.num.shift
                            bits[slot] = max(bits.get(slot, 0), w)
                if "UR" in kinds:
                    ur.add(slot)
                if "cbank" in kinds:
                    cb.add(slot)
        return Slots(frozenset(imm), frozenset(ur), frozenset(cb), bits, multi, b)

    def half_pair_slot(self, opcode: str, mods: tuple[str, ...], ndst: int) -> frozenset[int]:
        """The source positions (``Instr.srcs`` indices, ``ndst`` destinations before them)
        where a form of ``opcode`` with every modifier of ``mods`` takes two f16 immediates
        (one f16x2 constant of the IR)."""
        out: set[int] = set()
        for pos, tokens in self._half_pairs(opcode):
            if pos >= ndst and all(m in tokens for m in mods):
                out.add(pos - ndst)
        return frozenset(out)

    def _half_pairs(self, opcode: str) -> tuple[tuple[int, frozenset[str]], ...]:
        got = self._half_cache.get(opcode)
        if got is None:
            got = self._half_cache[opcode] = self._half_pairs_of(opcode)
        return got

    def _half_pairs_of(self, opcode: str) -> tuple[tuple[int, frozenset[str]], ...]:
        out = []
        for f in self.family.forms_for_opcode(opcode):
            ops = f.operands
            for i in range(len(ops) - 1):
                a, b = ops[i], ops[i + 1]
                if all(
                    o.kind is OpKind.IMM and o.num is not None and o.num.kind is ImmKind.F16
                    for o in (a, b)
                ):
                    tokens = {
                        t
                        for m in f.mods
                        for toks in m.tokens.values()
                        for w in toks
                        for t in w.split(".")
                    }
                    # a form whose every value of one field names a token (HFMA2.MMA) needs it
                    forced = {
                        t
                        for m in f.mods
                        for t in {w for toks in m.tokens.values() for w in toks}
                        if all(t in toks for toks in m.tokens.values())
                    }
                    if forced:
                        continue
                    out.append((i, frozenset(tokens)))
                    break
        return tuple(out)

    def uniform_twin(self, opcode: str) -> str | None:
        """The uniform-datapath opcode of ``opcode`` (``IADD3`` -> ``UIADD3``), or None."""
        ops = self.family.by_opcode
        for twin in (f"U{opcode}", f"{opcode[:-1]}UR" if opcode.endswith("R") else ""):
            if twin in ops and self._writes_ur(twin):
                return twin
        return None

    def _writes_ur(self, opcode: str) -> bool:
        forms = self.family.forms_for_opcode(opcode)
        return any(
            f.operands and _kind(f.operands[0]) in (RegFile.UR.value, RegFile.UP.value)
            for f in forms
        )

    def is_memory_op(self, opcode: str) -> bool:
        """Whether ``opcode`` has an address operand (``[R+UR+imm]``) in some form."""
        got = self._memory_cache.get(opcode)
        if got is None:
            got = self._memory_cache[opcode] = any(
                o.kind is OpKind.MEM
                for f in self.family.forms_for_opcode(opcode)
                for o in f.operands
            )
        return got

    def mem_offset_bits(self, opcode: str) -> tuple[int, ...]:
        """Width of the signed immediate offset of each of ``opcode``'s address operands, in
        operand order (the narrowest over its forms; 0 for an address without one)."""
        per: list[int] = []
        for f in self.family.forms_for_opcode(opcode):
            mems = [o for o in f.operands if o.kind is OpKind.MEM]
            for i, o in enumerate(mems):
                w = bits_width(o.num.bits) if o.num is not None else 0
                if i < len(per):
                    per[i] = min(per[i], w)
                else:
                    per.append(w)
        return tuple(per)


@functools.cache
def load_op_properties(family: str) -> OpProperties:
    return OpProperties(load_family(family))
