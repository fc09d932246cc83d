"""A cubin as the emulator sees it: kernels, their code, parameters, constant banks and globals.

Code addresses are offsets within the function's ``.text.<name>`` section: that is what ptxas
13.0 writes into function-pointer tables (``.nv.global.init`` without relocations), branch tables
(``.nv.constant2.<f>``) and return addresses (``MOV R20, 0x1c0`` before ``CALL.REL.NOINC``), and
what ``CALL.REL``/``RET.REL``/``BRX`` add to. Data symbols get global-memory addresses at launch
(:mod:`openptxas.emu.memory`); ``R_CUDA_64`` relocations in constant banks and initialised globals
are applied then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from openptxas.elf.consts import SectionType, SymbolType
from openptxas.elf.inspect import FunctionInfo, summarize
from openptxas.elf.model import Blob, Cubin, NoBits, RelocTable
from openptxas.elf.nvinfo import EIATTR
from openptxas.elf.reader import read_cubin
from openptxas.emu.errors import EmuLoadError
from openptxas.emu.model import Instruction

# (section name, code bytes) -> {address: instruction}
Decoder = Callable[[str, bytes], Mapping[int, Instruction]]


@dataclass(frozen=True, slots=True)
class Param:
    ordinal: int
    offset: int  # from the start of the parameter block
    size: int


@dataclass(frozen=True, slots=True)
class Reloc:
    """An ``R_CUDA_64``-style relocation to apply to a data section at launch."""

    offset: int
    type: str
    symbol: str
    addend: int


@dataclass(frozen=True, slots=True)
class DataSection:
    """A module-level data section placed in global memory (globals, constant banks)."""

    name: str
    data: bytes  # initial contents (zeros for .nv.global)
    size: int
    relocs: tuple[Reloc, ...] = ()


@dataclass(frozen=True, slots=True)
class SymbolDef:
    name: str
    section: str  # the section that defines it ("" = undefined: an external such as vprintf)
    value: int
    is_func: bool


@dataclass(frozen=True)
class Kernel:
    name: str
    section: str  # ".text.<name>"
    code: bytes
    params: tuple[Param, ...]
    param_base: int
    param_size: int
    regcount: int
    frame_size: int
    min_stack: int
    shared_static: int  # size of .nv.shared.<name> (the 1 KiB reserved window included)
    cluster_dims: tuple[int, int, int] | None
    explicit_cluster: bool
    reqntid: tuple[int, int, int] | None
    max_threads: tuple[int, int, int] | None
    cbank0_size: int
    banks: Mapping[int, DataSection]  # per-kernel constant banks (.nv.constantN.<name>)
    # code-offset -> instruction, decoded lazily by Module.instructions()
    functions: Mapping[str, int] = field(default_factory=dict)  # subroutine name -> offset
    # the relocations of the kernel's code, which the driver applies at load time: calls to its
    # own functions (``CALL.ABS.NOINC `(__cudaCDP2LaunchDeviceV2)``: R_CUDA_ABS55_16_34), code
    # addresses and function descriptors in immediates (R_CUDA_ABS32_LO_32,
    # R_CUDA_FUNC_DESC32_HI_32, ...)
    code_relocs: tuple[Reloc, ...] = ()

    @property
    def calls(self) -> Mapping[int, str]:
        """Code offset -> the external function an absolute call there targets."""
        return {r.offset: r.symbol for r in self.code_relocs if r.type == "R_CUDA_ABS55_16_34"}


@dataclass
class Module:
    cubin: Cubin
    sm: int
    kernels: dict[str, Kernel]
    data: dict[str, DataSection]  # module sections placed in global memory, by section name
    banks: dict[int, str]  # module constant bank number -> section name (in ``data``)
    symbols: dict[str, SymbolDef]
    decoder: Decoder | None = None
    _decoded: dict[str, Mapping[int, Instruction]] = field(default_factory=dict)

    def kernel(self, name: str) -> Kernel:
        try:
            return self.kernels[name]
        except KeyError:
            known = ", ".join(sorted(self.kernels)) or "none"
            raise EmuLoadError(f"no kernel '{name}' in the cubin (kernels: {known})") from None

    def instructions(self, k: Kernel) -> Mapping[int, Instruction]:
        """The kernel section's instructions by address, decoded on first use."""
        got = self._decoded.get(k.section)
        if got is None:
            if self.decoder is None:
                raise EmuLoadError("no SASS decoder available")
            got = self.decoder(k.section, k.code)
            self._decoded[k.section] = got
        return got


def _section_bytes(cubin: Cubin, name: str) -> tuple[bytes, int] | None:
    try:
        s = cubin.section(name)
    except KeyError:
        return None
    if isinstance(s.content, NoBits):
        return b"", s.content.size
    if isinstance(s.content, Blob):
        return s.content.data, len(s.content.data)
    data = s.data()
    return data, len(data)


def _relocs_for(cubin: Cubin, section: str) -> tuple[Reloc, ...]:
    try:
        idx = cubin.section_index(section)
    except KeyError:
        return ()
    out: list[Reloc] = []
    for s in cubin.sections:
        if (
            s.type in (SectionType.RELA, SectionType.REL)
            and s.info == idx
            and isinstance(s.content, RelocTable)
        ):
            for r in s.content.relocs:
                out.append(Reloc(r.offset, r.type_name, cubin.symbol_name(r.sym), r.addend or 0))
    return tuple(out)


def _kernel(cubin: Cubin, fi: FunctionInfo, subs: dict[str, int]) -> Kernel:
    sec = _section_bytes(cubin, fi.section)
    if sec is None:
        raise EmuLoadError(f"kernel '{fi.name}': no section {fi.section}")
    code = sec[0]
    shared = _section_bytes(cubin, f".nv.shared.{fi.name}")
    c0 = _section_bytes(cubin, f".nv.constant0.{fi.name}")
    banks: dict[int, DataSection] = {}
    for _i, s in cubin.find_sections(".nv.constant"):
        rest = s.name[len(".nv.constant") :]
        num, _, owner = rest.partition(".")
        if owner != fi.name or not num.isdigit() or num == "0":
            continue
        data, size = _section_bytes(cubin, s.name) or (b"", 0)
        banks[int(num)] = DataSection(s.name, data, size, _relocs_for(cubin, s.name))
    explicit = any(a.code == EIATTR.EXPLICIT_CLUSTER for a in fi.attributes)
    params = tuple(Param(p.ordinal, p.offset, p.size) for p in fi.params)
    return Kernel(
        name=fi.name,
        section=fi.section,
        code=code,
        params=params,
        param_base=fi.param_base if fi.param_base is not None else 0,
        param_size=fi.param_size or 0,
        regcount=fi.registers or 0,
        frame_size=fi.stack_frame or 0,
        min_stack=fi.min_stack or 0,
        shared_static=shared[1] if shared is not None else 0,
        cluster_dims=fi.cluster_dims,
        explicit_cluster=explicit,
        reqntid=fi.reqntid,
        max_threads=fi.max_threads,
        cbank0_size=c0[1] if c0 is not None else 0,
        banks=banks,
        functions=subs,
        code_relocs=_relocs_for(cubin, fi.section),
    )


def load_module(blob: bytes, decoder: Decoder | None = None, relocatable: bool = False) -> Module:
    """Read a cubin (whole-program, as ``ptxas`` writes it) for emulation. ``relocatable``:
    accept a ``ptxas -c`` object too (to decode, bind and check its code, not to run it)."""
    cubin = read_cubin(blob)
    if cubin.is_relocatable and not relocatable:
        raise EmuLoadError("a relocatable cubin (ptxas -c) must be linked before it can run")
    info = summarize(cubin)
    subs: dict[str, dict[str, int]] = {}
    for fi in info.functions:
        if fi.kind == "subroutine":
            subs.setdefault(fi.section, {})[fi.name] = fi.offset
    kernels = {
        fi.name: _kernel(cubin, fi, subs.get(fi.section, {}))
        for fi in info.functions
        if fi.kind == "entry"
    }
    data: dict[str, DataSection] = {}
    banks: dict[int, str] = {}
    for s in cubin.sections:
        name = s.name
        if name.startswith(".nv.global"):
            pass
        elif name.startswith(".nv.constant") and name[len(".nv.constant") :].isdigit():
            banks[int(name[len(".nv.constant") :])] = name
        else:
            continue
        got = _section_bytes(cubin, name)
        if got is None:
            continue
        data[name] = DataSection(name, got[0], got[1], _relocs_for(cubin, name))
    symbols: dict[str, SymbolDef] = {}
    for y in cubin.symtab.symbols:
        if not y.name or y.type == SymbolType.SECTION:
            continue
        sec = cubin.sections[y.shndx].name if 0 < y.shndx < len(cubin.sections) else ""
        symbols.setdefault(y.name, SymbolDef(y.name, sec, y.value, y.type == SymbolType.FUNC))
    return Module(cubin, cubin.sm, kernels, data, banks, symbols, decoder)
