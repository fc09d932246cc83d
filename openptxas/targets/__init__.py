"""The target model: the one place that knows an SM.

``get_target(name)`` gives an :class:`SMInfo`: the target's facts (register files, ELF layout),
its ABI (:class:`Abi`: where the driver puts kernel parameters and launch geometry in constant
bank 0, the stack pointer, the registers ptxas never allocates), its lowering choices
(:class:`Lowering`), its latency model (``t.latency``, shared with the hazard checkers) and the
operation properties derived from its ISA table (``t.ops``: immediate and uniform-register slots,
uniform twins, memory operations). Every other stage asks for a capability (``t.abi.cb_stack``,
``t.ops.slots("IADD3")``, ``t.latency.is_variable(op)``) instead of comparing SM numbers; the
compiler's stages receive the target in their pass context. The values live in
``data/sm_XX.toml`` and were checked against ptxas 13.0.88 output (see each file's comments).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING

from openptxas.diag import UnsupportedFeature, UsageError

if TYPE_CHECKING:
    from openptxas.isa.family import Family
    from openptxas.targets.latency import LatencyModel
    from openptxas.targets.ops import OpProperties

# Targets openptxas knows, in ptxas's spelling. Variants (a/f) share their base's data file and
# override the few fields that differ.
BASE_TARGETS: tuple[str, ...] = (
    *("sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90"),
    *("sm_100", "sm_103", "sm_110", "sm_120", "sm_121"),
)

# The target whose latency model the hazard checkers (and the control-code pass) default to:
# the one the emulator models.
EMULATED_TARGET = "sm_90"

# Abi.global_address's values
GLOBAL_ADDRESS = ("desc", "hidden_desc", "plain")

_NAME = re.compile(r"^sm_(\d+)([af]?)$")


@dataclass(frozen=True, slots=True)
class Bank0:
    """Constant bank 0 as the driver fills it before a launch: the offsets of each value ptxas's
    code reads there (the ``[bank0]`` table, learned with scripts/probe_bank0.py; -1: the
    target has no such value). The emulator fills bank 0 from it; the compiler's ``Abi`` takes
    its ``cb_*`` offsets from it."""

    stack: int  # the initial stack pointer (u32): per-thread local memory size
    global_desc: int  # the 64-bit global memory descriptor (ULDC.64 UR4 before LDG/STG)
    ntid: tuple[int, int, int]  # %ntid.x/y/z
    nctaid: tuple[int, int, int]  # %nctaid.x/y/z
    local_window: int  # u64: generic address of local address 0 (cvta.local)
    # u64: the generic address of bank 0's byte ``param_window_base`` (cvta.param: sm_90's
    # points at the first parameter, sm_80's at byte 0 and the code adds the parameter base)
    param_window: int
    param_window_base: int
    shared_window: int  # u64: generic address of shared address 0 (sm_90: SR_SWINHI instead)
    dynamic_smem_size: int
    gridid: int  # u64
    envreg: int  # %envreg0 (%envregN at +4N)
    reserved_smem_offset_end: int
    reserved_smem_offset_1: int
    nsmid: int
    reserved_smem_size: int  # the reserved shared size (%total_smem_size = SR_SMEMSZ - it)
    explicit_cluster: int  # 1 for an explicit cluster launch
    cluster_nctaid: int  # %cluster_nctaid.x (.y, .z follow)
    cluster_rcp: int  # f32 1/%cluster_nctaid.x rounded up (.y, .z follow)
    nclusterid: int  # %nclusterid.x (.y, .z follow)
    cluster_nctarank: int
    shared_base: int  # shared-window address of the first static shared byte (not in bank 0)
    # Blackwell reads some values per CGA (``CS2R.32 R5, SR_CgaSize; IMAD R5, R5, -0xa0, RZ;
    # LDC R5, c[0x0][R5+0x2ac]``): those named here sit at their offset + cga_stride *
    # SR_CgaSize (their offsets above are the reads' immediates)
    cga_stride: int = 0
    cga_indexed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "cga_indexed", tuple(self.cga_indexed))  # (a TOML list)

    def _plain(self, name: str) -> int:
        """The offset of value ``name`` where it is read at a fixed offset; -1 where it is read
        per CGA (an offset the compiler cannot use as it stands: such values are refused)."""
        return -1 if name in self.cga_indexed else int(getattr(self, name))

    def abi_fields(self) -> dict[str, object]:
        """The ``Abi`` fields these offsets give."""
        p = self._plain
        sreg = {
            "%dynamic_smem_size": p("dynamic_smem_size"),
            "%gridid": p("gridid"),
            "%reserved_smem_offset_end": p("reserved_smem_offset_end"),
            "%reserved_smem_offset_1": p("reserved_smem_offset_1"),
            "%nsmid": p("nsmid"),
            "%cluster_nctarank": p("cluster_nctarank"),
        }
        return {
            "cb_ntid": self.ntid,
            "cb_nctaid": self.nctaid,
            "cb_stack": self.stack,
            "cb_local_window": self.local_window,
            "cb_param_window": self.param_window,
            "cb_global_desc": self.global_desc,
            "cb_shared_window": self.shared_window,
            "shared_base": self.shared_base,
            "cb_envreg": p("envreg"),
            "cb_reserved_smem_size": self.reserved_smem_size,
            "cb_is_explicit_cluster": self.explicit_cluster,
            "cb_cluster_nctaid": p("cluster_nctaid"),
            "cb_nclusterid": p("nclusterid"),
            "cb_cluster_rcp": p("cluster_rcp"),
            "cb_sreg": {k: v for k, v in sreg.items() if v >= 0},
        }


@dataclass(frozen=True, slots=True)
class Abi:
    """ptxas's kernel ABI on a target (the ``[abi]`` table of its data file)."""

    cb_ntid: tuple[int, int, int]  # bank-0 offsets of %ntid.x/y/z
    cb_nctaid: tuple[int, int, int]  # ... of %nctaid.x/y/z
    cb_stack: int  # ... of the initial stack pointer
    cb_local_window: int  # ... of the 64-bit generic address of local address 0 (cvta.local)
    cb_param_window: int  # ... of the 64-bit generic address of the kernel parameters (cvta.param)
    cb_global_desc: int  # ... of the 64-bit global memory descriptor (desc[UR][...])
    shared_base: int  # shared-window address of the first static shared byte
    stack_pointer: int  # the R register holding the stack pointer
    first_ur: int  # the lowest uniform register ptxas allocates
    regcount_extra: int  # registers "Used N registers" counts beyond the highest one named
    frame_cie: bytes  # the .debug_frame CIE of a function without a stack frame
    # how a global access names its address (one of GLOBAL_ADDRESS):
    # "desc": ``LDG.E R0, desc[UR4][R2.64]`` (sm_90);
    # "hidden_desc": ``LDG.E R0, [R2.64]``, the descriptor's UR encoded in a field that does not
    # print (sm_80-sm_89);
    # "plain": ``LDG.E.SYS R0, [R2]``, no descriptor at all and no .64 (``.E`` says it; sm_75)
    global_address: str = "desc"
    # ... of the 64-bit generic address of shared address 0 (cvta.shared; -1: sm_90's generic
    # shared addresses are (SR_SWINHI << 32) | shared address)
    cb_shared_window: int = -1
    # special registers the driver writes into bank 0 ([abi.sreg]; empty: refused)
    cb_envreg: int = -1  # ... of %envreg0 (%envregN at +4N)
    cb_reserved_smem_size: int = -1  # ... of the reserved shared size (%total_smem_size)
    cb_is_explicit_cluster: int = -1  # ... of the explicit-cluster flag
    cb_cluster_nctaid: int = -1  # ... of %cluster_nctaid.x (.y, .z follow)
    cb_nclusterid: int = -1  # ... of %nclusterid.x
    cb_cluster_rcp: int = -1  # ... of f32 1/%cluster_nctaid.x (rounded up; .y, .z follow)
    cb_sreg: dict[str, int] = field(default_factory=dict, hash=False)  # others in bank 0
    sreg_const: dict[str, int] = field(default_factory=dict, hash=False)  # folded to constants
    # Calls to functions the driver resolves (vprintf, __assertfail; lower/extcalls.py), as
    # ptxas 13.0.88 makes them on sm_90 (scripts/call_probes): arguments from R<call_first_arg>
    # (each aligned to its size), the result there too, the return address in the pair
    # R<call_return_address> (LEPC), and registers the callee may change (inclusive ranges).
    call_first_arg: int = 4
    call_return_address: int = 20
    call_clobbers_r: tuple[tuple[int, int], ...] = ((0, 15), (20, 21))
    call_clobbers_ur: tuple[tuple[int, int], ...] = ((0, 35),)

    @property
    def reserved_gprs(self) -> frozenset[int]:
        """General registers the allocator never hands out."""
        return frozenset({self.stack_pointer})

    @property
    def desc_printed(self) -> bool:
        """Global accesses print their descriptor (``desc[UR4]``)."""
        return self.global_address == "desc"

    @property
    def desc_encoded(self) -> bool:
        """Global accesses take a descriptor (printed or not)."""
        return self.global_address != "plain"

    @property
    def wide_printed(self) -> bool:
        """A 64-bit address register prints ``.64``."""
        return self.global_address != "plain"


@dataclass(frozen=True, slots=True)
class Lowering:
    """How PTX maps onto the target's SASS where families differ (``[lowering]``)."""

    smid_sreg: str  # the special register ptxas reads for %smid
    cluster_shared_window: bool  # shared addresses carry the CTA's cluster rank (bits 24+)
    # the memory-order modifiers of global and generic loads and stores, as sm_80 spells them
    # (dot-joined, "" for a weak access) -> as this target spells them (sm_75: "" -> "SYS")
    mem_mods: dict[str, str] = field(default_factory=dict, hash=False)
    # modifiers ptxas leaves out on this target (sm_75: BAR.SYNC, not BAR.SYNC.DEFER_BLOCKING) and
    # modifiers it always writes first (sm_75: LDS.U), per opcode
    drop_mods: dict[str, list[str]] = field(default_factory=dict, hash=False)
    add_mods: dict[str, list[str]] = field(default_factory=dict, hash=False)
    vote_by_ballot: bool = False  # vote.all/uni from the ballot and the active mask (sm_75)
    lepc_label: bool = True  # LEPC names the return site (sm_90); before, it gives its own PC


@dataclass(frozen=True, slots=True)
class SMInfo:
    name: str  # e.g. "sm_90a"
    sm: int  # e.g. 90
    variant: str  # "", "a" or "f"
    family: str  # ISA table family, e.g. "sm90"
    param_base: int  # byte offset of kernel parameters in constant bank 0
    e_flags_low: int  # low byte of ELF e_flags
    ugpr_count: int  # uniform registers excluding URZ
    urz: int  # encoding of URZ
    gpr_count: int  # usable general registers (excl. RZ)
    has_nv_compat: bool  # cubin carries .nv.compat
    # -v reports "Overriding maximum register limit 256 for 'f' with  N of maxrregcount option"
    reports_regcount_override: bool = False
    min_maxrregcount: int = 24  # -maxrregcount below this is raised to it, with a warning
    regs_per_sm: int = 65536  # register file of an SM (.maxntid/.minnctapersm budgets)
    # registers per thread are granted in units of this many (occupancy steps)
    reg_alloc_unit: int = 8
    # ELF layout facts (openptxas.elf; observed in ptxas 13.0.88 cubins, see docs/elf.md)
    elf_legacy_segments: bool = False  # PHDR R+X, read-only LOADs R+X, PH-table LOAD last
    elf_shstrtab_slack: int = 0  # unused bytes after .shstrtab ...
    elf_shstrtab_slack_per_text: bool = False  # ... plus room for .nv.capmerc.text.<f> names
    elf_reserved_smem: int = 0  # bytes added to every .nv.shared.<f> of a whole-program cubin
    elf_reserved_shared: int = 0  # size of .nv.shared.reserved.0 (sm_100+: 64)
    elf_rela: bool = True  # relocation sections are SHT_RELA (sm_75..89: SHT_REL)
    elf_regcount_in_text_info: bool = False  # .text.<f> sh_info bits 24..31 = registers
    elf_reserved_smem_symbols: bool = False  # .nv.reservedSmem.offset0 & .nv.shared.reserved.0
    elf_constant0_late: bool = False  # .nv.constant0.<f> created after the function symbols
    elf_constant_renames: bool = False  # .nv.constant.pic/.user/.optimizer renamed to banks
    elf_rename_in_place: bool = True  # a renamed section's name is overwritten in place
    elf_mercury: bool = False  # cubins carry a Mercury image (.nv.capmerc/.nv.merc.*, sm_100+)
    elf_rel_action: bool = False  # the module has .nv.rel.action
    elf_sparse_mma_mask: bool = False  # every .nv.info.<f> has EIATTR_SPARSE_MMA_MASK
    elf_mercury_isa_version: int = 0  # EIATTR_MERCURY_ISA_VERSION value
    elf_sw_war: int = -1  # EIATTR_SW_WAR value (-1: no record)
    elf_sw2861232_war: bool = False  # every .nv.info.<f> has EIATTR_SW2861232_WAR (sm_80, sm_86)
    latency_model: str = ""  # data/<name>_latency.toml ("": none)
    # openptxas generates this target's code end to end (lowering, encoding and cubin checked
    # against ptxas's). A target whose facts are known (say, for the ELF writer or the
    # disassembler) but whose code generation is not must be refused, never compiled with
    # another family's instructions (a cubin nvdisasm rejects).
    codegen: bool = False
    # opcodes of the family's table this SM does not have (nvdisasm for it rejects them; sm_80
    # shares sm_86's table but lacks I2FP/F2IP: scripts/isa_target_lacks.py)
    lacks: tuple[str, ...] = ()
    abi_: Abi | None = None  # None: openptxas does not compile for this target
    lowering_: Lowering | None = None
    bank0_: Bank0 | None = None  # None: the driver's bank-0 layout is not known

    def has_op(self, opcode: str) -> bool:
        """Whether this SM has ``opcode`` (its family's table has it and it is not in ``lacks``)."""
        return opcode not in self.lacks and bool(self.isa.forms_for_opcode(opcode))

    def require_codegen(self) -> None:
        """Refuse a target openptxas cannot yet generate code for."""
        if not self.codegen:
            raise self._refused()

    def _refused(self) -> UnsupportedFeature:
        return UnsupportedFeature(f"compiling for {self.name} is not supported by openptxas yet")

    @property
    def abi(self) -> Abi:
        if self.abi_ is None:
            raise self._refused()
        return self.abi_

    @property
    def bank0(self) -> Bank0:
        if self.bank0_ is None:
            raise UnsupportedFeature(f"the constant bank 0 layout of {self.name} is not known")
        return self.bank0_

    @property
    def lowering(self) -> Lowering:
        if self.lowering_ is None:
            raise self._refused()
        return self.lowering_

    @property
    def latency(self) -> LatencyModel:
        """The family's latency model (one object per family, shared with the hazard checkers)."""
        from openptxas.targets.latency import load_latency_model

        if not self.latency_model:
            raise UnsupportedFeature(f"no latency model for {self.name} in openptxas yet")
        return load_latency_model(self.latency_model)

    @property
    def isa(self) -> Family:
        """The target's SASS instruction table (its family's)."""
        from openptxas.isa.family import load_family

        return load_family(self.family)

    @property
    def ops(self) -> OpProperties:
        """Operation properties derived from the family's ISA table."""
        from openptxas.targets.ops import load_op_properties

        return load_op_properties(self.family)


@functools.cache
def _load_data(base: str) -> dict[str, object]:
    """A data file's values; ``like = "sm_XX"`` takes that file's values first (an SM that
    ptxas treats as another except for the keys the file sets: a table's keys merge)."""
    text = resources.files("openptxas.targets").joinpath("data", f"{base}.toml").read_text()
    own = tomllib.loads(text)
    like = own.pop("like", None)
    if like is None:
        return own
    assert isinstance(like, str)
    data = dict(_load_data(like))
    for k, v in own.items():
        old = data.get(k)
        data[k] = {**old, **v} if isinstance(old, dict) and isinstance(v, dict) else v
    return data


@functools.cache
def get_target(name: str) -> SMInfo:
    """Return the facts for ``name`` (``sm_90``, ``sm_90a``, ...); raise UsageError if unknown."""
    m = _NAME.match(name)
    if not m:
        raise UsageError(f"Value '{name}' is not defined for option 'gpu-name'")
    base = f"sm_{m.group(1)}"
    variant = m.group(2)
    if base not in BASE_TARGETS:
        raise UsageError(f"Value '{name}' is not defined for option 'gpu-name'")
    data = dict(_load_data(base))
    overrides = data.pop("variant", {})
    assert isinstance(overrides, dict)
    if variant and variant in overrides:
        data.update(overrides[variant])
    abi = data.pop("abi", None)
    lowering = data.pop("lowering", None)
    if "lacks" in data:
        lacks = data["lacks"]
        assert isinstance(lacks, list)
        data["lacks"] = tuple(str(x) for x in lacks)
    bank0 = _bank0(data.pop("bank0")) if "bank0" in data else None
    if abi is not None and bank0 is not None:
        assert isinstance(abi, dict)
        abi = {**bank0.abi_fields(), **abi}
    return SMInfo(
        name=name,
        sm=int(m.group(1)),
        variant=variant,
        abi_=None if abi is None else _abi(abi),  # type: ignore[arg-type]
        lowering_=None if lowering is None else Lowering(**lowering),  # type: ignore[arg-type]
        bank0_=bank0,
        **data,  # type: ignore[arg-type]
    )


def _bank0(d: object) -> Bank0:
    assert isinstance(d, dict)
    d = dict(d)
    for k in ("ntid", "nctaid"):
        v = d[k]
        assert isinstance(v, list) and len(v) == 3
        d[k] = (int(v[0]), int(v[1]), int(v[2]))
    return Bank0(**d)


def _abi(d: dict[str, object]) -> Abi:
    d = dict(d)
    for k in ("cb_ntid", "cb_nctaid"):
        v = d[k]
        assert isinstance(v, list | tuple) and len(v) == 3
        d[k] = (int(v[0]), int(v[1]), int(v[2]))
    cie = d["frame_cie"]
    assert isinstance(cie, str)
    d["frame_cie"] = bytes.fromhex(cie)
    sreg = d.pop("sreg", None)
    if isinstance(sreg, dict):
        d.update(sreg)
    if d.get("global_address", "desc") not in GLOBAL_ADDRESS:
        raise ValueError(f"[abi] global_address {d['global_address']!r} is not in {GLOBAL_ADDRESS}")
    return Abi(**d)  # type: ignore[arg-type]


def default_latency_model() -> LatencyModel:
    """The latency model of the target the emulator models (the hazard checkers' default)."""
    return get_target(EMULATED_TARGET).latency
