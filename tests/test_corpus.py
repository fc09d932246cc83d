"""The kernel corpus is complete and well-formed, and every kernel builds with NVIDIA's tools."""

import pytest

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
