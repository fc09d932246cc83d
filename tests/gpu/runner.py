"""Run a launch spec on a real GPU: the hardware counterpart of ``openptxas-emu run``.

    python -m tests.gpu.runner run FILE.cubin --spec S.json [--kernel NAME] [--in IN.npz]
                                [--out OUT.npz] [--hazards] [--trace] [--stats]

Same spec (docs/launch-spec.md), same flags, same checks before launching (the spec against the
cubin's ``.nv.info`` parameter list, with the emulator's messages) and the same ``--out`` file
(``arg<i>`` per buffer argument). ``--hazards``, ``--trace`` and ``--stats`` only mean something
in the emulator: the runner accepts them and says on stderr that it ignores them. Device
``printf`` output is written to stdout by the CUDA driver when the launch completes (its order
between blocks is the hardware's).

Tensor-map parameters (``"tensor_map": {...}``) are encoded with ``cuTensorMapEncodeTiled`` over
the device address of their buffer argument. It talks to the driver (``libcuda.so.1``) through
ctypes and needs no CUDA Python package. Exit status: 0 ok, 1 bad input or a CUDA error, 2
usage, 3 no GPU.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from openptxas.diag import OpenPtxasError
from openptxas.spec import LaunchSpec, SpecError, materialize, pack_params

TOOL = "gpu-runner"
EXIT_NO_GPU = 3
NDArray = np.ndarray[Any, Any]

_PARAM_BUFFER_POINTER = 1  # CU_LAUNCH_PARAM_BUFFER_POINTER
_PARAM_BUFFER_SIZE = 2  # CU_LAUNCH_PARAM_BUFFER_SIZE
_PARAM_END = 0  # CU_LAUNCH_PARAM_END
_ATTR_MAX_DYNAMIC_SHARED = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

# CUtensorMapDataType, by spec dtype name
_TMAP_DTYPE = {
    "uint8": 0, "u8": 0, "uint16": 1, "u16": 1, "uint32": 2, "u32": 2, "int32": 3, "i32": 3,
    "uint64": 4, "u64": 4, "int64": 5, "i64": 5, "float16": 6, "f16": 6, "float32": 7, "f32": 7,
    "float64": 8, "f64": 8, "bfloat16": 9, "bf16": 9, "float32_ftz": 10, "tfloat32": 11,
    "tfloat32_ftz": 12,
}  # fmt: skip
_TMAP_INTERLEAVE = {"none": 0, "16b": 1, "32b": 2}
_TMAP_SWIZZLE = {"none": 0, "32b": 1, "64b": 2, "128b": 3}
_TMAP_L2 = {"none": 0, "64b": 1, "128b": 2, "256b": 3}
_TMAP_OOB = {"none": 0, "nan_request_zero_fma": 1}


class NoGpu(Exception):
    pass


class CudaError(OpenPtxasError):
    pass


class Driver:
    """The driver API calls a launch needs, on the primary context of device 0."""

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

    def load(self, cubin: bytes) -> ctypes.c_void_p:
        mod = ctypes.c_void_p()
        image = ctypes.create_string_buffer(cubin, len(cubin))
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), image), "cuModuleLoadData")
        return mod

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

    def upload(self, ptr: int, arr: NDArray) -> None:
        data = np.ascontiguousarray(arr)
        if data.nbytes:
            self.check(
                self.lib.cuMemcpyHtoD_v2(
                    ctypes.c_uint64(ptr),
                    data.ctypes.data_as(ctypes.c_void_p),
                    ctypes.c_size_t(data.nbytes),
                ),
                "cuMemcpyHtoD",
            )

    def download(self, ptr: int, like: NDArray) -> NDArray:
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

    def tensor_map(self, desc: Mapping[str, Any], address: int) -> bytes:
        """``cuTensorMapEncodeTiled`` with a spec's ``tensor_map`` description."""
        if desc.get("encode", "tiled") != "tiled":
            raise SpecError(f"tensor map encoding '{desc.get('encode')}' is not supported")
        rank = int(desc["rank"])
        u64 = ctypes.c_uint64 * rank
        u32 = ctypes.c_uint32 * rank
        out = (ctypes.c_uint8 * 128)()
        dims = u64(*(int(x) for x in desc["global_dim"]))
        strides = (ctypes.c_uint64 * max(rank - 1, 1))(
            *(int(x) for x in desc["global_strides_bytes"])
        )
        box = u32(*(int(x) for x in desc["box_dim"]))
        estr = u32(*(int(x) for x in desc.get("element_strides", [1] * rank)))
        self.check(
            self.lib.cuTensorMapEncodeTiled(
                ctypes.byref(out),
                _TMAP_DTYPE[str(desc["dtype"])],
                ctypes.c_uint32(rank),
                ctypes.c_void_p(address),
                dims,
                strides,
                box,
                estr,
                _TMAP_INTERLEAVE[str(desc.get("interleave", "none"))],
                _TMAP_SWIZZLE[str(desc.get("swizzle", "none"))],
                _TMAP_L2[str(desc.get("l2_promotion", "none"))],
                _TMAP_OOB[str(desc.get("oob_fill", "none"))],
            ),
            "cuTensorMapEncodeTiled",
        )
        return bytes(out)

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
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")


def run_on_gpu(
    drv: Driver,
    cubin: bytes,
    spec: Any,
    kernel: str | None = None,
    inputs: Mapping[str, NDArray] | None = None,
) -> tuple[LaunchSpec, list[NDArray]]:
    """Run one launch; returns the spec and every argument afterwards (buffers downloaded,
    scalars and bytes as given). The spec is checked against the cubin's parameters first."""
    from openptxas.emu.launch import apply_inputs, check_params, resolve_spec
    from openptxas.emu.program import load_module

    module = load_module(cubin)  # parameter lists only: nothing is decoded
    ls = resolve_spec(spec, module, kernel)
    objs = [i for i, a in enumerate(ls.args) if a.kind in ("texture", "surface")]
    if objs:
        raise SpecError(
            f"argument {objs[0]}: texture and surface objects (CUDA arrays, "
            "cuTexObjectCreate) are not supported by the GPU runner yet"
        )
    k = module.kernel(ls.kernel)
    check_params(ls, k)
    values = materialize(ls)
    if inputs:
        values = apply_inputs(ls, values, inputs)
    mod = drv.load(cubin)
    fn = drv.function(mod, ls.kernel)
    ptrs = [0] * len(ls.args)
    try:
        for i, a in enumerate(ls.args):
            if a.kind == "buffer":
                ptrs[i] = drv.alloc(a.nbytes)
                drv.upload(ptrs[i], values[i])
        for i, a in enumerate(ls.args):
            desc = a.extra.get("tensor_map")
            if desc is not None:
                src = int(desc["buffer_arg"])
                values[i] = np.frombuffer(drv.tensor_map(desc, ptrs[src]), dtype=np.uint8)
        params = pack_params(ls, values, ptrs, k.param_base)
        sys.stdout.flush()  # device printf goes straight to file descriptor 1
        drv.launch(fn, ls, params)
        out = [
            drv.download(ptrs[i], values[i]) if a.kind == "buffer" else values[i]
            for i, a in enumerate(ls.args)
        ]
    finally:
        for p in ptrs:
            if p:
                drv.free(p)
        drv.lib.cuModuleUnload(mod)
    return ls, out


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=TOOL, description="Run a kernel of a cubin on the GPU.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one kernel launch")
    r.add_argument("cubin")
    r.add_argument("--spec", required=True)
    r.add_argument("--kernel")
    r.add_argument("--in", dest="inp")
    r.add_argument("--out")
    r.add_argument("--hazards", action="store_true")
    r.add_argument("--trace", action="store_true")
    r.add_argument("--stats", action="store_true")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    from openptxas.emu.cli import _load_inputs, _write_npz

    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    for flag in ("hazards", "trace", "stats"):
        if getattr(args, flag):
            print(f"{TOOL} warning : --{flag} is an emulator option; ignored", file=sys.stderr)
    try:
        drv = Driver()
    except NoGpu as exc:
        print(f"{TOOL} error   : {exc}", file=sys.stderr)
        return EXIT_NO_GPU
    try:
        try:
            blob = Path(args.cubin).read_bytes()
        except OSError as exc:
            raise OpenPtxasError(f"cannot read '{args.cubin}': {exc.strerror}") from None
        inputs = _load_inputs(args.inp) if args.inp else None
        ls, out = run_on_gpu(drv, blob, args.spec, args.kernel, inputs)
        if args.out:
            _write_npz(
                args.out, {f"arg{i}": a for i, a in enumerate(out) if ls.args[i].kind == "buffer"}
            )
    except OpenPtxasError as exc:
        print(exc.render(TOOL), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
