"""Stack frames, ours vs ptxas's: for each PTX file (or tests/kernels kernel), the ``-v`` lines of
every function and the cubin's frame records (EIATTR_FRAME_SIZE / MIN_STACK_SIZE / MAX_STACK_SIZE
and the ``.debug_frame`` FDE program), side by side, with a mark where they differ.

    python scripts/probe_local.py FILE.ptx ... [--opt 3] [-- extra ptxas flags]
    python scripts/probe_local.py --kernel t2/local_array --kernel t2/struct_param_small

The facts the local-memory lowering relies on (frame layout, where ptxas lowers the stack
pointer, the FDE's shape) were read off this script's output on probe PTX files.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path


def _verbose_lines(text: str) -> list[str]:
    out = []
    for ln in text.splitlines():
        if "Compile time" in ln or not ln.strip():
            continue
        out.append(re.sub(r"\s+", " ", ln.strip()))
    return out


def _frames(cubin: bytes) -> list[str]:
    from openptxas.elf.describe import describe
    from openptxas.elf.reader import read_cubin

    d = describe(read_cubin(cubin))
    rows = []
    for f in d.functions:
        fde = f.frame.fde.hex() if f.frame else "-"
        rows.append(
            f"{f.name}: frame_size={f.frame_size} min_stack={f.min_stack} "
            f"max_stack={f.max_stack} fde={fde}"
        )
    return rows


def compare(name: str, ptx: str, opt: int, flags: list[str]) -> bool:
    from openptxas.diag import OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args
    from openptxas.testing.oracle import Oracle

    ref = Oracle().ptxas(ptx, "sm_90", ["-v", f"-O{opt}", *flags])
    theirs_v = _verbose_lines(ref.log)
    theirs_f = _frames(ref.cubin)
    try:
        opts = parse_args(["-arch=sm_90", "-v", f"-O{opt}", *flags, "x.ptx"]).options
        res = compile_ptx(ptx, opts, "x.ptx")
    except OpenPtxasError as e:
        print(f"== {name} -O{opt}: ours refused: {e}")
        return False
    ours_v = _verbose_lines(res.verbose_report())
    ours_f = _frames(res.cubin)
    same = True
    print(f"== {name} -O{opt}")
    for label, a, b in (("-v", ours_v, theirs_v), ("frame", ours_f, theirs_f)):
        for k in range(max(len(a), len(b))):
            x = a[k] if k < len(a) else ""
            y = b[k] if k < len(b) else ""
            mark = "  " if x == y else "!="
            same &= x == y
            print(f" {mark} {label:5} ours:   {x}")
            if x != y:
                print(f"    {'':5} ptxas:  {y}")
    return same


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--kernel", action="append", default=[], help="a tests/kernels name")
    ap.add_argument("--opt", default="3", help="comma-separated -O levels")
    ap.add_argument("--flag", action="append", default=[], help="an extra ptxas flag")
    args = ap.parse_args(argv)
    from openptxas.testing.oracle import Oracle

    jobs: list[tuple[str, str]] = [(str(p), p.read_text()) for p in args.files]
    if args.kernel:
        from openptxas.testing.corpus import discover

        by_name = {k.name: k for k in discover()}
        for name in args.kernel:
            ks = by_name[name]
            jobs.append(
                (name, Oracle().cu_to_ptx(ks.cu_path, "sm_90", ks.nvcc_flags, subject=name))
            )
    bad = 0
    for name, ptx in jobs:
        for opt in (int(o) for o in args.opt.split(",")):
            bad += not compare(name, ptx, opt, args.flag)
    print(f"{len(jobs) * len(args.opt.split(','))} compiles, {bad} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
