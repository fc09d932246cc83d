"""Texture and surface instructions (lower/tex_rules.py): each form compiled by openptxas and by
ptxas runs in the emulator on texture/surface launch arguments (docs/launch-spec.md) with the
hazard checker; the output buffer and the surfaces must be equal word for word. Coordinates
reach outside the objects (border/clamp addressing, the clamp and zero surface modes, layers
below 0 and past the last), and the fetches read subsets of the components (the write mask).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

N = 48  # threads, one block

# f32 coordinates from %f1 = (float)tid: fma.rn.f32 %fK, %f1, scale, offset
F = "fma.rn.f32 %{d}, %f1, 0f{s:08X}, 0f{o:08X};"


def _f(d: str, s: float, o: float) -> str:
    return F.format(d=d, s=np.float32(s).view(np.uint32), o=np.float32(o).view(np.uint32))


def _tex(**desc: Any) -> dict[str, Any]:
    dtype = desc.pop("dtype", "f32")
    ch = desc.get("channels", 1)
    n = int(np.prod(desc["dims"])) * max(desc.get("layers", 0), 1) * ch
    n *= 6 if desc.get("cubemap") else 1
    return {"kind": "texture", "dtype": dtype, "count": n, "init": "random", "seed": 7,
            "texture": desc}  # fmt: skip


def _surf(**desc: Any) -> dict[str, Any]:
    dtype = desc.pop("dtype", "u32")
    n = int(np.prod(desc["dims"])) * max(desc.get("layers", 0), 1) * desc.get("channels", 1)
    return {"kind": "surface", "dtype": dtype, "count": n, "init": "random", "seed": 8,
            "role": "inout", "surface": desc}  # fmt: skip


# name -> (body, texture/surface argument). %r1 = tid, %f1 = (float)tid, %rd1 the handle,
# %rd4 = out + 16 * tid.
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "tex_1d_f": (
        _f("f2", 0.375, -2.0) + "tex.1d.v4.f32.f32 {%f4,%f5,%f6,%f7}, [%rd1, {%f2}];"
        "st.global.v2.f32 [%rd4], {%f4, %f7};",
        _tex(dims=[16], filter="linear", address="clamp"),
    ),
    "tex_level_1d": (
        _f("f2", 0.375, -2.0) + "mov.f32 %f3, 0f00000000;"
        "tex.level.1d.v4.f32.f32 {%f4,%f5,%f6,%f7}, [%rd1, {%f2}], %f3;"
        "st.global.f32 [%rd4], %f4;",
        _tex(dims=[16], filter="point", address="border"),
    ),
    "tex_1d_s": (
        "add.s32 %r2, %r1, -4;tex.1d.v4.s32.s32 {%r4,%r5,%r6,%r7}, [%rd1, {%r2}];"
        "st.global.v4.u32 [%rd4], {%r4,%r5,%r6,%r7};",
        _tex(dims=[40], dtype="i32", channels=2, resource="linear", address="border"),
    ),
    "tex_2d_u_s": (
        "and.b32 %r2, %r1, 15; add.s32 %r2, %r2, -2; shr.u32 %r3, %r1, 3; add.s32 %r3, %r3, -1;"
        "tex.2d.v4.u32.s32 {%r4,%r5,%r6,%r7}, [%rd1, {%r2, %r3}];"
        "st.global.v2.u32 [%rd4], {%r4, %r6};",
        _tex(dims=[8, 6], dtype="u32", channels=4, address="border"),
    ),
    "tex_2d_s_f": (
        _f("f2", 0.25, -1.0) + _f("f3", 0.125, -0.5) + ""
        "tex.2d.v4.s32.f32 {%r4,%r5,%r6,%r7}, [%rd1, {%f2, %f3}];"
        "st.global.v4.u32 [%rd4], {%r4,%r5,%r6,%r7};",
        _tex(dims=[8, 6], dtype="i32", channels=4, address="clamp"),
    ),
    "tex_3d_f": (
        _f("f2", 0.1875, -1.0) + _f("f3", 0.0625, 0.25) + _f("f4", 0.09375, -0.5) + ""
        "tex.3d.v4.f32.f32 {%f5,%f6,%f7,%f8}, [%rd1, {%f2, %f3, %f4, %f4}];"
        "st.global.v2.f32 [%rd4], {%f5, %f6};",
        _tex(dims=[4, 4, 3], channels=2, filter="linear", address="clamp"),
    ),
    "tex_3d_s": (
        "and.b32 %r2, %r1, 7; add.s32 %r2, %r2, -2; shr.u32 %r3, %r1, 3; and.b32 %r3, %r3, 3;"
        "shr.u32 %r5, %r1, 4; add.s32 %r5, %r5, -1;"
        "tex.3d.v4.f32.s32 {%f5,%f6,%f7,%f8}, [%rd1, {%r2, %r3, %r5, %r5}];"
        "st.global.f32 [%rd4], %f5;",
        _tex(dims=[4, 4, 3], address="border"),
    ),
    "tex_a1d_f": (
        "shr.u32 %r2, %r1, 4; add.s32 %r2, %r2, -1;" + _f("f2", 0.25, -1.0) + ""
        "tex.a1d.v4.f32.f32 {%f5,%f6,%f7,%f8}, [%rd1, {%r2, %f2}];"
        "tex.a1d.v4.f32.f32 {%f9,%f10,%f11,%f12}, [%rd1, {1, %f2}];"  # an immediate layer
        "st.global.v2.f32 [%rd4], {%f5, %f9};",
        _tex(dims=[8], layers=3, filter="linear", address="clamp"),
    ),
    "tex_a1d_s": (
        "shr.u32 %r2, %r1, 4; add.s32 %r2, %r2, 1; and.b32 %r3, %r1, 15; add.s32 %r3, %r3, -4;"
        "tex.a1d.v4.s32.s32 {%r4,%r5,%r6,%r7}, [%rd1, {%r2, %r3}];"
        "st.global.u32 [%rd4], %r4;",
        _tex(dims=[8], layers=3, dtype="i32", address="border"),
    ),
    "tex_a2d_s": (
        "shr.u32 %r2, %r1, 4; and.b32 %r3, %r1, 3; add.s32 %r3, %r3, -1;"
        "shr.u32 %r5, %r1, 2; and.b32 %r5, %r5, 3; add.s32 %r5, %r5, -1;"
        "tex.a2d.v4.f32.s32 {%f5,%f6,%f7,%f8}, [%rd1, {%r2, %r3, %r5, %r5}];"
        "st.global.f32 [%rd4], %f5;",
        _tex(dims=[4, 3], layers=2, address="clamp"),
    ),
    "tex_level_a2d": (
        "shr.u32 %r2, %r1, 4;" + _f("f2", 0.3125, -1.0) + _f("f3", -0.125, 3.0) + ""
        "mov.f32 %f9, 0f00000000;"
        "tex.level.a2d.v4.f32.f32 {%f5,%f6,%f7,%f8}, [%rd1, {%r2, %f2, %f3, %f3}], %f9;"
        "st.global.f32 [%rd4], %f5;",
        _tex(dims=[4, 3], layers=2, filter="linear", address="clamp"),
    ),
    "tex_level_cube": (
        _f("f2", 0.25, -6.0) + _f("f3", -0.0625, 1.5) + _f("f4", 0.1875, -4.5) + ""
        "mov.f32 %f9, 0f00000000;"
        "tex.level.cube.v4.f32.f32 {%f5,%f6,%f7,%f8}, [%rd1, {%f2, %f3, %f4, %f4}], %f9;"
        "st.global.f32 [%rd4], %f5;",
        _tex(dims=[4, 4], cubemap=True, filter="point", address="clamp"),
    ),
    "suld_1d_v2_clamp": (
        "shl.b32 %r2, %r1, 3; add.s32 %r2, %r2, -64;"
        "suld.b.1d.v2.b32.clamp {%r4, %r5}, [%rd1, {%r2}];"
        "st.global.v2.u32 [%rd4], {%r4, %r5};",
        _surf(dims=[16], channels=2),
    ),
    "suld_2d_b8_zero": (
        "and.b32 %r2, %r1, 15; add.s32 %r2, %r2, -2; shr.u32 %r3, %r1, 4; add.s32 %r3, %r3, -1;"
        "suld.b.2d.b8.zero {%rs1}, [%rd1, {%r2, %r3}];"
        "cvt.u32.u16 %r4, %rs1; st.global.u32 [%rd4], %r4;",
        _surf(dims=[12, 4], dtype="u8"),
    ),
    "suld_a2d_v4_trap": (
        "and.b32 %r2, %r1, 3; shl.b32 %r2, %r2, 4; shr.u32 %r3, %r1, 2; and.b32 %r3, %r3, 1;"
        "shr.u32 %r5, %r1, 3; and.b32 %r5, %r5, 1;"
        "suld.b.a2d.v4.b32.trap {%r6,%r7,%r8,%r9}, [%rd1, {%r5, %r2, %r3, %r3}];"
        "st.global.v4.u32 [%rd4], {%r6,%r7,%r8,%r9};",
        _surf(dims=[4, 3], layers=2, channels=4),
    ),
    "suld_3d_v4_b8": (
        "and.b32 %r2, %r1, 3; shl.b32 %r2, %r2, 2; shr.u32 %r3, %r1, 2; and.b32 %r3, %r3, 1;"
        "shr.u32 %r5, %r1, 3; and.b32 %r5, %r5, 1;"
        "suld.b.3d.v4.b8.trap {%rs1,%rs2,%rs3,%rs4}, [%rd1, {%r2, %r3, %r5, %r5}];"
        "cvt.u32.u16 %r6, %rs1; cvt.u32.u16 %r7, %rs2; cvt.u32.u16 %r8, %rs3;"
        "cvt.u32.u16 %r9, %rs4; st.global.v4.u32 [%rd4], {%r6,%r7,%r8,%r9};",
        _surf(dims=[4, 2, 2], dtype="u8", channels=4),
    ),
    "suld_a1d_b16_clamp": (
        "and.b32 %r2, %r1, 15; add.s32 %r2, %r2, -4; shl.b32 %r2, %r2, 1; shr.u32 %r3, %r1, 4;"
        "suld.b.a1d.b16.clamp {%rs1}, [%rd1, {%r3, %r2}];"
        "cvt.u32.u16 %r4, %rs1; st.global.u32 [%rd4], %r4;",
        _surf(dims=[8], layers=2, dtype="u16"),
    ),
    "sust_a1d_b16_clamp": (
        "and.b32 %r2, %r1, 15; add.s32 %r2, %r2, -4; shl.b32 %r2, %r2, 1; shr.u32 %r3, %r1, 4;"
        "mad.lo.s32 %r4, %r1, 3, 1; cvt.u16.u32 %rs1, %r4;"
        "sust.b.a1d.b16.clamp [%rd1, {%r3, %r2}], {%rs1};",
        _surf(dims=[8], layers=2, dtype="u16"),
    ),
    "sust_2d_v2_b16_zero": (
        "and.b32 %r2, %r1, 15; add.s32 %r2, %r2, -2; shl.b32 %r2, %r2, 2;"
        "shr.u32 %r3, %r1, 4; add.s32 %r3, %r3, -1;"
        "cvt.u16.u32 %rs1, %r1; add.s32 %r4, %r1, 1000; cvt.u16.u32 %rs2, %r4;"
        "sust.b.2d.v2.b16.zero [%rd1, {%r2, %r3}], {%rs1, %rs2};",
        _surf(dims=[8, 4], dtype="u16", channels=2),
    ),
    "sust_3d_b32_trap": (
        "and.b32 %r2, %r1, 3; shl.b32 %r2, %r2, 2; shr.u32 %r3, %r1, 2; and.b32 %r3, %r3, 3;"
        "shr.u32 %r5, %r1, 4;" + _f("f2", 1.5, -3.0) + "mov.b32 %r6, %f2;"
        "sust.b.3d.b32.trap [%rd1, {%r2, %r3, %r5, %r5}], {%r6};",
        _surf(dims=[4, 4, 3], dtype="f32"),
    ),
    "sust_1d_v4_b32": (
        "mov.u32 %r2, 47; sub.s32 %r2, %r2, %r1; shl.b32 %r2, %r2, 4;"
        "add.s32 %r3, %r1, 1; mul.lo.s32 %r5, %r1, %r1; xor.b32 %r6, %r1, 0x55;"
        "sust.b.1d.v4.b32.trap [%rd1, {%r2}], {%r1, %r3, %r5, %r6};",
        _surf(dims=[48], channels=4),
    ),
    "sust_a2d_v2_b32_zero": (
        "and.b32 %r2, %r1, 7; add.s32 %r2, %r2, -2; shl.b32 %r2, %r2, 3;"
        "shr.u32 %r3, %r1, 3; and.b32 %r3, %r3, 3; shr.u32 %r5, %r1, 5; add.s32 %r6, %r1, 7;"
        "sust.b.a2d.v2.b32.zero [%rd1, {%r5, %r2, %r3, %r3}], {%r1, %r6};",
        _surf(dims=[4, 4], layers=2, channels=2),
    ),
    "sust_2d_b64_trap": (
        "and.b32 %r2, %r1, 7; shl.b32 %r2, %r2, 3; shr.u32 %r3, %r1, 3;"
        "mul.wide.u32 %rd5, %r1, 0x10001; sust.b.2d.b64.trap [%rd1, {%r2, %r3}], {%rd5};",
        _surf(dims=[8, 6], channels=2),
    ),
    "sust_3d_v4_b8": (
        "and.b32 %r2, %r1, 3; shl.b32 %r2, %r2, 2; shr.u32 %r3, %r1, 2; and.b32 %r3, %r3, 1;"
        "shr.u32 %r5, %r1, 3; and.b32 %r5, %r5, 1; and.b32 %r5, %r5, 1;"
        "cvt.u16.u32 %rs1, %r1; add.s32 %r6, %r1, 100; cvt.u16.u32 %rs2, %r6;"
        "sust.b.3d.v4.b8.trap [%rd1, {%r2, %r3, %r5, %r5}], {%rs1, %rs2, %rs1, %rs2};",
        _surf(dims=[4, 2, 2], dtype="u8", channels=4),
    ),
}


def kernel_ptx(name: str) -> str:
    body = CASES[name][0].replace(";", ";\n")
    return f"""\
.version 8.8
.target sm_90
.address_size 64
.visible .entry {name}(.param .u64 t, .param .u64 o)
{{
.reg .f32 %f<16>; .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .b16 %rs<8>;
ld.param.u64 %rd1, [t];
ld.param.u64 %rd2, [o];
cvta.to.global.u64 %rd2, %rd2;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 16;
add.s64 %rd4, %rd2, %rd3;
cvt.rn.f32.s32 %f1, %r1;
{body}
ret;
}}
"""


def test_handle_inside_a_struct_parameter(oracle) -> None:  # type: ignore[no-untyped-def]
    """A handle loaded from a struct parameter at an offset (cub/thrust functors holding a
    cudaTextureObject_t: smokeParticles) is read from its own bank-0 slot, as ptxas reads it
    (the launch specs cannot place a texture inside a struct: compared on the listings)."""
    need_tools("ptxas", "nvdisasm")
    import re

    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = (
        kernel_ptx("tex_2d_s_f")
        .replace(".param .u64 t,", ".param .align 8 .b8 t[24],")
        .replace("ld.param.u64 %rd1, [t];", "ld.param.u64 %rd1, [t+16];")
    )

    def handle_slots(cubin: bytes) -> set[str]:
        text = oracle.nvdisasm(cubin, flags=("-c",))
        return set(re.findall(r"ULDC UR\d+, (c\[0x0\]\[0x[0-9a-f]+\])", text))

    want = handle_slots(oracle.ptxas(ptx, "sm_90").cubin)
    got = handle_slots(compile_ptx(ptx, Options(arch="sm_90"), "k.ptx").cubin)
    assert got == want == {"c[0x0][0x220]"}


def spec(name: str) -> dict[str, Any]:
    out = {"kind": "buffer", "dtype": "u32", "count": 4 * N, "init": "zeros", "role": "out"}
    return {"kernel": name, "grid": [1], "block": [N], "args": [CASES[name][1], out]}


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("name", sorted(CASES))
def test_tex_surface_same_as_ptxas(name: str, opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    ptx = kernel_ptx(name)
    s = spec(name)
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, s).outputs
    got = run_ours(ptx, s, opt).outputs
    keys = [1] if name.startswith("tex") else [0, 1]  # a texture is read-only, not an output
    assert sorted(got) == sorted(want) == keys
    for k in got:
        gu, wu = got[k].view(np.uint8), want[k].view(np.uint8)
        assert np.array_equal(gu, wu), (k, np.nonzero(gu != wu)[0][:10])
    # the kernel did something: a fetch wrote the buffer, a store changed the surface
    if name.startswith("sust"):
        assert not np.array_equal(want[0], _initial(s)), "no store reached the surface"
    else:
        assert want[1].any()


def _initial(s: dict[str, Any]) -> Any:
    from openptxas.spec import materialize, parse_spec

    return materialize(parse_spec(s))[0]


REFUSED = {
    "tld4": "tld4.r.2d.v4.f32.f32 {%f4,%f5,%f6,%f7}, [%rd1, {%f1, %f1}];",
    "txq": "txq.width.b32 %r4, [%rd1]; mov.b32 %f4, %r4;",
    "suq": "suq.width.b32 %r4, [%rd1]; mov.b32 %f4, %r4;",
    "tex_grad": "tex.grad.2d.v4.f32.f32 {%f4,%f5,%f6,%f7}, [%rd1, {%f1, %f1}], {%f1, %f1},"
    " {%f1, %f1};",
    "sust_p": "sust.p.2d.b32.trap [%rd1, {%r1, %r1}], {%r1}; mov.f32 %f4, 0f00000000;",
    "handle_from_memory": "ld.global.u64 %rd5, [%rd2]; "
    "tex.2d.v4.f32.f32 {%f4,%f5,%f6,%f7}, [%rd5, {%f1, %f1}];",
    "residency": "tex.2d.v4.f32.f32 {%f4,%f5,%f6,%f7}|%p1, [%rd1, {%f1, %f1}];",
    "texref_param": "tex.2d.v4.f32.f32 {%f4,%f5,%f6,%f7}, [tr, {%f1, %f1}];",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_forms(name: str) -> None:
    """Texture forms not built yet are refused with a diagnostic naming them, never lowered to
    code that drops a result (tld4/txq/suq/TXD: the ISA tables lack their bindless forms)."""
    from openptxas.diag import UnsupportedFeature
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = kernel_ptx("tex_1d_f").replace(
        "tex_1d_f(.param .u64 t,", "k(.param .texref tr, .param .u64 t,"
    )
    body = CASES["tex_1d_f"][0].replace(";", ";\n")
    ptx = ptx.replace(body, "")
    ptx = ptx.replace(
        "ret;", ".reg .pred %p1;\n" + REFUSED[name] + "\nst.global.f32 [%rd4], %f4;\nret;"
    )
    special = {
        "handle_from_memory": "handle not loaded",
        "residency": "with this destination",
        "texref_param": "reference 'tr'",
    }
    what = special.get(name, f"instruction '{REFUSED[name][:4]}")
    with pytest.raises(UnsupportedFeature, match=f"{what}.* not supported by openptxas yet"):
        compile_ptx(ptx, Options(arch="sm_90"), "k.ptx")
