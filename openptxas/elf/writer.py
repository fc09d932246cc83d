"""Cubin model -> bytes, laid out as ptxas 13.0.88 lays out its output.

Layout rules (checked on every cubin in tests/elf; docs/elf.md has the details):

- The ELF header is followed by the section contents in section-header order, each at the next
  offset aligned to its ``sh_addralign``. Sections without file bytes (NOBITS and the CUDA
  ``.nv.shared``/``.nv.global`` types of ``-c`` output) get that aligned offset too and take no
  room.
- The section header table follows at the next multiple of 8, then the program headers (none in
  ``-c`` output, where ``e_phoff`` is 0).
- Section and symbol names point at the first occurrence of the name in their string table.
- Program headers (EXEC only): ``PHDR`` and a ``LOAD`` of the program header table, plus one
  ``LOAD`` per run of consecutive allocated sections with the same permissions (R, R+X, R+W).
  sm_75..sm_89 (targets flag ``elf_legacy_segments``) use R+X for every read-only run, list the
  table's ``LOAD`` last and mark ``PHDR`` R+X; sm_90+ lists it second and splits R from R+X.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from openptxas.diag import CubinFormatError, UsageError
from openptxas.elf.consts import (
    INFO_TYPES,
    ElfType,
    SectionFlag,
    SectionType,
    SegmentFlag,
    SegmentType,
    SymbolBind,
)
from openptxas.elf.elffile import (
    EHDR_SIZE,
    PHDR_SIZE,
    SHDR_SIZE,
    SYM,
    ElfHeader,
    ProgramHeader,
    SectionHeader,
)
from openptxas.elf.model import Cubin, NoBits, Section, StringTable, SymbolTable


def align_up(value: int, alignment: int) -> int:
    if alignment <= 1:
        return value
    return (value + alignment - 1) // alignment * alignment


@dataclass(frozen=True, slots=True)
class Layout:
    data: tuple[bytes, ...]  # every section's file bytes (b"" without file data)
    headers: tuple[SectionHeader, ...]
    shoff: int
    phoff: int
    segments: tuple[ProgramHeader, ...]
    size: int


def legacy_segments(sm: int) -> bool | None:
    """Whether ptxas writes sm_75..89-style program headers for ``sm`` (None: unknown SM)."""
    from openptxas.targets import get_target

    try:
        return get_target(f"sm_{sm}").elf_legacy_segments
    except UsageError:
        return None


def _string_table(cubin: Cubin, index: int, what: str) -> StringTable:
    if not 0 <= index < len(cubin.sections):
        raise CubinFormatError(f"{what}: string table index {index} is out of range")
    content = cubin.sections[index].content
    if not isinstance(content, StringTable):
        raise CubinFormatError(f"{what}: section {index} is not a string table")
    return content


def _name_offset(table: StringTable, name: str, what: str) -> int:
    off = table.offset_of(name)
    if off is None:
        raise CubinFormatError(f"{what} name {name!r} is not in its string table")
    return off


def encode_symbols(cubin: Cubin, sec: Section) -> bytes:
    assert isinstance(sec.content, SymbolTable)
    table = _string_table(cubin, sec.link, sec.name)
    out = bytearray()
    for sym in sec.content.symbols:
        out += SYM.pack(
            _name_offset(table, sym.name, "symbol"),
            sym.info,
            sym.other,
            sym.shndx,
            sym.value,
            sym.size,
        )
    return bytes(out)


def section_bytes(cubin: Cubin, sec: Section) -> bytes:
    if isinstance(sec.content, SymbolTable):
        return encode_symbols(cubin, sec)
    return sec.content.encode()


def section_size(sec: Section, data: bytes) -> int:
    return sec.content.size if isinstance(sec.content, NoBits) else len(data)


def symtab_info(sec: Section) -> int:
    """``sh_info`` of a symbol table as ptxas writes it: one past the last LOCAL symbol."""
    assert isinstance(sec.content, SymbolTable)
    last = 0
    for i, s in enumerate(sec.content.symbols):
        if s.bind == SymbolBind.LOCAL:
            last = i + 1
    return last


def derive_segments(
    cubin: Cubin, offsets: list[int], sizes: list[int], phoff: int
) -> tuple[ProgramHeader, ...]:
    """Program headers by ptxas's rule (EXEC cubins of a known SM)."""
    legacy = legacy_segments(cubin.sm)
    if legacy is None:
        raise CubinFormatError(f"no program header rule for sm_{cubin.sm}")
    ph_table = 0  # size filled below
    runs: list[tuple[int, list[int]]] = []  # (permission flags, section indices)
    for i, s in enumerate(cubin.sections):
        if not s.flags & SectionFlag.ALLOC or s.flags & SectionFlag.MERCURY:
            continue
        perm: int
        if s.flags & SectionFlag.EXECINSTR:
            perm = SegmentFlag.R | SegmentFlag.X
        elif s.flags & SectionFlag.WRITE:
            perm = SegmentFlag.R | SegmentFlag.W
        else:
            perm = SegmentFlag.R | SegmentFlag.X if legacy else SegmentFlag.R
        if runs and runs[-1][0] == perm:
            runs[-1][1].append(i)
        else:
            runs.append((perm, [i]))
    loads: list[ProgramHeader] = []
    for perm, members in runs:
        start = offsets[members[0]]
        file_end = start
        mem = start
        for i in members:
            s = cubin.sections[i]
            mem = align_up(mem, s.addralign)
            if s.has_file_data:
                file_end = max(file_end, offsets[i] + sizes[i])
                mem = max(mem, offsets[i] + sizes[i])
            else:
                file_end = max(file_end, offsets[i])
                mem += sizes[i]
        loads.append(
            ProgramHeader(
                SegmentType.LOAD, int(perm), start, 0, 0, file_end - start, mem - start, 8
            )
        )
    n = len(loads) + 2
    ph_table = n * PHDR_SIZE
    table_flags = int(SegmentFlag.R | SegmentFlag.X) if legacy else int(SegmentFlag.R)
    phdr = ProgramHeader(SegmentType.PHDR, table_flags, phoff, 0, 0, ph_table, ph_table, 8)
    table_load = ProgramHeader(SegmentType.LOAD, table_flags, phoff, 0, 0, ph_table, ph_table, 8)
    if legacy:
        return (phdr, *loads, table_load)
    return (phdr, table_load, *loads)


def advance(running: int, sec: Section, offset: int, size: int) -> int:
    """The layout cursor after placing ``sec`` at ``offset``."""
    # .nv.merc.nv.shared.reserved.0 has no data but ptxas leaves its size in zeros (the -c
    # .nv.shared.reserved.0 of the same type takes no room)
    takes_room = sec.has_file_data or (
        sec.type == SectionType.CUDA_RESERVED_SHARED and sec.is_mercury
    )
    return max(running, offset + size if takes_room else offset)


def shstrtab_slack(cubin: Cubin) -> int:
    """Unused bytes ptxas leaves after the section name table (sm_90+).

    sm_90 reserves room for the names ``.nv.capmerc.text.<f>`` of every code section (which only
    sm_100+ cubins carry) plus 14 bytes; sm_100+ leaves 36 bytes. Observed, not explained.
    """
    from openptxas.targets import get_target

    try:
        t = get_target(f"sm_{cubin.sm}")
    except UsageError:
        return 0
    slack = t.elf_shstrtab_slack
    if t.elf_shstrtab_slack_per_text:
        for s in cubin.sections:
            if s.name.startswith(".text."):
                slack += len(f".nv.capmerc{s.name}".encode("utf-8", "surrogateescape")) + 1
    return slack


def strtab_slack(cubin: Cubin) -> int:
    """Unused bytes ptxas leaves after the symbol string table (sm_100+, where renamed constant
    banks get their new names appended to ``.strtab``).

    Observed: for every constant bank renamed at the end (``.nv.constant.pic`` ->
    ``.nv.constant4``, ``.nv.constant.user`` -> ``.nv.constant3``,
    ``.nv.constant.optimizer.<f>`` -> ``.nv.constant2.<f>``,
    ``.nv.constant.entry_image_header_indices.<f>`` -> ``.nv.constant0.<f>``)
    ``len(old) - len(new) - 1`` bytes,
    plus ``len(old)`` of the old name of its relocation section (``.rela.nv.constant.pic``, ...)
    when that exists. Not explained.
    """
    from openptxas.targets import get_target

    try:
        t = get_target(f"sm_{cubin.sm}")
    except UsageError:
        return 0
    if t.elf_rename_in_place or not t.elf_constant_renames:
        return 0
    strings: set[str] = set()
    for s in cubin.sections:
        if s.type == SectionType.STRTAB and isinstance(s.content, StringTable):
            strings.update(s.content.strings)
    slack = 0
    for s in cubin.sections:
        rela = s.name.startswith(".rela.")
        new = s.name[len(".rela") :] if rela else s.name
        old = _pre_rename(new)
        if old is None or old not in strings:
            continue
        if rela:
            slack += len(".rela" + old)
        else:
            slack += len(old) - len(new) - 1
    return slack


def slack_after(cubin: Cubin) -> list[int]:
    """Per section: the unused bytes ptxas leaves after it (string tables, sm_90+)."""
    slack = [0] * len(cubin.sections)
    if not 0 < cubin.shstrndx < len(slack):
        return slack
    slack[cubin.shstrndx] = shstrtab_slack(cubin)
    extra = strtab_slack(cubin)
    if extra:
        for i, s in enumerate(cubin.sections):
            if i and i != cubin.shstrndx and s.type == SectionType.STRTAB:
                slack[i] += extra
                break
    return slack


def _pre_rename(name: str) -> str | None:
    """The name ptxas gave a constant bank before renaming it (None: not a renamed bank)."""
    for old, new in _PRE_RENAME.items():
        if name == new:
            return old
    for old, new in _PRE_RENAME_PREFIX.items():
        if name.startswith(new):
            return old + name[len(new) :]
    return None


# Mercury copies (sm_100+) of these sections carry the name the section had before ptxas
# renamed it to its constant bank.
_PRE_RENAME = {".nv.constant.pic": ".nv.constant4", ".nv.constant.user": ".nv.constant3"}
_PRE_RENAME_PREFIX = {
    ".nv.constant.optimizer.": ".nv.constant2.",
    ".nv.constant.entry_image_header_indices.": ".nv.constant0.",
}


def mercury_base(name: str) -> str | None:
    """The section a ``.nv.merc.*`` section copies, by name (None for other sections)."""
    if not name.startswith(".nv.merc."):
        return None
    base = name[len(".nv.merc") :]
    if base in _PRE_RENAME:
        return _PRE_RENAME[base]
    for old, new in _PRE_RENAME_PREFIX.items():
        if base.startswith(old):
            return new + base[len(old) :]
    return base


def shares_data(sec: Section) -> bool:
    """Whether ``sec`` is a Mercury copy that reuses its original's bytes when they agree
    (data and debug sections do; the EIATTR copies never do)."""
    return sec.is_mercury and sec.has_file_data and sec.type not in INFO_TYPES


def layout(cubin: Cubin) -> Layout:
    secs = cubin.sections
    if not secs:
        raise CubinFormatError("a cubin needs at least the null section")
    data = [section_bytes(cubin, s) for s in secs]
    sizes = [section_size(s, d) for s, d in zip(secs, data, strict=True)]
    offsets = [0] * len(secs)
    running = EHDR_SIZE
    slack = slack_after(cubin)
    placed: dict[str, int] = {}
    for i, s in enumerate(secs):
        if i == 0:
            continue
        if s.offset is not None:
            off = s.offset
        else:
            off = align_up(running, s.addralign)
            # A Mercury copy identical to its original shares the original's bytes.
            base = mercury_base(s.name) if shares_data(s) else None
            if base is not None and base in placed and data[placed[base]] == data[i]:
                off = offsets[placed[base]]
        offsets[i] = off
        if not s.is_mercury:
            placed.setdefault(s.name, i)
        running = advance(running, s, off, sizes[i])
        running += slack[i]
    shoff = cubin.shoff if cubin.shoff is not None else align_up(running, 8)
    exec_file = cubin.e_type == ElfType.EXEC
    if cubin.segments is not None:
        nseg = len(cubin.segments)
    elif exec_file:
        nseg = -1  # derived below
    else:
        nseg = 0
    if cubin.phoff is not None:
        phoff = cubin.phoff
    elif nseg != 0:
        phoff = shoff + SHDR_SIZE * len(secs)
    else:
        phoff = 0
    if cubin.segments is not None:
        segments = cubin.segments
    elif exec_file:
        segments = derive_segments(cubin, offsets, sizes, phoff)
    else:
        segments = ()
    shstr = _string_table(cubin, cubin.shstrndx, "section header string table")
    headers = []
    for i, s in enumerate(secs):
        headers.append(
            SectionHeader(
                name=_name_offset(shstr, s.name, "section"),
                type=s.type,
                flags=s.flags,
                addr=s.addr,
                offset=offsets[i],
                size=sizes[i],
                link=s.link,
                info=s.info,
                addralign=s.addralign,
                entsize=s.entsize,
            )
        )
    end = max(
        running,
        shoff + SHDR_SIZE * len(secs),
        phoff + PHDR_SIZE * len(segments) if segments else 0,
    )
    size = cubin.size if cubin.size is not None else end
    return Layout(tuple(data), tuple(headers), shoff, phoff, tuple(segments), size)


def write_cubin(cubin: Cubin) -> bytes:
    """Serialize a cubin model. Deterministic; raises CubinFormatError on inconsistent models."""
    lay = layout(cubin)
    header = ElfHeader(
        osabi=cubin.osabi,
        abi_version=cubin.abi_version,
        e_type=cubin.e_type,
        e_machine=cubin.e_machine,
        e_version=cubin.e_version,
        e_entry=cubin.e_entry,
        e_phoff=lay.phoff,
        e_shoff=lay.shoff,
        e_flags=cubin.e_flags,
        e_phnum=len(lay.segments),
        e_shnum=len(lay.headers),
        e_shstrndx=cubin.shstrndx,
        ident_pad=cubin.ident_pad,
        e_phentsize=PHDR_SIZE if lay.segments or legacy_segments(cubin.sm) else 0,
    )
    buf = bytearray(lay.size)
    written = bytearray(lay.size)  # 1 where a byte has been placed, to catch clashes

    def put(offset: int, blob: bytes, what: str) -> None:
        end = offset + len(blob)
        if end > len(buf):
            raise CubinFormatError(f"{what} ends past the end of the file")
        mask = written[offset:end]
        if mask.count(1):  # overlap: allowed only where the bytes agree (shared section data)
            old = buf[offset:end]
            for j in range(len(blob)):
                if mask[j] and old[j] != blob[j]:
                    raise CubinFormatError(f"{what} overlaps other data at offset {offset + j:#x}")
        buf[offset:end] = blob
        written[offset:end] = b"\1" * len(blob)

    put(0, header.pack(), "ELF header")
    for i, (sh, blob) in enumerate(zip(lay.headers, lay.data, strict=True)):
        if i and cubin.sections[i].has_file_data:
            put(sh.offset, blob, f"section {i} ({cubin.sections[i].name})")
    put(lay.shoff, b"".join(h.pack() for h in lay.headers), "section header table")
    if lay.segments:
        put(lay.phoff, b"".join(p.pack() for p in lay.segments), "program header table")
    for off, blob in cubin.fill:
        end = off + len(blob)
        buf[off:end] = blob
    return bytes(buf)


def pack_u32s(values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)
