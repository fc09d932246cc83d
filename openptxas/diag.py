"""Diagnostics shared by every stage: source spans, severities and the error tree.

Stages raise these exceptions; only the command-line front ends (``openptxas.cli`` and the tool
CLIs) render them, in ptxas's format::

    ptxas k.ptx, line 12; error   : Unknown symbol '%r9'
    ptxas fatal   : Ptx assembly aborted due to errors

Library callers get the exception objects and never see text on stderr.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    FATAL = "fatal"


@dataclass(frozen=True, slots=True)
class Span:
    """A position in a source file (1-based line and column; column 0 = unknown)."""

    file: str
    line: int
    col: int = 0
    end_line: int = 0
    end_col: int = 0


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    message: str
    span: Span | None = None

    def render(self, tool: str = "ptxas") -> str:
        """Render as ptxas does: the severity word is padded to 8 columns."""
        sev = f"{self.severity.value:<8}"
        if self.span is not None and self.span.line > 0:
            return f"{tool} {self.span.file}, line {self.span.line}; {sev}: {self.message}"
        return f"{tool} {sev}: {self.message}"


class OpenPtxasError(Exception):
    """Root of every error openptxas raises on purpose.

    ``diagnostics`` holds one or more diagnostics (a front end may collect several errors before it
    gives up, as ptxas does).
    """

    def __init__(
        self, message: str, span: Span | None = None, diagnostics: list[Diagnostic] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.diagnostics: list[Diagnostic] = (
            diagnostics if diagnostics is not None else [Diagnostic(Severity.ERROR, message, span)]
        )

    def render(self, tool: str = "ptxas") -> str:
        return "\n".join(d.render(tool) for d in self.diagnostics)


class PtxSyntaxError(OpenPtxasError):
    """The PTX text does not parse."""


class PtxSemanticError(OpenPtxasError):
    """The PTX parses but breaks a rule of the PTX ISA (types, state spaces, targets, ...)."""


class UnsupportedFeature(OpenPtxasError):
    """Valid input that openptxas does not handle yet (named in the message)."""


class UnsupportedOnTarget(OpenPtxasError):
    """An instruction or feature that the chosen target lacks."""


class EncodingError(OpenPtxasError):
    """A value does not fit the field that must hold it, or no encoding matches."""

    def __init__(
        self, op: str, field_name: str = "", value: int = 0, bits: int = 0, detail: str = ""
    ) -> None:
        self.op = op
        self.field_name = field_name
        self.value = value
        self.bits = bits
        super().__init__(
            detail
            or f"cannot encode {op}: field {field_name} cannot hold {value:#x} in {bits} bits"
        )


class DecodingError(OpenPtxasError):
    """Bytes that are not a known instruction, or a malformed binary."""


class CubinFormatError(OpenPtxasError):
    """A cubin (ELF) file that is malformed or not understood."""


class RegAllocError(OpenPtxasError):
    """Register allocation failed (e.g. too many live registers and no spilling possible)."""


class InternalError(OpenPtxasError):
    """A bug in openptxas. The CLI prints a repro command with it."""


class UsageError(OpenPtxasError):
    """Bad command-line usage (unknown option, bad value, missing input)."""
