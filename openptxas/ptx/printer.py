"""Print an AST back as PTX text (``python -m openptxas.ptx FILE --print``).

The output re-parses to an equal AST: ``parse(print_module(parse(x))) == parse(x)``. Immediates
are printed exactly (floats as ``0f``/``0d`` bit patterns), constant expressions as their value.
"""

from __future__ import annotations

from openptxas.ptx.ast import (
    Address,
    AddressSizeDirective,
    Alias,
    ArgList,
    Block,
    BranchTargets,
    CallPrototype,
    CallTargets,
    DataDirective,
    FileDirective,
    FloatImm,
    Function,
    Init,
    InitFields,
    InitList,
    Instruction,
    IntImm,
    Label,
    LabelDef,
    Loc,
    MemList,
    Module,
    ModuleItem,
    Not,
    Operand,
    Pair,
    Param,
    Pragma,
    PtrAttr,
    Reg,
    Section,
    Sink,
    SpecialReg,
    Stmt,
    Sym,
    SymInit,
    TargetDirective,
    VarDecl,
    Vector,
    VersionDirective,
)


def print_module(m: Module) -> str:
    """The whole module as PTX text."""
    out: list[str] = []
    for it in m.items:
        out.append(print_item(it))
    return "\n".join(out) + "\n"


def print_item(it: ModuleItem) -> str:
    if isinstance(it, VersionDirective):
        return f".version {it.major}.{it.minor}"
    if isinstance(it, TargetDirective):
        return ".target " + ", ".join(it.targets)
    if isinstance(it, AddressSizeDirective):
        return f".address_size {it.bits}"
    if isinstance(it, FileDirective):
        s = f".file {it.index} {_quote(it.name)}"
        if it.timestamp is not None:
            s += f", {it.timestamp}, {it.size}"
        return s
    if isinstance(it, Section):
        lines = [f".section {it.name}", "{"]
        for e in it.entries:
            if isinstance(e, LabelDef):
                lines.append(f"{e.name}:")
            else:
                lines.append(_data(e))
        lines.append("}")
        return "\n".join(lines)
    if isinstance(it, Alias):
        return f".alias {it.alias}, {it.target};"
    if isinstance(it, Pragma):
        return _pragma(it.values)
    if isinstance(it, VarDecl):
        return print_decl(it)
    return print_function(it)


def _data(d: DataDirective) -> str:
    vals: list[str] = []
    for v in d.values:
        if isinstance(v, int):
            vals.append(str(v))
        elif isinstance(v[1], str):
            vals.append(f"{v[0]}-{v[1]}")
        elif v[1]:
            vals.append(f"{v[0]}+{v[1]}")
        else:
            vals.append(v[0])
    return f".{d.type} " + ", ".join(vals)


def _pragma(values: tuple[str, ...]) -> str:
    return ".pragma " + ", ".join(_quote(v) for v in values) + ";"


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _ptr(p: PtrAttr) -> str:
    s = " .ptr"
    if p.space is not None:
        s += f" .{p.space}"
    if p.align is not None:
        s += f" .align {p.align}"
    return s


def _dims(dims: tuple[int | None, ...]) -> str:
    return "".join(f"[{d}]" if d is not None else "[]" for d in dims)


def print_decl(d: VarDecl) -> str:
    s = f".{d.linkage} " if d.linkage is not None else ""
    s += f".{d.space}"
    if d.attrs:
        s += " .attribute(" + ", ".join(f".{a}" for a in d.attrs) + ")"
    if d.align is not None:
        s += f" .align {d.align}"
    if d.vec:
        s += f" .v{d.vec}"
    s += f" .{d.type}"
    if d.ptr is not None:
        s += _ptr(d.ptr)
    s += f" {d.name}"
    if d.count:
        s += f"<{d.count}>"
    s += _dims(d.dims)
    if d.init is not None:
        s += " = " + print_init(d.init)
    return s + ";"


def print_init(i: Init) -> str:
    if isinstance(i, InitList):
        return "{" + ", ".join(print_init(x) for x in i.items) + "}"
    if isinstance(i, InitFields):
        return "{" + ", ".join(f"{k} = {v}" for k, v in i.items) + "}"
    if isinstance(i, SymInit):
        if i.mask is not None:
            return f"{i.mask:#x}({i.name})"
        s = f"generic({i.name})" if i.generic else i.name
        if i.offset:
            s += f"+{i.offset}" if i.offset > 0 else f"-{-i.offset}"
        return s
    return _imm(i)


def _imm(i: IntImm | FloatImm) -> str:
    if isinstance(i, IntImm):
        return str(i.value)
    if i.width == 32:
        return f"0f{i.bits:08X}"
    return f"0d{i.bits:016X}"


def print_param(p: Param) -> str:
    s = f".{p.space}"
    if p.align is not None:
        s += f" .align {p.align}"
    if p.vec:
        s += f" .v{p.vec}"
    s += f" .{p.type}"
    if p.ptr is not None:
        s += _ptr(p.ptr)
    return s + f" {p.name}" + _dims(p.dims)


def _params(ps: tuple[Param, ...]) -> str:
    if not ps:
        return "()"
    return "(\n\t" + ",\n\t".join(print_param(p) for p in ps) + "\n)"


def print_function(f: Function) -> str:
    s = f".{f.linkage} " if f.linkage is not None else ""
    s += f".{f.kind}"
    if f.attrs:
        s += " .attribute(" + ", ".join(f".{a}" for a in f.attrs) + ")"
    if f.rets:
        s += " " + _params(f.rets)
    s += f" {f.name}"
    s += _params(f.params)
    lines = [s]
    for d in f.directives:
        if d.name == "pragma":
            lines.append(_pragma(tuple(str(v) for v in d.values)))
        elif d.values:
            lines.append(f".{d.name} " + ", ".join(str(v) for v in d.values))
        else:
            lines.append(f".{d.name}")
    if f.body is None:
        lines.append(";")
    else:
        lines.append(_block(f.body, 0))
    return "\n".join(lines)


def _block(b: Block, depth: int) -> str:
    ind = "\t" * depth
    lines = [ind + "{"]
    for s in b.stmts:
        lines.append(print_stmt(s, depth + 1))
    lines.append(ind + "}")
    return "\n".join(lines)


def print_stmt(s: Stmt, depth: int = 1) -> str:
    ind = "\t" * depth
    if isinstance(s, Instruction):
        return ind + print_instruction(s)
    if isinstance(s, LabelDef):
        return f"{s.name}:"
    if isinstance(s, VarDecl):
        return ind + print_decl(s)
    if isinstance(s, Block):
        return _block(s, depth)
    if isinstance(s, Loc):
        t = f"{ind}.loc {s.file} {s.line} {s.col}"
        if s.function_name is not None:
            t += f", function_name {s.function_name}"
            if s.function_name_offset:
                t += f"+{s.function_name_offset}"
        if s.inlined_at is not None:
            t += ", inlined_at {} {} {}".format(*s.inlined_at)
        return t
    if isinstance(s, Pragma):
        return ind + _pragma(s.values)
    if isinstance(s, CallPrototype):
        t = f"{s.label}: .callprototype "
        if s.rets:
            t += _inline_params(s.rets) + " "
        t += "_ " + _inline_params(s.params)
        if s.noreturn:
            t += " .noreturn"
        return t + ";"
    if isinstance(s, BranchTargets):
        return f"{s.label}: .branchtargets " + ", ".join(s.targets) + ";"
    assert isinstance(s, CallTargets)
    return f"{s.label}: .calltargets " + ", ".join(s.targets) + ";"


def _inline_params(ps: tuple[Param, ...]) -> str:
    return "(" + ", ".join(print_param(p) for p in ps) + ")"


def print_instruction(i: Instruction) -> str:
    s = ""
    if i.guard is not None:
        s = f"@{'!' if i.guard.negated else ''}{i.guard.reg} "
    s += i.name
    if i.operands:
        s += " " + ", ".join(print_operand(o) for o in i.operands)
    return s + ";"


def print_operand(o: Operand) -> str:
    if isinstance(o, (Reg, SpecialReg)):
        return o.name + (f".{o.comp}" if o.comp else "")
    if isinstance(o, (IntImm, FloatImm)):
        return _imm(o)
    if isinstance(o, Sym):
        return o.name + (f"+{o.offset}" if o.offset > 0 else f"-{-o.offset}" if o.offset else "")
    if isinstance(o, Label):
        return o.name
    if isinstance(o, Address):
        if o.base is None:
            return f"[{o.offset}]"
        base = o.base.name
        return f"[{base}+{o.offset}]" if o.offset else f"[{base}]"
    if isinstance(o, Vector):
        return "{" + ", ".join(print_operand(x) for x in o.items) + "}"
    if isinstance(o, Pair):
        return f"{print_operand(o.first)}|{print_operand(o.second)}"
    if isinstance(o, Not):
        return ("-" if o.arith else "!") + print_operand(o.operand)
    if isinstance(o, Sink):
        return "_"
    if isinstance(o, ArgList):
        return "(" + ", ".join(print_operand(x) for x in o.items) + ")"
    assert isinstance(o, MemList)
    return "[" + ", ".join(print_operand(x) for x in o.items) + "]"
