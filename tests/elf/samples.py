"""Small ptxas cubins for tests that need real input without running a tool.

tests/golden/cubin/elf/*.cubin are ptxas 13.0.88 output for tests/elf/ptx files (regenerate with
``python tests/elf/samples.py``); they let the fuzz tests run where ptxas is absent.
"""

from __future__ import annotations

import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "golden" / "cubin" / "elf"

# (PTX file, target, ptxas flags) -> data/<name>.cubin
SAMPLE_SPECS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "globals_sm90": ("globals.ptx", "sm_90", ()),
    "calls_sm75_c": ("calls.ptx", "sm_75", ("-c",)),
    "shared_sm100": ("shared.ptx", "sm_100", ()),
    "directives_sm86_li": ("directives.ptx", "sm_86", ("-lineinfo",)),
}


def sample_cubins() -> list[bytes]:
    return [(DATA / f"{name}.cubin").read_bytes() for name in SAMPLE_SPECS]


def main() -> int:
    from openptxas.testing.oracle import Oracle

    oracle = Oracle()
    DATA.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parent
    for name, (ptx, target, flags) in SAMPLE_SPECS.items():
        res = oracle.ptxas((here / "ptx" / ptx).read_text(), target, list(flags))
        (DATA / f"{name}.cubin").write_bytes(res.cubin)
        print(name, len(res.cubin))
    return 0


if __name__ == "__main__":
    sys.exit(main())
