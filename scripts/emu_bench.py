#!/usr/bin/env python3
"""Emulator speed: warp-instructions executed per second.

Builds tests/emu/data/bench_loop.ptx with ptxas (sm_90), then runs it in the emulator on grids
of increasing size and prints warp-instructions, wall time and the rate. A second figure runs the
whole supported kernel corpus and reports its aggregate rate (small launches: load and binding
time dominate there).

    python scripts/emu_bench.py [--ctas 16,64,256] [--corpus] [--hazards] [--text]

Calls nvcc and ptxas through the oracle harness; the SASS is decoded by the ISA tables (or, with
--text, from nvdisasm's listing).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from openptxas.diag import OpenPtxasError  # noqa: E402
from openptxas.emu.launch import launch  # noqa: E402
from openptxas.spec import parse_spec  # noqa: E402
from openptxas.testing.oracle import Oracle  # noqa: E402
from tests.emu.harness import corpus_cases, run_case, text_decoder_for  # noqa: E402

PTX = REPO / "tests/emu/data/bench_loop.ptx"


def bench_loop(ctas: int, hazards: bool, text: bool) -> tuple[int, float]:
    o = Oracle()
    res = o.ptxas(PTX.read_text(), "sm_90", [])
    n = ctas * 256
    spec = parse_spec(
        {
            "kernel": "bench_loop",
            "grid": [ctas],
            "block": [256],
            "args": [
                {"kind": "buffer", "dtype": "u32", "count": n + 65536, "role": "out"},
                {"kind": "buffer", "dtype": "f32", "count": max(n, 1), "init": "random"},
                {"kind": "scalar", "dtype": "u32", "init": 64},
            ],
        }
    )
    # decoded by the ISA tables, or (--text) from nvdisasm's listing of the same cubin
    dec = text_decoder_for(res.cubin) if text else None
    r = launch(res.cubin, spec, hazards=hazards, decoder=dec)
    return r.warp_instructions, r.run_seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--ctas", default="16,64,256")
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("--hazards", action="store_true")
    ap.add_argument("--text", action="store_true", help="decode with nvdisasm instead of the ISA")
    args = ap.parse_args()
    print("seconds: execution alone (loading, decoding and checking results not included)")
    print(f"{'launch':28s} {'warp-instr':>12s} {'seconds':>9s} {'warp-instr/s':>14s}")
    for c in (int(x) for x in args.ctas.split(",")):
        wi, s = bench_loop(c, args.hazards, args.text)
        print(f"{f'bench_loop {c}x256':28s} {wi:12d} {s:9.3f} {wi / s:14,.0f}")
    if args.corpus:
        tot_wi = 0
        run_s = 0.0
        t0 = time.perf_counter()
        n = 0
        for case in corpus_cases():
            try:
                r = run_case(case, decoder="text" if args.text else "isa", hazards=args.hazards)
            except OpenPtxasError:
                continue
            n += 1
            tot_wi += r.warp_instructions
            run_s += r.run_seconds
        s = time.perf_counter() - t0
        print(f"{f'corpus ({n} launches)':28s} {tot_wi:12d} {run_s:9.3f} {tot_wi / run_s:14,.0f}")
        print(f"corpus wall time, loading and decoding included: {s:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
