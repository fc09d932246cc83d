"""What a compiler knows about the module it compiled: the input of :mod:`openptxas.elf.builder`.

A :class:`ModuleDescription` holds the facts ptxas decides while compiling (code bytes, register
counts, stack sizes, parameter layout, instruction-offset lists, relocations from code, global
placement, frame programs) and nothing about the ELF container: section order, string tables,
symbol order, ``.nv.info`` record order, constant-bank sections, ``.debug_frame`` layout, notes
and program headers are the builder's job and follow ptxas 13.0.88's rules.

:func:`openptxas.elf.describe.describe` extracts a description from a ptxas cubin; building it
again must give the same bytes (tests/elf/test_elf_builder.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from openptxas.elf.nvinfo import Attribute


class Space(Enum):
    GLOBAL = "global"  # .global: .nv.global (no initializer) or .nv.global.init
    CONST = "const"  # .const: .nv.constant3 (user constant bank)


class Linkage(Enum):
    LOCAL = "local"  # no linkage directive (module-private)
    VISIBLE = "visible"
    WEAK = "weak"
    COMMON = "common"
    EXTERN = "extern"


@dataclass(frozen=True, slots=True)
class Reloc:
    """A relocation against a symbol, by name. ``type`` is an R_CUDA_* value (consts.RelocType);
    ``addend`` None for SHT_REL sections (sm_75..sm_89 keep the addend in the patched bytes)."""

    offset: int
    type: int
    symbol: str
    addend: int | None = 0


@dataclass(frozen=True, slots=True)
class GlobalVar:
    """A module-scope variable, in PTX declaration order."""

    name: str
    space: Space
    size: int
    align: int
    init: bytes | None = None  # None: no initializer
    relocs: tuple[Reloc, ...] = ()  # addresses stored in the initializer
    linkage: Linkage = Linkage.LOCAL
    managed: bool = False
    offset: int | None = None  # placement in its section (None: extern, no placement)


@dataclass(frozen=True, slots=True)
class Param:
    offset: int  # from the start of the parameter block
    size: int
    log_align: int = 0  # pointee alignment (.ptr.align), log2
    space: int = 0
    cbank: int = 0x1F
    param_space: int = 0


@dataclass(frozen=True, slots=True)
class Subroutine:
    """A function ptxas placed inside another one's ``.text`` (callee of a whole-program kernel,
    or a math slow path such as ``$__internal_0_$__cuda_sm20_rem_u64``)."""

    name: str
    offset: int
    size: int
    bind: int  # consts.SymbolBind
    frame_size: int | None = None  # EIATTR_FRAME_SIZE in .nv.info (None: none recorded)
    frame: Frame | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """The function's ``.debug_frame`` entries: its CIE (version byte onwards) and FDE program.

    ``cie_relocs`` are R_CUDA_64 relocations inside the CIE (offsets into ``cie``, relative to
    the version byte), to the enclosing function's symbol plus an addend.
    """

    cie: bytes
    fde: bytes
    cie_relocs: tuple[tuple[int, int], ...] = ()  # (offset in cie, addend)


@dataclass(frozen=True, slots=True)
class Function:
    """A function with its own ``.text.<name>`` section, in ptxas's emission order."""

    name: str
    entry: bool
    code: bytes
    registers: int
    bind: int = 1  # consts.SymbolBind of the function symbol
    other: int | None = None  # st_other (None: ptxas's default for the kind)
    barriers: int = 0
    frame_size: int = 0  # EIATTR_FRAME_SIZE
    min_stack: int | None = None  # EIATTR_MIN_STACK_SIZE (None: not recorded)
    max_stack: int | None = None  # EIATTR_MAX_STACK_SIZE
    params: tuple[Param, ...] = ()
    param_bytes: int | None = None  # CBANK_PARAM_SIZE (None: no parameter bank records)
    param_base: int | None = None  # parameter offset in bank 0 when not the target's usual one
    shared: int | None = None  # static .shared bytes (None: no .nv.shared.<f> section)
    shared_align: int = 16
    maxreg: int = 0xFF  # EIATTR_MAXREG_COUNT
    max_threads: tuple[int, int, int] | None = None  # .maxntid
    reqntid: tuple[int, int, int] | None = None
    cluster_dims: tuple[int, int, int] | None = None  # .reqnctapercluster
    max_cluster_rank: int | None = None
    exit_offsets: tuple[int, ...] = ()
    crs_stack: int | None = None  # EIATTR_CRS_STACK_SIZE
    relocs: tuple[Reloc, ...] = ()  # relocations in the code (ptxas's order: last made first)
    # The .rel/.rela sections ptxas made for the code, in order ("rel", "rela"); None: follow
    # from ``relocs``. Needed where ptxas resolved relocations itself (calls to subroutines).
    reloc_names: tuple[str, ...] | None = None
    subroutines: tuple[Subroutine, ...] = ()
    callees: tuple[str, ...] = ()  # .nv.callgraph edges from this function
    const2: bytes | None = None  # .nv.constant2.<f>: compiler constants (jump tables, ...)
    const2_relocs: tuple[Reloc, ...] = ()
    const2_reloc_names: tuple[str, ...] | None = None  # as reloc_names, for .nv.constant2.<f>
    const2_relocs_late: bool = False  # relocations made with the module data (function tables)
    shared_symbol: bool = False  # .nv.shared.<f> has a section symbol (static shared variables)
    reserved_smem_cap: bool = False  # ptxas made (and blanked) the .nv.reservedSmem.cap symbol
    attributes: tuple[Attribute, ...] = ()  # every other EIATTR record of .nv.info.<f>
    frame: Frame | None = None
    prototype: int | None = None  # .nv.prototype entry


@dataclass(frozen=True, slots=True)
class OpaqueSection:
    """A section the builder copies as given (DWARF, Mercury capsules on sm_100+)."""

    name: str
    type: int
    flags: int
    data: bytes
    addralign: int = 1
    entsize: int = 0
    relocs: tuple[Reloc, ...] = ()  # ptxas's order (last made first)
    reloc_names: tuple[str, ...] = ()  # the .rel/.rela sections ptxas made for it, in order
    symbol: bool = True  # the section has a section symbol


@dataclass(frozen=True, slots=True)
class ModuleDescription:
    target: str  # the -arch value: "sm_90", "sm_90a", ...
    ptx_target: int  # .target of the PTX (recorded in .note.nv.cuinfo)
    relocatable: bool  # ptxas -c
    options: str  # the command line as ptxas records it in .note.nv.tkinfo ("-v  -arch sm_90 ")
    object_name: str = ""  # tkinfo object name (ptxas records the -o name with -g)
    functions: tuple[Function, ...] = ()
    globals: tuple[GlobalVar, ...] = ()
    debug_sections: tuple[OpaqueSection, ...] = ()
    e_flags_kind: int = 0x06  # bits 24..31 of e_flags (0x06 without debug information)
    # .nv.compat records (sm_90+); None: ptxas's usual ones for the target. ISA_CLASS (code 2)
    # is 2 or 4 for some modules (textures, ...): the compiler must say so.
    compat: tuple[Attribute, ...] | None = None
    extras: dict[str, object] = field(default_factory=dict)  # unmodelled facts, by name
