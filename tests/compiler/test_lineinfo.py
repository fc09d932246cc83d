"""Line information (openptxas.lineinfo) against ptxas 13.0's on nvcc -lineinfo PTX of
tests/kernels: the PTX text section byte for byte, the .debug_line file table, the source lines
its rows name, and what nvdisasm reads back with -g (source lines) and -gp (PTX lines)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from openptxas.driver import compile_ptx
from openptxas.elf.dwarfline import decode
from openptxas.elf.reader import read_cubin
from openptxas.emu import run_launch
from openptxas.options import Options
from openptxas.testing.tools import find_tool
from tests.conftest import need_tools

ROOT = Path(__file__).resolve().parents[2]
KERNELS = [
    "t1/early_return.cu",  # branches, a device function inlined
    "t1/atomics_shared.cu",  # inlined headers: .loc ... inlined_at, three .file entries
    "t1/bitonic_sort.cu",
    "t2/struct_param_small.cu",  # .local lines (not .loc)
    "t1/grid_stride.cu",
]
LINE_SECTIONS = (".debug_line", ".nv_debug_line_sass", ".nv_debug_ptx_txt")


def _sections(cubin: bytes) -> dict[str, bytes]:
    return {s.name: s.content.data for s in read_cubin(cubin).sections if s.name in LINE_SECTIONS}


def _loc_lines(ptx: str) -> set[tuple[int, int]]:
    """(file, line) of every .loc and inlined_at call site of the PTX."""
    out = set()
    for m in re.finditer(
        r"\.loc\s+(\d+) (\d+) \d+(?:, function_name \S+, inlined_at (\d+) (\d+))?", ptx
    ):
        out.add((int(m.group(1)), int(m.group(2))))
        if m.group(3):
            out.add((int(m.group(3)), int(m.group(4))))
    return out


_BUILT: dict[str, tuple[str, bytes, bytes]] = {}


def _build(kernel: str, oracle) -> tuple[str, bytes, bytes]:
    if kernel not in _BUILT:
        need_tools("nvcc", "ptxas")
        ptx = oracle.cu_to_ptx(ROOT / "tests/kernels" / kernel, "sm_90", ["-lineinfo"])
        opts = Options(arch="sm_90", lineinfo=True, verbose=True)
        ours = compile_ptx(ptx, opts, "k.ptx").cubin
        _BUILT[kernel] = (ptx, ours, oracle.ptxas(ptx, "sm_90", ["-lineinfo"]).cubin)
    return _BUILT[kernel]


@pytest.fixture(params=KERNELS)
def pair(request, oracle):
    return _build(request.param, oracle)


def test_ptx_text_is_ptxas_s(pair) -> None:
    _, ours, theirs = pair
    assert _sections(ours)[".nv_debug_ptx_txt"] == _sections(theirs)[".nv_debug_ptx_txt"]


def test_debug_line_files_and_lines(pair) -> None:
    ptx, ours, theirs = pair
    a, b = decode(_sections(ours)[".debug_line"]), decode(_sections(theirs)[".debug_line"])
    assert (a.dirs, a.files) == (b.dirs, b.files)
    mine = {(r[2], r[3]) for r in a.rows if r[2] >= 0}
    their = {(r[2], r[3]) for r in b.rows if r[2] >= 0}
    assert mine <= _loc_lines(ptx)  # every row names a .loc of the PTX
    # the code differs from ptxas's, the lines it covers hardly
    assert len(mine & their) >= 0.8 * len(their), sorted(their - mine)


def test_sass_lines_name_ptx_instructions(pair) -> None:
    """.nv_debug_line_sass rows point at the kernel's '{' or at instruction lines of the text."""
    _, ours, _ = pair
    secs = _sections(ours)
    text = secs[".nv_debug_ptx_txt"].split(b"\0")
    rows = decode(secs[".nv_debug_line_sass"]).rows
    assert rows
    for _, _, f, line in rows:
        if f < 0:
            continue
        s = text[line - 1].decode()
        assert s == "{" or (not s.startswith((".", "$", "}", "//")) and s.endswith(";")), (line, s)


@pytest.mark.parametrize("kernel", KERNELS[:2])  # two are enough (nvdisasm takes seconds)
def test_nvdisasm_reads_line_info_back(kernel, oracle, tmp_path) -> None:
    nvdisasm = find_tool("nvdisasm")
    if nvdisasm is None:
        pytest.skip("nvdisasm not found")
    _, ours, _ = _build(kernel, oracle)
    path = tmp_path / "k.cubin"
    path.write_bytes(ours)
    for flag, section in (("-g", ".debug_line"), ("-gp", ".nv_debug_line_sass")):
        out = subprocess.run(
            [nvdisasm, flag, str(path)], capture_output=True, text=True, check=True
        )
        shown = {int(m) for m in re.findall(r'//## File "[^"]*", line (\d+)', out.stdout)}
        last: dict[tuple[int, int], int] = {}  # nvdisasm shows the last row at an address
        for seq, addr, f, line in decode(_sections(ours)[section]).rows:
            if f >= 0:
                last[(seq, addr)] = line
        rows = set(last.values())
        assert shown and shown == rows, (flag, sorted(shown ^ rows))


LOCLESS = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r1;  // a trailing comment stays in the text
  ret;
}
"""


@pytest.mark.parametrize(
    "flags",
    [(), ("-lineinfo",), ("-lineinfo", "-O1"), ("-v", "-lineinfo", "-O0"), ("-O2",)],
)
def test_sections_flags_and_tkinfo_as_ptxas(flags, oracle, tmp_path) -> None:
    """Without .loc the sections come with -lineinfo only; e_flags and the recorded command line
    ("-v  -lineinfo  -O 0 -arch sm_90 ") as ptxas's."""
    need_tools("ptxas")
    opts = Options(
        arch="sm_90",
        lineinfo="-lineinfo" in flags,
        verbose="-v" in flags,
        opt_level=next((int(f[2:]) for f in flags if f.startswith("-O")), 3),
    )
    ours = compile_ptx(LOCLESS, opts, "k.ptx").cubin
    ptxas = find_tool("ptxas")
    assert ptxas is not None
    (tmp_path / "k.ptx").write_text(LOCLESS)
    subprocess.run(
        [ptxas, "-arch=sm_90", *flags, "k.ptx", "-o", "k.cubin"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    theirs = (tmp_path / "k.cubin").read_bytes()
    assert _sections(ours).keys() == _sections(theirs).keys()
    assert ours[48:52] == theirs[48:52]  # e_flags
    if "-lineinfo" in flags:
        assert _sections(ours)[".nv_debug_ptx_txt"] == _sections(theirs)[".nv_debug_ptx_txt"]
        assert _sections(ours)[".debug_line"] == _sections(theirs)[".debug_line"]  # header only
    tk = [s.content for s in read_cubin(ours).sections if s.name == ".note.nv.tkinfo"]
    tk2 = [s.content for s in read_cubin(theirs).sections if s.name == ".note.nv.tkinfo"]
    assert tk == tk2


def test_line_info_changes_no_code(oracle) -> None:
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": 32, "init": "zeros", "role": "out"}],
    }
    plain = compile_ptx(LOCLESS, Options(arch="sm_90"), "k.ptx").cubin
    lined = compile_ptx(LOCLESS, Options(arch="sm_90", lineinfo=True), "k.ptx").cubin
    code = [s.content for s in read_cubin(plain).sections if s.name.startswith(".text")]
    assert code == [s.content for s in read_cubin(lined).sections if s.name.startswith(".text")]
    out = run_launch(lined, spec, hazards=True)
    assert not out.hazards
    assert np.array_equal(out.outputs[0], np.arange(32, dtype=np.uint32))
