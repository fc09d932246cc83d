"""openptxas over every PTX file of the public corpus (code written outside this repository):
how many compile, how many are refused with a diagnostic, and how many crash (a traceback
instead of a diagnostic is a bug, whatever the input).

    python scripts/compile_sweep.py                       # sm_90 PTX of the whole corpus
    python scripts/compile_sweep.py --target sm_90a --timeout 120 --json /tmp/sweep.json
    python scripts/compile_sweep.py --grep div.rn.f32     # only the files that use it

The corpus is built by scripts/public_corpus.py into $OPENPTXAS_PUBLIC_CORPUS (default
/work/main/.cache/public-corpus). Each file is compiled in a child process with a time limit.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))

_CHILD = r"""
import sys, traceback
from openptxas.diag import InternalError, OpenPtxasError
from openptxas.driver import compile_ptx
from openptxas.options import Options
path, target = sys.argv[1], sys.argv[2]
try:
    compile_ptx(open(path).read(), Options(arch=target), path)
except InternalError as exc:  # a bug reported as a diagnostic is still a bug
    print("INTERNAL", str(exc).strip().splitlines()[0] if str(exc).strip() else "InternalError")
except OpenPtxasError as exc:
    print("REFUSED", str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
except BaseException as exc:
    tb = traceback.extract_tb(exc.__traceback__)[-1]
    where = tb.filename.rsplit("/", 1)[-1]
    print("INTERNAL", f"{type(exc).__name__}: {str(exc)[:120]} at {where}:{tb.lineno}")
else:
    print("OK")
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="sm_90")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per file")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument(
        "--grep", help="only files whose PTX text contains this string (e.g. div.rn.f32)"
    )
    ap.add_argument("--files", help="only the files listed (one corpus-relative path a line)")
    args = ap.parse_args(argv)
    files = sorted((PUBLIC / "build" / args.target).rglob("*.ptx"))
    if args.files:
        wanted = set(Path(args.files).read_text().split())
        files = [f for f in files if str(f.relative_to(PUBLIC / "build" / args.target)) in wanted]
    if args.grep:
        files = [f for f in files if args.grep in f.read_text(errors="replace")]
    if not files:
        print(f"no PTX under {PUBLIC / 'build' / args.target}: build the corpus first")
        return 2
    env = dict(os.environ, PYTHONPATH=str(REPO))
    counts: collections.Counter[str] = collections.Counter()
    groups: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    records = []
    t0 = time.time()
    for f in files:
        name = str(f.relative_to(PUBLIC / "build" / args.target))
        try:
            r = subprocess.run(
                [sys.executable, "-c", _CHILD, str(f), args.target],
                capture_output=True,
                text=True,
                timeout=args.timeout,
                env=env,
                check=False,
            )
            lines = [
                ln
                for ln in r.stdout.splitlines()
                if ln.split(" ", 1)[0] in ("OK", "REFUSED", "INTERNAL")
            ]
            out = lines[-1] if lines else f"INTERNAL exit {r.returncode}: {r.stderr[-200:]}"
        except subprocess.TimeoutExpired:
            out = f"TIMEOUT more than {args.timeout:.0f} s"
        status, _, msg = out.partition(" ")
        counts[status] += 1
        if status != "OK":
            key = msg.split(":", 2)[-1].strip() if status == "REFUSED" else msg
            groups[(status, key[:110])].append(name)
        records.append({"file": name, "status": status, "message": msg})
    total = len(files)
    print(
        f"PTX files: {total} ({args.target}); compiled {counts['OK']}, refused with a "
        f"diagnostic {counts['REFUSED']}, internal errors {counts['INTERNAL']}, "
        f"timeouts {counts['TIMEOUT']}; {time.time() - t0:.0f} s"
    )
    for (status, key), names in sorted(
        groups.items(), key=lambda kv: (kv[0][0] != "INTERNAL", -len(kv[1]))
    ):
        shown = ", ".join(names[:3]) + (f", ... ({len(names)})" if len(names) > 3 else "")
        print(f"  {status:8s} {len(names):4d}  {key}  [{shown}]")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    return 1 if counts["INTERNAL"] else 0


if __name__ == "__main__":
    sys.exit(main())
