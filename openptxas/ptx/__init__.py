"""The PTX front end: lexer, parser, typed AST, ISA checker and printer (docs/ptx.md).

    from openptxas.ptx import parse, parse_and_check, diagnose, print_module
    from openptxas.ptx.check import check        # the checker (openptxas.ptx.check is a module)

    module = parse_and_check(text, "k.ptx")     # raises PtxSyntaxError / PtxSemanticError
    for fn in module.entries:
        for ins in fn.body.instructions():
            ins.opcode, ins.type, ins.space, ins.operands

``python -m openptxas.ptx FILE --check`` checks a file as ptxas would (same messages and exit
status); ``--print`` prints the AST back as PTX.
"""

from __future__ import annotations

from openptxas.diag import Diagnostic, PtxSemanticError, PtxSyntaxError, Severity
from openptxas.ptx import check as _check_module
from openptxas.ptx.ast import Module
from openptxas.ptx.check import has_errors
from openptxas.ptx.parser import parse
from openptxas.ptx.printer import print_module

__all__ = [
    "diagnose",
    "needs_footer",
    "parse",
    "parse_and_check",
    "print_module",
]


def diagnose(text: str, file: str = "<ptx>", arch: str | None = None) -> list[Diagnostic]:
    """Every diagnostic ptxas would print for ``text``, in its order; never raises.

    A syntax error is fatal: the diagnostics of what was parsed before it come first (ptxas
    checks statements as it reads them), then the syntax error."""
    from openptxas.ptx.linemap import LineMap, body_lines, remap

    try:
        module = parse(text, file)
    except PtxSyntaxError as exc:
        partial: Module | None = getattr(exc, "partial", None)
        diags = _check_module.check(partial, arch, partial=True) if partial is not None else []
        if not any(d.severity is Severity.FATAL for d in diags):
            diags = [*diags, Diagnostic(Severity.FATAL, exc.message, exc.span)]
        if partial is None or not isinstance(partial.line_map, LineMap):
            return diags
        return remap(diags, partial.line_map, body_lines(partial))
    diags = _check_module.check(module, arch)
    if isinstance(module.line_map, LineMap):
        diags = remap(diags, module.line_map, body_lines(module))
    return diags


# Fatals of ptxas's driver and link stages, printed without the closing "aborted" line.
_STANDALONE_FATALS = (
    "Unresolved extern",
    "SM version specified by .target",
    "PTX with .target",
    " 32-Bit ABI",
    "Value '",
)


def needs_footer(diags: list[Diagnostic]) -> bool:
    """Whether ptxas closes these diagnostics with 'Ptx assembly aborted due to errors'."""
    if not any(d.severity in (Severity.ERROR, Severity.FATAL) for d in diags):
        return False
    last = diags[-1]
    return not (
        last.severity is Severity.FATAL
        and last.span is None
        and last.message.startswith(_STANDALONE_FATALS)
    )


def remap_syntax_error(exc: PtxSyntaxError) -> None:
    """Give a syntax error the line and file ptxas reports (`#line` markers before it)."""
    from openptxas.ptx.linemap import LineMap, body_lines, remap_error

    partial = getattr(exc, "partial", None)
    if isinstance(partial, Module) and isinstance(partial.line_map, LineMap):
        remap_error(exc, partial.line_map, body_lines(partial))


def parse_and_check(text: str, file: str = "<ptx>", arch: str | None = None) -> Module:
    """Parse and check; raise PtxSyntaxError or PtxSemanticError (carrying every diagnostic,
    warnings included) when ptxas would reject the input."""
    from openptxas.ptx.linemap import LineMap, body_lines, remap

    try:
        module = parse(text, file)
    except PtxSyntaxError as exc:
        remap_syntax_error(exc)
        raise
    diags = _check_module.check(module, arch)
    if isinstance(module.line_map, LineMap):
        diags = remap(diags, module.line_map, body_lines(module))
    if has_errors(diags):
        first = next(d for d in diags if d.severity in (Severity.ERROR, Severity.FATAL))
        raise PtxSemanticError(first.message, first.span, diags)
    return module
