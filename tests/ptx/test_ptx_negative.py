"""The negative suite: each malformed/invalid PTX file compared with ptxas 13.0.88 (the cached
golden ``NNN_name.ptxas`` beside it): same accept/reject decision on every file, same line of the
first error on at least 95% of them (see negsuite.py; ``python -m tests.ptx.negsuite`` prints
the table)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import need_tools
from tests.ptx.negsuite import NEG_DIR, arch_for, compare, files, golden, openptxas_answer

FILES = files()


def test_suite_has_at_least_150_invalid_files():
    rejected = [p for p in FILES if golden(p).rejects]
    assert len(rejected) >= 150, len(rejected)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_same_decision_as_ptxas(path):
    want = golden(path)
    got = openptxas_answer(path)
    assert got.rejects == want.rejects, (want.lines, got.lines)
    # every rejection is explained by at least one error or fatal message
    if got.rejects:
        assert got.first_error() is not None, got.lines


def test_first_error_line_rate():
    rows = compare()
    same_line = sum(r.same_line for r in rows)
    same_decision = sum(r.same_decision for r in rows)
    misses = [r.name for r in rows if not r.same_line]
    assert same_decision == len(rows)
    assert same_line >= 0.95 * len(rows), misses


def test_goldens_are_ptxas_output():
    """Re-run ptxas on every file (results cached by content hash) and compare with the golden
    files, so that they document ptxas's real behaviour."""
    need_tools("ptxas")
    from openptxas.testing.oracle import Cache
    from openptxas.testing.tools import require_tool, tool_version
    from scripts.ptx_negative_golden import run_ptxas

    cache = Cache()
    ptxas = require_tool("ptxas")
    stale = []
    for p in FILES:
        data = p.read_bytes()
        parts = {
            "step": "ptx-negative",
            "tool": tool_version("ptxas"),
            "arch": arch_for(data.decode(errors="replace")),
            "name": p.name,
        }
        key = cache.key(parts, [data])
        hit = cache.get(key)
        if hit is not None:
            got = hit[1]["answer.txt"].decode()
        else:
            got = run_ptxas(p, ptxas)
            cache.put(key, {"parts": parts}, {"answer.txt": got.encode()})
        if got != p.with_suffix(".ptxas").read_text():
            stale.append(p.name)
    assert not stale, (
        f"golden files differ from ptxas (rerun scripts/ptx_negative_golden.py): {stale}"
    )


def test_negative_dir_layout():
    for p in FILES:
        assert p.with_suffix(".ptxas").exists(), (
            f"{p.name}: no golden (scripts/ptx_negative_golden.py)"
        )
    assert NEG_DIR.is_dir()
    assert os.path.basename(FILES[0]).startswith("001_")
