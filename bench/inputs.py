"""The PTX files to measure: the project's kernel corpus (through nvcc, cached by the oracle
harness) or every ``.ptx`` file under a directory.

A ``.ptx`` file with a launch-spec document of the same stem beside it (``k.ptx`` + ``k.json``)
gets the emulator and GPU columns too; corpus kernels always have their specs.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from openptxas.spec import LaunchSpec, SpecError, load_spec_file
from openptxas.testing.corpus import REPO_ROOT, discover
from openptxas.testing.oracle import Oracle, OracleError


@dataclass(frozen=True, slots=True)
class BenchInput:
    name: str
    target: str
    source: str
    ptx: str
    ptxas_flags: tuple[str, ...] = ()
    specs: tuple[LaunchSpec, ...] = ()
    specs_path: str = ""

    @property
    def key(self) -> str:
        return f"{self.name} [{self.target}]"


def display_path(p: Path) -> str:
    """A path relative to the repository root when inside it (stable across checkouts)."""
    try:
        return str(p.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def corpus_inputs(
    targets: Sequence[str],
    oracle: Oracle,
    pattern: str | None = None,
    root: Path | None = None,
) -> tuple[list[BenchInput], list[str]]:
    """Every corpus kernel built for each target; returns (inputs, notes on kernels left out)."""
    kernels = discover(root) if root is not None else discover()
    if pattern:
        kernels = [
            k
            for k in kernels
            if fnmatch.fnmatch(k.name, pattern) or fnmatch.fnmatch(k.stem, pattern)
        ]
    out: list[BenchInput] = []
    notes: list[str] = []
    for k in kernels:
        for t in targets:
            if not k.compiles_for(t):
                continue
            try:
                ptx = oracle.cu_to_ptx(k.cu_path, t, k.nvcc_flags, subject=k.name)
            except OracleError as exc:
                notes.append(f"{k.name} [{t}] left out: nvcc failed: {exc.tool_message.strip()}")
                continue
            out.append(
                BenchInput(
                    name=k.name,
                    target=t,
                    source=display_path(k.cu_path),
                    ptx=ptx,
                    ptxas_flags=tuple(k.ptxas_flags),
                    specs=tuple(k.specs),
                    specs_path=display_path(k.cu_path.with_suffix(".json")),
                )
            )
    return out, notes


def dir_inputs(
    directory: Path, targets: Sequence[str], pattern: str | None = None
) -> tuple[list[BenchInput], list[str]]:
    """Every ``.ptx`` under ``directory`` (recursively, sorted) for each target."""
    out: list[BenchInput] = []
    notes: list[str] = []
    for p in sorted(directory.rglob("*.ptx")):
        name = p.relative_to(directory).as_posix()
        if pattern and not fnmatch.fnmatch(name, pattern):
            continue
        specs: tuple[LaunchSpec, ...] = ()
        specs_path = ""
        js = p.with_suffix(".json")
        if js.exists():
            try:
                specs = tuple(load_spec_file(js))
                specs_path = display_path(js)
            except SpecError as exc:
                notes.append(f"{name}: launch specs ignored: {exc.message}")
        text = p.read_text(encoding="utf-8", errors="replace")
        for t in targets:
            out.append(BenchInput(name, t, display_path(p), text, (), specs, specs_path))
    return out, notes
