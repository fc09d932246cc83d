"""Memory spaces: global memory (numpy buffers at 64-bit addresses), per-CTA shared memory and
per-thread local memory, with bounds and alignment checks.

Every access is vectorised over lanes: the caller passes per-lane addresses and gets per-lane
32-bit words (``[words, lanes]``) back. A bad address raises :class:`MemoryFault`; the engine adds
the instruction and its address to the message.

Address map (the emulator's choice; programs only see it through pointers):

- global allocations from ``GLOBAL_BASE`` up, each aligned to 256 bytes with a 256-byte gap after
  it, so an access running past the end of one buffer never lands in the next;
- the shared window: generic address ``SHARED_WINDOW_HI << 32 | shared address`` (``SR_SWINHI``);
  a shared address is ``cta_rank_in_cluster << 24 | offset`` (offset 0x400 = the first static
  variable; the driver reserves the first 1 KiB);
- the local window: generic address ``LOCAL_WINDOW + local address`` (``c[0x0][0x20]``); a local
  address is a byte offset in the thread's own local memory, the stack growing down from
  ``c[0x0][0x28]`` = its size;
- the parameter window: generic address ``PARAM_WINDOW + parameter offset`` (``c[0x0][0x198]``,
  what ``cvta.param`` gives, e.g. the address of a ``__grid_constant__`` parameter), read-only,
  backed by the parameters in constant bank 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from openptxas.emu.errors import EmuError

GLOBAL_BASE = 1 << 36
ALLOC_ALIGN = 256
ALLOC_GAP = 256
SHARED_WINDOW_HI = 0x7FF0
LOCAL_WINDOW = 0x7FE0 << 32
PARAM_WINDOW = 0x7FD0 << 32
PARAM_WINDOW_SIZE = 0x8000  # the driver's parameter limit (32764 bytes) rounded up

U32 = np.uint32
U64 = np.uint64
I64 = np.int64

NDArray = np.ndarray[Any, Any]


class MemoryFault(EmuError):
    """An access outside every allocation, or misaligned."""

    def __init__(self, space: str, address: int, width: int, reason: str) -> None:
        super().__init__(f"{reason}: {width}-byte {space} access at address {address:#x}")
        self.space = space
        self.address = address
        self.width = width
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Allocation:
    name: str
    address: int
    size: int


class GlobalMemory:
    """Global memory: every allocation lives in one numpy byte arena."""

    def __init__(self) -> None:
        self.allocations: list[Allocation] = []
        self._next = GLOBAL_BASE
        self.arena: NDArray = np.zeros(0, dtype=np.uint8)
        self._starts: NDArray = np.zeros(0, dtype=I64)
        self._ends: NDArray = np.zeros(0, dtype=I64)

    def alloc(self, size: int, name: str) -> int:
        addr = (self._next + ALLOC_ALIGN - 1) // ALLOC_ALIGN * ALLOC_ALIGN
        self.allocations.append(Allocation(name, addr, size))
        self._next = addr + max(size, 1) + ALLOC_GAP
        need = self._next - GLOBAL_BASE
        if need > self.arena.size:
            size = (max(need, 2 * self.arena.size) + 15) // 16 * 16  # viewable as words
            grown = np.zeros(size, dtype=np.uint8)
            grown[: self.arena.size] = self.arena
            self.arena = grown
        self._starts = np.array([a.address for a in self.allocations], dtype=I64)
        self._ends = np.array([a.address + a.size for a in self.allocations], dtype=I64)
        return addr

    def write(self, addr: int, data: bytes | NDArray) -> None:
        raw = np.frombuffer(bytes(data), dtype=np.uint8) if isinstance(data, bytes) else data
        raw = np.ascontiguousarray(raw).view(np.uint8).reshape(-1)
        o = addr - GLOBAL_BASE
        self.arena[o : o + raw.size] = raw

    def read(self, addr: int, n: int) -> bytes:
        o = addr - GLOBAL_BASE
        return self.arena[o : o + n].tobytes()

    def find(self, addr: int) -> Allocation | None:
        for a in self.allocations:
            if a.address <= addr < a.address + a.size:
                return a
        return None

    def offsets(self, addrs: NDArray, width: int) -> NDArray:
        """Arena byte offsets of per-lane accesses of ``width`` bytes at ``addrs`` (uint64)."""
        a = addrs.astype(I64, copy=False)
        if width > 1 and np.any(a & (width - 1)):
            bad = int(a[np.flatnonzero(a & (width - 1))[0]])
            raise MemoryFault("global", bad, width, "misaligned address")
        k = np.searchsorted(self._starts, a, side="right") - 1
        kc = np.maximum(k, 0)
        ok = (
            (k >= 0) & (a + width <= self._ends[kc]) if self._ends.size else np.zeros(a.shape, bool)
        )
        if not ok.all():
            bad = int(a[np.flatnonzero(~ok)[0]])
            raise MemoryFault("global", bad, width, "out-of-bounds address")
        return a - GLOBAL_BASE


class LinearView:
    """Word/byte access into a flat byte arena given per-lane byte offsets (already checked)."""

    def __init__(self, arena: NDArray) -> None:
        self.arena = arena

    def load(self, off: NDArray, width: int, signed: bool = False) -> NDArray:
        ar = self.arena
        if width >= 4:
            w32 = ar.view(U32)
            base = off >> 2
            n = width // 4
            if n == 1:
                return np.asarray(w32[base][None, :])
            return np.asarray(w32[base[None, :] + np.arange(n)[:, None]])
        if width == 2:
            v16 = ar.view(np.int16 if signed else np.uint16)[off >> 1]
            return np.asarray(
                v16.astype(np.int32).view(U32)[None, :] if signed else v16.astype(U32)[None, :]
            )
        v8 = ar.view(np.int8 if signed else np.uint8)[off]
        return v8.astype(np.int32).view(U32)[None, :] if signed else v8.astype(U32)[None, :]

    def store(self, off: NDArray, width: int, words: NDArray) -> None:
        ar = self.arena
        if width >= 4:
            w32 = ar.view(U32)
            base = off >> 2
            n = width // 4
            if n == 1:
                w32[base] = words[0]
            else:
                w32[base[None, :] + np.arange(n)[:, None]] = words
        elif width == 2:
            ar.view(np.uint16)[off >> 1] = words[0].astype(np.uint16)
        else:
            ar[off] = words[0].astype(np.uint8)


class LocalMemory:
    """Per-thread local memory, word-major (``[words, lanes]``) so that all lanes touching the same
    stack slot touch one contiguous row."""

    def __init__(self, size: int, lanes: int) -> None:
        self.size = (size + 15) // 16 * 16
        self.lanes = lanes
        self.words: NDArray = np.zeros((self.size // 4) * lanes, dtype=U32)

    def reset(self) -> None:
        self.words.fill(0)

    def check(self, addrs: NDArray, width: int) -> NDArray:
        a = addrs.astype(I64, copy=False)
        if width > 1 and np.any(a & (width - 1)):
            bad = int(a[np.flatnonzero(a & (width - 1))[0]])
            raise MemoryFault("local", bad, width, "misaligned address")
        ok = (a >= 0) & (a + width <= self.size)
        if not ok.all():
            bad = int(a[np.flatnonzero(~ok)[0]])
            raise MemoryFault(
                "local", bad, width, f"out-of-bounds address (local memory is {self.size} bytes)"
            )
        return a

    def load(self, a: NDArray, lanes: NDArray, width: int, signed: bool = False) -> NDArray:
        L = self.lanes
        if width >= 4:
            n = width // 4
            wi = (a >> 2)[None, :] + np.arange(n)[:, None]
            return np.asarray(self.words[wi * L + lanes[None, :]])
        bi = ((a >> 2) * L + lanes) * 4 + (a & 3)
        b8 = self.words.view(np.uint8)
        if width == 2:
            lo = b8[bi].astype(U32)
            hi = b8[bi + 1].astype(U32)
            v = lo | (hi << U32(8))
            if signed:
                v = v.astype(np.uint16).view(np.int16).astype(np.int32).view(U32)
            return np.asarray(v[None, :])
        v = b8[bi]
        if signed:
            return v.view(np.int8).astype(np.int32).view(U32)[None, :]
        return v.astype(U32)[None, :]

    def store(self, a: NDArray, lanes: NDArray, width: int, words: NDArray) -> None:
        L = self.lanes
        if width >= 4:
            n = width // 4
            wi = (a >> 2)[None, :] + np.arange(n)[:, None]
            self.words[wi * L + lanes[None, :]] = words
            return
        bi = ((a >> 2) * L + lanes) * 4 + (a & 3)
        b8 = self.words.view(np.uint8)
        b8[bi] = (words[0] & U32(0xFF)).astype(np.uint8)
        if width == 2:
            b8[bi + 1] = ((words[0] >> U32(8)) & U32(0xFF)).astype(np.uint8)


class SharedMemory:
    """Shared memory of the CTAs of one wave: ``size`` bytes per CTA slot."""

    def __init__(self, size: int, ctas: int) -> None:
        self.size = (size + 15) // 16 * 16
        self.valid = size
        self.ctas = ctas
        self.arena: NDArray = np.zeros(self.size * ctas, dtype=np.uint8)
        self.view = LinearView(self.arena)

    def reset(self) -> None:
        self.arena.fill(0)

    def offsets(
        self, addrs: NDArray, width: int, cluster_base: NDArray, cluster_size: NDArray
    ) -> NDArray:
        """Arena byte offsets of shared addresses (``rank << 24 | offset``) issued by lanes whose
        cluster starts at CTA slot ``cluster_base`` and has ``cluster_size`` CTAs."""
        a = addrs.astype(I64, copy=False) & 0xFFFFFFFF
        if width > 1 and np.any(a & (width - 1)):
            bad = int(a[np.flatnonzero(a & (width - 1))[0]])
            raise MemoryFault("shared", bad, width, "misaligned address")
        rank = a >> 24
        off = a & 0xFFFFFF
        ok = (rank < cluster_size) & (off + width <= self.valid)
        if not ok.all():
            bad = int(a[np.flatnonzero(~ok)[0]])
            raise MemoryFault(
                "shared",
                bad,
                width,
                f"out-of-bounds address (shared memory is {self.valid:#x} bytes per CTA)",
            )
        return np.asarray((cluster_base + rank) * self.size + off)
