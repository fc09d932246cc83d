"""TEMPORARY minimal cubin reader for ``openptxas-sass`` until ``openptxas.elf`` lands.

It finds the ``.text.<function>`` sections, the function symbols inside them (for call targets
and ``RET`` labels) and the ELF header's SM number. Replace it with the ELF reader from the cubin
issue; nothing outside ``openptxas.tools`` uses it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from openptxas.diag import CubinFormatError


@dataclass(frozen=True)
class TextSection:
    name: str  # the function name (section name without ".text.")
    index: int  # section index
    code: bytes
    symbols: tuple[tuple[int, int, str], ...]  # (offset, size, name) of its function symbols


@dataclass(frozen=True)
class Cubin:
    sm: int  # from e_flags (90 for sm_90 and sm_90a)
    texts: tuple[TextSection, ...]
    symbol_order: dict[str, int]  # function symbol name -> symbol-table index


def read_cubin(data: bytes) -> Cubin:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise CubinFormatError("not a 64-bit little-endian ELF file")
    (e_flags,) = struct.unpack_from("<I", data, 0x30)
    (e_shoff,) = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        if off + 64 > len(data):
            raise CubinFormatError("section header table runs past the end of the file")
        name, typ, _flags, _addr, offset, size, link, info, _align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, off
        )
        sections.append((name, typ, offset, size, link, info, entsize))
    if e_shstrndx >= len(sections):
        raise CubinFormatError("bad section-name string table index")
    shstr = sections[e_shstrndx]

    def cstr(table_off: int, idx: int) -> str:
        end = data.index(b"\0", table_off + idx)
        return data[table_off + idx : end].decode("utf-8", "replace")

    names = [cstr(shstr[2], s[0]) for s in sections]
    syms: dict[int, list[tuple[int, int, str]]] = {}
    order: dict[str, int] = {}
    for s in sections:
        if s[1] == 2:  # SHT_SYMTAB
            strtab = sections[s[4]]
            for k in range(s[3] // 24):
                st_name, st_info, _other, st_shndx, st_value, st_size = struct.unpack_from(
                    "<IBBHQQ", data, s[2] + 24 * k
                )
                if st_info & 0xF == 2:  # STT_FUNC
                    name = cstr(strtab[2], st_name)
                    syms.setdefault(st_shndx, []).append((st_value, st_size, name))
                    order.setdefault(name, k)
    texts = []
    for i, (s, n) in enumerate(zip(sections, names, strict=True)):
        if n.startswith(".text.") and s[1] == 1:
            code = data[s[2] : s[2] + s[3]]
            texts.append(TextSection(n[6:], i, code, tuple(sorted(syms.get(i, [])))))
    sm = (e_flags >> 8) & 0xFF
    return Cubin(sm, tuple(texts), order)
