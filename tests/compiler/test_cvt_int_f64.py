"""cvt between integers and f64, and integers to f16 (rn): our cubin equals ptxas's in the
emulator word for word on special and random values (-O3 and -O0), and the exact conversions
equal Python's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

PTX = (Path(__file__).parent / "data" / "cvt_int_f64_f16.ptx").read_text()
N = 256
SPECIAL_INTS = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 65504, 65520, 2049, 16777217, 3]
SPECIAL_F64 = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, 2.5, -0.5, -1.5, 2.0**31,
               -(2.0**31) - 1, 2.0**32, 4294967295.5, 9.3e18, -9.3e18, 1e300, -1e-300, 2.0**63,
               -(2.0**63)]  # fmt: skip


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(2)
    inp = np.zeros((N, 4), dtype=np.uint32)
    r = rng.integers(0, 1 << 32, size=N, dtype=np.uint64).astype(np.uint32)
    r[: len(SPECIAL_INTS)] = SPECIAL_INTS
    d = rng.standard_normal(N) * 1e6
    d[: len(SPECIAL_F64)] = SPECIAL_F64
    inp[:, 0] = r
    inp[:, 2:4] = d.view(np.uint32).reshape(N, 2)
    return inp


@pytest.mark.parametrize("opt", [3, 0])
def test_cvt_int_f64_same_as_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    inp = _inputs()
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": N * 16, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": N * 4,
             "init": {"hex": inp.astype("<u4").tobytes().hex()}},
        ],
    }  # fmt: skip
    want = run_launch(oracle.ptxas(PTX, "sm_90").cubin, spec).outputs[0]
    got = run_ours(PTX, spec, opt).outputs[0]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]
    out = got.reshape(N, 16)
    # s32 -> f64 and u32 -> f64 are exact
    r = inp[:, 0]
    assert np.array_equal(out[:, 2:4].copy().view(np.float64)[:, 0], r.view(np.int32).astype(float))
    assert np.array_equal(out[:, 4:6].copy().view(np.float64)[:, 0], r.astype(float))
