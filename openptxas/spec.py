"""Launch specs: one JSON document describes a kernel launch and its inputs completely.

Format (documented in docs/launch-spec.md)::

    {"kernel": "<mangled .entry name>", "grid": [x, y, z], "block": [x, y, z],
     "shared_bytes": n,
     "args": [{"kind": "buffer" | "scalar" | "bytes" | "texture" | "surface",
               "dtype": "<numpy dtype>", "count": n,
               "init": "random" | "arange" | "zeros" | <number>, "seed": n,
               "role": "in" | "out" | "inout"}]}

A file may hold one spec or ``{"kernels": [spec, ...]}``. Extra fields are allowed everywhere and
kept in ``extra``. Random init uses ``numpy.random.default_rng(seed)``: floats from
``standard_normal``, integers uniform over the full range of the type.

This module belongs to the emulator and the test tools, never to the compiler, so it may use numpy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from openptxas.diag import OpenPtxasError


class SpecError(OpenPtxasError):
    """A launch spec that is malformed or does not match the kernel."""


# Short dtype names accepted besides numpy's own. bf16 has no numpy dtype: its data is the 16-bit
# pattern, stored as uint16.
_SHORT_DTYPES: dict[str, str] = {
    "i8": "int8",
    "u8": "uint8",
    "i16": "int16",
    "u16": "uint16",
    "i32": "int32",
    "u32": "uint32",
    "i64": "int64",
    "u64": "uint64",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
}
BF16_NAMES = frozenset({"bf16", "bfloat16"})

_KINDS = ("buffer", "scalar", "bytes", "texture", "surface")
# kinds whose parameter is a 64-bit value the launch makes (a device pointer, an object handle)
# while the spec gives the data behind it
HANDLE_KINDS = frozenset({"buffer", "texture", "surface"})
_ROLES = ("in", "out", "inout")


def storage_dtype(name: str) -> np.dtype[Any]:
    """The numpy dtype that stores values of spec dtype ``name`` (bf16 -> uint16)."""
    if name in BF16_NAMES:
        return np.dtype(np.uint16)
    try:
        dt = np.dtype(_SHORT_DTYPES.get(name, name))
    except TypeError as exc:
        raise SpecError(f"unknown dtype '{name}'") from exc
    if dt.kind not in "biuf" or dt.itemsize > 8:
        raise SpecError(f"unsupported dtype '{name}'")
    return dt


def float_to_bf16_bits(x: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.uint16]]:
    """Round float32 values to bfloat16 (nearest even) and return the bit patterns."""
    f = np.asarray(x, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    nan = np.isnan(f)
    out = rounded.astype(np.uint16)
    out[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)  # keep NaN quiet and non-zero
    return out


def bf16_bits_to_float(b: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float32]]:
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


@dataclass(frozen=True, slots=True)
class ArgSpec:
    kind: str
    dtype: str
    count: int = 1
    init: Any = "zeros"
    seed: int = 0
    role: str = "in"
    extra: Mapping[str, Any] = field(default_factory=dict)
    size: int = 0  # kind "bytes": parameter size in bytes
    align: int = 1  # kind "bytes": parameter alignment

    @property
    def np_dtype(self) -> np.dtype[Any]:
        if self.kind == "bytes":
            return np.dtype(np.uint8)
        return storage_dtype(self.dtype)

    @property
    def is_bf16(self) -> bool:
        return self.dtype in BF16_NAMES

    @property
    def nbytes(self) -> int:
        """Bytes of data: the buffer's contents, the scalar's value, the raw parameter."""
        return self.size if self.kind == "bytes" else self.count * self.np_dtype.itemsize

    @property
    def param_size(self) -> int:
        """Bytes the argument occupies in the parameter block."""
        if self.kind in HANDLE_KINDS:
            return 8
        return self.size if self.kind == "bytes" else self.np_dtype.itemsize

    @property
    def param_align(self) -> int:
        if self.kind in HANDLE_KINDS:
            return 8
        return self.align if self.kind == "bytes" else self.np_dtype.itemsize


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    args: tuple[ArgSpec, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    base_dir: Path | None = None  # directory of the spec file, for relative paths

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


def _dim3(v: Any, what: str) -> tuple[int, int, int]:
    if isinstance(v, int):
        v = [v]
    if (
        not isinstance(v, list)
        or not 1 <= len(v) <= 3
        or not all(isinstance(x, int) and x >= 1 for x in v)
    ):
        raise SpecError(f"'{what}' must be a list of 1 to 3 positive integers, got {v!r}")
    vals = [*v, 1, 1][:3]
    return (vals[0], vals[1], vals[2])


def _parse_init(i: int, init: Any, kind: str) -> Any:
    if isinstance(init, dict):
        if set(init) == {"file"} and isinstance(init["file"], str):
            return init
        if set(init) == {"hex"} and isinstance(init["hex"], str):
            txt = "".join(init["hex"].split())
            try:
                bytes.fromhex(txt)
            except ValueError:
                raise SpecError(f"argument {i}: 'hex' is not valid hexadecimal") from None
            return {"hex": txt}
        raise SpecError(
            f'argument {i}: bad \'init\' {init!r} (expected {{"file": PATH}} or {{"hex": "..."}})'
        )
    if kind == "bytes":
        if init != "zeros":
            raise SpecError(
                f"argument {i}: a 'bytes' argument's init is {{\"file\": PATH}}, "
                '{"hex": "..."} or "zeros"'
            )
        return init
    if init in ("random", "arange", "zeros") or (
        isinstance(init, int | float) and not isinstance(init, bool)
    ):
        return init
    raise SpecError(f"argument {i}: bad 'init' {init!r}")


def _parse_arg(i: int, a: Any) -> ArgSpec:
    if not isinstance(a, dict):
        raise SpecError(f"argument {i}: expected an object, got {a!r}")
    kind = a.get("kind")
    if kind not in _KINDS:
        raise SpecError(f"argument {i}: 'kind' must be one of {', '.join(_KINDS)}, got {kind!r}")
    role = a.get("role", "in")
    if role not in _ROLES:
        raise SpecError(f"argument {i}: 'role' must be one of {', '.join(_ROLES)}, got {role!r}")
    init = _parse_init(i, a.get("init", "zeros"), kind)
    seed = a.get("seed", i)
    if not isinstance(seed, int):
        raise SpecError(f"argument {i}: 'seed' must be an integer")
    if kind == "bytes":
        size, align = a.get("size"), a.get("align", 1)
        if not isinstance(size, int) or size <= 0:
            raise SpecError(f"argument {i}: a 'bytes' argument needs a positive 'size'")
        if not isinstance(align, int) or align <= 0 or align & (align - 1):
            raise SpecError(f"argument {i}: 'align' must be a power of two, got {align!r}")
        if role != "in":
            raise SpecError(f"argument {i}: a 'bytes' argument is passed by value (role 'in')")
        known = {"kind", "size", "align", "init", "role", "seed", "dtype", "count"}
        extra = {k: v for k, v in a.items() if k not in known}
        return ArgSpec(
            kind="bytes",
            dtype="u8",
            count=size,
            init=init,
            seed=seed,
            role=role,
            extra=extra,
            size=size,
            align=align,
        )
    dtype = a.get("dtype")
    if not isinstance(dtype, str):
        raise SpecError(f"argument {i}: 'dtype' is required")
    try:
        storage_dtype(dtype)
    except SpecError as exc:
        raise SpecError(f"argument {i}: {exc.message}") from None
    count = a.get("count", 1)
    if not isinstance(count, int) or count < 0 or (kind == "scalar" and count != 1):
        raise SpecError(f"argument {i}: bad 'count' {count!r}")
    if kind == "scalar" and role != "in":
        raise SpecError(f"argument {i}: a scalar is passed by value (role 'in')")
    if kind == "texture" and role != "in":
        raise SpecError(f"argument {i}: a texture is read-only (role 'in')")
    if kind in ("texture", "surface") and not isinstance(a.get(kind), dict):
        raise SpecError(f"argument {i}: a '{kind}' argument needs a '{kind}' object")
    known = {"kind", "dtype", "count", "init", "seed", "role"}
    extra = {k: v for k, v in a.items() if k not in known}
    return ArgSpec(
        kind=kind, dtype=dtype, count=count, init=init, seed=seed, role=role, extra=extra
    )


def parse_spec(obj: Any, base_dir: Path | None = None) -> LaunchSpec:
    if not isinstance(obj, dict):
        raise SpecError("a launch spec must be a JSON object")
    kernel = obj.get("kernel")
    if not isinstance(kernel, str) or not kernel:
        raise SpecError("'kernel' (the mangled .entry name) is required")
    args = obj.get("args", [])
    if not isinstance(args, list):
        raise SpecError("'args' must be a list")
    shared = obj.get("shared_bytes", 0)
    if not isinstance(shared, int) or shared < 0:
        raise SpecError("'shared_bytes' must be a non-negative integer")
    known = {"kernel", "grid", "block", "shared_bytes", "args"}
    return LaunchSpec(
        kernel=kernel,
        grid=_dim3(obj.get("grid", [1]), "grid"),
        block=_dim3(obj.get("block", [1]), "block"),
        shared_bytes=shared,
        args=tuple(_parse_arg(i, a) for i, a in enumerate(args)),
        extra={k: v for k, v in obj.items() if k not in known},
        base_dir=base_dir,
    )


def parse_spec_document(doc: Any, base_dir: Path | None = None) -> list[LaunchSpec]:
    """A document is one spec or ``{"kernels": [spec, ...]}`` (other top-level keys are kept in
    each spec's ``extra`` under ``"file"``)."""
    if isinstance(doc, dict) and "kernels" in doc:
        ks = doc["kernels"]
        if not isinstance(ks, list) or not ks:
            raise SpecError("'kernels' must be a non-empty list of launch specs")
        file_extra = {k: v for k, v in doc.items() if k != "kernels"}
        specs = []
        for k in ks:
            s = parse_spec(k, base_dir)
            specs.append(
                LaunchSpec(
                    s.kernel,
                    s.grid,
                    s.block,
                    s.shared_bytes,
                    s.args,
                    {**s.extra, "file": file_extra},
                    base_dir,
                )
            )
        return specs
    return [parse_spec(doc, base_dir)]


def load_spec_file(path: str | Path) -> list[LaunchSpec]:
    p = Path(path)
    try:
        doc = json.loads(p.read_text())
    except OSError as exc:
        raise SpecError(f"cannot read spec file '{p}': {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise SpecError(f"spec file '{p}' is not valid JSON: {exc}") from None
    return parse_spec_document(doc, p.resolve().parent)


def _load_file(a: ArgSpec, index: int, path: str, base_dir: Path | None) -> np.ndarray[Any, Any]:
    p = Path(path)
    if not p.is_absolute() and base_dir is not None:
        p = base_dir / p
    want = a.nbytes
    try:
        if p.suffix == ".npy":
            arr = np.load(p, allow_pickle=False)
            if a.kind != "bytes" and arr.dtype != a.np_dtype:
                raise SpecError(
                    f"argument {index}: '{p}' holds {arr.dtype}, the spec says {a.dtype}"
                )
            raw = np.ascontiguousarray(arr).tobytes()
        else:
            raw = p.read_bytes()
    except OSError as exc:
        raise SpecError(f"argument {index}: cannot read data file '{p}': {exc.strerror}") from None
    except ValueError as exc:
        raise SpecError(f"argument {index}: '{p}' is not a valid .npy file: {exc}") from None
    if len(raw) != want:
        raise SpecError(
            f"argument {index}: data file '{p}' has {len(raw)} bytes, the spec needs {want}"
        )
    return np.frombuffer(raw, dtype=a.np_dtype).copy()


def materialize_arg(
    a: ArgSpec, index: int = 0, base_dir: Path | None = None
) -> np.ndarray[Any, Any]:
    """The initial contents of one argument, as a 1-D array of its storage dtype (a scalar is an
    array of length 1; a "bytes" argument an array of uint8)."""
    dt = a.np_dtype
    n = a.count
    init = a.init
    if isinstance(init, dict):
        if "file" in init:
            return _load_file(a, index, init["file"], base_dir)
        raw = bytes.fromhex(init["hex"])
        if len(raw) != a.nbytes:
            raise SpecError(
                f"argument {index}: 'hex' holds {len(raw)} bytes, the spec needs {a.nbytes}"
            )
        return np.frombuffer(raw, dtype=dt).copy()
    if init == "zeros":
        return np.zeros(n, dtype=dt)
    if init == "arange":
        if a.is_bf16:
            return float_to_bf16_bits(np.arange(n, dtype=np.float32))
        return np.arange(n).astype(dt)
    if init == "random":
        rng = np.random.default_rng(a.seed)
        if a.is_bf16:
            return float_to_bf16_bits(rng.standard_normal(n, dtype=np.float32))
        if dt.kind == "f":
            return rng.standard_normal(n).astype(dt)
        if dt.kind == "b":
            return rng.integers(0, 2, n).astype(dt)
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dt)
    if a.is_bf16:
        return float_to_bf16_bits(np.full(n, init, dtype=np.float32))
    return np.full(n, init, dtype=dt)


def materialize(spec: LaunchSpec) -> list[np.ndarray[Any, Any]]:
    return [materialize_arg(a, i, spec.base_dir) for i, a in enumerate(spec.args)]


def param_layout(spec: LaunchSpec, base: int = 0) -> list[tuple[int, int]]:
    """(offset, size) of every argument in the parameter block, as the driver lays it out.

    ``base`` is the block's address in constant bank 0 (``c[0x0][0x210]`` on sm_90): the driver
    aligns each parameter's *address*, so a parameter aligned to more than the base's own
    alignment (a 64-byte-aligned tensor map) may start at a nonzero offset."""
    out = []
    off = 0
    for a in spec.args:
        al = a.param_align
        off = (base + off + al - 1) // al * al - base
        out.append((off, a.param_size))
        off += a.param_size
    return out


def pack_params(
    spec: LaunchSpec,
    values: Sequence[np.ndarray[Any, Any]],
    pointers: Sequence[int],
    base: int = 0,
) -> bytes:
    """The kernel parameter block: each scalar and byte block at its alignment, each buffer as
    a 64-bit pointer and each texture or surface as its 64-bit handle (``pointers[i]`` for
    argument ``i``); ``base`` as for param_layout."""
    layout = param_layout(spec, base)
    out = bytearray(layout[-1][0] + layout[-1][1] if layout else 0)
    for i, (a, (off, size)) in enumerate(zip(spec.args, layout, strict=True)):
        is_ptr = a.kind in HANDLE_KINDS
        out[off : off + size] = (
            int(pointers[i]).to_bytes(8, "little") if is_ptr else values[i].tobytes()
        )
    return bytes(out)
