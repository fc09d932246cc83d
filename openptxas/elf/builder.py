"""Build a cubin from a :class:`~openptxas.elf.description.ModuleDescription`, laid out as
ptxas 13.0.88 lays it out.

ptxas's ELF writer keeps a log of everything it creates: every section and symbol name it ever
made stays in ``.shstrtab``/``.strtab`` (even for sections it later drops or renames), symbols are
numbered in creation order, and the section header table is the creation order sorted into
buckets. So the builder replays ptxas's creation sequence (:class:`_Emitter`) and then assembles
the final tables (:meth:`_Emitter.finish`). docs/elf.md describes the sequence and the buckets.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from openptxas.diag import UsageError
from openptxas.elf.consts import (
    ElfType,
    RelocType,
    SectionFlag,
    SectionType,
    SymbolBind,
    SymbolOther,
    SymbolType,
)
from openptxas.elf.description import (
    Frame,
    Function,
    GlobalVar,
    ModuleDescription,
    OpaqueSection,
    Reloc,
    Space,
)
from openptxas.elf.model import (
    Blob,
    CompatSection,
    Content,
    Cubin,
    InfoSection,
    NoBits,
    Note,
    NoteSection,
    Relocation,
    RelocTable,
    Section,
    StringTable,
    Symbol,
    SymbolTable,
    TkInfo,
    WordPairs,
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
)
from openptxas.elf.writer import write_cubin
from openptxas.targets import SMInfo, get_target

TOOL_NAME = "ptxas"
TOOL_VERSION = "Cuda compilation tools, release 13.0, V13.0.88"
TOOL_BRANCH = "Build cuda_13.0.r13.0/compiler.36424714_0"
CUDA_API_VERSION = 130
NOTE_OWNER = "NVIDIA Corp"

# Header-table buckets (sections are sorted by bucket, then by creation).
B_TABLES, B_DEBUG, B_NOTE, B_INFO, B_GRAPH, B_REL, B_CONST, B_TEXT, B_DATA, B_NOBITS, B_CONST0 = (
    range(11)
)


@dataclass
class _Sec:
    name: str
    type: int
    flags: int
    align: int
    bucket: int
    seq: int
    entsize: int = 0
    content: Content | None = None
    link: str | None = None  # name of the linked section
    info_sec: str | None = None  # sh_info = index of this section
    info_sym: str | None = None  # sh_info = index of this symbol
    info_value: int = 0
    info_high: int = 0  # bits 24..31 of sh_info (sm_75..89 .text: register count)
    dropped: bool = False
    make: Callable[[Callable[[str], int]], Content] | None = None  # content needing symbols


@dataclass
class _Sym:
    name: str
    bind: int
    type: int
    other: int = 0
    section: str | None = None
    value: int = 0
    size: int = 0
    dropped: bool = False


@dataclass
class _Emitter:
    target: SMInfo
    relocatable: bool
    sections: list[_Sec] = field(default_factory=list)
    symbols: list[_Sym] = field(default_factory=list)
    shstr: list[str] = field(default_factory=list)
    strtab: list[str] = field(default_factory=list)

    # -- primitives ------------------------------------------------------------------------
    def section(
        self,
        name: str,
        type_: int,
        flags: int,
        align: int,
        bucket: int,
        *,
        symbol: bool = False,
        entsize: int = 0,
        content: Content | None = None,
        link: str | None = None,
    ) -> _Sec:
        self.shstr.append(name)
        sec = _Sec(name, type_, flags, align, bucket, len(self.sections), entsize, content, link)
        self.sections.append(sec)
        self.strtab.append(name)
        if symbol:
            self.symbols.append(_Sym(name, SymbolBind.LOCAL, SymbolType.SECTION, section=name))
        return sec

    def name_only(self, name: str) -> None:
        """A section ptxas creates and drops again: only its name stays behind."""
        self.shstr.append(name)
        self.strtab.append(name)

    def symbol(self, sym: _Sym) -> _Sym:
        self.strtab.append(sym.name)
        self.symbols.append(sym)
        return sym

    def section_symbol(self, name: str) -> None:
        self.symbols.append(_Sym(name, SymbolBind.LOCAL, SymbolType.SECTION, section=name))

    def find(self, name: str) -> _Sec:
        for s in self.sections:
            if s.name == name and not s.dropped:
                return s
        raise KeyError(name)

    def rename(self, old: str, new: str) -> None:
        """Rename a section (and its symbol); the string tables keep the history. The symbol
        string table changes only where the section has a symbol."""
        has_symbol = any(y.name == old and y.type == SymbolType.SECTION for y in self.symbols)
        for tab in (self.shstr, self.strtab) if has_symbol else (self.shstr,):
            if old not in tab:
                continue
            if self.target.elf_rename_in_place:
                # overwritten in place, the tail padded with NULs (empty strings)
                i = tab.index(old)
                pad = len(old.encode()) - len(new.encode())
                tab[i : i + 1] = [new] + [""] * pad
            else:
                tab.append(new)
        for s in self.sections:
            if s.name == old:
                s.name = new
            if s.link == old:
                s.link = new
            if s.info_sec == old:
                s.info_sec = new
        for y in self.symbols:
            if y.name == old and y.type == SymbolType.SECTION:
                y.name = new
            if y.section == old:
                y.section = new

    # -- assembly ---------------------------------------------------------------------------
    def finish(self, desc: ModuleDescription) -> Cubin:
        live = sorted((s for s in self.sections if not s.dropped), key=lambda s: (s.bucket, s.seq))
        index = {s.name: i + 1 for i, s in enumerate(live)}
        syms = [y for y in self.symbols if not y.dropped]
        sym_index: dict[str, int] = {}
        for i, y in enumerate(syms):
            sym_index.setdefault(y.name, i + 1)
        symbols = [Symbol("")] + [
            Symbol(
                y.name,
                y.bind,
                y.type,
                y.other,
                index[y.section] if y.section is not None else 0,
                y.value,
                y.size,
            )
            for y in syms
        ]
        out = [Section("", 0, addralign=0)]
        for s in live:
            info = s.info_value
            if s.info_sec is not None:
                info = index[s.info_sec]
            elif s.info_sym is not None:
                info = sym_index[s.info_sym]
            info |= s.info_high << 24
            content = s.content
            if s.make is not None:
                content = s.make(lambda name: sym_index[name])
            if s.name == ".shstrtab":
                content = StringTable(("", *self.shstr))
            elif s.name == ".strtab":
                content = StringTable(("", *self.strtab))
            elif s.name == ".symtab":
                content = SymbolTable(tuple(symbols))
                last_local = max(
                    (i for i, y in enumerate(symbols) if y.bind == SymbolBind.LOCAL), default=0
                )
                info = last_local + 1
            assert content is not None, s.name
            out.append(
                Section(
                    s.name,
                    s.type,
                    s.flags,
                    content,
                    s.align,
                    s.entsize,
                    index[s.link] if s.link is not None else 0,
                    info,
                )
            )
        e_type = ElfType.REL if desc.relocatable else ElfType.EXEC
        e_flags = (desc.e_flags_kind << 24) | (self.target.sm << 8) | self.target.e_flags_low
        return Cubin(e_type=e_type, e_flags=e_flags, sections=tuple(out))

    def resolve_relocs(self, sec: _Sec, relocs: list[tuple[int, int, str, int | None]]) -> None:
        """Fill a relocation section once every symbol exists (relocs: offset, type, sym, add)."""
        rela = sec.type == SectionType.RELA

        def make(sym: Callable[[str], int]) -> Content:
            return RelocTable(tuple(Relocation(o, sym(n), t, a) for o, t, n, a in relocs), rela)

        sec.make = make


# ----------------------------------------------------------------------------------------------


def _notes(desc: ModuleDescription) -> tuple[NoteSection, NoteSection]:
    tk = TkInfo(2, desc.object_name, TOOL_NAME, TOOL_VERSION, TOOL_BRANCH, desc.options)
    tkinfo = NoteSection((Note(NOTE_OWNER, 2000, tk.encode()),))
    cu = struct.pack("<HHI", 2, desc.ptx_target, CUDA_API_VERSION)
    cuinfo = NoteSection((Note(NOTE_OWNER, 1000, cu),))
    return tkinfo, cuinfo


def default_compat(target: SMInfo) -> CompatSection:
    arch = 1 if target.variant == "a" else 0
    attrs = (
        Attribute.bval(0x09, arch),
        Attribute.bval(0x02, 1),
        Attribute.bval(0x05, 5),
        Attribute.hval(0x07, 0x101),
        Attribute.bval(0x03, 0),
        Attribute.bval(0x06, 1),
        Attribute(Fmt.SVAL, 0x0B, Raw(bytes(8))),
    )
    return CompatSection(attrs)


def _raw(data: bytes) -> Words:
    return Words(struct.unpack(f"<{len(data) // 4}I", data))


def build(desc: ModuleDescription) -> bytes:
    """The cubin ptxas would write for ``desc`` (see the module docstring)."""
    return write_cubin(build_model(desc))


def build_model(desc: ModuleDescription) -> Cubin:
    try:
        target = get_target(desc.target)
    except UsageError:
        raise
    em = _Emitter(target, desc.relocatable)
    _emit(em, desc)
    return em.finish(desc)


# ----------------------------------------------------------------------------------------------
# The creation sequence


def _kind(r: Reloc) -> str:
    """ptxas files a relocation with an addend under ``.rela``, one without under ``.rel``."""
    return "rela" if r.addend else "rel"


def reloc_names(created: list[Reloc] | tuple[Reloc, ...], rela: bool) -> tuple[str, ...]:
    """The relocation sections ptxas makes for relocations created in this order: ``.rel``
    and/or ``.rela`` in order of first need; with SHT_RELA output (sm_90+) a ``.rel`` section is
    converted, which creates ``.rela`` if needed."""
    names: list[str] = []
    for r in created:
        k = _kind(r)
        if k not in names:
            names.append(k)
    if rela and names and "rela" not in names:
        names.append("rela")
    return tuple(names)


def _reloc_group(
    em: _Emitter,
    target: str,
    created: list[Reloc],
    names: tuple[str, ...] | None,
    keep_empty: bool = False,
) -> None:
    """Create the relocation section(s) of ``target`` (relocations given in creation order;
    ptxas lists them last first)."""
    t = em.target
    if names is None:
        names = reloc_names(created, t.elf_rela)
    final = list(reversed(created))
    for k in names:
        name = f".{k}{target}"
        if t.elf_rela:
            keep = k == "rela" and (final or keep_empty)
            part = final
        else:
            part = [r for r in final if _kind(r) == k]
            keep = bool(part) or (keep_empty and k == names[0])
        if not keep:
            em.name_only(name)
            continue
        is_rela = k == "rela"
        sec = em.section(
            name,
            SectionType.RELA if is_rela else SectionType.REL,
            SectionFlag.INFO_LINK,
            8,
            B_REL,
            entsize=24 if is_rela else 16,
            link=".symtab",
        )
        sec.info_sec = target
        em.resolve_relocs(
            sec, [(r.offset, r.type, r.symbol, r.addend if is_rela else None) for r in part]
        )


def _emit(em: _Emitter, desc: ModuleDescription) -> None:
    t = em.target
    rela = t.elf_rela
    renames = t.elf_constant_renames
    tk, cu = _notes(desc)
    em.section(".shstrtab", SectionType.STRTAB, 0, 1, B_TABLES, content=StringTable(()))
    em.section(".strtab", SectionType.STRTAB, 0, 1, B_TABLES, content=StringTable(()))
    em.section(".symtab", SectionType.SYMTAB, 0, 8, B_TABLES, entsize=24, link=".strtab")
    em.name_only(".symtab_shndx")
    em.section(
        ".note.nv.tkinfo",
        SectionType.NOTE,
        SectionFlag.NOTE_TKINFO,
        4,
        B_NOTE,
        symbol=True,
        content=tk,
    )
    cuinfo = em.section(
        ".note.nv.cuinfo",
        SectionType.NOTE,
        SectionFlag.NOTE_CUINFO,
        4,
        B_NOTE,
        symbol=True,
        content=cu,
        link=".note.nv.tkinfo",
    )
    nvinfo = em.section(".nv.info", SectionType.CUDA_INFO, 0, 4, B_INFO, link=".symtab")
    if t.has_nv_compat:
        compat = CompatSection(desc.compat) if desc.compat is not None else default_compat(t)
        em.section(".nv.compat", SectionType.CUDA_COMPAT_INFO, 0, 4, B_INFO, content=compat)
        cuinfo.flags |= SectionFlag.INFO_LINK
        cuinfo.info_sec = ".nv.compat"

    late_const2: list[Function] = []
    globals_done = False
    reserved_done = False
    for f in desc.functions:
        text = em.section(
            f".text.{f.name}",
            SectionType.PROGBITS,
            SectionFlag.ALLOC | SectionFlag.EXECINSTR,
            128,
            B_TEXT,
            symbol=True,
            content=Blob(f.code),
            link=".symtab",
        )
        text.info_sym = f.name
        if t.elf_regcount_in_text_info:
            text.info_high = f.registers
        info = em.section(
            f".nv.info.{f.name}",
            SectionType.CUDA_INFO,
            SectionFlag.INFO_LINK,
            4,
            B_INFO,
            link=".symtab",
        )
        info.info_sec = text.name
        info.make = _function_attributes_maker(t, desc, f)
        if f.shared is not None:
            sh = em.section(
                f".nv.shared.{f.name}",
                SectionType.NOBITS,
                SectionFlag.ALLOC | SectionFlag.WRITE | SectionFlag.INFO_LINK,
                f.shared_align,
                B_NOBITS,
                content=NoBits(f.shared + (0 if desc.relocatable else t.elf_reserved_smem)),
            )
            sh.info_sec = text.name
            if f.shared_symbol:
                em.section_symbol(sh.name)
        else:
            em.name_only(f".nv.shared.{f.name}")
        if not reserved_done and t.elf_reserved_smem_symbols and not desc.relocatable:
            reserved_done = True
            em.symbol(_Sym(".nv.reservedSmem.offset0", SymbolBind.WEAK, SymbolType.OBJECT, size=4))
            em.section(
                ".nv.shared.reserved.0",
                SectionType.NOBITS,
                SectionFlag.ALLOC | SectionFlag.WRITE,
                1,
                B_NOBITS,
                content=NoBits(0),
            )
            em.symbol(
                _Sym(
                    "__nv_reservedSMEM_offset_0_alias",
                    SymbolBind.WEAK,
                    SymbolType.NOTYPE,
                    SymbolOther.RESERVED_SMEM_ALIAS,
                    section=".nv.shared.reserved.0",
                )
            )
        if not globals_done and desc.globals:
            globals_done = True
            _emit_globals(em, desc)
        if f.reserved_smem_cap:
            # ptxas makes the symbol .nv.reservedSmem.cap and then blanks its name
            em.strtab.extend([""] * (len(".nv.reservedSmem.cap") + 1))
            em.symbols.append(_Sym("", SymbolBind.LOCAL, SymbolType.NOTYPE, 1))
        if f.const2 is not None:
            name = f".nv.constant.optimizer.{f.name}" if renames else f".nv.constant2.{f.name}"
            c2 = em.section(
                name,
                SectionType.PROGBITS,
                SectionFlag.ALLOC | SectionFlag.INFO_LINK,
                4,
                B_CONST,
                symbol=True,
                content=Blob(f.const2),
            )
            c2.info_sec = text.name
            if f.const2_relocs_late:
                late_const2.append(f)
            else:
                _reloc_group(
                    em, name, list(reversed(f.const2_relocs)), f.const2_reloc_names, keep_empty=True
                )
        for sub in sorted(f.subroutines, key=lambda s: s.offset):
            em.symbol(
                _Sym(
                    sub.name,
                    sub.bind,
                    SymbolType.FUNC,
                    section=text.name,
                    value=sub.offset,
                    size=sub.size,
                )
            )
        if f.relocs or f.reloc_names:
            _reloc_group(em, text.name, list(reversed(f.relocs)), f.reloc_names, keep_empty=True)
        if not t.elf_constant0_late:
            _emit_constant0(em, desc, f)

    frame = em.section(".debug_frame", SectionType.PROGBITS, 0, 1, B_DEBUG, symbol=True)
    frame_data, frame_relocs = _debug_frame(desc, rela)
    frame.content = Blob(frame_data)
    pending: list[OpaqueSection] = []
    for d in desc.debug_sections:
        # .debug_str is made with the line table, before the table's relocation sections
        if d.name != ".debug_str":
            for p in pending:
                _reloc_group(em, p.name, list(reversed(p.relocs)), p.reloc_names or None)
            pending = []
        em.section(
            d.name,
            d.type,
            d.flags,
            d.addralign,
            B_DEBUG,
            symbol=d.symbol,
            entsize=d.entsize,
            content=Blob(d.data),
        )
        if d.reloc_names or d.relocs:
            pending.append(d)
    for p in pending:
        _reloc_group(em, p.name, list(reversed(p.relocs)), p.reloc_names or None)
    _data_relocs(em, desc, late_const2)
    em.name_only(".rel.debug_frame")
    if rela:
        fr = em.section(
            ".rela.debug_frame",
            SectionType.RELA,
            SectionFlag.INFO_LINK,
            8,
            B_REL,
            entsize=24,
            link=".symtab",
        )
    else:
        fr = em.find(".rel.debug_frame") if False else em.sections[-1]
        fr = em.section(
            ".rel.debug_frame",
            SectionType.REL,
            SectionFlag.INFO_LINK,
            8,
            B_REL,
            entsize=16,
            link=".symtab",
        )
        em.shstr.pop()
        em.strtab.pop()
        em.name_only(".rela.debug_frame")
    fr.info_sec = ".debug_frame"
    em.resolve_relocs(fr, frame_relocs)
    em.section(
        ".nv.callgraph",
        SectionType.CUDA_CALLGRAPH,
        0,
        4,
        B_GRAPH,
        symbol=True,
        entsize=8,
        link=".symtab",
        content=WordPairs(((0, -1), (0, -2), (0, -3), (0, -4))),
    )
    em.name_only(".nv.prototype")
    if t.elf_rel_action:
        em.section(
            ".nv.rel.action",
            SectionType.CUDA_RELOCINFO,
            0,
            8,
            B_GRAPH,
            symbol=True,
            entsize=8,
            content=Blob(bytes.fromhex("73000000000000000000001125000536")),
        )
    for f in desc.functions:
        other = f.other if f.other is not None else (SymbolOther.ENTRY if f.entry else 0)
        em.symbol(
            _Sym(
                f.name, f.bind, SymbolType.FUNC, other, section=f".text.{f.name}", size=len(f.code)
            )
        )
    if renames:
        em.rename(".nv.constant.pic", ".nv.constant4")
        em.rename(".rela.nv.constant.pic", ".rela.nv.constant4")
        em.rename(".nv.constant.user", ".nv.constant3")
        em.rename(".rela.nv.constant.user", ".rela.nv.constant3")
        for f in desc.functions:
            if f.const2 is not None:
                em.rename(f".nv.constant.optimizer.{f.name}", f".nv.constant2.{f.name}")
                em.rename(f".rela.nv.constant.optimizer.{f.name}", f".rela.nv.constant2.{f.name}")
    if t.elf_constant0_late:
        for f in desc.functions:
            _emit_constant0(em, desc, f)
    nvinfo.make = lambda sym: InfoSection(_module_attributes(desc, sym))


def _data_relocs(em: _Emitter, desc: ModuleDescription, late_const2: list[Function]) -> None:
    """Relocations of module data, made after .debug_frame: the address table (.nv.constant4),
    user constants, initialized globals, then late compiler-constant tables."""
    t = em.target
    pic = ".nv.constant.pic" if t.elf_constant_renames else ".nv.constant4"
    user = ".nv.constant.user" if t.elf_constant_renames else ".nv.constant3"
    gvars = [g for g in desc.globals if g.space == Space.GLOBAL and g.offset is not None]
    if gvars:
        _reloc_group(
            em,
            pic,
            [Reloc(8 * i, RelocType.R_CUDA_64, g.name, 0) for i, g in enumerate(gvars)],
            None,
        )
    for name, space, init in ((user, Space.CONST, True), (".nv.global.init", Space.GLOBAL, True)):
        created = [
            Reloc((g.offset or 0) + r.offset, r.type, r.symbol, r.addend)
            for g in desc.globals
            if g.space == space and g.init is not None
            for r in g.relocs
        ]
        if created:
            _reloc_group(em, name, created, None)
        _ = init
    for f in late_const2:
        name = (
            f".nv.constant.optimizer.{f.name}"
            if t.elf_constant_renames
            else f".nv.constant2.{f.name}"
        )
        _reloc_group(
            em, name, list(reversed(f.const2_relocs)), f.const2_reloc_names, keep_empty=True
        )


def _emit_constant0(em: _Emitter, desc: ModuleDescription, f: Function) -> None:
    if not f.entry:
        return
    t = em.target
    base = f.param_base if f.param_base is not None else t.param_base
    size = base + (f.param_bytes or 0)
    name = f".nv.constant0.{f.name}"
    c0 = em.section(
        name,
        SectionType.CUDA_CONSTANT_B0 if desc.relocatable else SectionType.PROGBITS,
        SectionFlag.ALLOC | SectionFlag.INFO_LINK,
        4,
        B_CONST0 if t.elf_constant0_late else B_CONST,
        symbol=True,
        content=Blob(bytes(size)),
    )
    c0.info_sec = f".text.{f.name}"
    if not t.elf_constant0_late:
        # sm_75..89: the section, then its (unused) .rel section, then the section's symbol
        rel = f".rel.nv.constant0.{f.name}"
        em.shstr.append(rel)
        em.strtab.insert(len(em.strtab) - 1, rel)


def _emit_globals(em: _Emitter, desc: ModuleDescription) -> None:
    """Module variables, in declaration order; their sections appear on first use, the address
    table (.nv.constant4) right after the first .global variable."""
    t = em.target
    pic_done = False
    made: set[str] = set()
    for g in desc.globals:
        if g.offset is None:
            continue
        if g.space == Space.CONST:
            name = ".nv.constant.user" if t.elf_constant_renames else ".nv.constant3"
            kind = (SectionType.PROGBITS, SectionFlag.ALLOC, B_CONST)
        elif g.init is not None:
            name = ".nv.global.init"
            kind = (SectionType.PROGBITS, SectionFlag.ALLOC | SectionFlag.WRITE, B_DATA)
        else:
            name = ".nv.global"
            kind = (SectionType.NOBITS, SectionFlag.ALLOC | SectionFlag.WRITE, B_NOBITS)
        if name not in made:
            made.add(name)
            em.section(name, kind[0], kind[1], 1, kind[2], symbol=True)
        em.symbol(
            _Sym(
                g.name,
                SymbolBind.LOCAL,
                SymbolType.OBJECT,
                SymbolOther.MANAGED if g.managed else 0,
                section=name,
                value=g.offset,
                size=g.size,
            )
        )
        if g.space == Space.GLOBAL and not pic_done:
            pic_done = True
            em.section(
                ".nv.constant.pic" if t.elf_constant_renames else ".nv.constant4",
                SectionType.PROGBITS,
                SectionFlag.ALLOC,
                8,
                B_CONST,
                symbol=True,
            )
    _fill_data_sections(em, desc)


def _fill_data_sections(em: _Emitter, desc: ModuleDescription) -> None:
    """Contents and alignment of the module data sections."""
    t = em.target
    pic = ".nv.constant.pic" if t.elf_constant_renames else ".nv.constant4"
    user = ".nv.constant.user" if t.elf_constant_renames else ".nv.constant3"
    gvars = [g for g in desc.globals if g.space == Space.GLOBAL and g.offset is not None]
    for s in em.sections:
        members = []
        if s.name == user:
            members = [g for g in desc.globals if g.space == Space.CONST]
        elif s.name == ".nv.global.init":
            members = [g for g in gvars if g.init is not None]
        elif s.name == ".nv.global":
            members = [g for g in gvars if g.init is None]
        elif s.name == pic:
            s.content = Blob(bytes(8 * len(gvars)))
            continue
        else:
            continue
        s.align = max([g.align for g in members] + [1])
        size = max(((g.offset or 0) + g.size for g in members), default=0)
        if s.type == SectionType.NOBITS:
            s.content = NoBits(size)
            continue
        data = bytearray(size)
        for g in members:
            if g.init is not None:
                data[g.offset or 0 : (g.offset or 0) + len(g.init)] = g.init
        s.content = Blob(bytes(data))


def _function_attributes_maker(
    t: SMInfo, desc: ModuleDescription, f: Function
) -> Callable[[Callable[[str], int]], Content]:
    def make(sym: Callable[[str], int]) -> Content:
        return InfoSection(_function_attributes(t, desc, f, sym))

    return make


def _function_attributes(
    t: SMInfo, desc: ModuleDescription, f: Function, sym: Callable[[str], int]
) -> tuple[Attribute, ...]:
    recs: list[Attribute] = []
    recs.append(Attribute.sval(EIATTR.CUDA_API_VERSION, Words((CUDA_API_VERSION,))))
    v2 = any(p.size >= 1 << 14 for p in f.params)
    for p in sorted(f.params, key=lambda p: -p.offset):
        ordinal = f.params.index(p)
        if v2:
            recs.append(
                Attribute.sval(EIATTR.KPARAM_INFO_V2, KParamInfoV2(0, ordinal, p.offset, p.size))
            )
        else:
            recs.append(
                Attribute.sval(
                    EIATTR.KPARAM_INFO,
                    KParamInfo(
                        0, ordinal, p.offset, p.size, p.log_align, p.space, p.cbank, p.param_space
                    ),
                )
            )
    if t.elf_sparse_mma_mask:
        recs.append(Attribute.hval(EIATTR.SPARSE_MMA_MASK, 0))
    if f.entry:
        recs.append(Attribute.hval(EIATTR.MAXREG_COUNT, f.maxreg))
    if f.barriers:
        recs.append(Attribute.bval(EIATTR.NUM_BARRIERS, f.barriers))
    recs.append(Attribute.hval(EIATTR.MERCURY_ISA_VERSION, t.elf_mercury_isa_version))
    if f.exit_offsets:
        recs.append(Attribute.sval(EIATTR.EXIT_INSTR_OFFSETS, Words(f.exit_offsets)))
    if f.max_threads is not None:
        recs.append(Attribute.sval(EIATTR.MAX_THREADS, Dim3(*f.max_threads)))
    if f.reqntid is not None:
        recs.append(Attribute.sval(EIATTR.REQNTID, Dim3(*f.reqntid)))
    if f.cluster_dims is not None:
        recs.append(Attribute.sval(EIATTR.CTA_PER_CLUSTER, Dim3(*f.cluster_dims)))
    if f.max_cluster_rank is not None:
        recs.append(Attribute.sval(EIATTR.MAX_CLUSTER_RANK, Words((f.max_cluster_rank,))))
    if f.crs_stack is not None:
        recs.append(Attribute.sval(EIATTR.CRS_STACK_SIZE, Words((f.crs_stack,))))
    if f.param_bytes is not None:
        recs.append(Attribute.hval(EIATTR.CBANK_PARAM_SIZE, f.param_bytes))
        recs.append(
            Attribute.sval(
                EIATTR.PARAM_CBANK,
                ParamCBank(
                    sym(f".nv.constant0.{f.name}"),
                    f.param_base if f.param_base is not None else t.param_base,
                    f.param_bytes,
                ),
            )
        )
    if t.elf_sw_war >= 0:
        recs.append(Attribute.sval(EIATTR.SW_WAR, Words((t.elf_sw_war,))))
    recs.extend(f.attributes)
    return tuple(sorted(recs, key=lambda a: _rank(t, a.code)))


_SYM_PLACEHOLDER = 0xFFFFFFFF


def _rank(t: SMInfo, code: int) -> int:
    order: list[int] = _ORDER_LEGACY if t.elf_legacy_segments else _ORDER
    try:
        return order.index(code)
    except ValueError:
        return len(order) + code


_ORDER: list[int] = [
    EIATTR.BLOCKS_ARE_CLUSTERS,
    EIATTR.CUDA_API_VERSION,
    EIATTR.KPARAM_INFO,
    EIATTR.EXPLICIT_CLUSTER,
    EIATTR.CTA_PER_CLUSTER,
    EIATTR.MAX_CLUSTER_RANK,
    EIATTR.KPARAM_INFO_V2,
    EIATTR.AT_ENTRY_FRAGMENTS,
    EIATTR.RESERVED_SMEM_USED,
    EIATTR.SPARSE_MMA_MASK,
    EIATTR.WMMA_USED,
    EIATTR.TCGEN05_1CTA_USED,
    EIATTR.MAXREG_COUNT,
    EIATTR.EXTERNS,
    EIATTR.NUM_BARRIERS,
    EIATTR.ANNOTATIONS,
    EIATTR.MERCURY_ISA_VERSION,
    EIATTR.INT_WARP_WIDE_INSTR_OFFSETS,
    EIATTR.COOP_GROUP_MASK_REGIDS,
    EIATTR.COOP_GROUP_INSTR_OFFSETS,
    EIATTR.VRC_CTA_INIT_COUNT,
    EIATTR.MBARRIER_INSTR_OFFSETS,
    EIATTR.NUM_MBARRIERS,
    EIATTR.SYSCALL_OFFSETS,
    EIATTR.EXIT_INSTR_OFFSETS,
    EIATTR.MAX_THREADS,
    EIATTR.REQNTID,
    EIATTR.INDIRECT_BRANCH_TARGETS,
    EIATTR.CRS_STACK_SIZE,
    EIATTR.CBANK_PARAM_SIZE,
    EIATTR.PARAM_CBANK,
    EIATTR.SW_WAR,
    EIATTR.BINDLESS_TEXTURE_BANK,
    EIATTR.BINDLESS_SURFACE_BANK,
]
_ORDER_LEGACY: list[int] = [
    EIATTR.SW_WAR,
    EIATTR.CUDA_API_VERSION,
    EIATTR.SW2861232_WAR,
    EIATTR.PARAM_CBANK,
    EIATTR.CBANK_PARAM_SIZE,
    EIATTR.KPARAM_INFO,
    EIATTR.WMMA_USED,
    EIATTR.KPARAM_INFO_V2,
    EIATTR.MAXREG_COUNT,
    EIATTR.EXTERNS,
    EIATTR.BINDLESS_TEXTURE_BANK,
    EIATTR.BINDLESS_SURFACE_BANK,
    EIATTR.NUM_BARRIERS,
    EIATTR.ANNOTATIONS,
    EIATTR.MERCURY_ISA_VERSION,
    EIATTR.INT_WARP_WIDE_INSTR_OFFSETS,
    EIATTR.COOP_GROUP_MASK_REGIDS,
    EIATTR.COOP_GROUP_INSTR_OFFSETS,
    EIATTR.SYSCALL_OFFSETS,
    EIATTR.EXIT_INSTR_OFFSETS,
    EIATTR.CTAIDZ_USED,
    EIATTR.MAX_THREADS,
    EIATTR.REQNTID,
    EIATTR.INDIRECT_BRANCH_TARGETS,
    EIATTR.CRS_STACK_SIZE,
]


def _module_attributes(desc: ModuleDescription, sym: Callable[[str], int]) -> tuple[Attribute, ...]:
    """``.nv.info``: per function in reverse order its registers, [max stack], the frame sizes
    of its subroutines (last first) and its own; then the min stack sizes in order."""
    out: list[Attribute] = []
    for f in reversed(desc.functions):
        out.append(Attribute.sval(EIATTR.REGCOUNT, SymValue(sym(f.name), f.registers)))
        if f.max_stack is not None:
            out.append(Attribute.sval(EIATTR.MAX_STACK_SIZE, SymValue(sym(f.name), f.max_stack)))
        for sub in sorted(f.subroutines, key=lambda s: -s.offset):
            if sub.frame_size is not None:
                out.append(
                    Attribute.sval(EIATTR.FRAME_SIZE, SymValue(sym(sub.name), sub.frame_size))
                )
        out.append(Attribute.sval(EIATTR.FRAME_SIZE, SymValue(sym(f.name), f.frame_size)))
    for f in desc.functions:
        if f.min_stack is not None:
            out.append(Attribute.sval(EIATTR.MIN_STACK_SIZE, SymValue(sym(f.name), f.min_stack)))
    return tuple(out)


def _frame_entry(body: bytes) -> bytes:
    """A 64-bit DWARF CFI entry, padded with DW_CFA_nop to a multiple of 8 bytes."""
    body = body.rstrip(b"\0") if False else body
    length = len(body)
    while (12 + length) % 8:
        length += 1
    return b"\xff\xff\xff\xff" + struct.pack("<Q", length) + body + bytes(length - len(body))


def _debug_frame(
    desc: ModuleDescription, rela: bool
) -> tuple[bytes, list[tuple[int, int, str, int | None]]]:
    """``.debug_frame``: a CIE and an FDE for every function and subroutine, in code order;
    relocations per function (last first): the FDE locations, subroutines' last first, then the
    addresses inside their CIEs."""
    out = bytearray()
    groups: list[list[tuple[int, int, str, int | None]]] = []
    for f in desc.functions:
        subs = sorted(f.subroutines, key=lambda s: s.offset)
        entries = [(f.frame, 0, subs[0].offset if subs else len(f.code))]
        entries += [(s.frame, s.offset, s.size) for s in subs]
        fde_relocs: list[tuple[int, int, str, int | None]] = []
        cie_relocs: list[tuple[int, int, str, int | None]] = []
        for frame, offset, size in entries:
            if frame is None:
                continue
            cie_at = len(out)
            cie = bytearray(frame.cie)
            for off, addend in frame.cie_relocs:
                struct.pack_into("<q", cie, off, addend)
                cie_relocs.append(
                    (cie_at + 20 + off, RelocType.R_CUDA_64, f.name, addend if rela else None)
                )
            out += _frame_entry(b"\xff" * 8 + bytes(cie))
            fde_at = len(out)
            out += _frame_entry(struct.pack("<QQQ", cie_at, offset, size) + frame.fde)
            fde_relocs.append((fde_at + 20, RelocType.R_CUDA_64, f.name, offset if rela else None))
        groups.append(fde_relocs[::-1] + cie_relocs[::-1])
    relocs = [r for g in reversed(groups) for r in g]
    return bytes(out), relocs


_ = (Frame, GlobalVar, RelocType, SymValue)
