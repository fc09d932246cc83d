"""Relocatable output (``-c``): ``.shared`` and ``.const`` variables as ptxas 13.0.88 writes them
in an sm_90 object (observed with ``python scripts/link_probe.py --show shared`` / ``consts`` /
``shared_module`` / ``consts_extern``; docs/elf.md, "Relocatable output").

The linker (nvlink) places both kinds, so the object's code carries relocations, not offsets:

- a shared variable's offset in the kernel's shared window is the immediate of a ``UMOV``
  (``R_CUDA_ABS32_32``, type 55); the code adds the window base (``0x400`` on sm_90) and the
  CTA's rank in its cluster (``ULEA .., SR_CgaCtaId, .., 0x18``) as in whole-program code.
  Variables declared in a kernel's body are local symbols ``$__<name>__<n>`` of its
  ``.nv.shared.<kernel>``; module-scope ones are symbols of ``.nv_debug.shared``; an
  ``.extern .shared`` (dynamic) variable is an undefined global symbol. Every one is an
  ``STT_CUDA_OBJECT`` (13) with ``STO_CUDA_SHARED`` (0x40) whose value is its alignment, not an
  offset (nvlink lays them out, kernel by kernel);
- a kernel's address (a function descriptor, for device-side launches) is a move pair with
  ``R_CUDA_FUNC_DESC32_LO_32``/``HI_32`` (62/63), which nvlink leaves for the driver;
- a constant-bank operand ``c[0x3][off]`` of ``LDC``/``ULDC`` carries
  ``R_CUDA_CONST_FIELD21_38`` (66) against the variable plus the offset within it (the field,
  bank and offset, holds the bank and offset 0 before linking); the address of a constant
  variable is the immediate of a move (``R_CUDA_ABS16_32``, 59). ``.nv.constant3`` holds the
  object's variables (``STO_CUDA_CONSTANT``, 0x80) and nvlink merges the banks of all objects.

openptxas lowers both through "slot loads" that the passes leave alone (as it does for the
addresses of ``.global`` variables: lower.relocs): a 32-bit ``LDC``/``ULDC`` of constant bank 4
at a slot from :data:`SLOT_BASE` on, which :func:`openptxas.lower.relocs.expand_symbol_addresses`
rewrites after scheduling into the relocated move. The bank-3 operands keep their whole-program
offsets through the passes and :func:`relocate_constants` turns them into relocations when the
code is encoded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import CBank, Function, VReg
from openptxas.lower.relocs import FDESC_PREFIX  # ... (64 bits) a kernel's function descriptor
from openptxas.ptx import ast
from openptxas.ptx.types import Linkage, StateSpace

if TYPE_CHECKING:
    from openptxas.lower.context import LowerCtx

R_CUDA_ABS32_32 = 55
R_CUDA_ABS16_32 = 59
R_CUDA_CONST_FIELD21_38 = 66

SLOT_BASE = 0xE000  # pseudo address-table slots of the 32-bit relocated moves (never encoded)
SHARED_PREFIX = "shared:"  # fn.symbol_slots names: the slot holds a shared variable's offset
CONST_PREFIX = "const:"  # ... a constant variable's offset in bank 3
_EXTERN_CONST_SPAN = 0x100  # pseudo bank-3 room of an unsized extern constant array

_SHARED = (StateSpace.SHARED, StateSpace.SHARED_CTA)


@dataclass(frozen=True, slots=True)
class DataSymbol:
    """A shared or constant variable a ``-c`` object's code refers to by relocation."""

    decl: ast.VarDecl
    func: str | None  # the function whose body declares it (None: module scope)
    symbol: str  # its ELF symbol
    slot: int  # the pseudo slot of its relocated move

    @property
    def shared(self) -> bool:
        return self.decl.space in _SHARED

    @property
    def extern(self) -> bool:
        return self.decl.linkage is Linkage.EXTERN


def _body_decls(b: ast.Block) -> list[ast.VarDecl]:
    out: list[ast.VarDecl] = []
    for st in b.stmts:
        if isinstance(st, ast.Block):
            out += _body_decls(st)
        elif isinstance(st, ast.VarDecl) and st.space in _SHARED:
            out.append(st)
    return out


def data_symbols(module: ast.Module) -> list[DataSymbol]:
    """Every shared and constant variable of the module, in declaration order (module scope
    first, then each function body's shared variables), each with its symbol and slot."""
    out: list[DataSymbol] = []
    seen: set[str] = set()
    for g in module.globals:
        if (g.space in _SHARED or g.space is StateSpace.CONST) and g.name not in seen:
            seen.add(g.name)
            out.append(DataSymbol(g, None, g.name, SLOT_BASE + 4 * len(out)))
    for f in module.functions:
        if f.body is None:
            continue
        for v in _body_decls(f.body):
            # ptxas names a function's shared variable $__<name>__<n> (n: its own counter)
            sym = f"$__{v.name}__{len(out)}"
            out.append(DataSymbol(v, f.name, sym, SLOT_BASE + 4 * len(out)))
    return out


def symbol_for(module: ast.Module, func: str, name: str) -> DataSymbol | None:
    """The data symbol ``name`` means in ``func``'s body: its own shared variable, else the
    module's."""
    syms = data_symbols(module)
    for s in syms:
        if s.func == func and s.decl.name == name:
            return s
    for s in syms:
        if s.func is None and s.decl.name == name:
            return s
    return None


def kernel_slots(module: ast.Module) -> dict[str, int]:
    """The pseudo slot of each kernel's function descriptor (64 bits: a slot load as a
    variable's address, relocated with ``R_CUDA_FUNC_DESC32_LO_32``/``HI_32``)."""
    base = SLOT_BASE + 4 * len(data_symbols(module))
    base = (base + 7) // 8 * 8
    names = list(dict.fromkeys(f.name for f in module.functions if f.is_entry))
    return {name: base + 8 * k for k, name in enumerate(names)}


def slot_names(module: ast.Module) -> dict[int, str]:
    """The pseudo slots, as ``Function.symbol_slots`` entries: ``shared:<symbol>``,
    ``const:<symbol>`` or ``fdesc:<kernel>``."""
    out = {
        s.slot: (SHARED_PREFIX if s.shared else CONST_PREFIX) + s.symbol
        for s in data_symbols(module)
    }
    out.update({slot: FDESC_PREFIX + name for name, slot in kernel_slots(module).items()})
    return out


def check_function(module: ast.Module, func: ast.Function) -> None:
    """What ``-c`` does not support yet for ``func``'s shared variables: a device function's
    own, and a dynamic (``.extern``) one declared in a body (ptxas's places for them are not
    observed)."""
    if func.body is None:
        return
    for v in _body_decls(func.body):
        if not func.is_entry:
            raise UnsupportedFeature(
                f"relocatable output (-c): shared variable '{v.name}' declared in device "
                f"function '{func.name}' is not supported by openptxas yet",
                v.span,
            )
        if v.linkage is Linkage.EXTERN:
            raise UnsupportedFeature(
                f"relocatable output (-c): extern shared variable '{v.name}' declared in a "
                "kernel's body is not supported by openptxas yet",
                v.span,
            )


def extern_const_offsets(module: ast.Module, end: int) -> dict[str, int]:
    """Pseudo bank-3 offsets of the ``.extern .const`` variables, after the module's own (from
    ``end``): :func:`relocate_constants` finds the variable of an operand by its offset."""
    out: dict[str, int] = {}
    at = end
    for g in module.globals:
        if g.space is StateSpace.CONST and g.linkage is Linkage.EXTERN and g.name not in out:
            at = (at + 15) // 16 * 16
            out[g.name] = at
            at += g.size or _EXTERN_CONST_SPAN
    return out


def _const_ranges(module: ast.Module) -> list[tuple[int, int, str]]:
    from openptxas.lower.layout import module_layout

    layout = [v for v in module_layout(module) if v.section == "const" and v.offset is not None]
    out = [(v.offset, v.size, v.decl.name) for v in layout if v.offset is not None]
    end = max((o + n for o, n, _ in out), default=0)
    sizes = {g.name: g.size or _EXTERN_CONST_SPAN for g in module.globals}
    out += [(o, sizes[n], n) for n, o in extern_const_offsets(module, end).items()]
    return out


def relocate_constants(fn: Function, module: ast.Module) -> None:
    """``-c``, before encoding: each ``c[0x3][off]`` operand (no index register) becomes
    ``c[0x3][0x0]`` with an ``R_CUDA_CONST_FIELD21_38`` relocation against the variable at
    ``off``, the offset within it the addend."""
    ranges = _const_ranges(module)
    for ins in fn.instrs():
        for k, s in enumerate(ins.srcs):
            if not isinstance(s, CBank) or s.bank != 3 or s.reg is not None:
                continue
            if ins.op not in ("LDC", "ULDC"):
                raise UnsupportedFeature(
                    f"relocatable output (-c): constant bank 3 operand of '{ins}' is not "
                    "supported by openptxas yet"
                )
            hit = [(o, n) for o, size, n in ranges if o <= s.offset < o + max(size, 1)]
            if not hit:
                raise UnsupportedFeature(
                    f"relocatable output (-c): constant bank 3 offset {s.offset:#x} names no "
                    "variable"
                )
            at, name = hit[0]
            ins.srcs[k] = CBank(3, 0)
            fn.code_relocs.append((ins.uid, R_CUDA_CONST_FIELD21_38, name, s.offset - at))


def shared_layout(decls: list[ast.VarDecl]) -> tuple[int, int]:
    """Bytes and alignment of shared variables placed in order, each at its alignment."""
    at, align = 0, 1
    for v in decls:
        a = v.alignment
        at = (at + a - 1) // a * a + v.size
        align = max(align, a)
    return at, align


def used_names(module: ast.Module) -> set[str]:
    """Every symbol an instruction of the module names."""
    out: set[str] = set()

    def walk(b: ast.Block) -> None:
        for st in b.stmts:
            if isinstance(st, ast.Block):
                walk(st)
            elif isinstance(st, ast.Instruction):
                for op in st.operands:
                    out.update(x.name for x in ast.operand_leaves(op) if isinstance(x, ast.Sym))

    for f in module.functions:
        if f.body is not None:
            walk(f.body)
    return out


def const_address(c: LowerCtx, dv: VReg, name: str, offset: int) -> None:
    """``dv`` (64 bits) = the address of constant variable ``name`` plus ``offset``: its bank-3
    offset, a relocated move (``R_CUDA_ABS16_32``; ptxas: ``UMOV UR4, `(ka)``)."""
    from openptxas.ir.core import RC, RZ, Imm

    sym = symbol_for(c.module, c.func.name, name)
    if sym is None:
        raise c.unsupported(f"address of '{name}' under -c")
    lo = dv.lo if offset == 0 else c.new(RC.R)
    c.emit("LDC", (), [lo], [CBank(4, sym.slot)])
    if offset:
        c.emit("IADD3", (), [dv.lo], [lo, Imm(offset & 0xFFFFFFFF), RZ])
    c.emit("MOV", (), [dv.hi], [RZ])


def kernel_address(c: LowerCtx, dv: VReg, name: str) -> None:
    """``dv`` = kernel ``name``'s function descriptor (what a device-side launch takes): a
    relocated move pair the driver fills in (ptxas: ``UMOV UR4, 32@lo(fun@fdesc(k))``,
    ``R_CUDA_FUNC_DESC32_LO_32``/``HI_32``; the 64-bit slot load of lower.relocs)."""
    slot = kernel_slots(c.module)[name]
    c.emit("LDC", ("64",), [dv], [CBank(4, slot)])
