"""Device-side launches (emu/cdp.py): ptxas's code for a parent grid that launches child grids,
which launch grandchildren, linked with the device runtime by nvlink as nvcc -rdc=true does,
runs in the emulator and matches a numpy reference; the census form ``CALL.ABS.NOINC `(f)``
binds to the device runtime's built-ins."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from openptxas.emu.cdp import FUNC_DESC_BASE, func_descs
from openptxas.emu.launch import bind_all, launch
from openptxas.emu.program import load_module
from openptxas.testing.oracle import Oracle
from openptxas.testing.tools import find_tool
from tests.conftest import need_tools

SRC = Path(__file__).parent / "data" / "cdp.cu"
BLOCKS, THREADS, PER_BLOCK = 3, 32, 64


def _cudadevrt() -> Path:
    """The directory of libcudadevrt.a: nvcc's library directories (``nvcc -dryrun``)."""
    nvcc = find_tool("nvcc")
    assert nvcc is not None
    proc = subprocess.run(
        [nvcc, "-dryrun", "-arch=sm_90", "-o", "a.out", "x.o"], capture_output=True, text=True
    )
    dirs = re.findall(r'-L"?([^"\s]+)', proc.stdout + proc.stderr)
    dirs += [str(Path(d).parent / "lib") for d in dirs]  # lib beside targets/<arch>/lib
    for d in dirs:
        if (Path(d) / "libcudadevrt.a").exists():
            return Path(d)
    top = re.search(r"TOP=(\S+)", proc.stdout + proc.stderr)
    for d in ("lib64", "lib") if top else ():
        p = Path(top.group(1)) / d  # type: ignore[union-attr]
        if (p / "libcudadevrt.a").exists():
            return p
    pytest.skip("libcudadevrt.a not found in nvcc's library directories")


@pytest.fixture(scope="module")
def linked() -> bytes:
    need_tools("nvcc", "ptxas", "nvlink")
    o = Oracle()
    ptx = o.cu_to_ptx(SRC, "sm_90", ["-rdc=true"])
    obj = o.ptxas(ptx, "sm_90", ["-c"]).cubin
    nvlink = find_tool("nvlink")
    assert nvlink is not None
    with tempfile.TemporaryDirectory() as td:
        (Path(td) / "cdp.cubin").write_bytes(obj)
        subprocess.run(
            [
                nvlink,
                "-arch=sm_90",
                f"-L{_cudadevrt()}",
                "-lcudadevrt",
                "cdp.cubin",
                "-o",
                "a.cubin",
            ],
            cwd=td,
            check=True,
            capture_output=True,
        )
        return (Path(td) / "a.cubin").read_bytes()


def _spec() -> dict[str, object]:
    n = BLOCKS * PER_BLOCK + BLOCKS * THREADS
    return {
        "kernel": "parent",
        "grid": [BLOCKS],
        "block": [THREADS],
        "args": [
            {"kind": "buffer", "dtype": "i32", "count": n, "init": -1, "role": "out"},
            {"kind": "buffer", "dtype": "i32", "count": BLOCKS, "role": "out"},
            {"kind": "scalar", "dtype": "i32", "init": PER_BLOCK},
        ],
    }


def _reference() -> tuple[np.ndarray, np.ndarray]:
    out = np.full(BLOCKS * PER_BLOCK + BLOCKS * THREADS, -1, np.int32)
    half = PER_BLOCK // 2
    for b in range(BLOCKS):
        seg = np.empty(PER_BLOCK, np.int64)
        for cb in range(2):  # the child: each block reverses its own values
            vals = [b * 1000 + (cb * half + t) * 3 for t in range(half)]
            seg[cb * half : (cb + 1) * half] = vals[::-1]
        out[b * PER_BLOCK : (b + 1) * PER_BLOCK] = seg * 2  # the grandchild doubles them
    out[BLOCKS * PER_BLOCK :] = np.tile(np.arange(THREADS), BLOCKS)
    return out, np.full(BLOCKS, 7, np.int32)  # cudaGetLastError() == cudaSuccess


def test_child_grids_run_after_their_parent(linked: bytes) -> None:
    res = launch(linked, _spec(), hazards=True)
    out, status = _reference()
    np.testing.assert_array_equal(res.outputs[0], out)
    np.testing.assert_array_equal(res.outputs[1], status)
    assert res.child_grids == 2 * BLOCKS  # 3 children, each with one grandchild
    assert not res.hazards, res.hazards


def test_launch_calls_bind_and_descriptors_are_patched(linked: bytes) -> None:
    module = load_module(linked)
    calls = set(module.kernel("parent").calls.values())
    assert {"__cudaCDP2GetParameterBufferV2", "__cudaCDP2LaunchDeviceV2"} <= calls
    _, fails = bind_all(linked)
    assert not [f for f in fails if f.kernel in ("parent", "child", "grandchild")]
    assert func_descs(module)["child"] >= FUNC_DESC_BASE


def test_limit_on_device_launches(linked: bytes) -> None:
    from openptxas.emu.errors import EmuLaunchError

    with pytest.raises(EmuLaunchError, match="device-side launches"):
        launch(linked, _spec(), max_child_grids=2)


def test_openptxas_relocatable_object_runs_the_same() -> None:
    """The same program compiled by ``openptxas -c`` (kernels' function descriptors, the device
    runtime's calls with 12-byte arguments) and linked with cudadevrt by nvlink."""
    import openptxas

    need_tools("nvcc", "nvlink")
    ptx = Oracle().cu_to_ptx(SRC, "sm_90", ["-rdc=true"])
    obj = openptxas.compile(ptx, args=["-c"], filename="cdp.ptx").cubin
    nvlink = find_tool("nvlink")
    assert nvlink is not None
    with tempfile.TemporaryDirectory() as td:
        (Path(td) / "cdp.o").write_bytes(obj)
        subprocess.run(
            [nvlink, "-arch=sm_90", f"-L{_cudadevrt()}", "-lcudadevrt", "cdp.o", "-o", "a.cubin"],
            cwd=td,
            check=True,
            capture_output=True,
        )
        res = launch((Path(td) / "a.cubin").read_bytes(), _spec(), hazards=True)
    out, status = _reference()
    np.testing.assert_array_equal(res.outputs[0], out)
    np.testing.assert_array_equal(res.outputs[1], status)
    assert res.child_grids == 2 * BLOCKS
    assert not res.hazards, res.hazards
