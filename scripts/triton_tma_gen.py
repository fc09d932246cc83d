"""Generate the Triton TMA kernels of tests/compiler/test_bulk.py (offline, no GPU): Triton
kernels for sm_90a whose operands come through host-side tensor descriptors (``tensordesc``
parameters: a CUtensorMap in a 128-byte parameter, loads/stores as ``cp.async.bulk.tensor``,
completion through mbarriers, elect.sync, bulk groups). No tl.dot: the matmul kernels also need
wgmma (another part of issue 20).

    pip install triton && python scripts/triton_tma_gen.py [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

_PTXAS = shutil.which("ptxas")
if _PTXAS:  # Triton's bundled ptxas rejects .version 9.0 (its cubin is discarded anyway)
    os.environ.setdefault("TRITON_PTXAS_PATH", _PTXAS)
    os.environ.setdefault("TRITON_PTXAS_BLACKWELL_PATH", _PTXAS)
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "compiler" / "data" / "triton_tma"


@triton.jit
def tma_copy(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):  # type: ignore[no-untyped-def]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = in_desc.load([pid_m * BM, pid_n * BN])
    out_desc.store([pid_m * BM, pid_n * BN], x * 2 + 1)


@triton.jit
def tma_add(a_desc, b_desc, c_desc, BM: tl.constexpr, BN: tl.constexpr):  # type: ignore[no-untyped-def]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = a_desc.load([pid_m * BM, pid_n * BN])
    b = b_desc.load([pid_m * BM, pid_n * BN])
    c_desc.store([pid_m * BM, pid_n * BN], a + b)


@triton.jit
def tma_rowsum(in_desc, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr):  # type: ignore[no-untyped-def]
    pid = tl.program_id(0)
    acc = tl.zeros([BM], dtype=tl.float32)
    for k in range(0, N, BN):
        x = in_desc.load([pid * BM, k])
        acc += tl.sum(x.to(tl.float32), axis=1)
    offs = pid * BM + tl.arange(0, BM)
    tl.store(out_ptr + offs, acc)


KERNELS = {
    "tma_copy": (
        tma_copy,
        {"in_desc": "tensordesc<fp32[32, 32]>", "out_desc": "tensordesc<fp32[32, 32]>"},
        {"BM": 32, "BN": 32},
    ),
    "tma_add": (
        tma_add,
        {f"{x}_desc": "tensordesc<fp16[64, 64]>" for x in "abc"},
        {"BM": 64, "BN": 64},
    ),
    "tma_rowsum": (
        tma_rowsum,
        {"in_desc": "tensordesc<fp16[32, 64]>", "out_ptr": "*fp32", "N": "i32"},
        {"BM": 32, "BN": 64},
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (fn, sig, consts) in KERNELS.items():
        src = ASTSource(fn=fn, signature={**sig, **dict.fromkeys(consts, "constexpr")},
                        constexprs=consts)  # fmt: skip
        k = triton.compile(
            src, target=GPUTarget("cuda", 90, 32), options={"ptx_version": 90, "num_warps": 4}
        )
        (args.out / f"{name}.ptx").write_text(k.asm["ptx"])
        print(name, k.metadata.shared, "bytes of shared memory")


if __name__ == "__main__":
    main()
