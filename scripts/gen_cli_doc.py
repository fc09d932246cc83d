"""Regenerate the option tables of docs/cli.md from openptxas.options (OPTION_TABLE, OWN_OPTIONS).

    python scripts/gen_cli_doc.py [--check]

The tables sit between ``<!-- options:begin -->`` and ``<!-- options:end -->``;
tests/cli/test_cli_options.py checks that they are current.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "cli.md"
BEGIN, END = "<!-- options:begin -->", "<!-- options:end -->"


def tables() -> str:
    from openptxas.options import OPTION_TABLE, OWN_OPTIONS, Effect

    effect = {
        Effect.IMPLEMENTED: "as ptxas",
        Effect.TUNING: "accepted; no effect (tunes ptxas's internals)",
        Effect.MESSAGE: "ptxas's message; no code effect",
        Effect.UNSUPPORTED: "**refused**",
    }
    count = {e: sum(s.effect is e for s in OPTION_TABLE) for e in Effect}
    rows = [
        "## Options of ptxas 13.0.88",
        "",
        f"{len(OPTION_TABLE)} options: {count[Effect.IMPLEMENTED]} as ptxas, "
        f"{count[Effect.TUNING]} accepted without effect, {count[Effect.MESSAGE]} with ptxas's "
        f"message only, {count[Effect.UNSUPPORTED]} refused; accepted "
        f"{len(OPTION_TABLE) - count[Effect.UNSUPPORTED]}/{len(OPTION_TABLE)}.",
        "",
        "| option | short | value | openptxas | meaning; notes |",
        "|---|---|---|---|---|",
    ]
    for s in OPTION_TABLE:
        short = f"`-{s.short}`" if s.short else "—"
        val = s.metavar.replace("|", "\\|") if s.metavar else ("value" if s.takes_value else "")
        note = s.note.replace("|", "\\|")
        note = f" {note[0].upper()}{note[1:]}." if note else ""
        rows.append(f"| `--{s.long}` | {short} | {val} | {effect[s.effect]} | {s.help}{note} |")
    rows += ["", "## openptxas's own options", "", "| option | value | meaning |", "|---|---|---|"]
    for s in OWN_OPTIONS:
        val = s.metavar.replace("|", "\\|") if s.metavar else ""
        rows.append(f"| `--{s.long}` | {val} | {s.help} |")
    return "\n".join(rows) + "\n"


def render(doc: str) -> str:
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{tables()}{END}{tail}"


def main(argv: list[str]) -> int:
    doc = DOC.read_text()
    new = render(doc)
    if "--check" in argv:
        return 0 if new == doc else 1
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
