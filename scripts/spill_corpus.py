"""Register budgets and spills on the public corpus: for every sm_90 PTX file that uses
``.maxntid``, ``.reqntid``, ``.minnctapersm`` or ``.maxnreg`` (or the files given), each kernel's
"Used N registers" and spill/frame bytes from openptxas and from ptxas 13.0.88 (both ``-v``).

    OPENPTXAS_PUBLIC_CORPUS=... python scripts/spill_corpus.py [--timeout 300] [FILES...]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIRECTIVES = re.compile(r"\.(maxnreg|maxntid|reqntid|minnctapersm)\b")
_FUNC = re.compile(
    r"Function properties for (\S+)\n\s+(\d+) bytes stack frame, (\d+) bytes spill "
    r"stores, (\d+) bytes spill loads\n.*?Used (\d+) registers"
)


def report(cmd: list[str], timeout: int) -> dict[str, tuple[int, ...]] | str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "timeout"
    if r.returncode:
        return (r.stderr.strip().splitlines() or ["error"])[0][:120]
    return {m[0]: tuple(int(x) for x in m[1:]) for m in _FUNC.findall(r.stderr + r.stdout)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("files", nargs="*")
    ns = ap.parse_args(argv)
    base = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", ROOT / ".cache/public-corpus"))
    base = base / "build" / "sm_90"
    files = [Path(f) for f in ns.files] or sorted(
        p for p in base.rglob("*.ptx") if DIRECTIVES.search(p.read_text(errors="replace"))
    )
    ours_cmd = [
        sys.executable,
        "-c",
        "import sys; from openptxas.cli import main; sys.exit(main())",
    ]
    same = differ = refused = 0
    for f in files:
        a = report([*ours_cmd, "-arch=sm_90", "-v", str(f), "-o", "/dev/null"], ns.timeout)
        b = report(["ptxas", "-arch=sm_90", "-v", str(f), "-o", "/dev/null"], ns.timeout)
        name = str(f.relative_to(base)) if f.is_relative_to(base) else str(f)
        if isinstance(a, str):
            refused += 1
            print(f"{name}: ours: {a}")
            continue
        assert isinstance(b, dict), b
        for k in sorted(b):
            o, t = a.get(k), b[k]
            tag = "same-regs" if o is not None and o[3] == t[3] else "DIFF-regs"
            same += tag == "same-regs"
            differ += tag != "same-regs"
            print(
                f"{name} {k[:40]}: {tag} ours regs {o and o[3]} frame/st/ld {o and o[:3]}"
                f" | ptxas regs {t[3]} frame/st/ld {t[:3]}"
            )
    print(
        f"{len(files)} files: kernels with ptxas's register count {same}, other {differ}; "
        f"files refused {refused}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
