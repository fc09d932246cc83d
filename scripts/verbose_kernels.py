"""``-v`` of the own kernels that use local memory, calls, recursion, printf, struct parameters
or spills, ours vs ptxas's (issue 18): for each kernel and device function, the stack frame,
spill store/load bytes, cumulative stack and registers side by side, and whether the text is
the same line for line once those figures are set aside (the format, the order of the blocks,
the notes and warnings).

    python scripts/verbose_kernels.py [--opt 3,0] [--kernel t2/printf ...]

Each kernel is compiled with its ``ptxas_flags`` (``-maxrregcount=32`` for t2/spill_maxrreg).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KERNELS = (
    "t2/local_array",
    "t2/noinline_calls",
    "t2/noinline_many_args",
    "t2/printf",
    "t2/recursion",
    "t2/indirect_calls",
    "t2/struct_param_small",
    "t2/struct_param_large",
    "t2/spill_maxrreg",
    "t2/spill_pressure",
)
_FIG = re.compile(
    r"(\d+) bytes (stack frame|spill stores|spill loads|cumulative stack size)|Used (\d+) registers"
)


def shape(text: str) -> list[str]:
    """The ``-v`` lines with every figure of frames, spills, stacks and registers as N."""
    out = []
    for ln in text.splitlines():
        if "Compile time" in ln or not ln.strip():
            continue
        ln = re.sub(r"ptxas \S+\.ptx", "ptxas F.ptx", ln)
        out.append(_FIG.sub(lambda m: re.sub(r"\d+", "N", m.group(0), count=1), ln))
    return out


def figures(text: str) -> dict[str, dict[str, int]]:
    """Per function: frame, stores, loads (its properties block), registers and cumulative
    stack (a kernel's 'Used' line)."""
    out: dict[str, dict[str, int]] = {}
    cur = ""
    for ln in text.splitlines():
        m = re.search(r"Function properties for (\S+)", ln)
        if m:
            cur = m.group(1)
            out.setdefault(cur, {})
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill", ln)
        if m and cur:
            out[cur].update(frame=int(m[1]), stores=int(m[2]), loads=int(m[3]))
        m = re.search(r"Used (\d+) registers", ln)
        if m and cur:
            out[cur]["regs"] = int(m[1])
            c = re.search(r"(\d+) bytes cumulative stack", ln)
            out[cur]["cumulative"] = int(c[1]) if c else 0
    return out


def both(name: str, opt: int, orc: Any = None) -> tuple[str, str]:
    """ptxas's and our ``-v`` text for a tests/kernels kernel (``orc``: an Oracle)."""
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args
    from openptxas.testing.corpus import discover
    from openptxas.testing.oracle import Oracle

    ks = {k.name: k for k in discover()}[name]
    orc = orc or Oracle()
    ptx = str(orc.cu_to_ptx(ks.cu_path, "sm_90", ks.nvcc_flags, subject=name))
    flags = ["-v", f"-O{opt}", *ks.ptxas_flags]
    ref = orc.ptxas(ptx, "sm_90", flags).log
    opts = parse_args(["-arch=sm_90", *flags, "x.ptx"]).options
    return ref, compile_ptx(ptx, opts, "x.ptx").verbose_report()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", action="append", default=[])
    ap.add_argument("--opt", default="3")
    ns = ap.parse_args(argv)
    cols = ("frame", "stores", "loads", "cumulative", "regs")
    same_text = 0
    runs = 0
    for name in ns.kernel or KERNELS:
        for opt in (int(o) for o in ns.opt.split(",")):
            ref, ours = both(name, opt)
            runs += 1
            same = shape(ref) == shape(ours)
            same_text += same
            print(f"== {name} -O{opt}: text {'same' if same else 'DIFFERS'} (figures aside)")
            fr, fo = figures(ref), figures(ours)
            print(f"   {'function':40} " + " ".join(f"{c:>15}" for c in cols))
            for fn in [*fr, *(f for f in fo if f not in fr)]:
                a, b = fo.get(fn, {}), fr.get(fn, {})
                cells = []
                for c in cols:
                    x, y = a.get(c), b.get(c)
                    if x is None and y is None:
                        cells.append(f"{'':>15}")
                    else:
                        mark = "" if x == y else "*"
                        cells.append(f"{mark}{x}/{y}".rjust(15))
                print(f"   {fn[:40]:40} " + " ".join(cells))
            if not same:
                for lo, lr in zip(shape(ours), shape(ref), strict=False):
                    if lo != lr:
                        print(f"   ours:  {lo}\n   ptxas: {lr}")
    print(f"{runs} compiles (ours/ptxas per cell, * where they differ): {same_text} same text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
