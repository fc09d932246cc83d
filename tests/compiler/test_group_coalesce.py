"""Values built into register groups in place (regalloc/coalesce.py) against ptxas.

A texture's RGBA result stored with one STG.E.128 (t2/texture_fetch's fetch_2d_rgba: ptxas's
TEX writes the quad's registers; ours copied two pairs with four MOVs), surface coordinates
that arithmetic reads too (t2/surface_write's write_3d_u8: ptxas shifts straight into the
coordinate's register), and masks nothing reads all of (its ``and.b16 255`` after
``cvt.u16.u32``: passes/demanded.py): no more register copies and no more instructions than
ptxas's in those kernels, and outputs equal to ptxas's in the emulator with 0 hazards.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.compiler.test_vectorize import _kernel_as_ptxas

COPY = re.compile(r"^\s*(MOV R\d+, R\d+|IMAD\.MOV\.U32 R\d+, RZ, RZ, R\d+)\b")


def _listing(cubin: bytes, kernel: str) -> list[str]:
    from openptxas.tools.sass_cli import disassemble_cubin, format_section, listing_width

    fam, secs = disassemble_cubin(cubin)
    width = listing_width(secs, fam, False)
    out = []
    for s in secs:
        if s.name != kernel:
            continue
        for t in format_section(s, fam, False, False, False, width):
            m = re.match(r"\s*/\*[0-9a-f]+\*/\s*(.*?)\s*;?\s*$", t)
            if m and not m.group(1).startswith(("NOP", "BRA")):
                out.append(m.group(1))
    assert out, kernel
    return out


@pytest.mark.parametrize(
    ("name", "kernels"),
    [
        ("t2/texture_fetch", ("fetch_2d_rgba", "fetch_2d", "fetch_3d")),
        ("t2/surface_write", ("write_2d_rgba", "write_3d_u8", "write_layered_f4")),
    ],
)
def test_no_more_copies_than_ptxas(name: str, kernels: tuple[str, ...], oracle: Any) -> None:
    ours, theirs = _kernel_as_ptxas(name, oracle)
    for k in kernels:
        mine, its = _listing(ours, k), _listing(theirs, k)
        assert sum(bool(COPY.match(x)) for x in mine) <= sum(bool(COPY.match(x)) for x in its), k
        assert len(mine) <= len(its), (k, mine, its)
