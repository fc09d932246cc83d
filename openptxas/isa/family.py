"""Instruction-table families: one per SM family, loaded lazily and cheaply.

A family module in ``openptxas.isa.tables`` (e.g. ``sm90``) defines plain literals:

``FAMILY``   its name;
``BASE``     None, or the name of the family it derives from;
``REG_ZERO`` register file -> the code of its zero register (``{"UR": 63}``: URZ is UR63);
``FORMS``    the rows (:mod:`openptxas.isa.spec` describes the literal format), each prefixed by a
             unique row name: ``(name, opcode, mask, value, mods, operands, flags)``;
``DROP``     (derived families) names of base rows that do not exist in this family.

A derived family is its base's rows, minus ``DROP``, with rows of the same name replaced by its
own ``FORMS`` and the rest of its ``FORMS`` added; ``REG_ZERO`` entries override the base's. So
sm_89 is sm_80 plus its differences, not a copy.

Loading reads the module's literals (its marshalled pack, openptxas/isa/tables/pack.py, or the
module itself) and builds a key -> row-index map; rows become
:class:`~openptxas.isa.spec.Form` objects only when an opcode is first used.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openptxas.diag import UsageError
from openptxas.isa.model import RegFile
from openptxas.isa.spec import Form, form_from_literal

_DEFAULT_ZERO: dict[RegFile, int] = {RegFile.R: 255, RegFile.UR: 63, RegFile.P: 7, RegFile.UP: 7}


@dataclass(frozen=True)
class Family:
    name: str
    rows: tuple[tuple[Any, ...], ...]  # (name, opcode, mask, value, mods, operands, flags)
    reg_zero: Mapping[RegFile, int]
    by_key: Mapping[int, tuple[int, ...]]  # opcode bits 0-11 -> row indices, in table order
    by_opcode: Mapping[str, tuple[int, ...]]

    def form(self, index: int) -> Form:
        return _form(self.name, index)

    def forms_for_key(self, key: int) -> tuple[Form, ...]:
        return tuple(_form(self.name, i) for i in self.by_key.get(key, ()))

    def forms_for_opcode(self, opcode: str) -> tuple[Form, ...]:
        return tuple(_form(self.name, i) for i in self.by_opcode.get(opcode, ()))

    def all_forms(self) -> tuple[Form, ...]:
        return tuple(_form(self.name, i) for i in range(len(self.rows)))

    @property
    def opcodes(self) -> tuple[str, ...]:
        return tuple(sorted(self.by_opcode))

    # Register numbers: the model's zero registers (255 / 7) <-> this family's codes.
    def reg_code(self, file: RegFile, index: int) -> int:
        zero = self.reg_zero.get(file)
        if zero is None:
            return index
        model_zero = 7 if file in (RegFile.P, RegFile.UP) else 255
        if index == model_zero:
            return zero
        if index == zero:
            return -1  # the model's register with the zero register's code: not encodable
        return index

    def reg_index(self, file: RegFile, code: int) -> int:
        zero = self.reg_zero.get(file)
        if zero is not None and code == zero:
            return 7 if file in (RegFile.P, RegFile.UP) else 255
        return code


def _literals(name: str) -> Any:
    """The family module's literals: from its pack when current (tables/pack.py: no
    compilation of a 1 MB module in a process without byte code), else the module itself."""
    from openptxas.isa.tables import pack

    lits = pack.load(name) if name.isidentifier() else None
    if lits is not None:
        return _Literals(lits)
    try:
        return importlib.import_module(f"openptxas.isa.tables.{name}")
    except ModuleNotFoundError:
        raise UsageError(f"no SASS instruction table for family '{name}'") from None


class _Literals:
    """A pack's literals with a module's attribute access."""

    def __init__(self, lits: dict[str, Any]) -> None:
        self.__dict__.update(lits)


@functools.cache
def _module_rows(name: str) -> tuple[tuple[tuple[Any, ...], ...], dict[RegFile, int]]:
    mod = _literals(name)
    base = getattr(mod, "BASE", None)
    zero: dict[RegFile, int] = {}
    rows: list[tuple[Any, ...]]
    if base:
        base_rows, base_zero = _module_rows(base)
        zero.update(base_zero)
        dropped = set(getattr(mod, "DROP", ()))
        own = {r[0]: r for r in mod.FORMS}
        rows = [own.pop(r[0], r) for r in base_rows if r[0] not in dropped]
        rows.extend(r for r in mod.FORMS if r[0] in own)
    else:
        zero.update(_DEFAULT_ZERO)
        rows = list(mod.FORMS)
    zero.update({RegFile(k): int(v) for k, v in getattr(mod, "REG_ZERO", {}).items()})
    return tuple(rows), zero


@functools.cache
def load_family(name: str) -> Family:
    """The instruction table of family ``name`` (``"sm90"``)."""
    rows, zero = _module_rows(name)
    by_key: dict[int, list[int]] = {}
    by_op: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_key.setdefault(row[3] & 0xFFF, []).append(i)
        by_op.setdefault(row[1], []).append(i)
    return Family(
        name,
        rows,
        zero,
        {k: tuple(v) for k, v in by_key.items()},
        {k: tuple(v) for k, v in by_op.items()},
    )


@functools.cache
def _form(family: str, index: int) -> Form:
    row = load_family(family).rows[index]
    return form_from_literal(tuple(row[1:]), index, str(row[0]))
