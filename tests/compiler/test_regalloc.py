"""Register allocation: the fat-point allocator and its independent checker."""

import itertools

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


def test_word_copies_between_groups_coalesce():
    """``%q.0 = MOV %p.0; %q.1 = MOV %p.1`` (and a pair into a quad's first words): the copies
    share registers and disappear; a pair still live after the copy keeps its own."""
    fn = Function("k", [])
    p, q, live = fn.new_vreg(RC.R, 2), fn.new_vreg(RC.R, 2), fn.new_vreg(RC.R, 2)
    quad = fn.new_vreg(RC.R, 4)
    fn.blocks = [
        Block(
            "b",
            [
                Instr("MOV", (), [p], [Imm(1)]),
                Instr("MOV", (), [live], [Imm(2)]),
                Instr("MOV", (), [q.part(0)], [p.part(0)]),
                Instr("MOV", (), [q.part(1)], [p.part(1)]),
                Instr("MOV", (), [quad.part(0)], [live.part(0)]),
                Instr("MOV", (), [quad.part(1)], [live.part(1)]),
                Instr("MOV", (), [quad.part(2)], [Imm(0)]),
                Instr("MOV", (), [quad.part(3)], [Imm(0)]),
                Instr("STG", (), [], [q, quad, live]),
                Instr("EXIT"),
            ],
        )
    ]
    a = allocate(fn, LIM)
    check_allocation(fn, a)
    assert a.regs[q].index == a.regs[p].index
    assert a.regs[quad].index != a.regs[live].index  # live is read after the copies
    rewrite(fn, a)
    assert sum(i.op == "MOV" for i in fn.blocks[0].instrs) == 6


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
            pairs = [r for r in defined if r.width == 2]
            if pairs and d.width == 2 and d not in pairs and draw(st.integers(0, 2)) == 0:
                # word copies between groups (fatpoint._group_copies: they may coalesce)
                src = draw(st.sampled_from(pairs))
                for k in draw(st.sampled_from([(0, 1), (1, 0), (0,), (1,)])):
                    j = draw(st.sampled_from([k, k, 1 - k]))
                    body.append(Instr("MOV", (), [d.part(k)], [src.part(j)]))
                continue
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


@st.composite
def guarded_programs(draw):
    """Random programs of predicated code: writes and reads under ``@P``/``@!P``, predicates
    rewritten inside blocks (the guards ir/liveness.py follows within a block)."""
    fn = Function("k", [])
    pool = [fn.new_vreg(RC.R) for _ in range(8)]
    preds = [fn.new_vreg(RC.P) for _ in range(2)]
    pt = Reg(RC.P, 7)
    blocks = [
        Block(
            "b0",
            [
                *(Instr("MOV", (), [r], [Imm(k + 1)]) for k, r in enumerate(pool[:3])),
                Instr("ISETP", ("NE", "AND"), [preds[0], pt], [pool[0], RZ, pt]),
                Instr("ISETP", ("NE", "AND"), [preds[1], pt], [pool[1], RZ, pt]),
            ],
        )
    ]
    nblocks = draw(st.integers(1, 4))
    for bi in range(1, nblocks + 1):
        body = []
        temps: list[VReg] = []  # short-lived values, written and read in this block
        for _ in range(draw(st.integers(1, 12))):
            kind = draw(st.sampled_from(["add", "add", "gadd", "gadd", "setp", "temp"]))
            srcs = pool + temps
            if kind == "setp":
                p = draw(st.sampled_from(preds))
                body.append(
                    Instr("ISETP", ("NE", "AND"), [p, pt], [draw(st.sampled_from(srcs)), RZ, pt])
                )
                continue
            a, b = (draw(st.sampled_from(srcs)) for _ in range(2))
            if kind == "temp":
                temps.append(fn.new_vreg(RC.R))
                body.append(Instr("IADD3", (), [temps[-1]], [a, b, RZ]))
                continue
            d = draw(st.sampled_from(pool))
            g = Guard(draw(st.sampled_from(preds)), draw(st.booleans())) if kind == "gadd" else None
            body.append(Instr("IADD3", (), [d], [a, b, RZ], guard=g))
        if draw(st.booleans()):
            body.append(Instr("STG", (), [], [draw(st.sampled_from(pool))]))
        tgt = draw(st.integers(1, nblocks))
        body.append(Instr("BRA", (), [], [Label(f"b{tgt}")], guard=Guard(preds[bi % 2])))
        blocks.append(Block(f"b{bi}", body))
    blocks.append(Block("end", [Instr("STG", (), [], list(pool)), Instr("EXIT")]))
    fn.blocks = blocks
    return fn, draw(st.integers(0, 2**32 - 1))


def _run(fn: Function, garbage: int | None, limit: int = 300) -> tuple[list[int | None], int]:
    """Interpret a program of guarded_programs (virtual registers: unwritten ones are None;
    physical registers: start as garbage), up to ``limit`` steps or a branch on an unwritten
    predicate; the stored values and the steps run."""
    import random

    rnd = random.Random(garbage)
    regs: dict[object, int | None] = {}

    def key(x):
        return x if isinstance(x, VReg) else (x.rc, x.index)

    def get(x):
        if isinstance(x, Imm):
            return x.value
        if isinstance(x, Reg) and (x.rc, x.index) in ((RC.R, 255), (RC.P, 7)):
            return 0 if x.rc == RC.R else 1  # RZ, PT
        k = key(x)
        if k not in regs:
            regs[k] = None if garbage is None else rnd.getrandbits(32) % 3
        return regs[k]

    index = {b.name: i for i, b in enumerate(fn.blocks)}
    out: list[int | None] = []
    bi, k, steps = 0, 0, 0
    while steps < limit:
        steps += 1
        b = fn.blocks[bi]
        if k == len(b.instrs):
            bi, k = bi + 1, 0
            continue
        ins = b.instrs[k]
        k += 1
        on: int | None = 1
        if ins.guard is not None:
            on = get(ins.guard.pred)
            on = None if on is None else (on != 0) != ins.guard.inv
        if ins.op == "BRA":
            if on is None:
                steps -= 1
                break
            if on:
                bi, k = index[ins.srcs[0].block], 0
            continue
        if ins.op == "EXIT":
            break
        if ins.op == "STG":
            out.extend(get(s) for s in ins.srcs)
            continue
        if on is not None and not on:
            continue
        if ins.op == "MOV":
            val = get(ins.srcs[0])
        elif ins.op == "IADD3":
            x, y = get(ins.srcs[0]), get(ins.srcs[1])
            val = None if x is None or y is None else (x + y) & 0xFFFFFFFF
        else:  # ISETP.NE
            x = get(ins.srcs[0])
            val = None if x is None else int(x != 0)
        regs[key(ins.dsts[0])] = None if on is None else val
    return out, steps


@settings(max_examples=200, deadline=None)
@given(guarded_programs())
def test_guarded_programs_compute_the_same(prog):
    """The allocated program stores what the virtual one stores (where that is defined), and
    the checker accepts the allocation: writes under a guard end a read's liveness only where
    the guard makes that exact."""
    import copy

    fn, seed = prog
    verify(fn)
    virtual, steps = _run(fn, None)
    a = allocate(fn, LIM)
    check_allocation(fn, a)
    phys = copy.deepcopy(fn)
    rewrite(phys, a)
    got, _ = _run(phys, seed, steps)
    assert len(got) == len(virtual)
    for want, have in zip(virtual, got, strict=True):
        if want is not None:
            assert have == want


def _chain_fn() -> tuple[Function, list[VReg]]:
    """Four short-lived values, each read once by a store right after its definition."""
    fn = Function("k", [])
    vals = [fn.new_vreg(RC.R) for _ in range(4)]
    body: list[Instr] = []
    for k, v in enumerate(vals):
        body.append(Instr("MOV", (), [v], [Imm(k + 1)]))
        body.append(Instr("STG", ("E",), [], [v]))
    fn.blocks = [Block("entry", [*body, Instr("EXIT")])]
    return fn, vals


def test_spread_does_not_write_a_register_just_read():
    """Without ``spread`` the allocator takes the lowest free register (one for all four values);
    with it, a value does not take the register a store (a late reader) has just read, within
    the registers the count grants anyway."""
    fn, vals = _chain_fn()
    compact = allocate(fn, LIM)
    assert len({compact.regs[v].index for v in vals}) == 1

    def late(ins: Instr) -> bool:
        return ins.op == "STG"

    # without readers that read late, spreading keeps the lowest register
    assert len({allocate(fn, LIM, spread={RC.R: 13}).regs[v].index for v in vals}) == 1
    spread = allocate(fn, LIM, spread={RC.R: 13}, late=late)
    check_allocation(fn, spread)
    picked = [spread.regs[v].index for v in vals]
    assert all(a != b for a, b in itertools.pairwise(picked)), picked
    assert max(picked) <= 13 and 1 not in picked
    # a cap of one register leaves no choice: the lowest free one, as without spreading
    tight = allocate(fn, LIM, spread={RC.R: 0}, late=late)
    assert [tight.regs[v].index for v in vals] == [0, 0, 0, 0]


def test_spread_keeps_the_register_count_unit():
    """The AllocateRegisters phase spreads only within the compact allocation's count rounded
    up to ``SPREAD_UNIT`` (inside the unit the hardware grants: the same occupancy), and only
    from -O1 on."""
    from openptxas.options import Options
    from openptxas.passes.manager import PassContext
    from openptxas.regalloc.phase import SPREAD_UNIT, allocate_registers

    def regs_used(opt: int) -> tuple[int, list[int]]:
        fn, _vals = _chain_fn()
        # two values live across the chain: the compact count is 6 (R0, R1, R2, R3 + 2)
        keep = [fn.new_vreg(RC.R) for _ in range(2)]
        body = fn.blocks[0].instrs
        fn.blocks[0].instrs = [
            *(Instr("MOV", (), [k], [Imm(9)]) for k in keep),
            *body[:-1],
            *(Instr("STG", ("E",), [], [k]) for k in keep),
            body[-1],
        ]
        allocate_registers(fn, PassContext(SM90, Options(arch="sm_90", opt_level=opt)))
        chain = [i.srcs[0].index for i in fn.instrs() if i.op == "STG"][:4]
        return fn.registers, chain

    n0, chain0 = regs_used(0)
    n3, chain3 = regs_used(3)
    assert n0 == 6 and len(set(chain0)) == 1
    assert all(a != b for a, b in itertools.pairwise(chain3)), chain3
    unit = SM90.reg_alloc_unit
    assert n3 <= -(-n0 // SPREAD_UNIT) * SPREAD_UNIT <= -(-n0 // unit) * unit


GROUP_WORDS = """.target sm_90
.entry k
.L_entry:
    %r0x2 = LDC.64 c[0x0][0x210]
    %r1 = LDG.E desc[%ur9x2][%r0x2.64+0xc]
    %r2 = LDG.E desc[%ur9x2][%r0x2.64+0x8]
    %r3 = LDG.E desc[%ur9x2][%r0x2.64+0x4]
    %r4 = LDG.E desc[%ur9x2][%r0x2.64]
    %r8 = IADD3 %r4, 0x1, RZ
    %r5x4.3 = MOV %r1
    %r5x4.2 = MOV %r2
    %r5x4.1 = MOV %r3
    %r5x4.0 = MOV %r4
    %r6x4.0 = MOV %r0x2.0
    %r6x4.1 = MOV %r0x2.1
    %r6x4.2 = MOV %r0x2.0
    %r6x4.3 = MOV %r6x4.0
    STG.E.128 desc[%ur9x2][%r0x2.64], %r5x4
    STG.E.128 desc[%ur9x2][%r0x2.64+0x10], %r6x4
    STG.E desc[%ur9x2][%r0x2.64+0x20], %r8
    %r7 = IADD3 %r3, 0x2, RZ
    STG.E desc[%ur9x2][%r0x2.64+0x24], %r7
    EXIT
"""


def test_group_words_computed_in_place() -> None:
    """regalloc/coalesce.py: four loads copied into a quad for STG.128 load into its words
    (ptxas: LDG.E R16..R19, no MOV); %r4, read again before the quad's store, too (its other
    reader reads the word: the quad lives no longer); %r3, read again after the store, keeps
    its copy, as do the copies of a pair's words and of the quad's own word."""
    from openptxas.ir.printer import format_functions
    from openptxas.ir.reader import read_ir
    from openptxas.regalloc.coalesce import defs_into_group_words

    fn = read_ir(GROUP_WORDS).functions[0]
    assert defs_into_group_words(fn) == 3
    text = format_functions([fn])
    for k, off in ((3, "0xc"), (2, "0x8"), (0, "")):
        assert f"%r5x4.{k} = LDG.E desc[%ur9x2][%r0x2.64{off and '+' + off}]" in text
    assert "%r8 = IADD3 %r5x4.0, 0x1, RZ" in text
    assert "%r5x4.1 = MOV %r3" in text
    assert text.count("= MOV") == 5


SHARED_GROUPS = """.target sm_90
.entry k
.L_entry:
    %r0x2 = LDC.64 c[0x0][0x210]
    %r1 = LDG.E desc[%ur9x2][%r0x2.64]
    %r2 = LDG.E desc[%ur9x2][%r0x2.64+0x4]
    %r3x2.0 = MOV %r1
    %r3x2.1 = MOV %r2
    STG.E.64 desc[%ur9x2][%r0x2.64+0x8], %r3x2
    %r4x2.0 = MOV %r1
    %r4x2.1 = MOV %r2
    STG.E.64 desc[%ur9x2][%r0x2.64+0x10], %r4x2
    %r1 = IADD3 %r1, 0x1, RZ
    %r5x2.0 = MOV %r1
    %r5x2.1 = MOV %r2
    STG.E.64 desc[%ur9x2][%r0x2.64+0x18], %r5x2
    EXIT
"""


def test_group_built_twice_from_the_same_values_is_built_once() -> None:
    """regalloc/coalesce.py: %r4x2 repeats %r3x2's build (an mma fragment's quad per HMMA):
    its reader reads %r3x2; %r5x2 is built after %r1 changed and stays."""
    from openptxas.ir.printer import format_functions
    from openptxas.ir.reader import read_ir
    from openptxas.regalloc.coalesce import share_group_copies, snapshot

    fn = read_ir(SHARED_GROUPS).functions[0]
    before = format_functions([fn])
    snap = snapshot(fn)
    assert share_group_copies(fn) == 1
    text = format_functions([fn])
    assert "%r4x2" not in text
    assert "STG.E.64 desc[%ur9x2][%r0x2.64+0x10], %r3x2" in text
    assert "%r5x2.0 = MOV %r1" in text
    snap.restore()  # (the allocator's way back when the registers run out)
    assert format_functions([fn]) == before


CROSS_BLOCK_READ = """.target sm_90
.entry k
.L_entry:
    %r0x2 = LDC.64 c[0x0][0x210]
    %r1 = LDG.E desc[%ur9x2][%r0x2.64]
    %r2x2.0 = MOV %r1
    %r2x2.1 = SHF.R.S32.HI RZ, 0x1f, %r1
    %p3, PT = ISETP.NE.AND %r1, RZ, PT
    STG.E.64 desc[%ur9x2][%r0x2.64+0x8], %r2x2
    @%p3 BRA `(L_out)
.L_b1:
    STG.E desc[%ur9x2][%r0x2.64+0x10], %r1
L_out:
    EXIT
"""


def test_group_word_source_read_in_another_block_keeps_its_copy() -> None:
    """difffuzz seed 1103 (cvt.s64.s32 of a value stored again after a loop): a source read in
    another block than the copy's is not moved into the group's word (its readers there were
    not renamed: they read a register no longer written)."""
    from openptxas.ir.printer import format_functions
    from openptxas.ir.reader import read_ir
    from openptxas.regalloc.coalesce import defs_into_group_words

    fn = read_ir(CROSS_BLOCK_READ).functions[0]
    assert defs_into_group_words(fn) == 0
    assert "%r2x2.0 = MOV %r1" in format_functions([fn])
