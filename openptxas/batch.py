"""Compile many PTX files in parallel processes: ``python -m openptxas.batch``.

::

    python -m openptxas.batch [-j N] [--out-dir DIR] [--json REPORT] [ptxas options] A.ptx B.ptx ...

Each file is compiled on its own (one cubin per file, ``DIR/<stem>.cubin``; default: beside the
input) with the same ptxas options (``-arch=sm_90 -O3`` ...), in ``N`` worker processes
(default: the CPU count). A progress bar on stderr (when it is a terminal, or with
``--progress``) shows files done, failures and the elapsed time; each failure's diagnostics are
printed once it finishes. Exit status 0 when every file compiled, 1 otherwise. ``--json``
writes one record per file (``file``, ``ok``, ``output``, ``seconds``, ``diagnostics``).
Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field


@dataclass
class FileResult:
    file: str
    ok: bool
    output: str = ""
    seconds: float = 0.0
    diagnostics: list[str] = field(default_factory=list)


def compile_file(path: str, args: Sequence[str], out_dir: str | None) -> FileResult:
    """Compile one file with ptxas-style ``args``; never raises."""
    from openptxas.cli import write_output
    from openptxas.diag import OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args

    t0 = time.perf_counter()
    stem = os.path.splitext(os.path.basename(path))[0]
    out = os.path.join(out_dir or os.path.dirname(path) or ".", stem + ".cubin")
    try:
        opts = parse_args([*args, path, "-o", out]).options
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        result = compile_ptx(text, opts, os.path.basename(path))
        diags = [w.render() for w in opts.warnings] + [d.render() for d in result.diagnostics]
        if result.generated:
            write_output(out, result.cubin)
        return FileResult(path, True, out, time.perf_counter() - t0, diags)
    except OpenPtxasError as exc:
        diags = [d.render() for d in exc.diagnostics]
    except OSError as exc:
        diags = [f"ptxas fatal   : {path}: {exc.strerror}"]
    except Exception as exc:  # a bug: reported per file, the batch goes on
        diags = [f"ptxas fatal   : internal error: {type(exc).__name__}: {exc}"]
    return FileResult(path, False, "", time.perf_counter() - t0, diags)


def _bar(done: int, total: int, failed: int, t0: float, width: int = 30) -> str:
    filled = width * done // max(total, 1)
    return (
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
        f"failed {failed}  {time.monotonic() - t0:.1f}s"
    )


USAGE = __doc__.split("::")[1].split("\n\n")[1].strip() if __doc__ else ""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    jobs = os.cpu_count() or 1
    out_dir: str | None = None
    report: str | None = None
    progress = sys.stderr.isatty()
    ptxas_args: list[str] = []
    files: list[str] = []
    i = 0
    try:
        while i < len(args):
            a = args[i]
            i += 1
            if a in ("-h", "--help"):
                print(f"usage: {USAGE}")
                return 0
            if a in ("-j", "--jobs", "--out-dir", "--json"):
                if i >= len(args):
                    raise ValueError(f"argument expected after '{a}'")
                val = args[i]
                i += 1
                if a == "--out-dir":
                    out_dir = val
                elif a == "--json":
                    report = val
                else:
                    jobs = int(val)
            elif a.startswith("-j") and a[2:].isdigit():
                jobs = int(a[2:])
            elif a == "--progress":
                progress = True
            elif a.endswith(".ptx") and not a.startswith("-"):
                files.append(a)
            else:
                ptxas_args.append(a)
    except ValueError as exc:
        print(f"openptxas.batch: {exc}", file=sys.stderr)
        return 2
    if not files:
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    from openptxas.options import parse_args

    try:  # bad options fail once, up front, in ptxas's words
        parse_args([*ptxas_args, "x.ptx"])
    except Exception as exc:
        print(f"ptxas fatal   : {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 2
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    results: list[FileResult] = []
    t0 = time.monotonic()
    failed = 0
    from openptxas.cli import tune_gc

    with ProcessPoolExecutor(max_workers=max(1, jobs), initializer=tune_gc) as pool:
        futs = [pool.submit(compile_file, f, ptxas_args, out_dir) for f in files]
        for fut in as_completed(futs):
            r = fut.result()
            results.append(r)
            if not r.ok:
                failed += 1
                if progress:
                    sys.stderr.write("\r\033[K")
                print(f"{r.file}: failed", file=sys.stderr)
                for d in r.diagnostics:
                    print(f"  {d}", file=sys.stderr)
            if progress:
                sys.stderr.write(_bar(len(results), len(files), failed, t0))
                sys.stderr.flush()
    if progress:
        sys.stderr.write("\n")
    print(
        f"openptxas.batch: {len(files) - failed}/{len(files)} compiled, {failed} failed, "
        f"{time.monotonic() - t0:.1f}s with {jobs} processes",
        file=sys.stderr,
    )
    if report:
        results.sort(key=lambda r: files.index(r.file))
        with open(report, "w", encoding="utf-8") as f:
            json.dump([asdict(r) for r in results], f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
