"""Test helpers: build corpus kernels with ptxas (oracle harness), decode them, run them."""

from __future__ import annotations

from collections.abc import Mapping

from openptxas.emu.model import Instruction
from openptxas.emu.program import Decoder
from openptxas.testing.oracle import Oracle
from tests.emu.nvtext import parse_listing


def listing_decoder(sass_text: str) -> Decoder:
    """A decoder answering from an nvdisasm listing of the same cubin."""
    funcs = parse_listing(sass_text)

    def decode(section: str, code: bytes) -> Mapping[int, Instruction]:
        name = section.removeprefix(".text.")
        return funcs[name]

    return decode


def text_decoder_for(cubin: bytes) -> Decoder:
    return listing_decoder(Oracle().nvdisasm(cubin))
