"""Check that no kernel's float results depend on mul+add contraction.

nvcc contracts ``a * b + c`` into an fma by default, and ptxas fuses a plain ``mul.f32`` feeding an
``add.f32``. The corpus pins its float operations (``__fmaf_rn``, ``__fmul_rn``, ``__fadd_rn``) so
that the references are exact; this script proves it per kernel by building sm_90 SASS twice, with
the default flags and with ``-fmad=false`` (nvcc) / ``--fmad=false`` (ptxas), and comparing the
per-function counts of fma instructions (FFMA, DFMA, HFMA2; scheduling may reorder them and
CSE may merge a plain and a pinned multiply of the same operands). More fmas by default is a
contraction.

Usage (from the repository root)::

    python tests/kernels/hostsim/check_fmad.py [GLOB ...]
"""

from __future__ import annotations

import fnmatch
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from openptxas.testing.corpus import discover  # noqa: E402
from openptxas.testing.oracle import Oracle, parse_nvdisasm  # noqa: E402


FMA_OPS = ("FFMA", "DFMA", "HFMA2")


def opcodes(sass_text: str) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for fn, instrs in parse_nvdisasm(sass_text).items():
        ops: Counter[str] = Counter()
        for ins in instrs:
            t = ins.text
            if t.startswith("@"):
                t = t.split(None, 1)[1]
            op = t.split()[0]
            if op.split(".")[0] in FMA_OPS and ".MMA" not in op:
                ops[op.split(".")[0]] += 1
        out[fn] = ops
    return out


def main(argv: list[str]) -> int:
    globs = argv or ["t1/*", "t2/intdiv_*"]
    oracle = Oracle()
    bad = 0
    for ks in discover():
        if not any(fnmatch.fnmatch(ks.name, g) for g in globs):
            continue
        target = "sm_90" if ks.compiles_for("sm_90") else ks.targets()[0]
        ptx0 = oracle.cu_to_ptx(ks.cu_path, target, ks.nvcc_flags, subject=ks.name)
        ptx1 = oracle.cu_to_ptx(ks.cu_path, target, [*ks.nvcc_flags, "-fmad=false"], ks.name)
        s0 = opcodes(oracle.nvdisasm(oracle.ptxas(ptx0, target, ks.ptxas_flags).cubin))
        s1 = opcodes(
            oracle.nvdisasm(oracle.ptxas(ptx1, target, [*ks.ptxas_flags, "--fmad=false"]).cubin)
        )
        diffs = [f for f in s0 if s0[f] != s1.get(f)]
        if diffs:
            bad += 1
            for f in diffs:
                print(f"CONTRACTED {ks.name} {f}: {dict(s0[f])} (default) vs {dict(s1[f])}")
        else:
            print(f"ok {ks.name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
