"""Ask ptxas 13.0 which .version values and .target names it accepts, and the lowest .version
each target needs (the facts behind VERSIONS and TARGET_MIN_PTX in openptxas/ptx/targets.py).

    python scripts/ptx_probe_targets.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

TARGETS = [
    *(f"sm_{n}" for n in (20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87)),
    *(f"sm_{n}{v}" for n in (88, 89, 90, 100, 101, 103, 110, 120, 121) for v in ("", "a", "f")),
]
VERSIONS = [f"{a}.{b}" for a in range(1, 10) for b in range(10)]


def run(version: str, target: str, arch: str) -> str:
    text = (
        f".version {version}\n.target {target}\n.address_size 64\n"
        ".visible .entry k()\n{\nret;\n}\n"
    )
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "t.ptx"
        p.write_text(text)
        r = subprocess.run(
            ["ptxas", f"-arch={arch}", "t.ptx", "-o", "t.cubin"],
            cwd=td,
            capture_output=True,
            text=True,
            check=False,
        )
    return (r.stdout + r.stderr).strip().splitlines()[0] if r.returncode else ""


def main() -> int:
    ok_versions = [v for v in VERSIONS if "Unsupported .version" not in run(v, "sm_90", "sm_90")]
    print("versions:", " ".join(ok_versions))
    for t in TARGETS:
        arch = t if int(t[3:].rstrip("af")) >= 75 else "sm_75"
        first = run("9.0", t, arch)
        if "Unsupported .target" in first or "not defined for option" in first:
            print(f"{t}: unsupported ({first})")
            continue
        lo = next((v for v in ok_versions if run(v, t, arch) == ""), None)
        print(f"{t}: min .version {lo}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
