"""Text form of the IR: ``--dump-phase``, the per-pass golden tests, ``openptxas.tools.runpass``.

The text is unambiguous: ``openptxas.ir.reader`` parses it back into the same ``Function``, and
print -> read -> print gives the same text. The format::

    .entry vec_add                                  .entry / .func, then function state:
        .param vec_add_param_0 offset=0 size=8 align=8
        .next_vreg 26                               every other Function field that differs from
        .shared_static 256                          its default, as a Python literal
        .jump_table $L__BB0_3, $L__BB0_4            one per brx.idx table, in order
        .maxnreg 40                                 (typed fields: maxnreg, registers, ...)
    .L_entry:                                       // succs: .L_b1, $L__BB0_2   (derived, ignored)
        %r3 = LDC c[0x0][0x228]  ; line=12
        %p11, PT = ISETP.GE.AND %r10, %r3, PT       destinations '=' opcode sources
        @%p11 BRA `($L__BB0_2)                      guard first; no '=' when there is no destination
        [B------:R-:W0:-:S01]  R1 = LDC c[0x0][0x28]   control codes first, when set

Operands: virtual registers ``%r12``, ``%r12x2`` (width 2), ``%ur3``, ``%p4``, ``%up5``, ``%b6``;
a part of a wide one ``%r12x2.1``, ``%r12x4.0:2``; physical ``R5``, ``R4x2`` (a pair), ``RZ``,
``UR4``, ``URZ`` (UR255, the passes' target-independent spelling), ``P0``, ``PT``, ``UP0``,
``UPT``, ``B0``; source modifiers ``-x``, ``|x|``, ``!p``/``~x``,
``x.H1`` (a modifier-less source wrapper: ``+x``); immediates ``0x4``, ``-0x1``, ``f32:0x3f800000``,
``f64:0x3ff00000``, ``f16x2:0x3c003c00``; ``c[0x0][0x210]``, ``c[0x0][%r3+0x10]``; addresses
``desc[%ur4x2][%r2x2.64+%ur6+0x10]`` (``_`` for an absent base before a uniform base);
``SR_TID.X``; branch targets ``\\`(label)``. After ``;``: ``contract`` (a mul/add FmaContraction
may fuse), ``fence`` (FmaContraction does not fuse a product across it) and ``line=N`` (the PTX
source line). ``//`` starts a comment.
"""

from __future__ import annotations

import dataclasses
import re

from openptxas.ir.core import (
    RC,
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
    Part,
    Reg,
    RegLike,
    Src,
    SReg,
    VReg,
    successors,
)

# Function fields with their own syntax (the header, blocks, params, jump tables, attrs).
SPECIAL_FIELDS = frozenset({"name", "blocks", "is_entry", "params", "jump_tables", "attrs"})
_SREG_NAME = re.compile(r"^SR_[A-Za-z0-9_.]+$")
IMM_PREFIX = {ImmKind.F32: "f32", ImmKind.F64: "f64", ImmKind.F16X2: "f16x2"}


def format_reg(r: RegLike) -> str:
    if isinstance(r, VReg):
        w = "" if r.width == 1 else f"x{r.width}"
        return f"%{r.rc.prefix.lower()}{r.id}{w}"
    if isinstance(r, Part):
        end = "" if r.n == 1 else f":{r.k + r.n}"
        return f"{format_reg(r.v)}.{r.k}{end}"
    w = "" if r.width == 1 else f"x{r.width}"
    if r.rc in (RC.R, RC.UR) and r.index == 255:
        return f"{r.rc.prefix}Z{w}"
    if r.rc in (RC.P, RC.UP) and r.index == 7:
        return f"{r.rc.prefix}T{w}"
    return f"{r.rc.prefix}{r.index}{w}"


def signed_hex(v: int) -> str:
    return hex(v) if v >= 0 else f"-{hex(-v)}"


def format_imm(x: Imm) -> str:
    if x.kind == ImmKind.INT:
        return signed_hex(x.value)
    return f"{IMM_PREFIX[x.kind]}:{signed_hex(x.value)}"


def format_src(s: Src) -> str:
    t = format_reg(s.x)
    if s.sel:
        t += "." + s.sel
    if s.abs:
        t = f"|{t}|"
    if s.neg:
        t = "-" + t
    if s.inv:
        t = ("!" if _rc(s.x).is_pred else "~") + t
    if not (s.sel or s.abs or s.neg or s.inv):
        t = "+" + t
    return t


def _rc(x: RegLike) -> RC:
    return x.v.rc if isinstance(x, Part) else x.rc


def format_addr(a: Addr) -> str:
    items: list[str] = []
    wide = ".64" if a.wide else ""
    if a.base is not None:
        items.append(format_reg(a.base) + wide)
    elif a.ubase is not None or a.wide:
        items.append("_" + wide)
    if a.ubase is not None:
        items.append(format_reg(a.ubase))
    text = "+".join(items)
    if a.offset or not items:
        off = signed_hex(a.offset)
        text += off if not items or a.offset < 0 else "+" + off
    s = f"[{text}]"
    return f"desc[{format_reg(a.desc)}]{s}" if a.desc is not None else s


def format_operand(op: Operand) -> str:
    if isinstance(op, VReg | Part | Reg):
        return format_reg(op)
    if isinstance(op, Src):
        return format_src(op)
    if isinstance(op, Imm):
        return format_imm(op)
    if isinstance(op, CBank):
        if op.reg is None:
            inner = signed_hex(op.offset)
        else:
            off = signed_hex(op.offset)
            inner = format_reg(op.reg) + (off if op.offset < 0 else "+" + off)
        return f"c[{signed_hex(op.bank)}][{inner}]"
    if isinstance(op, Addr):
        return format_addr(op)
    if isinstance(op, SReg):
        return op.name if _SREG_NAME.match(op.name) else f"sreg{op.name!r}"
    if isinstance(op, Label):
        return f"`({op.block})"
    raise TypeError(f"not an IR operand: {op!r}")


def format_control(c: Control) -> str:
    """The control field as ``Control.__str__`` (isa.control) writes it; operand-reuse flags
    are not modelled (ir.core.Control)."""
    return str(c)


def format_guard(g: Guard) -> str:
    return f"@{'!' if g.inv else ''}{format_reg(g.pred)}"


def format_instr(ins: Instr) -> str:
    """One instruction, without indentation."""
    parts: list[str] = []
    if ins.ctrl is not None:
        parts.append(format_control(ins.ctrl) + " ")
    if ins.guard is not None:
        parts.append(format_guard(ins.guard))
    if ins.dsts:
        parts.append(", ".join(format_operand(d) for d in ins.dsts) + " =")
    parts.append(".".join((ins.op, *ins.mods)))
    if ins.srcs:
        parts.append(", ".join(format_operand(s) for s in ins.srcs))
    text = " ".join(parts)
    notes = []
    if ins.contract:
        notes.append("contract")
    if ins.contract_fence:
        notes.append("fence")
    if ins.line:
        notes.append(f"line={ins.line}")
    if notes:
        text += "  ; " + " ".join(notes)
    return text


def _edges(fn: Function) -> list[tuple[list[str], list[str]]]:
    """Each block's predecessors and successors by name (a comment: the reader derives them)."""
    n = len(fn.blocks)
    succ: list[list[int]] = []
    for i in range(n):
        try:
            succ.append(successors(fn, i))
        except KeyError:  # a branch to an unknown block: the verifier reports it
            succ.append([])
    pred: list[list[int]] = [[] for _ in range(n)]
    for i, ss in enumerate(succ):
        for s in ss:
            pred[s].append(i)
    names = [b.name for b in fn.blocks]
    return [([names[p] for p in pred[i]], [names[s] for s in succ[i]]) for i in range(n)]


def _field_lines(fn: Function) -> list[str]:
    lines: list[str] = []
    for p in fn.params:
        lines.append(f".param {p.name} offset={p.offset} size={p.size} align={p.align}")
    for f in dataclasses.fields(fn):
        if f.name in SPECIAL_FIELDS or f.name.startswith("debug_"):
            continue  # (debug_*: what -g records for openptxas.debuginfo, not the program)
        value = getattr(fn, f.name)
        if f.default is not dataclasses.MISSING:
            default: object = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        if value != default:
            lines.append(f".{f.name} {value!r}")
    for table in fn.jump_tables:
        lines.append(f".jump_table {', '.join(table)}")
    return lines


def format_block(b: Block, preds: list[str], succs: list[str]) -> list[str]:
    edges = []
    if preds:
        edges.append("preds: " + ", ".join(preds))
    if succs:
        edges.append("succs: " + ", ".join(succs))
    head = f"{b.name}:"
    if edges:
        head = f"{head:<24}// {'  '.join(edges)}"
    return [head] + [f"    {format_instr(ins)}" for ins in b.instrs]


def format_function(fn: Function) -> str:
    kind = ".entry" if fn.is_entry else ".func"
    lines = [f"{kind} {fn.name}"]
    lines += [f"    {t}" for t in _field_lines(fn)]
    for b, (preds, succs) in zip(fn.blocks, _edges(fn), strict=True):
        lines += format_block(b, preds, succs)
    return "\n".join(lines) + "\n"


def format_functions(fns: list[Function], target: str | None = None) -> str:
    """A whole IR file: an optional ``.target`` line, then the functions."""
    head = f".target {target}\n" if target else ""
    return head + "\n".join(format_function(fn) for fn in fns)
