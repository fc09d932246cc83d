"""Generate PTX test data with nvcc 13.0: tests/ptx/data/nvcc/<stem>.<target>[.<variant>].ptx.

The CUDA sources in tests/ptx/data/cuda/ exercise PTX features the kernel corpus may not reach
yet (math library, atomics, textures, calls, wmma/mma, cp.async, TMA, wgmma, tcgen05, debug
sections). Each is compiled for the targets listed in BUILDS; ``-G`` and ``-lineinfo`` variants
cover the DWARF ``.section`` and ``.loc`` forms.

    python scripts/ptx_gen_nvcc.py [--out DIR]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "ptx" / "data" / "cuda"
OUT = ROOT / "tests" / "ptx" / "data" / "nvcc"

# stem -> [(target, variant name, extra nvcc flags)]
BUILDS: dict[str, list[tuple[str, str, list[str]]]] = {
    "arith": [
        ("sm_75", "", []),
        ("sm_90", "", []),
        ("sm_120", "", []),
        ("sm_90", "fastmath", ["-use_fast_math"]),
    ],
    "memory": [
        ("sm_75", "", []),
        ("sm_90", "", []),
        ("sm_100", "", []),
        ("sm_90", "G", ["-G"]),
        ("sm_90", "lineinfo", ["-lineinfo"]),
    ],
    "sm80": [("sm_80", "", []), ("sm_89", "", []), ("sm_120", "", [])],
    "sm90": [("sm_90a", "", [])],
    "sm100": [("sm_100a", "", [])],
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("nvcc is not on the PATH", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, builds in BUILDS.items():
        for target, variant, flags in builds:
            name = f"{stem}.{target}" + (f".{variant}" if variant else "") + ".ptx"
            with tempfile.TemporaryDirectory() as td:
                out = Path(td) / "out.ptx"
                subprocess.run(
                    [
                        nvcc,
                        f"-arch={target}",
                        "-ptx",
                        *flags,
                        str(SRC / f"{stem}.cu"),
                        "-o",
                        str(out),
                    ],
                    check=True,
                    cwd=td,
                )
                (args.out / name).write_bytes(out.read_bytes())
            print(f"{name}: {(args.out / name).stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
