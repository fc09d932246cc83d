"""``python -m openptxas.tools.compiled [--clean]``: which build of the compiler runs (compiled
with mypyc or pure Python, and why: openptxas/compiled.py); ``--clean`` removes a compiled build
from the package (an in-place build in a checkout)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from openptxas import compiled


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--clean"]:
        for p in compiled.clean():
            print(f"removed {p}")
        return 0
    if args:
        print("usage: python -m openptxas.tools.compiled [--clean]", file=sys.stderr)
        return 2
    import openptxas.ir.core as core

    print(f"build: {compiled.state}")
    print(f"openptxas.ir.core: {core.__file__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
