"""Texture and surface objects (emu/texture.py, emu/ops_tex.py): the launch spec's description,
the fetch rules against values worked out by hand from the CUDA guide, and the faults of
launches that misuse them. The corpus kernels t2/texture_fetch and t2/surface_write check ptxas's
TEX/TLD/SULD/SUST code against numpy references (tests/emu/test_corpus_emu.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from openptxas.emu import texture as tx
from openptxas.emu.errors import KernelFault
from openptxas.emu.launch import launch
from openptxas.emu.memory import GLOBAL_BASE
from openptxas.spec import SpecError, parse_spec
from openptxas.testing.oracle import Oracle
from tests.conftest import need_tools

KERNELS = Path(__file__).parents[1] / "kernels" / "t2"


def _arg(kind: str = "texture", **desc: Any) -> dict[str, Any]:
    count = desc.pop("count", 16)
    dtype = desc.pop("dtype", "f32")
    return {"kind": kind, "dtype": dtype, "count": count, kind: {"dims": [16], **desc}}


def _obj(data: np.ndarray, **desc: Any) -> tuple[tx.TexObject, np.ndarray]:
    """A texture over ``data`` placed at the start of an arena."""
    a = parse_spec({"kernel": "k", "args": [_arg(count=data.size, **desc)]}).args[0]
    arena = np.zeros(data.nbytes + 64, np.uint8)
    arena[: data.nbytes] = data.view(np.uint8)
    return tx.tex_object(a, 0, GLOBAL_BASE), arena


@pytest.mark.parametrize(
    ("desc", "match"),
    [
        ({"filter": "linear", "dtype": "i32"}, "linear filtering needs float"),
        ({"address": "wrap"}, "wrap and mirror need normalized"),
        ({"count": 15}, "'count' is 15"),
        ({"channels": 3}, "'channels'"),
        ({"read_mode": "normalized_float"}, "normalized_float"),
        ({"resource": "linear", "filter": "linear"}, "linear memory"),
        ({"cubemap": True}, "cubemap"),
        ({"bogus": 1}, "unknown texture field"),
    ],
)
def test_bad_texture_descriptions(desc: dict[str, Any], match: str) -> None:
    a = parse_spec({"kernel": "k", "args": [_arg(**desc)]}).args[0]
    with pytest.raises(SpecError, match=match):
        tx.tex_object(a, 0, GLOBAL_BASE)


def test_spec_kinds() -> None:
    s = parse_spec({"kernel": "k", "args": [_arg(), _arg("surface")]})
    assert [a.param_size for a in s.args] == [8, 8]
    with pytest.raises(SpecError, match="read-only"):
        parse_spec({"kernel": "k", "args": [{**_arg(), "role": "out"}]})
    with pytest.raises(SpecError, match="needs a 'surface' object"):
        parse_spec({"kernel": "k", "args": [{"kind": "surface", "dtype": "f32", "count": 4}]})


def test_linear_weights_have_eight_fractional_bits() -> None:
    # T = [0, 1]: tex(u) = a with u - 0.5 = a; a is rounded to a multiple of 1/256
    tex, arena = _obj(np.array([0.0, 1.0], np.float32), dims=[2], filter="linear")
    u = np.array([0.5 + 1 / 1024, 0.5 + 3 / 1024, 0.5 + 0.3, 1.5, 0.25, 9.0])
    got = tx.sample(tex, arena, [u], np.zeros(u.size, np.int64))[:, 0]
    want = [0.0, 1 / 256, round(0.3 * 256) / 256, 1.0, 0.0, 1.0]  # clamp below and above
    assert got.tolist() == want


def test_address_modes_on_indices() -> None:
    data = np.arange(4, dtype=np.float32)
    i = np.array([-5, -1, 0, 3, 4, 7])
    for mode, want in [
        ("clamp", [0, 0, 0, 3, 3, 3]),
        ("border", [0, 0, 0, 3, 0, 0]),
        ("wrap", [3, 3, 0, 3, 0, 3]),
        ("mirror", [3, 0, 0, 3, 3, 0]),
    ]:
        tex, arena = _obj(data, dims=[4], address=mode, normalized_coords=mode != "clamp")
        got = tx.fetch(tex, arena, [i], np.zeros(i.size, np.int64))[:, 0]
        assert got.tolist() == want, mode


def test_normalized_float_reads() -> None:
    tex, arena = _obj(
        np.array([0, 127, -128, -1], np.int8), dims=[4], dtype="i8", read_mode="normalized_float"
    )
    got = tx.fetch(tex, arena, [np.arange(4)], np.zeros(4, np.int64))[:, 0]
    assert got.tolist() == [0.0, 1.0, -1.0, -1 / 127]
    words = tx.result_words(tex, got[:, None])
    assert words[3].view(np.float32).tolist() == [1.0] * 4  # absent w reads 1


def test_cube_faces() -> None:
    d = np.array(
        [
            [1, 0.5, -0.25],
            [-1, 0.5, 0.25],
            [0.5, 1, 0.25],
            [0.5, -1, 0.25],
            [0.5, 0.25, 1],
            [0.5, 0.25, -1],
        ]
    ).T
    face, s, t = tx.cube_face(d[0], d[1], d[2])
    assert face.tolist() == [0, 1, 2, 3, 4, 5]
    # the guide's table: +x (-z, -y), -x (z, -y), +y (x, z), -y (x, -z), +z (x, -y), -z (-x, -y)
    sc = [0.25, 0.25, 0.5, 0.5, 0.5, -0.5]
    tc = [-0.5, -0.5, 0.25, -0.25, -0.25, -0.25]
    assert s.tolist() == [(v + 1) / 2 for v in sc]
    assert t.tolist() == [(v + 1) / 2 for v in tc]


def _cubin(stem: str) -> bytes:
    need_tools("nvcc", "ptxas")
    o = Oracle()
    return o.ptxas(o.cu_to_ptx(KERNELS / f"{stem}.cu", "sm_90"), "sm_90").cubin


def test_surface_trap_mode_faults_out_of_range() -> None:
    spec = {
        "kernel": "write_2d_rgba",
        "grid": [7],
        "block": [20],
        "args": [
            {
                "kind": "surface",
                "dtype": "u8",
                "count": 19 * 7 * 4,
                "role": "out",
                "surface": {"dims": [19, 7], "channels": 4},
            }
        ],
    }
    with pytest.raises(KernelFault, match="surface access out of range"):
        launch(_cubin("surface_write"), spec)


def test_texture_instruction_on_a_surface_handle() -> None:
    spec = {
        "kernel": "fetch_2d",
        "grid": [1],
        "block": [4],
        "args": [
            {"kind": "surface", "dtype": "f32", "count": 16, "surface": {"dims": [4, 4]}},
            {"kind": "buffer", "dtype": "f32", "count": 4, "role": "out"},
            *[{"kind": "scalar", "dtype": "f32", "init": 0.5} for _ in range(4)],
        ],
    }
    with pytest.raises(KernelFault, match="no texture object with handle"):
        launch(_cubin("texture_fetch"), spec)


_INT_FETCH_PTX = """\
.version 8.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 a, .param .u64 o)
{
.reg .b32 %r<16>; .reg .b64 %rd<8>;
ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [a]; ld.param.u64 %rd3, [o];
mov.u32 %r1, %tid.x; mul.wide.u32 %rd4, %r1, 8; add.s64 %rd5, %rd3, %rd4;
and.b32 %r2, %r1, 15; add.s32 %r2, %r2, -2; shr.u32 %r3, %r1, 4; add.s32 %r3, %r3, -1;
tex.2d.v4.s32.s32 {%r4, %r5, %r6, %r7}, [%rd1, {%r2, %r3}];
shr.u32 %r8, %r1, 3; add.s32 %r8, %r8, -1; and.b32 %r9, %r1, 7; add.s32 %r9, %r9, -1;
tex.a1d.v4.s32.s32 {%r10, %r11, %r12, %r13}, [%rd2, {%r8, %r9}];
st.global.v2.u32 [%rd5], {%r4, %r10};
ret;
}
"""


def test_integer_fetches_with_offsets_and_layers() -> None:
    """TLD.LZ.AOFFI (ptxas folds the -2 of x into a texel offset) and TLD.LZ ARRAY_1D (the
    layer clamped to the last one, -1 included: ptxas's unsigned clamp), against numpy."""
    need_tools("ptxas")
    from openptxas.spec import materialize

    n = 64
    t2 = {"kind": "texture", "dtype": "i32", "count": 48, "init": "random", "seed": 3,
          "texture": {"dims": [8, 6], "address": "border"}}  # fmt: skip
    t1 = {"kind": "texture", "dtype": "i32", "count": 24, "init": "random", "seed": 4,
          "texture": {"dims": [6], "layers": 4, "address": "clamp"}}  # fmt: skip
    out = {"kind": "buffer", "dtype": "i32", "count": 2 * n, "role": "out"}
    spec = {"kernel": "k", "grid": [1], "block": [n], "args": [t2, t1, out]}
    blob = Oracle().ptxas(_INT_FETCH_PTX, "sm_90").cubin
    forms = {f"{i.opcode}.{'.'.join(i.mods)}" for i in _sass(blob)}
    assert {"TLD.LZ.AOFFI", "TLD.LZ"} <= forms, forms
    got = launch(blob, spec).outputs[2].reshape(n, 2)
    d2, d1 = (a.view(np.int32) for a in materialize(parse_spec(spec))[:2])
    i = np.arange(n)
    x, y = (i & 15) - 2, (i >> 4) - 1
    inside = (x >= 0) & (x < 8) & (y >= 0) & (y < 6)
    want2 = np.where(inside, d2[np.clip(y, 0, 5) * 8 + np.clip(x, 0, 7)], 0)
    layer = (i >> 3) - 1
    layer = np.where(layer < 0, 3, np.minimum(layer, 3))
    want1 = d1[layer * 6 + np.clip((i & 7) - 1, 0, 5)]
    assert got[:, 0].tolist() == want2.tolist()
    assert got[:, 1].tolist() == want1.tolist()


def _sass(blob: bytes) -> list[Any]:
    from tests.emu.ptxrun import sass

    return sass(blob)
