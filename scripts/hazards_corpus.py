"""The ptxas cubins the latency model is mined from and checked on (shared by
scripts/hazards_mine.py, scripts/hazards_check.py and scripts/hazards_mutations.py).

Two sources:
- ``kernels``: ptxas's sm_90/sm_90a cubins of tests/kernels (nvcc -ptx, then ptxas, through the
  oracle harness and its cache);
- ``public``: the public corpus (``$OPENPTXAS_PUBLIC_CORPUS``, default
  /work/main/.cache/public-corpus; its manifest.json lists the cubins).

A held-out split is by source: ``--half 0``/``--half 1`` keeps the sources whose name hashes
even/odd (both targets of a source fall in the same half).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))


@dataclass(frozen=True)
class CorpusCubin:
    source: str  # what the split hashes: the kernel source (both targets together)
    name: str  # source [target]
    path: Path | None
    load: object  # () -> bytes

    def data(self) -> bytes:
        return self.load()  # type: ignore[operator,no-any-return]


def half_of(source: str) -> int:
    return hashlib.sha256(source.encode()).digest()[0] & 1


SM90 = ("sm_90", "sm_90a")


def targets_of(target: str) -> tuple[str, ...]:
    """The corpus targets a model for ``target`` is mined from and checked on: sm_90 and
    sm_90a together (one model), any other target alone."""
    return SM90 if target in SM90 else (target,)


def kernels_cubins(targets: tuple[str, ...] = SM90) -> Iterator[CorpusCubin]:
    from openptxas.testing.corpus import discover
    from tests.emu.harness import _cubin

    for ks in discover():
        for t in targets:
            if ks.compiles_for(t):
                yield CorpusCubin(
                    ks.name, f"{ks.name} [{t}]", None,
                    lambda n=ks.name, t=t: _cubin(n, t),
                )  # fmt: skip


def _manifest_entries(doc: object) -> Iterator[dict[str, object]]:
    if isinstance(doc, dict):
        for key in ("cubins", "entries", "items", "files"):
            if isinstance(doc.get(key), list):
                yield from (e for e in doc[key] if isinstance(e, dict))
                return
        for v in doc.values():
            if isinstance(v, dict) and any(str(x).endswith(".cubin") for x in v.values()):
                yield v
    elif isinstance(doc, list):
        yield from (e for e in doc if isinstance(e, dict))


def public_cubins(root: Path = PUBLIC) -> Iterator[CorpusCubin]:
    man = root / "manifest.json"
    if not man.exists():
        return
    doc = json.loads(man.read_text())
    seen: set[Path] = set()
    for e in _manifest_entries(doc):
        if e.get("status", "ok") != "ok":
            continue
        p = None
        for key in ("cubin", "path", "file"):
            v = e.get(key)
            if isinstance(v, str) and v.endswith(".cubin"):
                p = Path(v) if Path(v).is_absolute() else root / v
                break
        if p is None or p in seen or not p.exists():
            continue
        seen.add(p)
        src = str(e.get("source") or e.get("name") or p.relative_to(root).with_suffix(""))
        if e.get("repo"):
            src = f"{e['repo']}:{src}"
        src = src.replace("sm_90a", "sm_90")
        name = str(e.get("id") or p.relative_to(root))
        yield CorpusCubin(src, name, p, lambda p=p: p.read_bytes())
    if not seen:
        for p in sorted(root.rglob("*.cubin")):
            rel = str(p.relative_to(root))
            yield CorpusCubin(rel.replace("sm_90a", "sm_90"), rel, p, lambda p=p: p.read_bytes())


def corpus(
    which: str, half: int | None = None, targets: tuple[str, ...] = SM90
) -> Iterator[CorpusCubin]:
    """``which``: kernels, public or all (the public corpus is sm_90's only)."""
    srcs: list[Iterator[CorpusCubin]] = []
    if which in ("kernels", "all"):
        srcs.append(kernels_cubins(targets))
    if which in ("public", "all") and targets == SM90:
        srcs.append(public_cubins())
    for it in srcs:
        for c in it:
            if half is None or half_of(c.source) == half:
                yield c
