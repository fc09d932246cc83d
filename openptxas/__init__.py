"""openptxas: an open, pure-Python reimplementation of NVIDIA's ptxas.

The compiler's import path uses the standard library only and imports its stages lazily, so that
``import openptxas`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from openptxas.driver import CompileResult

__version__ = "0.1.0"

# ptxas release this project reimplements (its -v report and diagnostics are our format).
PTXAS_RELEASE = "13.0"
PTXAS_VERSION = "V13.0.88"

# A compiled build (mypyc) runs compiled unless asked not to or stale: decided here, before any
# compiled module is imported (openptxas/compiled.py).
from openptxas import compiled as _compiled  # noqa: E402

_compiled.select()


def compile(
    ptx_text: str,
    arch: str = "sm_90",
    *,
    args: Sequence[str] = (),
    filename: str = "<input>",
    **options: object,
) -> CompileResult:
    """Compile PTX text to a cubin, in-process: ``openptxas.compile(ptx, arch="sm_90")``.

    Options are keyword arguments named as the fields of :class:`openptxas.options.Options`
    (``opt_level=3``, ``maxrregcount=64``, ``fmad=False``, ``entries=("k",)``, ``verbose``
    ...), or a ptxas command line in ``args`` (``args=["-O2", "--fmad=false"]``; keywords win).
    Returns a :class:`openptxas.driver.CompileResult`: ``.cubin`` (bytes), ``.functions``
    (the ``-v`` figures per function), ``.diagnostics`` (warnings, as
    :class:`openptxas.diag.Diagnostic` objects: ``severity``, ``message``, ``span``),
    ``.verbose_report()`` (ptxas's ``-v`` text). Bad or unsupported input raises
    :class:`openptxas.diag.OpenPtxasError` whose ``.diagnostics`` are the same objects.

    Thread-safe and free of global state: nothing is printed, no file is written, and each call
    builds its own options and pipeline state (the ISA tables are loaded once, read-only).
    """
    from openptxas.driver import compile_ptx
    from openptxas.options import Options, parse_args

    base = parse_args(list(args)).options if args else Options()
    in_args = any(a.split("=")[0] in ("-arch", "--gpu-name") for a in args)
    if not in_args or arch != "sm_90":  # an explicit arch= wins over -arch in args
        options = {"arch": arch, **options}
    opts = base.with_(**options)
    return compile_ptx(ptx_text, opts, filename)
