#!/usr/bin/env python3
"""Which instructions the compiler emits that the ISA table cannot encode.

    python scripts/isa_compiler_forms.py [--tiers t1,t2] [--kernels 't1/*'] [--out FILE]

Compiles corpus kernels (PTX from nvcc through the oracle cache) with openptxas for sm_90 and
records every instruction ``openptxas.codegen_encode`` hands to ``isa.direct.encode_printed``
that no form takes, written as nvdisasm's text. The compile goes on after a failure (the
instruction is replaced by a NOP), so one run lists all of a kernel's missing forms. Output: one
line per distinct *shape* (registers and immediates abstracted), with a count and an example,
most frequent first; ``--out`` also writes the raw failing lines.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

_SHAPE = (
    (re.compile(r"\bUR\d+\b"), "UR"),
    (re.compile(r"\bR\d+\b"), "R"),
    (re.compile(r"\bUP\d\b"), "UP"),
    (re.compile(r"\bP\d\b"), "P"),
    (re.compile(r"-?0x[0-9a-f]+"), "imm"),
    (re.compile(r"`\([^)]*\)"), "label"),
)


def shape(line: str) -> str:
    s = line.strip().rstrip(";").strip()
    for pat, rep in _SHAPE:
        s = pat.sub(rep, s)
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tiers", default="t1,t2,t3,t4")
    ap.add_argument("--kernels", default="*")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    import openptxas.codegen_encode as codegen_encode
    from openptxas.diag import EncodingError, OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.isa.direct import describe
    from openptxas.options import Options
    from openptxas.testing.corpus import discover
    from openptxas.testing.oracle import Oracle

    real = codegen_encode.encode_printed
    failing: list[str] = []

    def encode(fam: Any, opcode: str, mods: Any, ops: Any, *rest: Any) -> Any:
        try:
            return real(fam, opcode, mods, ops, *rest)
        except EncodingError:
            # record it, go on with a NOP so that one compile lists every missing form
            failing.append(describe(opcode, mods, ops) + " ;")
            return real(fam, "NOP", (), (), *rest)

    codegen_encode.encode_printed = encode  # type: ignore[assignment]
    oracle = Oracle()
    tiers = set(args.tiers.split(","))
    kernels = [k for k in discover() if k.tier in tiers and fnmatch.fnmatch(k.name, args.kernels)]
    errors: dict[str, str] = {}
    per_kernel: dict[str, int] = {}
    for ks in kernels:
        try:
            ptx = oracle.cu_to_ptx(ks.cu_path, "sm_90", ks.nvcc_flags)
        except Exception as exc:  # a kernel nvcc cannot build for sm_90
            errors[ks.name] = f"nvcc: {str(exc).splitlines()[0][:100]}"
            continue
        before = len(failing)
        try:
            compile_ptx(ptx, Options(arch="sm_90", opt_level=3), ks.stem + ".ptx")
        except OpenPtxasError as exc:
            errors[ks.name] = str(exc).splitlines()[0][:160]
        except Exception as exc:
            errors[ks.name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:140]}"
        per_kernel[ks.name] = len(failing) - before
    lines = failing
    shapes: Counter[str] = Counter(shape(x) for x in lines)
    example: dict[str, str] = {}
    for x in lines:
        example.setdefault(shape(x), x)
    kernels_of: dict[str, set[str]] = defaultdict(set)
    print(
        f"{len(kernels)} kernels, {sum(1 for v in per_kernel.values() if v)} with unencodable "
        f"lines, {len(errors)} with other compile errors"
    )
    for s, n in shapes.most_common():
        print(f"{n:6d}  {s:60s}  e.g. {example[s]}")
    for k, e in sorted(errors.items()):
        print(f"ERROR {k}: {e}")
    del kernels_of
    if args.out:
        args.out.write_text("".join(f"{x}\n" for x in sorted(set(lines))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
