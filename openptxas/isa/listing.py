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
from dataclasses import dataclass, field

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
class Reloc:
    """A relocation of an instruction's immediate (the cubin's ``.rela.text.<name>``): at
    ``offset`` in its section, of ELF type ``type``, against symbol ``sym`` plus ``addend``.
    ``target``: (section index, address) when the symbol is a function of the cubin, so that
    ``sym + addend`` is a code address nvdisasm names with a label (``.L_x_0@srel``)."""

    offset: int
    type: int
    sym: str
    addend: int = 0
    target: tuple[int, int] | None = None


# nvdisasm's notation of relocated immediates, by ELF relocation type (R_CUDA_*), observed on
# ptxas 13.0's relocatable cubins: "{}" is the symbol (or "(sym + .L_x_N@srel)")
RELOC_TEXT = {
    55: "`({})",  # R_CUDA_ABS32_32 (MOV R0, `(smem): a variable's address)
    56: "32@lo({})",  # R_CUDA_ABS32_LO_32
    57: "32@hi({})",  # R_CUDA_ABS32_HI_32
    62: "32@lo(fun@fdesc({}))",  # R_CUDA_FUNC_DESC32_LO_32
    63: "32@hi(fun@fdesc({}))",  # R_CUDA_FUNC_DESC32_HI_32
    75: "`({})",  # R_CUDA_ABS55_16_34 (CALL.ABS.NOINC `(f): an external function)
    # sm_80/86/89 (the public corpus rebuilt for them, scripts/corpus_retarget.py):
    58: "`({})",  # R_CUDA_ABS47_34 (CALL.ABS.NOINC `(f), sm_80's call field)
    74: "[`({})]",  # R_CUDA_ABS24_40 (LDS R10, [`(smem)]: the address of a shared variable)
}


@dataclass(frozen=True)
class DecodedSection:
    name: str
    items: tuple[Instruction | Unknown, ...]
    labels: Mapping[int, str]  # address -> label or function name printed for it
    # indirect branches (BRX): instruction address -> target addresses (EIATTR 0x34)
    branch_targets: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    # relocated immediates: instruction address -> nvdisasm's text for the operand
    relocs: Mapping[int, str] = field(default_factory=dict)


def label_map(
    sections: Sequence[CodeSection],
    decoded: Sequence[Sequence[Instruction | Unknown]],
    symbols: Sequence[Symbol],
    branch_targets: Sequence[Mapping[int, tuple[int, ...]]] | None = None,
    relocs: Sequence[Sequence[Reloc]] | None = None,
) -> list[dict[int, str]]:
    """Per section: address -> name, numbered as nvdisasm numbers them: code addresses that
    relocations refer to (``(f + .L_x_0@srel)``, sections in order, relocations by offset),
    the targets of branch instructions in order of first reference over all sections, then
    each indirect branch and its targets, then the end of every function symbol in
    symbol-table order."""
    names: list[dict[int, str]] = [{} for _ in sections]
    for s in symbols:
        if 0 <= s.section < len(sections):
            names[s.section].setdefault(s.value, s.name)
    counter = 0
    for rs in relocs or ():
        for r in sorted(rs, key=lambda r: r.offset):
            if r.target is not None and r.addend and 0 <= r.target[0] < len(sections):
                si, addr = r.target
                if addr not in names[si]:
                    names[si][addr] = f".L_x_{counter}"
                    counter += 1
    for si, items in enumerate(decoded):
        for item in items:
            if isinstance(item, Unknown):
                continue
            for op in item.operands:
                if isinstance(op, Label) and op.target not in names[si]:
                    names[si][op.target] = f".L_x_{counter}"
                    counter += 1
    # Then each indirect branch: the branch itself, then its targets in table order (a number
    # for each even when the address has a label already); then one per function symbol for
    # its end address.
    for si, indirect in enumerate(branch_targets or ()):
        for addr, targets in sorted(indirect.items()):
            for t in (addr, *targets):
                names[si].setdefault(t, f".L_x_{counter}")
                counter += 1
    for s in symbols:
        if 0 <= s.section < len(sections):
            names[s.section].setdefault(s.value + s.size, f".L_x_{counter}")
            counter += 1
    return names


def disassemble(
    sections: Sequence[CodeSection],
    symbols: Sequence[Symbol],
    fam: Family,
    branch_targets: Mapping[str, Mapping[int, tuple[int, ...]]] | None = None,
    relocs: Mapping[str, Sequence[Reloc]] | None = None,
) -> list[DecodedSection]:
    """Decode every section and name its branch targets. ``branch_targets``: per function,
    the indirect branches' targets (the cubin's EIATTR_INDIRECT_BRANCH_TARGETS); ``relocs``:
    per function, the relocations of its code."""
    decoded = [decode_code(s.code, fam) for s in sections]
    indirect = [dict((branch_targets or {}).get(s.name, {})) for s in sections]
    rels = [list((relocs or {}).get(s.name, ())) for s in sections]
    labels = label_map(sections, decoded, symbols, indirect, rels)
    out = []
    for s, items, lab, ind, rs in zip(sections, decoded, labels, indirect, rels, strict=True):
        notes: dict[int, str] = {}
        for r in rs:
            what = r.sym
            if r.target is not None and r.addend:
                si, addr = r.target
                what = f"({r.sym} + {labels[si].get(addr, hex(addr))}@srel)"
            fmt = RELOC_TEXT.get(r.type)
            if fmt is not None:
                notes[r.offset] = fmt.format(what)
        out.append(DecodedSection(s.name, tuple(items), lab, ind, notes))
    return out


def unknown_text(item: Unknown) -> str:
    lo, hi = item.words
    return f"UNKNOWN {lo:#018x}, {hi:#018x} ;"


def instruction_text(
    item: Instruction | Unknown,
    fam: Family,
    addr: int,
    labels: Mapping[int, str] | None,
    exact: bool = False,
) -> str:
    """nvdisasm's text for one decoded item (an explicit UNKNOWN line for unknown words)."""
    if isinstance(item, Unknown):
        return unknown_text(item)
    return format_instruction(item, fam, addr, labels, exact=exact)


def _plain_texts(sec: DecodedSection, fam: Family, exact: bool) -> list[str]:
    texts = [
        instruction_text(item, fam, 16 * n, sec.labels, exact) for n, item in enumerate(sec.items)
    ]
    if not exact:
        for addr, note in sec.relocs.items():
            n = addr // 16
            if addr % 16 == 0 and 0 <= n < len(texts) and isinstance(sec.items[n], Instruction):
                texts[n] = relocated_text(texts[n], note)
    return texts


def relocated_text(text: str, note: str) -> str:
    """``text`` with its last operand (the relocated immediate) written as nvdisasm writes a
    relocation (``MOV R20, 32@lo(sym) ;``); a relocated address (``[...]`` note) replaces the
    instruction's address operand (``STS [`(smem)], R4``). The exact text keeps the immediate
    (the word's bits), so that it assembles back."""
    if note.startswith("[") and (m := re.search(r"\[[^\]]*\]", text)):
        return text[: m.start()] + note + text[m.end() :]
    body = text.removesuffix(";")
    tail = body[len(body.rstrip()) :]
    body = body.rstrip()
    cut = body.rfind(", ")
    if cut < 0:
        cut = body.rfind(" ")
        return body[: cut + 1] + note + tail + ";"
    return body[: cut + 2] + note + tail + ";"


def _line_key(addr: int, text: str) -> int:
    """What nvdisasm measures of an instruction's line: the address field (``/*0a00*/``, wider
    past 0xffff) plus the text, guard included (not the guard column's padding)."""
    return len(f"/*{addr:04x}*/") + len(text)


def listing_width(sections: Sequence[DecodedSection], fam: Family, exact: bool = False) -> int:
    """The longest instruction line of a whole cubin (:func:`_line_key`): nvdisasm pads an
    indirect branch's line so that its target list starts where that line ends (a five-digit
    address in one function moves the column of every BRX in the cubin)."""
    return max(
        (_line_key(16 * n, t) for s in sections for n, t in enumerate(_plain_texts(s, fam, exact))),
        default=0,
    )


def section_texts(
    sec: DecodedSection, fam: Family, exact: bool = False, width: int | None = None
) -> list[str]:
    """Each instruction's text as nvdisasm lists it in a cubin: an indirect branch carries its
    targets, ``BRX R2 -0x190   (*"BRANCH_TARGETS .L_x_6,.L_x_7"*);``, its line padded to
    ``width`` (:func:`listing_width`; by default this section's)."""
    texts = _plain_texts(sec, fam, exact)
    if sec.branch_targets:
        if width is None:
            width = max(_line_key(16 * n, t) for n, t in enumerate(texts))
        for addr, targets in sec.branch_targets.items():
            n = addr // 16
            if 0 <= n < len(texts) and addr % 16 == 0:
                names = ",".join(sec.labels.get(t, f"{t:#x}") for t in targets)
                body = texts[n].removesuffix(";").rstrip()
                guard, _, rest = body.partition(" ") if body.startswith("@") else ("", "", body)
                note = f'(*"BRANCH_TARGETS {names}"*);'
                pad = width - len(f"/*{addr:04x}*/") - (len(guard) + 1 if guard else 0)
                texts[n] = (f"{guard} " if guard else "") + f"{rest:<{pad}}" + note
    return texts


def format_section(
    sec: DecodedSection,
    fam: Family,
    hex_words: bool = False,
    control: bool = False,
    exact: bool = False,
    width: int | None = None,
) -> list[str]:
    """The listing lines of one section, in nvdisasm's layout (see ``format_instruction`` for
    ``exact``, :func:`section_texts` for ``width``; ``control`` prefixes each line with its
    control field)."""
    lines: list[str] = []
    texts = section_texts(sec, fam, exact, width)
    for n, item in enumerate(sec.items):
        addr = 16 * n
        label = sec.labels.get(addr)
        if label is not None:
            lines.append(f"{label}:")
        text = texts[n]
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
    s = re.sub(r"/\*.*?\*/|\(\*.*?\*\)", "", line).strip()
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
