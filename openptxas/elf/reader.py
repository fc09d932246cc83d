"""Bytes -> cubin model. Every malformed input raises :class:`~openptxas.diag.CubinFormatError`.

Each section's bytes are decoded into the richest content type that re-encodes to the same
bytes; anything else stays a :class:`~openptxas.elf.model.Blob`. Departures from the layout
rules are recorded in the model (see :mod:`openptxas.elf.model`) so that
``write_cubin(read_cubin(b)) == b`` for every ptxas cubin.
"""

from __future__ import annotations

from dataclasses import replace

from openptxas.diag import CubinFormatError
from openptxas.elf.consts import (
    EM_CUDA,
    INFO_TYPES,
    NOBITS_TYPES,
    RELA_TYPES,
    SYMTAB_TYPES,
    SectionType,
)
from openptxas.elf.elffile import (
    EHDR_SIZE,
    RawElf,
    c_string,
    parse_elf,
    unpack_relocs,
    unpack_symbols,
)
from openptxas.elf.model import (
    Blob,
    CompatSection,
    Content,
    Cubin,
    InfoSection,
    NoBits,
    NoteSection,
    Relocation,
    RelocTable,
    Section,
    StringTable,
    Symbol,
    SymbolTable,
    WordPairs,
)
from openptxas.elf.nvinfo import decode_records
from openptxas.elf.writer import (
    advance,
    align_up,
    layout,
    mercury_base,
    shares_data,
    slack_after,
    write_cubin,
)


def _decode_content(raw: RawElf, index: int) -> Content:
    sh = raw.sections[index]
    data = raw.data[index]
    t = sh.type
    if t in NOBITS_TYPES:
        return NoBits(sh.size)
    content: Content | None = None
    try:
        if t == SectionType.STRTAB:
            content = StringTable.decode(data)
        elif t in SYMTAB_TYPES:
            if not 0 < sh.link < len(raw.sections):
                raise CubinFormatError(f"symbol table {index}: bad string table link {sh.link}")
            strtab = raw.data[sh.link]
            syms = unpack_symbols(data)
            content = SymbolTable(
                tuple(
                    Symbol(
                        name=c_string(strtab, s.name),
                        bind=s.info >> 4,
                        type=s.info & 0xF,
                        other=s.other,
                        shndx=s.shndx,
                        value=s.value,
                        size=s.size,
                    )
                    for s in syms
                )
            )
        elif t in RELA_TYPES or t == SectionType.REL:
            rela = t != SectionType.REL
            content = RelocTable(
                tuple(
                    Relocation(r.offset, r.sym, r.type, r.addend) for r in unpack_relocs(data, rela)
                ),
                with_addend=rela,
            )
        elif t in INFO_TYPES:
            content = InfoSection(decode_records(data))
        elif t == SectionType.CUDA_COMPAT_INFO:
            content = CompatSection(decode_records(data, typed=False))
        elif t == SectionType.NOTE:
            content = NoteSection.decode(data)
        elif t in (SectionType.CUDA_CALLGRAPH, SectionType.CUDA_PROTOTYPE):
            content = WordPairs.decode(data)
    except CubinFormatError:
        content = None  # undecodable contents are kept as bytes
    if content is None or isinstance(content, SymbolTable):
        return content if content is not None else Blob(data)
    if content.encode() != data:
        return Blob(data)
    return content


def read_cubin(blob: bytes) -> Cubin:
    """Parse a cubin into the model; raise CubinFormatError if it is not a well-formed one."""
    raw = parse_elf(bytes(blob), NOBITS_TYPES)
    h = raw.header
    if h.e_machine != EM_CUDA:
        raise CubinFormatError(f"not a CUDA ELF file (e_machine {h.e_machine}, expected {EM_CUDA})")
    if not raw.sections:
        raise CubinFormatError("the file has no sections")
    sections: list[Section] = []
    for i, sh in enumerate(raw.sections):
        content: Content = Blob(b"") if i == 0 else _decode_content(raw, i)
        sections.append(
            Section(
                name=raw.name_of(i),
                type=sh.type,
                flags=sh.flags,
                content=content,
                addralign=sh.addralign,
                entsize=sh.entsize,
                link=sh.link,
                info=sh.info,
                addr=sh.addr,
            )
        )
    cubin = Cubin(
        e_type=h.e_type,
        e_flags=h.e_flags,
        sections=tuple(sections),
        shstrndx=h.e_shstrndx,
        osabi=h.osabi,
        abi_version=h.abi_version,
        e_machine=h.e_machine,
        e_version=h.e_version,
        e_entry=h.e_entry,
        ident_pad=h.ident_pad,
    )
    if not isinstance(sections[h.e_shstrndx].content, StringTable):
        raise CubinFormatError("the section name table is not a string table")
    return _record_layout(cubin, raw, blob)


def _record_layout(cubin: Cubin, raw: RawElf, blob: bytes) -> Cubin:
    """Pin whatever the layout rules do not predict, so that writing reproduces ``blob``."""
    secs = list(cubin.sections)
    running = EHDR_SIZE
    slack = slack_after(cubin)
    placed: dict[str, int] = {}
    for i in range(1, len(secs)):
        sh = raw.sections[i]
        s = secs[i]
        predicted = align_up(running, s.addralign)
        base = mercury_base(s.name) if shares_data(s) else None
        if base is not None and base in placed and raw.data[placed[base]] == raw.data[i]:
            predicted = raw.sections[placed[base]].offset
        if predicted != sh.offset:
            secs[i] = replace(s, offset=sh.offset)
        if not s.is_mercury:
            placed.setdefault(s.name, i)
        running = advance(running, s, sh.offset, sh.size)
        running += slack[i]
    cubin = replace(cubin, sections=tuple(secs))
    lay = layout(replace(cubin, segments=()))
    if lay.shoff != raw.header.e_shoff:
        cubin = replace(cubin, shoff=raw.header.e_shoff)
    try:
        lay = layout(cubin)
        segments_ok = lay.segments == raw.segments
    except CubinFormatError:
        segments_ok = False
    if not segments_ok:
        cubin = replace(cubin, segments=raw.segments)
    lay = layout(cubin)
    if lay.phoff != raw.header.e_phoff:
        cubin = replace(cubin, phoff=raw.header.e_phoff)
        lay = layout(cubin)
    if lay.size != len(blob):
        cubin = replace(cubin, size=len(blob))
    out = write_cubin(cubin)
    if out != blob:
        cubin = replace(cubin, fill=_diff_runs(out, blob))
        if write_cubin(cubin) != blob:
            raise CubinFormatError("the cubin's layout cannot be represented (overlapping data)")
    return cubin


def _diff_runs(have: bytes, want: bytes) -> tuple[tuple[int, bytes], ...]:
    runs: list[tuple[int, bytes]] = []
    i = 0
    n = len(want)
    while i < n:
        if have[i] == want[i]:
            i += 1
            continue
        j = i
        while j < n and have[j] != want[j]:
            j += 1
        runs.append((i, want[i:j]))
        i = j
    return tuple(runs)
