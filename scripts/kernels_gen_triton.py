"""Generate the corpus's Triton kernels: tests/kernels/t4/triton_<name>.ptx (offline, no GPU).

Each kernel is compiled by Triton's own pipeline for sm_90a with
``triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))``; the PTX is committed beside a
hand-written launch spec (``.json``) and numpy reference (``.py``). The launch spec must match
what this script prints for each kernel (block = 32 * num_warps threads, dynamic shared memory =
Triton's ``shared``); ``--check`` compares them and writes nothing.

    pip install triton && python scripts/kernels_gen_triton.py [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

# Triton's bundled ptxas rejects .version 9.0: let it finish its cubin stage with the ptxas 13.0
# on the PATH (its cubin is discarded; only the PTX is kept).
_PTXAS = shutil.which("ptxas")
if _PTXAS:
    os.environ.setdefault("TRITON_PTXAS_PATH", _PTXAS)
    os.environ.setdefault("TRITON_PTXAS_BLACKWELL_PATH", _PTXAS)
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "kernels" / "t4"


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=m)


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(m, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=m)
    b = tl.load(b_ptr + cols, mask=m)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=m)


@triton.jit
def matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr,
):  # fmt: skip
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
        bv = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
        acc += tl.dot(av, bv, input_precision=PREC)
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_bt(
    a_ptr, bt_ptr, c_ptr, M, N,
    K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):  # fmt: skip
    # C = A @ Bt^T with A [M][K] and Bt [N][K] both K-contiguous (K-major wgmma operands)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        av = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        bv = tl.load(bt_ptr + rn[:, None] * K + (k + rk)[None, :])
        acc += tl.dot(av, tl.trans(bv))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def cast_fp8(x_ptr, y4_ptr, y5_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y4 = x.to(tl.float8e4nv)
    y5 = x.to(tl.float8e5)
    tl.store(y4_ptr + offs, y4.to(tl.uint8, bitcast=True), mask=m)
    tl.store(y5_ptr + offs, y5.to(tl.uint8, bitcast=True), mask=m)
    tl.store(z_ptr + offs, y4.to(tl.float32) + y5.to(tl.float32), mask=m)


MM_SIG = {
    "a_ptr": "*fp16",
    "b_ptr": "*fp16",
    "c_ptr": "*fp16",
    **{k: "i32" for k in ("M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn")},
}

# corpus stem -> (function, signature, constexprs, options)
KERNELS: dict[str, tuple[Any, dict[str, str], dict[str, Any], dict[str, Any]]] = {
    "triton_softmax": (
        softmax,
        {
            "out_ptr": "*fp32",
            "in_ptr": "*fp32",
            "in_stride": "i32",
            "out_stride": "i32",
            "n_cols": "i32",
        },
        {"BLOCK": 128},
        {"num_warps": 2},
    ),
    "triton_layernorm": (
        layernorm,
        {
            "x_ptr": "*fp32",
            "y_ptr": "*fp32",
            "w_ptr": "*fp32",
            "b_ptr": "*fp32",
            "stride": "i32",
            "n": "i32",
            "eps": "fp32",
        },
        {"BLOCK": 128},
        {"num_warps": 2},
    ),
    # f16 operands, B row-major (N-contiguous: an MN-major wgmma operand), 4 warps: wgmma
    "triton_matmul_wgmma": (
        matmul,
        MM_SIG,
        {"BM": 64, "BN": 64, "BK": 32, "PREC": "ieee"},
        {"num_warps": 4, "num_stages": 2},
    ),
    # the same with 2 warps: too few for a warpgroup, so mma.sync (HMMA) and ldmatrix
    "triton_matmul_mma": (
        matmul,
        MM_SIG,
        {"BM": 32, "BN": 32, "BK": 32, "PREC": "ieee"},
        {"num_warps": 2, "num_stages": 2},
    ),
    # f32 operands with input_precision="ieee": no tensor cores, FMA
    "triton_matmul_fma": (
        matmul,
        {**MM_SIG, "a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
        {"BM": 32, "BN": 32, "BK": 16, "PREC": "ieee"},
        {"num_warps": 4, "num_stages": 1},
    ),
    # both operands K-major
    "triton_matmul_kmajor": (
        matmul_bt,
        {"a_ptr": "*fp16", "bt_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32"},
        {"K": 64, "BM": 64, "BN": 32, "BK": 32},
        {"num_warps": 4, "num_stages": 2},
    ),
    "triton_cast_fp8": (
        cast_fp8,
        {"x_ptr": "*fp32", "y4_ptr": "*u8", "y5_ptr": "*u8", "z_ptr": "*fp32", "n": "i32"},
        {"BLOCK": 256},
        {"num_warps": 2},
    ),
}


def compile_kernel(stem: str) -> tuple[str, dict[str, Any]]:
    fn, sig, consts, opts = KERNELS[stem]
    signature = {**sig, **{k: "constexpr" for k in consts}}
    src = ASTSource(fn=fn, signature=signature, constexprs=consts)
    # ptx_version=90: the .version that ptxas 13.0 accepts (Triton 3.9 defaults to 9.4).
    kernel = triton.compile(
        src, target=GPUTarget("cuda", 90, 32), options={"ptx_version": 90, **opts}
    )
    md = kernel.metadata
    launch = {"kernel": md.name, "block": 32 * md.num_warps, "shared_bytes": md.shared}
    return str(kernel.asm["ptx"]), launch


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    args = ap.parse_args(argv)
    bad = 0
    for stem in KERNELS:
        ptx, launch = compile_kernel(stem)
        path = OUT / f"{stem}.ptx"
        print(f"{path.relative_to(ROOT)}: {json.dumps(launch)}", file=sys.stderr)
        if args.check:
            if not path.exists() or path.read_text() != ptx:
                print(f"  differs from {path.name}", file=sys.stderr)
                bad += 1
            continue
        path.write_text(ptx)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
