#!/usr/bin/env python3
"""Compile time of a large kernel with this tree's openptxas and with a reference commit's.

    python scripts/encode_bench.py [--ref COMMIT] [--blocks 3000] [--reps 2] [--profile FILE]

Generates one straight-line kernel of about 6.7 SASS instructions per block (``--blocks 3000``:
about 20,000): integer and f32 arithmetic, comparisons, selects, immediates in several fields,
and a store every 50 blocks. Each tree compiles it ``--reps`` times, alternately, in its own
process; the script prints per tree the best total compile time and the time spent in
``codegen.encode_function``, and the ratio before/after, all measured in the same run (so on the
same machine load); the instruction table is imported before the clock starts in both.
``--profile`` also writes a cProfile summary of one compile with this tree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def kernel(blocks: int) -> str:
    lines = [
        ".version 8.0",
        ".target sm_90",
        ".address_size 64",
        ".visible .entry big(.param .u64 out, .param .u64 inp, .param .u32 k)",
        "{",
        "  .reg .b32 %r<16>;",
        "  .reg .f32 %f<8>;",
        "  .reg .b64 %rd<4>;",
        "  .reg .pred %p<2>;",
        "  ld.param.u64 %rd0, [out];",
        "  ld.param.u64 %rd1, [inp];",
        "  ld.param.u32 %r15, [k];",
        "  cvta.to.global.u64 %rd0, %rd0;",
        "  cvta.to.global.u64 %rd1, %rd1;",
        "  mov.u32 %r0, %tid.x;",
        "  mul.wide.u32 %rd2, %r0, 4;",
        "  add.s64 %rd1, %rd1, %rd2;",
        "  add.s64 %rd0, %rd0, %rd2;",
    ]
    for i in range(8):
        lines.append(f"  ld.global.u32 %r{i}, [%rd1+{4 * i}];")
        lines.append(f"  ld.global.f32 %f{i}, [%rd1+{4 * i + 64}];")
    for j in range(blocks):
        a, b, c = j % 8, (j * 3 + 1) % 8, (j * 5 + 2) % 8
        lines += [
            f"  add.s32 %r{a}, %r{a}, %r{b};",
            f"  xor.b32 %r{b}, %r{b}, {(j * 2654435761) & 0xFFFFFFFF};",
            f"  fma.rn.f32 %f{a}, %f{b}, %f{c}, 0f3F800000;",
            f"  shl.b32 %r{c}, %r{c}, {j % 31};",
            f"  mul.lo.s32 %r{a}, %r{a}, %r15;",
            f"  setp.lt.s32 %p0, %r{a}, %r{b};",
            f"  selp.b32 %r{c}, %r{a}, %r{b}, %p0;",
            f"  add.rn.f32 %f{b}, %f{b}, 0f{(0x3E000000 + j * 4096) & 0xFFFFFFFF:08X};",
        ]
        if j % 50 == 0:
            lines.append(f"  st.global.u32 [%rd0+{4 * (j % 16)}], %r{a};")
    for i in range(8):
        lines.append(f"  st.global.u32 [%rd0+{4 * i}], %r{i};")
        lines.append(f"  st.global.f32 [%rd0+{4 * i + 64}], %f{i};")
    lines += ["  ret;", "}", ""]
    return "\n".join(lines)


def worker(ptx_path: str, profile: str) -> int:
    """One compile with the openptxas on sys.path; prints a JSON line of the figures."""
    import time

    import openptxas.codegen as codegen
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = Path(ptx_path).read_text()
    spent = [0.0]
    count = [0]
    real = codegen.encode_function

    def timed(fn, target):  # type: ignore[no-untyped-def]
        count[0] += sum(1 for _ in fn.instrs())
        t = time.perf_counter()
        try:
            return real(fn, target)
        finally:
            spent[0] += time.perf_counter() - t

    codegen.encode_function = timed  # type: ignore[assignment]
    # the instruction table's import is a start-up cost of both versions, not the compile's
    from openptxas.isa.family import load_family
    from openptxas.targets import get_target

    load_family(get_target("sm_90").family)
    t0 = time.perf_counter()
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        res = prof.runcall(compile_ptx, ptx, Options(arch="sm_90"), "big.ptx")
        with open(profile, "w") as f:
            st = pstats.Stats(prof, stream=f)
            st.sort_stats("cumulative").print_stats(40)
    else:
        res = compile_ptx(ptx, Options(arch="sm_90"), "big.ptx")
    total = time.perf_counter() - t0
    figures = {"total": total, "encode": spent[0], "bytes": len(res.cubin), "instrs": count[0]}
    print(json.dumps(figures))
    return 0


def _export(commit: str, dest: Path) -> None:
    import tarfile

    tar = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "openptxas"], capture_output=True, check=True
    )
    (dest / "src.tar").write_bytes(tar.stdout)
    with tarfile.open(dest / "src.tar") as t:
        t.extractall(dest, filter="data")


def _one(tree: Path, ptx: Path, profile: str = "") -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(ptx), profile]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=ptx.parent)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--ref", default="", help="reference commit (default: merge base with main)")
    ap.add_argument("--blocks", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--profile", type=Path, help="write this tree's cProfile summary here")
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
        tmp = Path(td)
        ptx = tmp / "big.ptx"
        ptx.write_text(kernel(args.blocks))
        (tmp / "ref").mkdir()
        _export(ref, tmp / "ref")
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for _ in range(args.reps):
            runs["before"].append(_one(tmp / "ref", ptx))
            runs["after"].append(_one(REPO, ptx))
        if args.profile:
            _one(REPO, ptx, str(args.profile.resolve()))
    best = {k: min(v, key=lambda r: r["total"]) for k, v in runs.items()}
    n, size = int(best["after"]["instrs"]), int(best["after"]["bytes"])
    same = "" if best["before"]["bytes"] == size else " (the reference's differs in size!)"
    print(f"reference: {ref}; kernel: {args.blocks} blocks, {n} instructions, {size} bytes{same}")
    for k in ("before", "after"):
        r = best[k]
        share = 100 * r["encode"] / r["total"]
        enc = f"encode_function {r['encode']:.2f} s ({share:.0f}%)"
        print(f"{k:6s}: compile {r['total']:.2f} s, {enc}")
    b, a = best["before"], best["after"]
    print(
        f"ratio before/after: compile {b['total'] / a['total']:.2f}x, "
        f"encoding {b['encode'] / a['encode']:.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
