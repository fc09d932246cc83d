"""``openptxas-emu run``: launch specs with data files, raw parameter bytes (24, 1216 and 6144
bytes), ``--in``/``--out``, device printf, ``{"kernels": [...]}`` documents with ``--kernel``,
clusters, and one clear error (non-zero exit, no traceback) for every way a spec or an input can
disagree with the kernel.

The kernels are tests/emu/data/params.cu, built by nvcc and ptxas (oracle harness). In-process
runs pass the CLI the ISA decoder with nvdisasm filling the words the ISA tables lack
(harness.filled_decoder); the subprocess runs use the installed command as it is.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from openptxas.emu.cli import main
from openptxas.testing.oracle import Oracle
from tests.conftest import need_tools
from tests.emu.harness import filled_decoder

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]
AFFINE = struct.pack("<ifdq", 100, 1.5, 0.25, 7)  # n, scale, offset, bias: 24 bytes


@pytest.fixture(scope="module")
def cubin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need_tools("nvcc", "ptxas")
    o = Oracle()
    ptx = o.cu_to_ptx(DATA / "params.cu", "sm_90")
    path = tmp_path_factory.mktemp("emu_cli") / "params.cubin"
    path.write_bytes(o.ptxas(ptx, "sm_90").cubin)
    return path


def _write(d: Path, name: str, doc: Any) -> Path:
    p = d / name
    p.write_text(json.dumps(doc))
    return p


def run(capsys: pytest.CaptureFixture[str], cubin: Path, *args: str) -> tuple[int, str, str]:
    rc = main(["run", str(cubin), *args], decoder=filled_decoder(cubin.read_bytes()))
    out, err = capsys.readouterr()
    return rc, out, err


def affine_spec(x: Any = None) -> dict[str, Any]:
    n = 100
    return {
        "kernel": "affine",
        "grid": [1],
        "block": [128],
        "args": [
            {"kind": "bytes", "size": 24, "align": 8, "init": {"hex": AFFINE.hex()}},
            {"kind": "buffer", "dtype": "f32", "count": n, "init": x or {"file": "x.npy"}},
            {"kind": "buffer", "dtype": "f64", "count": n, "role": "out"},
        ],
    }


def affine_ref(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    prod = (x.astype(np.float32) * np.float32(1.5)).astype(np.float64)
    return (prod + 0.25) + (7.0 * np.arange(x.size)).astype(np.float64)


# -- successful runs -------------------------------------------------------------------------


def test_struct24_by_value_and_npy_input(
    cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = np.random.default_rng(1).standard_normal(100).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    spec = _write(tmp_path, "affine.json", affine_spec())
    out = tmp_path / "out.npz"
    rc, stdout, err = run(capsys, cubin, "--spec", str(spec), "--out", str(out))
    assert (rc, stdout, err) == (0, "", "")
    with np.load(out) as z:
        assert sorted(z.files) == ["arg1", "arg2"]
        np.testing.assert_array_equal(z["arg1"], x)
        np.testing.assert_array_equal(z["arg2"], affine_ref(x))


def test_in_npz_replaces_initial_contents(
    cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path, "affine.json", affine_spec(x="arange"))
    x = np.linspace(-3, 3, 100, dtype=np.float32)
    np.savez(tmp_path / "in.npz", arg1=x)
    out = tmp_path / "out.npz"
    rc, _, err = run(
        capsys, cubin, "--spec", str(spec), "--in", str(tmp_path / "in.npz"), "--out", str(out)
    )
    assert rc == 0, err
    with np.load(out) as z:
        np.testing.assert_array_equal(z["arg2"], affine_ref(x))


def test_raw_file_bytes_1216(
    cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = np.arange(304, dtype=np.float32) * np.float32(0.5) - 7
    (tmp_path / "table.bin").write_bytes(table.tobytes())
    spec = _write(
        tmp_path,
        "t.json",
        {
            "kernel": "table_lookup",
            "grid": [2],
            "block": [64],
            "args": [
                {"kind": "bytes", "size": 1216, "align": 4, "init": {"file": "table.bin"}},
                {"kind": "buffer", "dtype": "u32", "count": 100, "init": "random", "seed": 3},
                {"kind": "buffer", "dtype": "f32", "count": 100, "role": "out"},
                {"kind": "scalar", "dtype": "i32", "init": 100},
            ],
        },
    )
    out = tmp_path / "o.npz"
    rc, _, err = run(capsys, cubin, "--spec", str(spec), "--out", str(out))
    assert rc == 0, err
    idx = np.random.default_rng(3).integers(0, 2**32 - 1, 100, endpoint=True, dtype=np.uint32)
    with np.load(out) as z:
        np.testing.assert_array_equal(z["arg2"], table[idx % 304])


def test_bytes_6144_over_4k_from_npy(
    cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = np.random.default_rng(5).integers(0, 2**63, 768, dtype=np.uint64)
    np.save(tmp_path / "big.npy", w)
    spec = _write(
        tmp_path,
        "b.json",
        {
            "kernel": "big_sum",
            "grid": [1],
            "block": [96],
            "args": [
                {"kind": "bytes", "size": 6144, "align": 8, "init": {"file": "big.npy"}},
                {"kind": "buffer", "dtype": "u64", "count": 96, "role": "out"},
            ],
        },
    )
    out = tmp_path / "o.npz"
    rc, _, err = run(capsys, cubin, "--spec", str(spec), "--out", str(out))
    assert rc == 0, err
    k = np.arange(768, dtype=np.uint64)
    with np.errstate(over="ignore"):
        terms = w * (k + np.uint64(1))
    want = np.array([terms[t::96].sum(dtype=np.uint64) for t in range(96)], dtype=np.uint64)
    with np.load(out) as z:
        np.testing.assert_array_equal(z["arg1"], want)


def test_printf_and_kernels_document(
    cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = {
        "kernel": "hello",
        "grid": [2],
        "block": [32],
        "args": [
            {"kind": "buffer", "dtype": "i32", "count": 32, "init": "arange"},
            {"kind": "scalar", "dtype": "f32", "init": 0.5},
        ],
    }
    doc = _write(tmp_path, "k.json", {"kernels": [affine_spec(x="arange"), hello]})
    rc, out, err = run(capsys, cubin, "--spec", str(doc))
    assert rc == 1 and out == ""
    assert "several launches (affine, hello): choose one with --kernel" in err
    rc, out, err = run(capsys, cubin, "--spec", str(doc), "--kernel", "hello", "--stats")
    assert rc == 0, err
    lines = [
        f"block {b} thread {t:2d}: v={t} f={0.5 * t:.3f} hex={t:#x} {'later' if t else 'first'}"
        for b in (0, 1)
        for t in (0, 16)
    ]
    text = "\n".join(lines).replace("hex=0x0", "hex=0") + "\n"  # C's %#x of 0 is "0"
    assert out.startswith(text)
    assert "# executed warp-instructions per opcode (hello)" in out
    assert "\ntotal " in out


def test_cluster_launch(cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _write(
        tmp_path,
        "c.json",
        {
            "kernel": "cluster_ranks",
            "grid": [4],
            "block": [32],
            "args": [{"kind": "buffer", "dtype": "u32", "count": 4, "role": "out"}],
        },
    )
    out = tmp_path / "o.npz"
    rc, _, err = run(capsys, cubin, "--spec", str(spec), "--out", str(out), "--hazards")
    assert rc == 0, err
    with np.load(out) as z:
        assert z["arg0"].tolist() == [0, 101, 2, 103]
    spec = _write(tmp_path, "c3.json", {**json.loads(spec.read_text()), "grid": [3]})
    rc, _, err = run(capsys, cubin, "--spec", str(spec))
    assert rc == 1
    assert "grid (3, 1, 1) is not a multiple of the kernel's cluster dimensions (2, 1, 1)" in err


def test_trace(cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _write(tmp_path, "a.json", affine_spec(x="arange"))
    rc, out, err = run(capsys, cubin, "--spec", str(spec), "--trace")
    assert rc == 0, err
    first = out.splitlines()[0]
    assert first.startswith("0x0000 ") and "lanes=128 warps=4" in first


# -- every mismatch: one error line naming the problem, exit status 1 ------------------------


def _bad_specs() -> list[tuple[str, Any, str]]:
    a = affine_spec(x="arange")
    args = a["args"]
    hello_args = [
        {"kind": "bytes", "size": 8, "align": 8, "init": "zeros"},
        {"kind": "bytes", "size": 4, "align": 16, "init": "zeros"},
    ]
    return [
        (
            "too few",
            {**a, "args": args[:2]},
            "kernel 'affine' takes 3 parameter(s), the spec gives 2",
        ),
        (
            "struct size",
            {**a, "args": [{**args[0], "size": 16, "init": "zeros"}, *args[1:]]},
            "argument 0 (16 raw bytes): the spec places 16 byte(s) at parameter offset 0x0, "
            "the kernel's parameter 0 is 24 byte(s) at offset 0x0",
        ),
        (
            "scalar for pointer",
            {**a, "args": [args[0], {"kind": "scalar", "dtype": "u32"}, args[2]]},
            "argument 1 (scalar u32): the spec places 4 byte(s)",
        ),
        (
            "offset",
            {"kernel": "hello", "args": hello_args},
            "argument 1 (4 raw bytes): the spec places 4 byte(s) at parameter offset 0x10, the "
            "kernel's parameter 1 is 4 byte(s) at offset 0x8",
        ),
        ("no kernel", {**a, "kernel": "nope"}, "no kernel 'nope' in the cubin (kernels: "),
        (
            "missing file",
            {**a, "args": [args[0], {**args[1], "init": {"file": "none.bin"}}, args[2]]},
            "argument 1: cannot read data file",
        ),
        (
            "file size",
            {**a, "args": [args[0], {**args[1], "init": {"file": "short.bin"}}, args[2]]},
            "argument 1: data file '",
        ),
        (
            "npy dtype",
            {**a, "args": [args[0], {**args[1], "init": {"file": "f64.npy"}}, args[2]]},
            "holds float64, the spec says f32",
        ),
        (
            "hex size",
            {**a, "args": [{**args[0], "init": {"hex": "00ff"}}, *args[1:]]},
            "argument 0: 'hex' holds 2 bytes, the spec needs 24",
        ),
        (
            "dtype",
            {**a, "args": [args[0], {**args[1], "dtype": "f128"}, args[2]]},
            "argument 1: unknown dtype 'f128'",
        ),
        ("block", {**a, "block": [2048]}, "block (2048, 1, 1) has 2048 threads (at most 1024)"),
    ]


BAD = _bad_specs()


@pytest.mark.parametrize(("what", "doc", "message"), BAD, ids=[b[0] for b in BAD])
def test_spec_mismatch(
    cubin: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    doc: Any,
    message: str,
) -> None:
    (tmp_path / "short.bin").write_bytes(b"\0" * 12)
    np.save(tmp_path / "f64.npy", np.zeros(100))
    spec = _write(tmp_path, "s.json", doc)
    out = tmp_path / "out.npz"
    rc, stdout, err = run(capsys, cubin, "--spec", str(spec), "--out", str(out))
    assert rc == 1 and stdout == ""
    assert err.startswith("openptxas-emu error   : ") and err.count("\n") == 1, err
    assert message in err
    assert not out.exists()


def _bad_inputs() -> list[tuple[str, dict[str, Any], str]]:
    return [
        ("key", {"x": np.zeros(3)}, "input 'x': keys are arg<i> (parameter positions)"),
        ("index", {"arg7": np.zeros(3)}, "input 'arg7': the kernel has 3 argument(s)"),
        ("dtype", {"arg1": np.zeros(100)}, "input 'arg1': dtype float64, argument 1 is float32"),
        (
            "size",
            {"arg1": np.zeros(10, np.float32)},
            "input 'arg1': 40 bytes, argument 1 needs 400",
        ),
    ]


BAD_IN = _bad_inputs()


@pytest.mark.parametrize(("what", "arrays", "message"), BAD_IN, ids=[b[0] for b in BAD_IN])
def test_input_mismatch(
    cubin: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    arrays: dict[str, Any],
    message: str,
) -> None:
    spec = _write(tmp_path, "a.json", affine_spec(x="arange"))
    np.savez(tmp_path / "in.npz", **arrays)
    rc, _, err = run(capsys, cubin, "--spec", str(spec), "--in", str(tmp_path / "in.npz"))
    assert rc == 1 and err.count("\n") == 1
    assert message in err


def test_bad_files(cubin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.json").write_text("{")
    spec = _write(tmp_path, "a.json", affine_spec(x="arange"))
    (tmp_path / "bad.npz").write_bytes(b"junk")
    (tmp_path / "junk.cubin").write_bytes(b"\x7fELF junk")
    cases = [
        ([str(cubin), "--spec", str(tmp_path / "bad.json")], "is not valid JSON"),
        ([str(cubin), "--spec", str(tmp_path / "none.json")], "cannot read spec file"),
        ([str(cubin), "--spec", str(spec), "--in", str(tmp_path / "bad.npz")], "--in file"),
        ([str(tmp_path / "none.cubin"), "--spec", str(spec)], "cannot read"),
        ([str(tmp_path / "junk.cubin"), "--spec", str(spec)], "junk.cubin"),
        ([str(cubin), "--spec", str(spec), "--kernel", "hello"], "no launch of kernel 'hello'"),
    ]
    for argv, message in cases:
        rc = main(["run", *argv])
        _, err = capsys.readouterr()
        assert rc == 1 and message in err and "Traceback" not in err, (argv, err)


def test_command_line_process(cubin: Path, tmp_path: Path) -> None:
    """The command as a process: usage errors exit 2, a mismatch exits 1 with one line."""
    spec = _write(tmp_path, "a.json", {**affine_spec(x="arange"), "kernel": "nope"})
    cmd = [sys.executable, "-m", "openptxas.emu.cli", "run", str(cubin), "--spec", str(spec)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.startswith("openptxas-emu error   : no kernel 'nope' in the cubin")
    p = subprocess.run(cmd[:4], capture_output=True, text=True, cwd=ROOT, check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_readme_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """README.md's worked example, as written there."""
    need_tools("ptxas")
    ex = ROOT / "examples/emu"
    cubin = tmp_path / "affine.cubin"
    cubin.write_bytes(Oracle().ptxas((ex / "affine.ptx").read_text(), "sm_90").cubin)
    out = tmp_path / "out.npz"
    spec = str(ex / "affine.json")
    rc, stdout, err = run(capsys, cubin, "--spec", spec, "--out", str(out), "--hazards")
    assert (rc, stdout, err) == (0, "", "")
    with np.load(out) as z:
        got = z["arg2"]
    np.testing.assert_array_equal(got, affine_ref(np.load(ex / "x.npy")))
    assert str(got[:4]) == "[-1.25        5.780303   12.810606   19.84090912]"
    assert "[-1.25        5.780303   12.810606   19.84090912]" in (ROOT / "README.md").read_text()
