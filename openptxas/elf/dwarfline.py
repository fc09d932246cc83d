"""DWARF version 2 line programs, as ptxas writes them in ``.debug_line`` (SASS address -> source
file and line, from the PTX's ``.loc``) and ``.nv_debug_line_sass`` (SASS address -> line of the
PTX text kept in ``.nv_debug_ptx_txt``).

ptxas 13.0's header (observed with scripts/lineinfo_probe.py): version 2, minimum instruction
length 1, ``default_is_stmt`` 1, ``line_base`` -5, ``line_range`` 14, ``opcode_base`` 10; one
``DW_LNE_set_address`` per function (its operand relocated against the function's symbol), then
rows as special opcodes or ``advance_pc``/``advance_line``/``copy``, and ``end_sequence``.
"""

from __future__ import annotations

from dataclasses import dataclass

LINE_BASE = -5
LINE_RANGE = 14
OPCODE_BASE = 10
_STD_LENGTHS = bytes([0, 1, 1, 1, 1, 0, 0, 0, 1])  # operands of standard opcodes 1..9

DW_LNS_copy = 1
DW_LNS_advance_pc = 2
DW_LNS_advance_line = 3
DW_LNS_set_file = 4
DW_LNS_set_column = 5
DW_LNE_end_sequence = 1
DW_LNE_set_address = 2


def uleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b if done else b | 0x80)
        if done:
            return bytes(out)


@dataclass(frozen=True, slots=True)
class Row:
    address: int  # offset from the sequence's start (its function)
    file: int
    line: int


@dataclass(frozen=True, slots=True)
class Sequence:
    symbol: str  # the function whose code the addresses are relative to
    rows: tuple[Row, ...]
    end: int  # the function's size


@dataclass(frozen=True, slots=True)
class FileEntry:
    name: str
    directory: int  # index into the include directories, 0 = none
    mtime: int = 0
    size: int = 0


def encode(
    dirs: list[str], files: list[FileEntry], seqs: list[Sequence]
) -> tuple[bytes, list[tuple[int, str]]]:
    """The section's bytes and its relocations: (offset of an 8-byte address, symbol)."""
    hdr = bytearray()
    hdr += bytes([1, 1, LINE_BASE & 0xFF, LINE_RANGE, OPCODE_BASE]) + _STD_LENGTHS
    for d in dirs:
        hdr += d.encode() + b"\0"
    hdr += b"\0"
    for f in files:
        hdr += f.name.encode() + b"\0" + uleb(f.directory) + uleb(f.mtime) + uleb(f.size)
    hdr += b"\0"
    prog = bytearray()
    relocs: list[tuple[int, str]] = []
    body_start = 4 + 2 + 4 + len(hdr)
    for s in seqs:
        prog += bytes([0, 9, DW_LNE_set_address])
        relocs.append((body_start + len(prog), s.symbol))
        prog += bytes(8)
        addr, file, line = 0, 1, 1
        for r in s.rows:
            if r.file != file:
                prog += bytes([DW_LNS_set_file]) + uleb(r.file)
                file = r.file
            prog += _advance(r.address - addr, r.line - line)
            addr, line = r.address, r.line
        if s.end > addr:
            prog += bytes([DW_LNS_advance_pc]) + uleb(s.end - addr)
        prog += bytes([0, 1, DW_LNE_end_sequence])
    unit = (2).to_bytes(2, "little") + len(hdr).to_bytes(4, "little") + hdr + prog
    return len(unit).to_bytes(4, "little") + unit, relocs


def _advance(dpc: int, dline: int) -> bytes:
    """One row: a special opcode where the deltas fit, else explicit advances and a copy."""
    out = bytearray()
    if not LINE_BASE <= dline < LINE_BASE + LINE_RANGE:
        out += bytes([DW_LNS_advance_line]) + sleb(dline)
        dline = 0
    op = (dline - LINE_BASE) + LINE_RANGE * dpc + OPCODE_BASE
    if dpc >= 0 and op <= 255:
        out.append(op)
        return bytes(out)
    out += bytes([DW_LNS_advance_pc]) + uleb(dpc)
    op = (dline - LINE_BASE) + OPCODE_BASE
    out.append(op)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class Decoded:
    dirs: tuple[str, ...]
    files: tuple[FileEntry, ...]
    rows: tuple[tuple[int, int, int, int], ...]  # (address-set index, address, file, line)


def _read_uleb(b: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def _read_sleb(b: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            if c & 0x40:
                v -= 1 << shift
            return v, i


def decode(data: bytes) -> Decoded:
    """Rows of every unit (addresses from each ``set_address`` operand as written, unrelocated)."""
    rows: list[tuple[int, int, int, int]] = []
    dirs: list[str] = []
    files: list[FileEntry] = []
    pos = 0
    seq = -1
    while pos + 4 <= len(data):
        length = int.from_bytes(data[pos : pos + 4], "little")
        end = pos + 4 + length
        hlen = int.from_bytes(data[pos + 6 : pos + 10], "little")
        h = pos + 10
        min_len, _is_stmt, lbase, lrange, obase = (
            data[h],
            data[h + 1],
            data[h + 2],
            data[h + 3],
            data[h + 4],
        )
        lbase = lbase - 256 if lbase > 127 else lbase
        lens = data[h + 5 : h + 5 + obase - 1]
        i = h + 5 + obase - 1
        while data[i]:
            z = data.index(b"\0", i)
            dirs.append(data[i:z].decode())
            i = z + 1
        i += 1
        while data[i]:
            z = data.index(b"\0", i)
            name = data[i:z].decode()
            i = z + 1
            d, i = _read_uleb(data, i)
            mt, i = _read_uleb(data, i)
            sz, i = _read_uleb(data, i)
            files.append(FileEntry(name, d, mt, sz))
        i = pos + 10 + hlen
        addr, file, line = 0, 1, 1
        while i < end:
            op = data[i]
            i += 1
            if op >= obase:
                adj = op - obase
                addr += (adj // lrange) * min_len
                line += lbase + adj % lrange
                rows.append((seq, addr, file, line))
            elif op == 0:
                n, i = _read_uleb(data, i)
                sub = data[i]
                if sub == DW_LNE_set_address:
                    seq += 1
                    addr = int.from_bytes(data[i + 1 : i + n], "little")
                elif sub == DW_LNE_end_sequence:
                    rows.append((seq, addr, -1, -1))
                    addr, file, line = 0, 1, 1
                i += n
            elif op == DW_LNS_copy:
                rows.append((seq, addr, file, line))
            elif op == DW_LNS_advance_pc:
                v, i = _read_uleb(data, i)
                addr += v * min_len
            elif op == DW_LNS_advance_line:
                v, i = _read_sleb(data, i)
                line += v
            elif op == DW_LNS_set_file:
                file, i = _read_uleb(data, i)
            elif op == DW_LNS_set_column:
                _, i = _read_uleb(data, i)
            elif op == 8:  # const_add_pc
                addr += ((255 - obase) // lrange) * min_len
            elif op == 9:  # fixed_advance_pc
                addr += int.from_bytes(data[i : i + 2], "little")
                i += 2
            else:
                for _ in range(lens[op - 1]):
                    _, i = _read_uleb(data, i)
        pos = end
    return Decoded(tuple(dirs), tuple(files), tuple(rows))
