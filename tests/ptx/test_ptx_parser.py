"""Parser and AST: every PTX form the front end reads, and the API the lowering uses."""

from __future__ import annotations

import pytest

from openptxas.diag import PtxSemanticError, PtxSyntaxError, Severity
from openptxas.ptx import diagnose, parse, parse_and_check, print_module
from openptxas.ptx.ast import (
    Address,
    ArgList,
    Block,
    BranchTargets,
    CallPrototype,
    FloatImm,
    FuncKind,
    InitFields,
    InitList,
    Instruction,
    IntImm,
    Label,
    LabelDef,
    Loc,
    MemList,
    Not,
    Pair,
    Reg,
    Section,
    Sink,
    SpecialReg,
    Sym,
    SymInit,
    VarDecl,
    Vector,
)
from openptxas.ptx.types import BoolOp, CmpOp, Linkage, PtxType, Rounding, Scope, Sem, StateSpace

HDR = ".version 9.0\n.target sm_90\n.address_size 64\n"


def body(stmts: str, params: str = "") -> str:
    return f"{HDR}.visible .entry k({params})\n{{\n{stmts}\n}}\n"


def instrs(text: str) -> list[Instruction]:
    fn = parse(text).functions[-1]
    assert fn.body is not None
    return list(fn.body.instructions())


def one(
    stmt: str, decls: str = ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<8>;"
) -> Instruction:
    return instrs(body(f"{decls}\n{stmt}"))[0]


# -- immediates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("0x1F", 31),
        ("017", 15),
        ("0b101", 5),
        ("-5", -5),
        ("5U", 5),
        ("0xFFFFFFFFU", 0xFFFFFFFF),
        ("-0x10", -16),
        ("~5", ~5),
        ("!0", 1),
        ("(1+2)*3", 9),
        ("1 << 4", 16),
        ("10 % 3", 1),
        ("-7 / 2", -3),
        ("1 ? 2 : 3", 2),
        ("0", 0),
    ],
)
def test_integer_immediates(text, value):
    ins = one(f"mov.b32 %r1, {text};")
    assert ins.operands[1] == IntImm(value)


@pytest.mark.parametrize(
    "text,bits,width",
    [
        ("0f3F800000", 0x3F800000, 32),
        ("0F3F800000", 0x3F800000, 32),
        ("0d3FF0000000000000", 0x3FF0000000000000, 64),
        ("1.5", 0x3FF8000000000000, 64),
        (".5", 0x3FE0000000000000, 64),
        ("1e10", 0x4202A05F20000000, 64),
    ],
)
def test_float_immediates(text, bits, width):
    ins = one(f"mov.f32 %f1, {text};")
    imm = ins.operands[1]
    assert imm == FloatImm(bits, width)
    assert isinstance(imm, FloatImm) and imm.value == pytest.approx(float.fromhex(imm.value.hex()))


def test_float_immediate_value():
    assert FloatImm(0x3F800000, 32).value == 1.0
    assert FloatImm(0xBFF0000000000000, 64).value == -1.0


# -- operands ------------------------------------------------------------------------------------


def test_registers_and_special_registers():
    ins = one("mov.u32 %r1, %tid.x;")
    assert ins.operands == (Reg("%r1"), SpecialReg("%tid", "x"))
    assert one("mov.u64 %rd1, %clock64;").operands[1] == SpecialReg("%clock64")


def test_addresses():
    ops = [
        one(f"ld.global.u32 %r1, {a};").operands[1]
        for a in (
            "[%rd1]",
            "[%rd1+4]",
            "[%rd1+-4]",
            "[%rd1 + 2*8]",
            "[%rd1+0x10]",
        )
    ]
    assert ops == [
        Address(Reg("%rd1"), 0),
        Address(Reg("%rd1"), 4),
        Address(Reg("%rd1"), -4),
        Address(Reg("%rd1"), 16),
        Address(Reg("%rd1"), 16),
    ]
    g = instrs(
        HDR + ".global .b32 g[4];\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n"
        "ld.global.u32 %r1, [g+8];\n}\n"
    )[0]
    assert g.operands[1] == Address(Sym("g"), 8)


def test_vectors_pairs_negation_sink():
    ins = one("ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];")
    assert ins.operands[0] == Vector((Reg("%f1"), Reg("%f2"), Reg("%f3"), Reg("%f4")))
    ins = one("setp.lt.s32 %p1|%p2, %r1, %r2;", ".reg .b32 %r<4>; .reg .pred %p<4>;")
    assert ins.operands[0] == Pair(Reg("%p1"), Reg("%p2"))
    ins = one("and.pred %p1, %p2, !%p3;", ".reg .pred %p<4>;")
    assert ins.operands[2] == Not(Reg("%p3"))
    ins = one("mbarrier.arrive.shared::cluster.b64 _, [%r1];", ".reg .b32 %r<4>;")
    assert ins.operands[0] == Sink()


def test_labels_are_resolved_including_forward_references():
    ins = instrs(body(".reg .pred %p;\n@%p bra $L_end;\nbra.uni $L_top;\n$L_top:\n$L_end:\nret;"))
    assert ins[0].operands == (Label("$L_end"),)
    assert ins[0].guard is not None and ins[0].guard.reg == "%p"
    assert ins[1].operands == (Label("$L_top"),)


def test_call_operands():
    text = HDR + (
        ".func (.param .b32 r) f(.param .b32 a)\n{\nret;\n}\n"
        ".visible .entry k()\n{\n.param .b32 x;\n.param .b32 y;\n"
        "call.uni (y), f, (x);\n}\n"
    )
    ins = instrs(text)[0]
    assert ins.opcode == "call"
    assert ins.operands == (ArgList((Sym("y"),)), Sym("f"), ArgList((Sym("x"),)))


def test_texture_operand_list():
    ins = one("tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%rd1, {%f5, %f6}];")
    assert ins.operands[1] == MemList((Reg("%rd1"), Vector((Reg("%f5"), Reg("%f6")))))


def test_plain_register_names():
    ins = instrs(body(".reg .pred p;\n.reg .b32 r;\nsetp.ne.b32 p, r, 0;\n@!p bra $L;\n$L:\nret;"))
    assert ins[0].operands[0] == Reg("p")
    assert ins[1].guard is not None and ins[1].guard.negated


# -- modifiers -----------------------------------------------------------------------------------


def test_decoded_modifiers():
    ins = one("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];")
    assert (ins.opcode, ins.type, ins.space, ins.vec) == ("ld", PtxType.F32, StateSpace.GLOBAL, 4)
    assert ins.has("nc") and ins.name == "ld.global.nc.v4.f32"
    ins = one("setp.lo.and.u32 %p1, %r1, %r2, %p2;", ".reg .b32 %r<4>; .reg .pred %p<4>;")
    assert (ins.cmp, ins.boolop, ins.type) == (CmpOp.LO, BoolOp.AND, PtxType.U32)
    ins = one("cvt.rn.f32.s32 %f1, %r1;")
    assert ins.types == (PtxType.F32, PtxType.S32) and ins.rnd is Rounding.RN
    ins = one("atom.acquire.gpu.global.add.u32 %r1, [%rd1], 1;")
    assert (ins.op, ins.sem, ins.scope) == ("add", Sem.ACQUIRE, Scope.GPU)
    ins = one("mul.wide.s32 %rd1, %r1, %r2;")
    assert ins.has("wide") and ins.type is PtxType.S32


def test_multi_word_mnemonics():
    ins = one("tcgen05.wait::ld.sync.aligned;")
    assert ins.opcode == "tcgen05.wait" and ins.mods.raw[0] == "::ld"
    assert ins.name == "tcgen05.wait::ld.sync.aligned"
    ins = one("cp.async.bulk.commit_group;")
    assert ins.opcode == "cp.async.bulk.commit_group"
    ins = one(
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;",
        ".reg .b32 %r<4>; .reg .pred %p<2>;",
    )
    assert ins.opcode == "mbarrier.try_wait" and ins.space is StateSpace.SHARED_CTA


# -- declarations and functions ------------------------------------------------------------------


def test_declarations():
    text = HDR + (
        ".global .align 8 .b8 arr[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
        ".const .align 4 .u32 c1 = 5;\n"
        ".global .u64 ptrs[2] = {arr, generic(arr)+4};\n"
        ".extern .shared .align 16 .b8 dyn[];\n"
        ".global .samplerref s = { addr_mode_0 = clamp_to_edge, filter_mode = linear };\n"
        ".visible .entry k()\n{\n.reg .b32 %r<100>, %q;\n.local .align 16 .b8 depot[32];\nret;\n}\n"
    )
    m = parse(text)
    g = m.globals
    assert g[0].init == InitList(tuple(IntImm(i) for i in range(1, 9)))
    assert g[0].size == 8 and g[0].alignment == 8
    assert g[2].init == InitList((SymInit("arr"), SymInit("arr", 4, True)))
    assert g[3].linkage is Linkage.EXTERN and g[3].dims == (None,)
    assert isinstance(g[4].init, InitFields)
    fn = m.functions[0]
    assert fn.body is not None
    decls = [s for s in fn.body.stmts if isinstance(s, VarDecl)]
    assert decls[0].count == 100 and decls[0].name == "%r"
    assert list(decls[0].names())[:2] == ["%r0", "%r1"]
    assert decls[1].name == "%q"


def test_param_layout():
    text = HDR + (
        ".visible .entry k(.param .u32 a, .param .align 16 .b8 blob[20], .param .u64 .ptr .global"
        " .align 8 p)\n.maxntid 128, 1, 1\n.minnctapersm 2\n{\nret;\n}\n"
    )
    fn = parse(text).functions[0]
    lay = [(s.param.name, s.offset, s.size) for s in fn.param_layout()]
    assert lay == [("a", 0, 4), ("blob", 16, 20), ("p", 40, 8)]
    assert fn.param_size == 48
    assert fn.params[2].ptr is not None and fn.params[2].ptr.space is StateSpace.GLOBAL
    assert fn.maxntid == (128, 1, 1) and fn.minnctapersm == 2 and fn.kind is FuncKind.ENTRY


def test_function_directives_and_prototypes():
    text = HDR + (
        ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
        ".visible .func f() .noreturn\n{\n"
        "proto: .callprototype (.param .b32 _) _ (.param .b64 _);\n"
        ".reg .b32 %r;\nts: .branchtargets $L1, $L2;\nbrx.idx %r, ts;\n$L1:\n$L2:\ntrap;\n}\n"
    )
    m = parse(text)
    assert m.functions[0].body is None and m.functions[0].linkage is Linkage.EXTERN
    f = m.functions[1]
    assert f.noreturn
    assert f.body is not None
    assert isinstance(f.body.stmts[0], CallPrototype)
    assert isinstance(f.body.stmts[2], BranchTargets)
    brx = next(f.body.instructions())
    assert brx.operands[1] == Label("ts")


def test_debug_sections_and_locations():
    text = HDR + (
        '.file 1 "a.cu", 1700000000, 123\n'
        ".visible .entry k()\n{\n.loc 1 5 3\n$L__tmp0:\n"
        ".loc 1 6 1, function_name $L__info_string0, inlined_at 1 5 3\nret;\n}\n"
        ".section .debug_info\n{\n.b32 12\n.b8 1, 2\n.b64 $L__tmp0\n.b32 .debug_abbrev\n}\n"
    )
    m = parse(text)
    fn = m.functions[0]
    assert fn.body is not None
    locs = [s for s in fn.body.stmts if isinstance(s, Loc)]
    assert locs[0] == Loc(1, 5, 3)
    assert locs[1].inlined_at == (1, 5, 3) and locs[1].function_name == "$L__info_string0"
    sec = m.items[-1]
    assert isinstance(sec, Section) and sec.name == ".debug_info"


def test_nested_blocks_and_spans():
    text = body(".reg .b32 %r<2>;\n{\n.reg .b32 %t;\nmov.u32 %t, 1;\n}\nret;")
    fn = parse(text, "x.ptx").functions[0]
    assert fn.body is not None
    inner = fn.body.stmts[1]
    assert isinstance(inner, Block)
    ins = inner.stmts[1]
    assert isinstance(ins, Instruction)
    assert ins.span.file == "x.ptx" and ins.span.line == 9
    assert inner.span.line == 7 and inner.span.end_line == 10
    assert [type(s) for s in fn.body.walk()][:3] == [VarDecl, Block, VarDecl]
    assert isinstance(LabelDef("x"), LabelDef)


# -- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stmt,near,line",
    [
        ("mov.u32 %r1, %r2\nadd.s32 %r1, %r1, %r1;", "add", 8),
        ("mov.u32 %r1 %r2;", "%r2", 7),
        ("mov.f32 %f1, -0f3F800000;", "0f3F800000", 7),
        ("ld.global.u32 %r1, [%rd1-4];", "-", 7),
        ("mov.b32 %r1, 0x;", "x", 7),
    ],
)
def test_syntax_errors(stmt, near, line):
    with pytest.raises(PtxSyntaxError) as ei:
        parse(body(".reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .f32 %f<2>;\n" + stmt))
    assert ei.value.message == f"Parsing error near '{near}': syntax error"
    assert ei.value.span is not None and ei.value.span.line == line


def test_unterminated_comment():
    with pytest.raises(PtxSyntaxError, match="unexpected EOF while scanning"):
        parse(body("/* no end\nret;"))


def test_errors_before_a_syntax_error_are_reported_first():
    d = diagnose(body(".reg .b32 %r<4>;\nadd.f33 %r1, %r2, %r3;\nmov.u32 %r1 %r2;"))
    msgs = [(x.severity, x.message) for x in d]
    assert msgs[0] == (Severity.ERROR, "Unknown modifier '.f33'")
    assert msgs[-1] == (Severity.FATAL, "Parsing error near '%r2': syntax error")


def test_parse_and_check_raises_with_all_diagnostics():
    with pytest.raises(PtxSemanticError) as ei:
        parse_and_check(body(".reg .b32 %r<4>;\nadd.s32 %r1, %r9, %r2;\nfoo.u32 %r1;"))
    msgs = [d.message for d in ei.value.diagnostics]
    assert "Not a name of any known instruction: 'foo'" in msgs
    assert "Unknown symbol '%r9'" in msgs


def test_print_is_stable():
    text = body(".reg .b32 %r<4>;\nadd.s32 %r1, %r2, 0x10;\nret;")
    once = print_module(parse(text))
    assert print_module(parse(once)) == once
