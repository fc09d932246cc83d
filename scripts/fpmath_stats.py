"""Static instructions and registers of openptxas's cubin against ptxas's, per function, for
tests/kernels kernels (default: the floating-point kernels issue 19's lowering unblocked), with
the geometric means of the ratios.

    python scripts/fpmath_stats.py
    python scripts/fpmath_stats.py --kernels t2/f64_arith,t2/half_sm90
"""

from __future__ import annotations

import argparse
import math

from openptxas.elf.inspect import summarize
from openptxas.elf.reader import read_cubin
from openptxas.testing.corpus import discover
from openptxas.testing.oracle import Oracle, body_length, parse_nvdisasm
from tests.emu.harness import _cubin, compile_ours, emu_target

DEFAULT = (
    "t2/bf16_convert,t2/f16_convert,t2/f64_arith,t2/f64_convert,t2/half_pack,t2/half_sm90,"
    "t3/fp8_convert,t4/triton_cast_fp8"
)


def stats(blob: bytes, oracle: Oracle) -> dict[str, tuple[int, int]]:
    sass = parse_nvdisasm(oracle.nvdisasm(blob))
    regs = {f.name: f.registers or 0 for f in summarize(read_cubin(blob)).functions}
    return {name: (body_length(ins), regs.get(name, 0)) for name, ins in sass.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default=DEFAULT)
    args = ap.parse_args()
    oracle = Oracle()
    wanted = args.kernels.split(",")
    rows = []
    for ks in discover():
        if ks.name not in wanted or emu_target(ks) is None:
            continue
        target = emu_target(ks)
        assert target is not None
        ours = stats(compile_ours(ks, 3, oracle), oracle)
        theirs = stats(_cubin(ks.name, target), oracle)
        for fn, (n, r) in sorted(theirs.items()):
            if fn in ours:
                rows.append((f"{ks.name}:{fn}", ours[fn][0], n, ours[fn][1], r))
    print(f"{'function':60} {'instr ours/ptxas':>18} {'regs ours/ptxas':>16}")
    for name, ni, ti, nr, tr in rows:
        print(f"{name[:60]:60} {ni:>8}/{ti:<9} {nr:>7}/{tr:<8}")
    gi = math.exp(sum(math.log(a / b) for _, a, b, _, _ in rows) / len(rows))
    gr = math.exp(sum(math.log(max(a, 1) / max(b, 1)) for _, _, _, a, b in rows) / len(rows))
    print(f"{len(rows)} functions; geomean instructions ours/ptxas {gi:.3f}, registers {gr:.3f}")
    worst = sorted(rows, key=lambda r: r[1] / r[2], reverse=True)[:3]
    print("worst instruction ratios: " + ", ".join(f"{w[0]} {w[1]}/{w[2]}" for w in worst))
    worst = sorted(rows, key=lambda r: max(r[3], 1) / max(r[4], 1), reverse=True)[:3]
    print("worst register ratios: " + ", ".join(f"{w[0]} {w[3]}/{w[4]}" for w in worst))


if __name__ == "__main__":
    main()
