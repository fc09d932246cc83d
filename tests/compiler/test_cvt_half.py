"""cvt between f16/bf16 and f32 (rn, rz): our cubin equals ptxas's in the emulator word for word
on special and random values, and the f16 results equal numpy's IEEE conversions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

DATA = Path(__file__).parent / "data"
PTX = (DATA / "cvt_half.ptx").read_text()
# the same with cvt.rm.f16.f32 and cvt.rp.bf16.f32 (F2F, not F2FP)
PTX_RM_RP = (DATA / "cvt_half_rm_rp.ptx").read_text()
N = 256


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(1)
    h = rng.integers(0, 1 << 16, size=(N, 2), dtype=np.uint64).astype(np.uint16)
    special16 = [0, 0x8000, 0x3C00, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x03FF, 0x7F80,
                 0xFF80, 0x7FC0, 0x0080, 0x8001]  # fmt: skip
    h[: len(special16), 0] = special16
    h[: len(special16), 1] = special16
    f = (rng.standard_normal(N) * 1e3).astype(np.float32)
    special32 = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 65504, 65520, 65536, 6e-8,
                 3e-8, 1e38, -3.4e38, 1.0000001, 0.33333334]  # fmt: skip
    f[: len(special32)] = np.array(special32, dtype=np.float32)
    inp = np.zeros((N, 2), dtype=np.uint32)
    inp[:, 0] = h[:, 0].astype(np.uint32) | (h[:, 1].astype(np.uint32) << 16)
    inp[:, 1] = f.view(np.uint32)
    return inp


def _spec(inp: np.ndarray) -> dict[str, object]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": N * 4, "init": "zeros"},
            {
                "kind": "buffer",
                "dtype": "u32",
                "count": N * 2,
                "init": {"hex": inp.astype("<u4").tobytes().hex()},
            },
        ],
    }


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("ptx", [PTX, PTX_RM_RP], ids=["rn_rz", "rm_rp"])
def test_cvt_half_same_as_ptxas(ptx: str, opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    inp = _inputs()
    spec = _spec(inp)
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec).outputs[0]
    got = run_ours(ptx, spec, opt).outputs[0]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]
    # and the definition, where numpy has it: f16 -> f32 exactly, f32 -> f16 to nearest even
    out = got.reshape(N, 4)
    h1 = (inp[:, 0] & 0xFFFF).astype(np.uint16).view(np.float16)
    f1 = inp[:, 1].view(np.float32)
    as_f32 = out[:, 0].view(np.float32)
    ok = np.isnan(h1) & np.isnan(as_f32) | (h1.astype(np.float32).view(np.uint32) == out[:, 0])
    assert ok.all()
    rn16 = (out[:, 2] & 0xFFFF).astype(np.uint16).view(np.float16)
    ref = f1.astype(np.float16)
    assert (np.isnan(ref) & np.isnan(rn16) | (ref.view(np.uint16) == rn16.view(np.uint16))).all()
