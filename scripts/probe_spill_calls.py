"""Probe ptxas 13.0's spilling around calls: the -v text and the spill code (STL/LDL, and the
stack pointer's adjustments) of a kernel with 40 values live across a call of a device
function, the callee small or itself under pressure (``busy``), with or without a ``.local``
array, under ``-maxrregcount``; ours beside ptxas's.

    python scripts/probe_spill_calls.py [--callee plain|busy|busy-local] [--call direct|indirect]
                                        [--maxrreg 24] [--sass]

What it showed (ptxas 13.0.88): the callee's spill code addresses the kernel's frame ([R1+0xb4]
in a callee whose own frame is 0 bytes), its bytes are reported in the callee's
``Function properties`` block and ``--warn-on-spills`` line; a callee's ``.local`` array is
counted in the kernel's frame, not its own. openptxas does the same (regalloc/spdelta.py,
regalloc/spill.py); which values spill is each compiler's own choice.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NVDISASM = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm"


def probe_ptx(callee: str, call: str) -> str:
    from tests.compiler.test_spill_calls import FUNC, busy, kernel

    ptx = kernel(call)
    if callee != "plain":
        ptx = ptx.replace(FUNC, busy(callee == "busy-local"))
    return ptx


def _lines(cubin: Path) -> list[str]:
    r = subprocess.run([NVDISASM, "-c", str(cubin)], capture_output=True, text=True, check=False)
    keep = ("STL", "LDL", "CALL", "RET", "R1,", "Function", "$fuzz$")
    return [ln.strip() for ln in r.stdout.splitlines() if any(k in ln for k in keep)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--callee", default="busy-local", choices=["plain", "busy", "busy-local"])
    ap.add_argument("--call", default="direct", choices=["direct", "guarded", "indirect"])
    ap.add_argument("--maxrreg", type=int, default=24)
    ap.add_argument("--sass", action="store_true", help="list the spill code too")
    ns = ap.parse_args(argv)
    ptx = probe_ptx(ns.callee, ns.call)
    flags = ["-arch=sm_90", "-v", "--warn-on-spills", f"-maxrregcount={ns.maxrreg}"]
    ours_cmd = [sys.executable, "-m", "openptxas"]
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "probe.ptx"
        src.write_text(ptx)
        for label, tool in (("ptxas", ["ptxas"]), ("ours", ours_cmd)):
            out = Path(d) / f"{label}.cubin"
            r = subprocess.run(
                [*tool, *flags, str(src), "-o", str(out)], capture_output=True, text=True
            )
            print(f"== {label}")
            for ln in (r.stdout + r.stderr).splitlines():
                if "Compile time" not in ln:
                    print("  " + ln.replace(str(src), "probe.ptx"))
            if ns.sass and out.exists():
                for ln in _lines(out):
                    print("    " + ln)
    return 0


if __name__ == "__main__":
    sys.exit(main())
