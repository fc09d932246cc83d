"""Tensor maps (``CUtensorMap``) and the tensor copies that use them (UTMALDG, UTMASTG,
UTMAREDG).

A tensor map is 128 opaque bytes the driver encodes (``cuTensorMapEncodeTiled``); the emulator has
no encoding to decode, so the launch spec describes each map (``"tensor_map"`` on a ``bytes``
argument: tests/kernels/README.md) and the launch registers the description under the map's
generic address in the parameter window, which is the handle kernels pass to the copies
(``UTMALDG.2D [URd], [URmap]`` with ``URmap`` = ``c[0x0][0x198]`` + the parameter's offset).

Tiled mode: a box of ``box_dim`` elements starting at signed coordinates is copied between global
memory and shared memory, where it is dense and row-major (innermost dimension first, as the
driver describes dimensions). Loads fill elements outside the tensor with zeros; stores and
reductions skip them.

Swizzles (``CU_TENSOR_MAP_SWIZZLE_32B/64B/128B``: "swizzle 16B chunks within a 32/64/128-byte
span"): the box's rows of W = 32/64/128 bytes lie at consecutive W-byte offsets as without
swizzle, and the 16-byte chunk of every byte is XORed with the address bits above the 128-byte
line: shared address ``a`` holds what the dense layout puts at ``a ^ (((a >> 7) & (W/16 - 1))
<< 4)`` (bits 4-6 with bits 7-9 for 128B, bits 4-5 with 7-8 for 64B, bit 4 with bit 7 for
32B; the pattern repeats every 8 W bytes), the layout wgmma's matrix descriptors read
(emu/ops_gmma.py). The pattern is taken from the shared address itself, so a box that is not
aligned to the pattern's repeat starts mid-pattern. The emulator models boxes whose inner
dimension is exactly the span (``box_dim[0]`` elements of W bytes in all); narrower swizzled
boxes, interleaved layouts, the 128B_ATOM_* swizzles, element strides other than 1 and im2col
are reported as unsupported.
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
_SWIZZLE_BYTES = {"none": 0, "32b": 32, "64b": 64, "128b": 128}


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
    dtype: str = ""  # the spec's dtype name (the element type of reductions)

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def box_bytes(self) -> int:
        return int(np.prod(self.box)) * self.elem

    @property
    def swizzle_bytes(self) -> int:
        """The swizzle span W in bytes (0 without swizzle)."""
        return _SWIZZLE_BYTES.get(self.swizzle, -1)

    def supported(self) -> str | None:
        """Why the emulator cannot copy with this map, or None."""
        w = self.swizzle_bytes
        if w < 0:
            return f"tensor map swizzle '{self.swizzle}'"
        if w and self.box[0] * self.elem != w:
            return (
                f"tensor map swizzle '{self.swizzle}' with a box row of "
                f"{self.box[0] * self.elem} bytes (only rows of the swizzle span)"
            )
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

    def shared_addresses(self, base: int) -> NDArray:
        """Shared address of every element of the box (box order) for a box at shared address
        ``base``: dense, then swizzled (module docstring)."""
        a = base + self.elem * np.arange(int(np.prod(self.box)), dtype=np.int64)
        w = self.swizzle_bytes
        if w <= 0:
            return a
        return np.asarray(a ^ (((a >> 7) & (w // 16 - 1)) << 4), dtype=np.int64)


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
        dtype=dtype,
    )
