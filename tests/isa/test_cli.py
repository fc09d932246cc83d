"""openptxas-sass dis / asm / roundtrip on committed sm_90 and sm_86 cubins (no tools needed but
for the comparison with nvdisasm's listing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openptxas.elf.reader import read_cubin
from openptxas.isa.codec import decode_word
from openptxas.isa.family import load_family
from openptxas.isa.listing import CodeSection, assemble, disassemble, format_section
from openptxas.isa.model import Unknown
from openptxas.testing.oracle import Oracle
from openptxas.testing.sass_check import compare_cubin
from openptxas.tools.sass_cli import main
from tests.conftest import need_tools

CUBIN = Path(__file__).resolve().parents[1] / "golden" / "cubin" / "elf" / "globals_sm90.cubin"


def _code(path: Path) -> bytes:
    cub = read_cubin(path.read_bytes())
    return b"".join(s.data() for _, s in cub.find_sections(".text.") if s.has_file_data)


def test_roundtrip_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roundtrip", str(CUBIN), "--text"]) == 0
    out = capsys.readouterr().out
    assert "0 mismatches" in out


def test_dis_then_asm_reproduces_the_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for flags in ([], ["--control"], ["--control", "--hex", "--exact"]):
        assert main(["dis", str(CUBIN), *flags]) == 0
        listing = capsys.readouterr().out
        if "--control" not in flags:
            continue  # without control fields the text does not determine the code
        src = tmp_path / "k.sass"
        src.write_text(listing)
        out = tmp_path / "k.bin"
        assert main(["asm", str(src), "-o", str(out)]) == 0
        assert out.read_bytes() == _code(CUBIN)


def test_dis_prints_nvdisasm_layout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dis", str(CUBIN)]) == 0
    out = capsys.readouterr().out
    assert "/*0000*/                   LDC R1, c[0x0][0x28] ;" in out
    assert "\t.section\t.text." in out


def test_dis_kernel_filter_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dis", str(CUBIN), "--kernel", "no_such_kernel"]) == 1
    assert "no function 'no_such_kernel'" in capsys.readouterr().err
    assert main(["dis", "/nonexistent.cubin"]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_unknown_encodings_print_explicitly() -> None:
    fam = load_family("sm90")
    word = (0x000FC00000000000 << 64) | 0x0000000000007FFF  # opcode bits no form has
    assert isinstance(decode_word(word, fam), Unknown)
    code = word.to_bytes(16, "little") * 2
    sec = disassemble([CodeSection("k", code)], [], fam)[0]
    lines = format_section(sec, fam)
    assert lines[0].strip().endswith("UNKNOWN 0x0000000000007fff, 0x000fc00000000000 ;")
    # and the assembler takes such a line back verbatim
    back = assemble("\n".join(lines), fam)
    assert back[0].code == code


def test_roundtrip_reports_unknown_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(CUBIN.read_bytes())
    code = _code(CUBIN)
    at = bytes(data).find(code[:64])
    assert at > 0
    data[at : at + 2] = b"\xff\x7f"  # first instruction: an opcode no form has
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(bytes(data))
    assert main(["roundtrip", str(bad)]) == 1
    assert "unknown encoding" in capsys.readouterr().out


SM86 = CUBIN.with_name("directives_sm86_li.cubin")  # our own PTX, assembled by ptxas for sm_86


def test_sm86_cubin_round_trips_with_the_sm80_table(capsys: pytest.CaptureFixture[str]) -> None:
    """An Ampere cubin is read with its family's table (sm80: sm_80/86/87/88)."""
    assert main(["roundtrip", str(SM86), "--text"]) == 0
    assert "0 mismatches" in capsys.readouterr().out
    assert main(["dis", str(SM86)]) == 0
    out = capsys.readouterr().out
    assert "UNKNOWN" not in out and "\t.section\t.text." in out


def test_sm86_listing_equals_nvdisasm(oracle: Oracle) -> None:
    need_tools("nvdisasm")
    blob = SM86.read_bytes()
    res = compare_cubin(blob, oracle.nvdisasm(blob, subject=SM86.name))
    assert not res.problems, "\n".join(res.problems[:20])
    assert res.instructions == res.decoded == res.bit_exact == res.same_text > 0
