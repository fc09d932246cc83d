"""The typed model of a cubin: header, sections with decoded contents, symbols, relocations.

A :class:`Cubin` holds what a cubin *says*; file offsets, string-table offsets, the section header
table's position and the program headers are *derived* by :mod:`openptxas.elf.writer` from the
layout rules ptxas follows. Where a ptxas cubin departs from those rules (a few sm_100+ cubins
leave gaps), the reader records the exception in ``Section.offset`` / ``Cubin.shoff`` /
``Cubin.segments`` / ``Cubin.fill`` so that read -> write stays byte-identical; a cubin built from
scratch leaves them unset.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from openptxas.diag import CubinFormatError
from openptxas.elf.consts import (
    CUDA_ABI_VERSION,
    ELFOSABI_CUDA,
    EM_CUDA,
    EV_CURRENT,
    NOBITS_TYPES,
    ElfType,
    SectionFlag,
    SectionType,
    SymbolBind,
    SymbolType,
    reloc_type_name,
    section_type_name,
)
from openptxas.elf.elffile import ProgramHeader
from openptxas.elf.nvinfo import Attribute, eiattr_name

# ----------------------------------------------------------------------------------------------
# Section contents


@dataclass(frozen=True, slots=True)
class Blob:
    """Bytes the model does not interpret further (code, constant banks, DWARF, ...)."""

    data: bytes

    def encode(self) -> bytes:
        return self.data


@dataclass(frozen=True, slots=True)
class NoBits:
    """A section with a memory size and no file bytes (shared memory, .nv.global)."""

    size: int

    def encode(self) -> bytes:
        return b""


@dataclass(frozen=True, slots=True)
class StringTable:
    """A string table as the list of its NUL-terminated strings, in file order.

    ptxas's tables keep every name ever added, including names of sections it later dropped
    or renamed (a rename overwrites the old name in place and pads it with NULs), so the list is
    part of the cubin's content. Names are found by their first occurrence.
    """

    strings: tuple[str, ...]

    def encode(self) -> bytes:
        return b"".join(s.encode("utf-8", "surrogateescape") + b"\0" for s in self.strings)

    def offset_of(self, name: str) -> int | None:
        off = 0
        for s in self.strings:
            if s == name:
                return off
            off += len(s.encode("utf-8", "surrogateescape")) + 1
        return None

    @staticmethod
    def decode(data: bytes) -> StringTable | None:
        if data and not data.endswith(b"\0"):
            return None
        parts = data.split(b"\0")[:-1] if data else []
        return StringTable(tuple(p.decode("utf-8", "surrogateescape") for p in parts))


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    bind: int = SymbolBind.LOCAL
    type: int = SymbolType.NOTYPE
    other: int = 0
    shndx: int = 0
    value: int = 0
    size: int = 0

    @property
    def info(self) -> int:
        return (self.bind << 4) | self.type

    def describe(self) -> str:
        try:
            b = SymbolBind(self.bind).name
        except ValueError:
            b = str(self.bind)
        try:
            t = SymbolType(self.type).name
        except ValueError:
            t = str(self.type)
        return (
            f"{self.name} {b} {t} other={self.other:#x} shndx={self.shndx} "
            f"value={self.value:#x} size={self.size:#x}"
        )


@dataclass(frozen=True, slots=True)
class SymbolTable:
    symbols: tuple[Symbol, ...]

    def encode(self) -> bytes:  # needs string offsets: see writer
        raise NotImplementedError("symbol tables are encoded by the writer")

    def index_of(self, name: str) -> int:
        for i, s in enumerate(self.symbols):
            if s.name == name:
                return i
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Relocation:
    offset: int
    sym: int
    type: int
    addend: int | None = 0  # None in SHT_REL sections

    @property
    def type_name(self) -> str:
        return reloc_type_name(self.type)

    def encode(self) -> bytes:
        info = (self.sym << 32) | self.type
        if self.addend is None:
            return struct.pack("<QQ", self.offset, info)
        return struct.pack("<QQq", self.offset, info, self.addend)


@dataclass(frozen=True, slots=True)
class RelocTable:
    relocs: tuple[Relocation, ...]
    with_addend: bool = True

    def encode(self) -> bytes:
        return b"".join(r.encode() for r in self.relocs)


@dataclass(frozen=True, slots=True)
class InfoSection:
    """``.nv.info`` / ``.nv.info.<f>`` (and their ``.nv.merc`` copies): EIATTR records."""

    attributes: tuple[Attribute, ...]

    def encode(self) -> bytes:
        return b"".join(a.encode() for a in self.attributes)

    def find(self, code: int) -> list[Attribute]:
        return [a for a in self.attributes if a.code == code]


@dataclass(frozen=True, slots=True)
class CompatSection:
    """``.nv.compat`` (sm_90+): EICOMPAT records (same record layout as EIATTR)."""

    attributes: tuple[Attribute, ...]

    def encode(self) -> bytes:
        return b"".join(a.encode() for a in self.attributes)


NOTE_NAME_NVIDIA = "NVIDIA Corp"
NOTE_TYPE_CUINFO = 1000
NOTE_TYPE_TKINFO = 2000


@dataclass(frozen=True, slots=True)
class CuInfo:
    """``.note.nv.cuinfo`` descriptor: ``u16 version, u16 sm, u32 CUDA API version``."""

    version: int
    sm: int
    api_version: int

    def encode(self) -> bytes:
        return struct.pack("<HHI", self.version, self.sm, self.api_version)


@dataclass(frozen=True, slots=True)
class TkInfo:
    """``.note.nv.tkinfo`` descriptor: ``u32 version`` and five string offsets into the string
    block that follows (object name, tool name, tool version, build, command-line options)."""

    version: int
    object_name: str
    tool_name: str
    tool_version: str
    tool_branch: str
    options: str

    def encode(self) -> bytes:
        strings = [self.object_name, self.tool_name, self.tool_version, self.tool_branch]
        block = bytearray()
        offsets = []
        for s in strings:
            offsets.append(len(block))
            block += s.encode("utf-8", "surrogateescape") + b"\0"
        offsets.append(len(block))
        block += self.options.encode("utf-8", "surrogateescape") + b"\0"
        block += bytes(-len(block) % 4)
        return struct.pack("<6I", self.version, *offsets) + bytes(block)

    @staticmethod
    def decode(desc: bytes) -> TkInfo | None:
        if len(desc) < 24:
            return None
        version, *offs = struct.unpack_from("<6I", desc, 0)
        block = desc[24:]
        vals = []
        for o in offs:
            end = block.find(b"\0", o)
            if o > len(block) or end < 0:
                return None
            vals.append(block[o:end].decode("utf-8", "surrogateescape"))
        t = TkInfo(version, *vals)
        return t if t.encode() == desc else None


@dataclass(frozen=True, slots=True)
class Note:
    name: str
    type: int
    desc: bytes

    def encode(self) -> bytes:
        name = self.name.encode("utf-8", "surrogateescape") + b"\0"
        return (
            struct.pack("<III", len(name), len(self.desc), self.type)
            + name
            + bytes(-len(name) % 4)
            + self.desc
            + bytes(-len(self.desc) % 4)
        )

    @property
    def cuinfo(self) -> CuInfo | None:
        if self.type != NOTE_TYPE_CUINFO or len(self.desc) != 8:
            return None
        return CuInfo(*struct.unpack("<HHI", self.desc))

    @property
    def tkinfo(self) -> TkInfo | None:
        return TkInfo.decode(self.desc) if self.type == NOTE_TYPE_TKINFO else None


@dataclass(frozen=True, slots=True)
class NoteSection:
    notes: tuple[Note, ...]

    def encode(self) -> bytes:
        return b"".join(n.encode() for n in self.notes)

    @staticmethod
    def decode(data: bytes) -> NoteSection | None:
        notes = []
        o = 0
        while o < len(data):
            if o + 12 > len(data):
                return None
            namesz, descsz, ntype = struct.unpack_from("<III", data, o)
            o += 12
            name_end = o + namesz
            desc_start = o + namesz + (-namesz % 4)
            desc_end = desc_start + descsz
            if desc_end > len(data) or namesz == 0 or data[name_end - 1] != 0:
                return None
            name = data[o : name_end - 1].decode("utf-8", "surrogateescape")
            notes.append(Note(name, ntype, data[desc_start:desc_end]))
            o = desc_end + (-descsz % 4)
        sec = NoteSection(tuple(notes))
        return sec if sec.encode() == data else None


@dataclass(frozen=True, slots=True)
class WordPairs:
    """Sections of (u32, u32) entries: ``.nv.callgraph`` (caller, callee: callee -1..-4 mark
    the four fixed entries ptxas writes first) and ``.nv.prototype`` (symbol, prototype)."""

    pairs: tuple[tuple[int, int], ...]

    def encode(self) -> bytes:
        return b"".join(struct.pack("<Ii", a, b) for a, b in self.pairs)

    @staticmethod
    def decode(data: bytes) -> WordPairs | None:
        if len(data) % 8:
            return None
        return WordPairs(tuple(struct.unpack_from("<Ii", data, o) for o in range(0, len(data), 8)))


Content = (
    Blob
    | NoBits
    | StringTable
    | SymbolTable
    | RelocTable
    | InfoSection
    | CompatSection
    | NoteSection
    | WordPairs
)


# ----------------------------------------------------------------------------------------------
# Sections and the cubin


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    type: int
    flags: int = 0
    content: Content = field(default_factory=lambda: Blob(b""))
    addralign: int = 1
    entsize: int = 0
    link: int = 0
    info: int = 0
    addr: int = 0
    offset: int | None = None  # explicit file offset; None = placed by the layout rule

    @property
    def has_file_data(self) -> bool:
        return self.type not in NOBITS_TYPES and self.type != SectionType.NULL

    @property
    def type_name(self) -> str:
        return section_type_name(self.type)

    @property
    def is_mercury(self) -> bool:
        return bool(self.flags & SectionFlag.MERCURY)

    def data(self) -> bytes:
        """The section's file bytes (not for symbol tables: use the writer)."""
        return self.content.encode()


@dataclass(frozen=True, slots=True)
class Cubin:
    e_type: int
    e_flags: int
    sections: tuple[Section, ...]  # index 0 is the null section
    shstrndx: int = 1
    osabi: int = ELFOSABI_CUDA
    abi_version: int = CUDA_ABI_VERSION
    e_machine: int = EM_CUDA
    e_version: int = EV_CURRENT
    e_entry: int = 0
    ident_pad: bytes = bytes(7)
    # Exceptions to the layout rules (see the module docstring); None/empty = follow the rules.
    shoff: int | None = None
    phoff: int | None = None
    segments: tuple[ProgramHeader, ...] | None = None
    fill: tuple[tuple[int, bytes], ...] = ()  # non-zero bytes outside every section and table
    size: int | None = None  # file size when it is not the end of the last table

    @property
    def sm(self) -> int:
        return (self.e_flags >> 8) & 0xFF

    @property
    def is_relocatable(self) -> bool:
        return self.e_type == ElfType.REL

    def section(self, name: str) -> Section:
        for s in self.sections:
            if s.name == name:
                return s
        raise KeyError(name)

    def section_index(self, name: str) -> int:
        for i, s in enumerate(self.sections):
            if s.name == name:
                return i
        raise KeyError(name)

    def find_sections(self, prefix: str) -> Iterator[tuple[int, Section]]:
        for i, s in enumerate(self.sections):
            if s.name.startswith(prefix):
                yield i, s

    @property
    def symtab(self) -> SymbolTable:
        for s in self.sections:
            if s.type == SectionType.SYMTAB and isinstance(s.content, SymbolTable):
                return s.content
        raise CubinFormatError("the cubin has no symbol table")

    def symbol_name(self, index: int) -> str:
        syms = self.symtab.symbols
        return syms[index].name if 0 <= index < len(syms) else f"<symbol {index}>"

    def with_sections(self, sections: tuple[Section, ...]) -> Cubin:
        return replace(self, sections=sections)


def attribute_summary(a: Attribute) -> str:
    return f"{eiattr_name(a.code)}={a.value!r}"
