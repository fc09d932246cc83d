"""Byte-identity check for refactorings of the compiler: compile the same inputs with a reference
checkout and with this one, compare the cubins' sha256.

Inputs: every PTX file under tests/compiler/data, every tests/kernels kernel (its nvcc PTX from the
oracle cache, its own ptxas flags), and difffuzz programs ``--fuzz`` seeds, each at -O3 and -O0.
An input that fails to compile records the error class; both sides must agree on it too.

    python scripts/cubin_identity.py --reference /work/main          # compare (runs both sides)

The inputs are gathered once (with this checkout's corpus and fuzzer) and handed to both sides;
each side compiles them in a subprocess whose PYTHONPATH is its checkout.

Prints ``N identical, M different`` (the compiles that succeeded on both sides), the errors that
agree, and every difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEVELS = (3, 0)


def _inputs(fuzz: int, arch: str = "sm_90") -> list[tuple[str, str, list[str]]]:
    """(name, PTX text, ptxas flags) for every input."""
    from openptxas.testing.corpus import discover
    from openptxas.testing.difffuzz import generate, render
    from openptxas.testing.oracle import Oracle, OracleError

    out: list[tuple[str, str, list[str]]] = []
    for p in sorted((ROOT / "tests" / "compiler" / "data").rglob("*.ptx")):
        out.append((str(p.relative_to(ROOT)), p.read_text(), []))
    oracle = Oracle()
    for ks in discover():
        try:
            if not ks.compiles_for(arch):
                continue
            ptx = oracle.cu_to_ptx(ks.cu_path, arch, ks.nvcc_flags)
        except OracleError:
            continue  # no PTX for this target (e.g. a PTX source for another .target)
        out.append((ks.name, ptx, ks.ptxas_flags))
    for seed in range(fuzz):
        out.append((f"difffuzz/{seed}", render(generate(seed)), []))
    return out


def emit(inputs: list[tuple[str, str, list[str]]], arch: str = "sm_90") -> dict[str, str]:
    """name@-O -> sha256 of the cubin, or ``error: <class>``."""
    from openptxas.diag import OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args

    result: dict[str, str] = {}
    for name, ptx, flags in inputs:
        for opt in LEVELS:
            key = f"{name}@O{opt}"
            try:
                opts = parse_args([*flags, f"-arch={arch}", f"-O{opt}", "x.ptx"]).options
                cubin = compile_ptx(ptx, replace(opts, verify=False), name).cubin
                result[key] = hashlib.sha256(cubin).hexdigest()
            except OpenPtxasError as exc:
                result[key] = f"error: {type(exc).__name__}"
            except Exception as exc:  # an internal error: it must stay the same too
                result[key] = f"error: internal {type(exc).__name__}"
    return result


def _run_side(path: Path, inputs: Path, out: Path, arch: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(path))
    cmd = [sys.executable, str(ROOT / "scripts" / "cubin_identity.py"), "--emit", str(out)]
    cmd += ["--arch", arch]
    subprocess.run([*cmd, "--inputs", str(inputs)], check=True, env=env, cwd=ROOT)
    data: dict[str, str] = json.loads(out.read_text())
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", type=Path, help="checkout whose compiler is the reference")
    ap.add_argument(
        "--candidate", type=Path, default=ROOT, help="checkout to compare (default: this one)"
    )
    ap.add_argument("--fuzz", type=int, default=60, help="difffuzz seeds 0..N-1 (default 60)")
    ap.add_argument("--only", default="", help="inputs whose name matches this regex")
    ap.add_argument("--arch", default="sm_90", help="the target compiled for (default sm_90)")
    ap.add_argument("--emit", type=Path, help=argparse.SUPPRESS)  # one side: hashes to a file
    ap.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)  # ... of these inputs
    args = ap.parse_args(argv)
    if args.emit is not None:
        inputs = json.loads(args.inputs.read_text())
        args.emit.write_text(json.dumps(emit(inputs, args.arch), indent=1, sort_keys=True))
        return 0
    if args.reference is None:
        ap.error("give --reference")
    with tempfile.TemporaryDirectory() as td:
        src = Path(td) / "inputs.json"
        chosen = [i for i in _inputs(args.fuzz, args.arch) if re.search(args.only, i[0])]
        src.write_text(json.dumps(chosen))
        ref = _run_side(args.reference.resolve(), src, Path(td) / "ref.json", args.arch)
        new = _run_side(args.candidate.resolve(), src, Path(td) / "new.json", args.arch)
    same = diff = errors = 0
    for key in sorted(ref.keys() | new.keys()):
        a, b = ref.get(key, "missing"), new.get(key, "missing")
        if a != b:
            diff += 1
            print(f"DIFFERENT {key}: {a[:16]} vs {b[:16]}")
        elif a.startswith("error"):
            errors += 1
        else:
            same += 1
    print(f"{same} identical, {diff} different ({errors} inputs fail alike on both sides)")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
