"""End to end: the project's kernels through openptxas, checked by NVIDIA's disassembler and (when
the emulator is available) by running them against the numpy references.

Kernels that openptxas cannot compile yet are listed in KNOWN_GAPS with the reason; they are
strict xfails, so fixing one without updating the list fails the suite.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from openptxas.testing.corpus import discover
from openptxas.testing.sass_check import compare_cubin
from openptxas.testing.tools import find_tool
from tests.conftest import need_tools
from tests.emu.harness import compile_ours, emu_target

# every corpus kernel (all tiers), each for its own target
KERNELS = [k for k in discover() if emu_target(k) is not None]

# kernel name -> why openptxas refuses it yet (the first diagnostic; `python scripts/e2e_sweep.py`
# lists them): strict xfails, so a kernel that starts to compile must leave this list
KNOWN_GAPS: dict[str, str] = {  # kernel -> what is refused (" is not supported yet")
}


def _params(kernels):
    for ks in kernels:
        marks = []
        if ks.name in KNOWN_GAPS:
            marks.append(pytest.mark.xfail(reason=KNOWN_GAPS[ks.name], strict=True))
        yield pytest.param(ks, id=ks.name, marks=marks)


@pytest.mark.parametrize("ks", list(_params(KERNELS)))
def test_compiles_and_nvdisasm_accepts(ks, oracle, tmp_path: Path) -> None:
    need_tools("nvcc", "nvdisasm", "cuobjdump")
    cubin = compile_ours(ks, 3, oracle)
    assert cubin[:4] == b"\x7fELF"
    p = tmp_path / f"{ks.stem}.cubin"
    p.write_bytes(cubin)
    nvdisasm = find_tool("nvdisasm")
    cuobjdump = find_tool("cuobjdump")
    assert nvdisasm is not None and cuobjdump is not None
    r = subprocess.run([nvdisasm, "-c", str(p)], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "error" not in r.stderr, r.stderr
    r = subprocess.run([cuobjdump, "-sass", str(p)], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "error" not in r.stderr.lower(), r.stderr
    for spec in ks.specs:
        assert spec.kernel in r.stdout, f"{spec.kernel} missing from cuobjdump's listing"
    # nvdisasm's listing of our cubin equals our own decode, instruction by instruction
    res = compare_cubin(cubin, oracle.nvdisasm(cubin, ks.stem))
    assert not res.problems, "\n".join(res.problems[:20])
    assert res.instructions == res.decoded == res.bit_exact == res.same_text > 0


@pytest.mark.parametrize("ks", list(_params(KERNELS[:12])))
def test_deterministic_and_O0(ks, oracle) -> None:
    need_tools("nvcc")
    a = compile_ours(ks, 3, oracle)
    b = compile_ours(ks, 3, oracle)
    assert a == b, "two compiles of the same PTX differ"
    assert compile_ours(ks, 0, oracle)[:4] == b"\x7fELF"


_CUBINS: dict[tuple[str, int], bytes] = {}  # one compile per module and level, per worker

# kernels whose -O0 cubin is compared with ptxas's -O0 cubin, not its default (-O3) one: ptxas -O3
# fuses a multiply into the add that reads it where -O0 does not (div.full's last multiply)
SAME_LEVEL = {"t4/triton_layernorm"}


def _cases(kernels):
    from tests.emu.harness import Case

    for ks in kernels:
        for spec in ks.specs:
            marks = []
            if ks.name in KNOWN_GAPS:
                marks.append(pytest.mark.xfail(reason=KNOWN_GAPS[ks.name], strict=True))
            yield pytest.param(
                Case(ks, emu_target(ks), spec), id=f"{ks.name}:{spec.kernel}", marks=marks
            )


@pytest.mark.parametrize("case", list(_cases(KERNELS)))
@pytest.mark.parametrize("opt", [3, 0])
def test_runs_correctly_in_emulator(case, opt, oracle) -> None:
    """Our cubin, decoded by our ISA tables, runs in the emulator with the hazard checker on
    (and the static checker finds nothing on any path):
    no hazard, and every output equals the kernel's numpy reference."""
    need_tools("nvcc")
    from openptxas.emu import run_launch
    from tests.emu.harness import check_case, differences

    key = (case.ks.name, opt)
    if key not in _CUBINS:
        _CUBINS[key] = compile_ours(case.ks, opt, oracle)
    cubin = _CUBINS[key]
    result = run_launch(cubin, case.spec, hazards=True)
    assert not result.hazards, "\n".join(str(h) for h in result.hazards[:10])
    # and on every path, statically (the same latency model the control codes were made with)
    from openptxas.emu.decode import isa_decoder
    from openptxas.emu.program import load_module
    from openptxas.emu.static_hazards import StaticChecker

    mod = load_module(cubin, isa_decoder("sm90"))
    static = StaticChecker().check_kernel(mod, mod.kernel(case.spec.kernel))
    assert not static.undecoded and not static.reports, "\n".join(map(str, static.reports[:10]))
    problems = check_case(case, result)
    assert not problems, "\n".join(problems)
    # and ptxas's cubin of the same PTX computes the same words (two NaNs of a float buffer
    # are equal: PTX leaves NaN payloads open)
    theirs = case.cubin()
    if opt == 0 and case.ks.name in SAME_LEVEL:
        ptx = oracle.cu_to_ptx(case.ks.cu_path, case.target, case.ks.nvcc_flags)
        theirs = oracle.ptxas(ptx, case.target, [*case.ks.ptxas_flags, "-O0"]).cubin
    differs = differences(result, run_launch(theirs, case.spec))
    assert not differs, "\n".join(differs)
