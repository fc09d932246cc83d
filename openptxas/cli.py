"""The ``openptxas`` command: ptxas-compatible command line.

This is the only module of the compiler that prints diagnostics or sets exit codes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from openptxas import PTXAS_VERSION, __version__
from openptxas.diag import Diagnostic, OpenPtxasError, Severity

VERSION_TEXT = f"""openptxas: an open Ptx optimizing assembler, version {__version__}
Compatible with: Cuda compilation tools, release 13.0, {PTXAS_VERSION}
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("--version", "-V") for a in args):
        sys.stdout.write(VERSION_TEXT)
        return 0
    try:
        raise OpenPtxasError("compiling PTX is not supported yet")
    except OpenPtxasError as exc:
        for d in exc.diagnostics:
            print(d.render(), file=sys.stderr)
        print(
            Diagnostic(Severity.FATAL, "Ptx assembly aborted due to errors").render(),
            file=sys.stderr,
        )
        return 255


if __name__ == "__main__":
    sys.exit(main())
