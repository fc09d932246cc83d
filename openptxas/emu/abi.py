"""The launch ABI: what the CUDA driver writes into constant bank 0 before a launch, and the values
of special registers that ptxas reads instead.

The offsets are the target's (``openptxas.targets``' ``Bank0``, the ``[bank0]`` table of each
data file, learned with scripts/probe_bank0.py from ptxas 13.0 output for PTX probes that read
every special register). sm_90's, for example:

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

sm_75-sm_89 differ: the global descriptor at 0x118 (none on sm_75), %envreg at 0x88, the
shared window (generic address of shared address 0) at 0x18, the parameter window at 0x40
holding the generic address of bank 0's byte 0 (the code adds the parameter base 0x160), and no
cluster values.

Blackwell (sm_100, sm_120) moves everything (%ntid at 0x360, %nctaid at 0x370, the stack
pointer at 0x37c, the descriptor at 0x358, parameters from 0x380) and reads some values per CGA:
``CS2R.32 R5, SR_CgaSize; IMAD R5, R5, -0xa0, RZ; LDC R5, c[0x0][R5+0x2ac]``
(%dynamic_smem_size). What SR_CgaSize holds on the hardware is not known here; the emulator
reads it as :data:`CGA_SIZE` and puts each such value (``Bank0.cga_indexed``) at its offset +
``cga_stride`` * :data:`CGA_SIZE`, so the two agree by construction. 1 rather than 0, so that
the index is exercised (a wrong stride reads zeros or faults instead of passing unnoticed), and
a CGA of one CTA is what a launch without clusters has; one value for every launch (with the
cluster's CTA count, a cluster of 2 would place its block at 0x110-0x18f, over %gridid at 0x140).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from openptxas.emu.errors import EmuLoadError
from openptxas.emu.memory import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW_HI

if TYPE_CHECKING:
    from openptxas.targets import Bank0

GLOBAL_DESC_VALUE = 0x0000_0000_0000_0001  # opaque: the emulator ignores desc[] registers
RESERVED_SMEM = 0x400  # bytes of shared memory the driver reserves per CTA (sm_90)
NSMID = 132  # an H100 SXM has 132 SMs
GRIDID = 1
CGA_SIZE = 1  # SR_CgaSize (Blackwell's per-CGA bank-0 reads; see above)


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


def bank0_layout(sm: int) -> Bank0:
    """The bank-0 layout of the cubin's target ``sm``."""
    from openptxas.diag import OpenPtxasError
    from openptxas.targets import get_target

    try:
        return get_target(f"sm_{sm}").bank0
    except OpenPtxasError as exc:
        raise EmuLoadError(f"cannot launch a cubin for sm_{sm}: {exc}") from None


def build_bank0(
    size: int, geo: Geometry, params: bytes, param_base: int, layout: Bank0
) -> np.ndarray:
    """Constant bank 0 as the driver fills it for this launch (``layout``: the target's)."""
    n = max(size, param_base + len(params))
    b = bytearray((n + 3) // 4 * 4)

    def put(off: int, fmt: str, *vals: float | int) -> None:
        if off < 0:
            return  # the target has no such value
        end = off + struct.calcsize(fmt)
        if end > len(b):  # (a kernel without parameters may declare a smaller bank)
            b.extend(bytes((end + 3) // 4 * 4 - len(b)))
        struct.pack_into(fmt, b, off, *vals)

    L = layout

    def at(name: str) -> int:
        """Where the driver puts value ``name`` (per-CGA values: for the emulator's SR_CgaSize)."""
        off: int = getattr(L, name)
        return off + L.cga_stride * CGA_SIZE if off >= 0 and name in L.cga_indexed else off

    for k in range(3):
        put(L.ntid[k], "<I", geo.block[k])
        put(L.nctaid[k], "<I", geo.grid[k])
    put(at("local_window"), "<Q", LOCAL_WINDOW)
    put(at("stack"), "<I", geo.local_size)
    put(at("dynamic_smem_size"), "<I", geo.dynamic_shared)
    put(at("gridid"), "<Q", GRIDID)
    put(at("reserved_smem_offset_end"), "<I", RESERVED_SMEM)
    put(at("nsmid"), "<I", NSMID)
    put(at("reserved_smem_size"), "<I", RESERVED_SMEM)
    put(at("explicit_cluster"), "<I", 1 if geo.explicit_cluster else 0)
    put(at("cluster_nctaid"), "<3I", *geo.cluster)
    put(at("cluster_rcp"), "<3f", *(_rcp_up(c) for c in geo.cluster))
    put(at("nclusterid"), "<3I", *(g // c for g, c in zip(geo.grid, geo.cluster, strict=True)))
    put(at("cluster_nctarank"), "<I", geo.cluster_size)
    # (generic address of parameter offset o = window + (param_base - param_window_base) + o;
    # a kernel without parameters has no param_base)
    skew = param_base - L.param_window_base if param_base else 0
    put(at("param_window"), "<Q", PARAM_WINDOW - skew)
    put(at("shared_window"), "<Q", SHARED_WINDOW_HI << 32)
    put(at("global_desc"), "<Q", GLOBAL_DESC_VALUE)
    b[param_base : param_base + len(params)] = params
    return np.frombuffer(bytes(b), dtype=np.uint8).copy()
