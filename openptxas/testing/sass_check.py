"""Compare openptxas's SASS listing of a cubin with nvdisasm's (tests and scripts only).

``compare_cubin(cubin, listing)`` decodes every code section with the ISA table, prints it as
``openptxas-sass dis`` does (labels, BRX target lists, nvdisasm's column layout), re-encodes each
instruction, and compares both with ``nvdisasm -hex -c``'s listing of the same cubin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openptxas.isa.codec import encode
from openptxas.isa.listing import listing_width, section_texts
from openptxas.isa.model import Unknown
from openptxas.testing.oracle import parse_nvdisasm
from openptxas.tools.sass_cli import disassemble_cubin


@dataclass
class CubinCheck:
    """Per-instruction results for one cubin."""

    instructions: int = 0
    decoded: int = 0
    bit_exact: int = 0
    same_text: int = 0
    problems: list[str] = field(default_factory=list)
    # (kind, word, nvdisasm's text, ours) per failure; kind: "unknown", "encode", "text"
    failures: list[tuple[str, int, str, str]] = field(default_factory=list)


def compare_cubin(cubin: bytes, listing: str) -> CubinCheck:
    """Our decoding, re-encoding and listing of ``cubin`` against nvdisasm's ``listing``."""
    fam, sections = disassemble_cubin(cubin)
    ref = parse_nvdisasm(listing)
    res = CubinCheck()
    width = listing_width(sections, fam)
    for sec in sections:
        theirs = ref[sec.name]
        if len(theirs) != len(sec.items):
            res.problems.append(f"{sec.name}: {len(sec.items)} words, nvdisasm {len(theirs)}")
            continue
        texts = section_texts(sec, fam, width=width)
        for n, item in enumerate(sec.items):
            addr = 16 * n
            res.instructions += 1
            word, ref_text = theirs[n].word, theirs[n].text
            if isinstance(item, Unknown):
                res.problems.append(f"{sec.name}/{addr:04x}: unknown {ref_text}")
                res.failures.append(("unknown", word, ref_text, ""))
                continue
            res.decoded += 1
            back = encode(item, fam, addr)
            if back == word:
                res.bit_exact += 1
            else:
                res.problems.append(f"{sec.name}/{addr:04x}: re-encodes differently")
                res.failures.append(("encode", word, ref_text, f"{back:032x}"))
            ours = texts[n].removesuffix(";").rstrip()
            if ours == ref_text:
                res.same_text += 1
            else:
                res.problems.append(f"{sec.name}/{addr:04x}: {ours!r} != nvdisasm {ref_text!r}")
                res.failures.append(("text", word, ref_text, ours))
    return res
