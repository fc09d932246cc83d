"""``#line N "file"`` and ``# N "file"`` directives: the line numbers and file names ptxas reports.

ptxas reads these preprocessor line markers anywhere (also after a statement on the same line,
also inside a function body): the line after the marker is line N of "file" (C's rule; N decimal,
anything after the file name up to the end of the line ignored, as gcc's flags ``# 1 "a.cu" 1 3``).
A marker without a file name, with a hex number or an unterminated name is a syntax error (the
lexer leaves the ``#`` in place, and the parser rejects it).

The parser blanks the markers out (keeping every line) and records them in a `LineMap`; the AST
keeps physical lines, and the diagnostics are translated at the front end's boundaries
(`openptxas.ptx.diagnose`, `parse_and_check`, `openptxas.driver.compile_ptx`). ptxas keeps only a
line number per statement and the file name as global state: a diagnostic names the file in
effect when ptxas reports it, so the ``Unknown symbol`` errors it reports at the end of their
function name the file in effect at the function's closing brace (observed with
scripts/ptx_probe.py; tests/ptx/negative/27x_line_*).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from openptxas.diag import Diagnostic, OpenPtxasError, Span

# a string literal (skipped: a '#' inside one is text) or a line marker
_MARKER = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[ \t]*(?:line\b)?[ \t]*([0-9]+)[ \t]+"([^"\n]*)"[^\n]*')


@dataclass(frozen=True, slots=True)
class LineMap:
    """Markers in order: ``lines[i]`` the physical line of marker i, which makes the next
    physical line line ``starts[i]`` of ``files[i]``."""

    lines: tuple[int, ...]
    starts: tuple[int, ...]
    files: tuple[str, ...]

    def at(self, line: int) -> tuple[str | None, int]:
        """(file or None when no marker precedes it, reported line) of a physical line."""
        i = bisect.bisect_left(self.lines, line) - 1
        if i < 0:
            return None, line
        return self.files[i], self.starts[i] + line - self.lines[i] - 1

    def span(self, s: Span, file_line: int | None = None) -> Span:
        """``s`` as ptxas reports it; the file is the one in effect at ``file_line`` (default:
        the span's own line)."""
        if s.line <= 0:
            return s
        f, n = self.at(s.line)
        if file_line is not None:
            f = self.at(file_line)[0]
        return replace(s, file=s.file if f is None else f, line=n)


def extract(text: str) -> tuple[str, LineMap | None]:
    """Blank the line markers out of ``text`` (comments already removed)."""
    if "#" not in text:
        return text, None
    lines: list[int] = []
    starts: list[int] = []
    files: list[str] = []
    pieces: list[str] = []
    last = 0
    for m in _MARKER.finditer(text):
        if m.group(1) is None:
            continue
        lines.append(text.count("\n", 0, m.start()) + 1)
        starts.append(int(m.group(1)))
        files.append(m.group(2))
        pieces.append(text[last : m.start()])
        last = m.end()
    if not lines:
        return text, None
    pieces.append(text[last:])
    return "".join(pieces), LineMap(tuple(lines), tuple(starts), tuple(files))


def body_lines(module: object) -> list[tuple[int, int]]:
    """(first, last) physical line of each function body of a `Module`."""
    out = []
    for f in getattr(module, "functions", ()):
        if f.body is not None:
            out.append((f.body.span.line, f.body.span.end_line or f.body.span.line))
    return out


def _end_line(ends: list[tuple[int, int]], line: int) -> int | None:
    for start, end in ends:
        if start <= line <= end:
            return end
    return None


def remap(
    diags: list[Diagnostic], lm: LineMap | None, ends: list[tuple[int, int]]
) -> list[Diagnostic]:
    """The diagnostics with ptxas's reported lines and files; ``ends``: (first, last) physical
    line of each function body."""
    if lm is None:
        return diags
    out = []
    for d in diags:
        if d.span is None:
            out.append(d)
            continue
        fl = _end_line(ends, d.span.line) if d.message.startswith("Unknown symbol") else None
        out.append(replace(d, span=lm.span(d.span, fl)))
    return out


def remap_error(exc: OpenPtxasError, lm: LineMap | None, ends: list[tuple[int, int]]) -> None:
    """Translate an error's diagnostics in place (once)."""
    if lm is None or getattr(exc, "_line_mapped", False):
        return
    exc.diagnostics = remap(list(exc.diagnostics), lm, ends)
    if exc.span is not None:
        exc.span = lm.span(exc.span)
    exc._line_mapped = True  # type: ignore[attr-defined]
