"""64-bit multiplies by constants, against ptxas in the emulator.

ptxas folds the constant of ``mul.lo.s64``/``mad.lo.s64`` into the multiply's immediate slots
(``IMAD.WIDE.U32 R18, R28, -0x3, R12``; a high word of all ones is a subtraction) and reads a
register set once by ``mov`` of an immediate as that constant (nvcc writes ``mov.u64 %rd8, -1;
mul.hi.s64 %rd9, %rd7, %rd8;``): its t2/mulhi64 code has no constant in a register and no sign
test of it. Ours moved the constant into registers (1.14 times ptxas's warp-instructions on
t2/mulhi64)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools

CONSTS = [3, -3, 0x100000003, -0x7FFFFFFF00000001, 0xFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 1 << 63, 7]

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<64>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u64 %rd5, [%rd4];
    add.s64 %rd6, %rd1, %rd3;
"""


def _kernel(body: list[str]) -> str:
    return HEAD + "\n".join(body) + "\n    ret;\n}\n"


def _stores(ops: list[str]) -> list[str]:
    """Each op writes %rd{10+i}; stored at out + 512*i + 8*tid."""
    out = []
    for i, op in enumerate(ops):
        r = 10 + i
        out.append("    " + op.format(d=f"%rd{r}"))
        out.append(f"    st.global.u64 [%rd6+{512 * i}], %rd{r};")
    return out


def _run(ptx: str, n: int, opt: int, oracle: Any) -> tuple[bytes, bytes]:
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    rng = np.random.default_rng(5)
    vals = rng.integers(0, 2**64, size=64, dtype=np.uint64)
    vals[:6] = [0, 1, 2**63, 2**64 - 1, 2**32, 2**32 - 1]
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u64", "count": 64 * n, "init": "zeros"},
            {"kind": "buffer", "dtype": "u64", "count": 64, "init": {"hex": vals.tobytes().hex()}},
        ],
    }
    theirs = oracle.ptxas(ptx, "sm_90", [f"-O{opt}"]).cubin
    ours = compile_ptx(ptx, Options(arch="sm_90", opt_level=opt, verify=True), "k.ptx").cubin
    want = run_launch(theirs, spec)
    got = run_launch(ours, spec, hazards=True)
    assert not got.hazards
    assert np.array_equal(got.outputs[0], want.outputs[0])
    return ours, theirs


def _count(cubin: bytes, op: str = "") -> int:
    """Instructions of ``op`` (every instruction but NOPs when empty) in the cubin's listing."""
    from openptxas.tools.sass_cli import disassemble_cubin, format_section, listing_width

    fam, secs = disassemble_cubin(cubin)
    width = listing_width(secs, fam, False)
    text = [t for s in secs for t in format_section(s, fam, False, False, False, width)]
    code = [t for t in text if t.lstrip().startswith("/*") and " NOP" not in t]
    return sum(1 for t in code if not op or f" {op} " in t or f" {op}." in t)


@pytest.mark.parametrize("opt", [3, 0])
def test_mul_lo_by_constants(opt: int, oracle: Any) -> None:
    ops = [f"mul.lo.s64 {{d}}, %rd5, {k};" for k in CONSTS]
    ops += [f"mad.lo.s64 {{d}}, %rd5, {k}, %rd5;" for k in CONSTS[:3]]
    ours, theirs = _run(_kernel(_stores(ops)), len(ops), opt, oracle)
    if opt == 3:
        assert _count(ours) <= _count(theirs)


@pytest.mark.parametrize("opt", [3, 0])
def test_mul_lo_in_place(opt: int, oracle: Any) -> None:
    """The result overwrites its source (``x = x * 3 + 1``, tests/compiler/data/div64.ptx's
    loop): the high word's products read the source before the low product overwrites it."""
    body = [f"    mov.u64 %rd{20 + i}, %rd5;" for i in range(len(CONSTS))]
    ops = [f"mad.lo.s64 %rd{20 + i}, %rd{20 + i}, {k}, 1;" for i, k in enumerate(CONSTS)]
    ops += [f"mul.lo.s64 %rd{30 + i}, %rd{20 + i}, {k};" for i, k in enumerate(CONSTS)]
    ops += [f"mul.lo.s64 %rd{30 + i}, %rd{30 + i}, {k};" for i, k in enumerate(CONSTS)]
    stores = [f"    st.global.u64 [%rd6+{512 * i}], %rd{30 + i};" for i in range(len(CONSTS))]
    _run(_kernel(body + ["    " + o for o in ops] + stores), len(CONSTS), opt, oracle)


@pytest.mark.parametrize("opt", [3, 0])
def test_mul_hi_by_constant_registers(opt: int, oracle: Any) -> None:
    body = []
    ops = []
    for i, k in enumerate(CONSTS):
        body.append(f"    mov.u64 %rd{40 + i}, {k};")
        ops.append(f"mul.hi.s64 {{d}}, %rd5, %rd{40 + i};")
        ops.append(f"mul.hi.u64 {{d}}, %rd{40 + i}, %rd5;")
    ours, theirs = _run(_kernel(body + _stores(ops)), len(ops), opt, oracle)
    if opt == 3:
        # the constants are immediates: no 64-bit constant is moved into registers and tested
        assert _count(ours, "ISETP") <= _count(theirs, "ISETP")
        assert _count(ours) <= _count(theirs) + 4
