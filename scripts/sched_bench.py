"""Code quality of openptxas's scheduling modes against ptxas (issue 17), in one process.

For each input, ptxas's cubin (the oracle cache) and openptxas's cubin under every variant
(``--variants``: named openptxas command-line flag sets) are measured as ``python -m bench``
measures them: static instructions and summed stall counts (``bench.static``: nvdisasm's listing
without the end padding), registers (the ``-v`` report, summed over kernels), and, for the
tests/kernels kernels (they have launch specs), the emulator's cycle estimate and dynamic
instructions (``bench.emu``, summed over launches). Ratios are ours / ptxas per file; the
summary is their geometric mean over the files every variant and ptxas compiled.

    python scripts/sched_bench.py --kernels            # tests/kernels (emulator figures too)
    python scripts/sched_bench.py --public --sample 40 # public-corpus files that compile
    python scripts/sched_bench.py ... --json out.json --worst 5

Default variants: ``before`` (``--disable-phase PostSchedule``: the lowering's order) and
``after`` (the default pipeline).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.emu import emulate
from bench.static import sass_figures
from openptxas.driver import compile_ptx
from openptxas.options import parse_args
from openptxas.testing.corpus import discover
from openptxas.testing.oracle import Oracle

PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))
SWEEP = Path("/work/main/.cache/sweep-sm90-end.json")
VARIANTS = {
    "before": ["--disable-phase", "PostSchedule"],
    "after": [],
}
METRICS = ("cycles", "dyn", "stall", "instrs", "regs")


def _ours(ptx: str, flags: list[str]) -> tuple[bytes, int] | str:
    try:
        opts = parse_args(["-arch=sm_90", *flags, "in.ptx"]).options
        r = compile_ptx(ptx, opts, "in.ptx")
    except Exception as exc:  # refused or broken: recorded
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return r.cubin, sum(f.registers for f in r.functions if f.is_entry)


def static_hazards(cubin: bytes) -> int:
    """Reports of the static hazard checker (every path of every kernel) on ``cubin``."""
    from openptxas.emu.decode import isa_decoder
    from openptxas.emu.program import load_module
    from openptxas.emu.static_hazards import StaticChecker
    from openptxas.targets import get_target

    ck = StaticChecker(get_target("sm_90").latency)
    mod = load_module(cubin, isa_decoder("sm90"), relocatable=True)
    return sum(len(ck.check_kernel(mod, k).reports) for _n, k in sorted(mod.kernels.items()))


def _figures(
    oracle: Oracle, cubin: bytes, regs: int, specs: Any, subject: str, hazards: bool = False
) -> dict[str, Any]:
    sf = sass_figures(oracle, cubin, subject)
    out: dict[str, Any] = {
        "instrs": sum(s.instructions for s in sf.values()),
        "stall": sum(s.stall_cycles for s in sf.values()),
        "regs": regs,
    }
    if hazards:
        out["hazards"] = static_hazards(cubin)
    if specs:
        cyc = 0.0
        dyn = 0
        for spec in specs:
            fig = emulate(cubin, spec)
            cyc += fig.cycles
            dyn += fig.instructions
        out["cycles"] = cyc
        out["dyn"] = dyn
    return out


def _inputs(args: argparse.Namespace, oracle: Oracle) -> list[tuple[str, str, list[str], Any]]:
    out: list[tuple[str, str, list[str], Any]] = []
    if args.kernels:
        for k in discover():
            if not k.compiles_for("sm_90"):
                continue
            if args.grep and args.grep not in k.name:
                continue
            ptx = oracle.cu_to_ptx(k.cu_path, "sm_90", k.nvcc_flags, subject=k.name)
            out.append((k.name, ptx, list(k.ptxas_flags), tuple(k.specs)))
    if args.public:
        files = [x["file"] for x in json.loads(SWEEP.read_text()) if x["status"] == "OK"]
        if args.grep:
            files = [f for f in files if args.grep in f]
        if args.sample:
            files = sorted(random.Random(args.seed).sample(files, min(args.sample, len(files))))
        for f in files:
            p = PUBLIC / "build" / "sm_90" / f
            out.append((f, p.read_text(), [], ()))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kernels", action="store_true", help="tests/kernels (with the emulator)")
    ap.add_argument("--public", action="store_true", help="the public corpus's compiling files")
    ap.add_argument("--sample", type=int, default=0, help="a random sample of public files")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--grep", default="", help="only inputs whose name contains this")
    ap.add_argument("--variant", action="append", default=[], help="NAME=flag,flag (repeatable)")
    ap.add_argument("--only", default="", help="comma-separated variants to run (default all)")
    ap.add_argument("--json", help="write the per-file figures here")
    ap.add_argument("--worst", type=int, default=5)
    ap.add_argument("--no-emu", action="store_true")
    ap.add_argument("--hazards", action="store_true", help="static hazard checker on ours")
    args = ap.parse_args(argv)
    variants = dict(VARIANTS)
    for v in args.variant:
        name, _, flags = v.partition("=")
        variants[name] = [f for f in flags.split(",") if f]
    if args.only:
        variants = {k: v for k, v in variants.items() if k in args.only.split(",")}
    oracle = Oracle()
    rows: list[dict[str, Any]] = []
    for name, ptx, flags, specs in _inputs(args, oracle):
        if args.no_emu:
            specs = ()
        t0 = time.time()
        row: dict[str, Any] = {"file": name}
        try:
            pt = oracle.ptxas(ptx, "sm_90", flags, subject=name)
            regs = sum(f.registers for f in pt.functions if f.kind == "entry")
            row["ptxas"] = _figures(oracle, pt.cubin, regs, specs, name)
        except Exception as exc:
            row["ptxas"] = f"{type(exc).__name__}: {exc}"
        for vname, vflags in variants.items():
            got = _ours(ptx, [*flags, *vflags])
            if isinstance(got, str):
                row[vname] = got
                continue
            try:
                row[vname] = _figures(
                    oracle, got[0], got[1], specs, f"{name} {vname}", args.hazards
                )
            except Exception as exc:
                row[vname] = f"{type(exc).__name__}: {exc}"
        row["seconds"] = round(time.time() - t0, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    summarize(rows, list(variants), args.worst)
    return 0


def _ratio(a: Any, b: Any, m: str) -> float | None:
    if not isinstance(a, dict) or not isinstance(b, dict) or m not in a or m not in b:
        return None
    x, y = a[m], b[m]
    if not y or not x:
        return None
    return float(x) / float(y)


def summarize(rows: list[dict[str, Any]], variants: list[str], nworst: int) -> None:
    both = [r for r in rows if all(isinstance(r.get(k), dict) for k in ("ptxas", *variants))]
    print(f"\n{len(both)} of {len(rows)} files compiled by ptxas and every variant")
    print("geomean ours/ptxas  " + "  ".join(f"{m:>8}" for m in METRICS))
    for v in variants:
        cells = []
        for m in METRICS:
            rs = [x for r in both if (x := _ratio(r[v], r["ptxas"], m)) is not None]
            g = math.exp(sum(math.log(x) for x in rs) / len(rs)) if rs else None
            cells.append(f"{g:8.3f}" if g is not None else "     n/a")
        print(f"{v:<19}" + "  ".join(cells) + f"   (files: {len(both)})")
    for v in variants:
        hz = [r[v]["hazards"] for r in both if "hazards" in r[v]]
        if hz:
            print(f"static hazard reports on {v}'s cubins: {sum(hz)} ({len(hz)} files)")
    last = variants[-1]
    key = "cycles" if any("cycles" in r[last] for r in both) else "stall"
    ranked = sorted(both, key=lambda r: -(_ratio(r[last], r["ptxas"], key) or 0.0))
    print(f"\nworst {nworst} by {key} ({last}/ptxas):")
    for r in ranked[:nworst]:
        cells = ", ".join(
            f"{m} {r[last].get(m)}/{r['ptxas'].get(m)}" for m in METRICS if m in r[last]
        )
        print(f"  {r['file']}: {cells}")


if __name__ == "__main__":
    raise SystemExit(main())
