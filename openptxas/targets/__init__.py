"""Per-SM facts. This package is the only code that knows SM numbers.

Every other stage asks for a capability (``t.param_base``, ``t.ugpr_count``,
``t.bra_offset_split``) instead of comparing SM numbers. The values live in ``data/sm_XX.toml``
and were checked against ptxas 13.0.88 output (see each file's comments).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources

from openptxas.diag import UsageError

# Targets openptxas knows, in ptxas's spelling. Variants (a/f) share their base's data file and
# override the few fields that differ.
BASE_TARGETS: tuple[str, ...] = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")

_NAME = re.compile(r"^sm_(\d+)([af]?)$")


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
    bra_offset_split: bool  # BRA offset split into bits 16..23 + 34..81 (sm_90+)
    alu_cbank_operands: bool  # ptxas uses c[] operands directly in ALU ops
    warps_per_sm: int
    max_threads_per_block: int
    max_shared_per_block: int  # bytes (opt-in maximum)
    has_nv_compat: bool  # cubin carries .nv.compat
    # -v reports "Overriding maximum register limit 256 for 'f' with  N of maxrregcount option"
    reports_regcount_override: bool = False
    min_maxrregcount: int = 24  # -maxrregcount below this is raised to it, with a warning
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

    @property
    def arch_name(self) -> str:
        return self.name


@functools.cache
def _load_data(base: str) -> dict[str, object]:
    text = resources.files("openptxas.targets").joinpath("data", f"{base}.toml").read_text()
    return tomllib.loads(text)


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
    return SMInfo(name=name, sm=int(m.group(1)), variant=variant, **data)  # type: ignore[arg-type]
