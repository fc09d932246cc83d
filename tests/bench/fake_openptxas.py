"""A stand-in for openptxas in the benchmark's tests: ptxas at -O0 behind openptxas's CLI.

It gives the harness successful compiles with code that differs from ptxas -O3 (so the ratios
are non-trivial), and rejects files marked ``FAKE-UNSUPPORTED`` as openptxas rejects what it does
not support yet: a ptxas-style error and exit status 255.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MARK = "FAKE-UNSUPPORTED"


def rejects(ptx: str) -> bool:
    return MARK in ptx


def main(argv: list[str]) -> int:
    inputs = [a for a in argv if a.endswith(".ptx")]
    if inputs and rejects(Path(inputs[0]).read_text()):
        print(
            f"ptxas {inputs[0]}, line 1; error   : Feature 'fake' is not supported by openptxas yet"
        )
        print("ptxas fatal   : Ptx assembly aborted due to errors")
        return 255
    return subprocess.run(["ptxas", "-O0", *argv], check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
