"""Locating NVIDIA's tools, which serve only as test oracles.

openptxas never runs these at compile time; only the test harness, benchmarks and table-generation
scripts do. nvcc and ptxas come from the PATH; nvdisasm and cuobjdump from the PyPI packages
``nvidia-cuda-nvdisasm`` / ``nvidia-cuda-cuobjdump`` (``site-packages/nvidia/cu13/bin``) or the
PATH. ``OPENPTXAS_<TOOL>`` (e.g. ``OPENPTXAS_NVDISASM``) overrides the search.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

TOOLS = ("nvcc", "ptxas", "nvdisasm", "cuobjdump")


class ToolMissing(RuntimeError):
    def __init__(self, tool: str) -> None:
        hint = {
            "nvdisasm": "pip install nvidia-cuda-nvdisasm==13.2.86",
            "cuobjdump": "pip install nvidia-cuda-cuobjdump==13.2.86",
        }.get(tool, "install the CUDA 13.0 toolkit and put it on the PATH")
        super().__init__(f"{tool} not found ({hint})")
        self.tool = tool


def _site_bins() -> list[Path]:
    out = []
    for entry in sys.path:
        p = Path(entry) / "nvidia" / "cu13" / "bin"
        if p.is_dir():
            out.append(p)
    return out


@functools.cache
def find_tool(name: str) -> str | None:
    env = os.environ.get(f"OPENPTXAS_{name.upper()}")
    if env:
        return env if Path(env).exists() else None
    if name in ("nvdisasm", "cuobjdump"):
        # Prefer the pinned PyPI build (13.2.86) over whatever the PATH has.
        for d in _site_bins():
            cand = d / name
            if cand.exists():
                return str(cand)
    return shutil.which(name)


def require_tool(name: str) -> str:
    path = find_tool(name)
    if path is None:
        raise ToolMissing(name)
    return path


@functools.cache
def tool_version(name: str) -> str:
    """The tool's own version text (last non-empty line of ``--version``), part of cache keys."""
    path = require_tool(name)
    proc = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    lines = [ln.strip() for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    return " | ".join(lines[-2:]) if lines else "unknown"
