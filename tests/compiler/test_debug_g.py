"""-g (openptxas.debuginfo): the debug sections ptxas -g writes, filled from our layout, on
nvcc -G PTX (tests/elf/ptx/params.G.ptx); refusals name what is missing. The comparison with
ptxas -g's cubins (sections, read back by nvdisasm/cuobjdump, fields, emulator runs) is
scripts/debug_g_probe.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from openptxas.diag import OpenPtxasError
from openptxas.driver import compile_ptx
from openptxas.elf.model import Cubin, RelocTable
from openptxas.elf.reader import read_cubin
from openptxas.options import Options

PTX = Path(__file__).resolve().parent.parent / "elf" / "ptx"
# ptxas 13.0.88 -g on params.G.ptx (scripts/debug_g_probe.py: the same list)
SECTIONS = [
    ".debug_frame",
    ".debug_line",
    ".nv_debug_line_sass",
    ".nv_debug_ptx_txt",
    ".nv_debug_info_reg_sass",
    ".nv_debug_info_reg_type",
    ".debug_abbrev",
    ".debug_info",
    ".debug_macinfo",
]


@pytest.fixture(scope="module")
def cubin() -> bytes:
    text = (PTX / "params.G.ptx").read_text()
    return compile_ptx(text, Options(arch="sm_90", device_debug=True), "params.G.ptx").cubin


def _cstr(d: bytes, i: int) -> tuple[str, int]:
    j = d.index(0, i)
    return d[i:j].decode(), j + 1


def _reg_map(d: bytes) -> dict[str, list[tuple[int, str, int, int, int, int]]]:
    out: dict[str, list[tuple[int, str, int, int, int, int]]] = {}
    i = 0
    while i < len(d):
        fn, i = _cstr(d, i)
        n = int.from_bytes(d[i : i + 4], "little")
        i += 4
        recs = out.setdefault(fn, [])
        for _ in range(n):
            word = int.from_bytes(d[i : i + 4], "little")
            name, i = _cstr(d, i + 4)
            reg, kind = d[i], d[i + 3]
            start = int.from_bytes(d[i + 4 : i + 8], "little")
            end = int.from_bytes(d[i + 8 : i + 12], "little")
            recs.append((word, name, reg, kind, start, end))
            i += 12
    return out


def _code_sizes(c: Cubin) -> dict[str, int]:
    return {s.name[6:]: len(s.data()) for s in c.sections if s.name.startswith(".text.")}


def test_sections_and_flags(cubin: bytes) -> None:
    c = read_cubin(cubin)
    names = [s.name for s in c.sections if s.name.startswith((".debug", ".nv_debug"))]
    assert names == SECTIONS
    assert c.e_flags >> 24 == 0x0E


def test_register_map(cubin: bytes) -> None:
    c = read_cubin(cubin)
    sizes = {
        s.name[len(".text.") :]: len(s.data()) for s in c.sections if s.name.startswith(".text.")
    }
    regs = _reg_map(c.section(".nv_debug_info_reg_sass").data())
    assert set(regs) == set(sizes)
    types = c.section(".nv_debug_info_reg_type").data()
    i = 0
    for fn in regs:  # same functions, same counts, one type per record
        name, i = _cstr(types, i)
        n = int.from_bytes(types[i : i + 4], "little")
        assert name == fn and n == len(regs[fn])
        kinds = types[i + 4 : i + 4 + n]
        for (word, ptx, _reg, kind, start, end), t in zip(regs[fn], kinds, strict=True):
            assert 0 <= start < end <= sizes[fn] and start % 16 == 0 == end % 16
            assert kind in (2, 4, 5)
            if ptx.startswith("%rd") or ptx.startswith("%SP"):
                assert t == 3 and word in (0, 1)
            elif ptx.startswith("%p"):
                assert t == 16 and kind == 2
            elif ptx.startswith("%rs"):
                assert t == 1 and word == 0
            elif ptx.startswith("%r"):
                assert t == 2 and word == 0
        i += 4 + n
    assert i == len(types)
    # sorted by class, register, start (ptxas's order)
    for recs in regs.values():
        keys = [(k, r, s) for _w, _n, r, k, s, _e in recs]
        assert keys == sorted(keys)


def test_debug_info_relocations(cubin: bytes) -> None:
    c = read_cubin(cubin)
    idx = c.section_index(".debug_info")
    sizes = {
        s.name[len(".text.") :]: len(s.data()) for s in c.sections if s.name.startswith(".text.")
    }
    relocs = [
        r
        for t in c.sections
        if isinstance(t.content, RelocTable) and t.info == idx
        for r in t.content.relocs
    ]
    assert len(relocs) == 8  # low_pc/high_pc of the 4 kernels (ptxas: the same fields)
    for r in relocs:
        assert r.type_name == "R_CUDA_64" and r.addend is not None
        assert 0 <= r.addend <= sizes[c.symbol_name(r.sym)]
    data = c.section(".debug_info").data()
    # the local depots' DW_OP_addr became DW_OP_fbreg (0x91) padded with DW_OP_nop (0x96)
    assert data.count(bytes([0x91])) >= 5 and b"\x96\x96" in data


def test_suppress_debug_info(cubin: bytes) -> None:
    text = (PTX / "params.G.ptx").read_text()
    o = Options(arch="sm_90", device_debug=True, suppress_debug_info=True)
    c = read_cubin(compile_ptx(text, o, "params.G.ptx").cubin)
    g = read_cubin(cubin)
    names = [s.name for s in c.sections if s.name.startswith((".debug", ".nv_debug"))]
    assert names == [".debug_frame"]  # ptxas: the -g frames stay, the debug sections go
    assert c.section(".debug_frame").data() == g.section(".debug_frame").data()
    assert c.e_flags >> 24 == 0x06
    for s in g.sections:  # the same -O0 code
        if s.name.startswith(".text."):
            assert c.section(s.name).data() == s.data()


# a device function in two kernels: a copy in each, one DWARF subprogram
TWO_KERNELS = """.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) f(.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [a];
    add.s32 %r2, %r1, 1;
    st.param.b32 [r], %r2;
    ret;
}
.entry k1(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 r0;
    call.uni (r0), f, (a0);
    ld.param.b32 %r2, [r0];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
.entry k2(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 r0;
    call.uni (r0), f, (a0);
    ld.param.b32 %r2, [r0];
    }
    st.global.u32 [%rd1+4], %r2;
    ret;
}
"""


def test_device_function_in_its_kernel() -> None:
    """mangled.G.ptx: _Z6helperi is a subroutine of _Z10cpp_kernelPi; its DWARF subprogram's
    addresses are relocated against the kernel at the subroutine's place, its registers are
    in the kernel's register map, and it has a .debug_frame CIE whose return-address column
    is the register pair our allocator gave it (the same value in it)."""
    text = (PTX / "mangled.G.ptx").read_text()
    o = Options(arch="sm_90", device_debug=True)
    c = read_cubin(compile_ptx(text, o, "mangled.G.ptx").cubin)
    sub = next(y for y in c.symtab.symbols if y.name == "$_Z10cpp_kernelPi$_Z6helperi")
    idx = c.section_index(".debug_info")
    relocs = [
        r
        for t in c.sections
        if isinstance(t.content, RelocTable) and t.info == idx
        for r in t.content.relocs
    ]
    # the helper's low_pc/high_pc: its code, in the kernel's section
    assert any(r.addend == sub.value for r in relocs)  # low_pc
    assert any(sub.value < r.addend <= sub.value + sub.size for r in relocs)  # high_pc
    assert any(r.addend == 0 for r in relocs)  # the kernel's low_pc: its start
    regs = _reg_map(c.section(".nv_debug_info_reg_sass").data())
    inside = [x for x in regs["_Z10cpp_kernelPi"] if sub.value <= x[4] < sub.value + sub.size]
    assert inside  # the helper's registers
    frame = c.section(".debug_frame").data()
    assert frame.count(b"\xff" * 8) == 4  # 3 kernels' CIEs and the helper's
    # the kernels' return-address column: none (0xffffffff); the helper's: R<n>, 0x5000000 + n
    heads = frame.split(b"\x03\x00\x04\x7c")[1:]
    assert sum(h.startswith(b"\xff\xff\xff\xff\x0f") for h in heads) == 3
    ra = [h for h in heads if not h.startswith(b"\xff")]
    assert len(ra) == 1 and ra[0][3] == 0x28 and ra[0][0] & 0x80


@pytest.mark.parametrize(
    ("file", "opts", "message"),
    [
        ("two_kernels", {}, "device function 'f' called from several kernels (k1, k2"),
        ("shared.G.ptx", {}, "extern shared variable 'dyn_smem'"),
        ("params.G.ptx", {"compile_only": True}, "with relocatable output (-c)"),
        ("params.G.ptx", {"arch": "sm_100"}, "(-g) for sm_100 is not supported"),
    ],
)
def test_refusals(file: str, opts: dict[str, object], message: str) -> None:
    text = TWO_KERNELS if file == "two_kernels" else (PTX / file).read_text()
    o = Options(arch="sm_90", device_debug=True).with_(**opts)
    with pytest.raises(OpenPtxasError, match="debug information \\(-g\\)") as exc:
        compile_ptx(text, o, file)
    assert message in str(exc.value)


@pytest.mark.parametrize("name", ["t1/divergent_if", "t1/grid_stride"])
def test_nvcc_G_kernels_run(name: str, oracle) -> None:  # type: ignore[no-untyped-def]
    """tests/kernels sources through nvcc -G and openptxas -g: every launch in the emulator
    (hazard checker on) equals the kernel's numpy reference. divergent_if's loops are tested at
    their top with divergent exits: their barriers were armed in the loop header (a deadlock,
    passes/convergence.py)."""
    from openptxas.emu import run_launch
    from openptxas.testing.corpus import compare_outputs, discover
    from tests.emu.harness import Case, expected

    ks = next(k for k in discover() if k.name == name)
    ptx = oracle.cu_to_ptx(ks.cu_path, "sm_90", [*ks.nvcc_flags, "-G"], subject=ks.name)
    o = Options(arch="sm_90", device_debug=True, verify=True)
    cubin = compile_ptx(ptx, o, ks.stem + ".ptx").cubin
    for spec in ks.specs:
        r = run_launch(cubin, spec, hazards=True)
        assert not r.hazards, r.hazards[:3]
        want, _text = expected(Case(ks, "sm_90", spec))
        assert not compare_outputs(spec, r.outputs, want), spec.kernel
