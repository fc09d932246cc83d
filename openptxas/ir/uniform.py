"""Warp-uniformity (divergence) analysis.

A value is *uniform* when every active thread of a warp holds the same one. Sources of
non-uniformity are per-thread special registers (``SR_TID.*``, ``SR_LANEID``, lane masks),
memory loads and atomics, shuffles, and values merged at the end of a divergent region. A
conditional branch on a non-uniform predicate is *divergent*; the blocks it reaches before its
reconvergence point (immediate post-dominator) form its divergent region, and a register written
in such a region by more than one definition is non-uniform.

The analysis starts optimistic and only ever adds non-uniform registers, so it terminates.
"""

from __future__ import annotations

from dataclasses import dataclass

from openptxas.ir.cfg import CFG, EXIT_NODE, post_dominators
from openptxas.ir.core import RC, Function, Instr, Part, Reg, SReg, VReg

UNIFORM_SREGS = frozenset(
    {
        "SR_CTAID.X",
        "SR_CTAID.Y",
        "SR_CTAID.Z",
        "SR_CgaCtaId",
        "SR_VIRTUALSMID",
        "SR_SMID",
        "SR_GRIDID",
    }
)
# Ops whose results may differ between threads even with uniform inputs.
VARYING_OPS = frozenset(
    {
        "LDG",
        "LDS",
        "LD",
        "LDL",
        "ATOMG",
        "ATOMS",
        "ATOM",
        "SHFL",
        "VOTE",
        "MATCH",
        "POPC_LANE",
        "CS2R",
        "LDSM",
        "REDUX",
        "ELECT",
        "TEX",
        "TLD",
        "SULD",
    }
)


# Loads that read one address for every thread: ptxas's divergence analysis, deciding where
# convergence barriers go, takes their value as uniform (no BSSY around a division's slow-path
# call on values loaded through a parameter pointer; one when the address depends on the
# thread). Only that heuristic reads them so: a local load still differs between threads, and
# a pass that would rely on the value being equal (moving it to a uniform register) must not.
ADDRESS_LOADS = frozenset({"LDG", "LDS", "LD", "LDL"})


@dataclass
class Uniformity:
    varying: set[int]  # non-uniform virtual registers (ids)
    divergent: set[int]  # blocks ending in a divergent branch
    ipdom: list[int]

    def is_uniform(self, x: VReg | Part | Reg) -> bool:
        if isinstance(x, Reg):
            return x.rc in (RC.UR, RC.UP) or x.index in (255, 7)  # zero registers
        v = x.v if isinstance(x, Part) else x
        return v.rc in (RC.UR, RC.UP) or v.id not in self.varying


def _instr_varying(ins: Instr, varying: set[int], loads: bool) -> bool:
    if ins.op in VARYING_OPS and not (loads and ins.op in ADDRESS_LOADS):
        return True
    if ins.op == "S2R":
        s = ins.srcs[0]
        return not (isinstance(s, SReg) and s.name in UNIFORM_SREGS)
    for r in ins.use_regs():
        vid = _vid(r)
        if vid is not None and vid in varying:
            return True
    return False


def _width(r: object) -> int:
    return r.width if isinstance(r, VReg) else 1


def _vid(r: object) -> int | None:
    if isinstance(r, VReg):
        return r.id
    if isinstance(r, Part):
        return r.v.id
    return None


def analyze(fn: Function, *, loads_by_address: bool = False) -> Uniformity:
    """``loads_by_address``: a load is varying only when its address (or guard) is, as
    ptxas's convergence heuristics read it (ADDRESS_LOADS)."""
    cfg = CFG.of(fn, over_calls=True)
    ipdom = post_dominators(cfg)
    varying: set[int] = set()
    divergent: set[int] = set()
    # where each register unit (a virtual register's k-th 32-bit part) is written: the halves
    # of a 64-bit value written by two instructions (IADD3 + IADD3.X) are one definition each
    multi: dict[int, list[int]] = {}
    units: dict[tuple[int, int], list[int]] = {}
    for bi, b in enumerate(fn.blocks):
        for ins in b.instrs:
            for r in ins.def_regs():
                vid = _vid(r)
                if vid is None:
                    continue
                ks = range(r.k, r.k + r.n) if isinstance(r, Part) else range(_width(r))
                for k in ks:
                    units.setdefault((vid, k), []).append(bi)
    for (vid, _k), blocks in units.items():
        if len(blocks) > len(multi.get(vid, [])):
            multi[vid] = blocks
    while True:
        changed = False
        for b in fn.blocks:
            for ins in b.instrs:
                if _instr_varying(ins, varying, loads_by_address):
                    for r in ins.def_regs():
                        vid = _vid(r)
                        if vid is not None and vid not in varying:
                            varying.add(vid)
                            changed = True
        for bi, b in enumerate(fn.blocks):
            t = b.terminator()
            if t is None or bi in divergent:
                continue
            g = None
            if t.op == "BRA" and t.guard is not None and "U" not in t.mods:
                g = _vid(t.guard.pred)  # (BRA.U[.ANY]: the warp branches together)
            elif t.op == "BRX":  # an indirect branch diverges on a varying index
                g = _vid(t.srcs[0])
            if g is not None and g in varying:
                divergent.add(bi)
                changed = True
        regions = _region_blocks(cfg, ipdom, divergent)
        for vid, blocks in multi.items():
            if vid in varying or len(blocks) < 2:
                continue
            if any(bb in regions for bb in blocks):
                varying.add(vid)
                changed = True
        if not changed:
            return Uniformity(varying, divergent, ipdom)


def _region_blocks(cfg: CFG, ipdom: list[int], divergent: set[int]) -> set[int]:
    """Blocks reachable from a divergent branch before its reconvergence point."""
    out: set[int] = set()
    for b in divergent:
        stop = ipdom[b]
        stack = list(cfg.succs[b])
        seen: set[int] = set()
        while stack:
            x = stack.pop()
            if x in seen or x == stop:
                continue
            seen.add(x)
            out.add(x)
            stack.extend(cfg.succs[x])
    _ = EXIT_NODE
    return out
