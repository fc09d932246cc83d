"""PRMT fusion (passes/peephole.py ``_prmt_fuse``): a byte permutation read once by another
merges into it when the bytes come from two registers at most. The values must not change:
random pairs of PRMTs (any selector, sign replication included, RZ among the sources) are
evaluated before and after the pass on random inputs."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from openptxas.ir.core import RZ, Function, Imm, VReg
from openptxas.ir.reader import read_ir
from openptxas.options import Options
from openptxas.passes.manager import PassContext
from openptxas.targets import get_target
from openptxas.tools.runpass import run_pass

INPUTS = ("%r0", "%r1", "%r2", "RZ")


def _prmt(a: int, sel: int, b: int) -> int:
    data = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    out = 0
    for i in range(4):
        n = sel >> (4 * i) & 0xF
        byte = data[n & 7]
        if n & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def _run(fn: Function, regs: dict[int, int]) -> list[int]:
    env = dict(regs)

    def val(x: object) -> int:
        if x == RZ:
            return 0
        assert isinstance(x, VReg), x
        return env[x.id]

    out = []
    for ins in fn.blocks[0].instrs:
        if ins.op == "PRMT":
            sel = ins.srcs[1]
            assert isinstance(sel, Imm)
            d = ins.dsts[0]
            assert isinstance(d, VReg)
            env[d.id] = _prmt(val(ins.srcs[0]), sel.value, val(ins.srcs[2]))
        elif ins.op == "STG":
            out.append(val(ins.srcs[-1]))
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFFFF),
    st.sampled_from(INPUTS),
    st.sampled_from(INPUTS),
    st.sampled_from(INPUTS),
    st.booleans(),
    st.integers(0, 2**32),
)
def test_fused_pair_keeps_its_values(
    s1: int, s2: int, a: str, b: str, c: str, inner_first: bool, seed: int
) -> None:
    outer = f"%r10, {hex(s2)}, {c}" if inner_first else f"{c}, {hex(s2)}, %r10"
    text = (
        ".target sm_90\n.entry k\n.L_entry:\n"
        + "".join(f"    %r{k} = S2R SR_TID.X\n" for k in range(3))
        + f"    %r10 = PRMT {a}, {hex(s1)}, {b}\n"
        + f"    %r11 = PRMT {outer}\n"
        + "    STG.E desc[%ur20x2][%r21x2.64], %r11\n    EXIT\n"
    )
    fn = read_ir(text).functions[0]
    rnd = random.Random(seed)
    regs = {r: rnd.getrandbits(32) for r in range(3)}
    want = _run(fn, regs)
    run_pass("peephole", fn, PassContext(get_target("sm_90"), Options(arch="sm_90", verify=True)))
    assert _run(fn, regs) == want


def test_halves_swapped_is_one_prmt() -> None:
    """(x >> 16) packed with (x & 0xffff) above it: one PRMT of x."""
    fn = read_ir(
        ".target sm_90\n.entry k\n.L_entry:\n    %r0 = S2R SR_TID.X\n"
        "    %r1 = PRMT %r0, 0x4410, RZ\n    %r2 = PRMT %r0, 0x4432, RZ\n"
        "    %r3 = PRMT %r2, 0x5410, %r1\n"
        "    STG.E desc[%ur20x2][%r21x2.64], %r3\n    EXIT\n"
    ).functions[0]
    run_pass("peephole", fn, PassContext(get_target("sm_90"), Options(arch="sm_90")))
    prmts = [i for i in fn.blocks[0].instrs if i.op == "PRMT"]
    assert len(prmts) == 1 and prmts[0].srcs[1] == Imm(0x1032)
