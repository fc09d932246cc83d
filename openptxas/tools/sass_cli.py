"""The ``openptxas-sass`` command: SASS disassembler, assembler, round-trip checker, cubin info."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cmd = args[0] if args else "<none>"
    if cmd in ("info", "rewrite"):
        from openptxas.elf import cli as elf_cli

        return elf_cli.main(args)
    print(f"openptxas-sass: '{cmd}' is not supported yet", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
