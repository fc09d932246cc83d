"""Every sm_90/sm_90a cubin of the kernel corpus: our disassembly equals nvdisasm's listing
(labels included) for every instruction, and every instruction re-encodes bit for bit."""

from __future__ import annotations

import pytest

from openptxas.isa.codec import encode
from openptxas.isa.listing import listing_width, section_texts
from openptxas.isa.model import Unknown
from openptxas.testing.corpus import discover
from openptxas.testing.oracle import Oracle, OracleError, parse_nvdisasm
from openptxas.tools.sass_cli import disassemble_cubin
from tests.conftest import need_tools

BUILDS = [(k, t) for k in discover() for t in ("sm_90", "sm_90a") if k.compiles_for(t)]


def compare_cubin(cubin: bytes, listing: str) -> list[str]:
    """Differences between our listing of ``cubin`` and nvdisasm's ``listing``."""
    fam, sections = disassemble_cubin(cubin)
    ref = parse_nvdisasm(listing)
    problems = []
    width = listing_width(sections, fam)
    for sec in sections:
        theirs = ref[sec.name]
        assert len(theirs) == len(sec.items), sec.name
        texts = section_texts(sec, fam, width=width)
        for n, item in enumerate(sec.items):
            addr = 16 * n
            if isinstance(item, Unknown):
                problems.append(f"{sec.name}/{addr:04x}: unknown {theirs[n].text}")
                continue
            if encode(item, fam, addr) != theirs[n].word:
                problems.append(f"{sec.name}/{addr:04x}: re-encodes differently")
            ours = texts[n].removesuffix(";").rstrip()
            if ours != theirs[n].text:
                problems.append(f"{sec.name}/{addr:04x}: {ours!r} != nvdisasm {theirs[n].text!r}")
    return problems


@pytest.mark.parametrize(("ks", "target"), BUILDS, ids=[f"{k.name}-{t}" for k, t in BUILDS])
def test_corpus_cubin(ks, target, oracle: Oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("nvcc", "ptxas", "nvdisasm")
    try:
        build = oracle.build_kernel(ks, target)
    except OracleError as exc:
        pytest.skip(f"the corpus kernel does not build: {exc}")
    problems = compare_cubin(build.ptxas.cubin, build.sass_text)
    assert not problems, "\n".join(problems[:20])
