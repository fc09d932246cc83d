"""Generate the Triton wgmma matmuls of tests/emu/test_wgmma_triton.py (offline, no GPU).

Triton lays out its shared-memory operands itself (its own swizzle choice per tile shape) and
builds the wgmma descriptors: an emulator test against numpy's matmul on its PTX checks the
emulator's descriptor/layout decoding with code written independently of it. Variants: A and B
K-major or MN-major (``tl.trans`` of a tile loaded the other way), and tile shapes that make
Triton pick 32-, 64- and 128-byte swizzles.

    pip install triton && python scripts/emu_gen_wgmma.py [--out tests/emu/data]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
from pathlib import Path

_PTXAS = shutil.which("ptxas")
if _PTXAS:
    os.environ.setdefault("TRITON_PTXAS_PATH", _PTXAS)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@triton.jit
def mm(
    a_ptr,
    b_ptr,
    c_ptr,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    TA: tl.constexpr,
    TB: tl.constexpr,
):
    """C[BM, BN] = A[BM, K] @ B[K, BN] (f16 in, f32 out, row-major). TA: A is stored transposed
    (K x BM row-major, i.e. M-major); TB: B is stored transposed (BN x K, K-major)."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        if TA:
            av = tl.trans(tl.load(a_ptr + (k + rk)[:, None] * BM + rm[None, :]))
        else:
            av = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        if TB:
            bv = tl.trans(tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :]))
        else:
            bv = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(av, bv)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


VARIANTS = {
    # name (the wgmma forms and swizzles Triton picks): (BM, BN, BK, TA, TB)
    "mm_tnspAB_sw128": (64, 64, 64, 1, 0),
    "mm_tnspB_sw128": (64, 64, 64, 0, 0),
    "mm_tnspB_sw64": (64, 32, 32, 0, 0),
    "mm_tnspB_sw32": (64, 16, 16, 0, 0),
    "mm_tnspA_sw128": (64, 64, 32, 1, 1),
    "mm_kmajor_sw32": (64, 64, 16, 0, 1),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "emu" / "data")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "i32"}
    for name, (bm, bn, bk, ta, tb) in VARIANTS.items():
        consts = {"BM": bm, "BN": bn, "BK": bk, "TA": ta, "TB": tb}
        src = ASTSource(
            fn=mm, signature={**sig, **dict.fromkeys(consts, "constexpr")}, constexprs=consts
        )
        k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
        # ptxas 13.0 reads PTX ISA 9.0; Triton may stamp a newer version than the code needs
        ptx = re.sub(r"^\.version \S+", ".version 9.0", k.asm["ptx"], count=1, flags=re.M)
        ptx = ptx.replace(".entry mm(", f".entry {name}(")
        (args.out / f"{name}.sm_90a.ptx").write_text(ptx)
        print(name, k.metadata.shared, "bytes of shared memory")


if __name__ == "__main__":
    main()
