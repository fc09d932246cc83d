"""The DWARF sections a PTX module carries, as ELF section bytes (openptxas.ptxdwarf: the first
step of -g); against ptxas -g: scripts/debug_sections_probe.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from openptxas.elf.model import RelocTable
from openptxas.elf.reader import read_cubin
from openptxas.ptx.parser import parse
from openptxas.ptxdwarf import debug_sections, param_offsets

PTX = """
.version 8.8
.target sm_90
.address_size 64
.shared .align 4 .b8 sh[16];
.global .align 4 .u32 gv;
.const .align 4 .u32 cv;
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{
  .local .align 4 .b8 __local_depot0[8];
$L__func_begin0:
  ret;
$L__func_end0:
}
.section .debug_abbrev
{
.b8 1, 17
.b8 0
}
.section .debug_info
{
.b32 $L__info_end-$L__info_start
$L__info_start:
.b16 2
.b32 .debug_abbrev
.b32 .debug_line+4
.b64 $L__func_begin0
.b64 $L__func_end0+8
.b64 k_param_1
.b64 gv
.b64 cv
.b64 sh
.b8 3
.b64 __local_depot0
.b8 -1
$L__info_end:
}
"""


def test_section_bytes_and_the_compilers_fields() -> None:
    m = parse(PTX, "t.ptx")
    secs = {s.name: s for s in debug_sections(m, param_offsets(m, 0x210))}
    assert list(secs) == [".debug_abbrev", ".debug_info"]
    assert secs[".debug_abbrev"].data == bytes([1, 17, 0])
    info = secs[".debug_info"]
    d = info.data
    assert int.from_bytes(d[0:4], "little") == len(d) - 4  # a difference of section labels
    assert d[4:6] == b"\x02\x00"
    assert d[6:10] == bytes(4)  # .debug_abbrev: its start
    assert int.from_bytes(d[10:14], "little") == 4  # .debug_line+4: a compiler section
    assert int.from_bytes(d[30:38], "little") == 0x218  # k_param_1: its bank-0 offset
    assert d[-1] == 0xFF
    got = [(r.offset, r.width, r.label, r.addend, r.kind) for r in info.code_refs]
    assert got == [
        (14, 8, "$L__func_begin0", 0, "code"),
        (22, 8, "$L__func_end0", 8, "code"),
        (38, 8, "gv", 0, "global"),
        (46, 8, "cv", 0, "const"),
        (54, 8, "sh", 0, "shared"),
        (63, 8, "__local_depot0", 0, "local"),
    ]
    assert all(d[r.offset : r.offset + r.width] == bytes(r.width) for r in info.code_refs)


def test_against_ptxas_g() -> None:
    """tests/elf/ptx/dynstack.G.ptx: ptxas -g's .debug_abbrev/.debug_loc/.debug_info equal
    ours outside its relocations, which are exactly the code-label fields."""
    from openptxas.testing.oracle import Oracle, OracleError

    path = Path(__file__).parents[1] / "elf" / "ptx" / "dynstack.G.ptx"
    text = path.read_text()
    try:
        cubin = read_cubin(Oracle().ptxas(text, "sm_90", ["-g"]).cubin)
    except OracleError as exc:
        pytest.skip(f"ptxas: {exc}")
    m = parse(text, path.name)
    for s in debug_sections(m, param_offsets(m, 0x210)):
        theirs = cubin.section(s.name).data()
        idx = cubin.section_index(s.name)
        relocs = sorted(
            r.offset
            for t in cubin.sections
            if isinstance(t.content, RelocTable) and t.info == idx
            for r in t.content.relocs
        )
        assert relocs == [r.offset for r in s.code_refs if r.kind == "code"], s.name
        masked = bytearray(theirs)
        for r in s.code_refs:
            masked[r.offset : r.offset + r.width] = bytes(r.width)
        assert bytes(masked) == s.data, s.name
