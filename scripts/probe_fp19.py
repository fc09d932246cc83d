"""ptxas 13.0's SASS for PTX snippets (issue 19: f16 ``set``, ``mad.hi`` 64-bit, ``.relu`` cvt,
predicated division, the shared division slow path).

    python scripts/probe_fp19.py 'mad.hi.s64 %rd1, %rd0, %rd2, %rd3;'
    python scripts/probe_fp19.py --all '@%p0 div.rn.f32 %f1, %f0, %f2;'

The snippet runs in scripts/fpmath_probe.py's kernel, which also has %rd0..%rd3 (pairs of the
loaded words), %p0 (%r3 != 0) and stores %rd1 (at +56). ``--all`` prints the whole listing
(loads, stores, SEL included); ``--opt 0`` compiles at -O0; ``--file F`` lists a PTX file.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fpmath_probe import HEAD, TAIL

from openptxas.testing.tools import find_tool

EXTRA_HEAD = """\tmov.b64 %rd0, {%r0, %r1};
\tmov.b64 %rd2, {%r2, %r3};
\tmov.b64 %rd3, {%r3, %r2};
\tsetp.ne.u32 %p0, %r3, 0;
"""
EXTRA_TAIL = "\tst.global.u64 [%rd7+56], %rd1;\n"


def wrap(snippet: str) -> str:
    tail = TAIL.replace("\tret;", EXTRA_TAIL + "\tret;")
    return HEAD + EXTRA_HEAD + "\t" + snippet + "\n" + tail


def listing(ptx: str, opt: int = 3, everything: bool = False) -> str:
    ptxas = find_tool("ptxas")
    nvdisasm = find_tool("nvdisasm")
    assert ptxas and nvdisasm
    with tempfile.TemporaryDirectory() as td:
        p = Path(td)
        (p / "t.ptx").write_text(ptx)
        r = subprocess.run(
            [str(ptxas), "-arch=sm_90", f"-O{opt}", "t.ptx", "-o", "t.cubin"],
            cwd=td,
            capture_output=True,
            text=True,
            check=False,
        )
        if r.returncode:
            return r.stderr
        d = subprocess.run(
            [str(nvdisasm), "-c", "t.cubin"], cwd=td, capture_output=True, text=True, check=True
        )
    out = []
    for ln in d.stdout.splitlines():
        if ln.strip().startswith(".") and not ln.strip().startswith(".L"):
            continue
        body = ln.split("*/", 1)[-1].strip().rstrip(" ;")
        label = ln.strip().startswith(".L")
        if not body or (not label and ("NOP" in body or body.startswith("//"))):
            continue
        if not everything and any(k in body for k in ("LDG", "STG", "LDC", "ULDC", "EXIT")):
            continue
        out.append(ln.strip() if label else "  " + body)
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("snippets", nargs="*")
    ap.add_argument("--all", action="store_true", help="the whole listing")
    ap.add_argument("--opt", type=int, default=3)
    ap.add_argument("--file", action="append", default=[])
    a = ap.parse_args()
    for f in a.file:
        print(f"== {f}\n{listing(Path(f).read_text(), a.opt, True)}")
    for s in a.snippets:
        print(f"== {s}\n{listing(wrap(s), a.opt, a.all)}")


if __name__ == "__main__":
    main()
