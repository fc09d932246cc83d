"""FMA contraction: a multiply whose every use is an add becomes a fused multiply-add in each.

ptxas contracts by default (``--fmad=true``) and not at ``-O0``. Observed on ptxas 13.0.88
(tests/compiler/test_fma_contraction.py probes each rule against it):

- only a multiply and an add that both carry no rounding modifier (``mul.f32``/``add.f32``;
  ``.rn`` written out blocks it) and agree on ``.ftz``; ``mul.sat`` blocks it, ``add.sat``
  becomes ``FFMA.SAT``; f64 ``mul``/``add`` become ``DFMA``;
- ``sub`` contracts with the product on either side (``FFMA a, b, -c`` / ``FFMA -a, b, c``);
  an add or sub of two products absorbs its first operand's;
- a product used by several adds is recomputed in each of them, but one with any other use
  (a store, a compare) is left alone, and so is every add that reads it;
- the multiply and the add lie in the same basic block; a product register written again by
  one of the adds (``add %f5, %f5, %f0``) is contracted in every add that reads that product;
- a product of a constant that meets a constant addend still contracts: FFMA holds one
  immediate or constant-bank operand, so the multiplier's constant moves to a register
  (``MOV R9, 3; FFMA R9, R0, R9, 0.5``, as ptxas does);
- a multiply of two registers is not fused into an add that follows a signed 32-bit (or
  16-bit) ``div``/``rem`` in the block, whatever the divisor (``Instr.contract_fence`` marks
  the start of its expansion); one with an immediate or constant-bank operand is. Unsigned
  division does not block; a 64-bit one is a call, which ends the block anyway;
- the same for f16/bf16 (x2): ``HMUL2`` + ``HADD2`` become ``HFMA2`` (a scalar one reads
  ``.H0_H0`` of every source).

Pre: virtual IR, lowering marked the contractable FMUL/FADD/DMUL/DADD/HMUL2/HADD2
(``Instr.contract``).
Post: same values up to the rounding PTX allows for contracted operations; dead products are
removed by the dead-code elimination that follows.
"""

from __future__ import annotations

from openptxas.ir.analysis import def_info, unchanged_since
from openptxas.ir.core import Block, CBank, Function, Imm, Instr, Operand, Part, Reg, Src, VReg
from openptxas.ir.liveness import Liveness, compute_liveness
from openptxas.passes.manager import PassContext

_PAIRS = {"FMUL": ("FADD", "FFMA"), "DMUL": ("DADD", "DFMA"), "HMUL2": ("HADD2", "HFMA2")}


def fma_contraction(fn: Function, ctx: PassContext) -> None:
    info = def_info(fn)
    users: dict[int, list[Instr]] = {}
    for ins in fn.instrs():
        for r in ins.use_regs():
            v = r.v if isinstance(r, Part) else r
            if isinstance(v, VReg):
                users.setdefault(v.id, []).append(ins)
    lv: Liveness | None = None  # computed when a product's register is written elsewhere too

    def plan(bi: int, blk: Block, k: int, m: Instr, pos: dict[int, int]) -> Plan | None:
        """The adds the product ``blk.instrs[k]`` fuses into and its source index in each."""
        nonlocal lv
        pair = _PAIRS.get(m.op)
        if pair is None or not m.contract or m.guard is not None:
            return None
        d = m.dsts[0]
        if not isinstance(d, VReg):
            return None
        if info.defs(d) == [m]:
            uses = users.get(d.id, [])
        else:
            if lv is None:
                lv = compute_liveness(fn)
            reached = _reached_uses(blk.instrs, k, d, lv.live_out[bi] >> d.id & 1 == 1)
            if reached is None:
                return None
            uses = reached
        add_op = pair[0]
        if not uses or any(u.op != add_op or not u.contract for u in uses):
            return None
        sites = [_site(blk.instrs, k, m, u, d, pos) for u in uses]
        if any(s is None for s in sites):
            return None
        return [(u, s) for u, s in zip(uses, sites, strict=True) if s is not None]

    for bi, blk in enumerate(fn.blocks):
        # positions of the block's instructions (an add is looked up per multiply: a search
        # of the block each time was quadratic in long blocks); rebuilt after an insertion
        pos = {id(x): i for i, x in enumerate(blk.instrs)}
        # an add of two products absorbs its first operand's, whichever multiply comes first
        # (ptxas: "sub %f5, %f4, %f3" is FFMA R5, R4, c4, -R5 after FMUL R5 = %f3; the other
        # choice rounds differently: nv12_to_bgr_planar an ulp away on an H200)
        plans = {id(m): p for k, m in enumerate(blk.instrs) if (p := plan(bi, blk, k, m, pos))}
        at_first = {id(u): id(m) for m in blk.instrs for u, s in plans.get(id(m), ()) if s == 0}
        second = {
            id(m)
            for m in blk.instrs
            if any(s == 1 and id(u) in at_first for u, s in plans.get(id(m), ()))
        }
        for k, m in enumerate(blk.instrs):
            if id(m) not in plans or id(m) in second:
                continue
            p = plan(bi, blk, k, m, pos)  # again: an insertion may have moved the adds
            if p is None:
                continue
            d = m.dsts[0]
            assert isinstance(d, VReg)
            fma_op = _PAIRS[m.op][1]
            if any(_vid(_reg(x)) == d.id for x in m.srcs):
                # ``mul %f0, %f0, %f0``: the fused adds read the multiply's sources, which the
                # multiply itself overwrites; every reader of the product is fused below, so
                # the product goes to a register of its own (dead, removed by DCE)
                m.dsts[0] = fn.new_vreg(d.rc, d.width)
            for u, s in p:
                _fuse(m, u, s, fma_op)
                if _const(u.srcs[1]) and _const(u.srcs[2]):
                    r = fn.new_vreg(d.rc, d.width)
                    blk.instrs.insert(pos[id(u)], Instr("MOV", (), [r], [u.srcs[1]], line=u.line))
                    pos = {id(x): i for i, x in enumerate(blk.instrs)}
                    u.srcs[1] = r
                    a = u.srcs[0]
                    if isinstance(a, Src) and a.neg:  # ptxas negates the moved multiplier
                        plain = not (a.abs or a.inv or a.sel)
                        u.srcs[0] = a.x if plain else _negate(a)
                        u.srcs[1] = Src(r, neg=True)


Plan = list[tuple[Instr, int]]


def _reached_uses(block: list[Instr], k: int, d: VReg, live_out: bool) -> list[Instr] | None:
    """The readers of the value that ``block[k]`` writes to ``d`` (a register written
    elsewhere too), when an unguarded instruction later in the block writes all of ``d``
    again (the readers up to it, itself included when it reads ``d``), or when ``d`` is not
    live out of the block (every reader is in it: difffuzz seed 67417, a product whose
    register every path writes again after the block). None when the value may live on past
    the block."""
    uses: list[Instr] = []
    for ins in block[k + 1 :]:
        if any(_vid(r) == d.id for r in ins.use_regs()):
            uses.append(ins)
        if any(_vid(r) == d.id for r in ins.def_regs()):
            whole = any(isinstance(x, VReg) and x.id == d.id for x in ins.dsts)
            return uses if whole and ins.guard is None else None
    return None if live_out else uses


def _vid(r: object) -> int | None:
    v = r.v if isinstance(r, Part) else r
    return v.id if isinstance(v, VReg) else None


def _site(
    block: list[Instr], k: int, m: Instr, u: Instr, d: VReg, pos: dict[int, int]
) -> int | None:
    """The source index of ``d`` in the add ``u`` when ``u`` can absorb the product ``m``
    (``pos``: the block's instructions' positions, by identity)."""
    if m.has_mod("FTZ") != u.has_mod("FTZ") or m.has_mod("BF16_V2") != u.has_mod("BF16_V2"):
        return None
    j = pos.get(id(u))
    if j is None:
        return None  # another block
    if j <= k:
        return None
    idx = [i for i, s in enumerate(u.srcs) if _reg(s) == d]
    if len(idx) != 1:
        return None
    s = u.srcs[idx[0]]
    if isinstance(s, Src) and (s.abs or s.inv):
        return None
    if (s.sel if isinstance(s, Src) else "") != _half_sel(m):
        return None
    # two constants: FFMA moves the multiplier's to a register (fma_contraction); the other
    # fused forms are left alone
    if m.op != "FMUL" and _const(m.srcs[1]) and _const(u.srcs[1 - idx[0]]):
        return None
    if any(ins.contract_fence for ins in block[k + 1 : j]) and not any(
        _const_like(block, k, x) for x in m.srcs
    ):
        return None
    vids = {v.id for s2 in m.srcs if isinstance(v := _reg(s2), VReg)}
    if not unchanged_since(block, [m], j, vids):
        return None
    return idx[0]


def _fuse(m: Instr, u: Instr, at: int, fma_op: str) -> None:
    s = u.srcs[at]
    negate = isinstance(s, Src) and s.neg
    a, b = m.srcs[0], m.srcs[1]
    if negate:
        a = _negate(a)
    mods = tuple(x for x in ("BF16_V2", "FTZ", "SAT") if u.has_mod(x))
    u.op = fma_op
    u.mods = mods
    u.srcs = [a, b, u.srcs[1 - at]]
    u.contract = False


def _half_sel(m: Instr) -> str:
    """The selector an add's read of the product ``m`` must carry to absorb it: none, or
    ``H0_H0`` for a scalar f16/bf16 product (both of whose sources read ``H0_H0``)."""
    if m.op == "HMUL2" and all(
        (isinstance(x, Src) and x.sel == "H0_H0")
        or (isinstance(x, Imm) and x.value >> 16 & 0xFFFF == x.value & 0xFFFF)
        for x in m.srcs
    ):  # (a constant folded into an f16x2 immediate: the same half twice)
        return "H0_H0"
    return ""


def _reg(op: Operand) -> object:
    x = op.x if isinstance(op, Src) else op
    return x


def _const(op: Operand) -> bool:
    return isinstance(_reg(op), Imm | CBank)


def _const_like(block: list[Instr], k: int, op: Operand) -> bool:
    """``op``, read by ``block[k]``, is a constant: an immediate, a constant-bank operand or a
    register last written in the block by a load of one (``ld.param`` is an LDC)."""
    if _const(op):
        return True
    r = _reg(op)
    for ins in reversed(block[:k]):
        if r in ins.dsts:
            return ins.op in ("LDC", "MOV") and ins.guard is None and _const(ins.srcs[0])
    return False


def _negate(op: Operand) -> Operand:
    if isinstance(op, Src):
        return Src(op.x, not op.neg, op.abs, op.inv, op.sel)
    assert isinstance(op, VReg | Part | Reg), "a product's A operand is a register"
    return Src(op, neg=True)
