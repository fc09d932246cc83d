"""Local memory and stack frames: nvcc's ``__local_depot`` frame, ``.local`` variables,
``ld/st.local``, ``cvta.local`` / ``cvta.to.local`` and generic accesses to the frame compute
what ptxas's cubin computes (emulator, hazard checker on, -O3 and -O0); the frame's size is
ptxas's in ``-v`` and in the cubin (EIATTR_FRAME_SIZE, MIN_STACK_SIZE), and the FDE defines the
CFA after the stack-pointer adjustment as ptxas writes it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

PTX = (Path(__file__).parent / "data" / "local_frame.ptx").read_text()
N = 128


def _spec() -> dict[str, object]:
    rng = np.random.default_rng(18)
    inp = rng.integers(0, 1 << 32, size=N * 4, dtype=np.uint64).astype(np.uint32)
    inp[:8] = [0, 1, 2, 3, 0xFFFFFFFF, 0x80000000, 7, 15]
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": N * 4,
             "init": {"hex": inp.astype("<u4").tobytes().hex()}},
            {"kind": "buffer", "dtype": "u32", "count": N * 16, "init": "zeros"},
            {"kind": "scalar", "dtype": "u32", "init": 0x80FF7F01},
        ],
    }  # fmt: skip


@pytest.mark.parametrize("opt", [3, 0])
def test_local_frame_same_as_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    spec = _spec()
    want = run_launch(oracle.ptxas(PTX, "sm_90").cubin, spec).outputs[1]
    got = run_ours(PTX, spec, opt).outputs[1]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]
    out = got.reshape(N, 16)
    assert np.all(out[:, 15] == 0)  # cvta.to.local(cvta.local(SPL)) == SPL
    assert np.all(out[:, 10] == 0xFF)  # ld.param.v2.u8: the byte at +2, zero-extended
    assert np.all(out[:, 11] == 0xFFFFFF80)  # the one at +3 (0x80), sign-extended by ld.local.s8


def _frame(cubin: bytes) -> tuple[int | None, int | None, bytes]:
    from openptxas.elf.describe import describe
    from openptxas.elf.reader import read_cubin

    f = describe(read_cubin(cubin)).functions[0]
    assert f.frame is not None
    return f.frame_size, f.min_stack, f.frame.fde


@pytest.mark.parametrize("opt", [3, 0])
def test_frame_records_as_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ref = oracle.ptxas(PTX, "sm_90", ["-v", f"-O{opt}"])
    ours = compile_ptx(PTX, Options(arch="sm_90", opt_level=opt, verbose=True), "k.ptx")
    line = "96 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    assert line in ref.log and line in ours.verbose_report()
    assert "96 bytes cumulative stack size" in ref.log
    assert "96 bytes cumulative stack size" in ours.verbose_report()
    size, min_stack, fde = _frame(ours.cubin)
    rsize, rmin, _ = _frame(ref.cubin)
    assert (size, min_stack) == (rsize, rmin) == (96, 96)
    # the CFA is defined once the stack pointer is lowered (the instruction after the LDC)
    assert fde[:5] == b"\x04" + (32 // 4).to_bytes(4, "little")


def test_frame_program_shapes() -> None:
    """The FDE programs ptxas writes (read off its cubins with scripts/probe_local.py)."""
    from openptxas.codegen import frame_program

    # no frame: unchanged
    assert frame_program(0x40, 0x100).hex() == "04140000000c8180802800042c000000"
    # frame, code that branches before the last EXIT: CFA = R1 + frame, then to the EXIT
    # (t2/local_array local_sort_hist: SP lowered at 0x40, 160 bytes, last EXIT at 0x1cf0)
    assert frame_program(0x100, 0x1CF0, 160, 0x40).hex() == "04140000000c81808028a0010428070000"
    # frame, straight-line code (local_scramble): CFA = R1 + 0 after the adjustment, no more
    assert frame_program(0x5D40, 0x5D40, 160, 0x30).hex() == "04100000000c8180802800"


def test_module_scope_local_refused() -> None:
    from openptxas.diag import UnsupportedFeature
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = PTX.replace(
        ".visible .entry k(", ".local .align 4 .b8 modloc[8];\n.visible .entry k("
    ).replace("ld.local.u32 	%r29, [extra];", "ld.local.u32 	%r29, [modloc];")
    with pytest.raises(UnsupportedFeature, match="module-scope local variable 'modloc'"):
        compile_ptx(ptx, Options(arch="sm_90"), "k.ptx")
