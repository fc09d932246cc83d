"""openptxas: an open, pure-Python reimplementation of NVIDIA's ptxas.

The compiler's import path uses the standard library only and imports its stages lazily, so that
``import openptxas`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openptxas.driver import CompileResult

__version__ = "0.1.0"

# ptxas release this project reimplements (its -v report and diagnostics are our format).
PTXAS_RELEASE = "13.0"
PTXAS_VERSION = "V13.0.88"


def compile(ptx_text: str, arch: str = "sm_90", **options: object) -> CompileResult:
    """Compile PTX text to a cubin: ``openptxas.compile(ptx, arch="sm_90", opt_level=3)``.

    Returns a :class:`openptxas.driver.CompileResult` (``.cubin`` bytes, ``.functions`` with the
    ``-v`` figures, ``.verbose_report()``). Raises :class:`openptxas.diag.OpenPtxasError` with
    ptxas-style diagnostics on bad or unsupported input. Options are the fields of
    :class:`openptxas.options.Options` (``opt_level``, ``maxrregcount``, ``verbose``, ...).
    """
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    opts = Options(arch=arch, **options)  # type: ignore[arg-type]
    return compile_ptx(ptx_text, opts, "<input>")
