"""Static instruction counts and registers of openptxas's code vs ptxas's for kernels that use
the division / reciprocal / square-root lowerings (openptxas/lower/fpdiv.py): each kernel's
functions listed by nvdisasm (without the end padding), ptxas's subroutines included in its
function as they are in ours.

    python scripts/fpdiv_counts.py                          # the fpdiff one-instruction kernels
    python scripts/fpdiv_counts.py --ptx a.ptx b.ptx         # PTX files (their .target)
    python scripts/fpdiv_counts.py --kernels t2/f32_div_sqrt  # tests/kernels kernels
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from openptxas.driver import compile_ptx
from openptxas.options import Options
from openptxas.testing.fpdiff import INSTRUCTIONS, kernel
from openptxas.testing.oracle import Oracle, body_length, parse_nvdisasm
from openptxas.testing.tools import require_tool


def _count(cubin: bytes) -> tuple[int, int]:
    """(instructions, registers) of every function of the cubin together."""
    nvdisasm = require_tool("nvdisasm")
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "k.cubin"
        p.write_bytes(cubin)
        out = subprocess.run(
            [nvdisasm, "-hex", "-c", str(p)], capture_output=True, text=True, check=True
        )
    n = sum(body_length(v) for v in parse_nvdisasm(out.stdout).values())
    cuobjdump = require_tool("cuobjdump")
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "k.cubin"
        p.write_bytes(cubin)
        res = subprocess.run(
            [cuobjdump, "-res-usage", str(p)], capture_output=True, text=True, check=True
        )
    regs = max((int(m) for m in re.findall(r"REG:(\d+)", res.stdout)), default=0)
    return n, regs


def row(name: str, ptx: str, target: str) -> tuple[int, int, int, int]:
    theirs = Oracle().ptxas(ptx, target, subject=name).cubin
    ours = compile_ptx(ptx, Options(arch=target), name).cubin
    (a, ra), (b, rb) = _count(ours), _count(theirs)
    print(f"{name:60s} instrs {a:6d} vs {b:6d} ({a / b:5.2f})   regs {ra:3d} vs {rb:3d}")
    return a, b, ra, rb


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ptx", nargs="*", help="PTX files instead of the one-instruction kernels")
    ap.add_argument("--kernels", nargs="*", help="tests/kernels kernels (t2/f32_div_sqrt)")
    args = ap.parse_args(argv)
    rows = []
    if args.kernels:
        from openptxas.testing.corpus import discover

        oracle = Oracle()
        for ks in discover():
            if ks.name in args.kernels:
                target = "sm_90a" if "t4/" in ks.name else "sm_90"
                ptx = oracle.cu_to_ptx(ks.cu_path, target, ks.nvcc_flags, subject=ks.name)
                rows.append(row(ks.name, ptx, target))
    elif args.ptx:
        for f in args.ptx:
            text = Path(f).read_text()
            m = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
            rows.append(row(f, text, m.group(1) if m else "sm_90"))
    else:
        for instr in INSTRUCTIONS:
            rows.append(row(instr, kernel(instr), "sm_90"))
    ratio = 1.0
    for a, b, _, _ in rows:
        ratio *= a / b
    print(f"geomean instruction ratio (ours / ptxas): {ratio ** (1 / len(rows)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
