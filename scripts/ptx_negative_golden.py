"""Run ptxas 13.0.88 on the PTX front end's negative suite and cache its answers as golden files.

For each ``tests/ptx/negative/NNN_name.ptx`` this writes ``NNN_name.ptxas``: the exit status and
what ptxas printed, e.g.::

    exit 255
    ptxas 004_undeclared_register.ptx, line 7; error   : Unknown symbol '%r9'
    ptxas fatal   : Ptx assembly aborted due to errors

ptxas runs in the file's directory on the bare file name (so its messages name the file as our CLI
does), with ``-arch`` taken from the file's ``.target`` (``sm_90`` when there is none or it is not
a target ptxas knows). tests/ptx/test_negative.py compares openptxas with these files and, when
ptxas is on the PATH, re-runs ptxas to prove they are current.

    python scripts/ptx_negative_golden.py [--check] [FILES...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEG_DIR = ROOT / "tests" / "ptx" / "negative"
_TARGET = re.compile(r"^\s*\.target\s+(sm_\d+[af]?)", re.MULTILINE)
_KNOWN_ARCH = re.compile(
    r"sm_(50|52|53|60|61|62|70|72|75|80|86|87|88|89|90a?|100[af]?|101[af]?|103[af]?|110[af]?"
    r"|120[af]?|121[af]?)$"
)


def arch_for(text: str) -> str:
    """The -arch both tools get: the file's .target when ptxas 13.0 compiles for it, sm_75 for
    older targets (ptxas 13.0 compiles their PTX for sm_75 and up), else sm_90."""
    m = _TARGET.search(text)
    if m and _KNOWN_ARCH.match(m.group(1)):
        t = m.group(1)
        return t if int(t[3:].rstrip("af")) >= 75 else "sm_75"
    return "sm_90"


def run_ptxas(path: Path, ptxas: str = "ptxas") -> str:
    """ptxas's answer for one file, in the golden format (exit line, then its output)."""
    arch = arch_for(path.read_text(errors="replace"))
    with tempfile.TemporaryDirectory() as td:
        proc = subprocess.run(
            [ptxas, f"-arch={arch}", path.name, "-o", str(Path(td) / "out.cubin")],
            cwd=path.parent,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=120,
            check=False,
        )
    out = (proc.stdout + proc.stderr).rstrip("\n")
    return f"exit {proc.returncode}\n" + (out + "\n" if out else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        print("ptxas is not on the PATH", file=sys.stderr)
        return 2
    files = args.files or sorted(NEG_DIR.glob("*.ptx"))
    stale = 0
    for f in files:
        got = run_ptxas(f.resolve(), ptxas)
        golden = f.with_suffix(".ptxas")
        if args.check:
            if not golden.exists() or golden.read_text() != got:
                stale += 1
                print(f"stale: {golden}", file=sys.stderr)
        else:
            golden.write_text(got)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
