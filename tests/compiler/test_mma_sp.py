"""Sparse mma.sync (``mma.sp`` / ``mma.sp::ordered_metadata``, issue 20).

- ``test_mma_sp_equals_ptxas``: each shape and type sm_90 runs, compiled by openptxas and by
  ptxas; both cubins run in the emulator (ours with the hazard checker, 0 reports) on random
  words (A, B, C and the metadata of every lane), every output word equal.
- ``test_mma_sp_reference``: the emulator's HMMA.SP/IMMA.SP against the PTX ISA's definition:
  a random 2:4 (tf32: 1:2) sparse A is packed into the ISA's fragments and metadata (the
  threads the selector names hold it; the other lanes hold garbage), and D = A B + C from
  ptxas's cubin and ours equals numpy's (small integers: exact).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.compiler.test_wmma import _compare, mma_probe_ptx
from tests.conftest import need_tools

# (shape, types) -> (A, B, C/D words, K, sparsity selector)
_FORMS: dict[tuple[str, str], tuple[int, int, int, int, int]] = {
    ("m16n8k16", "f32.f16.f16.f32"): (2, 2, 4, 16, 3),
    ("m16n8k16", "f16.f16.f16.f16"): (2, 2, 2, 16, 1),
    ("m16n8k32", "f32.bf16.bf16.f32"): (4, 4, 4, 32, 1),
    ("m16n8k32", "f16.f16.f16.f16"): (4, 4, 2, 32, 0),
    ("m16n8k8", "f32.tf32.tf32.f32"): (2, 2, 4, 8, 2),
    ("m16n8k16", "f32.tf32.tf32.f32"): (4, 4, 4, 16, 1),
    ("m16n8k32", "s32.s8.u8.s32"): (2, 2, 4, 32, 1),
    ("m16n8k64", "satfinite.s32.u8.s8.s32"): (4, 4, 4, 64, 0),
    ("m16n8k64", "s32.s4.u4.s32"): (2, 2, 4, 64, 0),
    ("m16n8k128", "satfinite.s32.s4.s4.s32"): (4, 4, 4, 128, 0),
}


def _kernel(shape: str, types: str, sel: int, counts: tuple[int, int, int], sp: str) -> str:
    """Every lane loads A, B, C and its metadata word, runs the mma.sp and stores D."""
    return mma_probe_ptx(shape, types, counts, types.split(".")[-1] == "f32", sp, sel)


def _spec(words: np.ndarray, nc: int) -> dict[str, Any]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": words.size,
             "init": {"hex": words.astype("<u4").tobytes().hex()}},
            {"kind": "buffer", "dtype": "u32", "count": 32 * nc, "init": "zeros"},
        ],
    }  # fmt: skip


_IDS = [f"{s}.{t}" for s, t in _FORMS]


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("form", list(_FORMS), ids=_IDS)
def test_mma_sp_equals_ptxas(form: tuple[str, str], opt: int, oracle: Any) -> None:
    need_tools("ptxas")
    shape, types = form
    na, nb, nc, _, sel = _FORMS[form]
    sp = "mma.sp" if opt == 0 else "mma.sp::ordered_metadata"
    ptx = _kernel(shape, types, sel, (na, nb, nc), sp)
    total = na + nb + nc + 1
    rng = np.random.default_rng(len(types) + 7 * na + opt)
    words = rng.integers(0, 1 << 32, 32 * total, dtype=np.uint64).astype(np.uint32)
    if types.endswith("f32") and "tf32" not in types:  # small float accumulators
        acc = (rng.integers(-64, 64, (32, nc)).astype(np.float32) * 0.5).view(np.uint32)
        words.reshape(32, total)[:, na + nb : na + nb + nc] = acc
    if types.endswith("f32") and "tf32" in types:  # tf32 inputs too: no NaN soup
        vals = (rng.integers(-64, 64, (32, total)).astype(np.float32) * 0.25).view(np.uint32)
        words.reshape(32, total)[:, : total - 1] = vals[:, : total - 1]
    if types.startswith("satfinite"):  # accumulators near the limits: saturating sums
        big = rng.choice(np.array([0x7FFFFF00, 0x80000100, 0x7FFFFFFF, 0x80000000], np.uint32),
                         (32, nc))  # fmt: skip
        words.reshape(32, total)[:, na + nb : na + nb + nc] = big
    _compare(ptx, _spec(words, nc), opt, oracle)


# ------------------------------------------------------------------------- the ISA's definition

_G = np.arange(32) >> 2  # groupID
_Q = np.arange(32) & 3  # threadID_in_group


def _a_layout(shape: str, ty: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, compressed column) of each A element of each lane (the PTX ISA's sparse A
    fragments): [32, elements]."""
    if ty in ("f16", "bf16"):
        n = 4 if shape == "m16n8k16" else 8
        i = np.arange(n)
        row = _G[:, None] + 8 * ((i[None, :] >> 1) & 1)
        col = 2 * _Q[:, None] + (i[None, :] & 1) + 8 * (i[None, :] >> 2)
    elif ty == "tf32":
        n = 2 if shape == "m16n8k8" else 4
        i = np.arange(n)
        row = _G[:, None] + 8 * (i[None, :] & 1)
        col = _Q[:, None] + 4 * (i[None, :] >> 1)
    elif ty in ("s8", "u8"):
        n = 8 if shape == "m16n8k32" else 16
        i = np.arange(n)
        row = _G[:, None] + 8 * ((i[None, :] >> 2) & 1)
        col = 4 * _Q[:, None] + (i[None, :] & 3) + 16 * (i[None, :] >> 3)
    else:  # s4/u4: eight non-zero elements out of 16 per register
        n = 16 if shape == "m16n8k64" else 32
        i = np.arange(n)
        row = _G[:, None] + 8 * ((i[None, :] >> 3) & 1)
        col = 8 * _Q[:, None] + (i[None, :] & 7) + 32 * (i[None, :] >> 4)
    return row, col


def _b_layout(k: int, ty: str) -> tuple[np.ndarray, np.ndarray]:
    """(row = k, column) of each B element of each lane: [32, elements]."""
    per = {"f16": 2, "bf16": 2, "tf32": 1, "s8": 4, "u8": 4, "s4": 8, "u4": 8}[ty]
    n = k * 8 // 32
    i = np.arange(n)
    row = per * _Q[:, None] + (i[None, :] % per) + 4 * per * (i[None, :] // per)
    return row, np.broadcast_to(_G[:, None], row.shape)


_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "s4": 4, "u4": 4}


def _encode(vals: np.ndarray, ty: str) -> np.ndarray:
    """Element bit patterns (uint32) of small integer values."""
    if ty == "f16":
        return vals.astype(np.float16).view(np.uint16).astype(np.uint32)
    if ty == "bf16":
        return (vals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint32)
    if ty == "tf32":
        return vals.astype(np.float32).view(np.uint32)
    return (vals.astype(np.int64) & ((1 << _BITS[ty]) - 1)).astype(np.uint32)


def _pack(bits: np.ndarray, ty: str) -> np.ndarray:
    """[32, elements] element bits -> [32, words], element 0 in the low bits."""
    b = _BITS[ty]
    per = 32 // b
    n = bits.shape[1] // per
    out = np.zeros((32, max(n, 1)), dtype=np.uint32)
    for e in range(bits.shape[1]):
        out[:, e // per] |= bits[:, e] << np.uint32(b * (e % per))
    return out


_REF = [
    ("m16n8k16", "f32.f16.f16.f32", 2),
    ("m16n8k32", "f32.bf16.bf16.f32", 1),
    ("m16n8k32", "f16.f16.f16.f16", 0),
    ("m16n8k8", "f32.tf32.tf32.f32", 3),
    ("m16n8k16", "f32.tf32.tf32.f32", 0),
    ("m16n8k32", "s32.u8.s8.s32", 1),
    ("m16n8k64", "s32.s8.s8.s32", 0),
    ("m16n8k64", "s32.s4.s4.s32", 1),
    ("m16n8k128", "s32.u4.s4.s32", 0),
]


@pytest.mark.parametrize("shape,types,sel", _REF, ids=[f"{s}.{t}.f{f}" for s, t, f in _REF])
def test_mma_sp_reference(shape: str, types: str, sel: int, oracle: Any) -> None:
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    dt, at, bt, _ = types.split(".")
    k = int(shape.split("k")[1])
    rng = np.random.default_rng(k + sel + len(types))
    signed_a, signed_b = at not in ("u8", "u4"), bt not in ("u8", "u4")
    lo_a, hi_a = (-8, 8) if signed_a else (0, 16)
    lo_b, hi_b = (-8, 8) if signed_b else (0, 16)
    # A: in every chunk (4 elements; tf32 2; 4-bit types 8, as 4 pairs) keep 2 (1; 2 pairs)
    chunk, keep, unit = {"tf32": (2, 1, 1), "s4": (4, 2, 2), "u4": (4, 2, 2)}.get(at, (4, 2, 1))
    nch = k // unit // chunk
    pos = np.stack([np.sort(rng.choice(chunk, keep, replace=False)) for _ in range(16 * nch)])
    pos = pos.reshape(16, nch, keep)
    comp = rng.integers(lo_a, hi_a, (16, k // 2))  # the kept values, in order
    dense = np.zeros((16, k), dtype=np.int64)
    for r in range(16):
        for c in range(nch):
            for s in range(keep):
                for u in range(unit):
                    j = (c * keep + s) * unit + u
                    dense[r, (c * chunk + pos[r, c, s]) * unit + u] = comp[r, j]
    bm = rng.integers(lo_b, hi_b, (k, 8))
    cm = rng.integers(-50, 50, (16, 8))
    # fragments
    ar, ac = _a_layout(shape, at)
    a_words = _pack(_encode(comp[ar, ac], at), at)
    br, bc = _b_layout(k, bt)
    b_words = _pack(_encode(bm[br, bc], bt), bt)
    i = np.arange(4)
    cr, cc = _G[:, None] + 8 * (i[None, :] >> 1), 2 * _Q[:, None] + (i[None, :] & 1)
    if dt == "f16":
        c_words = _pack(_encode(cm[cr, cc], "f16"), "f16")
    elif dt == "f32":
        c_words = cm[cr, cc].astype(np.float32).view(np.uint32)
    else:
        c_words = cm[cr, cc].astype(np.int32).view(np.uint32)
    # metadata: a nibble per chunk (tf32: 0b0100 or 0b1110; else the two 2-bit indices)
    meta = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)  # garbage elsewhere
    per = max(1, nch // 4)
    held = {4 * g + sel * per + j for g in range(8) for j in range(per)}
    for lane in held:
        meta[lane] = 0
    for r in range(16):
        for c in range(nch):
            if chunk == 2:
                nib = 0b0100 if pos[r, c, 0] == 0 else 0b1110
            else:
                nib = int(pos[r, c, 0]) | int(pos[r, c, 1]) << 2
            lane = 4 * (r % 8) + sel * per + c // 4
            meta[lane] |= np.uint32(nib << (16 * (r // 8) + 4 * (c % 4)))
    words = np.concatenate([a_words, b_words, c_words, meta[:, None]], axis=1)
    na, nb, nc = a_words.shape[1], b_words.shape[1], c_words.shape[1]
    ptx = _kernel(shape, types, sel, (na, nb, nc), "mma.sp::ordered_metadata")
    spec = _spec(words.ravel(), nc)
    want = (dense @ bm + cm)[cr, cc]  # [32, 4]
    theirs = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec)
    ours = run_launch(
        compile_ptx(ptx, Options(arch="sm_90", verify=True), "k.ptx").cubin, spec, hazards=True
    )
    assert not ours.hazards, ours.hazards[:3]
    for res in (theirs, ours):
        out = res.outputs[1].view(np.uint32).reshape(32, nc)
        if dt == "f16":
            got = np.stack([out & 0xFFFF, out >> 16], -1).reshape(32, 4).astype(np.uint16)
            vals = got.view(np.float16).astype(np.int64)
        elif dt == "f32":
            vals = out.view(np.float32).astype(np.int64)
        else:
            vals = out.view(np.int32).astype(np.int64)
        assert np.array_equal(vals, want), np.argwhere(vals != want)[:5]


def test_mma_sp_refusals() -> None:
    from openptxas.diag import OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = _kernel("m16n8k64", "f32.e4m3.e5m2.f32", 0, (4, 4, 4), "mma.sp::ordered_metadata")
    with pytest.raises(OpenPtxasError, match="is not supported by openptxas yet"):
        compile_ptx(ptx, Options(arch="sm_90"), "k.ptx")


# ------------------------------------------------------- wmma s4/u4/b1, fp8 with f16, .satfinite

_WMMA_SUB = [
    ("m8n8k32", "s4", "s32.s4.s4.s32", "", "r", 64),
    ("m8n8k32", "u4", "s32.u4.u4.s32.satfinite", "", "c", 96),
    ("m8n8k128", "b1", "s32.b1.b1.s32", ".xor.popc", "r", 256),
    ("m8n8k128", "b1", "s32.b1.b1.s32", ".and.popc", "c", 160),
]


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("imm_ld", [False, True])
@pytest.mark.parametrize("case", _WMMA_SUB, ids=[f"{c[0]}.{c[2]}{c[3]}" for c in _WMMA_SUB])
def test_wmma_sub_byte(case: tuple[str, str, str, str, str, int], imm_ld: bool, opt: int,
                       oracle: Any) -> None:  # fmt: skip
    """wmma.load a (row) / b (col) of s4/u4/b1 with a stride of ``ld`` elements (a register or
    an immediate), c (s32) and the mma and store of D in layout ``lay``."""
    need_tools("ptxas")
    shape, ty, types, op, lay, ld = case
    lds = str(ld) if imm_ld else "%r10"
    cl = "row" if lay == "r" else "col"
    ptx = f""".version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 ld)
{{
\t.reg .b32 %r<20>;
\t.reg .b64 %rd<8>;
\tld.param.u64 %rd1, [pa];
\tld.param.u64 %rd2, [pb];
\tld.param.u64 %rd3, [pc];
\tld.param.u64 %rd4, [pd];
\tld.param.u32 %r10, [ld];
\twmma.load.a.sync.aligned.row.{shape}.global.{ty} {{%r1}}, [%rd1], {lds};
\twmma.load.b.sync.aligned.col.{shape}.global.{ty} {{%r2}}, [%rd2], {lds};
\twmma.load.c.sync.aligned.{cl}.{shape}.global.s32 {{%r3, %r4}}, [%rd3], 12;
\twmma.mma{op}.sync.aligned.row.col.{shape}.{types} {{%r5, %r6}}, {{%r1}}, {{%r2}}, {{%r3, %r4}};
\twmma.store.d.sync.aligned.{cl}.{shape}.global.s32 [%rd4], {{%r5, %r6}}, 12;
\tret;
}}
"""
    rng = np.random.default_rng(ld + len(types) + len(op))
    nbytes = 8 * ld // (2 if ty != "b1" else 8) + 64
    ab = [rng.integers(0, 256, nbytes).astype(np.uint8) for _ in range(2)]
    cm = rng.integers(-(2**31), 2**31, 8 * 12).astype(np.int32)
    if "satfinite" in types:
        cm[::3] = 2**31 - 1 - rng.integers(0, 100, cm[::3].size)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            *({"kind": "buffer", "dtype": "u8", "count": x.size, "init": {"hex": x.tobytes().hex()}}
              for x in ab),
            {"kind": "buffer", "dtype": "u8", "count": cm.size * 4,
             "init": {"hex": cm.view(np.uint8).tobytes().hex()}},
            {"kind": "buffer", "dtype": "u32", "count": 8 * 12, "init": "zeros"},
            {"kind": "scalar", "dtype": "u32", "value": ld},
        ],
    }  # fmt: skip
    _compare(ptx, spec, opt, oracle)


_FP8_F16 = [
    ("m16n8k32", "f16.e4m3.e5m2.f16", (4, 2, 2)),
    ("m16n8k16", "f16.e5m2.e5m2.f16", (2, 1, 2)),
    ("m16n8k16", "f32.e4m3.e4m3.f32", (2, 1, 4)),
    ("m16n8k32", "satfinite.s32.s4.u4.s32", (2, 1, 4)),
    ("m8n8k32", "satfinite.s32.u4.s4.s32", (1, 1, 2)),
    ("m16n8k64", "satfinite.s32.s4.s4.s32", (4, 2, 4)),
]


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("shape,types,counts", _FP8_F16, ids=[f"{s}.{t}" for s, t, _ in _FP8_F16])
def test_mma_fp8_f16_and_s4_satfinite(
    shape: str, types: str, counts: tuple[int, int, int], opt: int, oracle: Any
) -> None:
    """mma.sync on fp8 with f16 accumulators and m16n8k16, s4/u4 with .satfinite: random A/B
    words (fp8 NaNs included), accumulators small (f16x2) or near the s32 limits."""
    need_tools("ptxas")
    na, nb, nc = counts
    f = types.split(".")[-1] == "f32"
    total = na + nb + nc
    ptx = mma_probe_ptx(shape, types, counts, f)
    rng = np.random.default_rng(len(types) + na + 3 * nc)
    words = rng.integers(0, 1 << 32, (32, total), dtype=np.uint64).astype(np.uint32)
    if f:
        words[:, na + nb :] = (rng.integers(-64, 64, (32, nc)).astype(np.float32) * 0.5).view(
            np.uint32
        )
    elif "f16" in types:
        half = rng.integers(-8, 8, (32, 2 * nc)).astype(np.float16).view(np.uint32)
        words[:, na + nb :] = half
    else:
        big = np.array([0x7FFFFF00, 0x80000100, 0x7FFFFFFF, 0x80000000, 5, 0xFFFFFFF0], np.uint32)
        words[:, na + nb :] = rng.choice(big, (32, nc))
    _compare(ptx, _spec(words.ravel(), nc), opt, oracle)


_PAIRS = [
    ("m16n8k32", "f32.f16.f16.f32", (4, 4, 4), 1),
    ("m16n8k32", "s32.s8.s8.s32", (2, 2, 4), 1),
    ("m16n8k64", "s32.u4.s4.s32", (2, 2, 4), 0),
]


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize(
    "shape,types,counts,sel", _PAIRS, ids=[f"{s}.{t}" for s, t, _, _ in _PAIRS]
)
def test_mma_sp_pair_sharing_a_and_metadata(
    shape: str, types: str, counts: tuple[int, int, int], sel: int, opt: int, oracle: Any
) -> None:
    """Two mma.sp with the same A and metadata, other B: ptxas sets reuse flags on them (bit
    125 on the metadata, which nvdisasm does not print); both D stored."""
    need_tools("ptxas")
    na, nb, nc = counts
    one = _kernel(shape, types, sel, counts, "mma.sp::ordered_metadata")
    f = types.endswith("f32")
    p = "f" if f else "r"
    line = next(ln for ln in one.splitlines() if "mma.sp" in ln)
    d0 = nc if f else na + nb + nc
    # a second B after the metadata word, a second D after the first D
    total = na + nb + nc + 1

    def vec(q: str, start: int, n: int) -> str:
        return "{" + ", ".join(f"%{q}{start + i}" for i in range(n)) + "}"

    second = line.replace(vec("r", na, nb), vec("r", 30, nb))
    second = second.replace(vec(p, d0, nc), vec(p, 40, nc), 1)
    loads = "\n".join(f"\tld.global.b32 %r{30 + i}, [%rd3+{4 * (total + i)}];" for i in range(nb))
    stores = "\n".join(f"\tst.global.b32 [%rd4+{4 * (nc + i)}], %{p}{40 + i};" for i in range(nc))
    ptx = one.replace(line, f"{loads}\n{line}\n{second}\n{stores}")
    ptx = ptx.replace(".reg .b32 %r<24>;", ".reg .b32 %r<48>;").replace(
        ".reg .f32 %f<12>;", ".reg .f32 %f<48>;"
    )
    ptx = ptx.replace(
        f"mul.wide.u32 %rd5, %r20, {4 * total};", f"mul.wide.u32 %rd5, %r20, {4 * (total + nb)};"
    )
    ptx = ptx.replace(f"mul.wide.u32 %rd6, %r20, {4 * nc};", f"mul.wide.u32 %rd6, %r20, {8 * nc};")
    rng = np.random.default_rng(na + nb + sel)
    words = rng.integers(0, 1 << 32, (32, total + nb), dtype=np.uint64).astype(np.uint32)
    if f:
        words[:, na + nb : na + nb + nc] = (
            rng.integers(-64, 64, (32, nc)).astype(np.float32) * 0.5
        ).view(np.uint32)
    words[:, total - 1] = np.uint32(0x9C8D4E84)  # valid metadata
    spec = _spec(words.ravel(), 2 * nc)
    _compare(ptx, spec, opt, oracle)
