"""``.sat`` and ``.ftz`` on float conversions the lowering once ignored (wrong code: cvt.sat.f32.s32
of 5 gave 5.0): ``.sat`` of an f32 result from an integer, an f64 or an integer rounding is
FADD.SAT, ``cvt.ftz.f64.f32`` flushes a subnormal source first. Equal to ptxas's cubin and to
the PTX definition."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.conftest import need_tools, run_ours

PTX = (Path(__file__).parent / "data" / "cvt_float_sat_ftz.ptx").read_text()


def _f32(x: float) -> int:
    return int.from_bytes(struct.pack("<f", x), "little")


@pytest.mark.parametrize(
    ("a", "b", "c", "want"),
    [
        # cvt.sat.f32.s32, cvt.sat.f32.f64, cvt.ftz.f64.f32 (two words), cvt.rni.sat.f32.f32
        (5, 3.5, 1e-40, [_f32(1.0), _f32(1.0), 0, 0, 0]),
        (-3, -0.25, -1e-39, [0, 0, 0, 0x80000000, 0]),
        (
            0,
            0.5,
            3.7,
            [
                0,
                _f32(0.5),
                *struct.unpack(
                    "<2I", struct.pack("<d", float(struct.unpack("<f", struct.pack("<f", 3.7))[0]))
                ),
                _f32(1.0),
            ],
        ),
    ],
)
@pytest.mark.parametrize("opt", [3, 0])
def test_sat_and_ftz(a: int, b: float, c: float, want: list[int], opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [1, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 5, "init": "zeros"},
            {"kind": "scalar", "dtype": "i32", "count": 1, "init": a},
            {"kind": "scalar", "dtype": "f64", "count": 1, "init": b},
            {"kind": "scalar", "dtype": "f32", "count": 1, "init": c},
        ],
    }
    got = [int(w) for w in run_ours(PTX, spec, opt).outputs[0]]
    assert got == want
    assert got == [int(w) for w in run_launch(oracle.ptxas(PTX, "sm_90").cubin, spec).outputs[0]]
