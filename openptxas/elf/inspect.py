"""What a cubin says about each function: the figures ``openptxas-sass info`` prints.

Sources, as ptxas 13.0.88 writes them:

- registers: ``EIATTR_REGCOUNT`` in ``.nv.info`` (per function symbol); sm_75..89 also keep it in
  bits 24..31 of the ``.text.<f>`` section's ``sh_info``;
- stack frame / cumulative stack: ``EIATTR_FRAME_SIZE`` / ``EIATTR_MIN_STACK_SIZE`` (``.nv.info``);
- shared memory: the size of ``.nv.shared.<f>`` less the 1 KiB a whole-program sm_90+ cubin
  reserves per CTA (``elf_reserved_smem`` in the target data);
- spills: ``EIATTR_ANNOTATIONS`` lists the spill/refill instructions; their widths come from the
  instruction words (``spill_bytes``);
- barriers, thread limits, parameters, exits: the per-function ``.nv.info.<f>`` records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openptxas.diag import UsageError
from openptxas.elf.consts import (
    ElfType,
    SectionType,
    SymbolBind,
    SymbolOther,
    SymbolType,
    reloc_type_name,
)
from openptxas.elf.model import (
    Blob,
    Cubin,
    InfoSection,
    NoBits,
    NoteSection,
    RelocTable,
    Section,
    SymbolTable,
)
from openptxas.elf.nvinfo import (
    EIATTR,
    Attribute,
    Dim3,
    Fmt,
    KParamInfo,
    KParamInfoV2,
    ParamCBank,
    Raw,
    SymValue,
    Words,
    eiattr_name,
    kparam_v2_fields,
)


@dataclass(frozen=True, slots=True)
class Param:
    ordinal: int
    offset: int  # from the start of the parameter block
    size: int
    log_align: int = 0


@dataclass(frozen=True, slots=True)
class RelocInfo:
    section: str
    offset: int
    type: str
    symbol: str
    addend: int | None


@dataclass
class FunctionInfo:
    name: str
    kind: str  # "entry", "function" (own .text) or "subroutine" (inside another .text)
    section: str
    size: int
    offset: int = 0  # of a subroutine inside its section
    registers: int | None = None
    barriers: int = 0
    stack_frame: int | None = None
    min_stack: int | None = None
    max_stack: int | None = None
    shared: int | None = None
    spill_instructions: int = 0
    spill_stores: int | None = None
    spill_loads: int | None = None
    param_base: int | None = None
    param_size: int | None = None
    params: list[Param] = field(default_factory=list)
    max_threads: tuple[int, int, int] | None = None
    reqntid: tuple[int, int, int] | None = None
    cluster_dims: tuple[int, int, int] | None = None
    maxreg: int | None = None
    attributes: list[Attribute] = field(default_factory=list)
    relocations: list[RelocInfo] = field(default_factory=list)


@dataclass
class ModuleInfo:
    target: str
    relocatable: bool
    e_flags: int
    tool_options: str | None
    functions: list[FunctionInfo]
    module_attributes: list[tuple[str, Attribute]]
    globals: list[tuple[str, str, int, int]]  # (name, section, offset, size)


def _reserved_smem(cubin: Cubin) -> int:
    from openptxas.targets import get_target

    if cubin.e_type != ElfType.EXEC:
        return 0
    try:
        return get_target(f"sm_{cubin.sm}").elf_reserved_smem
    except UsageError:
        return 0


def attribute_value_text(a: Attribute, cubin: Cubin | None = None) -> str:
    v = a.value
    if a.fmt == Fmt.NVAL:
        return ""
    if isinstance(v, int):
        return f"{v:#x}"

    def sym(i: int) -> str:
        return cubin.symbol_name(i) if cubin is not None else f"#{i}"

    if isinstance(v, SymValue):
        return f"{sym(v.sym)}: {v.value:#x}"
    if isinstance(v, Words):
        if a.code == EIATTR.EXTERNS:
            return " ".join(sym(x) for x in v.values)
        return " ".join(f"{x:#x}" for x in v.values)
    if isinstance(v, Dim3):
        return f"{v.x} {v.y} {v.z}"
    if isinstance(v, ParamCBank):
        return f"{sym(v.sym)} offset {v.offset:#x} size {v.size:#x}"
    if isinstance(v, KParamInfo):
        return (
            f"ordinal {v.ordinal} offset {v.offset:#x} size {v.size:#x} log_align {v.log_align} "
            f"space {v.space} cbank {v.cbank:#x}"
        )
    if isinstance(v, KParamInfoV2):
        return f"ordinal {v.ordinal} offset {v.offset:#x} size {v.size:#x}"
    if isinstance(v, Raw):
        return v.data.hex()
    return repr(v)


def _function_symbols(cubin: Cubin) -> list[tuple[int, int, Section]]:
    out = []
    for i, s in enumerate(cubin.symtab.symbols):
        if s.type == SymbolType.FUNC and 0 < s.shndx < len(cubin.sections):
            out.append((i, s.shndx, cubin.sections[s.shndx]))
    return out


def summarize(cubin: Cubin) -> ModuleInfo:
    """Collect the per-function figures of a cubin (see the module docstring for sources)."""
    symtab = cubin.symtab
    glob_attrs: list[Attribute] = []
    per_section_attrs: dict[int, list[Attribute]] = {}
    relocs: dict[int, list[RelocInfo]] = {}
    for s in cubin.sections:
        if s.type != SectionType.CUDA_INFO or not isinstance(s.content, InfoSection):
            continue
        if s.name == ".nv.info":
            glob_attrs.extend(s.content.attributes)
        elif s.flags & 0x40:
            per_section_attrs[s.info] = list(s.content.attributes)
    for s in cubin.sections:
        if s.type in (SectionType.RELA, SectionType.REL) and isinstance(s.content, RelocTable):
            target = cubin.sections[s.info].name if 0 <= s.info < len(cubin.sections) else "?"
            for r in s.content.relocs:
                relocs.setdefault(s.info, []).append(
                    RelocInfo(target, r.offset, r.type_name, cubin.symbol_name(r.sym), r.addend)
                )
    by_sym: dict[int, dict[int, int]] = {}
    for a in glob_attrs:
        if isinstance(a.value, SymValue):
            by_sym.setdefault(a.code, {})[a.value.sym] = a.value.value
    reserved = _reserved_smem(cubin)
    functions: list[FunctionInfo] = []
    for symi, shndx, sec in _function_symbols(cubin):
        sym = symtab.symbols[symi]
        own = sec.name == f".text.{sym.name}"
        if sym.other & SymbolOther.ENTRY:
            kind = "entry"
        elif own:
            kind = "function"
        else:
            kind = "subroutine"
        fi = FunctionInfo(sym.name, kind, sec.name, sym.size, sym.value)
        fi.registers = by_sym.get(EIATTR.REGCOUNT, {}).get(symi)
        if fi.registers is None and own and sec.info >> 24:
            fi.registers = sec.info >> 24
        fi.stack_frame = by_sym.get(EIATTR.FRAME_SIZE, {}).get(symi)
        fi.min_stack = by_sym.get(EIATTR.MIN_STACK_SIZE, {}).get(symi)
        fi.max_stack = by_sym.get(EIATTR.MAX_STACK_SIZE, {}).get(symi)
        if own:
            fi.attributes = per_section_attrs.get(shndx, [])
            fi.relocations = relocs.get(shndx, [])
            try:
                shared = cubin.section(f".nv.shared.{sym.name}")
            except KeyError:
                fi.shared = 0 if kind == "entry" else None
            else:
                if isinstance(shared.content, NoBits):
                    fi.shared = max(shared.content.size - reserved, 0)
        _apply_function_attributes(fi)
        functions.append(fi)
    _attribute_spills(cubin, functions)
    tool_options = None
    module_attrs: list[tuple[str, Attribute]] = []
    for s in cubin.sections:
        if isinstance(s.content, NoteSection):
            for n in s.content.notes:
                if n.tkinfo is not None:
                    tool_options = n.tkinfo.options
    for a in glob_attrs:
        module_attrs.append((".nv.info", a))
    globals_: list[tuple[str, str, int, int]] = []
    for y in symtab.symbols:
        if y.type == SymbolType.OBJECT and 0 < y.shndx < len(cubin.sections):
            globals_.append((y.name, cubin.sections[y.shndx].name, y.value, y.size))
        elif y.type == SymbolType.OBJECT and y.bind != SymbolBind.LOCAL and y.shndx == 0:
            globals_.append((y.name, "<undefined>", y.value, y.size))
    variant = ""
    return ModuleInfo(
        target=f"sm_{cubin.sm}{variant}",
        relocatable=cubin.is_relocatable,
        e_flags=cubin.e_flags,
        tool_options=tool_options,
        functions=functions,
        module_attributes=module_attrs,
        globals=globals_,
    )


def _apply_function_attributes(fi: FunctionInfo) -> None:
    for a in fi.attributes:
        v = a.value
        if a.code == EIATTR.NUM_BARRIERS and isinstance(v, int):
            fi.barriers = v
        elif a.code == EIATTR.MAX_THREADS and isinstance(v, Dim3):
            fi.max_threads = (v.x, v.y, v.z)
        elif a.code == EIATTR.REQNTID and isinstance(v, Dim3):
            fi.reqntid = (v.x, v.y, v.z)
        elif a.code == EIATTR.CTA_PER_CLUSTER and isinstance(v, Dim3):
            fi.cluster_dims = (v.x, v.y, v.z)
        elif a.code == EIATTR.MAXREG_COUNT and isinstance(v, int):
            fi.maxreg = v
        elif a.code == EIATTR.PARAM_CBANK and isinstance(v, ParamCBank):
            fi.param_base = v.offset
            fi.param_size = v.size
        elif a.code == EIATTR.CBANK_PARAM_SIZE and isinstance(v, int) and fi.param_size is None:
            fi.param_size = v
        elif isinstance(v, KParamInfo):
            fi.params.append(Param(v.ordinal, v.offset, v.size, v.log_align))
        elif isinstance(v, KParamInfoV2):
            size, log_align, _space = kparam_v2_fields(v.size)
            fi.params.append(Param(v.ordinal, v.offset, size, log_align))
    fi.params.sort(key=lambda p: p.ordinal)


def annotation_offsets(attrs: list[Attribute]) -> list[int]:
    """Offsets of the spill/refill instructions an EIATTR_ANNOTATIONS record lists.

    The payload is ``(u32 kind, u32 offset)`` pairs; kind 1 is "SpillRefill" (cuobjdump's name).
    """
    out: list[int] = []
    for a in attrs:
        if a.code != EIATTR.ANNOTATIONS or not isinstance(a.value, Raw | Words):
            continue
        data = a.value.encode()
        for o in range(0, len(data) - 7, 8):
            kind = int.from_bytes(data[o : o + 4], "little")
            if kind == 1:
                out.append(int.from_bytes(data[o + 4 : o + 8], "little"))
    return out


def _attribute_spills(cubin: Cubin, functions: list[FunctionInfo]) -> None:
    """Count spill instructions per function (subroutines own the ones inside their range)."""
    from openptxas.elf.spills import spill_width

    by_section: dict[str, list[FunctionInfo]] = {}
    for f in functions:
        by_section.setdefault(f.section, []).append(f)
    for f in functions:
        if f.kind == "subroutine":
            continue
        offsets = annotation_offsets(f.attributes)
        sec = cubin.section(f.section)
        code = sec.content.data if isinstance(sec.content, Blob) else b""
        members = by_section.get(f.section, [])
        for m in members:
            m.spill_stores = m.spill_stores or 0
            m.spill_loads = m.spill_loads or 0
        for off in offsets:
            owner = f
            for m in members:
                if m.kind == "subroutine" and m.offset <= off < m.offset + m.size:
                    owner = m
            owner.spill_instructions += 1
            width = spill_width(code[off : off + 16], cubin.sm) if off + 16 <= len(code) else None
            if width is None:
                owner.spill_stores = None if owner.spill_stores is None else owner.spill_stores
                continue
            is_store, nbytes = width
            if is_store and owner.spill_stores is not None:
                owner.spill_stores += nbytes
            elif not is_store and owner.spill_loads is not None:
                owner.spill_loads += nbytes


def symbol_table_section(cubin: Cubin) -> Section | None:
    for s in cubin.sections:
        if isinstance(s.content, SymbolTable) and s.type == SectionType.SYMTAB:
            return s
    return None


__all__ = [
    "FunctionInfo",
    "ModuleInfo",
    "Param",
    "RelocInfo",
    "attribute_value_text",
    "eiattr_name",
    "reloc_type_name",
    "summarize",
]
