"""Code generation's last step: encode the scheduled functions and lay out the cubin.

Each function's instructions are encoded straight from the IR through the ISA table
(``openptxas.codegen_encode``) and padded as ptxas pads: after the code a ``BRA`` to itself,
then ``NOP``s up to a 128-byte boundary. The code and the function's resource figures then go to
the ELF builder, which lays the cubin out as ptxas does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openptxas.codegen_encode import EncodedFunction, encode_function
from openptxas.ir.core import Function
from openptxas.options import Options
from openptxas.ptx import ast
from openptxas.ptx.types import Linkage as PtxLinkage
from openptxas.targets import SMInfo

if TYPE_CHECKING:
    from openptxas.elf.description import GlobalVar
    from openptxas.elf.nvinfo import Attribute

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
                cluster_dims=_dims(func.reqnctapercluster),
                max_cluster_rank=func.maxclusterrank,
                explicit_cluster=func.explicitcluster,
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
