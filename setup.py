"""The compiled build (docs/speed.md, step 9): pyproject.toml holds the project; this adds the
compiler's hot modules (``openptxas.compiled.MODULES``) as mypyc extensions, pure Python being the
fallback that gives byte-identical output.

``OPENPTXAS_MYPYC`` chooses:

- ``1``: compile; a build that cannot (no mypyc, no C compiler, a mypyc error) fails.
- ``0``: never compile.
- unset (``auto``): compile a wheel (``pip install .``, ``python -m build``) when mypyc and a C
  compiler with Python's headers are there, else build pure Python; never an editable install
  (``pip install -e .``, the README's and CI's), whose extensions would sit in the checkout beside
  the sources a developer edits (``openptxas/compiled.py`` notices a stale one, warns and runs the
  sources, but edits should simply run).

``OPENPTXAS_MYPYC_C_DIR`` is where mypyc writes its C code (default ``build/mypyc``);
``OPENPTXAS_MYPYC_OPT`` its optimisation level (default ``3``; the test of the compiled build's
output builds at ``0``, a quarter of the C compiler's time, the same code paths). The build
records the digest of each compiled source beside the extensions (``compiled.MANIFEST``).
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# the module list without importing the package (openptxas/compiled.py is standard library only)
_compiled = runpy.run_path(str(ROOT / "openptxas" / "compiled.py"))
MODULES: tuple[str, ...] = _compiled["MODULES"]
GROUP: str = _compiled["GROUP"]
MANIFEST: str = _compiled["MANIFEST"]

MODE = os.environ.get("OPENPTXAS_MYPYC", "auto").strip().lower() or "auto"
EDITABLE = any(cmd in sys.argv for cmd in ("editable_wheel", "develop"))
# setup.py also runs for metadata and build requirements (egg_info, dist_info): mypyc (a type
# check of the package, a minute) only for a command that builds
BUILDING = any(
    cmd in sys.argv
    for cmd in ("build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install")
)


def _say(msg: str) -> None:
    print(f"openptxas setup: {msg}", file=sys.stderr)


def _wanted() -> bool:
    if MODE in ("0", "no", "false", "off"):
        return False
    forced = MODE in ("1", "yes", "true", "on")
    if not forced:
        if MODE != "auto":
            raise SystemExit(f"OPENPTXAS_MYPYC={MODE!r}: use 1, 0 or leave it unset")
        if EDITABLE:
            return False
    why = ""
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        why = "mypyc is not installed (pip install mypy)"
    why = why or _compiled["c_build_blocker"]()
    if why and forced:
        raise SystemExit(f"OPENPTXAS_MYPYC=1: cannot compile: {why}")
    if why:
        _say(f"building pure Python: {why}")
    return not why


def _source(module: str) -> Path:
    return Path("openptxas", *module.split(".")[1:]).with_suffix(".py")


def _extensions() -> list[Any]:
    from mypyc.build import mypycify

    paths = [str(_source(m)) for m in MODULES]
    c_dir = os.environ.get("OPENPTXAS_MYPYC_C_DIR", str(Path("build") / "mypyc"))
    # (setuptools wants an extension's sources relative to setup.py's directory)
    c_dir = os.path.relpath(os.path.abspath(c_dir), ROOT).replace(os.sep, "/")
    _say(f"compiling {len(paths)} modules with mypyc (C code in {c_dir})")
    level = os.environ.get("OPENPTXAS_MYPYC_OPT", "3")
    return list(mypycify(paths, opt_level=level, group_name=GROUP, target_dir=c_dir))


class BuildExt(build_ext):
    """Writes the sources' digests beside the extensions; in ``auto`` mode a failed compile
    leaves a pure-Python build instead of failing the install."""

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:
            if MODE != "auto":
                raise
            _say(f"building pure Python: the C build failed ({exc})")
            for ext in self.extensions:
                path = Path(self.get_ext_fullpath(ext.name))
                path.unlink(missing_ok=True)
            self.extensions = []
            return
        top = Path("." if self.inplace else self.build_lib)
        digests = {m: _compiled["digest"](str(ROOT / _source(m))) for m in MODULES}
        (top / "openptxas" / MANIFEST).write_text(json.dumps(digests, indent=1, sort_keys=True))


def _ext_modules() -> list[Any]:
    if not (BUILDING and _wanted()):
        return []
    try:
        return _extensions()
    except (Exception, SystemExit) as exc:  # mypyc's type check or code generation
        if MODE != "auto":
            raise
        _say(f"building pure Python: mypyc failed ({exc})")
        return []


ext_modules = _ext_modules()
setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildExt})
