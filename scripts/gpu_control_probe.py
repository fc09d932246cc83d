"""Which part of our cubins the hardware disagrees with: our cubin, with its control codes
rewritten several ways, against ptxas's cubin on a GPU.

Our cubins equal ptxas's in the emulator but not always on hardware. The emulator's hazard
checker and the compiler share one latency model, so a wrong latency or scoreboard rule cannot
show there. Each variant below changes one part of the control field of every instruction
(openptxas/isa/control.py) and leaves the instructions alone:

    orig      as compiled
    waitall   every instruction waits for all six scoreboards (scoreboard rules out of play)
    stall15   every stall count 15 (fixed latencies out of play), with the yield bit "Y"
    stall15n  every stall count 15, the yield bits left as they were
    noreuse   no operand-reuse flags
    safe      waitall + stall15 + noreuse: only the instructions themselves are left
    stallp2   every stall count 2 more (at most 15): latencies a little too short?
    yieldall  every yield bit "Y" (the warp may yield)

ptxas never writes a stall count of 12 or more (or 0) without the yield bit "Y" (bit 109 = 0):
54,209 such words in the 476 public-corpus cubins, none without it (our compiler keeps to that:
sched/control.py _set_yield). The first H100 run of this probe set stall 15 and left the bit
alone; "stall15" then differed where "stallp2" was right (12 files) and broke t1/stencil_1d,
which "orig" ran right: a combination ptxas avoids is not a "safe" one. Every variant now gives a
stall of 0 or of 12 and more the yield bit; "stall15n" keeps the old combination, to check that
on hardware.

If ``safe`` equals ptxas and ``orig`` does not, the control codes are wrong; if ``safe`` differs
too, an instruction or the ELF is.

    python scripts/gpu_control_probe.py prep OUT [--bench .cache/bench-gpu]
        [--public .cache/gpu-public --public-json public.json]
    python scripts/gpu_control_probe.py run OUT [--jobs 12] [--json R.json]   # on the GPU
        [--only-from bench_gpu.json]   # only the files that differed or failed there
    python scripts/gpu_control_probe.py report R.json
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

VARIANTS = ("orig", "waitall", "stall15", "stall15n", "noreuse", "safe", "stallp2", "yieldall")
_YIELD_OFF = 1 << 109  # set: the warp is kept (no yield)
_STALL = 0xF << 105
_WAIT = 0x3F << 116
_REUSE = 0xF << 122


def rewrite(blob: bytes, variant: str) -> bytes:
    """``blob`` with the control field of every instruction of every .text section changed."""
    from openptxas.elf.elffile import parse_elf

    if variant == "orig":
        return blob
    raw = parse_elf(blob)
    out = bytearray(blob)
    for i, sh in enumerate(raw.sections):
        if not raw.name_of(i).startswith(".text"):
            continue
        for off in range(sh.offset, sh.offset + sh.size, 16):
            w = int.from_bytes(out[off : off + 16], "little")
            if variant in ("waitall", "safe"):
                w |= _WAIT
            if variant in ("stall15", "stall15n", "safe"):
                w |= _STALL
            if variant in ("noreuse", "safe"):
                w &= ~_REUSE
            if variant == "stallp2":
                w = (w & ~_STALL) | min(15, (w >> 105 & 0xF) + 2) << 105
            stall = w >> 105 & 0xF
            if variant == "yieldall" or (variant != "stall15n" and (stall == 0 or stall >= 12)):
                w &= ~_YIELD_OFF
            out[off : off + 16] = w.to_bytes(16, "little")
    return bytes(out)


def _case(out: Path, name: str, ptxas: bytes, ours: bytes, specs: dict[str, Any]) -> None:
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "ptxas.cubin").write_bytes(ptxas)
    for v in VARIANTS:
        (d / f"ours.{v}.cubin").write_bytes(rewrite(ours, v))
    (d / "specs.json").write_text(json.dumps(specs))


def prep(out: Path, bench: Path | None, public: Path | None, public_json: Path | None) -> int:
    from bench.model import Results

    cases = []
    if bench:
        res = Results.load(bench / "results.json")
        for i, f in enumerate(res.files):
            if not (f.specs and f.ptxas.cubin and f.openptxas.cubin):
                continue
            doc = json.loads((REPO / f.specs).read_text())
            name = f"k{i:03d}"
            _case(out, name, (bench / f.ptxas.cubin).read_bytes(),
                  (bench / f.openptxas.cubin).read_bytes(),
                  {"file": f.name, "specs": doc.get("kernels", doc)})  # fmt: skip
            cases.append(name)
    if public and public_json:
        # one case per file (its cubins are shared by its kernels): the kernels that differed
        # or failed, and those that were the same as controls
        man = {e["file"]: e for e in json.loads((public / "manifest.json").read_text())}
        by_file: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for r in json.loads(public_json.read_text()):
            if r["status"] in ("DIFF", "ours-error", "same"):
                by_file[r["file"]].append(
                    {"kernel": r["kernel"], "variant": r["variant"], "was": r["status"]}
                )
        for j, (file, ks) in enumerate(sorted(by_file.items())):
            d = public / man[file]["dir"]
            name = f"p{j:03d}"
            _case(out, name, (d / "ptxas.cubin").read_bytes(), (d / "ours.cubin").read_bytes(),
                  {"file": file, "derived": ks})  # fmt: skip
            shutil.copy(d / "in.ptx", out / name / "in.ptx")
            cases.append(name)
    (out / "cases.json").write_text(json.dumps(cases))
    print(f"{len(cases)} cases, {len(VARIANTS)} variants each, in {out}")
    return 0


_CHILD = r"""
import json, sys
import numpy as np
from pathlib import Path
from openptxas.testing.derived_launch import buffer_bytes, case_specs
from tests.gpu.runner import Driver, run_on_gpu

d, variant = Path(sys.argv[1]), sys.argv[2]
specs = case_specs(str(d))
drv = Driver()
res = []
words = buffer_bytes
for spec in specs:
    try:
        _, a = run_on_gpu(drv, (d / "ptxas.cubin").read_bytes(), spec)
    except Exception as exc:
        res.append({"kernel": spec["kernel"], "status": "ptxas-error", "detail": str(exc)[:120]})
        break
    try:
        _, b = run_on_gpu(drv, (d / f"ours.{variant}.cubin").read_bytes(), spec)
    except Exception as exc:
        res.append({"kernel": spec["kernel"], "status": "error", "detail": str(exc)[:120]})
        break
    wa, wb = words(a, spec), words(b, spec)
    bad = sum(int(np.count_nonzero(x != y)) for x, y in zip(wa, wb))
    res.append({"kernel": spec["kernel"], "status": "same" if not bad else "DIFF", "bytes": bad})
print("RESULT " + json.dumps(res), flush=True)
"""


def _one(d: Path, variant: str, timeout: float) -> list[dict[str, Any]]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    try:
        r = subprocess.run([sys.executable, "-c", _CHILD, str(d), variant], capture_output=True,
                           text=True, timeout=timeout, env=env, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return [{"kernel": "*", "status": "timeout"}]
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines:
        return [{"kernel": "*", "status": "crash", "detail": r.stderr.strip()[-200:]}]
    got: list[dict[str, Any]] = json.loads(lines[-1][7:])
    return got


def _failing_files(bench_gpu: Path) -> set[str]:
    """The files of a ``python -m bench.gpu`` JSON where our cubin differed from ptxas's or
    failed while ptxas's ran."""
    recs = json.loads(bench_gpu.read_text())["launches"]
    ran = {(r["file"], r["kernel"]) for r in recs if r["side"] == "ptxas" and not r["error"]}
    return {
        r["file"]
        for r in recs
        if r["side"] == "openptxas"
        and (r["file"], r["kernel"]) in ran
        and (r["matches_ptxas"] is False or r["error"])
    }


def run(src: Path, jobs: int, timeout: float, json_out: str | None,
        only_from: Path | None = None) -> int:  # fmt: skip
    cases = json.loads((src / "cases.json").read_text())
    if only_from is not None:
        bad = _failing_files(only_from)
        cases = [
            c for c in cases if json.loads((src / c / "specs.json").read_text())["file"] in bad
        ]
        print(f"{len(cases)} cases whose files differed or failed in {only_from}", flush=True)
    work = [(c, v) for c in cases for v in VARIANTS]
    out: dict[str, dict[str, Any]] = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for (c, v), recs in zip(work, pool.map(lambda w: _one(src / w[0], w[1], timeout), work),
                                strict=True):  # fmt: skip
            doc = json.loads((src / c / "specs.json").read_text())
            o = out.setdefault(c, {"file": doc["file"]})
            o[v] = recs
            if json_out and len(out) % 20 == 0:
                Path(json_out).write_text(json.dumps(out, indent=1))
    if json_out:
        Path(json_out).write_text(json.dumps(out, indent=1))
    return report(out)


def _verdict(recs: list[dict[str, Any]]) -> str:
    st = {r["status"] for r in recs}
    for s in ("ptxas-error", "timeout", "crash", "error", "DIFF"):
        if s in st:
            return s
    return "same"


def report(out: dict[str, dict[str, Any]]) -> int:
    table: collections.Counter[tuple[str, ...]] = collections.Counter()
    for c, o in sorted(out.items()):
        row = tuple(_verdict(o.get(v, [])) for v in VARIANTS)
        table[row] += 1
        if row[0] != "same":
            cells = " ".join(f"{v}={s}" for v, s in zip(VARIANTS, row, strict=True))
            print(f"{c} {o['file']}: {cells}")
    print("cases by verdicts (" + ", ".join(VARIANTS) + "):")
    for row, n in table.most_common():
        print(f"  {n:4d}  " + " ".join(f"{s:11s}" for s in row))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep")
    p.add_argument("out")
    p.add_argument("--bench", help="a `python -m bench run` directory (own kernels)")
    p.add_argument("--public", help="a gpu_public_diff.py prep directory")
    p.add_argument("--public-json", help="gpu_public_diff.py run --json: its cases")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--jobs", type=int, default=12)
    r.add_argument("--timeout", type=float, default=30.0)
    r.add_argument("--json")
    r.add_argument(
        "--only-from", help="a bench.gpu JSON: only the files that differed or failed there"
    )
    q = sub.add_parser("report")
    q.add_argument("json")
    args = ap.parse_args(argv)
    if args.cmd == "prep":
        return prep(
            Path(args.out),
            Path(args.bench) if args.bench else None,
            Path(args.public) if args.public else None,
            Path(args.public_json) if args.public_json else None,
        )
    if args.cmd == "run":
        only = Path(args.only_from) if args.only_from else None
        return run(Path(args.dir), args.jobs, args.timeout, args.json, only)
    return report(json.loads(Path(args.json).read_text()))


if __name__ == "__main__":
    sys.exit(main())
