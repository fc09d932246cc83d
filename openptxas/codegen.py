"""Code generation's last step: encode the scheduled functions and lay out the cubin.

Each function's instructions are encoded straight from the IR through the ISA table
(``openptxas.codegen_encode``) and padded as ptxas pads: after the code a ``BRA`` to itself,
then ``NOP``s up to a 128-byte boundary. The code and the function's resource figures then go to
the ELF builder, which lays the cubin out as ptxas does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openptxas.codegen_encode import EncodedFunction, encode_function, with_reuse_flags
from openptxas.elf.dwarfline import uleb
from openptxas.ir.core import Function
from openptxas.options import Options
from openptxas.ptx import ast
from openptxas.ptx.types import Linkage as PtxLinkage
from openptxas.targets import SMInfo

if TYPE_CHECKING:
    from openptxas.elf.description import Function as ElfFunction
    from openptxas.elf.description import GlobalVar, LocalSymbol, OpaqueSection, Subroutine
    from openptxas.elf.nvinfo import Attribute
    from openptxas.lower.layout import VarPlace

# .debug_frame as ptxas 13.0 writes it for a function without a stack frame (observed on the
# corpus; docs/elf.md): the target's fixed CIE (``Abi.frame_cie``), and an FDE that defines the
# CFA (R1 + 0) after the first block and then advances to the last EXIT.
_DEF_CFA = bytes.fromhex("0c8180802800")


def frame_program(first_branch: int, last_exit: int, frame: int = 0, sp_adjust: int = 0) -> bytes:
    """The FDE program. With a stack frame (``frame`` bytes, the stack pointer lowered by the
    instruction at ``sp_adjust``), ptxas defines the CFA after that instruction: R1 + ``frame``
    and an advance to the last EXIT when the code branches before it, else R1 + 0 and nothing
    more (observed: scripts/probe_local.py)."""

    def adv(nbytes: int) -> bytes:
        return b"\x04" + (nbytes // 4).to_bytes(4, "little")  # DW_CFA_advance_loc4, 4-byte units

    if frame:
        at = sp_adjust + 16
        if first_branch == last_exit:
            return adv(at) + _DEF_CFA
        return adv(at) + _DEF_CFA[:-1] + uleb(frame) + adv(last_exit - at)
    if first_branch == last_exit:
        return adv(last_exit) + adv(16) + _DEF_CFA
    return adv(first_branch + 16) + _DEF_CFA + adv(last_exit - first_branch - 16)


def sp_adjust_offset(fn: Function, target: SMInfo) -> int:
    """Code address of the instruction that lowers the stack pointer by the frame size."""
    from openptxas.ir.core import RC, Reg

    sp = Reg(RC.R, target.abi.stack_pointer)
    at = 0
    for ins in fn.instrs():
        if ins.op != "LDC" and sp in ins.dsts:
            return at
        at += 16
    return 0


def reuse_flags(options: Options) -> bool:
    """Operand-reuse flags go with the scheduler (off at -O0, with --sched=serial and with
    --disable-phase PostSchedule)."""
    return (
        options.opt_level > 0
        and options.sched != "serial"
        and "PostSchedule" not in options.disable_phases
    )


def build_cubin(
    module: ast.Module,
    compiled: list[tuple[ast.Function, Function]],
    target: SMInfo,
    options: Options,
    source: str | None = None,
) -> bytes:
    from openptxas.elf.builder import build
    from openptxas.elf.description import Frame, ModuleDescription, Reloc
    from openptxas.elf.description import Function as ElfFunction
    from openptxas.elf.description import Param as ElfParam
    from openptxas.lower.relocs import relocation_offsets, whole_program_check

    rel = options.compile_only
    # -g: the CIE states every register's rule (openptxas.debuginfo), with
    # --suppress-debug-info too (ptxas keeps it: the frames are not the debug sections)
    g = options.device_debug and not options.suppress_debug_info
    cie = target.abi.frame_cie
    if options.device_debug:
        from openptxas.debuginfo import frame_cie

        cie = frame_cie(cie)
    funcs = []
    code_lines = []
    internal = [0]  # ptxas numbers its internal subroutines over the module
    for func, fn in compiled:
        if not rel:
            whole_program_check(fn, module)
        else:
            from openptxas.lower.reldata import relocate_constants

            relocate_constants(fn, module)
        enc = encode_function(fn, target)
        if reuse_flags(options):
            enc = with_reuse_flags(enc, fn, target)
        code_lines.append((func, fn, len(enc.code)))
        subroutines = _subroutines(fn, enc, internal)
        if options.device_debug:
            from openptxas.debuginfo import subroutine_frames

            subroutines = tuple(subroutine_frames(fn, subroutines, target.abi.frame_cie))
        params = tuple(ElfParam(offset=p.offset, size=p.size) for p in fn.params)
        funcs.append(
            ElfFunction(
                name=fn.name,
                entry=func.is_entry,
                bind=2 if func.linkage is PtxLinkage.WEAK and not func.is_entry else 1,
                code=enc.code,
                registers=fn.registers,
                barriers=fn.barriers,
                params=params,
                param_bytes=params[-1].offset + params[-1].size if params else None,
                shared=fn.shared_static or None,
                shared_align=max(fn.shared_align, 16),
                exit_offsets=enc.exit_offsets,
                min_stack=fn.local_bytes + fn.call_stack,
                # ptxas counts its subroutines' frames in the kernel's (whole program)
                frame_size=fn.local_bytes + fn.call_stack,
                subroutines=subroutines,
                externs=tuple(fn.externs),
                # ptxas records CRS_STACK_SIZE 0 for functions with convergence barriers or calls
                crs_stack=0 if any(i.op in ("BSSY", "CALL") for i in fn.instrs()) else None,
                frame=(
                    Frame(
                        cie,
                        frame_program(
                            enc.first_branch,
                            enc.exit_offsets[-1],
                            fn.local_bytes,
                            sp_adjust_offset(fn, target) if fn.local_bytes else 0,
                        ),
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
                # -c: the relocated immediates (lower.relocs), last made first as ptxas lists
                relocs=tuple(Reloc(o, t, y, a) for o, t, y, a in reversed(relocation_offsets(fn))),
            )
        )
    ptx_target = module.target or target.name
    sm = int("".join(ch for ch in ptx_target.split("_")[-1] if ch.isdigit()) or target.sm)
    debug = _line_info(module, code_lines, options, source)
    dwarf = any(isinstance(it, ast.Section) and it.name == ".debug_info" for it in module.items)
    if g:
        from openptxas.debuginfo import debug_info_sections

        debug += debug_info_sections(module, compiled, target)
    gvars = module_variables(module, _function_offsets(compiled))
    callgraph = None
    if rel:
        funcs, gvars, callgraph = _relocatable_module(funcs, gvars, module)
    desc = ModuleDescription(
        target=target.name,
        ptx_target=sm,
        relocatable=rel,
        options=_tkinfo_options(options, target),
        functions=tuple(funcs),
        globals=tuple(gvars),
        callgraph=callgraph,
        debug_sections=debug,
        # -g: 0x0E with the PTX's .debug_info, 0x0B without (cuobjdump checks it)
        e_flags_kind=(0x0E if dwarf else 0x0B) if g else 0x09 if debug else 0x06,
    )
    return build(desc)


def _line_info(
    module: ast.Module,
    code: list[tuple[ast.Function, Function, int]],
    options: Options,
    source: str | None,
) -> tuple[OpaqueSection, ...]:
    """``.debug_line``, ``.nv_debug_line_sass`` and ``.nv_debug_ptx_txt`` (openptxas.lineinfo)
    when ptxas writes them: with -lineinfo, or when the PTX has .loc directives."""
    from openptxas.elf.description import OpaqueSection, Reloc
    from openptxas.lineinfo import R_CUDA_64, CodeLines, has_loc, line_sections

    lines = options.lineinfo or options.device_debug or has_loc(module)
    if source is None or options.suppress_debug_info or not lines:
        return ()  # (--suppress-debug-info drops them even when ptxas warns it is ignored)
    kernels = [
        CodeLines(fn.name, size, [i.line for i in fn.instrs()], func) for func, fn, size in code
    ]
    out = []
    for name, data, relocs in line_sections(module, kernels, source):
        out.append(
            OpaqueSection(
                name,
                1,  # PROGBITS
                0,
                data,
                relocs=tuple(Reloc(off, R_CUDA_64, sym) for off, sym in reversed(relocs)),
                reloc_names=("rela",) if relocs else (),
            )
        )
    return tuple(out)


def _function_offsets(compiled: list[tuple[ast.Function, Function]]) -> dict[str, set[int]]:
    """Each subroutine's code offsets in the kernels that have it: what a function pointer in a
    variable's initializer holds (ptxas writes the offset, with no relocation)."""
    out: dict[str, set[int]] = {}
    for _func, fn in compiled:
        addr: dict[str, int] = {}
        at = 0
        for b in fn.blocks:
            addr[b.name] = at
            at += 16 * len(b.instrs)
        for name, entry in fn.subroutines:
            out.setdefault(name, set()).add(addr[entry])
    return out


def module_variables(
    module: ast.Module, functions: dict[str, set[int]] | None = None
) -> list[GlobalVar]:
    """The module's .global and .const variables, placed as the lowering addressed them
    (``lower.layout.module_layout``, the one layout both use); ``functions``: the code offsets
    written for function addresses in initializers."""
    from openptxas.elf.description import GlobalVar, Linkage, Space
    from openptxas.lower.layout import function_fixups, module_layout

    names = frozenset(f.name for f in module.functions if f.body is not None)

    def init(v: VarPlace) -> bytes | None:
        if v.init is None:
            return None
        data = bytearray(v.init)
        for at, name in function_fixups(v.decl, names):
            offs = (functions or {}).get(name, {0})
            if len(offs) > 1:
                from openptxas.diag import UnsupportedFeature

                raise UnsupportedFeature(
                    f"address of '{name}' in the initializer of '{v.decl.name}' with the "
                    "function in several kernels at different places is not supported by "
                    "openptxas yet",
                    v.decl.span,
                )
            data[at : at + 8] = min(offs).to_bytes(8, "little")
        return bytes(data)

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
            init(v),
            linkage=link[v.decl.linkage],
            offset=v.offset,
        )
        for v in module_layout(module)
    ]


def _subroutines(fn: Function, enc: EncodedFunction, internal: list[int]) -> tuple[Subroutine, ...]:
    """The subroutines placed after the kernel's code (lower.calls): ``$kernel$func`` from its
    entry block to the next one (or the end of the section), each recording the kernel's frame.
    The shared slow paths of division and square root (lower/fpslow.py, ``$__cuda_...``) are
    ``$__internal_N_$__cuda_...``, weak, N counting over the module (``internal``).
    (ptxas also writes a .debug_frame CIE/FDE for each; openptxas does not yet.)"""
    from openptxas.elf.consts import SymbolBind
    from openptxas.elf.description import Subroutine

    if not fn.subroutines:
        return ()
    addr: dict[str, int] = {}
    at = 0
    for b in fn.blocks:
        addr[b.name] = at
        at += 16 * len(b.instrs)
    starts = sorted((addr[entry], name) for name, entry in fn.subroutines)
    out = []
    for k, (start, name) in enumerate(starts):
        # the last one runs to the end of the section (ptxas counts the padding in it)
        end = starts[k + 1][0] if k + 1 < len(starts) else len(enc.code)
        sym, bind = f"${fn.name}${name}", SymbolBind.LOCAL
        if name.startswith("$__cuda"):
            sym, bind = f"$__internal_{internal[0]}_{name}", SymbolBind.WEAK
            internal[0] += 1
        out.append(
            Subroutine(sym, start, end - start, bind, frame_size=fn.local_bytes + fn.call_stack)
        )
    return tuple(out)


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
    return options.with_(arch=target.name).tkinfo_command_line()


def _relocatable_module(
    funcs: list[ElfFunction], gvars: list[GlobalVar], module: ast.Module
) -> tuple[list[ElfFunction], list[GlobalVar], tuple[tuple[tuple[str, str], ...], ...]]:
    """The ELF description's ``-c`` differences (ptxas 13.0.88, sm_90): stack sizes left to the
    linker (EIATTR_MAX_STACK_SIZE 0, no MIN_STACK_SIZE; nvlink adds the frames along the call
    graph and refuses a kernel whose total exceeds a nonzero MAX_STACK_SIZE), variables as CUDA
    objects (``STT_CUDA_OBJECT``, ``STO_CUDA_GLOBAL``/``STO_CUDA_CONSTANT``), and a call graph
    with an edge from each function to each external function it calls, which nvlink follows to
    size registers and stacks."""
    from dataclasses import replace

    from openptxas.diag import UnsupportedFeature
    from openptxas.lower.layout import function_fixups, module_layout
    from openptxas.ptx.types import PtxType

    handles = (PtxType.TEXREF, PtxType.SAMPLERREF, PtxType.SURFREF)
    for it in module.items:
        if isinstance(it, ast.VarDecl) and it.type in handles:
            raise UnsupportedFeature(
                f"relocatable output (-c): {it.type.value} variable '{it.name}' is not "
                "supported by openptxas yet",
                it.span,
            )
    names = frozenset(f.name for f in module.functions if f.body is not None)
    for v in module_layout(module):
        if function_fixups(v.decl, names):
            raise UnsupportedFeature(
                f"relocatable output (-c): function addresses in the initializer of "
                f"'{v.decl.name}' are not supported by openptxas yet",
                v.decl.span,
            )
    out = []
    for f in funcs:
        f = replace(
            f,
            min_stack=None,
            max_stack=0,
            # ptxas's figure for a function with calls or called (observed: 24 at least)
            registers=max(f.registers, 24) if f.externs or not f.entry else f.registers,
        )
        if f.entry:  # its own shared variables, placed by the linker (lower/reldata.py)
            size, align, syms = _kernel_shared(module, f.name)
            f = replace(
                f,
                shared=size or None,
                shared_align=align,
                shared_symbol=bool(syms),
                local_symbols=(*f.local_symbols, *syms),
            )
        out.append(f)
    calls = tuple((f.name, x) for f in funcs for x in f.externs)
    variables = [_cuda_object(g) for g in gvars] + _module_shared(module)
    return out, variables, (calls, (), (), ())


def _cuda_object(g: GlobalVar) -> GlobalVar:
    from dataclasses import replace

    from openptxas.elf.description import Space

    # STO_CUDA_GLOBAL / STO_CUDA_CONSTANT (observed: scripts/link_probe.py --show consts)
    other = 0x20 if g.space is Space.GLOBAL else 0x80
    return replace(g, sym_type=13, sym_other=other | (g.sym_other or 0))


def _kernel_shared(module: ast.Module, func: str) -> tuple[int, int, tuple[LocalSymbol, ...]]:
    """A kernel's own shared variables in a ``-c`` object: the size and alignment of its
    ``.nv.shared.<kernel>`` and their symbols (value: the alignment)."""
    from openptxas.elf.description import LocalSymbol
    from openptxas.lower.reldata import data_symbols, shared_layout

    mine = [s for s in data_symbols(module) if s.func == func and s.shared and not s.extern]
    size, align = shared_layout([s.decl for s in mine])
    syms = tuple(
        LocalSymbol(s.symbol, "shared", s.decl.alignment, s.decl.size, 13, 0x40) for s in mine
    )
    return size, align, syms


def _module_shared(module: ast.Module) -> list[GlobalVar]:
    """The module-scope shared variables the code uses, as ``-c`` variables: defined ones in
    ``.nv_debug.shared`` (their value: the alignment), extern ones undefined."""
    from openptxas.elf.description import GlobalVar, Space
    from openptxas.elf.description import Linkage as ElfLinkage
    from openptxas.lower.reldata import data_symbols, used_names

    link = {
        None: ElfLinkage.LOCAL,
        PtxLinkage.VISIBLE: ElfLinkage.VISIBLE,
        PtxLinkage.WEAK: ElfLinkage.WEAK,
        PtxLinkage.COMMON: ElfLinkage.COMMON,
        PtxLinkage.EXTERN: ElfLinkage.EXTERN,
    }
    used = used_names(module)
    out = []
    for s in data_symbols(module):
        if s.func is not None or not s.shared or s.decl.name not in used:
            continue
        d = s.decl
        out.append(
            GlobalVar(
                s.symbol,
                Space.SHARED,
                d.size,
                d.alignment,
                linkage=link[d.linkage],
                offset=None if s.extern else d.alignment,
                sym_type=13,
                sym_other=0x40,
            )
        )
    return out
