"""The public corpus on a real GPU: openptxas's cubin against ptxas's, on derived launches.

scripts/public_diff.py runs both cubins of every public-corpus kernel in the emulator; this is
the same comparison on hardware, where no kernel is too slow to run (the emulator gives up on
some after minutes) and the emulator itself is not trusted. The launches are the same derived
ones (openptxas/testing/derived_launch.py).

    python scripts/gpu_public_diff.py prep DIR [--compiled-only SWEEP.json] [--jobs 2]
        # here: compile every file with openptxas, copy ptxas's cubin and the PTX into DIR
    python scripts/gpu_public_diff.py run DIR [--jobs 8] [--json OUT.json]
        # on the GPU machine (tests/gpu/runner.py talks to the driver)

``run`` launches a file's kernels in one process, which ends after a CUDA error (a faulting
kernel leaves a sticky one) and the next goes on after it; a launch that never ends is killed
after ``--timeout`` seconds. ptxas's cubin runs
twice: where its two results differ (atomics racing between CTAs, clocks) the launch is
``nondet`` and ours is compared only on the words both of ptxas's runs agree on. Results:
``same``, ``DIFF`` (reduce it: a miscompile, unless the emulator run in public_diff.py says
DIFF-undef), ``DIFF-clock``, ``ours-error`` (a CUDA error with our cubin only), ``no-launch``
(neither derived launch ran ptxas's cubin), ``timeout``, ``ours-missing`` (openptxas did not
compile the file).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", REPO / ".cache" / "public-corpus"))


def _compile(src: Path, dst: Path, timeout: float) -> str:
    cmd = [sys.executable, "-m", "openptxas", "-arch=sm_90", str(src), "-o", str(dst)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                           env=dict(os.environ, PYTHONPATH=str(REPO)))  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"timeout after {timeout:.0f} s"
    return "ok" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[-1][:200]


def prep(out: Path, compiled_only: str | None, jobs: int, timeout: float) -> int:
    from openptxas.ptx.parser import parse
    from openptxas.testing.derived_launch import clocked, launch_shape

    root = PUBLIC / "build" / "sm_90"
    files = sorted(root.rglob("*.ptx"))
    if compiled_only:
        ok = {r["file"] for r in json.loads(Path(compiled_only).read_text()) if r["status"] == "OK"}
        files = [f for f in files if str(f.relative_to(root)) in ok]
    files = [f for f in files if f.with_suffix(".cubin").exists()]
    out.mkdir(parents=True, exist_ok=True)
    entries: list[dict[str, Any]] = []
    for i, f in enumerate(files):
        d = out / f"f{i:03d}"
        d.mkdir(exist_ok=True)
        text = f.read_text(errors="replace")
        (d / "in.ptx").write_text(text)
        (d / "ptxas.cubin").write_bytes(f.with_suffix(".cubin").read_bytes())
        try:
            shapes = {k.name: launch_shape(k, text) for k in parse(text, str(f)).entries}
        except Exception as exc:  # a file our parser refuses is reported, not fatal
            shapes = {}
            print(f"parse: {f}: {exc}")
        kernels = list(shapes)
        (d / "launch.json").write_text(json.dumps({"clocked": clocked(text), "kernels": shapes}))
        entries.append({"dir": d.name, "file": str(f.relative_to(root)), "kernels": kernels})
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futs = {
            pool.submit(
                _compile, out / e["dir"] / "in.ptx", out / e["dir"] / "ours.cubin", timeout
            ): e
            for e in entries
        }
        for n, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            e = futs[fut]
            e["ours"] = fut.result()
            print(f"[{n}/{len(entries)} {time.time() - t0:.0f} s] {e['ours'][:60]:12s} {e['file']}",
                  flush=True)  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(entries, indent=1))
    ok_n = sum(e["ours"] == "ok" for e in entries)
    print(f"{ok_n}/{len(entries)} files compiled by openptxas into {out}")
    return 0


_CHILD = r"""
import json, sys
import numpy as np
from pathlib import Path
from openptxas.testing.derived_launch import spec_from_shape

d, todo, emulate = Path(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3] == "1"
if emulate:  # a dry run of this script without a GPU: the emulator stands in for it
    from openptxas.emu import run_launch

    class Driver:
        pass

    def run_on_gpu(drv, cubin, spec):
        return spec, run_launch(cubin, spec).args
else:
    from tests.gpu.runner import Driver, NoGpu, run_on_gpu
info = json.loads((d / "launch.json").read_text())  # written by prep: no PTX parse here
theirs, ours = (d / "ptxas.cubin").read_bytes(), (d / "ours.cubin").read_bytes()

def out(kernel, variant, last=False, **kw):
    # one line per launch; after a CUDA error the context is spoiled: the parent starts a new
    # process for the launches left
    print("\nRESULT " + json.dumps(dict(kw, kernel=kernel, variant=variant, last=last)),
          flush=True)
    if last:
        sys.exit(0)

try:
    drv = Driver()
except NoGpu as exc:
    out(*todo[0], last=True, status="no-gpu", detail=str(exc)[:200])
for kernel, variant in todo:
    spec = spec_from_shape(info["kernels"][kernel], variant)
    bufs = [i for i, a in enumerate(spec["args"]) if a["kind"] == "buffer"]
    words = lambda res: {i: np.asarray(res[1][i]).view(np.uint32) for i in bufs}
    try:
        ref1 = words(run_on_gpu(drv, theirs, spec))
        ref2 = words(run_on_gpu(drv, theirs, spec))
    except Exception as exc:
        out(kernel, variant, True, status="no-launch",
            detail=f"{type(exc).__name__}: {str(exc)[:160]}")
    try:
        got = words(run_on_gpu(drv, ours, spec))
    except Exception as exc:
        out(kernel, variant, True, status="ours-error",
            detail=f"{type(exc).__name__}: {str(exc)[:200]}")
    diffs, unstable = [], 0
    for i in bufs:
        stable = ref1[i] == ref2[i]
        unstable += int(np.count_nonzero(~stable))
        bad = np.nonzero(stable & (ref1[i] != got[i]))[0]
        if len(bad):
            k = int(bad[0])
            diffs.append(f"arg {i}: {len(bad)} words differ, first at word {k}: "
                         f"ptxas {int(ref1[i][k]):#010x} ours {int(got[i][k]):#010x}")
    init = spec["args"]
    written = sum(int(np.count_nonzero(
        ref1[i] != np.frombuffer(bytes.fromhex(init[i]["init"]["hex"]), np.uint32)))
        for i in bufs)
    if diffs:
        status = "DIFF-clock" if info["clocked"] else "DIFF"
    else:
        status = "nondet" if unstable else "same"
    out(kernel, variant, status=status, detail="; ".join(diffs)[:400], unstable=unstable,
        written=written)
"""


def _file(d: Path, kernels: list[str], timeout: float, emulate: bool) -> list[dict[str, Any]]:
    """Every kernel of one file, in as few processes as its faults allow: a process runs the
    launches in turn and ends after a CUDA error (a spoiled context), the next one goes on
    after it; a launch with no result within ``timeout`` seconds is a ``timeout``. A kernel
    that ptxas's cubin does not run with float inputs is tried with small integers."""
    import select

    env = dict(os.environ, PYTHONPATH=str(REPO))
    todo: list[list[str]] = [[k, "float"] for k in kernels]
    recs: dict[str, dict[str, Any]] = {}
    while todo:
        cmd = [sys.executable, "-c", _CHILD, str(d), json.dumps(todo), str(int(emulate))]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)  # fmt: skip
        assert p.stdout is not None and p.stderr is not None
        deadline = time.time() + timeout
        while todo:
            ready, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.time()))
            if not ready:  # the launch in flight hangs: it is a timeout, the rest goes on
                p.kill()
                k, v = todo.pop(0)
                recs[k] = {"status": "timeout", "detail": f"more than {timeout:.0f} s",
                           "variant": v}  # fmt: skip
                break
            line = p.stdout.readline()
            if not line:  # the process ended without a result for the launch in flight
                err = p.stderr.read().strip()[-300:]
                p.wait()
                k, v = todo.pop(0)
                recs[k] = {"status": "error", "detail": err, "variant": v}
                break
            if not line.startswith("RESULT "):
                continue
            rec = json.loads(line[7:])
            k, v = todo.pop(0)
            assert rec.pop("kernel") == k, "the child runs the launches in order"
            last = rec.pop("last")
            recs[k] = rec
            if rec["status"] == "no-gpu":
                return [dict(rec, kernel=k)]
            if rec["status"] == "no-launch" and v == "float":
                todo.insert(0, [k, "int"])
            if last:  # the process ends (a spoiled context): the next one goes on
                break
            deadline = time.time() + timeout
        p.kill()
        p.wait()
    return [dict(recs[k], kernel=k) for k in kernels]


def run(
    src: Path, jobs: int, timeout: float, json_out: str | None, emulate: bool, only: str | None
) -> int:
    entries = json.loads((src / "manifest.json").read_text())
    if only:
        entries = [e for e in entries if only in e["file"]]
    # the files with the most kernels first: the pool's last tasks are short ones
    entries.sort(key=lambda e: -len(e["kernels"]))
    records: list[dict[str, Any]] = []
    counts: collections.Counter[str] = collections.Counter()
    t0 = time.time()

    def task(e: dict[str, Any]) -> list[dict[str, Any]]:
        if e.get("ours") != "ok":
            return [{"status": "ours-missing", "detail": e.get("ours", ""), "kernel": k}
                    for k in e["kernels"]]  # fmt: skip
        return _file(src / e["dir"], e["kernels"], timeout, emulate)

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futs = {pool.submit(task, e): e for e in entries}
        for fut in concurrent.futures.as_completed(futs):
            e = futs[fut]
            for rec in fut.result():
                rec["file"] = e["file"]
                records.append(rec)
                counts[rec["status"]] += 1
                if rec["status"] == "no-gpu":
                    print(f"no GPU: {rec['detail']}")
                    return 3
                if rec["status"] not in ("same", "nondet", "ours-missing"):
                    print(f"{rec['status']:10s} {e['file']} {rec['kernel']}: "
                          f"{rec.get('detail', '')}", flush=True)  # fmt: skip
            if json_out:  # partial results survive a killed run
                Path(json_out).write_text(json.dumps(records, indent=1))
    print(
        f"{len(records)} kernels in {len(entries)} files, {time.time() - t0:.0f} s: "
        + ", ".join(f"{k} {v}" for k, v in counts.most_common())
    )
    if json_out:
        Path(json_out).write_text(json.dumps(records, indent=1))
    return 1 if counts["DIFF"] or counts["ours-error"] else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep")
    p.add_argument("dir")
    p.add_argument("--compiled-only", help="a compile_sweep.py --json file: only its OK files")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per compile")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--jobs", type=int, default=8)
    r.add_argument("--timeout", type=float, default=30.0, help="seconds per launch process")
    r.add_argument("--json")
    r.add_argument("--kernels", help="only kernels whose file path contains this string")
    r.add_argument(
        "--emulate", action="store_true", help="a dry run: the emulator stands in for the GPU"
    )
    args = ap.parse_args(argv)
    if args.cmd == "prep":
        return prep(Path(args.dir), args.compiled_only, args.jobs, args.timeout)
    return run(Path(args.dir), args.jobs, args.timeout, args.json, args.emulate, args.kernels)


if __name__ == "__main__":
    sys.exit(main())
