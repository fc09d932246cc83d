"""Public-corpus kernels that use textures and surfaces, run in the emulator on hand-written
launches (the corpus has no launch specs, and scripts/public_diff.py cannot derive texture or
surface arguments): openptxas's cubin against ptxas's, every output byte, with the hazard
checker on ours.

    python scripts/tex_public_diff.py
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np

from openptxas.diag import OpenPtxasError
from openptxas.driver import compile_ptx
from openptxas.emu import run_launch
from openptxas.options import Options
from openptxas.testing.oracle import Oracle

PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))
S = "NVIDIA+cuda-samples/Samples/"


def _scalar(dtype: str, v: float) -> dict[str, Any]:
    return {"kind": "scalar", "dtype": dtype, "init": v}


def _tex(dtype: str, dims: list[int], **desc: Any) -> dict[str, Any]:
    n = int(np.prod(dims)) * desc.get("channels", 1)
    return {"kind": "texture", "dtype": dtype, "count": n, "init": "random", "seed": 5,
            "texture": {"dims": dims, **desc}}  # fmt: skip


def _buf(dtype: str, n: int, role: str = "out") -> dict[str, Any]:
    return {"kind": "buffer", "dtype": dtype, "count": n, "role": role, "init": "zeros"}


EXTENT = struct.pack("<3Q", 8, 8, 4).hex()  # cudaExtent {8, 8, 4}

# (file, kernel, grid, block, args)
LAUNCHES: list[tuple[str, str, list[int], list[int], list[dict[str, Any]]]] = [
    (
        "5_Domain_Specific/SobelFilter/SobelFilter_kernels.cu.ptx",
        "_Z8SobelTexPhjiify",
        [16],
        [64],
        [_buf("u8", 48 * 16), _scalar("u32", 48), _scalar("i32", 48), _scalar("i32", 16),
         _scalar("f32", 0.75), _tex("u8", [48, 16], address="clamp")],
    ),
    (
        "5_Domain_Specific/stereoDisparity/stereoDisparity.cu.ptx",
        "_Z21stereoDisparityKernelPjS_S_iiiiyy",
        [2, 3],
        [32, 8],
        [_buf("u32", 64 * 24, "in"), _buf("u32", 64 * 24, "in"), _buf("u32", 64 * 24),
         _scalar("i32", 64), _scalar("i32", 24), _scalar("i32", -8), _scalar("i32", 0),
         _tex("u8", [64, 24], channels=4, address="clamp"),
         _tex("u8", [64, 24], channels=4, address="clamp")],
    ),
    (
        "2_Concepts_and_Techniques/convolutionTexture/convolutionTexture.cu.ptx",
        "_Z21convolutionRowsKernelPfiiy",
        [3, 2],
        [16, 12],
        [_buf("f32", 48 * 24), _scalar("i32", 48), _scalar("i32", 24),
         _tex("f32", [48, 24], address="clamp")],
    ),
    (
        "5_Domain_Specific/volumeFiltering/volumeFilter_kernel.cu.ptx",
        "_Z18d_filter_surface3dif10cudaExtentyy",
        [1, 2, 2],
        [8, 4, 2],
        [_scalar("i32", 1), _scalar("f32", 0.5),
         {"kind": "bytes", "size": 24, "align": 8, "init": {"hex": EXTENT}},
         _tex("u8", [8, 8, 4], filter="linear", address="clamp", read_mode="normalized_float",
              normalized_coords=True),
         {"kind": "surface", "dtype": "u8", "count": 256, "role": "out", "init": "zeros",
          "surface": {"dims": [8, 8, 4]}}],
    ),
]  # fmt: skip


def main() -> int:
    o = Oracle()
    bad = 0
    for rel, kernel, grid, block, args in LAUNCHES:
        ptx = (PUBLIC / "build" / "sm_90" / (S + rel)).read_text()
        spec = {"kernel": kernel, "grid": grid, "block": block, "args": args}
        name = f"{rel.split('/')[-1]} {kernel}"
        try:
            ours = compile_ptx(ptx, Options(arch="sm_90"), rel).cubin
        except OpenPtxasError as exc:
            print(f"REFUSED  {name}: {exc}")
            continue
        want = run_launch(o.ptxas(ptx, "sm_90", subject=rel).cubin, spec).outputs
        res = run_launch(ours, spec, hazards=True)
        got = res.outputs
        same = sorted(got) == sorted(want) and all(
            np.array_equal(got[k].view(np.uint8), want[k].view(np.uint8)) for k in got
        )
        nonzero = sum(int(np.count_nonzero(v)) for v in want.values())
        verdict = "EQUAL" if same and not res.hazards else "DIFFERENT"
        bad += verdict != "EQUAL"
        print(f"{verdict:9s} {name}: {len(got)} output(s), {nonzero} non-zero elements in "
              f"ptxas's, {len(res.hazards)} hazards")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
