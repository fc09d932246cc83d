"""The kernel corpus is complete and well-formed, every reference function runs on its launch's
inputs, and every kernel builds with NVIDIA's tools."""

import fnmatch
import functools
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from openptxas.spec import LaunchSpec, materialize, parse_spec_document
from openptxas.testing.corpus import (
    UNPARSED_NEEDS,
    KernelSource,
    discover,
    placeholder_document,
    target_sm,
)
from openptxas.testing.oracle import OracleError
from tests.conftest import need_tools

KERNELS = discover()
IDS = [k.name for k in KERNELS]

# Every "needs" tag a spec document may carry (tests/kernels/README.md).
KNOWN_NEEDS = {*UNPARSED_NEEDS, "tensor-map"}


def test_corpus_files_complete():
    for ks in KERNELS:
        assert ks.cu_path.with_suffix(".py").exists(), ks.name
        assert ks.raw_specs, ks.name
        assert ks.specs or ks.spec_error, ks.name
        for raw in ks.raw_specs:
            fname = ks.reference_name(raw)
            assert callable(getattr(ks.module(), fname, None)), (ks.name, fname)
            if "printf_reference" in raw:
                assert callable(getattr(ks.module(), raw["printf_reference"], None)), ks.name
        for spec in ks.specs:
            assert callable(ks.reference(spec)), (ks.name, spec.kernel)


def test_tier_rules():
    for ks in KERNELS:
        assert set(ks.needs) <= KNOWN_NEEDS, (ks.name, ks.needs)
        assert ks.targets(), f"{ks.name}: builds for no target"
        if ks.tier == "t3":
            assert all(target_sm(t) >= 80 for t in ks.targets()), ks.name
        if ks.tier == "t4":
            assert ks.targets() == ["sm_90a"], ks.name
        for raw in ks.raw_specs:
            block = [*raw.get("block", [1]), 1, 1][:3]
            assert block[0] * block[1] * block[2] <= 256, (ks.name, raw["kernel"])


def _bytes_value(arg: dict, base: Path) -> np.ndarray:
    """The raw bytes of a {"kind": "bytes"} argument, as the planned loader will give them to a
    reference: a uint8 array of ``size`` elements."""
    size = int(arg["size"])
    init = arg.get("init", "zeros")
    if init == "zeros":
        return np.zeros(size, dtype=np.uint8)
    data = bytes.fromhex(init["hex"]) if "hex" in init else (base / init["file"]).read_bytes()
    assert len(data) == size, f"bytes argument: {len(data)} bytes of init, size {size}"
    return np.frombuffer(data, dtype=np.uint8).copy()


def _launches(ks: KernelSource) -> list[tuple[dict, LaunchSpec, list[np.ndarray]]]:
    """(raw spec, parsed spec, initial argument values) for each launch. Documents that use a
    pending extension are parsed with placeholders, then the bytes arguments are filled in."""
    base = ks.cu_path.parent
    if ks.spec_error is None:
        return [(raw, s, materialize(s)) for raw, s in zip(ks.raw_specs, ks.specs, strict=True)]
    doc = placeholder_document({"kernels": ks.raw_specs})
    specs = parse_spec_document(doc, base)
    out = []
    for raw, s in zip(ks.raw_specs, specs, strict=True):
        vals = materialize(s)
        for i, a in enumerate(raw["args"]):
            if a["kind"] == "bytes":
                vals[i] = _bytes_value(a, base)
        out.append((raw, s, vals))
    return out


@pytest.mark.parametrize("ks", KERNELS, ids=IDS)
def test_references_run(ks):
    """Each reference returns, for exactly the out/inout arguments, an array of the argument's
    storage dtype and element count; a printf reference returns text."""
    for raw, spec, values in _launches(ks):
        fn = getattr(ks.module(), ks.reference_name(raw))
        got = fn([v.copy() for v in values], spec)
        want_keys = {i for i, a in enumerate(spec.args) if a.role in ("out", "inout")}
        assert set(got) == want_keys, (ks.name, spec.kernel, sorted(got), sorted(want_keys))
        for i, arr in got.items():
            a = spec.args[i]
            arr = np.asarray(arr)
            assert arr.dtype == a.np_dtype, (ks.name, spec.kernel, i, arr.dtype, a.np_dtype)
            assert arr.shape == (a.count,), (ks.name, spec.kernel, i, arr.shape, a.count)
        if "printf_reference" in raw:
            text = getattr(ks.module(), raw["printf_reference"])([v.copy() for v in values], spec)
            assert isinstance(text, str) and text.endswith("\n"), (ks.name, spec.kernel)


def test_pending_extensions_are_explained():
    for ks in KERNELS:
        if ks.spec_error is not None:
            assert any(n in UNPARSED_NEEDS for n in ks.needs), ks.name
            assert any(a.get("kind") == "bytes" for r in ks.raw_specs for a in r["args"])


@pytest.mark.parametrize("ks", KERNELS, ids=IDS)
def test_builds_for_sm90(ks, oracle):
    need_tools("nvcc", "ptxas", "nvdisasm")
    target = "sm_90" if ks.compiles_for("sm_90") else ks.targets()[0]
    try:
        b = oracle.build_kernel(ks, target)
    except OracleError as exc:
        pytest.fail(str(exc))
    sass = b.sass()
    for name in ks.kernel_names:
        assert name in sass, f"{ks.name}: no .text.{name} in the cubin"


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
