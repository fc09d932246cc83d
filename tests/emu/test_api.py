"""The Python API other parts use: ``openptxas.emu.run_launch(cubin, spec)`` and what the
benchmark's hook (bench/emu.py) reads from its result."""

from __future__ import annotations

import numpy as np
import pytest

import openptxas.emu as emu
from bench.emu import emulate, emulator_status
from openptxas.emu.launch import LaunchResult
from tests.conftest import need_tools
from tests.emu.harness import Case, corpus_cases, expected, filled_decoder


def _case(case_id: str) -> Case:
    return next(c for c in corpus_cases() if c.id == case_id)


def test_run_launch_result() -> None:
    need_tools("nvcc", "ptxas")
    case = _case("t1/vec_add:vec_add")
    r = emu.run_launch(case.cubin(), case.spec, hazards=True)
    assert isinstance(r, LaunchResult)
    want, _ = expected(case)
    assert sorted(r.outputs) == [0, 1, 2]
    np.testing.assert_array_equal(r.outputs[2], want[2])
    assert r.printf == "" and r.hazards == ()
    warps = case.spec.ctas * ((case.spec.threads + 31) // 32)
    assert r.warps == warps
    assert r.dynamic_instructions == sum(r.opcode_counts.values()) > 0
    assert r.dynamic_instructions % warps == 0  # every warp runs the same straight-line code
    # every warp-instruction issues at least one cycle after the previous one
    assert r.cycles == r.issue_cycles / warps >= r.dynamic_instructions / warps
    assert set(r.npz_dict()) == {"arg0", "arg1", "arg2"}


def test_run_launch_printf_and_spec_forms() -> None:
    need_tools("nvcc", "ptxas")
    case = _case("t2/printf:printf_blocks")
    _, text = expected(case)
    dec = filled_decoder(case.cubin())  # the ISA tables, nvdisasm where they lack a form
    r = emu.run_launch(case.cubin(), case.spec, decoder=dec)
    assert text is not None and r.printf == text
    # the corpus document itself (a dict holding several launches) with a kernel name
    doc = {"kernels": case.ks.raw_specs}
    r2 = emu.run_launch(case.cubin(), doc, kernel=case.spec.kernel, decoder=dec)
    assert r2.printf == r.printf
    # and the spec file, by path
    path = case.ks.cu_path.with_suffix(".json")
    r3 = emu.run_launch(case.cubin(), path, kernel="printf_blocks", decoder=dec)
    assert r3.printf == r.printf


def test_errors_are_typed() -> None:
    need_tools("nvcc", "ptxas")
    from openptxas.spec import SpecError

    case = _case("t1/vec_add:vec_add")
    bad = {"kernel": "vec_add", "grid": [1], "block": [32], "args": []}
    with pytest.raises(SpecError, match="takes 4 parameter"):
        emu.run_launch(case.cubin(), bad)
    with pytest.raises(emu.EmuLoadError, match="no kernel 'nope'"):
        emu.run_launch(case.cubin(), {**bad, "kernel": "nope"})


def test_bench_hook_agrees() -> None:
    need_tools("nvcc", "ptxas")
    case = _case("t1/vec_add:vec_add")
    assert emulator_status() == "available"
    fig = emulate(case.cubin(), case.spec)
    r = emu.run_launch(case.cubin(), case.spec)
    assert (fig.instructions, fig.cycles) == (r.dynamic_instructions, r.cycles)


def test_parameter_window() -> None:
    """A generic load from the parameter space reads the launch's parameter bytes."""
    need_tools("ptxas")
    from pathlib import Path

    from openptxas.testing.oracle import Oracle

    ptx = (Path(__file__).parent / "data/param_window.ptx").read_text()
    cubin = Oracle().ptxas(ptx, "sm_90").cubin
    words = np.arange(16, dtype=np.uint32) * 7 + 3
    spec = {
        "kernel": "param_window",
        "args": [
            {"kind": "bytes", "size": 64, "align": 8, "init": {"hex": words.tobytes().hex()}},
            {"kind": "buffer", "dtype": "u32", "count": 1, "role": "out"},
            {"kind": "scalar", "dtype": "u32", "init": 11},
        ],
    }
    r = emu.run_launch(cubin, spec, hazards=True)
    assert r.outputs[1].tolist() == [int(words[11])] and r.hazards == ()
    with pytest.raises(emu.KernelFault, match="out-of-bounds address"):
        emu.run_launch(
            cubin, {**spec, "args": [*spec["args"][:2], {**spec["args"][2], "init": 99}]}
        )
