#!/usr/bin/env python3
"""The public corpus rebuilt for another target from its sm_90 PTX (issue 23: a corpus per family).

For each built sm_90 entry of the public corpus (``scripts/public_corpus.py``), the PTX's
``.target sm_90`` line is rewritten to the new target and ptxas 13.0.88 assembles it with
``-arch=<target>`` (``-c`` where the sm_90 entry was relocatable). PTX that uses features the
target lacks is refused by ptxas; those entries are recorded as skipped with ptxas's reason. This
needs no nvcc run and no source tree: it is the cheap way to get real code for sm_80/86/89 (and
sm_75, sm_120), at the price that nvcc's arch-dependent choices (``__CUDA_ARCH__``) stay sm_90's.

The result has the public corpus's layout and manifest format, in its own root (default
``<repo>/.cache/public-corpus-retarget``, git-ignored: nothing built from fetched code is
committed):
``build/<target>/<repo>/<source>.{ptx,cubin,log}`` and ``manifest.json``, so
``openptxas.testing.public_corpus.iter_cubins(target, root=ROOT)`` reads it. Entries whose key
(source PTX hash, target, ptxas version) is unchanged are reused.

    python scripts/corpus_retarget.py build --targets sm_80,sm_86,sm_89 [--from ROOT] [--root OUT]
    python scripts/corpus_retarget.py stats [--root OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from openptxas.testing import public_corpus as pc  # noqa: E402
from openptxas.testing.tools import require_tool, tool_version  # noqa: E402

SOURCE_TARGET = "sm_90"
_TARGET_LINE = re.compile(r"^(\s*\.target\s+)sm_90\b", re.M)


def default_root() -> Path:
    return Path(
        os.environ.get("OPENPTXAS_RETARGET_CORPUS", REPO / ".cache" / "public-corpus-retarget")
    )


def _key(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def build_one(src: pc.Entry, src_root: Path, root: Path, target: str, ptxas_ver: str) -> pc.Entry:
    ptx = pc.ptx_path(src, src_root).read_text(errors="replace")
    new_ptx = _TARGET_LINE.sub(rf"\g<1>{target}", ptx, count=1)
    flags = [f"-arch={target}" if f.startswith("-arch=") else f for f in src["ptxas_flags"]]
    entry: pc.Entry = {
        "id": f"{src['repo']}:{src['source']}@{target}",
        "repo": src["repo"],
        "commit": src.get("commit", ""),
        "source": src["source"],
        "target": target,
        "from": src["id"],
        "ptx_note": f"{SOURCE_TARGET} PTX with .target rewritten to {target}",
        "ptxas_flags": flags,
        "key": _key(pc._sha256(new_ptx.encode()), " ".join(flags), ptxas_ver),
    }
    base = Path("build") / target / src["repo"].replace("/", "+") / src["source"]
    ptx_rel, cubin_rel, log_rel = (
        base.with_name(base.name + s) for s in (".ptx", ".cubin", ".log")
    )
    ptx_file, cubin_file, log_file = root / ptx_rel, root / cubin_rel, root / log_rel
    ptx_file.parent.mkdir(parents=True, exist_ok=True)
    ptx_file.write_text(new_ptx)
    with tempfile.NamedTemporaryFile(dir=cubin_file.parent, suffix=".part", delete=False) as tmp:
        part = Path(tmp.name)
    proc = subprocess.run(
        [require_tool("ptxas"), *flags, "-o", str(part), str(ptx_file)],
        capture_output=True,
        check=False,
    )
    log = (proc.stdout + proc.stderr).decode(errors="replace")
    if proc.returncode != 0:
        part.unlink(missing_ok=True)
        cubin_file.unlink(missing_ok=True)
        log_file.write_text(log)
        errs = [ln for ln in log.splitlines() if "error" in ln.lower()] or ["(no output)"]
        reason = "ptxas: " + pc._RE_LOCATION.sub("", errs[0].strip())[:200]
        return {
            **entry,
            "status": "skipped",
            "stage": "ptxas",
            "reason": reason,
            "log": str(log_rel),
        }
    log_file.unlink(missing_ok=True)
    os.replace(part, cubin_file)
    blob = cubin_file.read_bytes()
    funcs = pc.cubin_functions(blob)
    return {
        **entry,
        "status": "ok",
        "ptx": str(ptx_rel),
        "cubin": str(cubin_rel),
        "ptx_sha256": pc._sha256(new_ptx.encode()),
        "ptx_norm_sha256": pc.ptx_norm_sha256(new_ptx),
        "cubin_sha256": pc._sha256(blob),
        "kernels": pc.ptx_kernels(new_ptx),
        "functions": funcs,
        "instructions": sum(funcs.values()),
    }


def build(src_root: Path, root: Path, targets: list[str], jobs: int) -> dict[str, Any]:
    ptxas_ver = tool_version("ptxas")
    old: dict[str, pc.Entry] = {}
    if pc.manifest_path(root).exists():
        old = {str(e["id"]): e for e in pc.load_manifest(root)["entries"]}
    sources = list(pc.iter_entries(SOURCE_TARGET, root=src_root, include_duplicates=True))
    entries: list[pc.Entry] = [e for e in old.values() if e["target"] not in targets]

    def one(args: tuple[pc.Entry, str]) -> pc.Entry:
        src, target = args
        prev = old.get(f"{src['repo']}:{src['source']}@{target}")
        if prev is not None and prev.get("from") == src["id"]:
            ptx = pc.ptx_path(src, src_root).read_text(errors="replace")
            new_ptx = _TARGET_LINE.sub(rf"\g<1>{target}", ptx, count=1)
            flags = [f"-arch={target}" if f.startswith("-arch=") else f for f in src["ptxas_flags"]]
            key = _key(pc._sha256(new_ptx.encode()), " ".join(flags), ptxas_ver)
            cubin = root / str(prev.get("cubin", ""))
            if prev["key"] == key and (prev["status"] != "ok" or cubin.exists()):
                return prev
        return build_one(src, src_root, root, target, ptxas_ver)

    work = [(s, t) for t in targets for s in sources]
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for i, e in enumerate(ex.map(one, work), 1):
            entries.append(e)
            if i % 50 == 0:
                print(f"{i}/{len(work)}", file=sys.stderr)
    meta = {
        "tools": {"ptxas": ptxas_ver},
        "targets": sorted({str(e["target"]) for e in entries}),
        "from": str(src_root),
        "complete": True,
    }
    manifest = pc.compose_manifest(entries, meta)
    pc.write_json_atomic(pc.manifest_path(root), manifest)
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("cmd", choices=("build", "stats"))
    ap.add_argument("--targets", default="sm_80,sm_86,sm_89")
    ap.add_argument("--from", dest="src", type=Path, help="the public corpus (default: its root)")
    ap.add_argument("--root", type=Path, help="output (default .cache/public-corpus-retarget)")
    ap.add_argument("--jobs", "-j", type=int, default=1)
    args = ap.parse_args(argv)
    root = args.root or default_root()
    if args.cmd == "build":
        manifest = build(args.src or pc.corpus_root(), root, args.targets.split(","), args.jobs)
    else:
        manifest = pc.load_manifest(root)
    print(pc.format_stats(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
