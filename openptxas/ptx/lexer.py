"""PTX tokens: one compiled regular expression, scanned lazily from any position.

The parser (parser.py) reads most instruction statements with a single whole-statement regex and
falls back to these tokens for directives, unusual operands and error reporting.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from openptxas.diag import PtxSyntaxError, Span

# Order matters: float bit patterns and hex before decimal; decimal floats before integers.
_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n\f\v]+)
  | (?P<float>0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16})
  | (?P<int>0[xX][0-9a-fA-F]+U?|0[bB][01]+U?)
  | (?P<dec>(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)
  | (?P<oct>0[0-7]*U?|[1-9][0-9]*U?)
  | (?P<dir>\.[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<id>%[A-Za-z0-9_$]+|[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<op><<|>>|<=|>=|==|!=|&&|\|\||::|[-+*/%~!&|^<>=?:,;\[\](){}@])
  | (?P<bad>.)
    """,
    re.VERBOSE | re.DOTALL,
)


class Tok(NamedTuple):
    kind: str  # float int dec dir id str op bad eof
    text: str
    pos: int


EOF_KIND = "eof"


class Lexer:
    """Lazily scans tokens of ``text`` from ``pos`` (whitespace skipped)."""

    __slots__ = ("_peeked", "file", "pos", "text")

    def __init__(self, text: str, pos: int, file: str) -> None:
        self.text = text
        self.pos = pos
        self.file = file
        self._peeked: Tok | None = None

    def _scan(self) -> Tok:
        text = self.text
        pos = self.pos
        n = len(text)
        while True:
            if pos >= n:
                self.pos = pos
                return Tok(EOF_KIND, "", n)
            m = _TOKEN.match(text, pos)
            assert m is not None  # the 'bad' alternative matches any character
            kind = m.lastgroup
            assert kind is not None
            if kind == "ws":
                pos = m.end()
                continue
            self.pos = m.end()
            if kind == "oct":
                kind = "int"
            return Tok(kind, m.group(), pos)

    def peek(self) -> Tok:
        if self._peeked is None:
            self._peeked = self._scan()
        return self._peeked

    def next(self) -> Tok:
        t = self.peek()
        self._peeked = None
        return t

    def resume_at(self) -> int:
        """The position after the last consumed token (un-reads a peeked one)."""
        if self._peeked is not None:
            p = self._peeked.pos
            self._peeked = None
            self.pos = p
        return self.pos

    def seek(self, pos: int) -> None:
        self.pos = pos
        self._peeked = None

    def accept(self, text: str) -> bool:
        t = self.peek()
        if t.text == text and t.kind in ("op", "dir", "id"):
            self._peeked = None
            return True
        return False

    def expect(self, text: str) -> Tok:
        t = self.next()
        if t.text != text or t.kind not in ("op", "dir", "id"):
            raise self.error(t)
        return t

    def span_of(self, pos: int) -> Span:
        line = self.text.count("\n", 0, pos) + 1
        col = pos - self.text.rfind("\n", 0, pos)
        return Span(self.file, line, col)

    def error(self, t: Tok, what: str = "syntax error") -> PtxSyntaxError:
        """ptxas's message for an unexpected token: ``Parsing error near 'X': syntax error``."""
        return PtxSyntaxError(f"Parsing error near '{t.text}': {what}", self.span_of(t.pos))


def int_value(text: str) -> int:
    """The value of an integer literal token (hex, binary, octal, decimal; ``U`` suffix)."""
    t = text[:-1] if text.endswith("U") else text
    if t[:2] in ("0x", "0X"):
        return int(t[2:], 16)
    if t[:2] in ("0b", "0B"):
        return int(t[2:], 2)
    if len(t) > 1 and t[0] == "0":
        return int(t[1:], 8)
    return int(t)
