"""Relocatable output (``-c``): symbol addresses as ptxas 13.0.88 writes them in a ``-c`` object
for sm_90 (observed with ``scripts/link_probe.py --show``).

In whole-program mode the address of a ``.global`` variable or of a function the driver resolves
(``vprintf``) is read from the address table, ``LDC.64 R, c[0x4][slot]`` (lower.context,
lower.extcalls). A ``-c`` object has no address table: ptxas materialises the address in two
moves whose immediates the linker (nvlink) or the driver fills in::

    UMOV UR4, 32@lo(gcount)      R_CUDA_ABS32_LO_32 gcount
    UMOV UR5, 32@hi(gcount)      R_CUDA_ABS32_HI_32 gcount

openptxas lowers both modes the same way (the slot loads) and, under ``-c``, rewrites each slot
load after scheduling and before the control codes (:func:`expand_symbol_addresses`): a
``LDC.64 Rd`` becomes ``MOV Rd`` / ``MOV Rd+1``, a ``ULDC.64 URd`` (the uniform pass moved it)
``UMOV URd`` / ``UMOV URd+1``; the relocations are recorded by instruction (``Function.
code_relocs``) and placed by code offset when the cubin is built (codegen).

Slots: the address table's (``extcalls.pic_slots``), then one per ``.extern .global`` variable
(``address_slots``): their loads only exist under ``-c`` (whole program: refused, as ptxas
cannot compile them either).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import RC, CBank, Function, Imm, Instr, Reg
from openptxas.ptx import ast
from openptxas.ptx.types import Linkage, StateSpace

if TYPE_CHECKING:
    from openptxas.targets import SMInfo

R_CUDA_ABS32_LO_32 = 56
R_CUDA_ABS32_HI_32 = 57
R_CUDA_FUNC_DESC32_LO_32 = 62
R_CUDA_FUNC_DESC32_HI_32 = 63
FDESC_PREFIX = "fdesc:"  # (lower.reldata: a slot holding a kernel's function descriptor)


def extern_globals(module: ast.Module) -> list[str]:
    """The module's ``.extern .global`` variables (declared, defined elsewhere), in order."""
    defined = {
        it.name
        for it in module.items
        if isinstance(it, ast.VarDecl) and it.linkage is not Linkage.EXTERN
    }
    out: list[str] = []
    for it in module.items:
        if (
            isinstance(it, ast.VarDecl)
            and it.space is StateSpace.GLOBAL
            and it.linkage is Linkage.EXTERN
            and it.name not in defined
            and it.name not in out
        ):
            out.append(it.name)
    return out


def address_slots(module: ast.Module, slots: dict[str, int]) -> dict[str, int]:
    """``slots`` (the address table's) and a slot after them for each extern variable and each
    external function only device functions call (``-c``: their own code calls it)."""
    from openptxas.lower.extcalls import module_externs

    out = dict(slots)
    end = max(slots.values(), default=-8) + 8
    called = [x for f in module.functions if f.body is not None for x in module_externs(module, f)]
    for name in [*extern_globals(module), *called]:
        if name not in out:
            out[name] = end
            end += 8
    return out


def expand_symbol_addresses(fn: Function) -> None:
    """Rewrite every address-table load of ``fn`` (allocated, scheduled) into the relocated
    move pair of a ``-c`` object. Any other use of constant bank 4 is refused."""
    for b in fn.blocks:
        out: list[Instr] = []
        for ins in b.instrs:
            moved = _data_move(fn, ins)
            if moved is not None:
                out.append(moved)
                continue
            slot = _slot_load(ins)
            if slot is None:
                if any(isinstance(s, CBank) and s.bank == 4 for s in ins.srcs):
                    raise UnsupportedFeature(
                        f"relocatable output (-c): the address-table operand of '{ins}' is not "
                        "supported by openptxas yet"
                    )
                out.append(ins)
                continue
            name = fn.symbol_slots.get(slot)
            lo_type, hi_type = R_CUDA_ABS32_LO_32, R_CUDA_ABS32_HI_32
            if name is not None and name.startswith(FDESC_PREFIX):  # lower/reldata.py
                name = name[len(FDESC_PREFIX) :]
                lo_type, hi_type = R_CUDA_FUNC_DESC32_LO_32, R_CUDA_FUNC_DESC32_HI_32
            if name is None:
                raise UnsupportedFeature(
                    f"relocatable output (-c): constant bank 4 offset {slot:#x} names no symbol"
                )
            d = ins.dsts[0]
            assert isinstance(d, Reg)
            op = "UMOV" if d.rc == RC.UR else "MOV"
            lo = Instr(op, (), [Reg(d.rc, d.index)], [Imm(0)], guard=ins.guard, line=ins.line)
            hi = Instr(op, (), [Reg(d.rc, d.index + 1)], [Imm(0)], guard=ins.guard, line=ins.line)
            fn.code_relocs.append((lo.uid, lo_type, name, 0))
            fn.code_relocs.append((hi.uid, hi_type, name, 0))
            out += [lo, hi]
        b.instrs = out


def _data_move(fn: Function, ins: Instr) -> Instr | None:
    """A 32-bit slot load of a shared or constant variable's offset (lower/reldata.py) as the
    relocated move that replaces it, else None."""
    from openptxas.lower.reldata import (
        CONST_PREFIX,
        R_CUDA_ABS16_32,
        R_CUDA_ABS32_32,
        SHARED_PREFIX,
    )

    if ins.op not in ("LDC", "ULDC") or ins.mods or len(ins.srcs) != 1:
        return None
    s = ins.srcs[0]
    if not isinstance(s, CBank) or s.bank != 4 or s.reg is not None:
        return None
    name = fn.symbol_slots.get(s.offset, "")
    if name.startswith(SHARED_PREFIX):
        sym, kind = name[len(SHARED_PREFIX) :], R_CUDA_ABS32_32
    elif name.startswith(CONST_PREFIX):
        sym, kind = name[len(CONST_PREFIX) :], R_CUDA_ABS16_32
    else:
        return None
    d = ins.dsts[0]
    assert isinstance(d, Reg)
    op = "UMOV" if d.rc == RC.UR else "MOV"
    mov = Instr(op, (), [d], [Imm(0)], guard=ins.guard, line=ins.line)
    fn.code_relocs.append((mov.uid, kind, sym, 0))
    return mov


def _slot_load(ins: Instr) -> int | None:
    if ins.op not in ("LDC", "ULDC") or ins.mods != ("64",) or len(ins.srcs) != 1:
        return None
    s = ins.srcs[0]
    if not isinstance(s, CBank) or s.bank != 4 or s.reg is not None:
        return None
    return s.offset


def relocation_offsets(fn: Function) -> list[tuple[int, int, str, int]]:
    """``fn.code_relocs`` as (code offset, type, symbol, addend), in code order."""
    where: dict[int, int] = {}
    at = 0
    for ins in fn.instrs():
        where[ins.uid] = at
        at += 16
    return sorted((where[uid], t, sym, a) for uid, t, sym, a in fn.code_relocs)


def whole_program_check(fn: Function, module: ast.Module) -> None:
    """Whole program: an extern variable must be defined by the program (ptxas 13.0.88 warns
    'Unresolved extern variable' and then crashes)."""
    ext = set(extern_globals(module))
    for ins in fn.instrs():
        slot = _slot_load(ins)
        name = fn.symbol_slots.get(slot) if slot is not None else None
        if name in ext:
            raise UnsupportedFeature(
                f"extern variable '{name}' in whole program compilation (use -c and link with "
                "nvlink)"
            )


def call_target(target: SMInfo) -> SMInfo:
    """``target`` with the registers a call to another object's function may change: besides
    the whole-program set (``Abi.call_clobbers_r``), R32 and up (ptxas's -c callees use
    R32-R35, R40-R43, ... without saving them; observed with scripts/link_probe.py)."""
    from dataclasses import replace

    abi = target.abi
    return replace(target, abi_=replace(abi, call_clobbers_r=(*abi.call_clobbers_r, (32, 254))))


def shared_variable(module: ast.Module) -> ast.VarDecl | None:
    """The first ``.shared`` variable of the module or of a function body, if any."""

    def walk(b: ast.Block) -> ast.VarDecl | None:
        for st in b.stmts:
            if isinstance(st, ast.Block):
                got = walk(st)
                if got is not None:
                    return got
            elif isinstance(st, ast.VarDecl) and st.space in (
                StateSpace.SHARED,
                StateSpace.SHARED_CTA,
            ):
                return st
        return None

    for it in module.items:
        if isinstance(it, ast.VarDecl) and it.space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
            return it
        if isinstance(it, ast.Function) and it.body is not None:
            got = walk(it.body)
            if got is not None:
                return got
    return None
