"""Tensor maps (``CUtensorMap``) and the tensor copies that use them (UTMALDG, UTMASTG).

A tensor map is 128 opaque bytes the driver encodes (``cuTensorMapEncodeTiled``); the emulator has
no encoding to decode, so the launch spec describes each map (``"tensor_map"`` on a ``bytes``
argument: tests/kernels/README.md) and the launch registers the description under the map's
generic address in the parameter window, which is the handle kernels pass to the copies
(``UTMALDG.2D [URd], [URmap]`` with ``URmap`` = ``c[0x0][0x198]`` + the parameter's offset).

Tiled mode: a box of ``box_dim`` elements starting at signed coordinates is copied between global
memory and shared memory, where it is dense and row-major (innermost dimension first, as the
driver describes dimensions). Loads fill elements outside the tensor with zeros; stores skip
them. Swizzled and interleaved layouts, element strides other than 1, im2col and multicast are
not modelled (reported as unsupported).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from openptxas.emu.errors import EmuLaunchError
from openptxas.spec import storage_dtype

NDArray = np.ndarray[Any, Any]

# element sizes of the driver's data types, by the spec's dtype name
_EXTRA_SIZES = {"float32_ftz": 4, "tfloat32": 4, "tfloat32_ftz": 4}


@dataclass(frozen=True, slots=True)
class TensorMap:
    address: int  # global address of element 0
    elem: int  # element size in bytes
    dims: tuple[int, ...]  # elements per dimension, innermost first
    strides: tuple[int, ...]  # bytes between consecutive indices of each dimension
    box: tuple[int, ...]  # box size per dimension
    swizzle: str
    interleave: str
    element_strides: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def box_bytes(self) -> int:
        return int(np.prod(self.box)) * self.elem

    def supported(self) -> str | None:
        """Why the emulator cannot copy with this map, or None."""
        if self.swizzle != "none":
            return f"tensor map swizzle '{self.swizzle}'"
        if self.interleave != "none":
            return f"tensor map interleave '{self.interleave}'"
        if any(s != 1 for s in self.element_strides):
            return "tensor map element strides other than 1"
        return None

    def box_addresses(self, coords: Sequence[int]) -> tuple[NDArray, NDArray]:
        """Global byte address of every element of the box at ``coords`` (box order: innermost
        dimension fastest) and whether it lies inside the tensor."""
        idx = np.indices(self.box[::-1]).reshape(self.rank, -1)[::-1]  # innermost first
        pos = idx + np.asarray(coords, dtype=np.int64)[:, None]
        inside = np.all((pos >= 0) & (pos < np.asarray(self.dims)[:, None]), axis=0)
        addr = self.address + (pos * np.asarray(self.strides)[:, None]).sum(axis=0)
        return addr.astype(np.int64), inside


def tensor_map(desc: Mapping[str, Any], address: int, what: str) -> TensorMap:
    """A spec's ``tensor_map`` description over the buffer at ``address``."""
    try:
        if desc.get("encode", "tiled") != "tiled":
            raise EmuLaunchError(f"{what}: tensor map encoding '{desc['encode']}' is not supported")
        dtype = str(desc["dtype"])
        elem = _EXTRA_SIZES.get(dtype) or storage_dtype(dtype).itemsize
        rank = int(desc["rank"])
        dims = tuple(int(x) for x in desc["global_dim"])
        gstrides = tuple(int(x) for x in desc.get("global_strides_bytes", ()))
        box = tuple(int(x) for x in desc["box_dim"])
        estr = tuple(int(x) for x in desc.get("element_strides", [1] * rank))
    except (KeyError, TypeError, ValueError) as exc:
        raise EmuLaunchError(f"{what}: bad tensor_map description ({exc})") from None
    if not (len(dims) == len(box) == len(estr) == rank and len(gstrides) == rank - 1):
        raise EmuLaunchError(
            f"{what}: tensor_map needs rank {rank} entries in global_dim, box_dim and "
            f"element_strides and rank - 1 in global_strides_bytes"
        )
    return TensorMap(
        address=address,
        elem=elem,
        dims=dims,
        strides=(elem, *gstrides),
        box=box,
        swizzle=str(desc.get("swizzle", "none")),
        interleave=str(desc.get("interleave", "none")),
        element_strides=estr,
    )
