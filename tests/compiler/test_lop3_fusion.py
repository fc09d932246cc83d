"""LOP3 fusion (passes/peephole.py ``_lop3_fuse``): chains of logic operations are merged into
one LOP3 with a composed truth table. The values must not change: random chains of two and
three LOP3s over registers, RZ, 0, ~0 and immediates are evaluated before and after the pass on
random inputs."""

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

M32 = 0xFFFFFFFF
INPUTS = ("%r0", "%r1", "%r2", "%r3", "RZ", "0xffffffff", "0xedb88320", "0xff")


def _lop(lut: int, a: int, b: int, c: int) -> int:
    out = 0
    for bit in range(32):
        i = (a >> bit & 1) << 2 | (b >> bit & 1) << 1 | (c >> bit & 1)
        out |= (lut >> i & 1) << bit
    return out


def _run(fn: Function, regs: dict[int, int]) -> list[int]:
    """Evaluate the function's LOP3s in order; the stored values, in store order."""
    env = dict(regs)

    def val(x: object) -> int:
        if x == RZ:
            return 0
        if isinstance(x, Imm):
            return x.value & M32
        assert isinstance(x, VReg), x
        return env[x.id]

    out = []
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.op == "LOP3":
                lut = ins.srcs[3]
                assert isinstance(lut, Imm)
                d = ins.dsts[0]
                assert isinstance(d, VReg)
                env[d.id] = _lop(lut.value, *(val(x) for x in ins.srcs[:3]))
            elif ins.op == "STG":
                out.append(val(ins.srcs[-1]))
    return out


def _program(chain: list[tuple[int, list[str]]], reuse: bool) -> str:
    """LOP3s %r10, %r11, ...: each reads three inputs, the previous result among them at the
    position its spec names; every result, or only the last, is stored."""
    lines = [f"    %r{k} = S2R SR_TID.X" for k in range(4)]
    prev = None
    for n, (pos, ins) in enumerate(chain):
        srcs = list(ins)
        if prev is not None:
            srcs[pos] = prev
        lines.append(f"    %r{10 + n} = LOP3.LUT {', '.join(srcs)}, 0x0, !PT")
        prev = f"%r{10 + n}"
    stores = [f"%r{10 + n}" for n in range(len(chain))] if reuse else [prev]
    lines += [f"    STG.E desc[%ur20x2][%r21x2.64+{4 * k:#x}], {r}" for k, r in enumerate(stores)]
    return ".target sm_90\n.entry k\n.L_entry:\n" + "\n".join(lines) + "\n    EXIT\n"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 255),
            st.integers(0, 2),
            st.lists(st.sampled_from(INPUTS), min_size=3, max_size=3),
        ),
        min_size=2,
        max_size=3,
    ),
    st.booleans(),
    st.integers(0, 2**32),
)
def test_fused_chain_keeps_its_values(
    chain: list[tuple[int, int, list[str]]], reuse: bool, seed: int
) -> None:
    text = _program([(pos, ins) for _, pos, ins in chain], reuse)
    # the truth tables go in after the text is built (the reader takes them as written)
    luts = [lut for lut, _, _ in chain]
    fn = read_ir(text).functions[0]
    k = 0
    for ins in fn.blocks[0].instrs:
        if ins.op == "LOP3":
            ins.srcs[3] = Imm(luts[k])
            k += 1
    rnd = random.Random(seed)
    regs = {r: rnd.getrandbits(32) for r in range(4)}
    want = _run(fn, regs)
    before = sum(len(b.instrs) for b in fn.blocks)
    target = get_target("sm_90")
    run_pass("peephole", fn, PassContext(target, Options(arch="sm_90", verify=True)))
    assert _run(fn, regs) == want
    if reuse:  # every intermediate result is read by a store: nothing merges
        assert sum(len(b.instrs) for b in fn.blocks) == before


def test_crc_step_is_one_lop3() -> None:
    """(v & 0xedb88320) ^ w, as nvcc writes a CRC step: one LOP3."""
    fn = read_ir(
        ".target sm_90\n.entry k\n.L_entry:\n"
        "    %r0 = S2R SR_TID.X\n    %r1 = S2R SR_LANEID\n"
        "    %r2 = LOP3.LUT %r0, 0xedb88320, RZ, 0xc0, !PT\n"
        "    %r3 = LOP3.LUT %r2, %r1, RZ, 0x3c, !PT\n"
        "    STG.E desc[%ur20x2][%r21x2.64], %r3\n    EXIT\n"
    ).functions[0]
    run_pass("peephole", fn, PassContext(get_target("sm_90"), Options(arch="sm_90")))
    lops = [i for i in fn.blocks[0].instrs if i.op == "LOP3"]
    assert len(lops) == 1
    a, b, c, lut = lops[0].srcs[:4]
    assert (str(a), str(c)) == ("%r0", "%r1")
    assert isinstance(b, Imm) and b.value & M32 == 0xEDB88320
    assert lut == Imm(0x6A)
