"""Spill figures, openptxas vs ptxas 13.0.88, on the kernels that spill: spill stores/loads
(bytes, as ``-v`` prints them), stack frame, and the emulator's cycle estimate and dynamic
instruction count of one launch (bench/emu.py, the latency model the benchmark uses), for the
tests/kernels kernels that spill (t2/spill_maxrreg, t2/spill_pressure) and the high-pressure
kernels of tests/compiler/test_spill.py under -maxrregcount 24, 32 and 40, and the spilling-across-
calls kernels of tests/compiler/test_spill_calls.py under 24 and 32, recursive ones included (spill
bytes of the kernel and of its device functions).

    python scripts/spill_figures.py [--opt 3]

Prints one row per kernel, the geometric means of ours/ptxas and the worst three by cycles.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.emu import emulate  # noqa: E402
from openptxas.driver import compile_ptx  # noqa: E402
from openptxas.options import parse_args  # noqa: E402
from openptxas.spec import parse_spec  # noqa: E402
from openptxas.testing.oracle import Oracle  # noqa: E402


def _row(
    name: str, ptx: str, flags: list[str], specs: list[Any], opt: int, o: Oracle
) -> list[dict[str, Any]]:
    theirs = o.ptxas(ptx, "sm_90", flags)
    opts = parse_args([*flags, "-arch=sm_90", f"-O{opt}", "x.ptx"]).options
    ours = compile_ptx(ptx, opts, "x.ptx")
    rows: list[dict[str, Any]] = []
    # spill bytes of the kernel and of the device functions it calls (their own -v blocks)
    dev_o = [f for f in ours.functions if not f.is_entry]
    kernels = {f.name for f in ours.functions if f.is_entry}  # (the oracle's parse calls
    dev_t = [f for f in theirs.functions if f.name not in kernels]  # every block "entry")
    for spec in specs:
        f_o = next(f for f in ours.functions if f.name == spec.kernel)
        f_t = theirs.function(spec.kernel)
        e_o = emulate(ours.cubin, spec)
        e_t = emulate(theirs.cubin, spec)
        rows.append(
            {
                "kernel": f"{name}:{spec.kernel}",
                "regs": (f_o.registers, f_t.registers),
                "stores": (
                    f_o.spill_stores + sum(f.spill_stores for f in dev_o),
                    f_t.spill_stores + sum(f.spill_stores for f in dev_t),
                ),
                "loads": (
                    f_o.spill_loads + sum(f.spill_loads for f in dev_o),
                    f_t.spill_loads + sum(f.spill_loads for f in dev_t),
                ),
                "frame": (f_o.stack_frame, f_t.stack_frame),
                "cycles": (e_o.cycles, e_t.cycles),
                "instrs": (e_o.instructions, e_t.instructions),
            }
        )
    return rows


def corpus_rows(opt: int, o: Oracle) -> list[dict[str, Any]]:
    from openptxas.testing.corpus import discover
    from tests.emu.harness import emu_target

    out: list[dict[str, Any]] = []
    for ks in discover():
        if ks.name not in ("t2/spill_maxrreg", "t2/spill_pressure"):
            continue
        target = emu_target(ks) or "sm_90"
        ptx = o.cu_to_ptx(ks.cu_path, target, ks.nvcc_flags, subject=ks.name)
        specs = [s for s in ks.specs if not s.kernel.endswith("_free")]
        out += _row(ks.name, ptx, list(ks.ptxas_flags), specs, opt, o)
    return out


def probe_rows(opt: int, o: Oracle) -> list[dict[str, Any]]:
    from openptxas.testing.difffuzz import _spec, inputs_for
    from tests.compiler.test_spill import KERNELS

    out: list[dict[str, Any]] = []
    for name in sorted(KERNELS):
        ptx = KERNELS[name]()
        m = re.search(r"\.reg \.b32 %r<(\d+)>", ptx)
        assert m is not None
        n = int(m.group(1))
        spec = parse_spec(_spec(inputs_for(7, n), n))
        for maxrreg in (24, 32, 40):
            out += _row(f"{name}@{maxrreg}", ptx, [f"-maxrregcount={maxrreg}"], [spec], opt, o)
    return out


def call_rows(opt: int, o: Oracle) -> list[dict[str, Any]]:
    """tests/compiler/test_spill_calls.py's kernels: 40 values live across a call (direct,
    indirect, vprintf), a busy callee with a frame of its own, and that callee calling itself
    (its spill slots in each activation's frame)."""
    from openptxas.testing.difffuzz import _spec, inputs_for
    from tests.compiler.test_spill_calls import FUNC, N, busy, kernel, recursive

    spec = parse_spec(_spec(inputs_for(7, N), N))
    cases = {k: kernel(k) for k in ("direct", "indirect", "printf")}
    cases["busy-frame"] = kernel("direct").replace(FUNC, busy(True))
    cases["recursive"] = kernel("direct").replace(FUNC, recursive(False))
    cases["recursive-frame"] = kernel("direct").replace(FUNC, recursive(True))
    out: list[dict[str, Any]] = []
    for name, ptx in cases.items():
        for maxrreg in (24, 32):
            out += _row(f"call-{name}@{maxrreg}", ptx, [f"-maxrregcount={maxrreg}"], [spec], opt, o)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opt", type=int, default=3)
    ap.add_argument("--only", default="", help="rows whose name contains this text")
    ns = ap.parse_args(argv)
    o = Oracle()
    rows = corpus_rows(ns.opt, o) + probe_rows(ns.opt, o) + call_rows(ns.opt, o)
    rows = [r for r in rows if ns.only in r["kernel"]]
    hdr = "kernel regs stores(ours/ptxas) loads frame cycles(ours/ptxas) ratio instrs"
    print(hdr)
    ratios = []
    for r in rows:
        c = r["cycles"][0] / r["cycles"][1]
        ratios.append((c, r))
        print(
            f"{r['kernel']:40s} {r['regs'][0]}/{r['regs'][1]} "
            f"{r['stores'][0]}/{r['stores'][1]} {r['loads'][0]}/{r['loads'][1]} "
            f"{r['frame'][0]}/{r['frame'][1]} {r['cycles'][0]:.0f}/{r['cycles'][1]:.0f} "
            f"{c:.3f} {r['instrs'][0]}/{r['instrs'][1]}"
        )

    def geo(key: str) -> float:
        vals = [r[key][0] / r[key][1] for r in rows if r[key][1] and r[key][0]]
        return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")

    print(
        f"geomean ours/ptxas over {len(rows)} kernels: cycles {geo('cycles'):.3f}, "
        f"spill stores {geo('stores'):.3f}, spill loads {geo('loads'):.3f}, "
        f"frame {geo('frame'):.3f}, instructions {geo('instrs'):.3f}"
    )
    print("worst 3 by cycles:")
    for c, r in sorted(ratios, key=lambda x: -x[0])[:3]:
        print(f"  {r['kernel']}: {c:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
