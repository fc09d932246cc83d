"""64-bit integer division and remainder as ptxas 13.0 compiles them (lower/div64.py): one
shared subroutine per form and kernel (``$__internal_N_$__cuda_sm20_div_u64`` ...), the same
weak symbols, numbered over the module as ptxas numbers them; the results equal ptxas's cubin's
in the emulator (0 hazards) on every pair of special values (0, 1, -1, INT64_MIN, INT64_MAX,
2^32 +- 1, ...) and random operands of several magnitudes, at -O3 and -O0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from openptxas.driver import compile_ptx
from openptxas.elf.consts import SymbolBind
from openptxas.elf.describe import describe
from openptxas.elf.reader import read_cubin
from openptxas.options import Options
from tests.conftest import need_tools, run_ours

PTX = Path(__file__).parent / "data" / "div64.ptx"
SPECIAL = [
    0,
    1,
    2,
    3,
    7,
    0xFFFFFFFF,
    0x100000000,
    0x100000001,
    0x7FFFFFFFFFFFFFFF,
    0x8000000000000000,
    0x8000000000000001,
    0xFFFFFFFFFFFFFFFE,
    0xFFFFFFFFFFFFFFFF,
    0xFFFFFFFF00000000,
    999999999999999999,
    0xFFFFFFFFFFFFFFF9,  # -7
]
THREADS = 512


def operands(seed: int = 5) -> np.ndarray:
    """(a, b) pairs: every pair of SPECIAL, then random ones of mixed magnitudes and signs."""
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a in SPECIAL for b in SPECIAL]
    while len(pairs) < THREADS:
        a, b = (int(rng.integers(0, 2**64, dtype=np.uint64)) for _ in range(2))
        a >>= int(rng.integers(0, 64))
        b >>= int(rng.integers(0, 64))
        pairs.append((a, b))
    return np.array(pairs[:THREADS], dtype=np.uint64)


def spec(kernel: str) -> dict[str, Any]:
    return {
        "kernel": kernel,
        "grid": [THREADS // 128, 1, 1],
        "block": [128, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u64", "count": THREADS * 12, "init": "zeros"},
            {
                "kind": "buffer",
                "dtype": "u64",
                "count": THREADS * 2,
                "init": {"hex": operands().tobytes().hex()},
            },
        ],
    }


def _subs(cubin: bytes) -> dict[str, list[tuple[str, int]]]:
    return {
        f.name: [(s.name, s.bind) for s in f.subroutines]
        for f in describe(read_cubin(cubin)).functions
    }


def test_subroutines_as_ptxas(oracle: Any) -> None:
    need_tools("ptxas")
    text = PTX.read_text()
    ours = compile_ptx(text, Options(arch="sm_90"), "t.ptx")
    theirs = oracle.ptxas(text, "sm_90", ())
    assert _subs(ours.cubin) == _subs(theirs.cubin)
    k1 = dict(_subs(ours.cubin)["k1"])
    assert sorted(k1) == [
        "$__internal_2_$__cuda_sm20_div_s64",
        "$__internal_3_$__cuda_sm20_div_u64",
        "$__internal_4_$__cuda_sm20_rem_s64",
        "$__internal_5_$__cuda_sm20_rem_u64",
    ]
    assert set(k1.values()) == {SymbolBind.WEAK}
    report = ours.verbose_report()
    assert "__cuda" not in report and "__internal" not in report


def test_one_call_per_instruction() -> None:
    from openptxas.lower import lower_function
    from openptxas.ptx import parse_and_check
    from openptxas.targets import get_target

    m = parse_and_check(PTX.read_text())
    k1 = next(f for f in m.entries if f.name == "k1")
    fn = lower_function(m, k1, get_target("sm_90"))
    assert sum(i.op == "CALL" for i in fn.instrs()) == 12
    assert len(fn.subroutines) == 4


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("kernel", ["k1", "k2"])
def test_same_as_ptxas(kernel: str, opt: int, oracle: Any) -> None:
    need_tools("ptxas")
    from openptxas.emu import run_launch

    text = PTX.read_text()
    want = run_launch(oracle.ptxas(text, "sm_90", (f"-O{opt}",)).cubin, spec(kernel), hazards=True)
    got = run_ours(text, spec(kernel), opt)
    w, g = want.outputs[0], got.outputs[0]
    assert np.array_equal(g, w), np.nonzero(g != w)[0][:10]
    if kernel == "k1":  # the definition, where it can be stated in Python
        ab = operands()
        o = g.reshape(THREADS, 12)
        for i in range(0, THREADS, 7):
            a, b = (int(x) for x in ab[i])
            assert o[i, 0] == (a // b if b else 2**64 - 1)
            assert o[i, 1] == (a % b if b else 2**64 - 1)


@pytest.mark.parametrize("opt", [3, 0])
def test_from_a_device_function(opt: int, oracle: Any) -> None:
    """Divisions in a ``.func`` called twice and in the kernel: the kernel's subroutines, called
    from both, as ptxas's (symbols and outputs)."""
    need_tools("ptxas")
    from openptxas.emu import run_launch

    text = (PTX.parent / "div64_func.ptx").read_text()
    theirs = oracle.ptxas(text, "sm_90", (f"-O{opt}",))
    if opt == 3:
        ours = compile_ptx(text, Options(arch="sm_90"), "t.ptx")
        assert _subs(ours.cubin) == _subs(theirs.cubin)
    want = run_launch(theirs.cubin, spec("k1"), hazards=True)
    got = run_ours(text, spec("k1"), opt)
    assert np.array_equal(got.outputs[0], want.outputs[0])
