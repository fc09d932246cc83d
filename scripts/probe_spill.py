"""Probe ptxas 13.0's register budgets and spill reports on a high-pressure kernel.

``python scripts/probe_spill.py budgets`` prints, for several ``.maxntid``/``.reqntid`` and
``.minnctapersm`` pairs (and ``.maxnreg``, ``-maxrregcount``), the register count and spill
figures ptxas reports, next to openptxas's; ``python scripts/probe_spill.py text FLAGS...``
prints both compilers' ``-v`` text for the probe kernel under the given flags.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path


def pressure_kernel(n: int = 96, directives: str = "", name: str = "k") -> str:
    """A kernel keeping ``n`` 32-bit values live at once (loaded, mixed, stored)."""
    lines = [
        ".version 8.8",
        ".target sm_90",
        ".address_size 64",
        f".visible .entry {name}(.param .u64 p_in, .param .u64 p_out) {directives}",
        "{",
        f"  .reg .b32 %r<{n + 8}>;",
        "  .reg .b64 %rd<4>;",
        "  ld.param.u64 %rd0, [p_in];",
        "  ld.param.u64 %rd1, [p_out];",
        "  cvta.to.global.u64 %rd0, %rd0;",
        "  cvta.to.global.u64 %rd1, %rd1;",
    ]
    for j in range(n):
        lines.append(f"  ld.global.u32 %r{j}, [%rd0+{4 * j}];")
    for j in range(n):
        a, b = (j + 7) % n, (j + 13) % n
        lines.append(f"  mad.lo.u32 %r{j}, %r{j}, %r{a}, %r{b};")
    for j in range(n):
        lines.append(f"  st.global.u32 [%rd1+{4 * j}], %r{j};")
    lines += ["  ret;", "}", ""]
    return "\n".join(lines)


def run(tool: list[str], ptx: str, flags: list[str]) -> str:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "probe.ptx"
        p.write_text(ptx)
        r = subprocess.run(
            [*tool, "-arch=sm_90", "-v", *flags, str(p), "-o", str(Path(d) / "o.cubin")],
            capture_output=True,
            text=True,
            check=False,
        )
        return (r.stdout + r.stderr).replace(str(p), "probe.ptx")


OURS = [sys.executable, "-c", "import sys; from openptxas.cli import main; sys.exit(main())"]


def _used(text: str) -> str:
    return " | ".join(
        ln.strip()
        for ln in text.splitlines()
        if "Used" in ln or "spill" in ln or "Overriding" in ln or "warning" in ln
    )


def budgets() -> None:
    cases = [
        ".maxntid 256, 1, 1 .minnctapersm 4",
        ".maxntid 128, 1, 1 .minnctapersm 4",
        ".maxntid 128, 1, 1 .minnctapersm 6",
        ".maxntid 96, 1, 1 .minnctapersm 5",
        ".maxntid 1024, 1, 1 .minnctapersm 1",
        ".maxntid 1024, 1, 1 .minnctapersm 2",
        ".maxntid 16, 16, 1 .minnctapersm 3",
        ".reqntid 256, 1, 1 .minnctapersm 3",
        ".maxntid 100, 1, 1 .minnctapersm 7",
        ".maxntid 512, 1, 1",
        ".maxntid 1024, 1, 1",
        ".maxnreg 40",
        ".maxnreg 17",
        ".maxnreg 41",
    ]
    for c in cases:
        ptx = pressure_kernel(96, c)
        print(f"{c:40s} ptxas: {_used(run(['ptxas'], ptx, []))}")
        print(f"{'':40s} ours:  {_used(run(OURS, ptx, []))}")


def main(argv: list[str]) -> int:
    if argv and argv[0] == "budgets":
        budgets()
        return 0
    if argv and argv[0] == "text":
        ptx = pressure_kernel(96)
        for name, tool in (("ptxas", ["ptxas"]), ("ours", OURS)):
            print(f"--- {name}")
            print(run(tool, ptx, argv[1:]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
