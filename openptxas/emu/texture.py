"""Texture and surface objects: the launch spec's ``texture``/``surface`` arguments and the
texel fetches of TEX, TLD, SULD and SUST.

A ``cudaTextureObject_t``/``cudaSurfaceObject_t`` parameter is a 64-bit handle the driver makes
(``cudaCreateTextureObject``); ptxas's code passes its low 32 bits in a uniform register to the
texture unit (``ULDC UR4, c[0x0][0x210]`` then ``TEX.LL ..., UR4, 0x0, 2D``, bindless), which
reads the texture and sampler headers the handle names. The emulator has no header encoding: the
launch keeps each object's description in a handle table (:attr:`Machine.textures`) under the
handle it passes as the parameter, and the instructions look it up there, so ptxas's code runs
unmodified. The texels live in global memory (an allocation per object), dense and row-major:
channels innermost, then x, y, z (or the layer; a cubemap's six faces are its layers, in the
order +x -x +y -y +z -z).

Fetching follows the CUDA programming guide's "Texture fetching" appendix: nearest-point
sampling returns ``T[floor(x)]``; linear filtering returns ``(1-a) T[i] + a T[i+1]`` per
dimension with ``i = floor(x - 0.5)``, ``a = frac(x - 0.5)`` held in 9-bit fixed point with 8
fractional bits (the emulator rounds ``a`` to the nearest multiple of 1/256, computes the blend
exactly and rounds it once to float32). Normalized coordinates are scaled by the size first;
address modes (clamp, border, wrap, mirror) act on the texel indices. A cubemap's direction
selects a face and face coordinates as the guide's cubemap table says. Reading with
``normalized_float`` maps 8/16-bit integers to [0, 1] (unsigned) or [-1, 1] (signed).
Components a texture lacks read as 0 (y, z) and 1 (w), the graphics convention: the guide does
not say, and no corpus kernel reads them. Mipmaps, sRGB, border colors other than 0 and
seamless cubemap filtering are not modelled (the level of detail is ignored: level 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from openptxas.emu.memory import GLOBAL_BASE
from openptxas.spec import ArgSpec, SpecError

NDArray = np.ndarray[Any, Any]
U32 = np.uint32

FILTERS = ("point", "linear")
ADDRESS_MODES = ("clamp", "border", "wrap", "mirror")
READ_MODES = ("element", "normalized_float")
RESOURCES = ("array", "linear")
_TEXEL_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "float16", "float32")


@dataclass(frozen=True, slots=True)
class TexObject:
    """One texture or surface object of a launch."""

    kind: str  # "texture" | "surface"
    address: int  # global address of texel (0, 0, 0) of layer 0
    dtype: np.dtype[Any]  # storage type of one channel
    channels: int  # 1, 2 or 4
    dims: tuple[int, int, int]  # width, height, depth (1 where the object has fewer dimensions)
    rank: int  # 1, 2 or 3
    layers: int = 0  # layered (array) texture or surface: number of layers; 0 if not layered
    cubemap: bool = False
    resource: str = "array"
    filter: str = "point"
    address_modes: tuple[str, str, str] = ("clamp", "clamp", "clamp")
    normalized: bool = False
    read_mode: str = "element"

    @property
    def texel_bytes(self) -> int:
        return self.dtype.itemsize * self.channels

    @property
    def texels(self) -> int:
        w, h, d = self.dims
        return w * h * d * max(self.layers, 1)

    @property
    def float_result(self) -> bool:
        return self.dtype.kind == "f" or self.read_mode == "normalized_float"

    def offsets(self, ix: NDArray, iy: NDArray, iz: NDArray, layer: NDArray) -> NDArray:
        """Byte offsets of texels (in range) from the object's address."""
        w, h, d = self.dims
        t = ((layer.astype(np.int64) * d + iz) * h + iy) * w + ix
        return t * self.texel_bytes


def _shape(what: str, desc: Mapping[str, Any]) -> tuple[tuple[int, int, int], int, int, bool]:
    dims = desc.get("dims")
    if (
        not isinstance(dims, list)
        or not 1 <= len(dims) <= 3
        or not all(isinstance(x, int) and x >= 1 for x in dims)
    ):
        raise SpecError(f"{what}: 'dims' must be a list of 1 to 3 positive integers")
    layers = desc.get("layers", 0)
    if not isinstance(layers, int) or layers < 0:
        raise SpecError(f"{what}: 'layers' must be a non-negative integer")
    cube = desc.get("cubemap", False)
    if not isinstance(cube, bool):
        raise SpecError(f"{what}: 'cubemap' must be true or false")
    if cube and (len(dims) != 2 or dims[0] != dims[1] or layers):
        raise SpecError(f"{what}: a cubemap has 'dims' [n, n] (six n x n faces), no layers")
    if layers and len(dims) == 3:
        raise SpecError(f"{what}: layered objects are 1D or 2D")
    full = (*dims, 1, 1)
    return (full[0], full[1], full[2]), len(dims), 6 if cube else layers, cube


def tex_object(a: ArgSpec, index: int, address: int) -> TexObject:
    """The object a ``texture``/``surface`` argument describes, its texels at ``address``."""
    what = f"argument {index}"
    desc = a.extra.get(a.kind)
    if not isinstance(desc, Mapping):
        raise SpecError(f"{what}: a '{a.kind}' argument needs a '{a.kind}' object")
    dt = a.np_dtype
    if a.is_bf16 or dt.name not in _TEXEL_DTYPES:
        raise SpecError(f"{what}: texel channels are 8/16/32-bit integers, f16 or f32")
    channels = desc.get("channels", 1)
    if channels not in (1, 2, 4):
        raise SpecError(f"{what}: 'channels' must be 1, 2 or 4")
    dims, rank, layers, cube = _shape(what, desc)
    obj = TexObject(a.kind, address, dt, channels, dims, rank, layers, cube)
    if obj.texels * channels != a.count:
        raise SpecError(
            f"{what}: 'count' is {a.count}, the {a.kind} holds {obj.texels} texel(s) of "
            f"{channels} channel(s)"
        )
    if a.kind == "surface":
        extra = set(desc) - {"dims", "layers", "channels"}
        if extra:
            raise SpecError(f"{what}: unknown surface field(s) {sorted(extra)}")
        return obj
    resource = desc.get("resource", "array")
    filt = desc.get("filter", "point")
    modes = desc.get("address", ["clamp"])
    norm = desc.get("normalized_coords", False)
    read = desc.get("read_mode", "element")
    if resource not in RESOURCES:
        raise SpecError(f"{what}: 'resource' must be one of {', '.join(RESOURCES)}")
    if filt not in FILTERS:
        raise SpecError(f"{what}: 'filter' must be one of {', '.join(FILTERS)}")
    if isinstance(modes, str):
        modes = [modes]
    if not isinstance(modes, list) or not 1 <= len(modes) <= 3:
        raise SpecError(f"{what}: 'address' must be a mode or a list of 1 to 3 modes")
    if any(m not in ADDRESS_MODES for m in modes):
        raise SpecError(f"{what}: address modes are {', '.join(ADDRESS_MODES)}")
    if not isinstance(norm, bool):
        raise SpecError(f"{what}: 'normalized_coords' must be true or false")
    if read not in READ_MODES:
        raise SpecError(f"{what}: 'read_mode' must be one of {', '.join(READ_MODES)}")
    full = [*modes, *[modes[-1]] * 3][:3]
    if not norm and any(m in ("wrap", "mirror") for m in full[:rank]):
        raise SpecError(f"{what}: wrap and mirror need normalized coordinates (CUDA)")
    if read == "normalized_float" and dt.kind == "f":
        raise SpecError(f"{what}: 'normalized_float' reads 8- or 16-bit integer texels")
    if read == "normalized_float" and dt.itemsize == 4:
        raise SpecError(f"{what}: 'normalized_float' reads 8- or 16-bit integer texels")
    if filt == "linear" and not (dt.kind == "f" or read == "normalized_float"):
        raise SpecError(f"{what}: linear filtering needs float results (CUDA)")
    if resource == "linear" and (rank != 1 or layers or filt != "point" or norm):
        raise SpecError(f"{what}: a texture over linear memory is 1D, point-sampled, unnormalized")
    extra = set(desc) - {
        "dims",
        "layers",
        "cubemap",
        "channels",
        "resource",
        "filter",
        "address",
        "normalized_coords",
        "read_mode",
    }
    if extra:
        raise SpecError(f"{what}: unknown texture field(s) {sorted(extra)}")
    return TexObject(
        "texture",
        address,
        dt,
        channels,
        dims,
        rank,
        layers,
        cube,
        resource,
        filt,
        (full[0], full[1], full[2]),
        norm,
        read,
    )


# -- fetching ------------------------------------------------------------------------------


def _address(i: NDArray, n: int, mode: str) -> tuple[NDArray, NDArray]:
    """(index in range, whether the texel exists: False where border mode reads the border)."""
    if mode == "wrap":
        return np.mod(i, n), np.ones(i.shape, bool)
    if mode == "mirror":
        m = np.mod(i, 2 * n)
        return np.where(m >= n, 2 * n - 1 - m, m), np.ones(i.shape, bool)
    inside = (i >= 0) & (i < n)
    return np.clip(i, 0, n - 1), (inside if mode == "border" else np.ones(i.shape, bool))


def _texel_values(tex: TexObject, arena: NDArray, off: NDArray) -> NDArray:
    """``[n, channels]`` texel channels at byte offsets ``off`` from the object's address."""
    tb = tex.texel_bytes
    base = tex.address - GLOBAL_BASE
    raw = arena[(base + off)[:, None] + np.arange(tb)[None, :]]
    return np.ascontiguousarray(raw).view(tex.dtype).reshape(off.size, tex.channels)


def _as_result(tex: TexObject, vals: NDArray) -> NDArray:
    """Texel channels as the fetch returns them: float64 for float results, int64 otherwise."""
    if tex.read_mode == "normalized_float":
        info = np.iinfo(tex.dtype)
        v = vals.astype(np.float64)
        if info.min < 0:
            return np.maximum(v / info.max, -1.0)
        return v / info.max
    if tex.dtype.kind == "f":
        return vals.astype(np.float64)
    return vals.astype(np.int64)


def _gather(
    tex: TexObject, arena: NDArray, idx: list[tuple[NDArray, NDArray]], layer: NDArray
) -> NDArray:
    """Texel results ``[n, channels]`` at per-dimension (index, exists) pairs; border texels
    read as zero."""
    n = layer.size
    zero = np.zeros(n, np.int64)
    ix, ok = idx[0]
    iy, oky = idx[1] if len(idx) > 1 else (zero, np.ones(n, bool))
    iz, okz = idx[2] if len(idx) > 2 else (zero, np.ones(n, bool))
    vals = _as_result(tex, _texel_values(tex, arena, tex.offsets(ix, iy, iz, layer)))
    exists = ok & oky & okz
    return np.where(exists[:, None], vals, 0)


def sample(tex: TexObject, arena: NDArray, coords: list[NDArray], layer: NDArray) -> NDArray:
    """Filtered texture fetch at float coordinates (one array per dimension of the object):
    ``[n, channels]`` float64 (float results) or int64."""
    n = layer.size
    sizes = tex.dims[: len(coords)]
    scaled = [
        c.astype(np.float64) * (s if tex.normalized else 1)
        for c, s in zip(coords, sizes, strict=True)
    ]
    modes = tex.address_modes
    if tex.filter == "point":
        idx = [
            _address(np.floor(u).astype(np.int64), s, m)
            for u, s, m in zip(scaled, sizes, modes, strict=False)
        ]
        return _gather(tex, arena, idx, layer)
    lo: list[tuple[NDArray, NDArray]] = []
    hi: list[tuple[NDArray, NDArray]] = []
    weights: list[NDArray] = []
    for u, s, m in zip(scaled, sizes, modes, strict=False):
        ub = u - 0.5
        i = np.floor(ub)
        weights.append(np.floor((ub - i) * 256.0 + 0.5) / 256.0)  # 8 fractional bits
        i64 = i.astype(np.int64)
        lo.append(_address(i64, s, m))
        hi.append(_address(i64 + 1, s, m))
    out = np.zeros((n, tex.channels), np.float64)
    for corner in range(1 << len(scaled)):
        w = np.ones(n, np.float64)
        idx = []
        for d, a in enumerate(weights):
            up = corner >> d & 1
            w = w * (a if up else 1.0 - a)
            idx.append(hi[d] if up else lo[d])
        out += w[:, None] * _gather(tex, arena, idx, layer)
    return out


def fetch(tex: TexObject, arena: NDArray, icoords: list[NDArray], layer: NDArray) -> NDArray:
    """Unfiltered fetch at integer texel coordinates (TLD): ``[n, channels]``."""
    idx = [
        _address(c.astype(np.int64), s, m)
        for c, s, m in zip(icoords, tex.dims, tex.address_modes, strict=False)
    ]
    return _gather(tex, arena, idx, layer)


def cube_face(x: NDArray, y: NDArray, z: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """(face, s, t) of cubemap directions: the face of the largest component (x before y
    before z on ties), and normalized face coordinates, as the CUDA guide's cubemap table."""
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    fx = (ax >= ay) & (ax >= az)
    fy = ~fx & (ay >= az)
    face = np.where(fx, np.where(x >= 0, 0, 1), np.where(fy, np.where(y >= 0, 2, 3), 0))
    face = np.where(~fx & ~fy, np.where(z >= 0, 4, 5), face)
    m = np.where(fx, ax, np.where(fy, ay, az))
    sc = np.select(
        [face == 0, face == 1, face == 2, face == 3, face == 4], [-z, z, x, x, x], default=-x
    )
    tc = np.select(
        [face == 0, face == 1, face == 2, face == 3, face == 4], [-y, -y, z, -z, -y], default=-y
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (sc / m + 1.0) / 2.0
        t = (tc / m + 1.0) / 2.0
    return face.astype(np.int64), np.nan_to_num(s), np.nan_to_num(t)


def result_words(tex: TexObject, vals: NDArray) -> NDArray:
    """The four components ``[4, n]`` as register words: float32 bits for float results,
    32-bit integers otherwise; absent channels read (0, 0, 0, 1)."""
    n = vals.shape[0]
    out = np.zeros((4, n), U32)
    if tex.float_result:
        f = vals.astype(np.float32)
        for c in range(4):
            out[c] = f[:, c].view(U32) if c < tex.channels else U32(0)
        if tex.channels < 4:
            out[3] = np.float32(1.0).view(U32)
        return out
    for c in range(min(4, tex.channels)):
        out[c] = vals[:, c].astype(np.int64).astype(np.uint64).astype(U32)
    if tex.channels < 4:
        out[3] = U32(1)
    return out
