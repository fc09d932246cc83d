"""The compiled build: the compiler's hot modules compiled with mypyc, pure Python the fallback.

A compiled build (``setup.py``; docs/speed.md, step 9) puts an extension module beside each
module of ``MODULES`` (``ir/core.cpython-311-x86_64-linux-gnu.so`` beside ``ir/core.py``) and
one shared library with the code of all of them at the top level (``openptxas__mypyc``).
Python's import system prefers an extension to a source file, so such a build runs compiled; its
output is byte-identical to pure Python's (tests/compiler/test_compiled_build.py).

``select()`` runs when ``openptxas`` is imported, before any of these modules, and loads all of
them from their sources instead (the extensions ignored) when

- ``OPENPTXAS_PURE_PYTHON=1`` asks for it, or
- an extension is stale: its source was edited (or checked out) after the build. It would
  otherwise run the old code silently, so a ``RuntimeWarning`` names it and says how to rebuild
  or remove the build (``python -m openptxas.tools.compiled --clean``).

All or none: the compiled modules call one another natively (through the shared library), so a
mix of compiled and source modules would hold two copies of each class.

``python -m openptxas.tools.compiled`` says which build runs. Standard library only, and cheap: one
directory listing per package of ``MODULES`` at import.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

# The modules the compiled build compiles: those the profile of the compile shows hot (docs/
# speed.md, step 9), with the modules they call most. Left out, and why, in docs/speed.md.
MODULES: tuple[str, ...] = (
    "openptxas.codegen_encode",
    "openptxas.ir.analysis",
    "openptxas.ir.cfg",
    "openptxas.ir.core",
    "openptxas.ir.liveness",
    "openptxas.ir.uniform",
    "openptxas.isa.codec",
    "openptxas.isa.direct",
    "openptxas.isa.spec",
    "openptxas.passes.addr_fold",
    "openptxas.passes.branch_opt",
    "openptxas.passes.const_fold",
    "openptxas.passes.convergence",
    "openptxas.passes.copy_prop",
    "openptxas.passes.cse",
    "openptxas.passes.dce",
    "openptxas.passes.fma",
    "openptxas.passes.peephole",
    "openptxas.passes.predication",
    "openptxas.passes.uniform_regs",
    "openptxas.passes.wide_add",
    "openptxas.regalloc.clobbers",
    "openptxas.regalloc.fatpoint",
    "openptxas.regalloc.remat",
    "openptxas.regalloc.spill",
    "openptxas.sched.control",
    "openptxas.sched.deps",
    "openptxas.sched.listsched",
    "openptxas.sched.reuse",
    "openptxas.targets.latency",
    "openptxas.targets.ops",
)
# mypyc's group name: the shared library is the top-level module ``openptxas__mypyc``.
GROUP = "openptxas"
PURE_ENV = "OPENPTXAS_PURE_PYTHON"
# Written by the build beside the extensions: module -> sha256 of the source it was compiled from.
MANIFEST = "_mypyc_sources.json"

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# What select() decided: "compiled", "pure" (no compiled build here) or "pure: <why>".
state = "pure"


def source_path(module: str) -> str:
    return os.path.join(PACKAGE_DIR, *module.split(".")[1:]) + ".py"


def digest(path: str) -> str:
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def c_build_blocker() -> str:
    """Why a C extension cannot be built here ("" when it can, as far as a quick look tells):
    setup.py's choice and the compiled-build test's skip."""
    import shutil
    import sysconfig

    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc})"
    include = sysconfig.get_paths().get("include", "")
    if not os.path.exists(os.path.join(include, "Python.h")):
        return f"no Python headers ({include}/Python.h)"
    return ""


def extensions() -> dict[str, str]:
    """The extension file of each module of ``MODULES`` that has one here."""
    by_dir: dict[str, list[str]] = {}
    for m in MODULES:
        by_dir.setdefault(os.path.dirname(source_path(m)), []).append(m)
    found: dict[str, str] = {}
    for d, mods in by_dir.items():
        try:
            names = set(os.listdir(d))
        except OSError:
            continue
        for m in mods:
            stem = m.rsplit(".", 1)[1]
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                if stem + suffix in names:
                    found[m] = os.path.join(d, stem + suffix)
                    break
    return found


def stale(found: dict[str, str]) -> list[str]:
    """The modules whose source differs from the one their extension was compiled from. An
    extension newer than its source is current; an older one is checked against the build's
    digest (a checkout or an install may touch unchanged files)."""
    manifest: dict[str, str] | None = None
    out: list[str] = []
    for m, ext in found.items():
        src = source_path(m)
        try:
            if os.stat(ext).st_mtime >= os.stat(src).st_mtime:
                continue
        except OSError:
            continue  # no source beside the extension: nothing to fall back to or compare
        if manifest is None:
            import json

            try:
                with open(os.path.join(PACKAGE_DIR, MANIFEST)) as f:
                    manifest = dict(json.load(f))
            except (OSError, ValueError):
                manifest = {}
        if manifest.get(m) != digest(src):
            out.append(m)
    return out


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' source files, ahead of the extensions beside them."""

    def __init__(self, modules: Sequence[str]) -> None:
        self.modules = frozenset(modules)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


def select() -> None:
    """Choose the build for this process (see the module's docstring); once, at import."""
    global state
    if any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        return
    found = extensions()
    if not found:
        return
    why = ""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        why = f"{PURE_ENV} is set"
    else:
        old = stale(found)
        if old:
            why = "stale extensions: " + ", ".join(old)
            warnings.warn(
                f"openptxas: the compiled build is older than its sources ({', '.join(old)}); "
                "running pure Python. Rebuild it (OPENPTXAS_MYPYC=1 pip install -e .) or remove it "
                "(python -m openptxas.tools.compiled --clean).",
                RuntimeWarning,
                stacklevel=3,
            )
    if why:
        sys.meta_path.insert(0, _SourceFinder(MODULES))
        state = f"pure: {why}"
    else:
        state = "compiled"


def clean() -> list[str]:
    """Remove the compiled build from this package (an in-place build in a checkout)."""
    removed: list[str] = []
    paths = [*extensions().values(), os.path.join(PACKAGE_DIR, MANIFEST)]
    top = os.path.dirname(PACKAGE_DIR)
    for name in os.listdir(top):
        if name.startswith(f"{GROUP}__mypyc."):
            paths.append(os.path.join(top, name))
    for p in paths:
        if os.path.exists(p):
            os.remove(p)
            removed.append(p)
    return removed
