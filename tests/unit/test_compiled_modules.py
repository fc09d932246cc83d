"""The modules of the compiled build (openptxas/compiled.py) avoid what mypyc compiles differently
from Python, checked on their source so that it holds without a C compiler too
(tests/compiler/test_compiled_build.py compares the builds' output where one is available)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from openptxas import compiled


def _tree(module: str) -> ast.Module:
    return ast.parse(Path(compiled.source_path(module)).read_text(), module)


@pytest.mark.parametrize("module", compiled.MODULES)
def test_no_construct_that_mypyc_compiles_differently(module: str) -> None:
    tree = _tree(module)
    found: list[str] = []
    for node in ast.walk(tree):
        # a compiled class has no instance __dict__: cached_property becomes a plain property
        # (recomputed on every access), and nothing can be stored in or read from __dict__
        if isinstance(node, ast.Attribute) and node.attr in ("cached_property", "__dict__"):
            found.append(f"line {node.lineno}: {node.attr}")
        # a name has one type per function: `except A as e` and `except B as e` in one function
        # make the second a TypeError
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
            types: dict[str, set[str]] = {}
            for sub in ast.walk(node):
                if isinstance(sub, ast.ExceptHandler) and sub.name and sub.type is not None:
                    types.setdefault(sub.name, set()).add(ast.unparse(sub.type))
            found += [
                f"{getattr(node, 'name', 'module')}: except ... as {n} for {sorted(t)}"
                for n, t in types.items()
                if len(t) > 1
            ]
    assert not found, f"{module}: {found}"


def test_modules_exist_and_are_compiler_modules() -> None:
    for m in compiled.MODULES:
        assert Path(compiled.source_path(m)).is_file(), m
        assert m.split(".")[1] not in ("emu", "testing", "tools", "integrations"), m
