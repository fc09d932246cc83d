#!/usr/bin/env python3
"""Byte-identical cubins from two versions of openptxas (a refactoring's proof).

    python scripts/encode_identity.py [--ref COMMIT] [--jobs 2] [--quick]

Compiles every PTX the compiler tests use with this tree's openptxas and with the code of
``--ref`` (a commit, default: the merge base of HEAD and ``main``; exported with ``git archive``),
each in its own process, at -O3 and -O0, and compares the cubins' sha256 (or, for PTX a version
cannot compile, the error's type and first line). The PTX:

* tests/kernels: every kernel whose PTX the oracle (nvcc, cached) gives for sm_90 (sm_90a for
  the arch-specific ones), with the kernel's own ptxas flags;
* tests/compiler: the difffuzz regression files, the cvt.sat pairs, cnot, the FMA contraction
  cases, the scope test, examples/vec_add.ptx;
* the difffuzz sample programs of tests/compiler/test_difffuzz.py (``openptxas.testing.difffuzz``).

Prints ``N cubins identical, M different`` (and the cases that differ); exit status 1 if any
differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def collect(quick: bool) -> list[dict[str, Any]]:
    """Every case: name, PTX text and ptxas-style arguments (without the level)."""
    sys.path.insert(0, str(REPO))
    from openptxas.testing import difffuzz
    from openptxas.testing.corpus import discover
    from openptxas.testing.oracle import Oracle

    cases: list[dict[str, Any]] = []

    def add(name: str, ptx: str, args: list[str] | None = None, arch: str = "sm_90") -> None:
        cases.append({"name": name, "ptx": ptx, "args": args or [], "arch": arch})

    oracle = Oracle()
    for ks in discover():
        arch = next((t for t in ("sm_90", "sm_90a") if ks.compiles_for(t)), None)
        if arch is None:
            continue
        try:
            ptx = oracle.cu_to_ptx(ks.cu_path, arch, ks.nvcc_flags)
        except Exception as exc:  # a kernel nvcc cannot build: not this script's subject
            print(f"skip {ks.name}: {str(exc).splitlines()[:2]}", file=sys.stderr)
            continue
        add(f"kernel:{ks.name}", ptx, list(ks.ptxas_flags), arch)
    data = REPO / "tests" / "compiler" / "data" / "difffuzz"
    for p in sorted(data.glob("*.ptx")):
        add(f"regression:{p.stem}", p.read_text())
    from tests.compiler import test_cnot, test_cvt_sat, test_fma_contraction, test_scopes

    for pair in test_cvt_sat.PAIRS:
        add(f"cvt_sat:{pair}", test_cvt_sat._ptx(pair))
    add("cnot", test_cnot.PTX)
    for name, body in test_fma_contraction.CASES.items():
        ptx = test_fma_contraction._ptx(body)
        add(f"fma:{name}", ptx)
        add(f"fma:{name}:nofmad", ptx, ["--fmad=false"])
    add("scopes", test_scopes.PTX)
    add("vec_add", (REPO / "examples" / "vec_add.ptx").read_text())
    seeds = range(1000, 1030) if quick else range(1000, 1120)
    for seed in seeds:
        add(f"difffuzz:{seed}", difffuzz.render(difffuzz.generate(seed)))
    return cases


def worker(cases_path: str, out_path: str) -> int:
    """Compile every case with the openptxas on sys.path (run with PYTHONPATH set)."""
    from dataclasses import replace

    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args

    cases = json.loads(Path(cases_path).read_text())
    out: dict[str, str] = {}
    for c in cases:
        for level in (3, 0):
            key = f"{c['name']} -O{level}"
            try:
                opts = parse_args([*c["args"], f"-arch={c['arch']}", f"-O{level}", "x.ptx"]).options
                cubin = compile_ptx(c["ptx"], replace(opts, verify=False), "x.ptx").cubin
                out[key] = hashlib.sha256(cubin).hexdigest()
            except Exception as exc:
                first = (str(exc).splitlines() or [""])[0]
                out[key] = f"error {type(exc).__name__}: {first[:200]}"
    Path(out_path).write_text(json.dumps(out, indent=0, sort_keys=True))
    return 0


def _export(commit: str, dest: Path) -> None:
    tar = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "openptxas"], capture_output=True, check=True
    )
    tf = dest / "src.tar"
    tf.write_bytes(tar.stdout)
    with tarfile.open(tf) as t:
        t.extractall(dest, filter="data")


def _run(tree: Path, cases: Path, out: Path, jobs: int, tmp: Path) -> dict[str, str]:
    """Run the worker on ``tree``'s openptxas, the cases split over ``jobs`` processes."""
    all_cases = json.loads(cases.read_text())
    parts = [all_cases[i::jobs] for i in range(jobs)]
    procs = []
    env = dict(os.environ, PYTHONPATH=str(tree))
    for i, part in enumerate(parts):
        cp = tmp / f"{out.stem}.cases{i}.json"
        cp.write_text(json.dumps(part))
        op = tmp / f"{out.stem}.{i}.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(cp), str(op)]
        procs.append((subprocess.Popen(cmd, env=env, cwd=tmp), op))
    result: dict[str, str] = {}
    for p, op in procs:
        if p.wait() != 0:
            raise SystemExit(f"worker for {tree} failed")
        result.update(json.loads(op.read_text()))
    out.write_text(json.dumps(result, indent=0, sort_keys=True))
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--ref", default="", help="commit to compare with (default: merge base)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="30 fuzz programs instead of 120")
    ap.add_argument("--keep", type=Path, help="directory for the case list and the hashes")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(*args.worker)
    ref = (
        args.ref
        or subprocess.run(
            ["git", "-C", str(REPO), "merge-base", "HEAD", "main"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    with tempfile.TemporaryDirectory() as td:
        tmp = args.keep or Path(td)
        tmp.mkdir(parents=True, exist_ok=True)
        cases = collect(args.quick)
        cp = tmp / "cases.json"
        cp.write_text(json.dumps(cases))
        ref_tree = tmp / "ref"
        ref_tree.mkdir(exist_ok=True)
        _export(ref, ref_tree)
        before = _run(ref_tree, cp, tmp / "before.json", args.jobs, tmp)
        after = _run(REPO, cp, tmp / "after.json", args.jobs, tmp)
    same = [k for k in before if after.get(k) == before[k]]
    diff = sorted(k for k in before if after.get(k) != before[k])
    cubins = [k for k in same if not before[k].startswith("error")]
    errors = len(same) - len(cubins)
    print(f"reference: {ref}")
    print(
        f"{len(before)} compiles ({len(cases)} PTX modules, -O3 and -O0): "
        f"{len(cubins)} cubins identical, {len(diff)} different; "
        f"{errors} compiles fail alike in both"
    )
    for k in diff:
        print(f"  DIFFERENT {k}: {before[k][:90]} -> {after.get(k, '')[:90]}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
