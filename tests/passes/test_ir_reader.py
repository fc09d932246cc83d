"""The IR text format: every operand form reads back to the same object, malformed text gets a
diagnostic with its line number (never a traceback), and mutated text never crashes the reader."""

from __future__ import annotations

import random

import pytest

from openptxas.diag import OpenPtxasError
from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Addr,
    Block,
    CBank,
    Control,
    Function,
    Guard,
    Imm,
    ImmKind,
    Instr,
    Label,
    Operand,
    Param,
    Part,
    Reg,
    Src,
    SReg,
    VReg,
)
from openptxas.ir.printer import format_function, format_operand
from openptxas.ir.reader import IRSyntaxError, read_dump, read_function, read_ir
from scripts.ir_roundtrip import ir_difference

V = VReg(RC.R, 3)
W = VReg(RC.R, 4, 2)
U = VReg(RC.UR, 5)
UW = VReg(RC.UR, 6, 2)
P = VReg(RC.P, 7)
OPERANDS: list[Operand] = [
    V,
    W,
    VReg(RC.R, 8, 4),
    U,
    P,
    VReg(RC.UP, 9),
    VReg(RC.B, 10),
    Part(W, 0),
    Part(W, 1),
    Part(VReg(RC.R, 8, 4), 2, 2),
    Part(W, 0, 2),
    RZ,
    PT,
    Reg(RC.UP, 7),
    Reg(RC.UR, 255),
    Reg(RC.UR, 63),
    Reg(RC.R, 4, 2),
    Reg(RC.R, 8, 4),
    Reg(RC.B, 1),
    Src(V, neg=True),
    Src(V, abs=True),
    Src(V, neg=True, abs=True),
    Src(V, inv=True),
    Src(P, inv=True),
    Src(PT, inv=True),
    Src(V, sel="H1"),
    Src(V, neg=True, abs=True, sel="H1_H1"),
    Src(Part(W, 1), neg=True),
    Src(V),
    Src(RZ, neg=True),
    Imm(0),
    Imm(4),
    Imm(-1),
    Imm(0xFFFFFFFF),
    Imm(0x123456789),
    Imm(0x3F800000, ImmKind.F32),
    Imm(0x3FF00000, ImmKind.F64),
    Imm(0x3C003C00, ImmKind.F16X2),
    CBank(0, 0x210),
    CBank(3, 0x10, V),
    CBank(3, 0, U),
    CBank(3, -8, V),
    Addr(W, 0, wide=True, desc=UW),
    Addr(W, 0x10, wide=True, desc=UW),
    Addr(W, -0x10, wide=True, desc=UW),
    Addr(V),
    Addr(V, 4),
    Addr(None, 0x40),
    Addr(None, 0),
    Addr(None, 8, ubase=U),
    Addr(None, 0, ubase=U, wide=True),
    Addr(V, 8, ubase=U),
    Addr(Part(VReg(RC.R, 8, 4), 0, 2), 4, wide=True),
    Addr(Reg(RC.R, 2, 2), 8, wide=True, desc=Reg(RC.UR, 4, 2)),
    SReg("SR_TID.X"),
    SReg("SR_CLOCKLO"),
    SReg("weird name"),
    Label("$L__BB0_2"),
    Label(".L_x.sync"),
]


def _fn(instrs: list[Instr]) -> Function:
    return Function("k", [Block(".L_entry", instrs), Block("$L__BB0_2", [Instr("EXIT")])])


@pytest.mark.parametrize("op", OPERANDS, ids=lambda o: format_operand(o))
def test_operand_reads_back(op: Operand) -> None:
    fn = _fn([Instr("NOP", (), [], [op])])
    fn.next_vreg = 20
    back = read_function(format_function(fn))
    assert back.blocks[0].instrs[0].srcs == [op]


def test_function_state_reads_back() -> None:
    ins = [
        Instr("S2R", (), [V], [SReg("SR_TID.X")], line=12),
        Instr("ISETP", ("GE", "U32", "AND"), [P, PT], [V, Imm(7), PT], line=13),
        Instr("FMUL", ("FTZ",), [U], [V, V], contract=True),
        Instr("IADD3", (), [Part(W, 0), P], [V, V, RZ], Guard(P, inv=True)),
        Instr("BRA", (), [], [Label("$L__BB0_2")], Guard(P)),
    ]
    ins[0].ctrl = Control(4, True, 1, None, 0b100101)
    ins[1].ctrl = Control(13, False, None, 2, 0)
    fn = _fn(ins)
    fn.is_entry = False
    fn.params = [Param("k_param_0", 0, 8, 8), Param("k_param_1", 8, 4, 4)]
    fn.next_vreg = 11
    fn.shared_static = 256
    fn.shared_align = 16
    fn.local_bytes = 24
    fn.barriers = 1
    fn.jump_tables = [("$L__BB0_2", ".L_entry"), ("$L__BB0_2",)]
    fn.maxnreg = 40
    fn.registers = 12
    text = format_function(fn)
    back = read_function(text)
    assert ir_difference(fn, back) is None
    assert format_function(back) == text


def test_dump_headers_and_targets() -> None:
    text = (
        ".target sm_90a\n// ---- a after BranchOpt\n.entry a\nL0:\n    EXIT\n"
        "// ---- b after GvnCse\n.func b\nL0:\n    RET\n"
    )
    assert read_ir(text).target == "sm_90a"
    got = read_dump(text)
    assert [(ph, f.name, f.is_entry) for ph, f in got] == [
        ("BranchOpt", "a", True),
        ("GvnCse", "b", False),
    ]


def test_hand_written_text_gets_next_vreg() -> None:
    fn = read_function(
        ".entry k\nL:\n    %r7 = MOV 0x1\n    %p2 = PLOP3.LUT PT, PT, PT, 0x0, 0x0\n"
    )
    assert fn.next_vreg == 8
    assert fn.new_vreg(RC.R).id == 8


BAD = [
    ("L:\n  EXIT\n", 1, "expected '.entry NAME'"),
    (".entry k\n    .bogus 1\nL:\n EXIT\n", 2, "unknown directive '.bogus'"),
    (".entry k\nL:\n    %r1 = \n", 3, "expected an opcode"),
    (".entry k\nL:\n    %r1 = IADD3 %r2,, RZ\n", 3, "expected a register"),
    (".entry k\nL:\n    %r1 = IADD3 %r2 %r3\n", 3, "expected ','"),
    (".entry k\nL:\n    %r1x2.2 = MOV %r3\n", 3, "outside"),
    (".entry k\nL:\n    0x1 = MOV %r3\n", 3, "not a register"),
    (".entry k\nL:\n    %r1 = LDG.E [%r2+%r3+%r4]\n", 3, "at most a base"),
    (".entry k\nL:\n    %r1 = LDG.E [0x4+%r2]\n", 3, "offset comes last"),
    (".entry k\nL:\n    %r1 = LDC c[0x0][%r2+%r3]\n", 3, "constant bank offset"),
    (".entry k\nL:\n    [B------:R-:W-:-:S99]  EXIT\n", 3, "stall 99 is over 15"),
    (".entry k\nL:\n    [B-:R-:W-]  EXIT\n", 3, "malformed control codes"),
    (".entry k\nL:\n    [B1-----:R-:W-:-:S01]  EXIT\n", 3, "wait mask"),
    (".entry k\nL:\n    EXIT  ; fast\n", 3, "unknown instruction note 'fast'"),
    (".entry k\nL:\n    BRA `(L\n", 3, "unterminated label"),
    (".entry k\nL:\n    %r1 = MOV |%r2\n", 3, "to close |x|"),
    (".entry k\n    .maxnreg [1,\nL:\n    EXIT\n", 2, "cannot read value"),
    (".entry k\n    .next_vreg abc\nL:\n    EXIT\n", 2, "cannot read value"),
    (".entry k\n    .next_vreg 'x'\nL:\n    EXIT\n", 2, ".next_vreg takes a int"),
    (".entry k\n    .next_vreg 2\nL:\n    %r5 = MOV 0x1\n", 1, "not above its highest"),
    (".entry k\n    .param p offset=x\nL:\n    EXIT\n", 2, "expected '.param NAME"),
    (".entry k\nL:\n    EXIT\nL:\n    EXIT\n", 1, "block 'L' defined twice"),
    (".entry k\n", 1, "has no blocks"),
    (".entry k\nL:\n EXIT\n.target sm_90\n", 4, ".target comes before"),
    (".target sm_9x\n", 1, "bad target"),
    (".entry k\nL:\n    @%r1x EXIT\n", 3, "expected an opcode"),
    (".entry k\nL:\n    %q1 = MOV 0x1\n", 3, "expected a register"),
    (".entry k\nL:\n    %r1 = MOV URX\n", 3, "expected a register"),
    (".entry k\nL:\n    %r1 = MOV BZ\n", 3, "BZ is not a register"),
    (".entry k\nL:\n    %r1 = MOV R2x0\n", 3, "bad register width 0"),
]


@pytest.mark.parametrize(("text", "line", "msg"), BAD, ids=[m for _, _, m in BAD])
def test_malformed_text_is_diagnosed(text: str, line: int, msg: str) -> None:
    with pytest.raises(IRSyntaxError) as ei:
        read_ir(text, "bad.ir")
    rendered = ei.value.render("runpass")
    assert msg in rendered
    assert rendered.startswith(f"runpass bad.ir, line {line}; error   : "), rendered


def test_mutated_text_never_crashes() -> None:
    """Random edits of a real dump: the reader either reads the text or raises its diagnostic."""
    from pathlib import Path

    golden = Path(__file__).parent / "golden"
    files = ["regalloc/straight", "convergence/nested", "sched/loop", "uniform_regs/params"]
    base = "".join(
        line
        for f in files
        for line in (golden / f"{f}.out.ir").read_text().splitlines(keepends=True)
        if not line.startswith(".target")
    )
    read_ir(base)  # the unmutated text reads
    alphabet = "%.,=[]():;+-|!~@`_xXRPUBZT0123456789abcf \n"
    rng = random.Random(16)
    outcomes = {"read": 0, "diagnosed": 0}
    for _ in range(3000):
        chars = list(base)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars))
            r = rng.random()
            if r < 0.4:
                chars[i] = rng.choice(alphabet)
            elif r < 0.7:
                del chars[i]
            else:
                chars.insert(i, rng.choice(alphabet))
        try:
            read_ir("".join(chars))
            outcomes["read"] += 1
        except OpenPtxasError:
            outcomes["diagnosed"] += 1
    assert min(outcomes.values()) > 300, outcomes  # both kinds, many times
