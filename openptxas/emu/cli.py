"""The ``openptxas-emu`` command: run a kernel from a cubin in the SASS emulator."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cmd = args[0] if args else "<none>"
    print(f"openptxas-emu: '{cmd}' is not supported yet", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
