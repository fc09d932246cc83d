#!/usr/bin/env python3
"""Relocatable output (``-c``) against nvlink 13.0: compile each multi-file case of
scripts/link_cases/ with ``ptxas -c`` and ``openptxas -c``, link with ``nvlink -arch=sm_90``
(all ptxas objects: the reference; all openptxas objects; and each file's openptxas object with
ptxas's others), run every linked cubin in the emulator (hazard checker on) and compare its
outputs and printf lines with the reference's (a combination counts as equal only without
hazards).

    python scripts/link_probe.py                 # every case: n/n linked, n/n equal
    python scripts/link_probe.py --show CASE     # ptxas's -c objects: relocations, symbols, SASS

A case is a folder of PTX files plus ``spec.json`` (a launch spec, or ``{"kernels": [...]}``
for several launches: docs/launch-spec.md; ``"cudadevrt": true`` links the device runtime,
for device-side launches).
Needs ptxas and nvlink on PATH (and nvdisasm/readelf for --show).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "scripts" / "link_cases"
NVDISASM = Path(
    "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm"
)


def ptxas_c(src: Path, out: Path) -> None:
    subprocess.run(["ptxas", "-arch=sm_90", "-c", str(src), "-o", str(out)], check=True)


def ours_c(src: Path, out: Path) -> str | None:
    """Compile with openptxas -c; the diagnostic when it refuses."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(
        [sys.executable, "-m", "openptxas", "-arch=sm_90", "-c", str(src), "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
    )
    return None if p.returncode == 0 else (p.stderr.strip().splitlines() or ["?"])[0]


def cudadevrt() -> list[str]:
    """nvlink's arguments for the device runtime (libcudadevrt.a of a CUDA installation)."""
    tops = [Path(shutil.which("nvlink") or "nvlink").resolve().parent.parent]
    tops += sorted(Path("/usr/local").glob("cuda*"))
    for top in tops:
        for d in (top / "lib64", top / "lib", top / "targets" / "x86_64-linux" / "lib"):
            if (d / "libcudadevrt.a").exists():
                return [f"-L{d}", "-lcudadevrt"]
    raise SystemExit("libcudadevrt.a not found")


def nvlink(objs: list[Path], out: Path, libs: list[str] | None = None) -> str | None:
    p = subprocess.run(
        ["nvlink", "-arch=sm_90", *(libs or []), "-o", str(out), *map(str, objs)],
        capture_output=True,
        text=True,
    )
    return None if p.returncode == 0 else p.stderr.strip()


def run(cubin: Path, spec: dict[str, object]) -> tuple[list[np.ndarray], str, int]:
    """Outputs, printf text and hazard count of each launch of the spec (``{"kernels": [...]}``:
    one launch per kernel, each on fresh memory), concatenated."""
    from openptxas.emu import run_launch

    specs = spec.get("kernels", [spec])
    assert isinstance(specs, list)
    outs: list[np.ndarray] = []
    text, hazards = "", 0
    for one in specs:
        r = run_launch(cubin.read_bytes(), one, hazards=True)
        outs += [r.outputs[k] for k in sorted(r.outputs)]  # (a dict: by argument position)
        text += r.printf
        hazards += len(r.hazards)
    return outs, text, hazards


def check_case(case: Path, work: Path) -> list[dict[str, object]]:
    """Every combination of the case: name, linked, equal (to ptxas+nvlink), why not."""
    spec = json.loads((case / "spec.json").read_text())
    # device-side launches: linked with the device runtime (the spec's "cudadevrt")
    libs = cudadevrt() if spec.pop("cudadevrt", False) else []
    files = sorted(case.glob("*.ptx"))
    theirs: dict[str, Path] = {}
    ours: dict[str, Path | str] = {}
    for f in files:
        theirs[f.stem] = work / f"{case.name}.{f.stem}.ptxas.o"
        ptxas_c(f, theirs[f.stem])
        o = work / f"{case.name}.{f.stem}.ours.o"
        err = ours_c(f, o)
        ours[f.stem] = o if err is None else err
    combos: dict[str, dict[str, Path | str]] = {"ours": dict(ours)}
    if len(files) > 1:
        for f in files:
            combos[f"ours:{f.stem}"] = {
                g.stem: ours[g.stem] if g == f else theirs[g.stem] for g in files
            }
    ref_cubin = work / f"{case.name}.ref.cubin"
    err = nvlink(list(theirs.values()), ref_cubin, libs)
    if err is not None:
        raise SystemExit(f"{case.name}: nvlink of ptxas's objects failed: {err}")
    ref = run(ref_cubin, spec)
    rows: list[dict[str, object]] = []
    for name, objs in combos.items():
        row: dict[str, object] = {"case": case.name, "combo": name, "linked": False, "equal": False}
        refused = [v for v in objs.values() if isinstance(v, str)]
        if refused:
            row["why"] = f"refused: {refused[0]}"
            rows.append(row)
            continue
        cubin = work / f"{case.name}.{name.replace(':', '_')}.cubin"
        err = nvlink([Path(v) for v in objs.values()], cubin, libs)
        if err is not None:
            row["why"] = f"nvlink: {err}"
            rows.append(row)
            continue
        row["linked"] = True
        try:
            got = run(cubin, spec)
        except Exception as exc:  # the emulator's report is the finding
            row["why"] = f"emulator: {exc}"
            rows.append(row)
            continue
        same = len(got[0]) == len(ref[0]) and all(
            np.array_equal(a, b) for a, b in zip(got[0], ref[0], strict=True)
        )
        row["hazards"] = got[2]
        row["equal"] = same and got[1] == ref[1] and got[2] == 0
        if not row["equal"]:
            row["why"] = (
                "outputs differ"
                if not same
                else "printf differs"
                if got[1] != ref[1]
                else f"{got[2]} hazards"
            )
        rows.append(row)
    return rows


def show(case: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for f in sorted(case.glob("*.ptx")):
            o = Path(tmp) / f"{f.stem}.o"
            ptxas_c(f, o)
            print(f"==== {f.name}: ptxas -arch=sm_90 -c")
            subprocess.run(["readelf", "-SsrW", str(o)], check=False)
            subprocess.run([str(NVDISASM), "-c", str(o)], check=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--show", metavar="CASE", help="print ptxas's -c objects of a case")
    ap.add_argument("--json", action="store_true", help="one JSON row per combination")
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    args = ap.parse_args()
    if args.show:
        show(CASES / args.show)
        return 0
    if shutil.which("nvlink") is None or shutil.which("ptxas") is None:
        print("ptxas and nvlink must be on PATH", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    names = args.cases or sorted(p.name for p in CASES.iterdir() if p.is_dir())
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            rows += check_case(CASES / n, Path(tmp))
    for r in rows:
        if args.json:
            print(json.dumps(r))
        else:
            mark = "ok " if r["equal"] else "-- "
            extra = f"  ({r['why']})" if "why" in r else f"  hazards {r.get('hazards', 0)}"
            print(f"{mark}{r['case']:14} {r['combo']:10}{extra}")
    linked = sum(1 for r in rows if r["linked"])
    equal = sum(1 for r in rows if r["equal"])
    refused = sum(1 for r in rows if str(r.get("why", "")).startswith("refused"))
    print(
        f"linked by nvlink: {linked}/{len(rows)}; emulator outputs equal to ptxas+nvlink: "
        f"{equal}/{len(rows)}; refused by openptxas -c (a diagnostic, no object): {refused}"
    )
    return 0 if equal + refused == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
