"""EIATTR records (``.nv.info``, ``.nv.info.<f>``) and ``.nv.compat`` records, decoded by name.

Record layout (verified on every cubin ptxas 13.0.88 writes): ``u8 format, u8 code`` then

==========  =====================================================================
format      rest of the record
==========  =====================================================================
1 NVAL      two zero bytes (a flag: present or not)
2 BVAL      ``u8 value``, one zero byte
3 HVAL      ``u16 value``
4 SVAL      ``u16 size``, then ``size`` bytes of payload (always a multiple of 4)
==========  =====================================================================

SVAL payloads are decoded by attribute code into the typed values below; a payload that does not
fit its code's layout stays :class:`Raw`, so decoding never loses a byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from openptxas.diag import CubinFormatError


class Fmt(IntEnum):
    NVAL = 1
    BVAL = 2
    HVAL = 3
    SVAL = 4


class EIATTR(IntEnum):
    """EIATTR codes 0..0x60. Names as cuobjdump prints them (the seeds' table agrees)."""

    ERROR = 0x00
    PAD = 0x01
    IMAGE_SLOT = 0x02
    JUMPTABLE_RELOCS = 0x03
    CTAIDZ_USED = 0x04
    MAX_THREADS = 0x05
    IMAGE_OFFSET = 0x06
    IMAGE_SIZE = 0x07
    TEXTURE_NORMALIZED = 0x08
    SAMPLER_INIT = 0x09
    PARAM_CBANK = 0x0A
    SMEM_PARAM_OFFSETS = 0x0B
    CBANK_PARAM_OFFSETS = 0x0C
    SYNC_STACK = 0x0D
    TEXID_SAMPID_MAP = 0x0E
    EXTERNS = 0x0F
    REQNTID = 0x10
    FRAME_SIZE = 0x11
    MIN_STACK_SIZE = 0x12
    SAMPLER_FORCE_UNNORMALIZED = 0x13
    BINDLESS_IMAGE_OFFSETS = 0x14
    BINDLESS_TEXTURE_BANK = 0x15
    BINDLESS_SURFACE_BANK = 0x16
    KPARAM_INFO = 0x17
    SMEM_PARAM_SIZE = 0x18
    CBANK_PARAM_SIZE = 0x19
    QUERY_NUMATTRIB = 0x1A
    MAXREG_COUNT = 0x1B
    EXIT_INSTR_OFFSETS = 0x1C
    S2RCTAID_INSTR_OFFSETS = 0x1D
    CRS_STACK_SIZE = 0x1E
    NEED_CNP_WRAPPER = 0x1F
    NEED_CNP_PATCH = 0x20
    EXPLICIT_CACHING = 0x21
    ISTYPEP_USED = 0x22
    MAX_STACK_SIZE = 0x23
    SUQ_USED = 0x24
    LD_CACHEMOD_INSTR_OFFSETS = 0x25
    LOAD_CACHE_REQUEST = 0x26
    ATOM_SYS_INSTR_OFFSETS = 0x27
    COOP_GROUP_INSTR_OFFSETS = 0x28
    COOP_GROUP_MASK_REGIDS = 0x29
    SW1850030_WAR = 0x2A
    WMMA_USED = 0x2B
    HAS_PRE_V10_OBJECT = 0x2C
    ATOMF16_EMUL_INSTR_OFFSETS = 0x2D
    ATOM16_EMUL_INSTR_REG_MAP = 0x2E
    REGCOUNT = 0x2F
    SW2393858_WAR = 0x30
    INT_WARP_WIDE_INSTR_OFFSETS = 0x31
    SHARED_SCRATCH = 0x32
    STATISTICS = 0x33
    INDIRECT_BRANCH_TARGETS = 0x34
    SW2861232_WAR = 0x35
    SW_WAR = 0x36
    CUDA_API_VERSION = 0x37
    NUM_MBARRIERS = 0x38
    MBARRIER_INSTR_OFFSETS = 0x39
    COROUTINE_RESUME_OFFSETS = 0x3A
    SAM_REGION_STACK_SIZE = 0x3B
    PER_REG_TARGET_PERF_STATS = 0x3C
    CTA_PER_CLUSTER = 0x3D
    EXPLICIT_CLUSTER = 0x3E
    MAX_CLUSTER_RANK = 0x3F
    INSTR_REG_MAP = 0x40
    RESERVED_SMEM_USED = 0x41
    RESERVED_SMEM_0_SIZE = 0x42
    UCODE_SECTION_DATA = 0x43
    UNUSED_LOAD_BYTE_OFFSET = 0x44
    KPARAM_INFO_V2 = 0x45
    SYSCALL_OFFSETS = 0x46
    SW_WAR_MEMBAR_SYS_INSTR_OFFSETS = 0x47
    GRAPHICS_GLOBAL_CBANK = 0x48
    SHADER_TYPE = 0x49
    VRC_CTA_INIT_COUNT = 0x4A
    TOOLS_PATCH_FUNC = 0x4B
    NUM_BARRIERS = 0x4C
    TEXMODE_INDEPENDENT = 0x4D
    PERF_STATISTICS = 0x4E
    AT_ENTRY_FRAGMENTS = 0x4F
    SPARSE_MMA_MASK = 0x50
    TCGEN05_1CTA_USED = 0x51
    TCGEN05_2CTA_USED = 0x52
    GEN_ERRBAR_AT_EXIT = 0x53
    REG_RECONFIG = 0x54
    ANNOTATIONS = 0x55
    UNKNOWN = 0x56
    STACK_CANARY_TRAP_OFFSETS = 0x57
    STUB_FUNCTION_KIND = 0x58
    LOCAL_CTA_ASYNC_STORE_OFFSETS = 0x59
    MERCURY_FINALIZER_OPTIONS = 0x5A
    BLOCKS_ARE_CLUSTERS = 0x5B
    SANITIZE = 0x5C
    SYSCALLS_FALLBACK = 0x5D
    CUDA_REQ = 0x5E
    MERCURY_ISA_VERSION = 0x5F
    ERROR_LAST = 0x60


class EICOMPAT(IntEnum):
    """``.nv.compat`` attribute codes (sm_90+), named as cuobjdump prints them."""

    ISA_CLASS = 0x02
    INST_TENSORMAP_V1 = 0x03
    INST_TCGEN05_MMA = 0x05
    ENABLE_OPPORTUNISTIC_FINALIZATION = 0x06
    MERCURY_ISA_MAJOR_MINOR_VERSION = 0x07
    CUDA_ACCELERATOR_TARGET = 0x09
    CAN_FASTPATH_FINALIZE = 0x0B


def eiattr_name(code: int) -> str:
    try:
        return "EIATTR_" + EIATTR(code).name
    except ValueError:
        return f"EIATTR_{code:#x}"


def eicompat_name(code: int) -> str:
    try:
        return "EICOMPAT_ATTR_" + EICOMPAT(code).name
    except ValueError:
        return f"EICOMPAT_ATTR_{code:#x}"


# ----------------------------------------------------------------------------------------------
# Typed SVAL payloads


@dataclass(frozen=True, slots=True)
class Raw:
    """A payload kept as bytes (unknown code, or bytes that do not fit the code's layout)."""

    data: bytes

    def encode(self) -> bytes:
        return self.data


@dataclass(frozen=True, slots=True)
class SymValue:
    """``[u32 symbol index][u32 value]``: REGCOUNT, FRAME_SIZE, MIN/MAX_STACK_SIZE (.nv.info)."""

    sym: int
    value: int

    def encode(self) -> bytes:
        return struct.pack("<II", self.sym, self.value)


@dataclass(frozen=True, slots=True)
class Words:
    """A list of u32: instruction offsets, symbol indices (EXTERNS), single counts."""

    values: tuple[int, ...]

    def encode(self) -> bytes:
        return struct.pack(f"<{len(self.values)}I", *self.values)


@dataclass(frozen=True, slots=True)
class Dim3:
    """``x, y, z`` as three u32: MAX_THREADS, REQNTID, CTA_PER_CLUSTER."""

    x: int
    y: int
    z: int

    def encode(self) -> bytes:
        return struct.pack("<III", self.x, self.y, self.z)


@dataclass(frozen=True, slots=True)
class ParamCBank:
    """PARAM_CBANK: ``[u32 sym of .nv.constant0.<f>][u16 offset][u16 size]``.

    The seeds' reading (bank in the low half, offset in the high half) is wrong.
    """

    sym: int
    offset: int
    size: int

    def encode(self) -> bytes:
        return struct.pack("<IHH", self.sym, self.offset, self.size)


class ParamSpace(IntEnum):
    CBANK = 0
    SMEM = 1


@dataclass(frozen=True, slots=True)
class KParamInfo:
    """KPARAM_INFO: ``u32 index, u16 ordinal, u16 offset, u32 flags`` with flags =
    ``log_align | space << 8 | cbank << 12 | param_space << 17 | size << 18`` (sizes below 16 KiB;
    larger parameters use KPARAM_INFO_V2)."""

    index: int
    ordinal: int
    offset: int
    size: int
    log_align: int = 0
    space: int = 0
    cbank: int = 0x1F
    param_space: int = 0

    def encode(self) -> bytes:
        flags = (
            self.log_align
            | self.space << 8
            | self.cbank << 12
            | self.param_space << 17
            | self.size << 18
        )
        return struct.pack("<IHHI", self.index, self.ordinal, self.offset, flags)


@dataclass(frozen=True, slots=True)
class KParamInfoV2:
    """KPARAM_INFO_V2 (parameters of 16 KiB and more): ``u32 index, u16 ordinal, u16 offset,
    u32 size``. ``size`` is the whole word: cuobjdump reads the parameter's size from bits 0-15,
    the pointee's log alignment from 16-23 and its state space from 24-31 (sm_100's ptxas sets
    them: a global pointer's word is 0x05000008; :func:`kparam_v2_fields` splits it)."""

    index: int
    ordinal: int
    offset: int
    size: int

    def encode(self) -> bytes:
        return struct.pack("<IHHI", self.index, self.ordinal, self.offset, self.size)


def kparam_v2_fields(word: int) -> tuple[int, int, int]:
    """(size, pointee's log alignment, pointee's space) of a KPARAM_INFO_V2 size word."""
    return word & 0xFFFF, word >> 16 & 0xFF, word >> 24 & 0xFF


@dataclass(frozen=True, slots=True)
class MbarrierOffsets:
    """MBARRIER_INSTR_OFFSETS: 16-byte entries ``(offset, a, b, c)`` of u32 (not a u32 list)."""

    entries: tuple[tuple[int, int, int, int], ...]

    def encode(self) -> bytes:
        return b"".join(struct.pack("<4I", *e) for e in self.entries)


@dataclass(frozen=True, slots=True)
class IndirectBranch:
    offset: int  # the BRX instruction
    aux: int
    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class IndirectBranchTargets:
    """INDIRECT_BRANCH_TARGETS: per indirect branch ``u32 offset, u32 aux, u32 n, n x u32``."""

    branches: tuple[IndirectBranch, ...]

    def encode(self) -> bytes:
        out = bytearray()
        for b in self.branches:
            out += struct.pack(
                f"<III{len(b.targets)}I", b.offset, b.aux, len(b.targets), *b.targets
            )
        return bytes(out)


SValue = (
    Raw
    | SymValue
    | Words
    | Dim3
    | ParamCBank
    | KParamInfo
    | KParamInfoV2
    | MbarrierOffsets
    | IndirectBranchTargets
)

# SVAL codes whose payload is a list of u32.
_WORD_CODES = frozenset(
    {
        EIATTR.EXTERNS,
        EIATTR.EXIT_INSTR_OFFSETS,
        EIATTR.S2RCTAID_INSTR_OFFSETS,
        EIATTR.CRS_STACK_SIZE,
        EIATTR.LD_CACHEMOD_INSTR_OFFSETS,
        EIATTR.ATOM_SYS_INSTR_OFFSETS,
        EIATTR.COOP_GROUP_INSTR_OFFSETS,
        EIATTR.COOP_GROUP_MASK_REGIDS,
        EIATTR.ATOMF16_EMUL_INSTR_OFFSETS,
        EIATTR.INT_WARP_WIDE_INSTR_OFFSETS,
        EIATTR.SW_WAR,
        EIATTR.CUDA_API_VERSION,
        EIATTR.COROUTINE_RESUME_OFFSETS,
        EIATTR.MAX_CLUSTER_RANK,
        EIATTR.UNUSED_LOAD_BYTE_OFFSET,
        EIATTR.SYSCALL_OFFSETS,
        EIATTR.SW_WAR_MEMBAR_SYS_INSTR_OFFSETS,
        EIATTR.STACK_CANARY_TRAP_OFFSETS,
        EIATTR.LOCAL_CTA_ASYNC_STORE_OFFSETS,
    }
)
_SYMVALUE_CODES = frozenset(
    {EIATTR.REGCOUNT, EIATTR.FRAME_SIZE, EIATTR.MIN_STACK_SIZE, EIATTR.MAX_STACK_SIZE}
)
_DIM3_CODES = frozenset({EIATTR.MAX_THREADS, EIATTR.REQNTID, EIATTR.CTA_PER_CLUSTER})


def _decode_indirect(data: bytes) -> IndirectBranchTargets | None:
    out: list[IndirectBranch] = []
    o = 0
    while o < len(data):
        if o + 12 > len(data):
            return None
        off, aux, n = struct.unpack_from("<III", data, o)
        o += 12
        if o + 4 * n > len(data):
            return None
        out.append(IndirectBranch(off, aux, struct.unpack_from(f"<{n}I", data, o)))
        o += 4 * n
    return IndirectBranchTargets(tuple(out))


def decode_sval(code: int, data: bytes) -> SValue:
    """Decode an SVAL payload by its attribute code (EIATTR numbering)."""
    n = len(data)
    if n % 4:
        return Raw(data)
    value: SValue | None = None
    if code in _WORD_CODES:
        value = Words(struct.unpack(f"<{n // 4}I", data))
    elif code in _SYMVALUE_CODES and n == 8:
        value = SymValue(*struct.unpack("<II", data))
    elif code in _DIM3_CODES and n == 12:
        value = Dim3(*struct.unpack("<III", data))
    elif code == EIATTR.PARAM_CBANK and n == 8:
        value = ParamCBank(*struct.unpack("<IHH", data))
    elif code == EIATTR.KPARAM_INFO and n == 12:
        index, ordinal, offset, flags = struct.unpack("<IHHI", data)
        value = KParamInfo(
            index,
            ordinal,
            offset,
            size=flags >> 18,
            log_align=flags & 0xFF,
            space=(flags >> 8) & 0xF,
            cbank=(flags >> 12) & 0x1F,
            param_space=(flags >> 17) & 1,
        )
    elif code == EIATTR.KPARAM_INFO_V2 and n == 12:
        value = KParamInfoV2(*struct.unpack("<IHHI", data))
    elif code == EIATTR.MBARRIER_INSTR_OFFSETS and n % 16 == 0:
        value = MbarrierOffsets(tuple(struct.unpack_from("<4I", data, o) for o in range(0, n, 16)))
    elif code == EIATTR.INDIRECT_BRANCH_TARGETS:
        value = _decode_indirect(data)
    if value is None or value.encode() != data:
        return Raw(data)
    return value


# ----------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True)
class Attribute:
    """One record. ``value``: None (NVAL), an int (BVAL/HVAL) or a typed SVAL payload."""

    fmt: Fmt
    code: int
    value: int | SValue | None = None

    @property
    def name(self) -> str:
        return eiattr_name(self.code)

    def encode(self) -> bytes:
        if self.fmt == Fmt.NVAL:
            return bytes([self.fmt, self.code, 0, 0])
        if self.fmt == Fmt.BVAL:
            assert isinstance(self.value, int)
            return bytes([self.fmt, self.code, self.value, 0])
        if self.fmt == Fmt.HVAL:
            assert isinstance(self.value, int)
            return struct.pack("<BBH", self.fmt, self.code, self.value)
        assert self.value is not None and not isinstance(self.value, int)
        payload = self.value.encode()
        return struct.pack("<BBH", self.fmt, self.code, len(payload)) + payload

    @staticmethod
    def sval(code: int, value: SValue) -> Attribute:
        return Attribute(Fmt.SVAL, code, value)

    @staticmethod
    def hval(code: int, value: int) -> Attribute:
        return Attribute(Fmt.HVAL, code, value)

    @staticmethod
    def bval(code: int, value: int) -> Attribute:
        return Attribute(Fmt.BVAL, code, value)

    @staticmethod
    def nval(code: int) -> Attribute:
        return Attribute(Fmt.NVAL, code, None)


def decode_records(data: bytes, typed: bool = True) -> tuple[Attribute, ...]:
    """Split a ``.nv.info``/``.nv.compat`` section into records; raise CubinFormatError on junk.

    ``typed=False`` keeps SVAL payloads as :class:`Raw` (``.nv.compat`` uses other codes).
    """
    out: list[Attribute] = []
    o = 0
    n = len(data)
    while o < n:
        if o + 4 > n:
            raise CubinFormatError(f"truncated attribute record at offset {o:#x}")
        fmt, code = data[o], data[o + 1]
        if fmt == Fmt.NVAL:
            if data[o + 2 : o + 4] != b"\0\0":
                raise CubinFormatError(f"attribute {code:#x} at {o:#x}: unexpected NVAL bytes")
            out.append(Attribute(Fmt.NVAL, code))
            o += 4
        elif fmt == Fmt.BVAL:
            if data[o + 3] != 0:
                raise CubinFormatError(f"attribute {code:#x} at {o:#x}: unexpected BVAL byte")
            out.append(Attribute(Fmt.BVAL, code, data[o + 2]))
            o += 4
        elif fmt == Fmt.HVAL:
            out.append(Attribute(Fmt.HVAL, code, struct.unpack_from("<H", data, o + 2)[0]))
            o += 4
        elif fmt == Fmt.SVAL:
            size = struct.unpack_from("<H", data, o + 2)[0]
            if o + 4 + size > n:
                raise CubinFormatError(
                    f"attribute {code:#x} at {o:#x}: payload of {size} bytes runs past the end"
                )
            payload = data[o + 4 : o + 4 + size]
            value = decode_sval(code, payload) if typed else Raw(payload)
            out.append(Attribute(Fmt.SVAL, code, value))
            o += 4 + size
        else:
            raise CubinFormatError(f"unknown attribute format {fmt} at offset {o:#x}")
    return tuple(out)


def encode_records(attrs: tuple[Attribute, ...] | list[Attribute]) -> bytes:
    return b"".join(a.encode() for a in attrs)
