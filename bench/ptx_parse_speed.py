"""PTX front-end speed: MB/s of parse alone and of parse + check, on real PTX.

Inputs: every PTX file under tests/ptx/data (nvcc and Triton output, the largest is nvcc -G
debug output), plus, when nvcc is on the PATH, the -G build of tests/ptx/data/cuda/arith.cu (the
largest real PTX we make). Timings are the best of several runs (the machine is shared).

    python bench/ptx_parse_speed.py [--repeat 5] [--files A.ptx B.ptx ...]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openptxas.ptx import diagnose, parse  # noqa: E402


def inputs(extra: list[Path]) -> list[tuple[str, str]]:
    out = [
        (str(p.relative_to(ROOT)), p.read_text())
        for p in sorted((ROOT / "tests" / "ptx" / "data").rglob("*.ptx"))
    ]
    out = [(n, t) for n, t in out if "fuzz" not in n]
    nvcc = shutil.which("nvcc")
    if nvcc and not extra:
        with tempfile.TemporaryDirectory() as td:
            o = Path(td) / "arith_G.ptx"
            src = ROOT / "tests" / "ptx" / "data" / "cuda" / "arith.cu"
            r = subprocess.run(
                [nvcc, "-arch=sm_90", "-ptx", "-G", str(src), "-o", str(o)],
                capture_output=True,
                check=False,
            )
            if r.returncode == 0:
                out.append(("nvcc -G arith.cu (generated)", o.read_text()))
    out += [(str(p), p.read_text()) for p in extra]
    return out


def best(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()  # type: ignore[operator]
        times.append(time.process_time() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--files", nargs="*", type=Path, default=[])
    args = ap.parse_args(argv)
    rows = []
    for name, text in inputs(args.files):
        parse(text, name)  # warm caches
        tp = best(lambda text=text, name=name: parse(text, name), args.repeat)
        tc = best(lambda text=text, name=name: diagnose(text, name), max(1, args.repeat // 2))
        rows.append((name, len(text), tp, tc))
    rows.sort(key=lambda r: r[1])
    print(f"{'file':60s} {'bytes':>9s} {'parse MB/s':>11s} {'+check MB/s':>12s}")
    for name, n, tp, tc in rows:
        print(f"{name[-60:]:60s} {n:9d} {n / 1e6 / tp:11.2f} {n / 1e6 / tc:12.2f}")
    total = sum(r[1] for r in rows)
    tp = sum(r[2] for r in rows)
    tc = sum(r[3] for r in rows)
    big = rows[-1]
    print(
        f"largest ({big[0]}, {big[1]} bytes): parse {big[1] / 1e6 / big[2]:.2f} MB/s, "
        f"parse+check {big[1] / 1e6 / big[3]:.2f} MB/s; all {len(rows)} files ({total} bytes): "
        f"parse {total / 1e6 / tp:.2f} MB/s, parse+check {total / 1e6 / tc:.2f} MB/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
