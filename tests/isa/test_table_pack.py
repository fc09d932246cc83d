"""The packed instruction tables (openptxas/isa/tables/pack.py) are current and hold exactly the
family modules' literals, and the loader never answers from a stale pack."""

from __future__ import annotations

import importlib
import marshal
import shutil
from pathlib import Path

import pytest

from openptxas.isa.tables import pack


@pytest.mark.parametrize("name", pack.families())
def test_pack_is_current_and_equal_to_the_module(name: str) -> None:
    lits = pack.load(name)
    assert lits is not None, (
        f"{name}.marshal is missing or stale: python -m openptxas.isa.tables.pack"
    )
    mod = importlib.import_module(f"openptxas.isa.tables.{name}")
    assert lits == {k: getattr(mod, k) for k in pack.NAMES if hasattr(mod, k)}


def test_a_stale_pack_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for f in ("sm100.py", "sm100.marshal"):
        shutil.copy(pack.HERE / f, tmp_path / f)
    monkeypatch.setattr(pack, "HERE", tmp_path)
    assert pack.load("sm100") is not None
    src = tmp_path / "sm100.py"
    src.write_text(src.read_text() + "\n# edited\n")
    assert pack.load("sm100") is None  # the digest no longer matches: the module is read
    (tmp_path / "sm100.marshal").write_bytes(b"not marshal data")
    assert pack.load("sm100") is None
    (tmp_path / "sm100.marshal").write_bytes(marshal.dumps([1, 2]))
    assert pack.load("sm100") is None
