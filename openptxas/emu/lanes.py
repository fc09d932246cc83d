"""Lane selections: which lanes of a wave execute an instruction.

A selection is either :data:`ALL` (``slice(None)``: every lane of the wave; only used while no lane
has exited and the wave has no padding lanes) or a sorted ``intp`` array of lane numbers. Register
rows are indexed with either, so handlers need no special case: ``row[sel]`` reads and
``row[sel] = v`` writes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ALL = slice(None)
Sel = slice | np.ndarray[Any, Any]
IntArray = np.ndarray[Any, np.dtype[np.intp]]

_AR32 = np.arange(32, dtype=np.intp)


def is_all(sel: Sel) -> bool:
    return isinstance(sel, slice)


def as_index(sel: Sel, lanes: int) -> IntArray:
    if isinstance(sel, slice):
        return np.arange(lanes, dtype=np.intp)
    return sel


def count(sel: Sel, lanes: int) -> int:
    return lanes if isinstance(sel, slice) else int(sel.size)


def warps_of(sel: Sel, lanes: int) -> IntArray:
    """The (sorted, unique) warp numbers the selection touches."""
    if isinstance(sel, slice):
        return np.arange(lanes // 32, dtype=np.intp)
    w = sel >> 5
    if w.size <= 1:
        return w
    keep = np.empty(w.size, dtype=bool)
    keep[0] = True
    np.not_equal(w[1:], w[:-1], out=keep[1:])
    return w[keep]


def nwarps(sel: Sel, lanes: int) -> int:
    if isinstance(sel, slice):
        return lanes // 32
    if sel.size <= 1:
        return int(sel.size)
    w = sel >> 5
    return int(np.count_nonzero(w[1:] != w[:-1])) + 1


def warp_lanes(sel: Sel, lanes: int) -> Sel:
    """Every lane of every warp the selection touches (uniform-datapath instructions act on the
    whole warp)."""
    if isinstance(sel, slice):
        return sel
    w = warps_of(sel, lanes)
    if w.size * 32 == lanes:
        return ALL
    return (w[:, None] * 32 + _AR32[None, :]).reshape(-1)


def mask_of(sel: Sel, lanes: int) -> np.ndarray[Any, np.dtype[np.bool_]]:
    m = np.zeros(lanes, dtype=bool)
    m[sel] = True
    return m


def merge(a: Sel, b: Sel, lanes: int) -> Sel:
    """Union of two disjoint selections."""
    if isinstance(a, slice) or isinstance(b, slice):
        return ALL
    if a.size == 0:
        return b
    if b.size == 0:
        return a
    if a[-1] < b[0]:
        m = np.concatenate((a, b))
    elif b[-1] < a[0]:
        m = np.concatenate((b, a))
    else:
        m = np.sort(np.concatenate((a, b)), kind="stable")
    return ALL if m.size == lanes else m


def subset(sel: Sel, keep: np.ndarray[Any, np.dtype[np.bool_]], lanes: int) -> Sel | None:
    """The lanes of ``sel`` where ``keep`` (aligned with ``row[sel]``) is true; None if none."""
    if isinstance(sel, slice):
        if keep.all():
            return ALL
        idx = np.flatnonzero(keep)
        return idx if idx.size else None
    if keep.all():
        return sel
    sub = sel[keep]
    return sub if sub.size else None


_BITS = (np.uint64(1) << np.arange(32, dtype=np.uint64)).astype(np.uint32)


def warp_masks(idx: IntArray) -> tuple[IntArray, np.ndarray[Any, Any], IntArray, IntArray]:
    """For a sorted lane index array: (warp ids, executing-lane mask of each warp as uint32,
    segment start offsets, segment lengths)."""
    if idx.size == 0:
        e = np.zeros(0, dtype=np.intp)
        return e, np.zeros(0, dtype=np.uint32), e, e
    w = idx >> 5
    brk = np.empty(idx.size, dtype=bool)
    brk[0] = True
    np.not_equal(w[1:], w[:-1], out=brk[1:])
    starts = np.flatnonzero(brk)
    counts = np.diff(np.append(starts, idx.size))
    bits = _BITS[idx & 31]
    masks = np.bitwise_or.reduceat(bits, starts)
    return w[starts], masks, starts, counts


def pack_bits(flags: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """bool [warps*32] -> uint32 [warps] lane masks."""
    f = flags.reshape(-1, 32).astype(np.uint32)
    return np.asarray((f * _BITS[None, :]).sum(axis=1, dtype=np.uint64).astype(np.uint32))


def lane_bit(masks: np.ndarray[Any, Any], idx: IntArray) -> np.ndarray[Any, Any]:
    """For each lane of ``idx``, whether its bit is set in ``masks`` (aligned with idx)."""
    return np.asarray(((masks >> (idx & 31).astype(np.uint32)) & np.uint32(1)) != 0)
