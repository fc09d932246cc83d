"""Static instructions and the emulator's cycle estimate of openptxas's cubin against ptxas's,
for the tensor-core kernels of tests/kernels (issue 20: wgmma, fp8/b1/s4 mma.sync), with the
geometric means of the ratios (instructions per function, cycles per launch).

    python scripts/tensorcore_stats.py
    python scripts/tensorcore_stats.py --kernels t4/wgmma,t3/mma_fp8
"""

from __future__ import annotations

import argparse
import math

from openptxas.emu import run_launch
from openptxas.testing.corpus import discover
from openptxas.testing.oracle import Oracle, body_length, parse_nvdisasm
from tests.emu.harness import _cubin, compile_ours, emu_target

DEFAULT = (
    "t4/wgmma,t4/wgmma_layouts,t4/wgmma_swizzle,t4/triton_matmul_wgmma,t4/triton_matmul_kmajor,"
    "t3/mma_fp8,t3/mma_shapes"
)


def _geo(pairs: list[tuple[float, float]]) -> float:
    return math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default=DEFAULT)
    args = ap.parse_args()
    oracle = Oracle()
    wanted = args.kernels.split(",")
    instr: list[tuple[str, int, int]] = []
    cyc: list[tuple[str, float, float]] = []
    for ks in discover():
        target = emu_target(ks)
        if ks.name not in wanted or target is None:
            continue
        ours_bin, theirs_bin = compile_ours(ks, 3, oracle), _cubin(ks.name, target)
        ours = parse_nvdisasm(oracle.nvdisasm(ours_bin))
        theirs = parse_nvdisasm(oracle.nvdisasm(theirs_bin))
        for fn in sorted(set(ours) & set(theirs)):
            instr.append((f"{ks.name}:{fn}", body_length(ours[fn]), body_length(theirs[fn])))
        for spec in ks.specs:
            a = run_launch(ours_bin, spec).cycles
            b = run_launch(theirs_bin, spec).cycles
            cyc.append((f"{ks.name}:{spec.kernel}", a, b))
    print(f"{'function':55} {'instructions':>14} {'cycles (emulator)':>22}")
    c = {n: (a, b) for n, a, b in cyc}
    for name, a, b in instr:
        ca, cb = c.get(name, (0.0, 0.0))
        print(f"{name[:55]:55} {a:>6}/{b:<7} {ca:>10.0f}/{cb:<10.0f}")
    gi = _geo([(a, b) for _, a, b in instr])
    gc = _geo([(a, b) for _, a, b in cyc if a and b])
    print(f"{len(instr)} functions: geomean static instructions ours/ptxas {gi:.3f}")
    print(f"{len(cyc)} launches: geomean emulator cycles ours/ptxas {gc:.3f}")


if __name__ == "__main__":
    main()
