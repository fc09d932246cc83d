"""Triton (pip ``triton``, no GPU) compiling real kernels through openptxas, two ways:

- **subprocess**: ``TRITON_PTXAS_BLACKWELL_PATH`` (Triton 3.9 reads it for capability >= 90;
  ``TRITON_PTXAS_PATH`` below 90) names a script running ``python -m openptxas``; Triton runs
  ``--version`` on it and then its usual command line. ``OPENPTXAS_LOG`` proves which compiler
  ran (Triton silently falls back to its bundled ptxas when a path fails);
- **in-process**: :mod:`openptxas.integrations.triton` patches Triton's CUDA backend; no
  subprocess at all (``subprocess.run`` is made to fail inside the block).

Each kernel's cubin from openptxas and ptxas's cubin of the same PTX (``ptxas -arch=sm_90a``)
run in the emulator on the same launch spec: the outputs must be identical.
Skips cleanly when triton is not importable (it is an optional dependency).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")

from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
T4 = ROOT / "tests" / "kernels" / "t4"


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=m)


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(m, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=m)
    b = tl.load(b_ptr + cols, mask=m)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=m)


F32 = "*fp32"
SCRATCH = {"kind": "buffer", "dtype": "u8", "count": 1, "init": "zeros"}  # Triton's 2 extra


def _t4_spec(stem: str) -> dict[str, Any]:
    doc = json.loads((T4 / f"{stem}.json").read_text())
    spec: dict[str, Any] = doc["kernels"][0]
    return spec


# name -> (function, signature, constexprs, options, launch spec)
KERNELS: dict[str, tuple[Any, dict[str, str], dict[str, Any], dict[str, Any], Any]] = {
    "vector_add": (
        vector_add,
        {"x_ptr": F32, "y_ptr": F32, "out_ptr": F32, "n": "i32"},
        {"BLOCK": 256},
        {"num_warps": 4},
        lambda: {
            "kernel": "vector_add",
            "grid": [4],
            "block": [128],
            "args": [
                {"kind": "buffer", "dtype": "f32", "count": 1000, "init": "random", "seed": 1},
                {"kind": "buffer", "dtype": "f32", "count": 1000, "init": "random", "seed": 2},
                {"kind": "buffer", "dtype": "f32", "count": 1000, "init": "zeros", "role": "out"},
                {"kind": "scalar", "dtype": "i32", "init": 1000},
                SCRATCH,
                SCRATCH,
            ],
        },
    ),
    "softmax": (
        softmax,
        {"out_ptr": F32, "in_ptr": F32, "in_stride": "i32", "out_stride": "i32", "n_cols": "i32"},
        {"BLOCK": 128},
        {"num_warps": 2},
        lambda: _t4_spec("triton_softmax"),
    ),
    "layernorm": (
        layernorm,
        {"x_ptr": F32, "y_ptr": F32, "w_ptr": F32, "b_ptr": F32, "stride": "i32", "n": "i32",
         "eps": "fp32"},
        {"BLOCK": 128},
        {"num_warps": 2},
        lambda: _t4_spec("triton_layernorm"),
    ),
}  # fmt: skip


def _compile(name: str) -> Any:
    fn, sig, consts, opts, _ = KERNELS[name]
    src = ASTSource(fn=fn, signature={**sig, **dict.fromkeys(consts, "constexpr")},
                    constexprs=consts)  # fmt: skip
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)


def _same_as_ptxas(name: str, kernel: Any) -> None:
    """openptxas's cubin (what Triton got) and ptxas's cubin of the same PTX compute the
    same outputs in the emulator."""
    from openptxas.emu import run_launch
    from openptxas.testing.oracle import Oracle

    need_tools("ptxas")
    ptx = kernel.asm["ptx"]
    assert ".version 9.0" in ptx  # the PTX ISA of the ptxas release openptxas reimplements
    theirs = Oracle().ptxas(ptx, "sm_90a", subject=name).cubin
    spec = KERNELS[name][4]()
    ours_r = run_launch(kernel.asm["cubin"], spec, hazards=True)
    theirs_r = run_launch(theirs, spec)
    assert not ours_r.hazards
    assert sorted(ours_r.outputs) == sorted(theirs_r.outputs)
    for k, v in theirs_r.outputs.items():
        np.testing.assert_array_equal(ours_r.outputs[k], v, err_msg=f"{name} output {k}")


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    return tmp_path


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_subprocess_env_variable(
    name: str, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapper = fresh_cache / "openptxas"
    wrapper.write_text(
        f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m openptxas "$@"\n'
    )
    wrapper.chmod(0o755)
    log = fresh_cache / "openptxas.log"
    monkeypatch.setenv("TRITON_PTXAS_BLACKWELL_PATH", str(wrapper))  # capability >= 90
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(wrapper))  # below 90
    monkeypatch.setenv("OPENPTXAS_LOG", str(log))
    kernel = _compile(name)
    runs = [line.split("\t") for line in log.read_text().splitlines()]
    assert ["--version"] in [r[3:] for r in runs], "Triton asked openptxas for its version"
    compiles = [r for r in runs if "--gpu-name=sm_90a" in r[3]]
    assert len(compiles) == 1 and compiles[0][2] == "0", runs  # openptxas compiled it
    assert "--regAllocOptLevel=2" in compiles[0][3] and "-lineinfo" in compiles[0][3]
    _same_as_ptxas(name, kernel)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_in_process_hook(name: str, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import openptxas.integrations.triton as ot

    def no_subprocess(*a: object, **k: object) -> None:
        raise AssertionError(f"a subprocess ran: {a}")

    with ot.enabled() as hook:
        monkeypatch.setattr(subprocess, "run", no_subprocess)
        monkeypatch.setattr(subprocess, "check_output", no_subprocess)
        kernel = _compile(name)
        monkeypatch.undo()
    assert hook.compiled == [name]
    assert "--regAllocOptLevel=2" in hook.command_lines[0]
    import triton.backends.nvidia.compiler as tc

    assert tc.CUDABackend.make_cubin is not ot._make_cubin  # uninstalled
    _same_as_ptxas(name, kernel)


def test_in_process_errors_are_ptxas_errors(fresh_cache: Path) -> None:
    """A PTX error reaches Triton as its PTXASError carrying openptxas's diagnostics."""
    from triton.runtime.errors import PTXASError

    import openptxas.integrations.triton as ot

    backend_cls = triton.backends.nvidia.compiler.CUDABackend
    with ot.enabled():
        backend = backend_cls(GPUTarget("cuda", 90, 32))
        opts = backend.parse_options({})
        with pytest.raises(PTXASError, match="Not a name of any known instruction"):
            backend.make_cubin(
                ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k() { bogus; }\n",
                {"name": "k"},
                opts,
                90,
            )


def test_docs_name_the_variables() -> None:
    doc = (ROOT / "docs" / "triton.md").read_text()
    for word in ("TRITON_PTXAS_BLACKWELL_PATH", "TRITON_PTXAS_PATH", "OPENPTXAS_LOG",
                 "openptxas.integrations.triton"):  # fmt: skip
        assert word in doc
    assert os.path.exists(ROOT / "openptxas" / "integrations" / "triton.py")
