"""The compiler's encoder (openptxas.codegen_encode, openptxas.isa.direct) against the assembler.

The code generator encodes IR instructions straight through the ISA table. Here every instruction
of a sample of compiled programs (each opcode the lowering emits, in the operand shapes the
programs give it) is also written as nvdisasm's text by an independent printer (below: the
compiler's former text path), read by the assembler (``asmparse``) and encoded; both words must
be equal, and the listing line must be the printer's text of the decoded word. Hand-made
instructions cover what the programs may not (immediates in signed fields, floating-point
immediates in other formats, NaNs, inverted guards, URZ), and wrong instructions must raise
InternalErrors that say what is wrong.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import openptxas.codegen as codegen
from openptxas.codegen_encode import EncodedFunction, encode_function
from openptxas.diag import EncodingError, InternalError
from openptxas.driver import compile_ptx
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
    Reg,
    Src,
    SReg,
    VReg,
)
from openptxas.isa.asmparse import SassAsmError, parse_instruction
from openptxas.isa.codec import decode_word, encode_instruction
from openptxas.isa.family import load_family
from openptxas.isa.floatfmt import format_float
from openptxas.isa.model import Control as IsaControl
from openptxas.isa.model import ImmKind as IsaImmKind
from openptxas.isa.model import Instruction
from openptxas.isa.printer import format_instruction
from openptxas.options import Options
from openptxas.targets import get_target
from openptxas.testing import difffuzz

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
TARGET = get_target("sm_90")
FAM = load_family(TARGET.family)

# ------------------------------------------------------------------------------ the reference

# Opcodes whose immediates nvdisasm prints as floating-point numbers.
FLOAT_IMM_OPS = frozenset(
    {"FADD", "FMUL", "FFMA", "FSETP", "FMNMX", "FSET", "FCHK", "HADD2", "HFMA2", "HMUL2"}
    | {"HSETP2", "HMNMX2", "DADD", "DMUL", "DFMA", "DSETP"}
)


def _reg(r: Reg, urz: int) -> str:
    if r.rc == RC.R:
        return "RZ" if r.index == 255 else f"R{r.index}"
    if r.rc == RC.UR:
        return "URZ" if r.index in (255, urz) else f"UR{r.index}"
    if r.rc == RC.P:
        return "PT" if r.index == 7 else f"P{r.index}"
    if r.rc == RC.UP:
        return "UPT" if r.index == 7 else f"UP{r.index}"
    return f"B{r.index}"


def _hex(v: int) -> str:
    return f"-{-v:#x}" if v < 0 else f"{v:#x}"


def _operand(op: Operand, urz: int, labels: dict[str, str]) -> str:
    if isinstance(op, Reg):
        return _reg(op, urz)
    if isinstance(op, Src):
        assert isinstance(op.x, Reg)
        s = _reg(op.x, urz) + (f".{op.sel}" if op.sel else "")
        s = f"|{s}|" if op.abs else s
        s = "-" + s if op.neg else s
        return ("!" if op.x.rc in (RC.P, RC.UP) else "~") + s if op.inv else s
    if isinstance(op, Imm):
        if op.kind == ImmKind.F32:
            return format_float(op.value, IsaImmKind.F32)
        if op.kind == ImmKind.F64:
            return format_float(op.value, IsaImmKind.F64)
        return _hex(op.value)
    if isinstance(op, CBank):
        if op.reg is not None:
            assert isinstance(op.reg, Reg)
            inner = _reg(op.reg, urz) + (f"+{_hex(op.offset)}" if op.offset else "")
        else:
            inner = _hex(op.offset)
        return f"c[{op.bank:#x}][{inner}]"
    if isinstance(op, Addr):
        parts = []
        if op.base is not None:
            assert isinstance(op.base, Reg)
            parts.append(_reg(op.base, urz) + (".64" if op.wide else ""))
        if op.ubase is not None:
            assert isinstance(op.ubase, Reg)
            parts.append(_reg(op.ubase, urz))
        s = "+".join(parts)
        if op.offset or not parts:
            s = (s + "+" if s else "") + _hex(op.offset)
        s = f"[{s}]"
        if op.desc is not None:
            assert isinstance(op.desc, Reg)
            s = f"desc[{_reg(op.desc, urz)}]" + s
        return s
    if isinstance(op, SReg):
        return op.name
    if isinstance(op, Label):
        return f"`({labels[op.block]})"
    raise AssertionError(f"cannot print {op!r}")


def reference_text(ins: Instr, at: int, labels: dict[str, str], signed: bool = False) -> str:
    """nvdisasm's text of an allocated IR instruction, integer immediates unsigned (or signed)."""
    urz = TARGET.urz

    def fmt(o: Operand) -> str:
        if isinstance(o, Addr) and ins.op == "ATOMG" and "CAS" in ins.mods:
            o = Addr(o.base, o.offset)  # [R8+0x4]: no descriptor, no .64
        if isinstance(o, Imm) and (ins.op not in FLOAT_IMM_OPS or o.kind == ImmKind.INT):
            v = o.value & 0xFFFFFFFF
            return _hex(v - (1 << 32) if signed and v & 0x80000000 else v)
        return _operand(o, urz, labels)

    if ins.op == "BRX":
        assert isinstance(ins.srcs[0], Reg)
        ops = f"{_reg(ins.srcs[0], urz)} {_hex(-(at + 16))}"
    else:
        ops = ", ".join(fmt(o) for o in (*ins.dsts, *ins.srcs))
    g = ""
    if ins.guard is not None:
        assert isinstance(ins.guard.pred, Reg)
        g = f"@{'!' if ins.guard.inv else ''}{_reg(ins.guard.pred, urz)} "
    return f"{g}{'.'.join((ins.op, *ins.mods))}{' ' + ops if ops else ''} ;"


def reference_word(ins: Instr, at: int, labels: dict[str, str], addrs: dict[str, int]) -> int:
    """The assembler's word for the reference text (the signed spelling if the unsigned one
    does not read)."""
    c = ins.ctrl or Control()
    ctl = IsaControl(stall=c.stall, yield_=c.yield_, wr=c.wr_sb, rd=c.rd_sb, wait=c.wait)
    by_name = {labels[b]: a for b, a in addrs.items()}
    try:
        parsed = parse_instruction(reference_text(ins, at, labels), FAM, at, by_name, ctl)
        return encode_instruction(parsed, FAM, at)
    except (SassAsmError, EncodingError):
        parsed = parse_instruction(reference_text(ins, at, labels, True), FAM, at, by_name, ctl)
        return encode_instruction(parsed, FAM, at)


def _layout(fn: Function) -> tuple[dict[str, str], dict[str, int]]:
    labels = {b.name: f".L_x_{i}" for i, b in enumerate(fn.blocks)}
    addrs: dict[str, int] = {}
    at = 0
    for b in fn.blocks:
        addrs[b.name] = at
        at += 16 * len(b.instrs)
    return labels, addrs


def check_function(fn: Function, enc: EncodedFunction) -> list[str]:
    """Each instruction's word against the reference, and each listing line against the
    printer's text of the decoded word."""
    labels, addrs = _layout(fn)
    names: dict[int, str] = {}
    for b, a in addrs.items():
        names.setdefault(a, labels[b])
    problems = []
    for k, ins in enumerate(fn.instrs()):
        at = 16 * k
        word = int.from_bytes(enc.code[at : at + 16], "little")
        want = reference_word(ins, at, labels, addrs)
        if word != want:
            problems.append(f"{fn.name}/{at:04x} {ins}: {word:#034x} != assembler's {want:#034x}")
        dec = decode_word(word, FAM, at)
        assert isinstance(dec, Instruction), f"{ins}: our word does not decode"
        text = format_instruction(dec, FAM, at, names)
        line = re.sub(r' \(\*"BRANCH_TARGETS [^"]*"\*\)', "", enc.text[k])
        if line != text:
            problems.append(f"{fn.name}/{at:04x}: listing {enc.text[k]!r} != {text!r}")
    return problems


# ------------------------------------------------------------------------------ the sample


def _sources() -> list[tuple[str, str]]:
    out = [(p.stem, p.read_text()) for p in sorted((DATA / "difffuzz").glob("*.ptx"))]
    out.append(("encode_ops", (DATA / "encode_ops.ptx").read_text()))
    out.append(("vec_add", (ROOT / "examples" / "vec_add.ptx").read_text()))
    out += [(f"fuzz{s}", difffuzz.render(difffuzz.generate(s))) for s in (1000, 1001, 1002, 1003)]
    return out


SOURCES = _sources()


@functools.cache
def compiled(name: str, opt: int) -> tuple[tuple[Function, EncodedFunction], ...]:
    """The program's functions as the code generator received them, with their encoding."""
    done: list[tuple[Function, EncodedFunction]] = []

    def spy(fn: Function, target: object) -> EncodedFunction:
        enc = encode_function(fn, TARGET)
        done.append((fn, enc))
        return enc

    real = codegen.encode_function
    codegen.encode_function = spy  # type: ignore[assignment]
    try:
        compile_ptx(dict(SOURCES)[name], Options(arch="sm_90", opt_level=opt), f"{name}.ptx")
    finally:
        codegen.encode_function = real  # type: ignore[assignment]
    return tuple(done)


@pytest.mark.parametrize("opt", [3, 0])
@pytest.mark.parametrize("name", [n for n, _ in SOURCES])
def test_program_encodes_as_the_assembler(name: str, opt: int) -> None:
    done = compiled(name, opt)
    assert done
    problems = [p for fn, enc in done for p in check_function(fn, enc)]
    assert not problems, "\n".join(problems[:20])


# Opcodes the lowering and the passes emit (openptxas/lower, openptxas/passes), each of which the
# sample must encode at least once; the uniform twins come from passes/uniform_regs.py's table.
SAMPLE_OPS = {
    "ATOMG", "ATOMS", "B2R", "BAR", "BMSK", "BRA", "BREV", "BRX", "BSSY", "BSYNC", "DADD",
    "DMUL", "DSETP", "EXIT", "F2F", "F2I", "FADD", "FFMA", "FLO", "FMNMX", "FMUL", "FRND",
    "FSETP", "I2F", "I2FP", "IABS", "IADD3", "IDP", "IMAD", "ISETP", "LD", "LDC", "LDG", "LDS",
    "LEA", "LOP3", "MEMBAR", "MOV", "MUFU", "PLOP3", "POPC", "PRMT", "REDG", "S2R", "S2UR",
    "SEL", "SGXT", "SHF", "SHFL", "ST", "STG", "STS", "ULDC", "ULEA", "UMOV", "VABSDIFF",
    "VABSDIFF4", "VIADD", "VIMNMX", "VOTE", "WARPSYNC",
}  # fmt: skip


def test_sample_covers_the_emitted_opcodes() -> None:
    seen = {
        ins.op
        for name, _ in SOURCES
        for o in (3, 0)
        for fn, _ in compiled(name, o)
        for ins in fn.instrs()
    }
    missing = sorted(SAMPLE_OPS - seen)
    assert not missing, f"opcodes the sample did not encode: {missing}"


# ------------------------------------------------------------------------------ hand-made cases

R = [Reg(RC.R, i) for i in range(16)]
UR4, UR63 = Reg(RC.UR, 4), Reg(RC.UR, TARGET.urz)
P0 = Reg(RC.P, 0)
ONE = Control(stall=1)

HANDMADE: list[Instr] = [
    Instr("IMAD", (), [R[2]], [R[2], Imm(0xFFFFFFF9), R[3]]),  # signed field: -0x7
    Instr("IADD3", (), [R[1]], [R[2], Imm(0xFFFFFFFF), RZ]),
    Instr("IADD3", (), [R[1]], [R[2], Imm(0x80000000), RZ]),
    Instr("IADD3", (), [R[1], P0], [R[2], R[3], RZ]),  # a carry-out printed
    Instr("LOP3", ("LUT",), [R[1]], [R[2], Imm(0xFFFF), RZ, Imm(0xC0), Src(PT, inv=True)]),
    Instr("MOV", (), [R[1]], [Imm(0x3F800000, ImmKind.F32)]),  # an f32 in an integer field
    Instr("FADD", (), [R[1]], [R[2], Imm(0x3FC00000, ImmKind.F32)]),
    Instr("FADD", (), [R[1]], [R[2], Imm(0x80000000, ImmKind.F32)]),  # -0.0
    Instr("FADD", (), [R[1]], [R[2], Imm(0x7F800000, ImmKind.F32)]),  # +INF
    Instr("FMUL", (), [R[1]], [R[2], Imm(0x7FC00001, ImmKind.F32)]),  # a NaN's payload
    Instr("FFMA", (), [R[1]], [R[2], Imm(0x40000000, ImmKind.F32), R[3]]),
    Instr("FFMA", (), [R[1]], [Src(R[2], neg=True), R[3], Src(R[4], neg=True)]),
    Instr("DADD", (), [R[2]], [R[4], Imm(0x3FF00000_00000000, ImmKind.F64)]),
    Instr("DADD", (), [R[2]], [R[4], Imm(0x3FF80000, ImmKind.F32)]),  # f32 1.9375 as f64
    Instr("FSETP", ("GT", "AND"), [P0, PT], [R[2], Src(R[3], abs=True), PT]),
    Instr("ISETP", ("GE", "U32", "AND"), [P0, PT], [R[2], UR4, PT], Guard(P0, inv=True)),
    Instr("IMAD", ("MOV", "U32"), [R[1]], [RZ, RZ, CBank(0, 0x28)]),
    Instr("LDC", (), [R[1]], [CBank(0, 0x210, R[2])]),
    Instr("ULDC", ("64",), [UR4], [CBank(0, 0x208)]),
    Instr("S2R", (), [R[1]], [SReg("SR_TID.X")]),
    Instr("S2UR", (), [UR4], [SReg("SR_CTAID.Y")]),
    Instr("UMOV", (), [UR4], [UR63]),  # URZ by its IR index
    Instr("LDG", ("E",), [R[1]], [Addr(R[2], 0x10, desc=UR4, wide=True)]),
    Instr("STG", ("E", "64"), [], [Addr(R[2], -0x8, desc=UR4, wide=True), R[4]]),
    Instr("LDS", (), [R[1]], [Addr(R[2], 0x40)]),
    Instr("LDS", (), [R[1]], [Addr(None, 0x40, ubase=UR4)]),
    Instr("STS", (), [], [Addr(None, 0x80), R[3]]),
    Instr(
        "ATOMG", ("E", "CAS", "STRONG", "GPU"), [PT, R[1]],
        [Addr(R[4], 4, desc=UR4, wide=True), R[2], R[3]],
    ),
    Instr("SHFL", ("BFLY",), [PT, R[1]], [R[2], Imm(1), Imm(0x1F)]),
    Instr("SEL", (), [R[1]], [R[2], Imm(0xFFFFFFF0), Src(P0, inv=True)]),
    Instr("EXIT", (), [], [], Guard(P0)),
]  # fmt: skip


@pytest.mark.parametrize("ins", HANDMADE, ids=[str(i) for i in HANDMADE])
def test_handmade_instruction(ins: Instr) -> None:
    ins.ctrl = ONE
    fn = Function("f", [Block("b0", [ins, Instr("EXIT", ctrl=ONE)])])
    enc = encode_function(fn, TARGET)
    assert not check_function(fn, enc)


def test_labels_brx_and_padding() -> None:
    """Branches resolve to their block's address; BRX subtracts its next address and lists its
    targets; the code ends with a BRA to itself and NOPs to 128 bytes."""
    b0 = Block("entry", [Instr("BRX", (), [], [R[2], Label("b1"), Label("b2")], ctrl=ONE)])
    b1 = Block("b1", [Instr("BRA", (), [], [Label("b2")], ctrl=ONE)])
    b2 = Block("b2", [Instr("BSSY", (), [Reg(RC.B, 0)], [Label("b3")], ctrl=ONE)])
    b3 = Block("b3", [Instr("BSYNC", (), [], [Reg(RC.B, 0)], ctrl=ONE), Instr("EXIT", ctrl=ONE)])
    fn = Function("f", [b0, b1, b2, b3])
    fn.jump_tables.append(("b1", "b2"))
    enc = encode_function(fn, TARGET)
    assert not check_function(fn, enc)
    assert enc.branches == ((0, (0x10, 0x20)),)
    assert enc.const2 == (0x10).to_bytes(4, "little") + (0x20).to_bytes(4, "little")
    assert enc.text[0] == 'BRX R2 -0x10 (*"BRANCH_TARGETS .L_x_1,.L_x_2"*) ;'
    assert enc.text[5] == "BRA `(.L_x_4);"
    assert enc.text[6:] == ["NOP;"] * 2
    assert len(enc.code) == 128 and enc.exit_offsets == (0x40,) and enc.first_branch == 0


def test_unknown_jump_table_target_is_an_internal_error() -> None:
    b0 = Block("entry", [Instr("BRX", (), [], [R[2], Label("gone")]), Instr("EXIT")])
    fn = Function("kern", [b0])
    with pytest.raises(InternalError, match="kern: branch to unknown block gone"):
        encode_function(fn, TARGET)
    fn = Function("kern", [Block("entry", [Instr("EXIT")])], jump_tables=[("gone",)])
    with pytest.raises(InternalError, match="kern: branch to unknown block gone"):
        encode_function(fn, TARGET)


@pytest.mark.parametrize(
    ("ins", "says"),
    [
        (Instr("NOSUCHOP", (), [R[1]], [R[2]]), "unknown opcode NOSUCHOP"),
        (
            Instr("IADD3", (), [R[1]], [R[2], R[3]]),
            "no form with these modifiers prints 3 operands",
        ),
        (Instr("IADD3", ("BOGUS",), [R[1]], [R[2], R[3], RZ]), "no form has the modifiers BOGUS"),
        (Instr("BAR", ("SYNC",), [], [Imm(0x20)]), "0x20 does not fit its 4-bit unsigned field"),
        (Instr("LDS", (), [R[1]], [Addr(R[2], 1 << 24)]), "offset 0x1000000 does not fit"),
        (Instr("IADD3", (), [R[1]], [VReg(RC.R, 7), R[3], RZ]), "not allocated"),
        (Instr("BRA", (), [], [Label("nowhere")]), "unknown block nowhere"),
        (Instr("FADD", (), [R[1]], [R[2], Imm(1)]), "where the form has a f32 immediate"),
    ],
)
def test_errors_are_internal_errors_that_name_the_instruction(ins: Instr, says: str) -> None:
    fn = Function("kern", [Block("b0", [ins, Instr("EXIT")])])
    with pytest.raises(InternalError) as exc:
        encode_function(fn, TARGET)
    msg = str(exc.value)
    assert "kern" in msg and "at 0x0" in msg and says in msg, msg


def test_compiling_does_not_use_the_assembler() -> None:
    """The compile path encodes without text: the assembler module is never even imported."""
    code = (
        "import sys\n"
        "from openptxas.driver import compile_ptx\n"
        "from openptxas.options import Options\n"
        f"ptx = open({str(ROOT / 'examples' / 'vec_add.ptx')!r}).read()\n"
        "compile_ptx(ptx, Options(arch='sm_90'))\n"
        "assert 'openptxas.isa.asmparse' not in sys.modules, 'asmparse imported'\n"
        "assert 'openptxas.isa.syntax' not in sys.modules, 'the SASS text syntax imported'\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
