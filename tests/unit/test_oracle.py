"""Tests of the oracle harness itself: parsing, caching, and clear errors."""

from pathlib import Path

import pytest

from openptxas.testing.corpus import discover, load_kernel
from openptxas.testing.oracle import (
    Cache,
    Oracle,
    OracleError,
    body_length,
    parse_nvdisasm,
    parse_ptxas_verbose,
)
from tests.conftest import need_tools

VERBOSE = """\
ptxas info    : 16 bytes gmem
ptxas info    : Compiling entry function 'k1' for 'sm_90'
ptxas info    : Function properties for k1
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 8 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compile time = 3.250 ms
ptxas info    : Function properties for helper
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 1.000 ms
"""


def test_parse_verbose():
    gmem, funcs = parse_ptxas_verbose(VERBOSE)
    assert gmem == 16
    by = {f.name: f for f in funcs}
    k1 = by["k1"]
    assert (
        k1.registers,
        k1.barriers,
        k1.stack_frame,
        k1.spill_stores,
        k1.spill_loads,
        k1.cumulative_stack,
        k1.smem,
        k1.compile_ms,
    ) == (40, 1, 8, 4, 4, 8, 1024, 3.25)
    assert by["k2"].registers == 8 and by["helper"].stack_frame == 0


LISTING = """\
        .section        .text.k,"ax",@progbits
        /*0000*/                   LDC R1, c[0x0][0x28] ;              /* 0x00000a00ff017b82 */
                                                                       /* 0x000fe20000000800 */
        /*0010*/                   EXIT ;                              /* 0x000000000000794d */
                                                                       /* 0x000fea0003800000 */
.L_x_0:
        /*0020*/                   BRA `(.L_x_0);                      /* 0xfffffffc00fc7947 */
                                                                       /* 0x000fc0000383ffff */
        /*0030*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
"""


def test_parse_nvdisasm_and_body_length():
    funcs = parse_nvdisasm(LISTING)
    ins = funcs["k"]
    assert [i.text for i in ins] == ["LDC R1, c[0x0][0x28]", "EXIT", "BRA `(.L_x_0)", "NOP"]
    assert ins[0].lo == 0x00000A00FF017B82 and ins[0].hi == 0x000FE20000000800
    assert ins[0].raw[:2] == b"\x82\x7b"
    assert body_length(ins) == 2


CU = """extern "C" __global__ void k(int* p) { p[threadIdx.x] = threadIdx.x * 3; }\n"""


def _kernel(tmp_path: Path, src: str) -> Path:
    d = tmp_path / "kernels" / "t1"
    d.mkdir(parents=True)
    (d / "k.cu").write_text(src)
    (d / "k.json").write_text(
        '{"kernels": [{"kernel": "k", "grid": [1], "block": [32], '
        '"args": [{"kind": "buffer", "dtype": "int32", "count": 32, '
        '"role": "out"}]}]}'
    )
    (d / "k.py").write_text("def k(args, spec):\n    return {0: args[0]}\n")
    return d / "k.cu"


def test_cache_miss_then_hit(tmp_path):
    need_tools("nvcc", "ptxas", "nvdisasm")
    oracle = Oracle(Cache(tmp_path / "cache"))
    ks = load_kernel(_kernel(tmp_path, CU))
    b1 = oracle.build_kernel(ks, "sm_90")
    assert oracle.cache.misses == 3 and oracle.cache.hits == 0
    assert b1.ptxas.cubin[:4] == b"\x7fELF"
    assert b1.ptxas.function("k").registers > 0
    assert "STG" in b1.sass_text
    b2 = oracle.build_kernel(ks, "sm_90")
    assert oracle.cache.hits == 3 and oracle.cache.misses == 3
    assert b2.ptxas.cubin == b1.ptxas.cubin and b2.sass_text == b1.sass_text
    assert b2.ptxas.wall_ms == b1.ptxas.wall_ms
    # A different target or flag is a different key.
    oracle.build_kernel(ks, "sm_80")
    assert oracle.cache.misses == 6


def test_failing_kernel_names_kernel_and_tool_message(tmp_path):
    need_tools("nvcc")
    oracle = Oracle(Cache(tmp_path / "cache"))
    ks = load_kernel(_kernel(tmp_path, CU.replace("threadIdx.x * 3", "undeclared_thing")))
    with pytest.raises(OracleError) as ei:
        oracle.build_kernel(ks, "sm_90")
    err = ei.value
    assert err.subject == "t1/k" and err.tool == "nvcc"
    assert "t1/k" in str(err) and "undeclared_thing" in str(err)


def test_failing_ptx_names_tool_message(tmp_path):
    need_tools("ptxas")
    oracle = Oracle(Cache(tmp_path / "cache"))
    bad = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(){ add.f33 %r1, 1; }\n"
    with pytest.raises(OracleError) as ei:
        oracle.ptxas(bad, "sm_90", subject="bad.ptx")
    assert ei.value.tool == "ptxas" and "Unknown modifier '.f33'" in str(ei.value)
    assert "bad.ptx" in str(ei.value)


PTX_K = """\
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""


def test_ptx_source_kernel(tmp_path):
    """A corpus kernel given as PTX (a generated kernel) is discovered beside the .cu kernels and
    built as is for the target its .target names; any other target, or nvcc flags, is an error."""
    need_tools("ptxas", "nvdisasm")
    cu = _kernel(tmp_path, CU)
    ptx = cu.with_name("g.ptx")
    ptx.write_text(PTX_K)
    ptx.with_suffix(".json").write_text(cu.with_suffix(".json").read_text())
    ptx.with_suffix(".py").write_text(cu.with_suffix(".py").read_text())
    found = discover(tmp_path / "kernels", tiers=("t1",))
    assert [(k.name, k.cu_path.suffix) for k in found] == [("t1/g", ".ptx"), ("t1/k", ".cu")]
    oracle = Oracle(Cache(tmp_path / "cache"))
    b = oracle.build_kernel(found[0], "sm_90a")
    assert b.ptx == PTX_K and "STG" in b.sass_text
    with pytest.raises(OracleError, match="PTX source is for sm_90a, not sm_90"):
        oracle.build_kernel(found[0], "sm_90")
    with pytest.raises(OracleError, match="nvcc flags"):
        oracle.cu_to_ptx(ptx, "sm_90a", ["-use_fast_math"])
