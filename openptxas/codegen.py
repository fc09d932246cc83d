"""Code generation's last step: encode the scheduled functions and lay out the cubin.

Each function's instructions are turned into the ISA model through nvdisasm-syntax text (so the
compiler shares the one instruction description with the assembler), encoded, padded as ptxas
pads (``EXIT``, a ``BRA`` to itself, ``NOP``s to a 128-byte boundary), and handed with its
resource figures to the ELF builder.
"""

from __future__ import annotations

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import Function
from openptxas.options import Options
from openptxas.ptx import ast
from openptxas.targets import SMInfo


def build_cubin(
    module: ast.Module,
    compiled: list[tuple[ast.Function, Function]],
    target: SMInfo,
    options: Options,
) -> bytes:
    raise UnsupportedFeature("writing the cubin is not supported by openptxas yet")
