"""Code generation's last step: encode the scheduled functions and lay out the cubin.

Each function's instructions are written as nvdisasm-syntax text and parsed by the ISA's
assembler front end (so the compiler shares the one instruction description with the assembler
and disassembler), encoded, and padded as ptxas pads: after the code a ``BRA`` to itself, then
``NOP``s up to a 128-byte boundary. The code and the function's resource figures then go to the
ELF builder, which lays the cubin out as ptxas does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from openptxas.diag import InternalError
from openptxas.ir.core import (
    RC,
    Addr,
    CBank,
    Control,
    Function,
    Imm,
    ImmKind,
    Instr,
    Label,
    Operand,
    Reg,
    Src,
    SReg,
)
from openptxas.options import Options
from openptxas.ptx import ast
from openptxas.ptx.types import Linkage as PtxLinkage
from openptxas.targets import SMInfo

if TYPE_CHECKING:
    from openptxas.elf.description import GlobalVar
    from openptxas.elf.nvinfo import Attribute

INSTR_BYTES = 16
# Instructions whose immediates nvdisasm prints as floating-point numbers.
FLOAT_IMM_OPS = frozenset(
    {
        "FADD",
        "FMUL",
        "FFMA",
        "FSETP",
        "FMNMX",
        "FSET",
        "FCHK",
        "HADD2",
        "HFMA2",
        "HMUL2",
        "HSETP2",
        "HMNMX2",
        "DADD",
        "DMUL",
        "DFMA",
        "DSETP",
    }
)
CODE_ALIGN = 128


@dataclass
class EncodedFunction:
    name: str
    code: bytes
    exit_offsets: tuple[int, ...]
    text: list[str]
    first_branch: int  # address of the first instruction that ends a block
    branches: tuple[tuple[int, tuple[int, ...]], ...] = ()  # BRX address, target addresses
    const2: bytes | None = None  # jump tables (.nv.constant2.<f>)


# .debug_frame as ptxas 13.0 writes it for a function without a stack frame (observed on the
# corpus; docs/elf.md): the target's fixed CIE (``Abi.frame_cie``), and an FDE that defines the
# CFA (R1 + 0) after the first block and then advances to the last EXIT.
_DEF_CFA = bytes.fromhex("0c8180802800")


def frame_program(first_branch: int, last_exit: int) -> bytes:
    def adv(nbytes: int) -> bytes:
        return b"\x04" + (nbytes // 4).to_bytes(4, "little")  # DW_CFA_advance_loc4, 4-byte units

    if first_branch == last_exit:
        return adv(last_exit) + adv(16) + _DEF_CFA
    return adv(first_branch + 16) + _DEF_CFA + adv(last_exit - first_branch - 16)


# ------------------------------------------------------------------------------ text form


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
    from openptxas.isa.floatfmt import format_float
    from openptxas.isa.model import ImmKind as IsaImmKind

    if isinstance(op, Reg):
        return _reg(op, urz)
    if isinstance(op, Src):
        assert isinstance(op.x, Reg)
        s = _reg(op.x, urz)
        if op.sel:
            s += "." + op.sel
        if op.abs:
            s = f"|{s}|"
        if op.neg:
            s = "-" + s
        if op.inv:
            s = ("!" if op.x.rc in (RC.P, RC.UP) else "~") + s
        return s
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
    raise InternalError(f"codegen: cannot print operand {op!r}")


def instr_text(ins: Instr, urz: int, labels: dict[str, str], *, signed: bool = False) -> str:
    """nvdisasm's text for ``ins``. Integer immediates are printed unsigned, or (``signed``)
    as nvdisasm prints signed fields (``-0x1``); moves print float bit patterns in hex."""
    head = ".".join((ins.op, *ins.mods))

    def fmt(o: Operand) -> str:
        if isinstance(o, Addr) and ins.op == "ATOMG" and "CAS" in ins.mods:
            # nvdisasm prints CAS's 64-bit address without descriptor or .64: [R8+0x4]
            o = Addr(o.base, o.offset)
        if isinstance(o, Imm) and (ins.op not in FLOAT_IMM_OPS or o.kind == ImmKind.INT):
            v = o.value & 0xFFFFFFFF
            return _hex(v - (1 << 32) if signed and v & 0x80000000 else v)
        return _operand(o, urz, labels)

    ops = ", ".join(fmt(o) for o in (*ins.dsts, *ins.srcs))
    g = ""
    if ins.guard is not None:
        assert isinstance(ins.guard.pred, Reg)
        g = f"@{'!' if ins.guard.inv else ''}{_reg(ins.guard.pred, urz)} "
    return f"{g}{head}{' ' + ops if ops else ''} ;"


# ------------------------------------------------------------------------------ encoding


def encode_function(fn: Function, target: SMInfo) -> EncodedFunction:
    from openptxas.isa.asmparse import parse_instruction
    from openptxas.isa.codec import encode_instruction
    from openptxas.isa.family import load_family
    from openptxas.isa.model import Control as IsaControl

    fam = load_family(target.family)
    # Addresses and labels: a block's label is the address of its first instruction.
    labels: dict[str, str] = {}
    label_addr: dict[str, int] = {}
    addr = 0
    for i, b in enumerate(fn.blocks):
        labels[b.name] = f".L_x_{i}"
        label_addr[f".L_x_{i}"] = addr
        addr += INSTR_BYTES * len(b.instrs)
    body: list[Instr] = [ins for b in fn.blocks for ins in b.instrs]
    end = len(body) * INSTR_BYTES
    selfloop = f".L_x_{len(fn.blocks)}"
    label_addr[selfloop] = end
    words: list[int] = []
    text: list[str] = []
    exits: list[int] = []
    first_branch = -1
    branches: list[tuple[int, tuple[int, ...]]] = []
    for k, ins in enumerate(body):
        at = k * INSTR_BYTES
        if ins.op == "BRX":
            line = _brx_text(ins, at, target.urz, labels)
            branches.append((at, tuple(label_addr[labels[t.block]] for t in ins.srcs[1:])))  # type: ignore[union-attr]
        else:
            line = instr_text(ins, target.urz, labels)
        ctrl = ins.ctrl or Control()
        ictrl = IsaControl(
            stall=ctrl.stall, yield_=ctrl.yield_, wr=ctrl.wr_sb, rd=ctrl.rd_sb, wait=ctrl.wait
        )
        try:
            parsed = parse_instruction(line, fam, at, label_addr, ictrl)
        except Exception:
            # signed immediate fields print as -0x1; try that spelling before giving up
            alt = instr_text(ins, target.urz, labels, signed=True)
            try:
                parsed = parse_instruction(alt, fam, at, label_addr, ictrl)
                line = alt
            except Exception as exc:
                raise InternalError(f"codegen: {fn.name}: cannot encode '{line}': {exc}") from None
        word = encode_instruction(parsed, fam, at)
        words.append(word)
        text.append(line)
        if ins.op == "EXIT":
            exits.append(at)
        if first_branch < 0 and ins.op in ("BRA", "EXIT", "BRX", "RET", "CALL", "BREAK"):
            first_branch = at
    # End padding: BRA to itself, then NOPs to the 128-byte boundary (stall 0, as ptxas).
    pad_ctrl = IsaControl(stall=0, yield_=True)
    tail = [(f"BRA `({selfloop}) ;", end)]
    n = len(body) + 1
    while (n * INSTR_BYTES) % CODE_ALIGN:
        tail.append(("NOP ;", n * INSTR_BYTES))
        n += 1
    for line, at in tail:
        parsed = parse_instruction(line, fam, at, label_addr, pad_ctrl)
        words.append(encode_instruction(parsed, fam, at))
        text.append(line)
    code = b"".join(w.to_bytes(16, "little") for w in words)
    const2 = b"".join(
        label_addr[labels[t]].to_bytes(4, "little") for tbl in fn.jump_tables for t in tbl
    )
    return EncodedFunction(
        fn.name, code, tuple(exits), text, first_branch, tuple(branches), const2 or None
    )


def _brx_text(ins: Instr, at: int, urz: int, labels: dict[str, str]) -> str:
    """``BRX R2 -0x190 (*"BRANCH_TARGETS .L_x_6,..."*)``: the register pair holds the target's
    offset in the function, the immediate subtracts the address of the next instruction."""
    reg = ins.srcs[0]
    assert isinstance(reg, Reg)
    names = ",".join(labels[t.block] for t in ins.srcs[1:] if isinstance(t, Label))
    g = ""
    if ins.guard is not None:
        assert isinstance(ins.guard.pred, Reg)
        g = f"@{'!' if ins.guard.inv else ''}{_reg(ins.guard.pred, urz)} "
    return f'{g}BRX {_reg(reg, urz)} {_hex(-(at + INSTR_BYTES))} (*"BRANCH_TARGETS {names}"*) ;'


def build_cubin(
    module: ast.Module,
    compiled: list[tuple[ast.Function, Function]],
    target: SMInfo,
    options: Options,
) -> bytes:
    from openptxas.elf.builder import build
    from openptxas.elf.description import Frame, ModuleDescription
    from openptxas.elf.description import Function as ElfFunction
    from openptxas.elf.description import Param as ElfParam

    funcs = []
    for func, fn in compiled:
        enc = encode_function(fn, target)
        params = tuple(ElfParam(offset=p.offset, size=p.size) for p in fn.params)
        funcs.append(
            ElfFunction(
                name=fn.name,
                entry=func.is_entry,
                code=enc.code,
                registers=fn.registers,
                barriers=fn.barriers,
                params=params,
                param_bytes=func.param_size if params else None,
                shared=fn.shared_static or None,
                shared_align=max(fn.shared_align, 16),
                exit_offsets=enc.exit_offsets,
                min_stack=0,
                # ptxas records CRS_STACK_SIZE 0 for functions with convergence barriers
                crs_stack=0 if any(i.op == "BSSY" for i in fn.instrs()) else None,
                frame=(
                    Frame(
                        target.abi.frame_cie, frame_program(enc.first_branch, enc.exit_offsets[-1])
                    )
                    if enc.exit_offsets
                    else None
                ),
                max_threads=_dims(func.maxntid),
                reqntid=_dims(func.reqntid),
                const2=enc.const2,
                # ptxas makes the (empty) relocation section of the jump-table bank
                const2_reloc_names=("rela",) if enc.const2 else None,
                attributes=_branch_attrs(enc),
            )
        )
    ptx_target = module.target or target.name
    sm = int("".join(ch for ch in ptx_target.split("_")[-1] if ch.isdigit()) or target.sm)
    desc = ModuleDescription(
        target=target.name,
        ptx_target=sm,
        relocatable=False,
        options=_tkinfo_options(options, target),
        functions=tuple(funcs),
        globals=tuple(module_variables(module)),
    )
    return build(desc)


def module_variables(module: ast.Module) -> list[GlobalVar]:
    """The module's .global and .const variables, placed as the lowering addressed them
    (``lower.layout.module_layout``, the one layout both use)."""
    from openptxas.elf.description import GlobalVar, Linkage, Space
    from openptxas.lower.layout import module_layout

    link = {
        None: Linkage.LOCAL,
        PtxLinkage.VISIBLE: Linkage.VISIBLE,
        PtxLinkage.WEAK: Linkage.WEAK,
        PtxLinkage.COMMON: Linkage.COMMON,
        PtxLinkage.EXTERN: Linkage.EXTERN,
    }
    return [
        GlobalVar(
            v.decl.name,
            Space.CONST if v.section == "const" else Space.GLOBAL,
            v.size,
            v.decl.alignment,
            v.init,
            linkage=link[v.decl.linkage],
            offset=v.offset,
        )
        for v in module_layout(module)
    ]


def _branch_attrs(enc: EncodedFunction) -> tuple[Attribute, ...]:
    from openptxas.elf.nvinfo import EIATTR, Attribute, Fmt, IndirectBranch, IndirectBranchTargets

    if not enc.branches:
        return ()
    value = IndirectBranchTargets(tuple(IndirectBranch(a, 0, t) for a, t in enc.branches))
    return (Attribute(Fmt.SVAL, EIATTR.INDIRECT_BRANCH_TARGETS, value),)


def _dims(v: tuple[int, ...] | None) -> tuple[int, int, int] | None:
    if not v:
        return None
    vals = [*v, 1, 1][:3]
    return (vals[0], vals[1], vals[2])


def _tkinfo_options(options: Options, target: SMInfo) -> str:
    """The command line as ptxas records it in .note.nv.tkinfo (``-v  -arch sm_90 ``)."""
    parts = []
    if options.verbose:
        parts.append("-v ")
    parts.append(f"-arch {target.name} ")
    if options.opt_level != 3:
        parts.append(f"-O{options.opt_level} ")
    return " ".join(parts) if not options.verbose else "-v  " + " ".join(parts[1:])
