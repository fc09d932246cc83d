"""Test helpers: build corpus kernels with ptxas (oracle harness), decode them, run them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from openptxas.emu.launch import LaunchResult, launch
from openptxas.emu.model import Instruction
from openptxas.emu.program import Decoder
from openptxas.spec import LaunchSpec, materialize
from openptxas.testing.corpus import KernelSource, compare_outputs, discover
from openptxas.testing.oracle import BuildResult, Oracle
from tests.emu.nvtext import parse_listing


def listing_decoder(sass_text: str) -> Decoder:
    """A decoder answering from an nvdisasm listing of the same cubin."""
    funcs = parse_listing(sass_text)

    def decode(section: str, code: bytes) -> Mapping[int, Instruction]:
        return funcs[section.removeprefix(".text.")]

    return decode


def text_decoder_for(cubin: bytes) -> Decoder:
    return listing_decoder(Oracle().nvdisasm(cubin))


def emu_target(ks: KernelSource) -> str | None:
    """The sm_90 flavour the corpus builds this kernel for (T4 kernels need sm_90a)."""
    if ks.compiles_for("sm_90"):
        return "sm_90"
    if ks.compiles_for("sm_90a"):
        return "sm_90a"
    return None


@dataclass
class Case:
    ks: KernelSource
    target: str
    spec: LaunchSpec

    @property
    def id(self) -> str:
        return f"{self.ks.name}:{self.spec.kernel}"

    def build(self) -> BuildResult:
        return Oracle().build_kernel(self.ks, self.target)


def corpus_cases(tiers: tuple[str, ...] = ("t1", "t2", "t3", "t4")) -> Iterator[Case]:
    for ks in discover(tiers=tiers):
        tgt = emu_target(ks)
        if tgt is None:
            continue
        for spec in ks.specs:
            yield Case(ks, tgt, spec)


def isa_decoder() -> Decoder:
    from openptxas.emu.decode import isa_decoder as dec

    return dec("sm90")


def run_case(case: Case, decoder: str = "isa", **kw: Any) -> LaunchResult:
    """Run a corpus launch; ``decoder``: "isa" (the ISA tables, as the package runs) or "text"
    (nvdisasm's listing of the same cubin)."""
    b = case.build()
    dec = isa_decoder() if decoder == "isa" else listing_decoder(b.sass_text)
    return launch(b.ptxas.cubin, case.spec, decoder=dec, **kw)


def check_case(case: Case, result: LaunchResult) -> list[str]:
    """Mismatches between the emulator's results and the kernel's numpy reference."""
    spec = case.spec
    args = materialize(spec)
    want = case.ks.reference(spec)([a.copy() for a in args], spec)
    problems = compare_outputs(spec, result.outputs, {k: np.asarray(v) for k, v in want.items()})
    pr = spec.extra.get("printf_reference")
    if pr:
        text = getattr(case.ks.module(), pr)([a.copy() for a in args], spec)
        if text != result.printf:
            problems.append(f"printf output differs: got {result.printf!r}, expected {text!r}")
    return problems
