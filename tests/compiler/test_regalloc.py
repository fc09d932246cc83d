"""Register allocation: the fat-point allocator and its independent checker."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openptxas.diag import InternalError, RegAllocError
from openptxas.ir.core import RC, RZ, Block, Function, Guard, Imm, Instr, Label, Reg, VReg
from openptxas.ir.verify import verify
from openptxas.regalloc.check import check_allocation
from openptxas.regalloc.fatpoint import Allocation, allocate, limits_for, rewrite
from openptxas.targets import get_target

SM90 = get_target("sm_90")
LIM = limits_for(255, SM90)


def _loop_fn() -> tuple[Function, dict[str, VReg]]:
    fn = Function("k", [])
    i, n, acc, t, p = (
        fn.new_vreg(RC.R),
        fn.new_vreg(RC.R),
        fn.new_vreg(RC.R),
        fn.new_vreg(RC.R),
        fn.new_vreg(RC.P),
    )
    fn.blocks = [
        Block(
            "entry",
            [
                Instr("MOV", (), [i], [Imm(0)]),
                Instr("MOV", (), [n], [Imm(10)]),
                Instr("MOV", (), [acc], [Imm(0)]),
            ],
        ),
        Block(
            "loop",
            [
                Instr("IADD3", (), [t], [acc, i, RZ]),
                Instr("MOV", (), [acc], [t]),
                Instr("IADD3", (), [i], [i, Imm(1), RZ]),
                Instr("ISETP", ("LT", "AND"), [p, Reg(RC.P, 7)], [i, n, Reg(RC.P, 7)]),
                Instr("BRA", (), [], [Label("loop")], guard=Guard(p)),
            ],
        ),
        Block("exit", [Instr("STG", ("E",), [], [acc]), Instr("EXIT")]),
    ]
    return fn, {"i": i, "n": n, "acc": acc, "t": t, "p": p}


def test_loop_allocation_is_compact_and_checked():
    fn, v = _loop_fn()
    verify(fn)
    a = allocate(fn, LIM)
    check_allocation(fn, a)
    # i, n, acc live together in the loop; t coalesces with acc through the copy.
    assert a.regs[v["t"]] == a.regs[v["acc"]]
    assert len({a.regs[v[k]].index for k in ("i", "n", "acc")}) == 3
    assert 1 not in {a.regs[v[k]].index for k in ("i", "n", "acc", "t")}  # R1 = stack pointer
    assert a.registers(SM90.abi) == 3 + 1 + 2  # R0, R2, R3 -> highest 3, +1, +2
    rewrite(fn, a)
    verify(fn, allocated=True)
    assert not any(i.op == "MOV" and i.dsts == i.srcs for i in fn.instrs())


def test_checker_rejects_a_clobber():
    fn, v = _loop_fn()
    a = allocate(fn, LIM)
    bad = Allocation(dict(a.regs), dict(a.max_index))
    bad.regs[v["n"]] = bad.regs[v["i"]]  # n and i interfere
    with pytest.raises(InternalError, match="RA checker"):
        check_allocation(fn, bad)


def test_pairs_are_aligned_and_exhaustion_is_a_clear_error():
    fn = Function("k", [])
    regs = [fn.new_vreg(RC.R, 2) for _ in range(3)]
    fn.blocks = [
        Block(
            "b",
            [
                *(Instr("MOV", (), [r], [Imm(1)]) for r in regs),
                Instr("STG", (), [], list(regs)),
                Instr("EXIT"),
            ],
        )
    ]
    a = allocate(fn, LIM)
    check_allocation(fn, a)
    assert all(a.regs[r].index % 2 == 0 for r in regs)
    with pytest.raises(RegAllocError, match="spilling is not supported yet"):
        allocate(fn, limits_for(7, SM90))  # R0..R4 usable, R1 reserved: no room for 3 pairs


@st.composite
def programs(draw):
    """Random structured programs: straight-line code, if/else diamonds, loops, guarded defs."""
    fn = Function("k", [])
    pool = [fn.new_vreg(RC.R, draw(st.sampled_from([1, 1, 1, 2]))) for _ in range(8)]
    preds = [fn.new_vreg(RC.P) for _ in range(2)]
    blocks = [Block("b0", [Instr("MOV", (), [r], [Imm(k)]) for k, r in enumerate(pool[:3])])]
    defined = pool[:3]
    nblocks = draw(st.integers(1, 6))
    for bi in range(1, nblocks + 1):
        body = []
        for _ in range(draw(st.integers(1, 6))):
            d = draw(st.sampled_from(pool))
            a, b = draw(st.sampled_from(defined)), draw(st.sampled_from(defined))
            g = Guard(draw(st.sampled_from(preds))) if draw(st.booleans()) and bi > 1 else None
            body.append(Instr("IADD3", (), [d], [a, b, RZ], guard=g))
            if d not in defined and g is None:
                defined = [*defined, d]
        body.append(
            Instr(
                "ISETP",
                ("NE", "AND"),
                [preds[bi % 2], Reg(RC.P, 7)],
                [draw(st.sampled_from(defined)), RZ, Reg(RC.P, 7)],
            )
        )
        tgt = draw(st.integers(0, nblocks))
        body.append(Instr("BRA", (), [], [Label(f"b{max(tgt, 1)}")], guard=Guard(preds[bi % 2])))
        blocks.append(Block(f"b{bi}", body))
    blocks.append(Block("end", [Instr("STG", (), [], list(defined)), Instr("EXIT")]))
    fn.blocks = blocks
    return fn


@settings(max_examples=150, deadline=None)
@given(programs())
def test_random_programs_allocate_and_check(fn):
    verify(fn)
    a = allocate(fn, LIM)
    check_allocation(fn, a)
    for r in a.regs.values():
        assert r.width == 1 or r.index % r.width == 0
