"""The build backend: setuptools', with mypy (which carries mypyc) added to the build requirements
when setup.py will compile (the compiled build, docs/speed.md step 9): a wheel on a machine with a
C compiler and Python's headers, unless ``OPENPTXAS_MYPYC=0``; an editable install only with
``OPENPTXAS_MYPYC=1``. Everything else is setuptools' own (``setuptools.build_meta``)."""

from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (the PEP 517 hooks)

# the mypyc the compiled modules are known to compile with
MYPYC = ["mypy>=2.4"]


def _compiles(editable: bool) -> bool:
    mode = os.environ.get("OPENPTXAS_MYPYC", "auto").strip().lower() or "auto"
    if mode in ("0", "no", "false", "off"):
        return False
    if mode in ("1", "yes", "true", "on"):
        return True
    if editable:
        return False
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    include = Path(sysconfig.get_paths().get("include", ""))
    return shutil.which(cc) is not None and (include / "Python.h").exists()


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    reqs = list(_setuptools.get_requires_for_build_wheel(config_settings))
    return reqs + (MYPYC if _compiles(editable=False) else [])


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    reqs = list(_setuptools.get_requires_for_build_editable(config_settings))
    return reqs + (MYPYC if _compiles(editable=True) else [])
