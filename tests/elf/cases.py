"""The cubins the ELF tests run on: ptxas 13.0.88 output for the kernel corpus and tests/elf/ptx.

A case is one ptxas invocation: (PTX source, target, ptxas flags). Results come from the oracle
harness (cached by content hash, shared through ``$OPENPTXAS_ORACLE_CACHE``).

Variants: every PTX file is built plain, relocatable (``-c``) and with ``-lineinfo``; the
``*.G.ptx`` files (nvcc -G output, carrying DWARF) are built with ``-g`` (and ``-g -c``).

The tests (``all_cases(.., sample=True)``) build every kernel of the corpus for sm_90 and sm_90a
and one in ``SAMPLE`` for each other target (a stable choice by kernel and target, so that
each target sees other kernels): the whole corpus for every target is about 2,800 nvcc and
ptxas runs, five minutes of a fresh clone's CI (one in four was still four minutes of CPU on a
slow 2-core machine, 2026-11-28). ``tests/elf/sweep.py`` and
``OPENPTXAS_ELF_ALL=1`` take every kernel.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from openptxas.testing.corpus import ALL_TARGETS, DEFAULT_ROOT, discover
from openptxas.testing.oracle import Oracle

HERE = Path(__file__).resolve().parent
PTX_DIR = HERE / "ptx"

# Every target ptxas 13.0 builds that openptxas knows: the oracle's list plus sm_100a/sm_120a.
TARGETS: tuple[str, ...] = (*ALL_TARGETS, "sm_100a", "sm_120a")

_TARGET_RE = re.compile(r"^\s*\.target\s+(sm_\d+)([af]?)", re.MULTILINE)


def _sm(target: str) -> int:
    return int(target.removeprefix("sm_").rstrip("af"))


def ptx_targets(ptx: str) -> list[str]:
    """Targets a PTX file compiles for: its .target and above (arch-specific only for itself)."""
    m = _TARGET_RE.search(ptx)
    base, suffix = (m.group(1), m.group(2)) if m else ("sm_75", "")
    if suffix:
        return [base + suffix]
    return [t for t in TARGETS if _sm(t) >= _sm(base)]


# PTX that references undefined symbols: ptxas accepts it only with -c.
RELOCATABLE_ONLY = ("reloc.",)


def variants_for(name: str) -> list[tuple[str, ...]]:
    if name.startswith(RELOCATABLE_ONLY):
        if name.endswith(".G.ptx"):
            return [("-g", "-c")]
        return [("-c",), ("-lineinfo", "-c")]
    if name.endswith(".G.ptx"):
        return [("-g",), ("-g", "-c")]
    if name.endswith(".li.ptx"):
        return [(), ("-lineinfo",), ("-lineinfo", "-c")]
    return [(), ("-c",), ("-lineinfo",)]


@dataclass(frozen=True)
class Case:
    source: str  # "ptx/<file>" or "kernels/<tier>/<stem>"
    target: str
    flags: tuple[str, ...]
    ptx: str

    @property
    def id(self) -> str:
        fl = "".join(self.flags).replace("-", "_") or "_plain"
        return f"{self.source}@{self.target}{fl}"

    def cubin(self, oracle: Oracle) -> bytes:
        return self.result(oracle).cubin

    def result(self, oracle: Oracle):  # type: ignore[no-untyped-def]
        return oracle.ptxas(self.ptx, self.target, list(self.flags), subject=self.id)


def ptx_cases(targets: tuple[str, ...] = TARGETS) -> Iterator[Case]:
    for p in sorted(PTX_DIR.glob("*.ptx")):
        ptx = p.read_text()
        for t in ptx_targets(ptx):
            if t not in targets:
                continue
            for fl in variants_for(p.name):
                yield Case(f"ptx/{p.name}", t, fl, ptx)


def kernel_root() -> Path:
    """The kernel corpus (``$OPENPTXAS_ELF_KERNELS`` points the sweeps at another checkout's)."""
    env = os.environ.get("OPENPTXAS_ELF_KERNELS")
    return Path(env) if env else DEFAULT_ROOT


def kernel_cases(
    oracle: Oracle, targets: tuple[str, ...] = TARGETS, *, sample: bool = False
) -> Iterator[Case]:
    """The kernel corpus as the oracle harness builds it, plus -c and -lineinfo variants
    (``sample``: the tests' share of it, ``sampled``)."""
    for ks in discover(kernel_root()):
        for t in ks.targets():
            if t not in targets or (sample and not sampled(ks.name, t)):
                continue
            ptx = oracle.cu_to_ptx(ks.cu_path, t, ks.nvcc_flags, subject=ks.name)
            for extra in [(), ("-c",), ("-lineinfo",)]:
                yield Case(f"kernels/{ks.name}", t, (*ks.ptxas_flags, *extra), ptx)


SAMPLE = 6


def one_in(key: str, n: int) -> bool:
    """A stable one-in-``n`` choice by ``key`` (the same on every run and machine)."""
    return zlib.crc32(key.encode()) % n == 0


def sampled(name: str, target: str) -> bool:
    """Whether the tests build kernel ``name`` for ``target`` (see the module's docstring)."""
    if target in ("sm_90", "sm_90a") or os.environ.get("OPENPTXAS_ELF_ALL", "") == "1":
        return True
    return one_in(f"{name}@{target}", SAMPLE)


def all_cases(
    oracle: Oracle, targets: tuple[str, ...] = TARGETS, *, sample: bool = True
) -> list[Case]:
    return [*kernel_cases(oracle, targets, sample=sample), *ptx_cases(targets)]
