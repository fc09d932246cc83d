"""GPU runtime of both cubins, timed with CUDA events: run on a machine with an NVIDIA GPU.

::

    python -m bench.gpu RUN_DIR [--out gpu.json] [--launches 20]

``RUN_DIR`` is a ``python -m bench run`` output directory (``results.json`` plus the cubins it
kept under ``cubins/``). For every file with launch specs and every spec, each compiler's cubin
is loaded with ``cuModuleLoadData``, its inputs are built from the spec, it is launched once to
compare openptxas's outputs with ptxas's, then ``--launches`` more times, each between two CUDA
events; the minimum is kept. Each file runs in its own process, so that a kernel that faults
(a sticky CUDA error) spoils only its own figures. ``python -m bench report RUN_DIR/results.json
--gpu gpu.json`` merges the result into the report.

It talks to the driver (``libcuda.so.1``) through ctypes and needs no CUDA Python package.
Without a GPU it says so and exits with status 3.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.gpu_merge import GPU_SCHEMA
from bench.model import FileResult, Results, Side
from openptxas.spec import LaunchSpec, load_spec_file, materialize, pack_params
from openptxas.testing.corpus import REPO_ROOT, compare_outputs

EXIT_NO_GPU = 3
_PARAM_BUFFER_POINTER = 1  # CU_LAUNCH_PARAM_BUFFER_POINTER
_PARAM_BUFFER_SIZE = 2  # CU_LAUNCH_PARAM_BUFFER_SIZE
_PARAM_END = 0  # CU_LAUNCH_PARAM_END
_ATTR_MAX_DYNAMIC_SHARED = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES


class CudaError(RuntimeError):
    pass


class NoGpu(RuntimeError):
    pass


class Driver:
    """The few driver API calls the benchmark needs, on the primary context of device 0."""

    def __init__(self) -> None:
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as exc:
            raise NoGpu(f"no CUDA driver (libcuda.so.1): {exc}") from None
        rc = self.lib.cuInit(0)
        if rc != 0:
            raise NoGpu(f"cuInit failed: {self._err(rc)}")
        count = ctypes.c_int()
        self.check(self.lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
        if count.value < 1:
            raise NoGpu("no CUDA device")
        self.dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(self.dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(
            self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), self.dev),
            "cuDevicePrimaryCtxRetain",
        )
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def _err(self, rc: int) -> str:
        s = ctypes.c_char_p()
        self.lib.cuGetErrorString(rc, ctypes.byref(s))
        return f"CUDA error {rc}" + (f" ({s.value.decode()})" if s.value else "")

    def check(self, rc: int, what: str) -> None:
        if rc != 0:
            raise CudaError(f"{what}: {self._err(rc)}")

    def name(self) -> str:
        buf = ctypes.create_string_buffer(256)
        self.check(self.lib.cuDeviceGetName(buf, 256, self.dev), "cuDeviceGetName")
        ver = ctypes.c_int()
        self.check(self.lib.cuDriverGetVersion(ctypes.byref(ver)), "cuDriverGetVersion")
        return f"{buf.value.decode()} (CUDA driver {ver.value // 1000}.{ver.value % 1000 // 10})"

    def load(self, cubin: bytes) -> ctypes.c_void_p:
        mod = ctypes.c_void_p()
        image = ctypes.create_string_buffer(cubin, len(cubin))
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), image), "cuModuleLoadData")
        return mod

    def unload(self, mod: ctypes.c_void_p) -> None:
        self.lib.cuModuleUnload(mod)

    def function(self, mod: ctypes.c_void_p, name: str) -> ctypes.c_void_p:
        fn = ctypes.c_void_p()
        self.check(
            self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()),
            f"cuModuleGetFunction({name})",
        )
        return fn

    def alloc(self, nbytes: int) -> int:
        ptr = ctypes.c_uint64()
        self.check(
            self.lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1))), "cuMemAlloc"
        )
        return int(ptr.value)

    def free(self, ptr: int) -> None:
        self.lib.cuMemFree_v2(ctypes.c_uint64(ptr))

    def upload(self, ptr: int, arr: np.ndarray[Any, Any]) -> None:
        if arr.nbytes:
            data = np.ascontiguousarray(arr)
            self.check(
                self.lib.cuMemcpyHtoD_v2(
                    ctypes.c_uint64(ptr),
                    data.ctypes.data_as(ctypes.c_void_p),
                    ctypes.c_size_t(data.nbytes),
                ),
                "cuMemcpyHtoD",
            )

    def download(self, ptr: int, like: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        out = np.empty_like(like)
        if out.nbytes:
            self.check(
                self.lib.cuMemcpyDtoH_v2(
                    out.ctypes.data_as(ctypes.c_void_p),
                    ctypes.c_uint64(ptr),
                    ctypes.c_size_t(out.nbytes),
                ),
                "cuMemcpyDtoH",
            )
        return out

    def launch(self, fn: ctypes.c_void_p, spec: LaunchSpec, params: bytes) -> None:
        if spec.shared_bytes > 48 * 1024:
            self.check(
                self.lib.cuFuncSetAttribute(fn, _ATTR_MAX_DYNAMIC_SHARED, spec.shared_bytes),
                "cuFuncSetAttribute",
            )
        buf = ctypes.create_string_buffer(params, max(len(params), 1))
        size = ctypes.c_size_t(len(params))
        extra = (ctypes.c_void_p * 5)(
            ctypes.c_void_p(_PARAM_BUFFER_POINTER),
            ctypes.cast(buf, ctypes.c_void_p),
            ctypes.c_void_p(_PARAM_BUFFER_SIZE),
            ctypes.cast(ctypes.byref(size), ctypes.c_void_p),
            ctypes.c_void_p(_PARAM_END),
        )
        g, b = spec.grid, spec.block
        self.check(
            self.lib.cuLaunchKernel(
                fn, *(ctypes.c_uint(v) for v in (*g, *b, spec.shared_bytes)), None, None, extra
            ),
            "cuLaunchKernel",
        )

    def sync(self) -> None:
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")

    def timed_launch(self, fn: ctypes.c_void_p, spec: LaunchSpec, params: bytes) -> float:
        """One launch between two events: milliseconds."""
        start, end = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.lib.cuEventCreate(ctypes.byref(start), 0), "cuEventCreate")
        self.check(self.lib.cuEventCreate(ctypes.byref(end), 0), "cuEventCreate")
        try:
            self.check(self.lib.cuEventRecord(start, None), "cuEventRecord")
            self.launch(fn, spec, params)
            self.check(self.lib.cuEventRecord(end, None), "cuEventRecord")
            self.check(self.lib.cuEventSynchronize(end), "cuEventSynchronize")
            ms = ctypes.c_float()
            self.check(
                self.lib.cuEventElapsedTime(ctypes.byref(ms), start, end), "cuEventElapsedTime"
            )
            return float(ms.value)
        finally:
            self.lib.cuEventDestroy_v2(start)
            self.lib.cuEventDestroy_v2(end)


def run_spec(
    drv: Driver, cubin: bytes, spec: LaunchSpec, launches: int
) -> tuple[float, dict[int, np.ndarray[Any, Any]]]:
    """Launch ``spec`` once on fresh inputs (its outputs are returned), then ``launches`` timed
    times; returns (min ms, outputs by argument position)."""
    mod = drv.load(cubin)
    ptrs: list[int] = []
    try:
        fn = drv.function(mod, spec.kernel)
        values = materialize(spec)
        ptrs = [
            drv.alloc(v.nbytes) if a.kind == "buffer" else 0
            for a, v in zip(spec.args, values, strict=True)
        ]
        for a, v, p in zip(spec.args, values, ptrs, strict=True):
            if a.kind == "buffer":
                drv.upload(p, v)
        params = pack_params(spec, values, ptrs)
        drv.launch(fn, spec, params)
        drv.sync()
        outputs = {
            i: drv.download(p, v)
            for i, (a, v, p) in enumerate(zip(spec.args, values, ptrs, strict=True))
            if a.kind == "buffer" and a.role in ("out", "inout")
        }
        times = [drv.timed_launch(fn, spec, params) for _ in range(launches)]
        return min(times), outputs
    finally:
        for p in ptrs:
            if p:
                drv.free(p)
        drv.unload(mod)


def _specs(f: FileResult) -> list[LaunchSpec]:
    if not f.specs:
        return []
    p = Path(f.specs)
    return load_spec_file(p if p.is_absolute() else REPO_ROOT / p)


def time_file(drv: Driver, run_dir: Path, f: FileResult, launches: int) -> list[dict[str, Any]]:
    """Both compilers' cubins of one file, every launch spec: the launch records."""
    out: list[dict[str, Any]] = []
    specs = _specs(f)
    for spec in specs:
        ref: dict[int, np.ndarray[Any, Any]] | None = None
        for side in (Side.PTXAS, Side.OPENPTXAS):
            run = f.run(side)
            rec: dict[str, Any] = {
                "file": f.name,
                "target": f.target,
                "kernel": spec.kernel,
                "side": side.value,
                "ms": None,
                "error": "",
                "matches_ptxas": None,
            }
            out.append(rec)
            if not run.ok or not run.cubin:
                rec["error"] = "no cubin" if run.ok else f"{side.value} did not compile it"
                continue
            try:
                ms, outputs = run_spec(drv, (run_dir / run.cubin).read_bytes(), spec, launches)
            except (CudaError, OSError) as exc:
                rec["error"] = str(exc)
                continue
            rec["ms"] = ms
            if side is Side.PTXAS:
                ref = outputs
            elif ref is not None:
                rec["matches_ptxas"] = not compare_outputs(spec, outputs, ref)
    return out


def _worker(run_dir: Path, index: int, launches: int) -> int:
    results = Results.load(run_dir / "results.json")
    try:
        drv = Driver()
    except NoGpu as exc:
        print(json.dumps({"no_gpu": str(exc)}))
        return EXIT_NO_GPU
    print(
        json.dumps(
            {
                "device": drv.name(),
                "launches": time_file(drv, run_dir, results.files[index], launches),
            }
        )
    )
    return 0


def _gpu_files(results: Results) -> list[int]:
    return [i for i, f in enumerate(results.files) if f.specs and (f.ptxas.ok or f.openptxas.ok)]


def _run_worker(
    run_dir: Path, index: int, launches: int, timeout_s: float
) -> tuple[dict[str, Any], str]:
    """One file in its own process: (its JSON document, "" or why it failed)."""
    cmd = [sys.executable, "-m", "bench.gpu", str(run_dir), "--worker", str(index)]
    try:
        p = subprocess.run(
            [*cmd, "--launches", str(launches)],
            capture_output=True,
            text=True,
            check=False,
            cwd=REPO_ROOT,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return {}, f"timed out after {timeout_s:g} s (a kernel that does not finish?)"
    lines = p.stdout.strip().splitlines()
    try:
        doc = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    if "no_gpu" in doc or (p.returncode == 0 and "launches" in doc):
        return doc, ""
    return doc, (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]


def _write(out: Path, device: str, timed: int, launches: list[dict[str, Any]]) -> None:
    doc = {"schema": GPU_SCHEMA, "device": device, "timed_launches": timed, "launches": launches}
    out.write_text(json.dumps(doc, indent=1) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.gpu", description=__doc__.split("\n")[0])
    ap.add_argument("run_dir", help="a `python -m bench run` output directory")
    ap.add_argument("--out", default="gpu.json")
    ap.add_argument("--launches", type=int, default=20, help="timed launches per kernel")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    run_dir = Path(args.run_dir)
    if args.worker is not None:
        return _worker(run_dir, args.worker, args.launches)
    results = Results.load(run_dir / "results.json")
    device = ""
    launches: list[dict[str, Any]] = []
    for i in _gpu_files(results):
        f = results.files[i]
        doc, err = _run_worker(run_dir, i, args.launches, args.timeout)
        if "no_gpu" in doc:
            print(f"bench.gpu: {doc['no_gpu']}", file=sys.stderr)
            return EXIT_NO_GPU
        if err:
            for spec in _specs(f):
                for side in Side:
                    launches.append(
                        {
                            "file": f.name,
                            "target": f.target,
                            "kernel": spec.kernel,
                            "side": side.value,
                            "ms": None,
                            "error": f"worker failed: {err}",
                            "matches_ptxas": None,
                        }
                    )
            print(f"{f.key}: {err}", file=sys.stderr)
            continue
        device = doc["device"]
        launches.extend(doc["launches"])
        # after every file, so that a run stopped at a time limit keeps what it measured
        _write(Path(args.out), device, args.launches, launches)
        print(
            f"{f.key}: "
            + ", ".join(
                f"{d['side']} {d['ms'] if d['ms'] is not None else d['error']}"
                for d in doc["launches"]
            ),
            file=sys.stderr,
        )
    if not device:
        try:
            device = Driver().name()
        except (NoGpu, CudaError) as exc:
            print(f"bench.gpu: {exc}", file=sys.stderr)
            return EXIT_NO_GPU
    _write(Path(args.out), device, args.launches, launches)
    print(f"wrote {args.out} ({len(launches)} launch records on {device})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
