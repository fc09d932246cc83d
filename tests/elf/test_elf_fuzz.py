"""Malformed cubins give a CubinFormatError (and a clear CLI error), never a traceback or hang."""

from __future__ import annotations

import contextlib
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openptxas.diag import CubinFormatError
from openptxas.elf.cli import main as cli_main
from openptxas.elf.inspect import summarize
from openptxas.elf.reader import read_cubin
from openptxas.elf.writer import write_cubin
from tests.elf.samples import sample_cubins

SAMPLES = sample_cubins()


def _read_or_error(blob: bytes) -> None:
    """Either a model that writes back to the same bytes, or a CubinFormatError."""
    try:
        cubin = read_cubin(blob)
    except CubinFormatError as exc:
        assert str(exc)
        return
    assert write_cubin(cubin) == blob
    with contextlib.suppress(CubinFormatError):
        summarize(cubin)


@given(st.binary(max_size=512))
@settings(max_examples=300, deadline=None)
def test_random_bytes(blob: bytes) -> None:
    _read_or_error(blob)


@given(st.binary(min_size=0, max_size=256))
@settings(max_examples=200, deadline=None)
def test_random_bytes_after_elf_magic(tail: bytes) -> None:
    _read_or_error(b"\x7fELF\x02\x01\x01\x41\x08" + tail)


@given(st.data())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_truncated_cubin(data: st.DataObject) -> None:
    blob = data.draw(st.sampled_from(SAMPLES))
    cut = data.draw(st.integers(min_value=0, max_value=len(blob) - 1))
    _read_or_error(blob[:cut])


@given(st.data())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_corrupted_cubin(data: st.DataObject) -> None:
    blob = bytearray(data.draw(st.sampled_from(SAMPLES)))
    for _ in range(data.draw(st.integers(min_value=1, max_value=8))):
        pos = data.draw(st.integers(min_value=0, max_value=len(blob) - 1))
        blob[pos] = data.draw(st.integers(min_value=0, max_value=255))
    _read_or_error(bytes(blob))


@given(st.data())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_corrupted_headers(data: st.DataObject) -> None:
    """Overwrite fields of the ELF header, a section header or a symbol with random values."""
    blob = bytearray(data.draw(st.sampled_from(SAMPLES)))
    shoff = struct.unpack_from("<Q", blob, 0x28)[0]
    shnum = struct.unpack_from("<H", blob, 0x3C)[0]
    region = data.draw(st.sampled_from(["ehdr", "shdr"]))
    if region == "ehdr":
        pos = data.draw(st.integers(min_value=16, max_value=63))
    else:
        pos = shoff + data.draw(st.integers(min_value=0, max_value=64 * shnum - 1))
    width = data.draw(st.sampled_from([1, 2, 4, 8]))
    value = data.draw(st.integers(min_value=0, max_value=(1 << (8 * width)) - 1))
    blob[pos : pos + width] = value.to_bytes(width, "little")[: max(0, len(blob) - pos)]
    _read_or_error(bytes(blob))


@pytest.mark.parametrize(
    "blob",
    [b"", b"\x7fEL", b"MZ\x90\x00" * 32, b"\x7fELF" + bytes(60), SAMPLES[0][:100]],
    ids=["empty", "short-magic", "wrong-magic", "zero-header", "truncated"],
)
def test_cli_reports_bad_input(tmp_path, capsys, blob: bytes) -> None:
    path = tmp_path / "bad.cubin"
    path.write_bytes(blob)
    out = tmp_path / "out.cubin"
    for argv in (
        ["info", str(path)],
        ["info", str(path), "--json"],
        ["rewrite", str(path), "-o", str(out)],
    ):
        assert cli_main(argv) == 1
        err = capsys.readouterr().err
        assert "error" in err and "Traceback" not in err
    assert not out.exists()


@given(st.binary(max_size=300))
@settings(max_examples=100, deadline=None)
def test_cli_never_raises(blob: bytes) -> None:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "in.cubin"
        p.write_bytes(blob)
        assert cli_main(["info", str(p)]) in (0, 1)
