"""Every tests/kernels kernel through openptxas: does it compile, and does our cubin compute what
ptxas's cubin computes?

For each kernel (its sm_90 flavour, sm_90a for T4) and each -O level asked for, openptxas compiles
the PTX nvcc made (with the kernel's own ptxas flags, as the oracle gives them to ptxas); every
launch spec of the kernel then runs in the emulator twice: our cubin with the hazard checker on,
ptxas's cubin as the oracle. A launch is ``equal`` when every output buffer (and printf text) of
ours is bit for bit the same as ptxas's; it is also checked against the kernel's numpy reference.

    python scripts/e2e_sweep.py                      # every tier, -O3
    python scripts/e2e_sweep.py --opt 3,0 --tiers t1,t2 -v
    python scripts/e2e_sweep.py --json /tmp/e2e.json

Prints: kernels compiled / total (with the first diagnostic line of each refusal, grouped),
launches equal / run, and each launch that differs (from ptxas, from the reference, or with a
hazard report). This is the figure behind issue 16's "every own kernel with a launch: our
cubin's output = ptxas's cubin's output"; tests/compiler/test_e2e.py runs a sample in CI.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from openptxas.diag import OpenPtxasError  # noqa: E402
from openptxas.testing.corpus import discover  # noqa: E402
from openptxas.testing.oracle import Oracle  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiers", default="t1,t2,t3,t4")
    ap.add_argument("--opt", default="3", help="openptxas -O levels, e.g. 3,0")
    ap.add_argument("--kernels", default="", help="substring filter on kernel names")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument(
        "--target", help="compile for this target (default: each kernel's sm_90 flavour)"
    )
    ap.add_argument(
        "--nvdisasm",
        action="store_true",
        help="also check that nvdisasm reads each cubin of ours as our own decoder does",
    )
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    from openptxas.emu import run_launch
    from tests.emu.harness import Case, check_case, compile_ours, differences, emu_target

    oracle = Oracle()
    tiers = tuple(args.tiers.split(","))
    opts = [int(o) for o in args.opt.split(",")]
    kernels = [k for k in discover(tiers=tiers) if args.kernels in k.name]
    t0 = time.time()
    refused: dict[str, list[str]] = collections.defaultdict(list)
    compiled = total = 0
    launches = equal = ref_ok = 0
    bad: list[str] = []
    unsupported: list[str] = []
    records: list[dict[str, Any]] = []
    for ks in kernels:
        target = args.target or emu_target(ks)
        if target is None or not ks.compiles_for(target):
            continue
        for opt in opts:
            total += 1
            name = f"{ks.name} -O{opt}"
            try:
                cubin = compile_ours(ks, opt, oracle, target)
            except OpenPtxasError as exc:
                line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                key = line.split(":", 1)[-1].strip() if "error" in line else line
                refused[key].append(name)
                records.append({"kernel": name, "status": "refused", "message": line})
                continue
            except Exception as exc:  # a traceback instead of a diagnostic: a finding
                msg = f"{name}: internal error {type(exc).__name__}: {exc}"
                bad.append(msg)
                records.append({"kernel": name, "status": "internal", "message": msg})
                continue
            compiled += 1
            if args.nvdisasm:
                from openptxas.testing.sass_check import compare_cubin

                try:
                    res = compare_cubin(cubin, oracle.nvdisasm(cubin, f"{name} [{target}]"))
                    problems = res.problems or (
                        []
                        if res.instructions == res.decoded == res.bit_exact == res.same_text > 0
                        else [f"{res}"]
                    )
                except Exception as exc:  # nvdisasm rejects the cubin
                    problems = [f"nvdisasm: {str(exc).strip().splitlines()[0]}"]
                if problems:
                    bad.append(f"{name}: nvdisasm: {'; '.join(problems[:3])}")
                    records.append({"kernel": name, "status": "nvdisasm", "message": problems[:3]})
            for spec in ks.specs:
                case = Case(ks, target, spec)
                lid = f"{name}:{spec.kernel}"
                try:
                    theirs = run_launch(case.cubin(), spec)
                except Exception as exc:  # the oracle cannot run ptxas's code: not our finding
                    unsupported.append(f"{lid}: ptxas's cubin: {str(exc).splitlines()[0]}")
                    continue
                launches += 1
                rec: dict[str, Any] = {"kernel": lid, "status": "ok"}
                try:
                    ours = run_launch(cubin, spec, hazards=True)
                except Exception as exc:
                    msg = f"{lid}: our cubin fails in the emulator: {str(exc).splitlines()[0]}"
                    bad.append(msg)
                    records.append({"kernel": lid, "status": "fault", "message": msg})
                    continue
                diffs = differences(ours, theirs)
                ref = check_case(case, ours)
                haz = [str(h) for h in ours.hazards[:3]]
                equal += not diffs
                ref_ok += not ref
                if diffs or ref or haz:
                    rec = {
                        "kernel": lid,
                        "status": "differs",
                        "ptxas": diffs,
                        "ref": ref[:3],
                        "hazards": haz,
                    }
                    bad.append(f"{lid}: {'; '.join(diffs + ref[:2] + haz)}")
                records.append(rec)
            if args.verbose:
                print(f"{name}: compiled", flush=True)
    print(f"kernels compiled: {compiled} of {total} (kernel x -O level)")
    for msg, names in sorted(refused.items(), key=lambda kv: -len(kv[1])):
        shown = ", ".join(names[:4]) + (f", ... ({len(names)})" if len(names) > 4 else "")
        print(f"  refused {len(names):3d}: {msg[:100]}  [{shown}]")
    print(
        f"launches run: {launches}; equal to ptxas's output bit for bit: {equal}; "
        f"= numpy reference: {ref_ok}"
    )
    for line in bad:
        print(f"  DIFFERS {line}")
    for line in unsupported:
        print(f"  not run (emulator) {line}")
    print(f"time: {time.time() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
