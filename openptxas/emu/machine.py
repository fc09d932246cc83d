"""The execution engine: a wave of CTAs, per-lane program counters, SIMT scheduling, barriers.

Lanes of every warp of every CTA in a wave share one register file (``R[row, lane]``), so an
instruction executes once, vectorised, for every lane that is at its address, whatever warp or
CTA the lane belongs to.

Scheduling. Lanes at the same address form a group; the engine repeatedly runs the group with the
lowest address. Lanes that take a backward branch wait for the next *round*, so every lane gets to
its next loop back-edge before any lane starts another iteration (a spinning lane cannot starve
the lane it waits for) and loops stay in lockstep. Lanes blocked at a barrier (``BAR``, ``BSYNC``,
``WARPSYNC``, cluster barriers) are released at the end of a round once every lane they wait for
has arrived or exited.

Convergence (sm_70+ as ptxas uses it): ``BSSY Bn`` records the executing lanes of each warp in
barrier ``Bn``; ``BSYNC Bn`` waits until every member of ``Bn`` that has not exited or ``BREAK``ed
out has arrived; ``WARPSYNC mask`` waits for the lanes of the mask. Lanes at one address are
always executed together, so warps reconverge at least as much as on the hardware.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from openptxas.emu.abi import Geometry
from openptxas.emu.bind import NROWS, Bound, Ctx, Kind
from openptxas.emu.cdp import patch_code
from openptxas.emu.errors import EmuError, KernelFault, Unsupported
from openptxas.emu.lanes import (
    ALL,
    Sel,
    lane_bit,
    mask_of,
    merge,
    nwarps,
    pack_bits,
    subset,
    warp_lanes,
)
from openptxas.emu.memory import (
    LOCAL_WINDOW,
    PARAM_WINDOW,
    PARAM_WINDOW_SIZE,
    SHARED_WINDOW_HI,
    GlobalMemory,
    LinearView,
    LocalMemory,
    MemoryFault,
    SharedMemory,
)
from openptxas.emu.model import Instruction, Reg
from openptxas.emu.program import Kernel, Module

if TYPE_CHECKING:
    from openptxas.emu.hazards import HazardChecker
    from openptxas.emu.texture import TexObject
    from openptxas.emu.tma import TensorMap

NDArray = np.ndarray[Any, Any]
U32 = np.uint32
Op = Callable[[Sel, int], None]


@dataclass
class Waiter:
    """Lanes blocked at one barrier instruction."""

    pc: int
    sel: NDArray  # lane numbers (sorted)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class PrintfRecord:
    cta: int
    thread: int
    seq: int
    text: str


class Machine:
    def __init__(
        self,
        module: Module,
        kernel: Kernel,
        geo: Geometry,
        mem: GlobalMemory,
        banks: Mapping[int, NDArray],
        binders: Mapping[str, Callable[[Ctx], Bound]],
        builtins: Mapping[int, str],
        max_lanes: int = 8192,
        hazards: HazardChecker | None = None,
        trace: TextIO | None = None,
        max_instructions: int = 200_000_000,
    ) -> None:
        self.max_instructions = max_instructions
        self.module = module
        self.kernel = kernel
        self.geo = geo
        self.mem = mem
        self.banks = dict(banks)
        self.binders = binders
        self.builtins = dict(builtins)
        # calls of driver functions check their return address (emu/ops_ctrl.py)
        self.check_return_address = True
        self.hazards = hazards
        self.trace = trace
        self.instructions = patch_code(module, kernel, module.instructions(kernel))
        # linked cubins (emu/linked.py): absolute call sites -> placed address or driver function
        self.linked_calls: dict[int, int | str] = {}
        T = geo.threads
        self.warps_per_cta = (T + 31) // 32
        self.lanes_per_cta = self.warps_per_cta * 32
        cs = geo.cluster_size
        per_wave = max(1, max_lanes // self.lanes_per_cta) // cs * cs
        per_wave = max(cs, per_wave)
        total = geo.ctas
        per_wave = min(per_wave, (total + cs - 1) // cs * cs)
        self.ctas_per_wave = per_wave
        L = per_wave * self.lanes_per_cta
        self.L = L
        self.W = L // 32
        self.R: NDArray = np.zeros((NROWS, L), dtype=U32)
        self.P: NDArray = np.zeros((16, L), dtype=bool)
        # convergence barrier masks, each lane's copy: the mask of the BSSY it executed (sibling
        # paths of a divergent branch may re-arm one barrier register: ptxas gives both arms of
        # an if/else B1 for their inner regions; the hardware runs one arm's lanes until they
        # block, so each lane waits for the members of its own BSSY)
        self.Bw: NDArray = np.zeros((16, L), dtype=U32)
        # and the instance of that BSSY (a number per execution of a BSSY): a lane waits for
        # the members blocked in a BSYNC of the same instance. ptxas's callees save the caller's
        # barrier (BMOV.32.CLEAR Rx, B6), use B6 themselves and restore it (BMOV.32 B6, Rx)
        # while the caller's other lanes wait on it, recursion included: an inner instance's
        # lanes must not complete the outer one, and the waiting lanes keep their copy
        self.Binst: NDArray = np.zeros((16, L), dtype=np.int64)
        self.binst_next = 1
        # per barrier and lane, a stack of the (mask, instance) copies BMOV.32[.CLEAR] Rd, Bk
        # saved, restored last-in first-out by BMOV.32 Bk, Rd with that mask (a register holds
        # only the mask): [k, depth, lane], grown on demand, and each lane's depth
        self.bsaved_mask: NDArray = np.zeros((16, 0, L), dtype=U32)
        self.bsaved_inst: NDArray = np.zeros((16, 0, L), dtype=np.int64)
        self.bsaved_depth: NDArray = np.zeros((16, L), dtype=np.intp)
        self.bwait: NDArray = np.zeros((16, L // 32), dtype=U32)  # lanes blocked in BSYNC Bk
        self.bsync_wait: dict[int, list[Waiter]] = {}
        self.exists: NDArray = np.zeros(L, dtype=bool)
        self.exited: NDArray = np.zeros(L, dtype=bool)
        self.lane = np.arange(L, dtype=np.intp)
        self.laneid: NDArray = (self.lane & 31).astype(U32)
        self.tid: NDArray = np.zeros((3, L), dtype=U32)
        self.ctaid: NDArray = np.zeros((3, L), dtype=U32)
        self.cta_linear: NDArray = np.zeros(L, dtype=np.int64)
        self.tid_linear: NDArray = np.zeros(L, dtype=np.int64)
        self.slot: NDArray = self.lane // self.lanes_per_cta
        self.cluster_rank: NDArray = np.zeros(L, dtype=U32)
        self.cluster_base: NDArray = np.zeros(L, dtype=np.int64)
        self.cluster_size: NDArray = np.full(L, cs, dtype=np.int64)
        smem = kernel.shared_static if kernel.shared_static else 0x400
        smem = (smem + 15) // 16 * 16 + geo.dynamic_shared
        self.shared = SharedMemory(smem, per_wave)
        self.local = LocalMemory(geo.local_size, L)
        self.ops: dict[int, Op] = {}
        self.counts: dict[int, int] = {}
        self.groups: dict[int, tuple[Sel, int]] = {}
        self.next_groups: dict[int, tuple[Sel, int]] = {}
        self.bar_wait: dict[int, list[Waiter]] = {}
        self.bar_arv: dict[int, NDArray] = {}  # lanes that arrived (BAR.ARV) without waiting
        self.sync_wait: dict[int, Waiter] = {}  # BSYNC / WARPSYNC / cluster barriers, by pc
        self.releasers: dict[int, Callable[[Waiter], NDArray | None]] = {}
        self.printf: list[PrintfRecord] = []
        # Reads whose value the PTX ISA leaves undefined (a shuffle from a lane that is not
        # executing it): "pc: what", first occurrence per pc. Outputs that depend on them may
        # differ between two correct compilations, so differential tests report them apart.
        self.undefined: dict[int, str] = {}
        self.printf_seq: NDArray = np.zeros(L, dtype=np.int64)
        self.clock = 0
        self.issued = 0  # warp-instructions
        self.wave_ctas: list[tuple[int, int, int]] = []
        self.all_live = True
        self.bar_red_vals: dict[int, NDArray] = {}
        self.bar_result: NDArray = np.zeros(L, dtype=U32)  # the last BAR.RED result (B2R)
        self.cga_arrived: NDArray = np.zeros(L, dtype=np.int64)
        self.gview = LinearView(mem.arena)
        self.builtin_fns: dict[str, Callable[[Machine, int, Sel], None]] = {}
        self.tensor_maps: dict[int, TensorMap] = {}  # by generic address (parameter window)
        self.textures: dict[int, TexObject] = {}  # texture and surface objects, by handle

    # -- geometry --------------------------------------------------------------------------
    def cta_order(self) -> list[tuple[int, int, int]]:
        """CTA coordinates in the order the engine runs them: cluster by cluster (clusters in
        linear order), CTAs of a cluster by rank."""
        gx, gy, gz = self.geo.grid
        cx, cy, cz = self.geo.cluster
        out: list[tuple[int, int, int]] = []
        for kz in range(gz // cz):
            for ky in range(gy // cy):
                for kx in range(gx // cx):
                    for rz in range(cz):
                        for ry in range(cy):
                            for rx in range(cx):
                                out.append((kx * cx + rx, ky * cy + ry, kz * cz + rz))
        return out

    def run(self) -> None:
        order = self.cta_order()
        n = self.ctas_per_wave
        for start in range(0, len(order), n):
            self._setup_wave(order[start : start + n])
            self._run_wave()

    def _setup_wave(self, ctas: list[tuple[int, int, int]]) -> None:
        geo = self.geo
        bx, by, _ = geo.block
        T = geo.threads
        lpc = self.lanes_per_cta
        cs = geo.cluster_size
        cx, cy, _cz = geo.cluster
        self.wave_ctas = ctas
        self.R.fill(0)
        self.P.fill(False)
        self.P[7] = True
        self.P[15] = True
        self.Bw.fill(0)
        self.Binst.fill(0)
        self.bsaved_depth.fill(0)
        self.bwait.fill(0)
        self.exists.fill(False)
        self.exited.fill(False)
        self.printf_seq.fill(0)
        self.cga_arrived.fill(0)
        self.bar_red_vals.clear()
        self.bar_result.fill(0)
        self.gview = LinearView(self.mem.arena)
        self.shared.reset()
        self.local.reset()
        t = np.arange(lpc)
        for s, (x, y, z) in enumerate(ctas):
            lo = s * lpc
            self.exists[lo : lo + T] = True
            self.tid[0, lo : lo + lpc] = t % bx
            self.tid[1, lo : lo + lpc] = (t // bx) % by
            self.tid[2, lo : lo + lpc] = t // (bx * by)
            self.ctaid[:, lo : lo + lpc] = np.array([x, y, z], dtype=U32)[:, None]
            self.cta_linear[lo : lo + lpc] = x + geo.grid[0] * (y + geo.grid[1] * z)
            self.tid_linear[lo : lo + lpc] = t
            rank = (x % cx) + cx * ((y % cy) + cy * (z % geo.cluster[2]))
            self.cluster_rank[lo : lo + lpc] = rank
            self.cluster_base[lo : lo + lpc] = (s // cs) * cs
        n_exist = int(self.exists.sum())
        self.exited[~self.exists] = True
        self.groups.clear()
        self.next_groups.clear()
        self.bar_wait.clear()
        self.bar_arv.clear()
        self.sync_wait.clear()
        self.bsync_wait.clear()
        if n_exist == self.L:
            self.all_live = True
            self.groups[0] = (ALL, self.W)
        else:
            self.all_live = False
            sel = np.flatnonzero(self.exists)
            self.groups[0] = (sel, nwarps(sel, self.L))
        if self.hazards is not None:
            self.hazards.reset(self)

    # -- scheduling ------------------------------------------------------------------------
    def push(self, pc: int, sel: Sel, nw: int) -> None:
        g = self.groups
        cur = g.get(pc)
        if cur is None:
            g[pc] = (sel, nw)
        else:
            s = merge(cur[0], sel, self.L)
            g[pc] = (s, nwarps(s, self.L))

    def push_next(self, pc: int, sel: Sel, nw: int) -> None:
        g = self.next_groups
        cur = g.get(pc)
        if cur is None:
            g[pc] = (sel, nw)
        else:
            s = merge(cur[0], sel, self.L)
            g[pc] = (s, nwarps(s, self.L))

    def goto(self, src: int, target: int, sel: Sel, nw: int = -1) -> None:
        """Send lanes to ``target``: a backward jump waits for the next round."""
        if nw < 0:
            nw = nwarps(sel, self.L)
        if target <= src:
            self.push_next(target, sel, nw)
        else:
            self.push(target, sel, nw)

    def goto_lanes(self, src: int, targets: NDArray, sel: Sel) -> None:
        """Send each lane of ``sel`` to its own target (indirect branches, returns)."""
        idx = np.arange(self.L, dtype=np.intp)[sel] if isinstance(sel, slice) else sel
        t = np.asarray(targets, dtype=np.int64)
        if t.size == 0:
            return
        first = int(t[0])
        if (t == first).all():
            self.goto(src, first, sel if not isinstance(sel, slice) else ALL)
            return
        for tgt in np.unique(t):
            self.goto(src, int(tgt), idx[t == tgt])

    def _run_wave(self) -> None:
        groups = self.groups
        ops = self.ops
        counts = self.counts
        while True:
            while groups:
                pc = min(groups)
                sel, nw = groups.pop(pc)
                op = ops.get(pc)
                if op is None:
                    op = self._bind(pc)
                counts[pc] = counts.get(pc, 0) + nw
                self.issued += nw
                try:
                    op(sel, nw)
                except MemoryFault as exc:
                    ins = self.instructions.get(pc)
                    raise KernelFault(exc.message, pc, str(ins) if ins else "") from None
            if self.issued > self.max_instructions:
                pc = min(self.next_groups) if self.next_groups else -1
                ins = self.instructions.get(pc)
                raise KernelFault(
                    f"more than {self.max_instructions} warp-instructions executed: the kernel "
                    "does not terminate (a loop waiting for something that never happens?)",
                    pc if pc >= 0 else None,
                    str(ins) if ins else "",
                )
            released = self._release()
            if released or self.next_groups:
                for pc, (sel, nw) in self.next_groups.items():
                    self.push(pc, sel, nw)
                self.next_groups.clear()
                continue
            waiting = (
                [w for ws in self.bar_wait.values() for w in ws]
                + [w for ws in self.bsync_wait.values() for w in ws]
                + list(self.sync_wait.values())
            )
            if waiting:
                w = waiting[0]
                ins = self.instructions.get(w.pc)
                raise KernelFault(
                    f"deadlock: {sum(x.sel.size for x in waiting)} threads wait at barriers that "
                    "can never complete",
                    w.pc,
                    str(ins) if ins else "",
                )
            break

    def _release(self) -> bool:
        """Release every waiter whose condition holds; True if any lane was released."""
        any_rel = False
        for pc in sorted(self.sync_wait):
            w = self.sync_wait[pc]
            rel = self.releasers[pc](w)
            if rel is not None and rel.size:
                any_rel = True
                rest = np.setdiff1d(w.sel, rel, assume_unique=True)
                if rest.size:
                    w.sel = rest
                else:
                    del self.sync_wait[pc]
                if self.hazards is not None:
                    self.hazards.sync(rel, 32)
                self.push_next(pc + 16, rel, nwarps(rel, self.L))
        for bid in sorted(self.bar_wait):
            if self._release_bar(bid):
                any_rel = True
        for k in sorted(self.bsync_wait):
            if self._release_bsync(k):
                any_rel = True
        return any_rel

    def bsaved_push(self, k: int, idx: NDArray) -> None:
        """Save lanes ``idx``'s copy of Bk (BMOV.32[.CLEAR] Rd, Bk)."""
        d = self.bsaved_depth[k, idx]
        if d.size and int(d.max()) >= self.bsaved_mask.shape[1]:
            grow = max(8, self.bsaved_mask.shape[1])
            pad = ((0, 0), (0, grow), (0, 0))
            self.bsaved_mask = np.pad(self.bsaved_mask, pad)
            self.bsaved_inst = np.pad(self.bsaved_inst, pad)
        self.bsaved_mask[k, d, idx] = self.Bw[k, idx]
        self.bsaved_inst[k, d, idx] = self.Binst[k, idx]
        self.bsaved_depth[k, idx] = d + 1

    def bsaved_top(self, k: int, idx: NDArray) -> NDArray:
        """Lanes ``idx``'s last saved mask of Bk (-1, which no mask equals, where none)."""
        d = self.bsaved_depth[k, idx] - 1
        top = np.full(idx.shape, -1, dtype=np.int64)
        has = d >= 0
        top[has] = self.bsaved_mask[k, d[has], idx[has]]
        return top

    def bsaved_pop(self, k: int, idx: NDArray) -> tuple[NDArray, NDArray]:
        """Pop lanes ``idx``'s last saved (mask, instance) of Bk."""
        d = self.bsaved_depth[k, idx] - 1
        self.bsaved_depth[k, idx] = d
        return self.bsaved_mask[k, d, idx], self.bsaved_inst[k, d, idx]

    def bsync_ready(
        self, k: int, idx: NDArray, arriving: NDArray | None = None
    ) -> tuple[NDArray, NDArray]:
        """For lanes ``idx``: (barrier Bk complete, member mask of the lane's copy): every live
        member is blocked in a BSYNC on Bk of the lane's instance, or among ``arriving`` (a
        mask per lane of ``idx``: lanes executing a BSYNC on Bk now)."""
        wids = idx >> 5
        live = pack_bits(~self.exited)[wids]
        members = self.Bw[k, idx] & live
        lanes = wids[:, None] * 32 + np.arange(32)[None, :]  # [n, 32]: each lane's warp
        at = self.bwait[k, wids] if arriving is None else self.bwait[k, wids] | arriving
        blocked = (at[:, None] >> np.arange(32, dtype=U32)[None, :]) & U32(1)
        same = blocked.astype(bool) & (self.Binst[k, lanes] == self.Binst[k, idx][:, None])
        need = ((members[:, None] >> np.arange(32, dtype=U32)[None, :]) & U32(1)).astype(bool)
        done = ~(need & ~same).any(axis=1)
        return done, members

    def _release_bsync(self, k: int) -> bool:
        ws = self.bsync_wait[k]
        rel_any = False
        keep: list[Waiter] = []
        releases: list[tuple[int, NDArray]] = []
        for w in ws:
            done, mem = self.bsync_ready(k, w.sel)
            ok = done & (lane_bit(mem, w.sel) | (mem == 0))
            rel = w.sel[ok]
            if rel.size:
                releases.append((w.pc, rel))
                rel_any = True
            if not ok.all():
                w.sel = w.sel[~ok]
                keep.append(w)
        for pc, rel in releases:
            if self.hazards is not None:
                self.hazards.sync(rel, 32)
            self.bwait[k] &= ~pack_bits(mask_of(rel, self.L))
            self.push_next(pc + 16, rel, nwarps(rel, self.L))
        if keep:
            self.bsync_wait[k] = keep
        else:
            del self.bsync_wait[k]
        return rel_any

    def block_bsync(self, k: int, pc: int, idx: NDArray) -> None:
        self.bwait[k] |= pack_bits(mask_of(idx, self.L))
        for w in self.bsync_wait.get(k, []):
            if w.pc == pc:
                w.sel = np.union1d(w.sel, idx)
                return
        self.bsync_wait.setdefault(k, []).append(Waiter(pc, idx))

    def _release_bar(self, bid: int) -> bool:
        ws = self.bar_wait[bid]
        arrived = np.zeros(self.L, dtype=bool)
        for w in ws:
            arrived[w.sel] = True
        lpc = self.lanes_per_cta
        live = ~self.exited
        # a CTA completes only where some lane waits; BAR.ARV lanes count as arrived
        has = arrived.reshape(-1, lpc).any(axis=1)
        arv = self.bar_arv.get(bid)
        if arv is not None:
            arrived |= arv
        need = (live & ~arrived).reshape(-1, lpc).any(axis=1)
        done_cta = has & ~need
        counted = [w for w in ws if "count" in w.data]
        if counted:
            # BAR with a thread count: complete once that many threads arrived per CTA.
            per_cta = arrived.reshape(-1, lpc).sum(axis=1)
            for w in counted:
                done_cta |= has & (per_cta >= int(w.data["count"]))
        if not done_cta.any():
            return False
        done_lane = np.repeat(done_cta, lpc)
        if arv is not None:
            arv &= ~done_lane
        keep: list[Waiter] = []
        for w in ws:
            m = done_lane[w.sel]
            rel = w.sel[m]
            if rel.size:
                finish = w.data.get("finish")
                if finish is not None:
                    finish(rel, arrived, done_cta)
                if self.hazards is not None:
                    self.hazards.sync(rel, lpc)
                self.push_next(w.pc + 16, rel, nwarps(rel, self.L))
            if not m.all():
                w.sel = w.sel[~m]
                keep.append(w)
        if keep:
            self.bar_wait[bid] = keep
        else:
            del self.bar_wait[bid]
        return True

    def block_sync(self, pc: int, sel: Sel, releaser: Callable[[Waiter], NDArray | None]) -> None:
        """Park lanes at a convergence/warp barrier until ``releaser`` lets them go."""
        idx = np.arange(self.L, dtype=np.intp) if isinstance(sel, slice) else sel
        self.releasers[pc] = releaser
        w = self.sync_wait.get(pc)
        if w is None:
            self.sync_wait[pc] = Waiter(pc, idx)
        else:
            w.sel = np.union1d(w.sel, idx)

    def block_bar(self, bid: int, waiter: Waiter) -> None:
        self.bar_wait.setdefault(bid, []).append(waiter)

    def exit_lanes(self, sel: Sel) -> None:
        self.exited[sel] = True
        self.all_live = False

    # -- memory ----------------------------------------------------------------------------
    def index(self, sel: Sel) -> NDArray:
        return self.lane if isinstance(sel, slice) else sel

    def _split_generic(self, a: NDArray) -> tuple[NDArray, NDArray]:
        hi = a >> 32
        sh = hi == SHARED_WINDOW_HI
        lo = (a >= LOCAL_WINDOW) & (a < LOCAL_WINDOW + self.local.size)
        return sh, lo

    def load(self, space: str, a: NDArray, idx: NDArray, width: int, signed: bool) -> NDArray:
        """Per-lane loads: ``[max(1, width // 4), lanes]`` 32-bit words (sub-word values zero- or
        sign-extended)."""
        if space == "global":
            off = self.mem.offsets(a, width)
            return self.gview.load(off, width, signed)
        if space == "shared":
            off = self.shared.offsets(a, width, self.cluster_base[idx], self.cluster_size[idx])
            return self.shared.view.load(off, width, signed)
        if space == "local":
            return self.local.load(self.local.check(a, width), idx, width, signed)
        if space == "param":
            return self._load_param(a, width, signed)
        sh, lo = self._split_generic(a)
        pa = (a >= PARAM_WINDOW) & (a < PARAM_WINDOW + PARAM_WINDOW_SIZE)
        if not sh.any() and not lo.any() and not pa.any():
            return self.load("global", a, idx, width, signed)
        out = np.zeros((max(1, width // 4), a.size), dtype=U32)
        gl = ~(sh | lo | pa)
        if sh.any():
            out[:, sh] = self.load("shared", a[sh] & 0xFFFFFFFF, idx[sh], width, signed)
        if lo.any():
            out[:, lo] = self.load("local", a[lo] - LOCAL_WINDOW, idx[lo], width, signed)
        if pa.any():
            out[:, pa] = self.load("param", a[pa] - PARAM_WINDOW, idx[pa], width, signed)
        if gl.any():
            out[:, gl] = self.load("global", a[gl], idx[gl], width, signed)
        return out

    def _load_param(self, off: NDArray, width: int, signed: bool) -> NDArray:
        """Loads through the parameter window: the parameters in constant bank 0."""
        bank = self.cbank(0)
        a = off.astype(np.int64) + (self.kernel.param_base or 0x210)
        if width > 1 and np.any(a & (width - 1)):
            bad = int(off[np.flatnonzero(a & (width - 1))[0]])
            raise MemoryFault("param", PARAM_WINDOW + bad, width, "misaligned address")
        ok = (off >= 0) & (a + width <= bank.size)
        if not ok.all():
            bad = int(off[np.flatnonzero(~ok)[0]])
            raise MemoryFault("param", PARAM_WINDOW + bad, width, "out-of-bounds address")
        return LinearView(bank).load(a, width, signed)

    def store(self, space: str, a: NDArray, idx: NDArray, width: int, words: NDArray) -> None:
        if space == "global":
            off = self.mem.offsets(a, width)
            self.gview.store(off, width, words)
            return
        if space == "shared":
            off = self.shared.offsets(a, width, self.cluster_base[idx], self.cluster_size[idx])
            self.shared.view.store(off, width, words)
            return
        if space == "local":
            self.local.store(self.local.check(a, width), idx, width, words)
            return
        sh, lo = self._split_generic(a)
        pa = (a >= PARAM_WINDOW) & (a < PARAM_WINDOW + PARAM_WINDOW_SIZE)
        if pa.any():
            raise MemoryFault("param", int(a[pa][0]), width, "store to kernel parameter space")
        if not sh.any() and not lo.any():
            self.store("global", a, idx, width, words)
            return
        words = np.broadcast_to(words, (words.shape[0], a.size))
        gl = ~(sh | lo)
        if sh.any():
            self.store("shared", a[sh] & 0xFFFFFFFF, idx[sh], width, words[:, sh])
        if lo.any():
            self.store("local", a[lo] - LOCAL_WINDOW, idx[lo], width, words[:, lo])
        if gl.any():
            self.store("global", a[gl], idx[gl], width, words[:, gl])

    def run_builtin(self, name: str, pc: int, sel: Sel) -> None:
        fn = self.builtin_fns.get(name)
        if fn is None:
            ins = self.instructions.get(pc)
            raise Unsupported(f"call to the driver function '{name}'", pc, str(ins or ""))
        fn(self, pc, sel)

    def bar_arrivals(self, bid: int, idx: NDArray, count: int | None) -> None:
        """Lanes ``idx`` arrive at barrier ``bid`` without waiting (BAR.ARV): they count towards
        the next completion of the barrier in their CTA (whose waiters give the thread count)."""
        arv = self.bar_arv.get(bid)
        if arv is None:
            arv = self.bar_arv[bid] = np.zeros(self.L, dtype=bool)
        arv[idx] = True

    # -- binding ---------------------------------------------------------------------------
    def cbank(self, bank: int) -> NDArray:
        b = self.banks.get(bank)
        if b is None:
            return np.zeros(0, dtype=np.uint8)
        return b

    def _bind(self, pc: int) -> Op:
        ins = self.instructions.get(pc)
        if ins is None:
            raise KernelFault(f"jump to {pc:#x}, which holds no instruction of the kernel", pc)
        binder = self.binders.get(ins.opcode)
        if ins.opcode == "<undecoded>":
            raise Unsupported(
                f"instruction word 0x{ins.mods[0]} is not in the ISA tables", pc, "<undecoded>"
            )
        if binder is None:
            raise Unsupported(f"opcode {ins.opcode}", pc, str(ins))
        ctx = Ctx(self, ins, pc)
        try:
            b = binder(ctx)
        except EmuError:
            raise
        except (ValueError, IndexError, KeyError) as exc:
            raise Unsupported(f"cannot bind: {exc}", pc, str(ins)) from None
        op = self._wrap(pc, ins, b)
        if self.hazards is not None:
            from openptxas.emu.hazards import expand

            gf = (
                None
                if b.kind is Kind.CONTROL and b.guarded_inside
                else self.guard_filter(ins.guard)
            )
            op = self.hazards.wrap(pc, ins, op, expand(ctx.reads, ctx.writes), gf)
        if self.trace is not None:
            op = self._traced(pc, ins, op)
        self.ops[pc] = op
        return op

    def guard_filter(self, guard: Reg) -> Callable[[Sel], Sel | None] | None:
        if guard.is_zero:
            if guard.not_:
                return lambda sel: None
            return None
        row = guard.index if guard.file.value == "P" else 8 + guard.index
        p = self.P[row]
        L = self.L
        if guard.not_:
            return lambda sel: subset(sel, ~p[sel], L)
        return lambda sel: subset(sel, p[sel], L)

    def _wrap(self, pc: int, ins: Instruction, b: Bound) -> Op:
        nxt = pc + 16
        push = self.push
        fn = b.fn
        gf = self.guard_filter(ins.guard)
        L = self.L
        if b.kind is Kind.CONTROL:
            if gf is None or b.guarded_inside:
                return fn

            def ctl(sel: Sel, nw: int) -> None:
                sub = gf(sel)
                if sub is None:
                    push(nxt, sel, nw)
                    return
                if sub is not sel and not isinstance(sub, slice):
                    rest = (
                        np.setdiff1d(np.arange(L), sub, assume_unique=True)
                        if isinstance(sel, slice)
                        else np.setdiff1d(sel, sub, assume_unique=True)
                    )
                    if rest.size:
                        push(nxt, rest, nwarps(rest, L))
                    fn(sub, nwarps(sub, L))
                else:
                    fn(sub, nw)

            return ctl
        if b.kind is Kind.UNIFORM:
            if gf is None:

                def uni(sel: Sel, nw: int) -> None:
                    fn(warp_lanes(sel, L))
                    push(nxt, sel, nw)

                return uni

            def guni(sel: Sel, nw: int) -> None:
                sub = gf(sel)
                if sub is not None:
                    fn(warp_lanes(sub, L))
                push(nxt, sel, nw)

            return guni
        if gf is None:

            def simple(sel: Sel, nw: int) -> None:
                fn(sel)
                push(nxt, sel, nw)

            return simple

        def guarded(sel: Sel, nw: int) -> None:
            sub = gf(sel)
            if sub is not None:
                fn(sub)
            push(nxt, sel, nw)

        return guarded

    def _traced(self, pc: int, ins: Instruction, op: Op) -> Op:
        out = self.trace
        assert out is not None
        text = str(ins)
        L = self.L

        def tr(sel: Sel, nw: int) -> None:
            n = L if isinstance(sel, slice) else int(sel.size)
            print(f"{pc:#06x} {text:<60} lanes={n} warps={nw}", file=out)
            op(sel, nw)

        return tr

    # -- results ---------------------------------------------------------------------------
    def opcode_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for pc, n in self.counts.items():
            ins = self.instructions.get(pc)
            if ins is not None:
                out[ins.opcode] = out.get(ins.opcode, 0) + n
        return out

    def issue_cycles(self) -> int:
        """Stall cycles (at least 1) summed over every warp-instruction executed."""
        total = 0
        for pc, n in self.counts.items():
            ins = self.instructions.get(pc)
            if ins is not None:
                total += n * max(1, ins.control.stall)
        return total

    def mnemonic_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for pc, n in self.counts.items():
            ins = self.instructions.get(pc)
            if ins is not None:
                out[ins.mnemonic] = out.get(ins.mnemonic, 0) + n
        return out


def default_local_size(kernel: Kernel, stack_limit: int = 1024) -> int:
    """Per-thread local memory: the kernel's frame plus the default stack limit (CUDA's
    ``cudaLimitStackSize`` is 1 KiB), at least the minimum stack ptxas reports."""
    need = kernel.frame_size + max(kernel.min_stack, stack_limit)
    return int(math.ceil(need / 16) * 16)


def stderr() -> TextIO:
    return sys.stderr
