"""The negative suite: malformed or invalid PTX files, each with ptxas 13.0.88's answer cached
beside it (``NNN_name.ptxas``, written by scripts/ptx_negative_golden.py), and openptxas's answer
compared with it: same accept/reject decision, same line of the first error, same message.

    python -m tests.ptx.negsuite          # the comparison table and the rates
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from openptxas.diag import Severity
from openptxas.ptx import diagnose, needs_footer

NEG_DIR = Path(__file__).resolve().parent / "negative"
_LINE = re.compile(r"^ptxas (?:\S+, line (\d+); )?(error|fatal|warning)\s*: (.*)$")


@dataclass(frozen=True)
class Answer:
    exit: int
    lines: tuple[str, ...]

    @property
    def rejects(self) -> bool:
        return self.exit != 0

    def first_error(self) -> tuple[int | None, str] | None:
        """(line or None, message) of the first error or fatal."""
        for ln in self.lines:
            m = _LINE.match(ln)
            if m and m.group(2) in ("error", "fatal"):
                return (int(m.group(1)) if m.group(1) else None, m.group(3))
        return None


def files() -> list[Path]:
    return sorted(NEG_DIR.glob("*.ptx"))


def golden(path: Path) -> Answer:
    text = path.with_suffix(".ptxas").read_text().splitlines()
    return Answer(int(text[0].split()[1]), tuple(text[1:]))


def openptxas_answer(path: Path) -> Answer:
    """What ``python -m openptxas.ptx FILE --arch <as for ptxas>`` prints, in the golden format."""
    text = path.read_text(errors="replace")
    diags = diagnose(text, path.name, arch_for(text))
    failed = any(d.severity in (Severity.ERROR, Severity.FATAL) for d in diags)
    lines = [d.render() for d in diags]
    if needs_footer(diags):
        lines.append("ptxas fatal   : Ptx assembly aborted due to errors")
    return Answer(255 if failed else 0, tuple(lines))


_TARGET = re.compile(r"^\s*\.target\s+(sm_\d+[af]?)", re.MULTILINE)
_KNOWN_ARCH = re.compile(
    r"sm_(50|52|53|60|61|62|70|72|75|80|86|87|88|89|90a?|100[af]?|101[af]?|103[af]?|110[af]?"
    r"|120[af]?|121[af]?)$"
)


def arch_for(text: str) -> str:
    """The -arch both tools get: the file's .target when ptxas 13.0 compiles for it, sm_75 for
    older targets (ptxas 13.0 compiles their PTX for sm_75 and up), else sm_90."""
    m = _TARGET.search(text)
    if m and _KNOWN_ARCH.match(m.group(1)):
        t = m.group(1)
        return t if int(t[3:].rstrip("af")) >= 75 else "sm_75"
    return "sm_90"


@dataclass(frozen=True)
class Row:
    name: str
    ptxas: Answer
    ours: Answer

    @property
    def same_decision(self) -> bool:
        return self.ptxas.rejects == self.ours.rejects

    @property
    def same_line(self) -> bool:
        a, b = self.ptxas.first_error(), self.ours.first_error()
        return (a[0] if a else None) == (b[0] if b else None)

    @property
    def same_message(self) -> bool:
        a, b = self.ptxas.first_error(), self.ours.first_error()
        return (a[1] if a else None) == (b[1] if b else None)

    @property
    def same_output(self) -> bool:
        return self.ptxas == self.ours


def compare() -> list[Row]:
    return [Row(p.name, golden(p), openptxas_answer(p)) for p in files()]


def main() -> int:
    rows = compare()
    rejected = [r for r in rows if r.ptxas.rejects]
    n = len(rows)
    for r in rows:
        flags = "".join(
            c if ok else "-"
            for c, ok in (
                ("D", r.same_decision),
                ("L", r.same_line),
                ("M", r.same_message),
                ("O", r.same_output),
            )
        )
        if flags != "DLMO":
            a, b = r.ptxas.first_error(), r.ours.first_error()
            print(f"{flags} {r.name}\n     ptxas: {a}\n     ours:  {b}")
    print(
        f"{n} files ({len(rejected)} rejected by ptxas): "
        f"decision {sum(r.same_decision for r in rows)}/{n}, "
        f"first-error line {sum(r.same_line for r in rows)}/{n}, "
        f"first message {sum(r.same_message for r in rows)}/{n}, "
        f"whole output {sum(r.same_output for r in rows)}/{n}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
