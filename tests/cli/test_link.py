"""``-c`` (relocatable output): the objects' relocations and symbols, refusals, and objects that
nvlink 13.0 links (alone and with ptxas's) into cubins whose emulator outputs equal those of
ptxas+nvlink (the cases of scripts/link_cases; all of them: scripts/link_probe.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import openptxas
from openptxas.diag import OpenPtxasError
from openptxas.elf.consts import SymbolBind, SymbolType
from openptxas.elf.model import NoBits, RelocTable
from openptxas.elf.reader import read_cubin
from openptxas.emu import run_launch

CASES = Path(__file__).resolve().parents[2] / "scripts" / "link_cases"


def _c(path: Path) -> bytes:
    return openptxas.compile(path.read_text(), args=["-c"], filename=path.name).cubin


def _relocs(blob: bytes, section: str) -> list[tuple[int, str, str]]:
    c = read_cubin(blob)
    idx = c.section_index(section)
    out = []
    for s in c.sections:
        if isinstance(s.content, RelocTable) and s.info == idx:
            out += [(r.offset, r.type_name, c.symbol_name(r.sym)) for r in s.content.relocs]
    return sorted(out)


def test_kernel_object_relocations_and_undefined_symbols() -> None:
    blob = _c(CASES / "call_global" / "a.ptx")
    c = read_cubin(blob)
    assert c.is_relocatable
    relocs = _relocs(blob, ".text.kern")
    kinds = {(t, y) for _, t, y in relocs}
    # the callee's and the variables' addresses: relocated move pairs (as ptxas -c)
    for sym in ("addone", "gcount", "gmine"):
        assert {("R_CUDA_ABS32_LO_32", sym), ("R_CUDA_ABS32_HI_32", sym)} <= kinds
    # each LO is followed by its HI in the next instruction
    lo = {y: o for o, t, y in relocs if t.endswith("LO_32")}
    hi = {y: o for o, t, y in relocs if t.endswith("HI_32")}
    assert all(hi[y] == lo[y] + 16 for y in lo)
    syms = {y.name: y for y in c.symtab.symbols if y.name}
    assert syms["addone"].shndx == 0 and syms["addone"].type == SymbolType.FUNC
    assert syms["gcount"].shndx == 0 and syms["gmine"].shndx != 0
    assert syms["gcount"].type == syms["gmine"].type == 13  # STT_CUDA_OBJECT, as ptxas
    assert b".nv.constant4" not in blob  # no address table in a -c object


def test_device_function_object() -> None:
    blob = _c(CASES / "call_global" / "b.ptx")
    c = read_cubin(blob)
    f = next(y for y in c.symtab.symbols if y.name == "addone")
    assert f.type == SymbolType.FUNC and f.bind == SymbolBind.GLOBAL and f.shndx != 0
    assert c.sections[f.shndx].name == ".text.addone"


def test_device_function_calling_another_object_saves_what_it_uses() -> None:
    from openptxas.emu.launch import default_decoder

    blob = _c(CASES / "nested" / "b.ptx")  # quad calls twice (another object) and vprintf
    assert {y for _, _, y in _relocs(blob, ".text.quad")} >= {"twice", "vprintf", "fmt"}
    sec = read_cubin(blob).section(".text.quad")
    code = [i for _, i in sorted(default_decoder(90)(".text.quad", sec.data()).items())]
    ret = next(k for k, i in enumerate(code) if i.opcode == "RET" and "ABS" in i.mods)
    # values live across the inner calls sit in R16-R31: stored at the entry, loaded back
    # before the return (the return address moved to R20:R21 first)
    saved = {str(i.operands[1]) for i in code[:ret] if i.opcode == "STL"}
    loaded = {str(i.operands[0]) for i in code[:ret] if i.opcode == "LDL"}
    assert saved and saved == loaded and "R16" in saved
    assert "R20" in [str(o) for o in code[ret].operands]


def _symbols(blob: bytes) -> dict[str, tuple[str, int, int, int, int, int]]:
    """name -> (section name or '', bind, type, other, value, size)."""
    c = read_cubin(blob)
    return {
        y.name: (
            c.sections[y.shndx].name if y.shndx else "",
            y.bind,
            y.type,
            y.other,
            y.value,
            y.size,
        )
        for y in c.symtab.symbols
        if y.name
    }


def test_shared_variables_are_relocated() -> None:
    """As ptxas -c: each shared variable's offset is a UMOV immediate with R_CUDA_ABS32_32
    (nvlink places the variables); kernel-scope ones are local symbols of .nv.shared.<kernel>,
    module-scope ones of .nv_debug.shared, dynamic ones undefined; STT_CUDA_OBJECT (13),
    STO_CUDA_SHARED (0x40), the value the alignment."""
    a = _c(CASES / "shared_module" / "a.ptx")
    relocs = _relocs(a, ".text.kern")
    shared = {y for _, t, y in relocs if t == "R_CUDA_ABS32_32"}
    syms = _symbols(a)
    ksh = next(n for n in syms if n.startswith("$__ksh__"))
    assert shared == {"msh", "vsh", ksh}
    assert syms[ksh] == (".nv.shared.kern", SymbolBind.LOCAL, 13, 0x40, 16, 64)
    assert syms["msh"] == (".nv_debug.shared", SymbolBind.LOCAL, 13, 0x40, 8, 256)
    assert syms["vsh"] == (".nv_debug.shared", SymbolBind.GLOBAL, 13, 0x40, 4, 256)
    c = read_cubin(a)
    assert c.section(".nv.shared.kern").content == NoBits(64)
    assert c.section(".nv_debug.shared").content == NoBits(512)
    # the local device function (a subroutine of the kernel) uses msh too: one relocation
    # per use site's base; the instruction patched is a UMOV
    from openptxas.emu.launch import default_decoder

    code = default_decoder(90)(".text.kern", c.section(".text.kern").data())
    for off, t, _ in relocs:
        if t == "R_CUDA_ABS32_32":
            assert code[off].opcode == "UMOV"
    d = _c(CASES / "shared_dynamic" / "b.ptx")
    assert _symbols(d)["dsm"][:4] == ("", SymbolBind.GLOBAL, 13, 0x40)
    assert {(t, y) for _, t, y in _relocs(d, ".text.peek")} == {("R_CUDA_ABS32_32", "dsm")}


def test_constant_variables_are_relocated() -> None:
    """As ptxas -c: a c[0x3][..] operand carries R_CUDA_CONST_FIELD21_38 against the variable,
    the offset in it the addend (the field holds bank 3, offset 0); an address of a constant
    variable R_CUDA_ABS16_32; .nv.constant3 holds the object's variables
    (STO_CUDA_CONSTANT, 0x80), an extern one is undefined."""
    a = _c(CASES / "consts_more" / "a.ptx")
    c = read_cubin(a)
    idx = c.section_index(".text.kern")
    got = set()
    for s in c.sections:
        if isinstance(s.content, RelocTable) and s.info == idx:
            got |= {(r.type_name, c.symbol_name(r.sym), r.addend) for r in s.content.relocs}
    assert ("R_CUDA_CONST_FIELD21_38", "ktab", 20) in got
    assert ("R_CUDA_CONST_FIELD21_38", "kv", 16) in got
    assert ("R_CUDA_CONST_FIELD21_38", "kf", 8) in got
    assert {("R_CUDA_ABS16_32", "ktab", 0), ("R_CUDA_ABS16_32", "kv", 0)} <= got
    syms = _symbols(a)
    assert syms["ktab"][:4] == ("", SymbolBind.GLOBAL, 13, 0x80)
    assert syms["kv"][:4] == (".nv.constant3", SymbolBind.LOCAL, 13, 0x80)
    data = c.section(".nv.constant3").data()
    kv = syms["kv"][4]
    assert data[kv : kv + 32] == b"".join(v.to_bytes(4, "little") for v in range(10, 90, 10))


def test_kernel_address_is_a_function_descriptor() -> None:
    """As ptxas -c: a kernel's address (what a device-side launch takes) is a relocated move pair,
    R_CUDA_FUNC_DESC32_LO_32/HI_32; a kernel of another object is an undefined FUNC symbol with
    STO_CUDA_ENTRY (0x10)."""
    blob = _c(CASES / "launch" / "a.ptx")
    relocs = _relocs(blob, ".text.parent")
    lo = [o for o, t, y in relocs if t == "R_CUDA_FUNC_DESC32_LO_32" and y == "child"]
    hi = [o for o, t, y in relocs if t == "R_CUDA_FUNC_DESC32_HI_32" and y == "child"]
    assert len(lo) == len(hi) == 1 and hi[0] == lo[0] + 16
    assert _symbols(blob)["child"] == ("", SymbolBind.GLOBAL, SymbolType.FUNC, 0x10, 0, 0)


def test_refusals() -> None:
    nested = (CASES / "nested" / "b.ptx").read_text()
    # other targets: not checked against nvlink yet
    with pytest.raises(OpenPtxasError, match=r"relocatable output \(-c\) for sm_80"):
        openptxas.compile(nested.replace("sm_90", "sm_80"), arch="sm_80", args=["-c"])
    # a device function's own shared variable (where ptxas puts it is not observed yet),
    # kernels' addresses (function descriptors, device-side launches), function addresses in
    # initializers
    own = (
        (CASES / "shared_module" / "b.ptx")
        .read_text()
        .replace("  .reg .b32 %r<8>;", "  .reg .b32 %r<8>;\n  .shared .align 4 .u32 mine[4];", 1)
    )
    with pytest.raises(OpenPtxasError, match="shared variable 'mine' declared in device"):
        openptxas.compile(own, args=["-c"])
    # an argument that does not fit in R4-R15 (ptxas passes it on the stack)
    many = (
        (CASES / "arg_holes" / "a.ptx")
        .read_text()
        .replace(".param .b32 j)", ".param .b32 j, .param .align 8 .b8 k[16])", 1)
    )
    many = many.replace(
        "(p0, p1, p2, p3, p4, p5, p6, p7, p8)", "(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9)"
    )
    many = many.replace(".param .b32 r0;\n", ".param .b32 r0; .param .align 8 .b8 p9[16];\n", 1)
    with pytest.raises(OpenPtxasError, match="do not fit in R4-R15"):
        openptxas.compile(many, args=["-c"])
    table = (CASES / "call_global" / "b.ptx").read_text() + (
        ".visible .global .align 8 .u64 tbl[1] = {addone};\n"
    )
    with pytest.raises(OpenPtxasError, match="function addresses in the initializer of 'tbl'"):
        openptxas.compile(table, args=["-c"])
    # whole program: an extern variable nobody defines (ptxas 13.0.88 crashes on it)
    kernel = (CASES / "table" / "a.ptx").read_text()
    with pytest.raises(OpenPtxasError, match=r"extern variable 'table'|Unresolved extern"):
        openptxas.compile(kernel)


def _nvlink(objs: list[Path], out: Path, libs: list[str]) -> None:
    subprocess.run(["nvlink", "-arch=sm_90", *libs, "-o", str(out), *map(str, objs)], check=True)


def _cudadevrt() -> list[str]:
    """nvlink's arguments for the device runtime (device-side launches)."""
    tops = [Path(shutil.which("nvlink") or "nvlink").resolve().parent.parent]
    tops += sorted(Path("/usr/local").glob("cuda*"))
    for top in tops:
        for d in (top / "lib64", top / "lib", top / "targets" / "x86_64-linux" / "lib"):
            if (d / "libcudadevrt.a").exists():
                return [f"-L{d}", "-lcudadevrt"]
    pytest.skip("libcudadevrt.a not found")


@pytest.mark.parametrize(
    "case",
    [
        "call_global",
        "nested",
        "branches",
        "shared",
        "shared_module",
        "shared_dynamic",
        "shared_generic",
        "shared_kernels",
        "consts",
        "consts_more",
        "wide_args",
        "arg_holes",
        "launch",
    ],
)
def test_nvlink_links_and_runs(case: str, tmp_path: Path) -> None:
    if shutil.which("nvlink") is None or shutil.which("ptxas") is None:
        pytest.skip("nvlink (CUDA 13.0) not on PATH")
    spec = json.loads((CASES / case / "spec.json").read_text())
    libs = _cudadevrt() if spec.pop("cudadevrt", False) else []
    files = sorted((CASES / case).glob("*.ptx"))
    ours, theirs = [], []
    for f in files:
        o = tmp_path / f"{f.stem}.ours.o"
        o.write_bytes(_c(f))
        ours.append(o)
        t = tmp_path / f"{f.stem}.ptxas.o"
        subprocess.run(["ptxas", "-arch=sm_90", "-c", str(f), "-o", str(t)], check=True)
        theirs.append(t)
    launches = spec.get("kernels", [spec])  # (several: one launch per kernel)
    _nvlink(theirs, tmp_path / "ref.cubin", libs)
    refs = [
        run_launch((tmp_path / "ref.cubin").read_bytes(), one, hazards=True) for one in launches
    ]
    combos = {"ours": ours}
    for k, f in enumerate(files):  # each file's object ours, the others ptxas's
        combos[f"ours:{f.stem}"] = [*theirs[:k], ours[k], *theirs[k + 1 :]]
    for name, objs in combos.items():
        out = tmp_path / f"{name.replace(':', '_')}.cubin"
        _nvlink(objs, out, libs)
        for one, ref in zip(launches, refs, strict=True):
            got = run_launch(out.read_bytes(), one, hazards=True)
            assert got.hazards == (), name
            assert got.outputs.keys() == ref.outputs.keys(), name
            for k, b in ref.outputs.items():  # (by argument position)
                assert np.array_equal(got.outputs[k], b), name
            assert got.printf == ref.printf, name
    if case == "nested":
        assert refs[0].printf.count("\n") == spec["block"][0]  # the check saw printf lines


@pytest.mark.parametrize(
    "src",
    [
        "call_global/b.ptx",
        "three/a.ptx",
        "args64/a.ptx",
        "shared/a.ptx",  # smem: the kernel's own shared variables
        "shared_dynamic/a.ptx",
        "shared_module/b.ptx",
        "consts_more/a.ptx",
    ],
)
def test_verbose_report_as_ptxas(src: str) -> None:
    """``-v -c``: a device function compiled on its own has its properties and compile time,
    before the kernels; a kernel calling another object's function uses at least 24
    registers (ptxas's figures)."""
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas not on PATH")
    path = CASES / src
    got = openptxas.compile(path.read_text(), args=["-c", "-v"], filename=path.name)
    p = subprocess.run(
        ["ptxas", "-v", "-arch=sm_90", "-c", str(path), "-o", "/dev/null"],
        capture_output=True,
        text=True,
        check=True,
    )

    def norm(t: str) -> list[str]:
        return [re.sub(r"= [0-9.]+ ms", "= T ms", line) for line in t.splitlines()]

    assert norm(got.verbose_report()) == norm(p.stdout + p.stderr)
