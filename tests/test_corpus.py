"""The kernel corpus is complete and well-formed, and every kernel builds with NVIDIA's tools."""

import fnmatch
import functools
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from openptxas.spec import materialize
from openptxas.testing.corpus import discover
from openptxas.testing.oracle import OracleError
from tests.conftest import need_tools

KERNELS = discover()


def test_corpus_files_complete():
    for ks in KERNELS:
        assert ks.cu_path.with_suffix(".py").exists(), ks.name
        assert ks.specs, ks.name
        for spec in ks.specs:
            assert callable(ks.reference(spec)), (ks.name, spec.kernel)


@pytest.mark.parametrize("ks", KERNELS, ids=[k.name for k in KERNELS])
def test_builds_for_sm90(ks, oracle):
    need_tools("nvcc", "ptxas", "nvdisasm")
    target = "sm_90" if ks.compiles_for("sm_90") else ks.targets()[0]
    try:
        b = oracle.build_kernel(ks, target)
    except OracleError as exc:
        pytest.fail(str(exc))
    sass = b.sass()
    for spec in ks.specs:
        assert spec.kernel in sass, f"{ks.name}: no .text.{spec.kernel} in the cubin"


def _ref_cases():
    for ks in KERNELS:
        for k, spec in enumerate(ks.specs):
            yield pytest.param(ks, spec, id=f"{ks.name}[{k}]{spec.kernel}")


@pytest.mark.parametrize(("ks", "spec"), list(_ref_cases()))
def test_reference_runs_on_materialized_inputs(ks, spec):
    """Every reference runs on its spec's inputs and returns, for every out/inout buffer, an array
    of the buffer's storage dtype and length (arguments marked "check": false are not required)."""
    args = materialize(spec)
    got = ks.reference(spec)([a.copy() for a in args], spec)
    assert isinstance(got, dict), f"{ks.name}: the reference must return a dict"
    for i, a in enumerate(spec.args):
        if a.role not in ("out", "inout"):
            assert i not in got, f"{spec.kernel}: arg{i} is an input but the reference returns it"
            continue
        if a.extra.get("check", True) is False and i not in got:
            continue
        assert i in got, f"{spec.kernel}: no expected value for out arg{i}"
        v = np.asarray(got[i])
        assert v.dtype == a.np_dtype, f"{spec.kernel}: arg{i} dtype {v.dtype} != {a.np_dtype}"
        assert v.shape == (a.count,), f"{spec.kernel}: arg{i} shape {v.shape} != ({a.count},)"


HOSTSIM_GLOBS = ("t1/*", "t2/intdiv_*")
HOSTSIM_KERNELS = [ks for ks in KERNELS if any(fnmatch.fnmatch(ks.name, g) for g in HOSTSIM_GLOBS)]


@functools.cache
def _hostsim():
    path = Path(__file__).parent / "kernels" / "hostsim" / "hostsim.py"
    spec = importlib.util.spec_from_file_location("corpus_hostsim", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
@pytest.mark.parametrize("ks", HOSTSIM_KERNELS, ids=[k.name for k in HOSTSIM_KERNELS])
def test_reference_matches_hostsim(ks):
    """The kernel, run on the CPU by hostsim (g++ with ASan/UBSan, one thread per CUDA thread),
    produces exactly what its numpy reference says (an independent check of the reference)."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found (hostsim builds the kernels with it)")
    asan = subprocess.run(
        [gxx, "-print-file-name=libasan.so"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if not Path(asan).is_file():
        pytest.skip("libasan.so not found (hostsim runs kernels under AddressSanitizer)")
    outcome = _hostsim().check(ks.cu_path)
    assert outcome.ok, outcome.detail
