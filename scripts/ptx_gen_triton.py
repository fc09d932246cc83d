"""Generate PTX test data with Triton (offline, no GPU): tests/ptx/data/triton/<kernel>.sm_XX.ptx.

Triton compiles through its own pipeline (TTIR -> TTGIR -> LLVM IR -> PTX) for a given target with
``triton.compile(ASTSource(...), target=GPUTarget("cuda", cc, 32))``; only the PTX is kept. The
files are inputs of the PTX front end's corpus test (tests/ptx/test_corpus.py).

    pip install triton && python scripts/ptx_gen_triton.py [--out DIR] [--targets 80,90,100,120]

``--variant NAME --targets 90 --ptx FILE`` writes one of CORPUS_VARIANTS instead: the Triton part
of the public corpus (scripts/public_corpus.py) is made that way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

# Triton's bundled ptxas (12.8) rejects .version 9.0: let it finish its cubin stage with the
# ptxas 13.0 on the PATH (its cubin is discarded; only the PTX is kept).
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
OUT = ROOT / "tests" / "ptx" / "data" / "triton"


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


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
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
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
        acc += tl.dot(av, bv)
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def attention(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    sm_scale,
    stride_m,
    N_CTX,
    BM: tl.constexpr,
    BN: tl.constexpr,
    D: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_b = tl.program_id(1).to(tl.int64) * N_CTX * stride_m
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + off_b + offs_m[:, None] * stride_m + offs_d[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start_n in range(0, N_CTX, BN):
        kk = tl.load(k_ptr + off_b + (start_n + offs_n)[None, :] * stride_m + offs_d[:, None])
        qk = tl.dot(q, kk) * sm_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        vv = tl.load(v_ptr + off_b + (start_n + offs_n)[:, None] * stride_m + offs_d[None, :])
        acc += tl.dot(p.to(tl.float16), vv)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_b + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(tl.float16))


@triton.jit
def row_sum(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    """A reduction: each program sums one row in float32 and adds it to out[0] atomically."""
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.atomic_add(out_ptr, total)


@triton.jit
def matmul_tma(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """Hopper-style matmul: operands through TMA tensor descriptors, wgmma accumulation."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = a_desc.load([pid_m * BM, k * BK])
        bv = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


# kernel name -> (function, signature, constexprs)
KERNELS: dict[str, tuple[Any, dict[str, str], dict[str, Any]]] = {
    "vector_add": (
        vector_add,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        {"BLOCK": 1024},
    ),
    "softmax": (
        softmax,
        {
            "out_ptr": "*fp32",
            "in_ptr": "*fp32",
            "in_stride": "i32",
            "out_stride": "i32",
            "n_cols": "i32",
        },
        {"BLOCK": 1024},
    ),
    "layernorm": (
        layernorm,
        {
            "x_ptr": "*fp16",
            "y_ptr": "*fp16",
            "w_ptr": "*fp16",
            "b_ptr": "*fp16",
            "stride": "i32",
            "n": "i32",
            "eps": "fp32",
        },
        {"BLOCK": 1024},
    ),
    "matmul": (
        matmul,
        {
            "a_ptr": "*fp16",
            "b_ptr": "*fp16",
            "c_ptr": "*fp16",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "sam": "i32",
            "sak": "i32",
            "sbk": "i32",
            "sbn": "i32",
            "scm": "i32",
            "scn": "i32",
        },
        {"BM": 128, "BN": 128, "BK": 64},
    ),
    "attention": (
        attention,
        {
            "q_ptr": "*fp16",
            "k_ptr": "*fp16",
            "v_ptr": "*fp16",
            "o_ptr": "*fp16",
            "sm_scale": "fp32",
            "stride_m": "i32",
            "N_CTX": "i32",
        },
        {"BM": 128, "BN": 64, "D": 64},
    ),
}


# Kernels used only by the public corpus (openptxas/testing/public_corpus.py), not by tests/ptx.
EXTRA_KERNELS: dict[str, tuple[Any, dict[str, str], dict[str, Any]]] = {
    "row_sum": (
        row_sum,
        {"x_ptr": "*fp16", "out_ptr": "*fp32", "stride": "i32", "n_cols": "i32"},
        {"BLOCK": 512},
    ),
    "matmul_tma": (
        matmul_tma,
        {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"},
        {"BM": 128, "BN": 128, "BK": 64},
    ),
}

# The public corpus's Triton entries: variant -> (kernel, triton.compile options, constexprs).
CORPUS_VARIANTS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "vector_add": ("vector_add", {}, {}),
    "softmax": ("softmax", {}, {}),
    "softmax_w8": ("softmax", {"num_warps": 8}, {}),
    "layernorm": ("layernorm", {}, {}),
    "row_sum": ("row_sum", {}, {}),
    "matmul_w4": ("matmul", {"num_warps": 4}, {}),
    "matmul_w8": ("matmul", {"num_warps": 8}, {}),
    "matmul_64x64_w4": ("matmul", {"num_warps": 4}, {"BM": 64, "BN": 64, "BK": 32}),
    "matmul_tma_w4": ("matmul_tma", {"num_warps": 4}, {}),
    "matmul_tma_w8": ("matmul_tma", {"num_warps": 8}, {}),
    "attention_w4": ("attention", {"num_warps": 4}, {}),
    "attention_w8": ("attention", {"num_warps": 8}, {}),
}


def compile_ptx(
    name: str,
    cc: int,
    options: dict[str, Any] | None = None,
    constexprs: dict[str, Any] | None = None,
) -> str:
    fn, sig, consts = {**KERNELS, **EXTRA_KERNELS}[name]
    consts = {**consts, **(constexprs or {})}
    signature = {**sig, **{k: "constexpr" for k in consts}}
    src = ASTSource(fn=fn, signature=signature, constexprs=consts)
    # ptx_version=90: the .version that ptxas 13.0 accepts (Triton 3.9 defaults to 9.4).
    opts: dict[str, Any] = {"ptx_version": 90}
    if name in ("matmul", "attention"):
        opts["num_warps"] = 8
    opts.update(options or {})
    kernel = triton.compile(src, target=GPUTarget("cuda", cc, 32), options=opts)
    return str(kernel.asm["ptx"])


def compile_variant(variant: str, cc: int) -> str:
    """The PTX of one public-corpus variant (CORPUS_VARIANTS) for compute capability ``cc``."""
    name, options, constexprs = CORPUS_VARIANTS[variant]
    return compile_ptx(name, cc, options, constexprs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--targets", default="80,90,100,120")
    ap.add_argument(
        "--variant",
        choices=sorted(CORPUS_VARIANTS),
        help="write one public-corpus variant's PTX for the first target to --ptx and exit",
    )
    ap.add_argument("--ptx", type=Path, help="output file of --variant")
    args = ap.parse_args(argv)
    if args.variant:
        if args.ptx is None:
            ap.error("--variant needs --ptx FILE")
        ptx = compile_variant(args.variant, int(args.targets.split(",")[0]))
        args.ptx.parent.mkdir(parents=True, exist_ok=True)
        args.ptx.write_text(ptx)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for cc in (int(t) for t in args.targets.split(",")):
        for name in KERNELS:
            ptx = compile_ptx(name, cc)
            target = ptx.split(".target", 1)[1].split()[0]
            path = args.out / f"{name}.{target}.ptx"
            path.write_text(ptx)
            print(f"{path.relative_to(ROOT)}: {len(ptx)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
