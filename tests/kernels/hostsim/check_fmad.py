"""Check that no kernel's float results depend on mul+add contraction.

nvcc contracts ``a * b + c`` into an fma by default, and ptxas fuses a plain ``mul.f32`` feeding an
``add.f32``. The corpus pins its float operations (``__fmaf_rn``, ``__fmul_rn``, ``__fadd_rn``) so
that the references are exact; this script proves it per kernel by building sm_90 SASS twice, with
the default flags and with ``-fmad=false`` (nvcc) / ``--fmad=false`` (ptxas), and comparing the
per-function counts of fma instructions (FFMA, DFMA, HFMA2; scheduling may reorder them and
CSE may merge a plain and a pinned multiply of the same operands). More fmas by default is a
contraction.

A second, stricter check reads the PTX: a multiply without a rounding modifier (``mul.f32``,
``mul.f64``, ``mul.f16``...) whose result reaches an add, a subtract, an fma or an atomic add
(directly or through ``mov``/``neg``/``selp``) licenses any PTX compiler to fuse them, whatever
ptxas happened to do.

Usage (from the repository root)::

    python tests/kernels/hostsim/check_fmad.py [GLOB ...]
"""

from __future__ import annotations

import fnmatch
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from openptxas.testing.corpus import discover  # noqa: E402
from openptxas.testing.oracle import Oracle, parse_nvdisasm  # noqa: E402

FMA_OPS = ("FFMA", "DFMA", "HFMA2")
FLOAT_TYPES = ("f32", "f64", "f16", "f16x2", "bf16", "bf16x2")


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


_INSTR = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.]*)\s+([^;]*);", re.M)


def unpinned_mul_uses(ptx: str) -> list[str]:
    """Plain (contractible) float multiplies whose results reach add/sub/fma, as PTX lines."""
    # Register names are per function: analyse each .entry/.func body on its own.
    bodies = re.split(r"\.(?:entry|func)\s", ptx)[1:]
    return [line for body in bodies for line in _unpinned_in_function(body)]


def _unpinned_in_function(ptx: str) -> list[str]:
    instrs = [
        (m.group(2), [o.strip() for o in m.group(3).split(",")]) for m in _INSTR.finditer(ptx)
    ]
    tainted: dict[str, str] = {}
    for op, ops in instrs:
        parts = op.split(".")
        is_float_mul = parts[0] == "mul" and parts[-1] in FLOAT_TYPES
        if is_float_mul and not any(p in ("rn", "rz", "rm", "rp") for p in parts[1:]):
            tainted[ops[0]] = f"{op} {', '.join(ops)}"
    changed = True
    while changed:
        changed = False
        for op, ops in instrs:
            srcs = [o for o in ops[1:] if o in tainted]
            if op.split(".")[0] in ("mov", "neg", "selp") and srcs and ops[0] not in tainted:
                tainted[ops[0]] = tainted[srcs[0]]
                changed = True
    bad = []
    for op, ops in instrs:
        parts = op.split(".")
        consumer = parts[0] in ("add", "sub", "fma") or (
            parts[0] in ("atom", "red") and "add" in parts
        )
        if consumer and parts[-1].startswith(("f", "bf")):
            for src in ops[1:]:
                if src in tainted:
                    bad.append(f"{tainted[src]}  ->  {op} {', '.join(ops)}")
    return bad


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
        lint = unpinned_mul_uses(ptx0)
        if lint:
            bad += 1
            for line in lint:
                print(f"UNPINNED {ks.name}: {line}")
        if diffs:
            bad += 1
            for f in diffs:
                print(f"CONTRACTED {ks.name} {f}: {dict(s0[f])} (default) vs {dict(s1[f])}")
        elif not lint:
            print(f"ok {ks.name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
