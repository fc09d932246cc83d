"""``python -m openptxas.ptx FILE [--check] [--print] [--arch sm_XX]``: the PTX front end's CLI.

Diagnostics are printed in ptxas's format on stderr; the exit status is ptxas's (0 when the
file is valid, 255 when not).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from openptxas.diag import Diagnostic, Severity


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m openptxas.ptx", description="Parse and check PTX as ptxas 13.0 does."
    )
    ap.add_argument("file")
    ap.add_argument("--check", action="store_true", help="check the file (the default)")
    ap.add_argument("--print", action="store_true", help="print the AST back as PTX")
    ap.add_argument("--arch", default=None, help="the -arch to check against (default: .target)")
    ap.add_argument("--time", action="store_true", help="report parse/check time on stderr")
    args = ap.parse_args(argv)

    from openptxas.ptx import diagnose, parse
    from openptxas.ptx.printer import print_module

    try:
        with open(args.file, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError:
        _emit([Diagnostic(Severity.FATAL, f"Input file '{args.file}' could not be opened")])
        return 255
    t0 = time.perf_counter()
    diags = diagnose(text, args.file, args.arch)
    t1 = time.perf_counter()
    failed = any(d.severity in (Severity.ERROR, Severity.FATAL) for d in diags)
    _emit(diags, footer=failed)
    if args.time:
        print(
            f"openptxas: {len(text) / 1e6 / (t1 - t0):.2f} MB/s ({t1 - t0:.3f} s)", file=sys.stderr
        )
    if failed:
        return 255
    if args.print:
        sys.stdout.write(print_module(parse(text, args.file)))
    return 0


def _emit(diags: list[Diagnostic], footer: bool = True) -> None:
    from openptxas.ptx import needs_footer

    for d in diags:
        print(d.render(), file=sys.stderr)
    if footer and (needs_footer(diags) or not diags):
        print(
            Diagnostic(Severity.FATAL, "Ptx assembly aborted due to errors").render(),
            file=sys.stderr,
        )


if __name__ == "__main__":
    sys.exit(main())
