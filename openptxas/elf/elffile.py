"""ELF64 at the byte level: header, section headers, program headers, symbols, relocations.

This module knows the ELF container and nothing about CUDA. :func:`parse_elf` checks every
offset and size it follows and raises :class:`~openptxas.diag.CubinFormatError` on anything
malformed; the packers here are the inverse of the unpackers.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from openptxas.diag import CubinFormatError

ELF_MAGIC = b"\x7fELF"
ELFCLASS64 = 2
ELFDATA2LSB = 1
EV_CURRENT = 1

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
SHDR = struct.Struct("<IIQQQQIIQQ")
PHDR = struct.Struct("<IIQQQQQQ")
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")
REL = struct.Struct("<QQ")

EHDR_SIZE = EHDR.size  # 64
SHDR_SIZE = SHDR.size  # 64
PHDR_SIZE = PHDR.size  # 56
SYM_SIZE = SYM.size  # 24
RELA_SIZE = RELA.size  # 24
REL_SIZE = REL.size  # 16

SHT_NOBITS = 8
SHN_UNDEF = 0
SHN_LORESERVE = 0xFF00
SHN_XINDEX = 0xFFFF


@dataclass(frozen=True, slots=True)
class ElfHeader:
    osabi: int
    abi_version: int
    e_type: int
    e_machine: int
    e_version: int
    e_entry: int
    e_phoff: int
    e_shoff: int
    e_flags: int
    e_phnum: int
    e_shnum: int
    e_shstrndx: int
    ident_pad: bytes = bytes(7)  # e_ident[9:16]
    e_ehsize: int = EHDR_SIZE
    e_phentsize: int = PHDR_SIZE
    e_shentsize: int = SHDR_SIZE

    def pack(self) -> bytes:
        ident = (
            ELF_MAGIC
            + bytes([ELFCLASS64, ELFDATA2LSB, EV_CURRENT, self.osabi, self.abi_version])
            + self.ident_pad
        )
        return EHDR.pack(
            ident,
            self.e_type,
            self.e_machine,
            self.e_version,
            self.e_entry,
            self.e_phoff,
            self.e_shoff,
            self.e_flags,
            self.e_ehsize,
            self.e_phentsize,
            self.e_phnum,
            self.e_shentsize,
            self.e_shnum,
            self.e_shstrndx,
        )


@dataclass(frozen=True, slots=True)
class SectionHeader:
    name: int  # offset into .shstrtab
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    addralign: int
    entsize: int

    def pack(self) -> bytes:
        return SHDR.pack(
            self.name,
            self.type,
            self.flags,
            self.addr,
            self.offset,
            self.size,
            self.link,
            self.info,
            self.addralign,
            self.entsize,
        )


@dataclass(frozen=True, slots=True)
class ProgramHeader:
    type: int
    flags: int
    offset: int
    vaddr: int
    paddr: int
    filesz: int
    memsz: int
    align: int

    def pack(self) -> bytes:
        return PHDR.pack(
            self.type,
            self.flags,
            self.offset,
            self.vaddr,
            self.paddr,
            self.filesz,
            self.memsz,
            self.align,
        )


@dataclass(frozen=True, slots=True)
class RawSymbol:
    name: int  # offset into the linked string table
    info: int
    other: int
    shndx: int
    value: int
    size: int

    def pack(self) -> bytes:
        return SYM.pack(self.name, self.info, self.other, self.shndx, self.value, self.size)


@dataclass(frozen=True, slots=True)
class RawReloc:
    offset: int
    info: int
    addend: int | None  # None for SHT_REL entries

    @property
    def sym(self) -> int:
        return self.info >> 32

    @property
    def type(self) -> int:
        return self.info & 0xFFFFFFFF

    def pack(self) -> bytes:
        if self.addend is None:
            return REL.pack(self.offset, self.info)
        return RELA.pack(self.offset, self.info, self.addend)


@dataclass(frozen=True, slots=True)
class RawElf:
    """An ELF file as its parts: every section's bytes (b"" for NOBITS) beside its header."""

    header: ElfHeader
    sections: tuple[SectionHeader, ...]
    data: tuple[bytes, ...]
    segments: tuple[ProgramHeader, ...]

    def name_of(self, index: int) -> str:
        return c_string(self.data[self.header.e_shstrndx], self.sections[index].name)


def c_string(table: bytes, offset: int) -> str:
    """The NUL-terminated string at ``offset`` of a string table."""
    if offset < 0 or offset > len(table):
        raise CubinFormatError(f"string offset {offset:#x} is past the end of its table")
    end = table.find(b"\0", offset)
    if end < 0:
        raise CubinFormatError(f"string at offset {offset:#x} is not NUL-terminated")
    return table[offset:end].decode("utf-8", errors="surrogateescape")


def _need(blob: bytes, offset: int, size: int, what: str) -> None:
    if offset < 0 or size < 0 or offset + size > len(blob):
        raise CubinFormatError(
            f"{what} ({size} bytes at offset {offset:#x}) runs past the end of the file "
            f"({len(blob)} bytes)"
        )


def parse_elf(blob: bytes, nobits: frozenset[int] = frozenset({SHT_NOBITS})) -> RawElf:
    """Split an ELF64 little-endian file into headers and section contents, checking bounds.

    Sections whose type is in ``nobits`` have no bytes in the file.
    """
    if len(blob) < 4 or blob[:4] != ELF_MAGIC:
        raise CubinFormatError("not an ELF file (bad magic)")
    _need(blob, 0, EHDR_SIZE, "ELF header")
    (
        ident,
        e_type,
        e_machine,
        e_version,
        e_entry,
        e_phoff,
        e_shoff,
        e_flags,
        e_ehsize,
        e_phentsize,
        e_phnum,
        e_shentsize,
        e_shnum,
        e_shstrndx,
    ) = EHDR.unpack_from(blob, 0)
    if ident[4] != ELFCLASS64:
        raise CubinFormatError(f"not a 64-bit ELF file (EI_CLASS {ident[4]})")
    if ident[5] != ELFDATA2LSB:
        raise CubinFormatError(f"not a little-endian ELF file (EI_DATA {ident[5]})")
    if e_shnum and e_shentsize != SHDR_SIZE:
        raise CubinFormatError(f"unexpected section header size {e_shentsize}")
    if e_phnum and e_phentsize != PHDR_SIZE:
        raise CubinFormatError(f"unexpected program header size {e_phentsize}")
    header = ElfHeader(
        osabi=ident[7],
        abi_version=ident[8],
        e_type=e_type,
        e_machine=e_machine,
        e_version=e_version,
        e_entry=e_entry,
        e_phoff=e_phoff,
        e_shoff=e_shoff,
        e_flags=e_flags,
        e_phnum=e_phnum,
        e_shnum=e_shnum,
        e_shstrndx=e_shstrndx,
        ident_pad=bytes(ident[9:16]),
        e_ehsize=e_ehsize,
        e_phentsize=e_phentsize,
        e_shentsize=e_shentsize,
    )
    if e_shnum == 0 and e_shoff != 0:
        raise CubinFormatError("extended section numbering (e_shnum = 0) is not supported")
    _need(blob, e_shoff, e_shnum * SHDR_SIZE, "section header table")
    _need(blob, e_phoff, e_phnum * PHDR_SIZE, "program header table")
    sections = tuple(
        SectionHeader(*SHDR.unpack_from(blob, e_shoff + i * SHDR_SIZE)) for i in range(e_shnum)
    )
    segments = tuple(
        ProgramHeader(*PHDR.unpack_from(blob, e_phoff + i * PHDR_SIZE)) for i in range(e_phnum)
    )
    data: list[bytes] = []
    for i, sh in enumerate(sections):
        if sh.type in nobits or i == 0:
            data.append(b"")
            continue
        _need(blob, sh.offset, sh.size, f"section {i}")
        data.append(blob[sh.offset : sh.offset + sh.size])
    if e_shnum and not 0 < e_shstrndx < e_shnum:
        raise CubinFormatError(f"section name table index {e_shstrndx} is out of range")
    raw = RawElf(header, sections, tuple(data), segments)
    for i in range(e_shnum):
        raw.name_of(i)  # validates every section name
    return raw


def unpack_symbols(data: bytes) -> list[RawSymbol]:
    if len(data) % SYM_SIZE:
        raise CubinFormatError(f"symbol table size {len(data)} is not a multiple of {SYM_SIZE}")
    return [RawSymbol(*SYM.unpack_from(data, o)) for o in range(0, len(data), SYM_SIZE)]


def unpack_relocs(data: bytes, with_addend: bool) -> list[RawReloc]:
    size = RELA_SIZE if with_addend else REL_SIZE
    if len(data) % size:
        raise CubinFormatError(f"relocation section size {len(data)} is not a multiple of {size}")
    if with_addend:
        return [RawReloc(*RELA.unpack_from(data, o)) for o in range(0, len(data), size)]
    out = []
    for o in range(0, len(data), size):
        offset, info = REL.unpack_from(data, o)
        out.append(RawReloc(offset, info, None))
    return out
