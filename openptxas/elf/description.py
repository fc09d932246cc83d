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

from openptxas.elf.model import Content
from openptxas.elf.nvinfo import Attribute


class Space(Enum):
    GLOBAL = "global"  # .global: .nv.global (no initializer) or .nv.global.init
    CONST = "const"  # .const: .nv.constant3 (user constant bank)
    SHARED = "shared"  # .extern .shared (dynamic shared memory; -c symbols only)


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
    offset: int | None = None  # placement in its section (None: extern, undefined symbol)
    sym_type: int = 1  # its symbol's type (-c output marks variables CUDA_FUNC_DESC)
    sym_other: int | None = None  # st_other (None: 4 when managed, else 0)


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
class LocalSymbol:
    """A symbol ptxas writes for data of a function (-c output): shared variables,
    ``<f>.const_opt.<a>.<b>`` pieces of the compiler-constant bank."""

    name: str
    section: str  # "shared" or "const2"
    value: int
    size: int
    type: int
    other: int
    bind: int = 0


@dataclass(frozen=True, slots=True)
class Frame:
    """The function's ``.debug_frame`` entries: its CIE (version byte onwards) and FDE program.

    ``cie_relocs`` are R_CUDA_64 relocations inside the CIE (offsets into ``cie``, relative to
    the version byte), to the enclosing function's symbol plus an addend.
    """

    cie: bytes
    fde: bytes
    cie_relocs: tuple[tuple[int, int], ...] = ()  # (offset in cie, addend)
    # -c: the addend of the FDE's CIE-pointer relocation when it is not the CIE's offset
    # (sm_90+ counts the size the FDE program had before ptxas merged its advance_loc steps)
    cie_ptr_addend: int | None = None


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
    explicit_cluster: bool = False  # .explicitcluster (EIATTR_EXPLICIT_CLUSTER)
    exit_offsets: tuple[int, ...] = ()
    crs_stack: int | None = None  # EIATTR_CRS_STACK_SIZE
    relocs: tuple[Reloc, ...] = ()  # relocations in the code (ptxas's order: last made first)
    # The .rel/.rela sections ptxas made for the code, in order ("rel", "rela"); None: follow
    # from ``relocs``. Needed where ptxas resolved relocations itself (calls to subroutines).
    reloc_names: tuple[str, ...] | None = None
    subroutines: tuple[Subroutine, ...] = ()
    callees: tuple[str, ...] = ()  # .nv.callgraph edges from this function
    externs: tuple[str, ...] = ()  # undefined functions it calls (vprintf, __assertfail, ...)
    const2: bytes | None = None  # .nv.constant2.<f>: compiler constants (jump tables, ...)
    const2_relocs: tuple[Reloc, ...] = ()
    const2_align: int = 4
    const2_reloc_names: tuple[str, ...] | None = None  # as reloc_names, for .nv.constant2.<f>
    const2_relocs_late: bool = False  # relocations made with the module data (function tables)
    shared_symbol: bool = False  # .nv.shared.<f> has a section symbol (static shared variables)
    reserved_smem_cap: bool = False  # ptxas made (and blanked) the .nv.reservedSmem.cap symbol
    errbar_at_exit: bool = False  # EIATTR_GEN_ERRBAR_AT_EXIT after its .nv.info records (-g)
    # -c: code offset of the first instruction reading .nv.reservedSmem.cap (shared-window
    # addressing on sm_90+). ptxas resolves that relocation and drops it, but when it is the
    # function's first relocation it is the one that created the relocation sections.
    # (describe() cannot see the offset: it records one just before the first kept relocation
    # where the order shows it came first, else None.)
    reserved_smem_cap_offset: int | None = None
    attributes: tuple[Attribute, ...] = ()  # every other EIATTR record of .nv.info.<f>
    frame: Frame | None = None
    local_symbols: tuple[LocalSymbol, ...] = ()  # symbols in its .nv.shared / .nv.constant2 (-c)


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
class MercurySymbol:
    """A symbol of ``.nv.merc.symtab`` (its section by name; None: SHN_UNDEF)."""

    name: str
    bind: int
    type: int
    other: int
    section: str | None
    value: int
    size: int


@dataclass(frozen=True, slots=True)
class MercurySection:
    """A section of the Mercury image of an sm_100+ cubin (``.nv.capmerc.text.<f>`` capsules and
    the ``.nv.merc.*`` copies of the module's sections as Mercury saw them), copied as given.

    ``link`` names the linked section; ``info`` names a section (SHF_INFO_LINK) or is the raw
    value (a symbol index). Symbol indices inside ``content`` index ``.nv.merc.symtab``, whose
    symbols are :attr:`ModuleDescription.mercury_symbols` (its content here is ignored).
    """

    name: str
    type: int
    flags: int
    addralign: int
    entsize: int
    link: str | None
    info: str | int
    content: Content


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
    # bits 24..31 of e_flags: 0x06 plain, 0x09/0x0A with -lineinfo, 0x0E/0x0F with -g
    e_flags_kind: int = 0x06
    # .nv.callgraph groups after the markers -1 .. -4 (names are symbols; ints kept as they are);
    # None: the direct calls listed in Function.callees, other groups empty.
    callgraph: tuple[tuple[tuple[str | int, str | int], ...], ...] | None = None
    # .nv.compat records (sm_90+); None: ptxas's usual ones for the target. ISA_CLASS (code 2)
    # is 2 or 4 for some modules (textures, ...): the compiler must say so.
    compat: tuple[Attribute, ...] | None = None
    # -c: the signature strings ("#ii": int(int)) ptxas interned while reading the PTX, in order
    # (they open .strtab even when no .nv.prototype entry uses them), and the .nv.prototype
    # entries: (function, signature) for the non-entry functions (defined or extern) it records
    prototype_strings: tuple[str, ...] = ()
    prototypes: tuple[tuple[str, str], ...] = ()
    # sm_100+: the bytes of .nv.shared.reserved.0 / value of .nv.reservedSmem.offset0 (None: the
    # target's usual amount)
    reserved_shared: int | None = None
    # sm_100+: the Mercury image, after the SASS sections (empty: no Mercury sections)
    mercury: tuple[MercurySection, ...] = ()
    mercury_symbols: tuple[MercurySymbol, ...] = ()

    @property
    def debug(self) -> bool:
        """ptxas -g output (no .nv.shared.reserved.0; device functions keep their sections)."""
        return self.e_flags_kind & 0x0C == 0x0C

    extras: dict[str, object] = field(default_factory=dict)  # unmodelled facts, by name
