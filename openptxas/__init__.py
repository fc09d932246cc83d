"""openptxas: an open, pure-Python reimplementation of NVIDIA's ptxas.

The compiler's import path uses the standard library only and imports its stages lazily, so that
``import openptxas`` stays cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"

# ptxas release this project reimplements (its -v report and diagnostics are our format).
PTXAS_RELEASE = "13.0"
PTXAS_VERSION = "V13.0.88"
