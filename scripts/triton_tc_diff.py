"""Triton's tensor-core kernels for sm_90a (wgmma), generated with pip ``triton`` (no GPU), compiled
by openptxas and by ptxas 13.0 and run in the emulator: every output word must be equal (ours
with the hazard checker on: 0 reports).

    pip install triton && python scripts/triton_tc_diff.py

Kernels: scripts/ptx_gen_triton.py's ``attention`` (flash-attention forward: Q K^T by a wgmma
from shared memory, P V by a wgmma with A (P) in registers) with 64 x 32 tiles and D = 32 on one
warpgroup, and its ``matmul`` with 64 x 64 x 32 tiles (the public corpus's matmul_64x64_w4).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
_PTXAS = shutil.which("ptxas")
if _PTXAS:
    os.environ.setdefault("TRITON_PTXAS_PATH", _PTXAS)
    os.environ.setdefault("TRITON_PTXAS_BLACKWELL_PATH", _PTXAS)


def _triton(name: str, options: dict[str, Any], consts: dict[str, Any]) -> tuple[str, int]:
    import ptx_gen_triton as g
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn, sig, base = {**g.KERNELS, **g.EXTRA_KERNELS}[name]
    consts = {**base, **consts}
    src = ASTSource(fn=fn, signature={**sig, **{k: "constexpr" for k in consts}}, constexprs=consts)
    opts = {"ptx_version": 90, **options}
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
    return str(k.asm["ptx"]), int(k.metadata.shared)


def _f16(rng: np.random.Generator, n: int, scale: float) -> str:
    return (rng.integers(-8, 9, n) * scale).astype(np.float16).tobytes().hex()


def _buf(dtype: str, count: int, init: Any) -> dict[str, Any]:
    return {"kind": "buffer", "dtype": dtype, "count": count, "init": init}


def _scratch() -> list[dict[str, Any]]:
    return [_buf("u8", 1, "zeros"), _buf("u8", 1, "zeros")]


def cases() -> list[tuple[str, str, dict[str, Any]]]:
    rng = np.random.default_rng(20)
    out = []
    ptx, shared = _triton("attention", {"num_warps": 4}, {"BM": 64, "BN": 32, "D": 32})
    n_ctx, d, z = 64, 32, 2
    n = z * n_ctx * d
    spec = {"kernel": "attention", "grid": [n_ctx // 64, z, 1], "block": [128, 1, 1],
            "shared_bytes": shared,
            "args": [_buf("f16", n, {"hex": _f16(rng, n, 0.125)}) for _ in range(3)]
            + [_buf("f16", n, "zeros"),
               {"kind": "scalar", "dtype": "f32", "init": 0.25},
               {"kind": "scalar", "dtype": "i32", "init": d},
               {"kind": "scalar", "dtype": "i32", "init": n_ctx}, *_scratch()]}  # fmt: skip
    out.append(("attention 64x32 D32 w4", ptx, spec))
    ptx, shared = _triton("matmul", {"num_warps": 4}, {"BM": 64, "BN": 64, "BK": 32})
    m, nn, k = 128, 128, 72  # the loads are masked along K only
    spec = {"kernel": "matmul", "grid": [2, 2, 1], "block": [128, 1, 1], "shared_bytes": shared,
            "args": [_buf("f16", m * k, {"hex": _f16(rng, m * k, 1.0)}),
                     _buf("f16", k * nn, {"hex": _f16(rng, k * nn, 1.0)}),
                     _buf("f16", m * nn, "zeros")]
            + [{"kind": "scalar", "dtype": "i32", "init": v}
               for v in (m, nn, k, k, 1, nn, 1, nn, 1)] + _scratch()}  # fmt: skip
    out.append(("matmul 64x64x32 w4", ptx, spec))
    return out


def main() -> int:
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options
    from openptxas.testing.oracle import Oracle

    oracle = Oracle()
    bad = 0
    for name, ptx, spec in cases():
        theirs = oracle.ptxas(ptx, "sm_90a")
        want = run_launch(theirs.cubin, spec)
        res = compile_ptx(ptx, Options(arch="sm_90a"), f"{name}.ptx")
        got = run_launch(res.cubin, spec, hazards=True)
        same = all(np.array_equal(got.outputs[k], want.outputs[k]) for k in want.outputs)
        nz = any(v.any() for v in got.outputs.values())
        bad += not (same and nz and not got.hazards)
        regs = [f.registers for f in res.functions]
        print(
            f"{name}: equal={same} nonzero={nz} hazards={len(got.hazards)} registers ours "
            f"{regs} ptxas {[f.registers for f in theirs.functions]}; emulator cycles ours "
            f"{got.cycles:.0f} ptxas {want.cycles:.0f}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
