"""Differential runs on the public corpus: openptxas's cubin against ptxas's, in the emulator.

The corpus (code written outside this repository, scripts/public_corpus.py) has no launch specs,
so this script derives launches: every 64-bit parameter is taken for a pointer to a buffer of
its own, 32-bit integer parameters get a small count, float parameters a plain value, other
parameters zero bytes. Several input variants are tried in turn (normal floats, small integers);
a launch counts when ptxas's cubin runs it without an emulator error in the time limit. Then
openptxas's cubin runs the same launch (with the hazard checker) and every buffer and the printf
text must be equal bit for bit. A derived launch can exercise little of a kernel (a guard that
returns early); the figures say how many instructions ran.

    python scripts/public_diff.py                           # every sm_90 file openptxas compiles
    python scripts/public_diff.py --grep div.rn.f32 --json /tmp/diff.json
    python scripts/public_diff.py --file PATH --kernel NAME -v   # one kernel, with details
    python scripts/public_diff.py --target sm_80    # the corpus retargeted (corpus_retarget.py)

Results: ``same`` (equal outputs), ``DIFF`` (a miscompile, or an emulator bug: reduce it),
``DIFF-clock`` (a kernel that reads %clock/%globaltimer: times differ with the code, expected),
``DIFF-undef`` (an output depends on a read PTX leaves undefined, e.g. a shuffle from a lane that
is not executing it: each compilation's value differs, not a miscompile),
``HAZARD`` (our code has a hazard), ``ours-error`` (our cubin failed where ptxas's ran),
``no-launch`` (no derived launch ran ptxas's cubin), ``refused`` (openptxas refused the file).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", REPO / ".cache" / "public-corpus"))
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from openptxas.testing.derived_launch import COUNT, WORDS, child_result  # noqa: E402

_CHILD = r"""
import json, sys, time
import numpy as np
from openptxas.diag import OpenPtxasError
from openptxas.driver import compile_ptx
from openptxas.emu import run_launch
from openptxas.options import Options
from openptxas.ptx.parser import parse
from openptxas.testing.derived_launch import VARIANTS, clocked, derived_spec

ptx_path, cubin_path, kernel, words, count, verbose, ours_path, arch = sys.argv[1:9]
words, count, verbose = int(words), int(count), verbose == "1"
text = open(ptx_path).read()
module = parse(text, ptx_path)
fn = next(f for f in module.entries if f.name == kernel)

def out(**kw):
    print("RESULT " + json.dumps(kw))
    sys.exit(0)

try:
    ours = open(ours_path, "rb").read() if ours_path else None
except OSError:
    ours = None
if ours is None:
    try:
        ours = compile_ptx(text, Options(arch=arch), ptx_path).cubin
    except OpenPtxasError as exc:
        out(status="refused", detail=str(exc).strip().splitlines()[0][:200])
    if ours_path:
        open(ours_path + ".tmp", "wb").write(ours)
        __import__("os").replace(ours_path + ".tmp", ours_path)
theirs = open(cubin_path, "rb").read()
tried = []
for variant in VARIANTS:
    s = derived_spec(fn, text, variant, words, count)
    try:
        ref = run_launch(theirs, s)
    except Exception as exc:
        tried.append(f"{variant}: {type(exc).__name__}: {str(exc)[:100]}")
        continue
    t0 = time.time()
    try:
        got = run_launch(ours, s, hazards=True)
    except Exception as exc:
        out(status="ours-error", variant=variant, detail=f"{type(exc).__name__}: {str(exc)[:200]}",
            dyn=ref.dynamic_instructions)
    if got.hazards:
        out(status="HAZARD", variant=variant, detail=str(got.hazards[0])[:200],
            dyn=ref.dynamic_instructions)
    diffs = []
    for i, (a, b) in enumerate(zip(ref.args, got.args)):
        if s["args"][i]["kind"] != "buffer":
            continue
        wa, wb = a.view(np.uint32), b.view(np.uint32)
        bad = np.nonzero(wa != wb)[0]
        if len(bad):
            k = int(bad[0])
            diffs.append(f"arg {i}: {len(bad)} words differ, first at word {k}: "
                         f"ptxas {int(wa[k]):#010x} ours {int(wb[k]):#010x}")
    if ref.printf != got.printf:
        diffs.append("printf output differs")
    touched = sum(int(np.count_nonzero(a.view(np.uint32) != np.frombuffer(
        bytes.fromhex(s["args"][i]["init"]["hex"]), np.uint32)))
        for i, a in enumerate(ref.args) if s["args"][i]["kind"] == "buffer")
    # a read PTX leaves undefined (a shuffle from a lane not executing it) gives each compilation
    # its own value: report it apart from a miscompile
    undef = ref.undefined or got.undefined
    kind = "DIFF-clock" if clocked(text) else "DIFF-undef" if undef else "DIFF"
    status = kind if diffs else "same"
    if diffs and undef and not clocked(text):
        diffs.append("undefined read: " + (ref.undefined or got.undefined)[0])
    out(status=status, variant=variant, detail="; ".join(diffs)[:400],
        dyn=ref.dynamic_instructions, dyn_ours=got.dynamic_instructions,
        cycles=ref.issue_cycles, cycles_ours=got.issue_cycles, written=touched)
out(status="no-launch", detail=" | ".join(tried)[:400])
"""


def _code_version() -> str:
    """The commit of a clean tree, or "" (nothing is cached: a dirty tree's code has no name)."""
    import subprocess

    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True).stdout.strip()

    return "" if git("status", "--porcelain", "--untracked-files=no") else git("rev-parse", "HEAD")


def kernels_of(ptx: Path) -> list[str]:
    from openptxas.ptx.parser import parse

    try:
        return [f.name for f in parse(ptx.read_text(errors="replace"), str(ptx)).entries]
    except Exception:
        return []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grep", help="only files whose PTX contains this string")
    ap.add_argument("--file", help="one corpus PTX file (path relative to the sm_90 build)")
    ap.add_argument("--kernel", help="only this kernel")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per kernel")
    ap.add_argument("--json", help="write every result here (after each kernel)")
    ap.add_argument(
        "--resume",
        action="store_true",
        help="keep the results already in --json and run only the kernels it lacks "
        "(a corpus-wide run takes longer than a session; it accumulates across runs)",
    )
    ap.add_argument(
        "--compiled-only", default=None, help="a compile_sweep.py --json file: only its OK files"
    )
    ap.add_argument(
        "--target",
        default="sm_90",
        help="another target: the corpus rebuilt for it by scripts/corpus_retarget.py "
        "(its PTX and ptxas's cubins), compiled by openptxas for that target",
    )
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    root = PUBLIC / "build" / "sm_90"
    if args.target != "sm_90":
        sys.path.insert(0, str(REPO / "scripts"))
        from corpus_retarget import default_root

        root = default_root() / "build" / args.target
    files = sorted(root.rglob("*.ptx"))
    if args.file:
        files = [f for f in files if str(f.relative_to(root)) == args.file]
    if args.grep:
        files = [f for f in files if args.grep in f.read_text(errors="replace")]
    if args.compiled_only:
        ok = {
            r["file"]
            for r in json.loads(Path(args.compiled_only).read_text())
            if r["status"] == "OK"
        }
        files = [f for f in files if str(f.relative_to(root)) in ok]
    if not files:
        print(f"no PTX selected under {root}")
        return 2
    env = dict(os.environ, PYTHONPATH=str(REPO))
    # our cubin is compiled once per file and commit, not once per kernel (big files take minutes)
    version = _code_version()
    cache = REPO / ".cache" / "public-diff-cubins" / version[:12]
    if args.target != "sm_90":
        cache = cache / args.target
    if version:
        cache.mkdir(parents=True, exist_ok=True)
    counts: collections.Counter[str] = collections.Counter()
    records: list[dict[str, object]] = []
    if args.resume:
        if not args.json:
            ap.error("--resume needs --json")
        if Path(args.json).exists():
            records = json.loads(Path(args.json).read_text())
    done = {(r["file"], r["kernel"]) for r in records}
    refused = {r["file"] for r in records if r["status"] == "refused"}
    for r in records:
        counts[str(r["status"])] += 1
    t0 = time.time()
    for f in files:
        cubin = f.with_suffix(".cubin")
        if not cubin.exists():
            continue
        name = str(f.relative_to(root))
        if name in refused:
            continue
        for k in kernels_of(f):
            if (args.kernel and k != args.kernel) or (name, k) in done:
                continue
            ours = ""
            if version:
                key = hashlib.sha256(f.read_bytes()).hexdigest()[:20]
                ours = str(cache / f"{key}.cubin")
            cmd = [sys.executable, "-c", _CHILD, str(f), str(cubin), k, str(WORDS), str(COUNT),
                   "1" if args.v else "0", ours, args.target]  # fmt: skip
            rec = child_result(cmd, args.timeout, env)
            rec.update(file=name, kernel=k)
            records.append(rec)
            counts[rec["status"]] += 1
            if rec["status"] not in ("same", "refused", "no-launch", "timeout") or args.v:
                print(f"{rec['status']:10s} {name} {k}: {rec.get('detail', '')}", flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(records, indent=1))
            if rec["status"] == "refused":
                break  # the whole file is refused
    same = [r for r in records if r["status"] == "same"]
    dyn = sum(int(str(r.get("dyn", 0))) for r in same)
    print(
        f"{len(records)} kernels in {len(files)} files, {time.time() - t0:.0f} s: "
        + ", ".join(f"{k} {v}" for k, v in counts.most_common())
        + f"; equal outputs ran {dyn} warp-instructions of ptxas's code"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    return 1 if counts["DIFF"] or counts["HAZARD"] or counts["ours-error"] else 0


if __name__ == "__main__":
    sys.exit(main())
