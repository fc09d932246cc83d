"""The compiled build (mypyc: openptxas/compiled.py, setup.py) gives byte-identical output to pure
Python, on the kernels of tests/kernels/t4, tests/compiler/data and tests/ptx/data/nvcc at -O3
and -O0 (the two largest at -O3 only).

Both builds run in child processes from one copy of the package: one with the compiled
extensions (each of ``compiled.MODULES`` asserted to be loaded from its extension), one with
``OPENPTXAS_PURE_PYTHON=1`` (each asserted to be loaded from its source). The extensions come
from the package under test when it is a current compiled build (``OPENPTXAS_MYPYC=1 pip install
-e .``), else from a build of this tree with mypyc at its -O0 (the shipped build is -O3: the same
code, compiled by C at -O0 in two thirds of the time), cached under ``.cache/mypyc/<digest of the
compiler's sources>`` (under two minutes of CPU on CI's 2-core machine, once per change).
Skipped, with the reason, only where no compiled build can be had: mypyc or a C compiler with
Python's headers missing, or ``OPENPTXAS_TEST_COMPILED=0``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from openptxas import compiled
from openptxas.testing.corpus import REPO_ROOT

PACKAGE = REPO_ROOT / "openptxas"
KERNELS = sorted(
    p
    for p in [
        *(REPO_ROOT / "tests/kernels/t4").glob("*.ptx"),
        *(REPO_ROOT / "tests/compiler/data").glob("*.ptx"),
        *(REPO_ROOT / "tests/ptx/data/nvcc").glob("*.ptx"),
    ]
    # (the same source as arith.sm_90.ptx for an older .target: 7 s of the pure run)
    if p.name != "arith.sm_75.ptx"
)
# Compiled at -O3 only: the largest kernels, whose -O0 compiles took 19 of the pure run's 64 s
# of CPU (their -O3 runs and every other kernel's -O0 run stay)
O3_ONLY = ("triton_matmul_wgmma.ptx", "triton_matmul_mma.ptx")
# Not the compiler: never compiled, and no input to the compiled modules' build.
NOT_COMPILER = ("emu", "testing", "tools", "integrations")
OPT = "0"  # mypyc's optimisation level for the build made here (setup.py)

# Run in each child: compile every kernel at -O3 and -O0; print, as JSON, where each compiled
# module was loaded from and each result: the cubin's digest and the -v report without its
# compile time, or the error.
CHILD = r"""
import hashlib, importlib, json, sys
import openptxas
from openptxas import compiled
from openptxas.driver import compile_ptx
from openptxas.options import Options

files = {m: importlib.import_module(m).__file__ for m in compiled.MODULES}
out = {}
for arg in sys.argv[1:]:
    path, levels = arg.split("@")
    text = open(path).read()
    for level in map(int, levels):
        try:
            res = compile_ptx(text, Options(arch="sm_90a", opt_level=level), path)
            report = [l for l in res.verbose_report().splitlines() if "Compile time" not in l]
            got = hashlib.sha256(res.cubin).hexdigest() + "\n" + "\n".join(report)
        except Exception as exc:
            got = f"error: {type(exc).__name__}: {exc}"
        out[f"{path} -O{level}"] = got
print(json.dumps({"package": openptxas.__file__, "state": compiled.state, "files": files,
                  "results": out}))
"""


def _is_extension(path: str) -> bool:
    return any(path.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES)


def _no_build_reason() -> str:
    if os.environ.get("OPENPTXAS_TEST_COMPILED", "") == "0":
        return "OPENPTXAS_TEST_COMPILED=0"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it comes with mypy: pip install -e '.[test]')"
    why = compiled.c_build_blocker()
    return f"{why} to build the mypyc extensions" if why else ""


def _sources_digest() -> str:
    """The compiler's sources, the build script, Python's and mypyc's versions."""
    import mypy.version

    h = hashlib.sha256(f"{sys.version} {mypy.version.__version__} -O{OPT}".encode())
    files = [REPO_ROOT / "setup.py"]
    for p in sorted(PACKAGE.rglob("*.py")):
        if p.relative_to(PACKAGE).parts[0] not in NOT_COMPILER:
            files.append(p)
    for p in files:
        h.update(str(p.relative_to(REPO_ROOT)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build at a time (xdist workers, or two checkouts sharing the cache)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _built_extensions() -> Path:
    """A directory holding a compiled build of this tree's compiler (extensions and manifest at
    their places under ``openptxas/``, the shared library at the top): built once per digest."""
    cache = REPO_ROOT / ".cache" / "mypyc"
    out = cache / _sources_digest()
    with _locked(cache / "lock"):
        if (out / "lib" / "openptxas" / compiled.MANIFEST).exists():
            return out / "lib"
        shutil.rmtree(out, ignore_errors=True)
        # (C at -O0: the same code, 100 s of CPU here instead of 150; the shipped build is -O3)
        env = {**os.environ, "OPENPTXAS_MYPYC": "1", "OPENPTXAS_MYPYC_C_DIR": str(out / "c")}
        env["OPENPTXAS_MYPYC_OPT"] = OPT
        args = [sys.executable, "setup.py", "-q", "build_ext"]
        args += ["--build-lib", str(out / "lib"), "--build-temp", str(out / "tmp")]
        proc = subprocess.run(args, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, (
            f"mypyc build failed:\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
        )
        # the manifest is written last: its presence marks a complete build
        assert (out / "lib" / "openptxas" / compiled.MANIFEST).exists()
        for old in cache.iterdir():  # keep the newest few builds
            if old.is_dir() and old != out and old.stat().st_mtime < out.stat().st_mtime - 86400:
                shutil.rmtree(old, ignore_errors=True)
        return out / "lib"


def _compiled_tree(tmp: Path) -> Path:
    """A directory whose ``openptxas`` is this tree's package with a compiled build in it."""
    found = compiled.extensions()
    if set(found) == set(compiled.MODULES) and not compiled.stale(found):
        return REPO_ROOT  # the package under test is itself a current compiled build
    why = _no_build_reason()
    if why:
        pytest.skip(f"no compiled build available: {why}")
    lib = _built_extensions()
    root = tmp / "compiled"
    shutil.copytree(
        PACKAGE,
        root / "openptxas",
        ignore=lambda d, names: [
            n for n in names if n == "__pycache__" or _is_extension(n) or n == compiled.MANIFEST
        ],
    )
    for p in lib.rglob("*"):
        if p.is_file():
            dest = root / p.relative_to(lib)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, dest)
    return root


def _levels(p: Path) -> str:
    return "3" if p.name in O3_ONLY else "30"


def _run(root: Path, cwd: Path, *, pure: bool) -> dict[str, object]:
    # (no IR verifier: the output is compared, and it would double the time)
    env = {k: v for k, v in os.environ.items() if k not in (compiled.PURE_ENV, "OPENPTXAS_VERIFY")}
    env["PYTHONPATH"] = str(root)
    if pure:
        env[compiled.PURE_ENV] = "1"
    args = [sys.executable, "-c", CHILD, *(f"{p}@{_levels(p)}" for p in KERNELS)]
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    data: dict[str, object] = json.loads(proc.stdout)
    assert str(data["package"]).startswith(str(root)), data["package"]
    return data


def test_compiled_build_output_is_byte_identical(tmp_path: Path) -> None:
    assert len(KERNELS) >= 20
    root = _compiled_tree(tmp_path)
    fast = _run(root, tmp_path, pure=False)
    slow = _run(root, tmp_path, pure=True)
    assert fast["state"] == "compiled", fast["state"]
    assert str(slow["state"]).startswith("pure"), slow["state"]
    fast_files, slow_files = fast["files"], slow["files"]
    assert isinstance(fast_files, dict) and isinstance(slow_files, dict)
    not_compiled = [m for m, f in fast_files.items() if not _is_extension(str(f))]
    assert not not_compiled, f"not run compiled: {not_compiled}"
    not_pure = [m for m, f in slow_files.items() if not str(f).endswith(".py")]
    assert not not_pure, f"not run as pure Python: {not_pure}"
    a, b = fast["results"], slow["results"]
    assert isinstance(a, dict) and isinstance(b, dict)
    assert len(a) == sum(len(_levels(p)) for p in KERNELS)
    differ = [k for k in b if a.get(k) != b[k]]
    assert not differ, f"compiled and pure Python differ on {len(differ)}: {differ[:10]}"
    # most of them compile (an error would compare as equal too, but should not be the rule;
    # 62 of 84 on 2026-11-28: tests/compiler/data holds inputs that must be refused)
    assert sum(not str(v).startswith("error:") for v in b.values()) >= len(b) * 2 // 3
