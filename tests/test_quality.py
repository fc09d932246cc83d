"""Code quality gates that CI enforces: ruff (lint + format), mypy --strict, import layers."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


def _need(module: str) -> None:
    if (
        shutil.which(module) is None
        and _run([sys.executable, "-m", module, "--version"]).returncode
    ):
        pytest.skip(f"{module} is not installed (the README's test command installs it)")


def test_ruff_lint():
    _need("ruff")
    p = _run([sys.executable, "-m", "ruff", "check", "."])
    assert p.returncode == 0, p.stdout + p.stderr


def test_ruff_format():
    _need("ruff")
    p = _run([sys.executable, "-m", "ruff", "format", "--check", "."])
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_strict():
    _need("mypy")
    p = _run([sys.executable, "-m", "mypy"])
    assert p.returncode == 0, p.stdout + p.stderr


def test_import_layers():
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (the README's test command installs it)")
    p = _run([exe])
    assert p.returncode == 0, p.stdout + p.stderr


def test_compiler_import_is_cheap():
    """The compiler's import path must not pull numpy or the test tools in."""
    code = (
        "import sys, openptxas.cli, openptxas.diag, openptxas.targets; "
        "bad = [m for m in ('numpy', 'subprocess', 'openptxas.testing') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    p = _run([sys.executable, "-c", code])
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "", f"imported on the compiler path: {p.stdout.strip()}"
