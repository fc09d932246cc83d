"""EIATTR, EICOMPAT and relocation names agree with cuobjdump's (an oracle for the name tables)."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from openptxas.elf.consts import RELA_TYPES, SectionType, reloc_type_name
from openptxas.elf.model import CompatSection, InfoSection, RelocTable
from openptxas.elf.nvinfo import eiattr_name, eicompat_name
from openptxas.elf.reader import read_cubin
from openptxas.testing.tools import find_tool
from tests.conftest import need_tools
from tests.elf.cases import ptx_cases

_ATTR = re.compile(r"^\s*Attribute:\s*(\S+)")


def _cuobjdump(blob: bytes) -> str:
    tool = find_tool("cuobjdump")
    assert tool is not None
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "x.cubin"
        p.write_bytes(blob)
        return subprocess.run(
            [tool, "-elf", str(p)], capture_output=True, text=True, check=True
        ).stdout


@pytest.mark.parametrize("target", ["sm_75", "sm_90", "sm_100a"])
def test_names_match_cuobjdump(oracle, target: str) -> None:
    need_tools("ptxas", "nvcc", "cuobjdump")
    checked = 0
    for case in ptx_cases((target,)):
        if case.flags not in ((), ("-c",)):
            continue
        blob = case.cubin(oracle)
        cubin = read_cubin(blob)
        text = _cuobjdump(blob)
        # attribute names, in section order (cuobjdump skips the .nv.merc copies)
        ours: list[str] = []
        for s in cubin.sections:
            if s.name.startswith(".nv.merc"):
                continue
            if isinstance(s.content, InfoSection):
                ours += [eiattr_name(a.code) for a in s.content.attributes]
            elif isinstance(s.content, CompatSection):
                ours += [eicompat_name(a.code) for a in s.content.attributes]
        theirs = [m.group(1) for line in text.splitlines() if (m := _ATTR.match(line))]
        assert ours == theirs, case.id
        # relocation type names
        for s in cubin.sections:
            if s.name.startswith(".nv.merc") or not isinstance(s.content, RelocTable):
                continue
            if s.type not in RELA_TYPES and s.type != SectionType.REL:
                continue
            block = text.split(f".section {s.name}\t")[1].split("\n\n")[0]
            names = [ln.split()[2] for ln in block.splitlines()[1:] if len(ln.split()) >= 3]
            want = [reloc_type_name(r.type) for r in s.content.relocs]
            known = [n for n in names if n.startswith("R_CUDA")]
            assert [w for w, n in zip(want, names, strict=False) if n.startswith("R_CUDA")] == (
                known
            ), (case.id, s.name)
            checked += len(known)
    assert checked > 0
