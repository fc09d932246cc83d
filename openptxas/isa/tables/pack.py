"""Packed instruction tables: each family module's literals, marshalled beside it.

A family module (``sm90.py``) is about 1 MB of Python literals. Importing it is cheap when
Python can keep its byte code, but compiling it takes most of a second, and that happens in
every process where byte code is not written or not kept (``PYTHONDONTWRITEBYTECODE``, a
read-only install, an editable checkout on a fresh machine). ``<family>.marshal`` holds the
same literals as ``marshal`` data, with the SHA-256 of the module's source: the loader uses it
only when that digest matches, so a module edited without repacking is still read (slowly) and
never answered from stale data. ``python -m openptxas.isa.tables.pack`` repacks every family
(run it after ``python scripts/isa_learn.py learn``: tests/isa/test_table_pack.py fails until
the packs match the modules; isa_learn.py itself is left alone, since the table's inputs digest
covers it).
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# the literals a family module may define (openptxas.isa.family)
NAMES = ("FAMILY", "BASE", "REG_ZERO", "FORMS", "DROP")


def source_digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


def load(name: str) -> dict[str, Any] | None:
    """The literals of family ``name`` from its pack, or None (no pack, or a stale one)."""
    try:
        source = (HERE / f"{name}.py").read_bytes()
        packed = (HERE / f"{name}.marshal").read_bytes()
        blob = marshal.loads(packed)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(blob, dict) or blob.get("digest") != source_digest(source):
        return None
    lits = blob.get("literals")
    return lits if isinstance(lits, dict) else None


def pack(name: str) -> Path:
    """Write ``<name>.marshal`` from the module ``<name>.py`` (its literals, run as Python)."""
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    ns: dict[str, Any] = {}
    exec(compile(source, str(path), "exec"), ns)
    lits = {k: ns[k] for k in NAMES if k in ns}
    out = HERE / f"{name}.marshal"
    # marshal format 4: data only (tuples, dicts, ints, strings, bools, None), deterministic
    out.write_bytes(marshal.dumps({"digest": source_digest(source), "literals": lits}, 4))
    return out


def families() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.py") if p.stem not in ("__init__", "pack"))


def main(argv: list[str] | None = None) -> int:
    for name in argv if argv else families():
        print(pack(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
