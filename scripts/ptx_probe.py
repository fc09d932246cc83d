"""Ask ptxas 13.0 what it makes of PTX snippets: one line per (snippet, target).

Each snippet is placed in a kernel body that declares a few registers of every common type
(%r %rd %rs %f %fd %p %h %q), then compiled with ``ptxas -arch=<target>``. Used to learn the
checker's rules (which targets, versions and forms ptxas accepts) from the tool itself.

    python scripts/ptx_probe.py --targets sm_80,sm_90a --version 9.0 'add.s32 %r1, %r2, %r3;' ...
    python scripts/ptx_probe.py --file snippets.txt      # one snippet per line
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PRELUDE = """\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\t.reg .b16 %rs<8>;
\t.reg .f32 %f<8>;
\t.reg .f64 %fd<8>;
\t.reg .pred %p<8>;
\t.reg .b128 %q<4>;
\t.shared .align 16 .b8 smem[1024];
"""


def probe(snippet: str, target: str, version: str, module_prefix: str = "") -> str:
    arch = target if int(target[3:].rstrip("af")) >= 75 else "sm_75"
    text = (
        f".version {version}\n.target {target}\n.address_size 64\n{module_prefix}"
        f".visible .entry k(.param .u64 p0)\n{{\n{PRELUDE}\t{snippet}\n\tret;\n}}\n"
    )
    with tempfile.TemporaryDirectory() as td:
        (Path(td) / "t.ptx").write_text(text)
        r = subprocess.run(
            ["ptxas", f"-arch={arch}", "t.ptx", "-o", "t.cubin"],
            cwd=td,
            capture_output=True,
            text=True,
            check=False,
        )
    lines = [
        ln.replace("ptxas t.ptx, ", "")
        for ln in (r.stdout + r.stderr).splitlines()
        if "Ptx assembly aborted" not in ln and "C7508" not in ln
    ]
    return ("OK" if r.returncode == 0 else "REJECT") + (": " + " | ".join(lines) if lines else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default="sm_90")
    ap.add_argument("--version", default="9.0")
    ap.add_argument("--prefix", default="", help="module-level PTX placed before the kernel")
    ap.add_argument("--file", type=Path)
    ap.add_argument("snippets", nargs="*")
    args = ap.parse_args(argv)
    snippets = list(args.snippets)
    if args.file:
        snippets += [s for s in args.file.read_text().splitlines() if s.strip()]
    jobs = [(s, t) for s in snippets for t in args.targets.split(",")]
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(lambda j: probe(j[0], j[1], args.version, args.prefix), jobs))
    last = None
    for (s, t), r in zip(jobs, results, strict=True):
        if s != last:
            print(f"== {s}")
            last = s
        print(f"  {t}: {r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
