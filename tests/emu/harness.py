"""Test helpers: build corpus kernels with ptxas (oracle harness), run them in the emulator and
compare with their numpy references.

The emulator decodes the cubin with the ISA tables (``openptxas.isa``), as the package does. The
nvdisasm listing of the same cubin (tests/emu/nvtext.py) is a second, independent decoding, used
only as a cross-check (``decoder="text"``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from openptxas.emu.decode import UNDECODED, isa_decoder
from openptxas.emu.launch import LaunchResult, launch
from openptxas.emu.model import Instruction, control_from_word
from openptxas.emu.program import Decoder
from openptxas.spec import LaunchSpec, materialize
from openptxas.testing.corpus import KernelSource, compare_outputs, discover
from openptxas.testing.oracle import Oracle
from tests.emu.nvtext import parse_listing


def listing_decoder(sass_text: str) -> Decoder:
    """A decoder answering from an nvdisasm listing of the same cubin."""
    funcs = parse_listing(sass_text)

    def decode(section: str, code: bytes) -> Mapping[int, Instruction]:
        return funcs[section.removeprefix(".text.")]

    return decode


def text_decoder_for(cubin: bytes) -> Decoder:
    return listing_decoder(Oracle().nvdisasm(cubin))


def filled_decoder(cubin: bytes) -> Decoder:
    """The ISA decoder, with the words its tables cannot decode taken from nvdisasm's listing of
    ``cubin``; control fields always come from the code being decoded, so the decoder also
    serves cubins whose control codes were patched after ``cubin`` was listed (the hazard
    mutation tests, where the decoder is not what is under test)."""
    isa = isa_decoder("sm90")
    text: list[Decoder] = []

    def decode(section: str, code: bytes) -> Mapping[int, Instruction]:
        out = dict(isa(section, code))
        for pc, ins in out.items():
            if ins.opcode == UNDECODED:
                if not text:
                    text.append(text_decoder_for(cubin))
                t = text[0](section, code)[pc]
                word = int.from_bytes(code[pc : pc + 16], "little")
                out[pc] = replace(t, control=control_from_word(word))
        return out

    return decode


def emu_target(ks: KernelSource) -> str | None:
    """The sm_90 flavour the corpus builds this kernel for (T4 kernels need sm_90a)."""
    if ks.compiles_for("sm_90"):
        return "sm_90"
    if ks.compiles_for("sm_90a"):
        return "sm_90a"
    return None


def compile_ours(
    ks: KernelSource, opt: int = 3, oracle: Oracle | None = None, target: str | None = None
) -> bytes:
    """openptxas's cubin of a corpus kernel for ``target`` (default: :func:`emu_target`):
    nvcc's PTX for that target compiled with the kernel's own ptxas flags (e.g.
    -maxrregcount=32), as the oracle gives them to ptxas, at ``-O<opt>``, with the IR verifier
    on."""
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args

    target = target or emu_target(ks)
    assert target is not None, ks.name
    ptx = (oracle or Oracle()).cu_to_ptx(ks.cu_path, target, ks.nvcc_flags, subject=ks.name)
    flags = parse_args([*ks.ptxas_flags, f"-arch={target}", f"-O{opt}", "x.ptx"]).options
    return compile_ptx(ptx, replace(flags, verify=True), ks.stem + ".ptx").cubin


@functools.cache
def _cubin(name: str, target: str) -> bytes:
    ks = next(k for k in discover() if k.name == name)
    o = Oracle()
    ptx = o.cu_to_ptx(ks.cu_path, target, ks.nvcc_flags, subject=ks.name)
    return o.ptxas(ptx, target, ks.ptxas_flags, subject=f"{ks.name} [{target}]").cubin


@dataclass
class Case:
    ks: KernelSource
    target: str
    spec: LaunchSpec

    @property
    def id(self) -> str:
        return f"{self.ks.name}:{self.spec.kernel}"

    def cubin(self) -> bytes:
        """ptxas's cubin (nvcc -ptx, then ptxas; no disassembly)."""
        return _cubin(self.ks.name, self.target)


def corpus_cases(tiers: tuple[str, ...] = ("t1", "t2", "t3", "t4")) -> Iterator[Case]:
    for ks in discover(tiers=tiers):
        tgt = emu_target(ks)
        if tgt is None:
            continue
        for spec in ks.specs:
            yield Case(ks, tgt, spec)


def run_case(case: Case, decoder: str = "isa", **kw: Any) -> LaunchResult:
    """Run a corpus launch; ``decoder``: "isa" (the ISA tables, as the package runs), "text"
    (nvdisasm's listing of the same cubin, a cross-check) or "filled" (the ISA tables, nvdisasm
    for the words they lack: for scripts that are not about decoding)."""
    cubin = case.cubin()
    dec = {"isa": None, "text": text_decoder_for, "filled": filled_decoder}[decoder]
    dec = dec(cubin) if dec is not None else None
    return launch(cubin, case.spec, decoder=dec, **kw)


def expected(case: Case) -> tuple[dict[int, np.ndarray[Any, Any]], str | None]:
    """The reference outputs (by argument position) and, if the spec has one, printf text."""
    spec = case.spec
    args = materialize(spec)
    want = case.ks.reference(spec)([a.copy() for a in args], spec)
    pr = spec.extra.get("printf_reference")
    text = getattr(case.ks.module(), pr)([a.copy() for a in args], spec) if pr else None
    return {k: np.asarray(v) for k, v in want.items()}, text


def check_case(case: Case, result: LaunchResult) -> list[str]:
    """Mismatches between the emulator's results and the kernel's numpy reference."""
    want, text = expected(case)
    problems = compare_outputs(case.spec, result.outputs, want)
    if text is not None and text != result.printf:
        problems.append(f"printf output differs: got {result.printf!r}, expected {text!r}")
    return problems


def differences(ours: LaunchResult, theirs: LaunchResult) -> list[str]:
    """Output buffers (and printf text) of two launches of the same spec that differ bit for
    bit, except that two NaNs of a floating-point buffer are equal: PTX leaves NaN payloads and
    signs open (``neg.f32`` of a NaN: ptxas's FSEL keeps the flipped sign, our FADD
    canonicalises; both are right). Used to compare our cubin with ptxas's."""
    out = []
    for i, x in ours.outputs.items():
        y = theirs.outputs[i]
        if x.tobytes() == y.tobytes():
            continue
        if x.dtype.kind == "f" and x.shape == y.shape:
            xb = x.view(np.uint8).reshape((*x.shape, -1))
            yb = y.view(np.uint8).reshape((*y.shape, -1))
            diff = (xb != yb).any(axis=-1) & ~(np.isnan(x) & np.isnan(y))
            n = int(np.count_nonzero(diff))
            if n:
                out.append(f"arg{i}: {n} elements differ from ptxas's")
            continue
        xb = np.frombuffer(x.tobytes(), np.uint8)
        yb = np.frombuffer(y.tobytes(), np.uint8)
        n = int(np.count_nonzero(xb != yb)) if xb.size == yb.size else -1
        out.append(f"arg{i}: {n} bytes differ from ptxas's")
    if ours.printf != theirs.printf:
        out.append("printf output differs from ptxas's")
    return out
