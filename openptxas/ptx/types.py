"""PTX's closed vocabularies: data types, state spaces, comparison and rounding modes, ...

Each is a ``StrEnum`` whose value is the PTX spelling without the leading dot, so ``str(t)`` and
``f".{t}"`` print PTX and ``PtxType("f32")`` parses it.
"""

from __future__ import annotations

from enum import StrEnum


class PtxType(StrEnum):
    """A PTX fundamental type (``.b32``, ``.f16x2``, ``.pred``, ...) or an opaque type."""

    B8 = "b8"
    B16 = "b16"
    B32 = "b32"
    B64 = "b64"
    B128 = "b128"
    U8 = "u8"
    U16 = "u16"
    U32 = "u32"
    U64 = "u64"
    S8 = "s8"
    S16 = "s16"
    S32 = "s32"
    S64 = "s64"
    F16 = "f16"
    F16X2 = "f16x2"
    BF16 = "bf16"
    BF16X2 = "bf16x2"
    TF32 = "tf32"
    F32 = "f32"
    F32X2 = "f32x2"
    F64 = "f64"
    U16X2 = "u16x2"
    S16X2 = "s16x2"
    # sub-byte and narrow float types (mma, cvt, tcgen05)
    B1 = "b1"
    U4 = "u4"
    S4 = "s4"
    U2 = "u2"
    S2 = "s2"
    E4M3 = "e4m3"
    E5M2 = "e5m2"
    E2M1 = "e2m1"
    E2M3 = "e2m3"
    E3M2 = "e3m2"
    E4M3X2 = "e4m3x2"
    E5M2X2 = "e5m2x2"
    E2M1X2 = "e2m1x2"
    E2M3X2 = "e2m3x2"
    E3M2X2 = "e3m2x2"
    UE8M0X2 = "ue8m0x2"
    E4M3X4 = "e4m3x4"
    E5M2X4 = "e5m2x4"
    E2M1X4 = "e2m1x4"
    E2M3X4 = "e2m3x4"
    E3M2X4 = "e3m2x4"
    UE8M0 = "ue8m0"
    UE4M3 = "ue4m3"
    PRED = "pred"
    # opaque types (textures, samplers, surfaces)
    TEXREF = "texref"
    SAMPLERREF = "samplerref"
    SURFREF = "surfref"

    @property
    def size(self) -> int:
        """Size in bytes (0 for predicates and opaque types, 1 for sub-byte types)."""
        return _SIZE[self]

    @property
    def bits(self) -> int:
        return _BITS[self]

    @property
    def kind(self) -> str:
        """'b' bits, 'u' unsigned, 's' signed, 'f' float, 'pred', 'opaque'."""
        return _KIND[self]

    @property
    def is_float(self) -> bool:
        return _KIND[self] == "f"

    @property
    def is_int(self) -> bool:
        return _KIND[self] in ("u", "s")

    @property
    def is_signed(self) -> bool:
        return _KIND[self] == "s"


_BITS: dict[PtxType, int] = {
    PtxType.B8: 8,
    PtxType.B16: 16,
    PtxType.B32: 32,
    PtxType.B64: 64,
    PtxType.B128: 128,
    PtxType.U8: 8,
    PtxType.U16: 16,
    PtxType.U32: 32,
    PtxType.U64: 64,
    PtxType.S8: 8,
    PtxType.S16: 16,
    PtxType.S32: 32,
    PtxType.S64: 64,
    PtxType.F16: 16,
    PtxType.F16X2: 32,
    PtxType.BF16: 16,
    PtxType.BF16X2: 32,
    PtxType.TF32: 32,
    PtxType.F32: 32,
    PtxType.F32X2: 64,
    PtxType.F64: 64,
    PtxType.U16X2: 32,
    PtxType.S16X2: 32,
    PtxType.B1: 1,
    PtxType.U4: 4,
    PtxType.S4: 4,
    PtxType.U2: 2,
    PtxType.S2: 2,
    PtxType.E4M3: 8,
    PtxType.E5M2: 8,
    PtxType.E2M1: 4,
    PtxType.E2M3: 6,
    PtxType.E3M2: 6,
    PtxType.E4M3X2: 16,
    PtxType.E5M2X2: 16,
    PtxType.E2M1X2: 8,
    PtxType.E2M3X2: 16,
    PtxType.E3M2X2: 16,
    PtxType.UE8M0X2: 16,
    PtxType.E4M3X4: 32,
    PtxType.E5M2X4: 32,
    PtxType.E2M1X4: 16,
    PtxType.E2M3X4: 32,
    PtxType.E3M2X4: 32,
    PtxType.UE8M0: 8,
    PtxType.UE4M3: 8,
    PtxType.PRED: 0,
    PtxType.TEXREF: 64,
    PtxType.SAMPLERREF: 64,
    PtxType.SURFREF: 64,
}
_SIZE: dict[PtxType, int] = {t: (b + 7) // 8 for t, b in _BITS.items()}
_SIZE[PtxType.PRED] = 0
_KIND: dict[PtxType, str] = {}
for _t in PtxType:
    if _t in (PtxType.PRED,):
        _KIND[_t] = "pred"
    elif _t in (PtxType.TEXREF, PtxType.SAMPLERREF, PtxType.SURFREF):
        _KIND[_t] = "opaque"
    elif _t.value[0] == "b" and not _t.value.startswith("bf"):
        _KIND[_t] = "b"
    elif _t.value[0] == "u" and not _t.value.startswith("ue"):
        _KIND[_t] = "u"
    elif _t.value[0] == "s":
        _KIND[_t] = "s"
    else:
        _KIND[_t] = "f"

TYPE_NAMES: frozenset[str] = frozenset(t.value for t in PtxType)


class StateSpace(StrEnum):
    """A state space as written in PTX (``.shared::cta`` keeps its sub-qualifier)."""

    REG = "reg"
    SREG = "sreg"
    CONST = "const"
    GLOBAL = "global"
    LOCAL = "local"
    PARAM = "param"
    PARAM_ENTRY = "param::entry"
    PARAM_FUNC = "param::func"
    SHARED = "shared"
    SHARED_CTA = "shared::cta"
    SHARED_CLUSTER = "shared::cluster"
    TEX = "tex"

    @property
    def base(self) -> StateSpace:
        """The space without its sub-qualifier (``shared::cta`` -> ``shared``)."""
        return _SPACE_BASE.get(self, self)


_SPACE_BASE = {
    StateSpace.PARAM_ENTRY: StateSpace.PARAM,
    StateSpace.PARAM_FUNC: StateSpace.PARAM,
    StateSpace.SHARED_CTA: StateSpace.SHARED,
    StateSpace.SHARED_CLUSTER: StateSpace.SHARED,
}
SPACE_NAMES: frozenset[str] = frozenset(s.value for s in StateSpace) - {"sreg"}


class CmpOp(StrEnum):
    """Comparison operators of setp/set (integer, unsigned and float-unordered forms)."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"
    LO = "lo"
    LS = "ls"
    HI = "hi"
    HS = "hs"
    EQU = "equ"
    NEU = "neu"
    LTU = "ltu"
    LEU = "leu"
    GTU = "gtu"
    GEU = "geu"
    NUM = "num"
    NAN = "nan"


CMP_NAMES: frozenset[str] = frozenset(c.value for c in CmpOp)


class BoolOp(StrEnum):
    """The boolean combining operation of setp/set (``setp.lt.and.s32``)."""

    AND = "and"
    OR = "or"
    XOR = "xor"


class Rounding(StrEnum):
    RN = "rn"
    RZ = "rz"
    RM = "rm"
    RP = "rp"
    RNA = "rna"
    RS = "rs"
    RNI = "rni"
    RZI = "rzi"
    RMI = "rmi"
    RPI = "rpi"

    @property
    def is_integer(self) -> bool:
        """The ``.rni/.rzi/.rmi/.rpi`` forms (round to an integral value)."""
        return self.value.endswith("i")


RND_NAMES: frozenset[str] = frozenset(r.value for r in Rounding)


class Sem(StrEnum):
    """Memory-consistency semantics of ld/st/atom/fence/mbarrier/..."""

    WEAK = "weak"
    VOLATILE = "volatile"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"
    SC = "sc"
    MMIO = "mmio"


class Scope(StrEnum):
    CTA = "cta"
    CLUSTER = "cluster"
    GPU = "gpu"
    SYS = "sys"


class CacheOp(StrEnum):
    """Cache operators of ld/st (``.ca .cg .cs .lu .cv .wb .wt``)."""

    CA = "ca"
    CG = "cg"
    CS = "cs"
    LU = "lu"
    CV = "cv"
    WB = "wb"
    WT = "wt"


class Linkage(StrEnum):
    VISIBLE = "visible"
    EXTERN = "extern"
    WEAK = "weak"
    COMMON = "common"


# Special registers: name -> (type, components allowed, how many instances for %envreg/%pm).
SPECIAL_REGISTERS: dict[str, PtxType] = {
    "%tid": PtxType.U32,
    "%ntid": PtxType.U32,
    "%laneid": PtxType.U32,
    "%warpid": PtxType.U32,
    "%nwarpid": PtxType.U32,
    "%ctaid": PtxType.U32,
    "%nctaid": PtxType.U32,
    "%smid": PtxType.U32,
    "%nsmid": PtxType.U32,
    "%gridid": PtxType.U64,
    "%lanemask_eq": PtxType.U32,
    "%lanemask_le": PtxType.U32,
    "%lanemask_lt": PtxType.U32,
    "%lanemask_ge": PtxType.U32,
    "%lanemask_gt": PtxType.U32,
    "%clock": PtxType.U32,
    "%clock_hi": PtxType.U32,
    "%clock64": PtxType.U64,
    "%globaltimer": PtxType.U64,
    "%globaltimer_lo": PtxType.U32,
    "%globaltimer_hi": PtxType.U32,
    "%total_smem_size": PtxType.U32,
    "%aggr_smem_size": PtxType.U32,
    "%dynamic_smem_size": PtxType.U32,
    "%reserved_smem_offset_begin": PtxType.B32,
    "%reserved_smem_offset_end": PtxType.B32,
    "%reserved_smem_offset_cap": PtxType.B32,
    "%reserved_smem_offset_0": PtxType.B32,
    "%reserved_smem_offset_1": PtxType.B32,
    "%is_explicit_cluster": PtxType.PRED,
    "%clusterid": PtxType.U32,
    "%nclusterid": PtxType.U32,
    "%cluster_ctaid": PtxType.U32,
    "%cluster_nctaid": PtxType.U32,
    "%cluster_ctarank": PtxType.U32,
    "%cluster_nctarank": PtxType.U32,
    "%current_graph_exec": PtxType.U64,
}
for _i in range(32):
    SPECIAL_REGISTERS[f"%envreg{_i}"] = PtxType.B32
for _i in range(8):
    SPECIAL_REGISTERS[f"%pm{_i}"] = PtxType.U32
    SPECIAL_REGISTERS[f"%pm{_i}_64"] = PtxType.U64

# Special registers that are vectors: they take a .x/.y/.z component (and are v4 when bare).
VECTOR_SPECIAL_REGISTERS: frozenset[str] = frozenset(
    {
        "%tid",
        "%ntid",
        "%ctaid",
        "%nctaid",
        "%clusterid",
        "%nclusterid",
        "%cluster_ctaid",
        "%cluster_nctaid",
    }
)
