#!/usr/bin/env python3
"""The public corpus's dynamic-parallelism samples (cdp*: ptxas compiles them only with ``-c``)
through ``openptxas -c``: how many compile, and, for those with a launch here, nvlink with the
device runtime and the emulator's outputs and printf against ptxas -c + nvlink.

    python scripts/link_cdp_corpus.py     # compiled n/n; run and equal to ptxas+nvlink n/n

Needs ptxas and nvlink on PATH and the corpus ($OPENPTXAS_PUBLIC_CORPUS).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from link_probe import cudadevrt, nvlink, ours_c, ptxas_c  # noqa: E402

PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))
SAMPLES = PUBLIC / "build" / "sm_90" / "NVIDIA+cuda-samples" / "Samples" / "3_CUDA_Features"


def _i32(v: int) -> dict[str, object]:
    return {"kind": "scalar", "dtype": "i32", "init": v}


# launches for the samples whose kernel is self-contained (the others need host-built inputs)
LAUNCHES: dict[str, dict[str, object]] = {
    "cdpSimplePrint.cu.ptx": {
        "kernel": "_Z10cdp_kerneliiii",
        "grid": [2],
        "block": [2],
        "args": [_i32(3), _i32(0), _i32(0), _i32(-1)],
    },
    "cdpSimpleQuicksort.cu.ptx": {  # 128 values, a child grid per partition
        "kernel": "_Z20cdp_simple_quicksortPjiii",
        "grid": [1],
        "block": [1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 128, "init": "random", "role": "inout"},
            _i32(0),
            _i32(127),
            _i32(0),
        ],
    },
}


def main() -> int:
    from openptxas.emu.launch import launch

    files = sorted(SAMPLES.glob("cdp*/*.ptx"))
    if not files:
        print(f"no cdp samples under {SAMPLES}", file=sys.stderr)
        return 2
    compiled = ran = equal = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for f in files:
            ours = work / f"{f.stem}.ours.o"
            err = ours_c(f, ours)
            compiled += err is None
            line = f"{f.name:32} {'compiled' if err is None else 'refused: ' + err}"
            spec = LAUNCHES.get(f.name)
            if err is None and spec is not None:
                theirs = work / f"{f.stem}.ptxas.o"
                ptxas_c(f, theirs)
                got = []
                for name, obj in (("ref", theirs), ("ours", ours)):
                    cubin = work / f"{f.stem}.{name}.cubin"
                    link_err = nvlink([obj], cubin, cudadevrt())
                    if link_err is not None:
                        raise SystemExit(f"{f.name}: nvlink: {link_err}")
                    got.append(launch(cubin.read_bytes(), spec, hazards=True))
                ref, mine = got
                ran += 1
                same = (
                    mine.printf == ref.printf
                    and mine.child_grids == ref.child_grids
                    and not mine.hazards
                    and all((mine.outputs[k] == v).all() for k, v in ref.outputs.items())
                )
                equal += same
                line += (
                    f"; ran: {mine.child_grids} child grids, {len(mine.printf.splitlines())} "
                    f"printf lines, {'equal to' if same else 'DIFFERENT from'} ptxas+nvlink"
                )
            print(line)
    print(
        f"compiled by openptxas -c: {compiled}/{len(files)}; run in the emulator and equal to "
        f"ptxas+nvlink: {equal}/{ran}"
    )
    return 0 if equal == ran else 1


if __name__ == "__main__":
    sys.exit(main())
