"""BMMA (mma.sync .b1 .and.popc / .xor.popc, m8n8k128, m16n8k128, m16n8k256) against a bit-level
numpy reference.

Each lane loads its fragment words, laid out in the test from the PTX ISA's .b1 fragment
descriptions (g = lane >> 2, q = lane & 3; a .b32 register holds 32 consecutive K elements):
A: ``a_i`` holds row ``g + 8 (i % 2)`` (m16) or ``g`` (m8), K bits ``32 q + 128 (i // 2) ..
+31``; B: ``b_i`` holds column ``g``, K bits ``32 q + 128 i .. +31``; C/D (s32): ``c_i`` at row
``g + 8 (i // 2)``, column ``2 q + i % 2`` (m8: row g, column 2 q + i). The reference multiplies
0/1 matrices: ``D = A @ B + C`` for .and.popc and ``D = sum_k (A ^ B) + C`` for .xor.popc
(ptxas builds the xor from .and.popc BMMAs on sm_90). Exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.emu.ptxrun import cubin, ptx_header, run, sass

NDArray = np.ndarray[Any, Any]
RNG = np.random.default_rng(20261126)

# shape: (m, n, k, A registers, B registers, C registers)
SHAPES = {
    "m8n8k128": (8, 8, 128, 1, 1, 2),
    "m16n8k128": (16, 8, 128, 2, 1, 4),
    "m16n8k256": (16, 8, 256, 4, 2, 4),
}


def _ptx(shape: str) -> str:
    _, _, _, na, nb, nc = SHAPES[shape]
    regs = {"a": na, "b": nb, "c": nc}
    loads = []
    pos = 0
    for name, cnt in regs.items():
        for i in range(cnt):
            loads.append(f"    ld.global.b32 %{name}{i}, [%rd4+{4 * pos}];")
            pos += 1

    def vec(name: str, cnt: int) -> str:
        return "{" + ", ".join(f"%{name}{i}" for i in range(cnt)) + "}"

    stores = [f"    st.global.b32 [%rd5+{4 * i}], %d{i};" for i in range(nc)]
    stores += [f"    st.global.b32 [%rd5+{4 * (nc + i)}], %e{i};" for i in range(nc)]
    mma = "    mma.sync.aligned.{s}.row.col.s32.b1.b1.s32.{op}.popc {d}, {a}, {b}, {c};"
    ops = "\n".join(
        mma.format(s=shape, op=op, d=vec(dv, nc), a=vec("a", na), b=vec("b", nb), c=vec("c", nc))
        for op, dv in (("and", "d"), ("xor", "e"))
    )
    return (
        ptx_header()
        + f"""
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
    .reg .b64 %rd<8>;
    .reg .b32 %r<4>, %a<{na}>, %b<{nb}>, %c<{nc}>, %d<{nc}>, %e<{nc}>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, {4 * pos};
    add.u64 %rd4, %rd1, %rd3;
{chr(10).join(loads)}
{ops}
    mul.wide.u32 %rd3, %r1, {8 * nc};
    add.u64 %rd5, %rd2, %rd3;
{chr(10).join(stores)}
    ret;
}}
"""
    )


def _word(bits: NDArray) -> int:
    """32 K bits, element j in bit j."""
    return sum(int(b) << j for j, b in enumerate(bits))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_bmma_popc(shape: str) -> None:
    m, n, k, na, nb, nc = SHAPES[shape]
    A = RNG.integers(0, 2, size=(m, k))
    B = RNG.integers(0, 2, size=(k, n))
    C = RNG.integers(-(2**31), 2**31, size=(m, n))
    C[0, 0], C[m - 1, n - 1] = 2**31 - 1, 2**31 - 100  # sums that wrap around 32 bits
    A[m - 1, :] = 1
    B[:, n - 1] = 1
    A[0, :] = 0
    frag = np.zeros((32, na + nb + nc), dtype=np.uint32)
    for lane in range(32):
        g, q = lane >> 2, lane & 3
        for i in range(na):
            row = g + 8 * (i % 2) if m == 16 else g
            k0 = 32 * q + 128 * (i // 2)
            frag[lane, i] = _word(A[row, k0 : k0 + 32])
        for i in range(nb):
            k0 = 32 * q + 128 * i
            frag[lane, na + i] = _word(B[k0 : k0 + 32, g])
        for i in range(nc):
            row, col = (g + 8 * (i // 2), 2 * q + i % 2) if m == 16 else (g, 2 * q + i)
            frag[lane, na + nb + i] = np.int64(C[row, col]) & 0xFFFFFFFF
    ptx = _ptx(shape)
    forms = {".".join((i.opcode, *i.mods)) for i in sass(cubin(ptx))}
    assert f"BMMA.{m}{n}{k}.AND.POPC" in forms, forms
    (_, out), _, _ = run(ptx, [frag.reshape(-1), np.zeros(32 * 2 * nc, dtype=np.int32)])
    d_and = A @ B + C
    d_xor = (A[:, :, None] ^ B[None, :, :]).sum(axis=1) + C
    wrap = lambda v: ((v + 2**31) % 2**32 - 2**31).astype(np.int32)  # noqa: E731
    got = out.reshape(32, 2, nc)
    for lane in range(32):
        g, q = lane >> 2, lane & 3
        for i in range(nc):
            row, col = (g + 8 * (i // 2), 2 * q + i % 2) if m == 16 else (g, 2 * q + i)
            assert got[lane, 0, i] == wrap(d_and[row, col]), (lane, i)
            assert got[lane, 1, i] == wrap(d_xor[row, col]), (lane, i)
