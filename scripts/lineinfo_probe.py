"""Line information against ptxas 13.0 over tests/kernels: nvcc -lineinfo PTX of every .cu file,
compiled by openptxas and by ptxas with -lineinfo; reports per file whether .nv_debug_ptx_txt is
byte-identical, whether the .debug_line file tables agree, and how much of ptxas's set of source
lines our .debug_line rows cover (the code differs, so the rows do).

    python scripts/lineinfo_probe.py [FILES.cu ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from openptxas.diag import OpenPtxasError
from openptxas.driver import compile_ptx
from openptxas.elf.dwarfline import decode
from openptxas.elf.reader import read_cubin
from openptxas.options import Options
from openptxas.testing.oracle import Oracle, OracleError

ROOT = Path(__file__).resolve().parents[1]
NAMES = (".debug_line", ".nv_debug_line_sass", ".nv_debug_ptx_txt")


def _sections(cubin: bytes) -> dict[str, bytes]:
    return {s.name: s.content.data for s in read_cubin(cubin).sections if s.name in NAMES}


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or sorted((ROOT / "tests/kernels").glob("t*/*.cu"))
    o = Oracle()
    n = txt = tables = 0
    cover: list[float] = []
    for p in files:
        try:
            ptx = o.cu_to_ptx(p, "sm_90", ["-lineinfo"])
            theirs = _sections(o.ptxas(ptx, "sm_90", ["-lineinfo"]).cubin)
            ours = _sections(compile_ptx(ptx, Options(arch="sm_90", lineinfo=True), "k.ptx").cubin)
        except (OracleError, OpenPtxasError):
            continue
        n += 1
        txt += ours[".nv_debug_ptx_txt"] == theirs[".nv_debug_ptx_txt"]
        a, b = decode(ours[".debug_line"]), decode(theirs[".debug_line"])
        tables += (a.dirs, a.files) == (b.dirs, b.files)
        mine = {(r[2], r[3]) for r in a.rows if r[2] >= 0}
        their = {(r[2], r[3]) for r in b.rows if r[2] >= 0}
        c = len(mine & their) / len(their) if their else 1.0
        cover.append(c)
        if c < 1.0 or mine - their:
            print(f"{p}: covers {c:.0%} of ptxas's lines; ours only {sorted(mine - their)[:6]}")
    mean = sum(cover) / len(cover) if cover else 0.0
    print(
        f"{n} files: .nv_debug_ptx_txt identical {txt}/{n}, .debug_line file table {tables}/{n}, "
        f"ptxas's source lines covered {mean:.1%} (mean)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
