"""Numbers of the CUDA ELF dialect: section types and flags, symbol kinds, relocation types.

Names follow what cuobjdump 13.2 prints for the values ptxas 13.0.88 emits (``cuobjdump -elf``);
where cuobjdump has no name (the Mercury copies of sections on sm_100+, Mercury relocation
types) the name is ours and says so. Values outside these enums are kept as plain integers by the
reader and written back unchanged.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

EM_CUDA = 190
ELFOSABI_CUDA = 0x41
CUDA_ABI_VERSION = 8
EV_CURRENT = 1

# e_flags = (e_flags_kind << 24) | (sm << 8) | target low byte (see targets data: e_flags_low)
EF_CUDA_SM_SHIFT = 8
EF_CUDA_SM_MASK = 0xFF00
EF_CUDA_KIND_SHIFT = 24


class ElfType(IntEnum):
    REL = 1  # ptxas -c: relocatable object, no program headers
    EXEC = 2  # whole-program cubin


class SectionType(IntEnum):
    NULL = 0
    PROGBITS = 1
    SYMTAB = 2
    STRTAB = 3
    RELA = 4
    NOTE = 7
    NOBITS = 8
    REL = 9
    CUDA_INFO = 0x70000000
    CUDA_CALLGRAPH = 0x70000001
    CUDA_PROTOTYPE = 0x70000002
    CUDA_GLOBAL = 0x70000007  # .nv.global in -c output (no file data)
    CUDA_GLOBAL_INIT = 0x70000008  # .nv.global.init in -c output
    CUDA_SHARED = 0x7000000A  # .nv.shared.<f> in -c output (no file data)
    CUDA_RELOCINFO = 0x7000000B  # .nv.rel.action
    CUDA_RESERVED_SHARED = 0x70000015  # .nv.shared.reserved.0 (-c), .nv.merc.nv.shared.reserved.0
    CUDA_CAPMERC = 0x70000016  # .nv.capmerc.text.<f> (sm_100+)
    CUDA_CONSTANT_B0 = 0x70000064  # .nv.constant0.<f> in -c output; bank n = B0 + n
    CUDA_CONSTANT_B1 = 0x70000065
    CUDA_CONSTANT_B2 = 0x70000066
    CUDA_CONSTANT_B3 = 0x70000067
    CUDA_CONSTANT_B4 = 0x70000068
    CUDA_MERCURY_CONSTANT_IMGHDR = 0x70000079
    CUDA_MERCURY_CONSTANT_USER = 0x7000007C
    CUDA_MERCURY_CONSTANT_PIC = 0x7000007D
    # cuobjdump prints these three as RELA / CUDA_INFO / SYMTAB; the names are ours.
    CUDA_MERCURY_RELA = 0x70000082
    CUDA_MERCURY_INFO = 0x70000083
    CUDA_MERCURY_CONSTANT_OPT = 0x70000084
    CUDA_MERCURY_SYMTAB = 0x70000085
    CUDA_COMPAT_INFO = 0x70000086


# Section types whose sections occupy no bytes in the file (their size is a memory size).
NOBITS_TYPES: frozenset[int] = frozenset(
    {
        SectionType.NOBITS,
        SectionType.CUDA_GLOBAL,
        SectionType.CUDA_SHARED,
        SectionType.CUDA_RESERVED_SHARED,
    }
)
SYMTAB_TYPES: frozenset[int] = frozenset({SectionType.SYMTAB, SectionType.CUDA_MERCURY_SYMTAB})
RELA_TYPES: frozenset[int] = frozenset({SectionType.RELA, SectionType.CUDA_MERCURY_RELA})
INFO_TYPES: frozenset[int] = frozenset({SectionType.CUDA_INFO, SectionType.CUDA_MERCURY_INFO})


def section_type_name(value: int) -> str:
    try:
        return SectionType(value).name
    except ValueError:
        return f"{value:#x}"


class SectionFlag(IntFlag):
    WRITE = 0x1
    ALLOC = 0x2
    EXECINSTR = 0x4
    INFO_LINK = 0x40  # sh_info holds a section index
    # OS-specific bits ptxas sets on its two notes; cuobjdump gives them no name.
    NOTE_CUINFO = 0x1000000
    NOTE_TKINFO = 0x2000000
    MERCURY = 0x10000000  # .nv.merc.* / .nv.capmerc.* (sm_100+)


class SymbolBind(IntEnum):
    LOCAL = 0
    GLOBAL = 1
    WEAK = 2


class SymbolType(IntEnum):
    NOTYPE = 0
    OBJECT = 1
    FUNC = 2
    SECTION = 3
    FILE = 4
    COMMON = 5
    CUDA_TEXTURE = 10
    CUDA_SURFACE = 11
    CUDA_SAMPLER = 12
    CUDA_FUNC_DESC = 13


class SymbolOther(IntFlag):
    """st_other bits as ptxas 13.0 uses them (visibility in the low two bits)."""

    HIDDEN = 0x2
    PROTECTED = 0x3
    MANAGED = 0x4  # __managed__ variables
    ENTRY = 0x10  # STO_CUDA_ENTRY: a kernel
    RESERVED_SMEM_ALIAS = 0xA0  # __nv_reservedSMEM_offset_0_alias


SHN_UNDEF = 0
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2


class SegmentType(IntEnum):
    NULL = 0
    LOAD = 1
    PHDR = 6


class SegmentFlag(IntFlag):
    X = 1
    W = 2
    R = 4


class RelocType(IntEnum):
    """R_CUDA_* relocation types (ordinals as cuobjdump names them)."""

    R_CUDA_NONE = 0
    R_CUDA_32 = 1
    R_CUDA_64 = 2
    R_CUDA_G32 = 3
    R_CUDA_G64 = 4
    R_CUDA_ABS32_26 = 5
    R_CUDA_TEX_HEADER_INDEX = 6
    R_CUDA_SAMP_HEADER_INDEX = 7
    R_CUDA_SURF_HW_DESC = 8
    R_CUDA_SURF_HW_SW_DESC = 9
    R_CUDA_ABS32_LO_26 = 10
    R_CUDA_ABS32_HI_26 = 11
    R_CUDA_ABS32_23 = 12
    R_CUDA_ABS32_LO_23 = 13
    R_CUDA_ABS32_HI_23 = 14
    R_CUDA_ABS24_26 = 15
    R_CUDA_ABS24_23 = 16
    R_CUDA_ABS16_26 = 17
    R_CUDA_ABS16_23 = 18
    R_CUDA_TEX_SLOT = 19
    R_CUDA_SAMP_SLOT = 20
    R_CUDA_SURF_SLOT = 21
    R_CUDA_TEX_BINDLESSOFF13_32 = 22
    R_CUDA_TEX_BINDLESSOFF13_47 = 23
    R_CUDA_CONST_FIELD19_28 = 24
    R_CUDA_CONST_FIELD19_23 = 25
    R_CUDA_TEX_SLOT9_49 = 26
    R_CUDA_6_31 = 27
    R_CUDA_2_47 = 28
    R_CUDA_TEX_BINDLESSOFF13_41 = 29
    R_CUDA_TEX_BINDLESSOFF13_45 = 30
    R_CUDA_FUNC_DESC32_23 = 31
    R_CUDA_FUNC_DESC32_LO_23 = 32
    R_CUDA_FUNC_DESC32_HI_23 = 33
    R_CUDA_FUNC_DESC_32 = 34
    R_CUDA_FUNC_DESC_64 = 35
    R_CUDA_CONST_FIELD21_26 = 36
    R_CUDA_QUERY_DESC21_37 = 37
    R_CUDA_CONST_FIELD19_26 = 38
    R_CUDA_CONST_FIELD21_23 = 39
    R_CUDA_PCREL_IMM24_26 = 40
    R_CUDA_PCREL_IMM24_23 = 41
    R_CUDA_ABS32_20 = 42
    R_CUDA_ABS32_LO_20 = 43
    R_CUDA_ABS32_HI_20 = 44
    R_CUDA_ABS24_20 = 45
    R_CUDA_ABS16_20 = 46
    R_CUDA_FUNC_DESC32_20 = 47
    R_CUDA_FUNC_DESC32_LO_20 = 48
    R_CUDA_FUNC_DESC32_HI_20 = 49
    R_CUDA_CONST_FIELD19_20 = 50
    R_CUDA_BINDLESSOFF13_36 = 51
    R_CUDA_SURF_HEADER_INDEX = 52
    R_CUDA_INSTRUCTION64 = 53
    R_CUDA_CONST_FIELD21_20 = 54
    R_CUDA_ABS32_32 = 55
    R_CUDA_ABS32_LO_32 = 56
    R_CUDA_ABS32_HI_32 = 57
    R_CUDA_ABS47_34 = 58
    R_CUDA_ABS16_32 = 59
    R_CUDA_ABS24_32 = 60
    R_CUDA_FUNC_DESC32_32 = 61
    R_CUDA_FUNC_DESC32_LO_32 = 62
    R_CUDA_FUNC_DESC32_HI_32 = 63
    R_CUDA_CONST_FIELD19_40 = 64
    R_CUDA_BINDLESSOFF14_40 = 65
    R_CUDA_CONST_FIELD21_38 = 66
    R_CUDA_INSTRUCTION128 = 67
    R_CUDA_YIELD_OPCODE9_0 = 68
    R_CUDA_YIELD_CLEAR_PRED4_87 = 69
    R_CUDA_32_LO = 70
    R_CUDA_32_HI = 71
    R_CUDA_UNUSED_CLEAR32 = 72
    R_CUDA_UNUSED_CLEAR64 = 73
    R_CUDA_ABS24_40 = 74
    R_CUDA_ABS55_16_34 = 75
    R_CUDA_8_0 = 76
    R_CUDA_8_8 = 77
    R_CUDA_8_16 = 78
    R_CUDA_8_24 = 79
    R_CUDA_8_32 = 80
    R_CUDA_8_40 = 81
    R_CUDA_8_48 = 82
    R_CUDA_8_56 = 83
    R_CUDA_G8_0 = 84
    R_CUDA_G8_8 = 85
    R_CUDA_G8_16 = 86
    R_CUDA_G8_24 = 87
    R_CUDA_G8_32 = 88
    R_CUDA_G8_40 = 89
    R_CUDA_G8_48 = 90
    R_CUDA_G8_56 = 91
    R_CUDA_FUNC_DESC_8_0 = 92
    R_CUDA_FUNC_DESC_8_8 = 93
    R_CUDA_FUNC_DESC_8_16 = 94
    R_CUDA_FUNC_DESC_8_24 = 95
    R_CUDA_FUNC_DESC_8_32 = 96
    R_CUDA_FUNC_DESC_8_40 = 97
    R_CUDA_FUNC_DESC_8_48 = 98
    R_CUDA_FUNC_DESC_8_56 = 99
    R_CUDA_ABS20_44 = 100
    R_CUDA_SAMP_HEADER_INDEX_0 = 101
    R_CUDA_UNIFIED = 102
    R_CUDA_UNIFIED_32 = 103
    R_CUDA_UNIFIED_8_0 = 104
    R_CUDA_UNIFIED_8_8 = 105
    R_CUDA_UNIFIED_8_16 = 106
    R_CUDA_UNIFIED_8_24 = 107
    R_CUDA_UNIFIED_8_32 = 108
    R_CUDA_UNIFIED_8_40 = 109
    R_CUDA_UNIFIED_8_48 = 110
    R_CUDA_UNIFIED_8_56 = 111
    R_CUDA_UNIFIED32_LO_32 = 112
    R_CUDA_UNIFIED32_HI_32 = 113
    R_CUDA_ABS56_16_34 = 114
    R_CUDA_CONST_FIELD22_37 = 115
    R_CUDA_NONE_LAST = 116


# Mercury relocations (sm_100+ .nv.merc.rela*) are stored as 0x10000 + ordinal. The ordinal-to-name
# table is not known (cuobjdump does not dump Mercury sections), so they print as R_MERCURY_<n>.
MERCURY_RELOC_BASE = 0x10000


def reloc_type_name(value: int) -> str:
    if value >= MERCURY_RELOC_BASE:
        return f"R_MERCURY_{value - MERCURY_RELOC_BASE}"
    try:
        return RelocType(value).name
    except ValueError:
        return f"R_CUDA_{value}"


def reloc_type_from_name(name: str) -> int:
    if name.startswith("R_MERCURY_") and name[10:].isdigit():
        return MERCURY_RELOC_BASE + int(name[10:])
    if name in RelocType.__members__:
        return int(RelocType[name])
    if name.startswith("R_CUDA_") and name[7:].isdigit():
        return int(name[7:])
    raise ValueError(f"unknown relocation type {name!r}")
