"""The launch ABI: what the CUDA driver writes into constant bank 0 before a launch, and the values
of special registers that ptxas reads instead.

Offsets in bank 0 (sm_90; learned from ptxas 13.0 output for PTX probes that read every special
register):

======  ========================================================================
0x000   %ntid.x, .y, .z (3 x u32)
0x00c   %nctaid.x, .y, .z
0x020   the local window: generic address of local address 0 (u64; cvta.local)
0x028   the initial stack pointer R1 (u32): the per-thread local memory size
0x02c   %dynamic_smem_size
0x030   %gridid (u64)
0x040   %envreg0..31 (u32 each)
0x068   %reserved_smem_offset_end (ptxas reads begin as 0 and cap as 0x400)
0x10c   %nsmid
0x114   the reserved shared memory size (%total_smem_size = SR_SMEMSZ - this)
0x140   1 for an explicit cluster launch (%is_explicit_cluster)
0x144   %cluster_nctaid.x, .y, .z
0x150   1/cluster_nctaid.x, .y, .z as f32 (ptxas computes %clusterid and %cluster_ctaid
        as trunc(ctaid * 1/n); the value is rounded up so the truncation is exact)
0x15c   %nclusterid.x, .y, .z
0x188   %cluster_nctarank
0x198   the parameter window: generic address of the first parameter (u64; cvta.param)
0x208   the global memory descriptor used as desc[URx] (u64; any value works here)
0x210   the kernel parameters (``param_base`` of the target)
======  ========================================================================
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

from openptxas.emu.memory import LOCAL_WINDOW, PARAM_WINDOW

OFF_NTID = 0x0
OFF_NCTAID = 0xC
OFF_LOCAL_WINDOW = 0x20
OFF_STACK = 0x28
OFF_DYN_SMEM = 0x2C
OFF_GRIDID = 0x30
OFF_ENVREG = 0x40
OFF_RESERVED_END = 0x68
OFF_NSMID = 0x10C
OFF_RESERVED_SMEM = 0x114
OFF_EXPLICIT_CLUSTER = 0x140
OFF_CLUSTER_DIM = 0x144
OFF_CLUSTER_RCP = 0x150
OFF_NCLUSTER = 0x15C
OFF_CLUSTER_NCTARANK = 0x188
OFF_PARAM_WINDOW = 0x198
OFF_GLOBAL_DESC = 0x208

GLOBAL_DESC_VALUE = 0x0000_0000_0000_0001  # opaque: the emulator ignores desc[] registers
RESERVED_SMEM = 0x400  # bytes of shared memory the driver reserves per CTA (sm_90)
NSMID = 132  # an H100 SXM has 132 SMs
GRIDID = 1


def _rcp_up(n: int) -> float:
    """float32(1/n) rounded towards +inf, so that trunc(x * r) == x // n for the small x the
    hardware uses it on."""
    r = np.float32(1.0) / np.float32(n)
    if float(r) * n < 1.0:
        r = np.nextafter(r, np.float32(math.inf))
    return float(r)


@dataclass(frozen=True, slots=True)
class Geometry:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    cluster: tuple[int, int, int]
    explicit_cluster: bool
    dynamic_shared: int
    local_size: int  # per-thread local memory bytes (initial stack pointer)

    @property
    def cluster_size(self) -> int:
        return self.cluster[0] * self.cluster[1] * self.cluster[2]

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


def build_bank0(size: int, geo: Geometry, params: bytes, param_base: int) -> np.ndarray:
    """Constant bank 0 as the driver fills it for this launch."""
    n = max(size, param_base + len(params))
    b = bytearray((n + 3) // 4 * 4)

    def put(off: int, fmt: str, *vals: float | int) -> None:
        struct.pack_into(fmt, b, off, *vals)

    put(OFF_NTID, "<3I", *geo.block)
    put(OFF_NCTAID, "<3I", *geo.grid)
    put(OFF_LOCAL_WINDOW, "<Q", LOCAL_WINDOW)
    put(OFF_STACK, "<I", geo.local_size)
    put(OFF_DYN_SMEM, "<I", geo.dynamic_shared)
    put(OFF_GRIDID, "<Q", GRIDID)
    put(OFF_RESERVED_END, "<I", RESERVED_SMEM)
    put(OFF_NSMID, "<I", NSMID)
    put(OFF_RESERVED_SMEM, "<I", RESERVED_SMEM)
    put(OFF_EXPLICIT_CLUSTER, "<I", 1 if geo.explicit_cluster else 0)
    put(OFF_CLUSTER_DIM, "<3I", *geo.cluster)
    put(OFF_CLUSTER_RCP, "<3f", *(_rcp_up(c) for c in geo.cluster))
    put(OFF_NCLUSTER, "<3I", *(g // c for g, c in zip(geo.grid, geo.cluster, strict=True)))
    put(OFF_CLUSTER_NCTARANK, "<I", geo.cluster_size)
    put(OFF_PARAM_WINDOW, "<Q", PARAM_WINDOW)
    put(OFF_GLOBAL_DESC, "<Q", GLOBAL_DESC_VALUE)
    b[param_base : param_base + len(params)] = params
    return np.frombuffer(bytes(b), dtype=np.uint8).copy()
