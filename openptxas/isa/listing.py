"""Whole-cubin disassembly listings in nvdisasm's layout, and their inverse.

:func:`disassemble` decodes every code section and names branch targets as nvdisasm does:
``.L_x_N`` labels numbered in order of first reference, section by section, then one number per
function symbol (in symbol-table order) for the address where the function ends; an address that
is a function's start prints as the function's name. :func:`assemble` reads such a listing (or
any SASS text in nvdisasm's syntax, with optional control prefixes) back into code.

This module knows no ELF: callers pass sections and symbols (``openptxas.tools`` reads cubins).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openptxas.isa.asmparse import SassAsmError, parse_line_full
from openptxas.isa.codec import decode_code, encode
from openptxas.isa.control import format_control
from openptxas.isa.family import Family
from openptxas.isa.model import Instruction, Label, Unknown
from openptxas.isa.printer import format_instruction


@dataclass(frozen=True)
class Symbol:
    """A function symbol: its section (index into the section list), offset, size and name."""

    section: int
    value: int
    size: int
    name: str


@dataclass(frozen=True)
class CodeSection:
    name: str  # function name (the section is .text.<name>)
    code: bytes


@dataclass(frozen=True)
class DecodedSection:
    name: str
    items: tuple[Instruction | Unknown, ...]
    labels: Mapping[int, str]  # address -> label or function name printed for it


def label_map(
    sections: Sequence[CodeSection],
    decoded: Sequence[Sequence[Instruction | Unknown]],
    symbols: Sequence[Symbol],
) -> list[dict[int, str]]:
    """Per section: address -> name, numbered as nvdisasm numbers them."""
    names: list[dict[int, str]] = [{} for _ in sections]
    for s in symbols:
        if 0 <= s.section < len(sections):
            names[s.section].setdefault(s.value, s.name)
    counter = 0
    for si, items in enumerate(decoded):
        for item in items:
            if isinstance(item, Unknown):
                continue
            for op in item.operands:
                if isinstance(op, Label) and op.target not in names[si]:
                    names[si][op.target] = f".L_x_{counter}"
                    counter += 1
    for s in symbols:
        if 0 <= s.section < len(sections):
            names[s.section].setdefault(s.value + s.size, f".L_x_{counter}")
            counter += 1
    return names


def disassemble(
    sections: Sequence[CodeSection], symbols: Sequence[Symbol], fam: Family
) -> list[DecodedSection]:
    decoded = [decode_code(s.code, fam) for s in sections]
    labels = label_map(sections, decoded, symbols)
    return [
        DecodedSection(s.name, tuple(items), lab)
        for s, items, lab in zip(sections, decoded, labels, strict=True)
    ]


def unknown_text(item: Unknown) -> str:
    lo, hi = item.words
    return f"UNKNOWN {lo:#018x}, {hi:#018x} ;"


def instruction_text(
    item: Instruction | Unknown, fam: Family, addr: int, labels: Mapping[int, str] | None
) -> str:
    """nvdisasm's text for one decoded item (an explicit UNKNOWN line for unknown words)."""
    if isinstance(item, Unknown):
        return unknown_text(item)
    return format_instruction(item, fam, addr, labels)


def format_section(
    sec: DecodedSection, fam: Family, hex_words: bool = False, control: bool = False
) -> list[str]:
    """The listing lines of one section, in nvdisasm's layout."""
    lines: list[str] = []
    for n, item in enumerate(sec.items):
        addr = 16 * n
        label = sec.labels.get(addr)
        if label is not None:
            lines.append(f"{label}:")
        text = instruction_text(item, fam, addr, sec.labels)
        guard = ""
        if isinstance(item, Instruction) and text.startswith("@"):
            guard, _, text = text.partition(" ")
            guard += " "
        line = f"        /*{addr:04x}*/{guard:>19}{text}"
        if control and isinstance(item, Instruction):
            line = f"{format_control(item.control)} {line.lstrip()}"
        if hex_words:
            word = encode(item, fam, addr)
            lo, hi = word & (2**64 - 1), word >> 64
            line = f"{line:<80}/* {lo:#018x} */\n{'':<80}/* {hi:#018x} */"
        lines.append(line)
    end = sec.labels.get(16 * len(sec.items))
    if end is not None:
        lines.append(f"{end}:")
    return lines


# ----------------------------------------------------------------------------------------------
# Assembly


_LABEL_DEF = re.compile(r"^\s*([.$\w][\w.$]*):\s*$")
_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_COMMENT_ONLY = re.compile(r"^\s*(//.*)?$")
_UNKNOWN = re.compile(r"UNKNOWN\s+(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)")


@dataclass(frozen=True)
class AssembledSection:
    name: str
    code: bytes


def _is_instruction(line: str) -> bool:
    s = re.sub(r"/\*.*?\*/", "", line).strip()
    return bool(s) and not s.startswith((".", "//", "#")) and not _LABEL_DEF.match(line)


def assemble(text: str, fam: Family, source: str = "<sass>") -> list[AssembledSection]:
    """Assemble SASS text (nvdisasm's listing syntax, control prefixes allowed) into code.

    Two passes per section: label definitions get the address of the next instruction, then
    every instruction is parsed and encoded at its address. Raises SassAsmError with the line
    number on the first bad line.
    """
    sections: list[tuple[str, list[tuple[int, str]]]] = [("", [])]
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("//", 1)[0] if "//" in raw and "`" not in raw else raw
        m = _SECTION.match(line)
        if m:
            sections.append((m.group(1), []))
            continue
        if _COMMENT_ONLY.match(line):
            continue
        sections[-1][1].append((lineno, line))
    out: list[AssembledSection] = []
    for name, lines in sections:
        if not lines:
            continue
        labels: dict[str, int] = {}
        addr = 0
        for _, line in lines:
            m = _LABEL_DEF.match(line)
            if m:
                labels[m.group(1)] = addr
            elif _is_instruction(line):
                addr += 16
        code = bytearray()
        addr = 0
        for lineno, line in lines:
            if not _is_instruction(line):
                continue
            try:
                m = _UNKNOWN.search(line)
                if m:
                    word = int(m.group(1), 16) | int(m.group(2), 16) << 64
                else:
                    parsed = parse_line_full(line, fam, addr, labels)
                    word = encode(parsed.instruction, fam, addr)
            except SassAsmError as exc:
                raise SassAsmError(f"{source}:{lineno}: {exc.message}") from None
            code += word.to_bytes(16, "little")
            addr += 16
        out.append(AssembledSection(name, bytes(code)))
    return out
