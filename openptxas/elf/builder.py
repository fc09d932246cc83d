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
    NOBITS_TYPES,
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
    Linkage,
    ModuleDescription,
    OpaqueSection,
    Reloc,
    Space,
    Subroutine,
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
(
    B_TABLES,
    B_DEBUG,
    B_NOTE,
    B_INFO,
    B_GRAPH,
    B_REL,
    B_CONST,
    B_TEXT,
    B_DATA,
    B_NOBITS,
    B_CONST0,
    B_MERCURY,
) = range(12)


def _add(table: list[str], name: str) -> None:
    """ptxas's string tables hold each name once."""
    if name not in table:
        table.append(name)


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
        make: Callable[[Callable[[str], int]], Content] | None = None,
    ) -> _Sec:
        _add(self.shstr, name)
        sec = _Sec(name, type_, flags, align, bucket, len(self.sections), entsize, content, link)
        sec.make = make
        self.sections.append(sec)
        _add(self.strtab, name)
        if symbol:
            self.symbols.append(_Sym(name, SymbolBind.LOCAL, SymbolType.SECTION, section=name))
        return sec

    def name_only(self, name: str) -> None:
        """A section ptxas creates and drops again: only its name stays behind."""
        _add(self.shstr, name)
        _add(self.strtab, name)

    def symbol(self, sym: _Sym) -> _Sym:
        _add(self.strtab, sym.name)
        self.symbols.append(sym)
        return sym

    def function_symbol(self, f: Function) -> None:
        """A function's symbol, unless an earlier reference already made it."""
        if not any(y.name == f.name and y.type == SymbolType.FUNC for y in self.symbols):
            self.symbol(_function_symbol(f))

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
            # sm_100+ keeps the old symbol name (the Mercury symbol table uses it)
            if self.target.elf_rename_in_place or tab is self.shstr:
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
                content = s.make(lambda name: 0 if name == "" else sym_index[name])
            if s.name == ".shstrtab":
                content = StringTable(("", *self.shstr))
            elif s.name == ".strtab":
                content = StringTable(("", *self.strtab))
            elif s.type == SectionType.CUDA_MERCURY_SYMTAB:
                content = SymbolTable(
                    (
                        Symbol(""),
                        *tuple(
                            Symbol(
                                y.name,
                                y.bind,
                                y.type,
                                y.other,
                                index[y.section] if y.section is not None else 0,
                                y.value,
                                y.size,
                            )
                            for y in desc.mercury_symbols
                        ),
                    )
                )
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


_UFT_SYMBOLS = (
    "__UDT_OFFSET",
    "__UFT_OFFSET",
    "__UFT_CANONICAL",
    "__UDT_CANONICAL",
    "__UFT",
    "__UDT",
    "__UFT_END",
    "__UDT_END",
)


def _function_symbol(f: Function) -> _Sym:
    other = f.other if f.other is not None else (SymbolOther.ENTRY if f.entry else 0)
    return _Sym(f.name, f.bind, SymbolType.FUNC, other, section=f".text.{f.name}", size=len(f.code))


def _callgraph_maker(desc: ModuleDescription) -> Callable[[Callable[[str], int]], Content]:
    """``.nv.callgraph``: four marker entries (0, -1) .. (0, -4), each followed by its group:
    direct calls (caller, callee) after -1; the other groups as the description gives them."""

    def make(sym: Callable[[str], int]) -> Content:
        pairs: list[tuple[int, int]] = []
        groups = desc.callgraph
        if groups is None:
            calls = tuple((f.name, c) for f in desc.functions for c in f.callees)
            groups = (calls, (), (), ())
        for marker, group in zip((-1, -2, -3, -4), groups, strict=True):
            pairs.append((0, marker))
            for a, b in group:
                pairs.append(
                    (sym(a) if isinstance(a, str) else a, sym(b) if isinstance(b, str) else b)
                )
        return WordPairs(tuple(pairs))

    return make


def _prototype_maker(
    em: _Emitter, desc: ModuleDescription
) -> Callable[[Callable[[str], int]], Content]:
    """``.nv.prototype``: (function symbol, offset of its signature in .strtab), by symbol."""

    def make(sym: Callable[[str], int]) -> Content:
        offsets: dict[str, int] = {}
        off = 1
        for x in em.strtab:
            offsets.setdefault(x, off)
            off += len(x.encode("utf-8", "surrogateescape")) + 1
        return WordPairs(tuple(sorted((sym(f), offsets[p]) for f, p in desc.prototypes)))

    return make


def _kind(r: Reloc, rela: bool = True) -> str:
    """sm_90+ (``rela``): ptxas files a relocation with an addend under ``.rela``, one without
    under ``.rel`` (R_CUDA_UNUSED_CLEAR64 always under ``.rela``). sm_75..89: a relocation whose
    addend is None goes to ``.rel`` (the addend is in the patched bytes), one with an addend
    (even 0) to ``.rela``."""
    if not rela:
        return "rel" if r.addend is None else "rela"
    return "rela" if r.addend or r.type == RelocType.R_CUDA_UNUSED_CLEAR64 else "rel"


def reloc_names(created: list[Reloc] | tuple[Reloc, ...], rela: bool) -> tuple[str, ...]:
    """The relocation sections ptxas makes for relocations created in this order: ``.rel``
    and/or ``.rela`` in order of first need; with SHT_RELA output (sm_90+) a ``.rel`` section is
    converted, which creates ``.rela`` if needed."""
    names: list[str] = []
    for r in created:
        k = _kind(r, rela)
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
            part = [r for r in final if _kind(r, False) == k]
            keep = bool(part)  # sm_75..89 drop relocation sections left empty
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
    for signature in desc.prototype_strings:  # interned while reading the PTX
        _add(em.strtab, signature)
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
    pic_made = False

    def make_const2_for(f: Function, text: _Sec) -> Callable[[], None]:
        def make() -> None:
            c2 = em.section(
                f".nv.constant.optimizer.{f.name}" if renames else f".nv.constant2.{f.name}",
                SectionType.CUDA_CONSTANT_B2 if desc.relocatable else SectionType.PROGBITS,
                SectionFlag.ALLOC | SectionFlag.INFO_LINK,
                f.const2_align,
                B_CONST,
                symbol=True,
                content=Blob(f.const2 or b""),
            )
            c2.info_sec = text.name

        return make

    globals_done = False
    reserved_done = False
    rel = desc.relocatable
    for f in desc.functions:
        # -c: a module-private or weak function's symbol is made with its code
        own_symbol_first = (rel or desc.debug) and f.bind != SymbolBind.GLOBAL
        if own_symbol_first:
            em.function_symbol(f)
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

        def make_info(f: Function = f, text: _Sec = text) -> None:
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

        # -c: a device function's .nv.info comes after the module-level symbols it triggers
        info_later = rel and not f.entry
        if not info_later:
            make_info()
        if f.shared is not None:
            sh = em.section(
                f".nv.shared.{f.name}",
                SectionType.CUDA_SHARED if rel else SectionType.NOBITS,
                SectionFlag.ALLOC | SectionFlag.WRITE | SectionFlag.INFO_LINK,
                f.shared_align,
                B_NOBITS,
                content=NoBits(f.shared + (0 if rel else t.elf_reserved_smem)),
            )
            sh.info_sec = text.name
            if f.shared_symbol:
                em.section_symbol(sh.name)
        elif f.entry:
            em.name_only(f".nv.shared.{f.name}")
        if not reserved_done and t.elf_reserved_smem_symbols:
            reserved_done = True
            if rel:
                for name in _UFT_SYMBOLS:
                    em.symbol(_Sym(name, SymbolBind.WEAK, SymbolType.OBJECT, size=8))
            rsv = t.elf_reserved_shared if desc.reserved_shared is None else desc.reserved_shared
            em.symbol(
                _Sym(
                    ".nv.reservedSmem.offset0",
                    SymbolBind.WEAK,
                    SymbolType.OBJECT,
                    value=rsv,
                    size=4,
                )
            )
            if not rel and not desc.debug:
                em.section(
                    ".nv.shared.reserved.0",
                    SectionType.NOBITS,
                    SectionFlag.ALLOC | SectionFlag.WRITE,
                    1,
                    B_NOBITS,
                    content=NoBits(rsv),
                )
                em.symbol(
                    _Sym(
                        "__nv_reservedSMEM_offset_0_alias",
                        SymbolBind.WEAK,
                        SymbolType.NOTYPE,
                        SymbolOther.RESERVED_SMEM_ALIAS,
                        section=".nv.shared.reserved.0",
                        value=rsv,
                    )
                )
        relocs_done = False
        replay_late = False
        just_placed = not globals_done and bool(desc.globals)
        if just_placed:
            globals_done = True
            _emit_globals(em, desc)
            # -c: relocations against the variables are made as they are placed
            names = {g.name for g in desc.globals}
            if rel and any(r.symbol in names for r in f.relocs):
                relocs_done = True
                if _replays(em, desc, f):
                    replay_late = True  # after the .nv.reservedSmem.cap symbol
                else:
                    _reloc_group(
                        em, text.name, list(reversed(f.relocs)), f.reloc_names, keep_empty=True
                    )
        if not desc.globals and f.externs and not rel and not pic_made:
            # no variables: the address table appears with the first call to an undefined
            # function
            pic_made = True
            _make_pic(em)
            _fill_data_sections(em, desc)
        if info_later:
            make_info()
        if just_placed:
            # functions whose addresses initializers hold get their symbols now
            for g in desc.globals:
                for r in sorted(g.relocs, key=lambda r: r.offset):
                    for h in desc.functions:
                        if h.name == r.symbol:
                            em.function_symbol(h)
        if f.reserved_smem_cap and t.elf_mercury:
            em.symbol(
                _Sym(
                    ".nv.reservedSmem.cap",
                    SymbolBind.WEAK,
                    SymbolType.OBJECT,
                    value=t.elf_reserved_smem,
                    size=4,
                )
            )
        elif f.reserved_smem_cap:
            # ptxas makes the symbol .nv.reservedSmem.cap and then blanks its name
            em.strtab.extend([""] * (len(".nv.reservedSmem.cap") + 1))
            em.symbols.append(_Sym("", SymbolBind.LOCAL, SymbolType.NOTYPE, 1))
        if replay_late:
            _replay_code_relocs(em, desc, f, make_const2_for(f, text))
        c2name = f".nv.constant.optimizer.{f.name}" if renames else f".nv.constant2.{f.name}"
        replay = not relocs_done and _replays(em, desc, f)
        make_const2 = make_const2_for(f, text)
        const2_first_use = (replay or relocs_done) and any(
            r.symbol == y.name for r in f.relocs for y in f.local_symbols if y.section == "const2"
        )
        if (
            f.const2 is not None
            and not any(x.name == c2name for x in em.sections)
            and not (const2_first_use and _replays(em, desc, f))
        ):
            make_const2()
        for sub in _subroutine_order(desc, f):
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
        # symbols inside the function's data: the first one is made before the code's
        # relocation sections, the others after (-c keeps them)
        local = [
            _Sym(
                y.name,
                y.bind,
                y.type,
                y.other,
                section=c2name if y.section == "const2" else f".nv.shared.{f.name}",
                value=y.value,
                size=y.size,
            )
            for y in f.local_symbols
        ]
        if replay:
            _replay_code_relocs(em, desc, f, make_const2)
        elif relocs_done and _replays(em, desc, f):
            pass  # made with the variables
        else:
            if local:
                em.symbol(local[0])
            if (f.relocs or f.reloc_names) and not relocs_done:
                # observed: a later function whose only relocations were calls to undefined
                # functions (resolved through the address table) loses its empty section
                keep = rel or not (f.externs and f is not desc.functions[0] and desc.globals)
                _reloc_group(
                    em, text.name, list(reversed(f.relocs)), f.reloc_names, keep_empty=keep
                )
            for y in local[1:]:
                em.symbol(y)
        if f.const2 is not None:
            if f.const2_relocs_late:
                late_const2.append(f)
            else:
                _reloc_group(
                    em,
                    c2name,
                    list(reversed(f.const2_relocs)),
                    f.const2_reloc_names,
                    keep_empty=True,
                )
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
    if desc.globals:
        _data_relocs(em, desc, late_const2)
        _reloc_group(em, ".debug_frame", frame_relocs, ("rel", "rela"))
    else:  # an address table of undefined functions only: its relocations come last
        _reloc_group(em, ".debug_frame", frame_relocs, ("rel", "rela"))
        _data_relocs(em, desc, late_const2)
    em.section(
        ".nv.callgraph",
        SectionType.CUDA_CALLGRAPH,
        0,
        4,
        B_GRAPH,
        symbol=True,
        entsize=8,
        link=".symtab",
        make=_callgraph_maker(desc),
    )
    if desc.prototypes:
        em.section(
            ".nv.prototype",
            SectionType.CUDA_PROTOTYPE,
            0,
            4,
            B_GRAPH,
            symbol=True,
            entsize=8,
            link=".symtab",
            make=_prototype_maker(em, desc),
        )
    else:
        em.name_only(".nv.prototype")
    if t.elf_rel_action and not rel:
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
    for i, f in enumerate(desc.functions):
        if not ((rel or desc.debug) and f.bind != SymbolBind.GLOBAL):
            em.function_symbol(f)
        if i == 0 and rel:
            _linked_variables(em, desc)
        for x in f.externs:
            if not any(y.name == x for y in em.symbols):
                em.symbol(_Sym(x, SymbolBind.GLOBAL, SymbolType.FUNC))
        for r in f.relocs if rel else ():
            # -c: a kernel of another object whose function descriptor the code takes
            # (R_CUDA_FUNC_DESC32_LO/HI_32): undefined, STO_CUDA_ENTRY (ptxas 13.0.88)
            known = any(y.name == r.symbol for y in em.symbols) or any(
                g.name == r.symbol for g in desc.functions
            )
            if r.type in (62, 63) and not known:
                em.symbol(_Sym(r.symbol, SymbolBind.GLOBAL, SymbolType.FUNC, 0x10))
    if rel and not desc.functions and desc.globals:
        # -c of a module with variables only (openptxas; not checked byte for byte)
        _emit_globals(em, desc)
        _linked_variables(em, desc)
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
    for m in desc.mercury:
        # the Mercury image comes last; its names are only in .shstrtab
        _add(em.shstr, m.name)
        sec = _Sec(m.name, m.type, m.flags, m.addralign, B_MERCURY, len(em.sections), m.entsize)
        sec.content = m.content
        sec.link = m.link
        if isinstance(m.info, str):
            sec.info_sec = m.info
        else:
            sec.info_value = m.info
        em.sections.append(sec)


def _data_relocs(em: _Emitter, desc: ModuleDescription, late_const2: list[Function]) -> None:
    """Relocations of module data, made after .debug_frame: the address table (.nv.constant4),
    user constants, initialized globals, then late compiler-constant tables."""
    t = em.target
    pic = ".nv.constant.pic" if t.elf_constant_renames else ".nv.constant4"
    user = ".nv.constant.user" if t.elf_constant_renames else ".nv.constant3"
    entries = _pic_entries(desc)
    if entries and not desc.relocatable:
        _reloc_group(
            em,
            pic,
            [
                Reloc(8 * i, RelocType.R_CUDA_64, n, 0 if t.elf_rela else None)
                for i, n in enumerate(entries)
            ],
            None,
        )
    for name, space, init in ((user, Space.CONST, True), (".nv.global.init", Space.GLOBAL, True)):
        created = [
            Reloc((g.offset or 0) + r.offset, r.type, r.symbol, r.addend)
            for g in desc.globals
            if g.space == space and g.init is not None
            for r in g.relocs
        ]
        created.sort(key=lambda r: r.offset)  # made in address order (listed last first)
        if created:
            # whole-program: ptxas resolves addresses of subroutines (functions placed inside
            # a kernel's code) itself, leaving the relocation section empty
            subs = set() if desc.relocatable else _subroutine_names(desc)
            kept = [r for r in created if r.symbol not in subs]
            _reloc_group(em, name, kept, reloc_names(created, t.elf_rela), keep_empty=True)
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


def _subroutine_names(desc: ModuleDescription) -> set[str]:
    return {sub.name for f in desc.functions for sub in f.subroutines}


def _address_taken(desc: ModuleDescription) -> set[str]:
    """Functions whose addresses module data holds (function-pointer tables)."""
    return {r.symbol for g in desc.globals for r in g.relocs}


def _subroutine_order(desc: ModuleDescription, f: Function) -> list[Subroutine]:
    """ptxas makes the symbols of address-taken subroutines first, each group in code order."""
    taken = _address_taken(desc)
    return sorted(f.subroutines, key=lambda s: (s.name not in taken, s.offset))


def _local_syms(em: _Emitter, f: Function) -> list[_Sym]:
    t = em.target
    c2name = (
        f".nv.constant.optimizer.{f.name}" if t.elf_constant_renames else f".nv.constant2.{f.name}"
    )
    return [
        _Sym(
            y.name,
            y.bind,
            y.type,
            y.other,
            section=c2name if y.section == "const2" else f".nv.shared.{f.name}",
            value=y.value,
            size=y.size,
        )
        for y in f.local_symbols
    ]


def _replays(em: _Emitter, desc: ModuleDescription, f: Function) -> bool:
    """-c: the code's relocations are made in code order, each first making the symbol it needs
    when that is a symbol in the function's data; callees without symbols get theirs first."""
    if not (desc.relocatable or desc.debug):
        return False
    local_names = {y.name for y in f.local_symbols}
    return (
        f.reserved_smem_cap_offset is not None
        or any(r.symbol in local_names for r in f.relocs)
        or any(_pending_function(em, desc, r.symbol) is not None for r in f.relocs)
    )


def _pending_function(em: _Emitter, desc: ModuleDescription, name: str) -> Function | None:
    for h in desc.functions:
        if h.name == name and h.bind != SymbolBind.GLOBAL:
            if any(y.name == name and y.type == SymbolType.FUNC for y in em.symbols):
                return None
            return h
    return None


def _replay_code_relocs(
    em: _Emitter, desc: ModuleDescription, f: Function, make_const2: Callable[[], None]
) -> None:
    text = f".text.{f.name}"
    rela = em.target.elf_rela
    created = list(reversed(f.relocs))
    local = _local_syms(em, f)
    by_name = {y.name: y for y in local}
    made_names: set[str] = set()
    kinds: list[str] = []

    def sections(k: str) -> None:
        if rela:  # sm_90+: .rel and .rela together (the .rel section is converted)
            if not kinds:
                kinds.append(k)
                _reloc_group(em, text, created, f.reloc_names, keep_empty=True)
        elif k not in kinds:
            kinds.append(k)
            _reloc_group(em, text, created, (k,), keep_empty=True)

    for r in sorted(f.relocs, key=lambda r: r.offset):
        # callees first (their symbols are looked up while the code is generated)
        h = _pending_function(em, desc, r.symbol)
        if h is not None:
            em.function_symbol(h)
    events = sorted(f.relocs, key=lambda r: r.offset)
    if f.reserved_smem_cap_offset is not None:
        cap = Reloc(f.reserved_smem_cap_offset, RelocType.R_CUDA_32, ".nv.reservedSmem.cap", None)
        events = sorted([cap, *events], key=lambda r: r.offset)
    for r in events:
        y = by_name.get(r.symbol)
        if y is not None and y.name not in made_names:
            if y.section is not None and not any(x.name == y.section for x in em.sections):
                make_const2()
            em.symbol(y)
            made_names.add(y.name)
        sections(_kind(r, rela))
    for k in f.reloc_names or ():
        if rela:
            sections(k)
        elif k not in kinds:
            _reloc_group(em, text, [], (k,), keep_empty=True)
    for y in local:
        if y.name not in made_names:
            em.symbol(y)


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
    if desc.relocatable and not t.elf_constant0_late:
        # -c on sm_75..89: a symbol for the parameter block (for the special-register block
        # below it when the kernel has no parameters)
        em.symbol(
            _Sym(
                "_param" if f.param_bytes else "_SREG",
                SymbolBind.LOCAL,
                SymbolType.CUDA_FUNC_DESC,
                0x81,
                section=name,
                value=base if f.param_bytes else 0,
                size=f.param_bytes or base,
            )
        )
    elif not t.elf_constant0_late:
        # sm_75..89: the section, then its (unused) .rel section, then the section's symbol
        rel = f".rel.nv.constant0.{f.name}"
        em.shstr.append(rel)
        em.strtab.insert(len(em.strtab) - 1, rel)


_BIND = {
    Linkage.LOCAL: SymbolBind.LOCAL,
    Linkage.VISIBLE: SymbolBind.GLOBAL,
    Linkage.EXTERN: SymbolBind.GLOBAL,
    Linkage.WEAK: SymbolBind.WEAK,
    Linkage.COMMON: SymbolBind.GLOBAL,
}


def _extern_entries(desc: ModuleDescription) -> list[str]:
    """Undefined functions get a slot in the address table after the variables."""
    out: list[str] = []
    for f in desc.functions:
        for x in f.externs:
            if x not in out:
                out.append(x)
    return out


# -c: the section of the module-scope shared variables (ptxas 13.0.88's name for it)
_MODULE_SHARED = ".nv_debug.shared"


def _emit_globals(em: _Emitter, desc: ModuleDescription) -> None:
    """Module variables, in declaration order; their sections appear on first use, the address
    table (.nv.constant4) right after the first .global variable."""
    t = em.target
    pic_done = False
    made: set[str] = set()
    if desc.functions and desc.functions[0].externs and not desc.relocatable:
        # the function being compiled calls undefined functions (vprintf, ...): their slots
        # in the address table come first
        pic_done = True
        _make_pic(em)
    for g in desc.globals:
        if g.offset is None:
            continue
        rel = desc.relocatable
        if g.space == Space.CONST:
            name = ".nv.constant.user" if t.elf_constant_renames else ".nv.constant3"
            kind = (
                SectionType.CUDA_CONSTANT_B3 if rel else SectionType.PROGBITS,
                SectionFlag.ALLOC,
                B_CONST,
            )
        elif g.space == Space.SHARED:  # -c: a module-scope shared variable (value: alignment)
            name = _MODULE_SHARED
            kind = (SectionType.CUDA_SHARED, SectionFlag.ALLOC | SectionFlag.WRITE, B_NOBITS)
        elif g.init is not None:
            name = ".nv.global.init"
            kind = (
                SectionType.CUDA_GLOBAL_INIT if rel else SectionType.PROGBITS,
                SectionFlag.ALLOC | SectionFlag.WRITE,
                B_DATA,
            )
        else:
            name = ".nv.global"
            kind = (
                SectionType.CUDA_GLOBAL if rel else SectionType.NOBITS,
                SectionFlag.ALLOC | SectionFlag.WRITE,
                B_NOBITS,
            )
        if name not in made:
            made.add(name)
            em.section(name, kind[0], kind[1], 1, kind[2], symbol=True)
        if rel and g.linkage != Linkage.LOCAL:
            continue  # -c: made with the function symbols (_linked_variables)
        em.symbol(
            _Sym(
                g.name,
                _BIND[g.linkage],
                g.sym_type,
                g.sym_other
                if g.sym_other is not None
                else (SymbolOther.MANAGED if g.managed else 0),
                section=name,
                value=g.offset,
                size=g.size,
            )
        )
        if g.space == Space.GLOBAL and not pic_done and not desc.relocatable:
            # whole-program code reads variable addresses from this table
            pic_done = True
            _make_pic(em)
    _fill_data_sections(em, desc)


def _make_pic(em: _Emitter) -> None:
    em.section(
        ".nv.constant.pic" if em.target.elf_constant_renames else ".nv.constant4",
        SectionType.PROGBITS,
        SectionFlag.ALLOC,
        8,
        B_CONST,
        symbol=True,
    )


def _pic_entries(desc: ModuleDescription) -> list[str]:
    """The address table (.nv.constant4), slots in order of need: the undefined functions the
    first function calls (the table is then made before the variables), the .global variables,
    then the undefined functions later functions call."""
    gvars = [g.name for g in desc.globals if g.space == Space.GLOBAL and g.offset is not None]
    first = list(dict.fromkeys(desc.functions[0].externs)) if desc.functions else []
    rest = [x for x in _extern_entries(desc) if x not in first]
    return first + gvars + rest


def _linked_variables(em: _Emitter, desc: ModuleDescription) -> None:
    """-c: symbols of the variables with linkage (visible, weak, extern), in declaration order,
    made after the first function's symbol."""
    t = em.target
    for g in desc.globals:
        if g.linkage == Linkage.LOCAL:
            continue
        section = None
        if g.offset is not None:
            if g.space == Space.CONST:
                section = ".nv.constant.user" if t.elf_constant_renames else ".nv.constant3"
            elif g.space == Space.SHARED:
                section = _MODULE_SHARED
            else:
                section = ".nv.global.init" if g.init is not None else ".nv.global"
        em.symbol(
            _Sym(
                g.name,
                _BIND[g.linkage],
                g.sym_type,
                g.sym_other
                if g.sym_other is not None
                else (SymbolOther.MANAGED if g.managed else 0),
                section=section,
                value=g.offset or 0,
                size=g.size,
            )
        )


def _fill_data_sections(em: _Emitter, desc: ModuleDescription) -> None:
    """Contents and alignment of the module data sections."""
    t = em.target
    pic = ".nv.constant.pic" if t.elf_constant_renames else ".nv.constant4"
    user = ".nv.constant.user" if t.elf_constant_renames else ".nv.constant3"
    gvars = [g for g in desc.globals if g.space == Space.GLOBAL and g.offset is not None]
    for s in em.sections:
        members = []
        if s.name == user:
            members = [g for g in desc.globals if g.space == Space.CONST and g.offset is not None]
        elif s.name == _MODULE_SHARED:
            # -c: the linker places the variables (their symbols' values are alignments)
            shared = [g for g in desc.globals if g.space == Space.SHARED and g.offset is not None]
            at = 0
            for g in shared:
                at = (at + g.align - 1) // g.align * g.align + g.size
            s.align = max([g.align for g in shared] + [1])
            s.content = NoBits(at)
            continue
        elif s.name == ".nv.global.init":
            members = [g for g in gvars if g.init is not None]
        elif s.name == ".nv.global":
            members = [g for g in gvars if g.init is None]
        elif s.name == pic:
            s.content = Blob(bytes(8 * len(_pic_entries(desc))))
            continue
        else:
            continue
        s.align = max([g.align for g in members] + [1])
        size = max(((g.offset or 0) + g.size for g in members), default=0)
        if s.type in NOBITS_TYPES:
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
    v2 = any(p.size >= 1 << 13 for p in f.params)
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
    if f.externs:
        recs.append(Attribute.sval(EIATTR.EXTERNS, Words(tuple(sym(x) for x in f.externs))))
    if f.max_threads is not None:
        recs.append(Attribute.sval(EIATTR.MAX_THREADS, Dim3(*f.max_threads)))
    if f.reqntid is not None:
        recs.append(Attribute.sval(EIATTR.REQNTID, Dim3(*f.reqntid)))
    if f.explicit_cluster:
        recs.append(Attribute.nval(EIATTR.EXPLICIT_CLUSTER))
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
    if t.elf_sw2861232_war:
        recs.append(Attribute.nval(EIATTR.SW2861232_WAR))
    recs.extend(f.attributes)
    return tuple(sorted(recs, key=lambda a: _rank(t, a.code)))


_SYM_PLACEHOLDER = 0xFFFFFFFF


def _rank(t: SMInfo, code: int) -> int:
    order: list[int] = _ORDER_LEGACY if t.elf_legacy_segments else _ORDER
    try:
        return order.index(code)
    except ValueError:
        return len(order) + code


# Record order in .nv.info.<f>: a total order consistent with every cubin of the test set
# (no two records were ever seen in both orders).
_ORDER: list[int] = [
    EIATTR.BLOCKS_ARE_CLUSTERS,
    EIATTR.CUDA_API_VERSION,
    EIATTR.KPARAM_INFO,
    EIATTR.KPARAM_INFO_V2,
    EIATTR.EXPLICIT_CLUSTER,
    EIATTR.MAX_CLUSTER_RANK,
    EIATTR.AT_ENTRY_FRAGMENTS,
    EIATTR.CTA_PER_CLUSTER,
    EIATTR.RESERVED_SMEM_USED,
    EIATTR.SPARSE_MMA_MASK,
    EIATTR.WMMA_USED,
    EIATTR.TCGEN05_1CTA_USED,
    EIATTR.MAXREG_COUNT,
    EIATTR.NUM_BARRIERS,
    EIATTR.ANNOTATIONS,
    EIATTR.EXTERNS,
    EIATTR.MERCURY_ISA_VERSION,
    EIATTR.INT_WARP_WIDE_INSTR_OFFSETS,
    EIATTR.UNUSED_LOAD_BYTE_OFFSET,
    EIATTR.REG_RECONFIG,
    EIATTR.COOP_GROUP_MASK_REGIDS,
    EIATTR.COOP_GROUP_INSTR_OFFSETS,
    EIATTR.VRC_CTA_INIT_COUNT,
    EIATTR.ATOM16_EMUL_INSTR_REG_MAP,
    EIATTR.SYSCALL_OFFSETS,
    EIATTR.MBARRIER_INSTR_OFFSETS,
    EIATTR.NUM_MBARRIERS,
    EIATTR.EXIT_INSTR_OFFSETS,
    EIATTR.INDIRECT_BRANCH_TARGETS,
    EIATTR.MAX_THREADS,
    EIATTR.REQNTID,
    EIATTR.CRS_STACK_SIZE,
    EIATTR.CBANK_PARAM_SIZE,
    EIATTR.PARAM_CBANK,
    EIATTR.SW_WAR,
    EIATTR.BINDLESS_TEXTURE_BANK,
    EIATTR.BINDLESS_SURFACE_BANK,
]
# The same for sm_75..89.
_ORDER_LEGACY: list[int] = [
    EIATTR.SW_WAR,
    EIATTR.CUDA_API_VERSION,
    EIATTR.SW2861232_WAR,
    EIATTR.PARAM_CBANK,
    EIATTR.CBANK_PARAM_SIZE,
    EIATTR.KPARAM_INFO,
    EIATTR.KPARAM_INFO_V2,
    EIATTR.WMMA_USED,
    EIATTR.MAXREG_COUNT,
    EIATTR.NUM_BARRIERS,
    EIATTR.ANNOTATIONS,
    EIATTR.BINDLESS_SURFACE_BANK,
    EIATTR.EXTERNS,
    EIATTR.BINDLESS_TEXTURE_BANK,
    EIATTR.MERCURY_ISA_VERSION,
    EIATTR.INT_WARP_WIDE_INSTR_OFFSETS,
    EIATTR.SYSCALL_OFFSETS,
    EIATTR.ATOM16_EMUL_INSTR_REG_MAP,
    EIATTR.COOP_GROUP_MASK_REGIDS,
    EIATTR.INSTR_REG_MAP,
    EIATTR.COOP_GROUP_INSTR_OFFSETS,
    EIATTR.MBARRIER_INSTR_OFFSETS,
    EIATTR.NUM_MBARRIERS,
    EIATTR.EXIT_INSTR_OFFSETS,
    EIATTR.CTAIDZ_USED,
    EIATTR.INDIRECT_BRANCH_TARGETS,
    EIATTR.MAX_THREADS,
    EIATTR.REQNTID,
    EIATTR.CRS_STACK_SIZE,
    EIATTR.UNUSED_LOAD_BYTE_OFFSET,
]


def _module_attributes(desc: ModuleDescription, sym: Callable[[str], int]) -> tuple[Attribute, ...]:
    """``.nv.info``: per function in reverse order its registers, [max stack], the frame sizes
    of its subroutines (last first) and its own; then the min stack sizes in order."""
    out: list[Attribute] = []
    for f in reversed(desc.functions):
        out.append(Attribute.sval(EIATTR.REGCOUNT, SymValue(sym(f.name), f.registers)))
        if f.max_stack is not None:
            out.append(Attribute.sval(EIATTR.MAX_STACK_SIZE, SymValue(sym(f.name), f.max_stack)))
        for sub in reversed(_subroutine_order(desc, f)):
            if sub.frame_size is not None:
                out.append(
                    Attribute.sval(EIATTR.FRAME_SIZE, SymValue(sym(sub.name), sub.frame_size))
                )
        out.append(Attribute.sval(EIATTR.FRAME_SIZE, SymValue(sym(f.name), f.frame_size)))
        if f.errbar_at_exit:
            out.append(Attribute(Fmt.NVAL, EIATTR.GEN_ERRBAR_AT_EXIT, None))
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


def _debug_frame(desc: ModuleDescription, rela: bool) -> tuple[bytes, list[Reloc]]:
    """``.debug_frame``: a CIE and an FDE for every function and subroutine, in code order.

    Relocations, as made (ptxas lists them last first): whole-program, per function the
    addresses inside subroutine CIEs then the FDE locations (the function's own first); ``-c``
    adds to each FDE its CIE pointer and an R_CUDA_UNUSED_CLEAR64 over the address range.
    sm_75..89 (SHT_REL) keep the addends in the section bytes.
    """
    out = bytearray()
    made: list[Reloc] = []
    r64 = RelocType.R_CUDA_64
    pairs = 0

    def add(offset: int, sym: str, addend: int, kind_rel: bool = True) -> Reloc:
        return Reloc(offset, r64, sym, None if (kind_rel and not rela) else addend)

    for f in desc.functions:
        subs = _subroutine_order(desc, f)
        body = min((s.offset for s in subs), default=len(f.code))
        entries = [(f.frame, 0, body)]
        entries += [(s.frame, s.offset, s.size) for s in subs]
        fde_relocs: list[Reloc] = []
        cie_relocs: list[Reloc] = []
        for frame, offset, size in entries:
            if frame is None:
                continue
            cie_at = len(out)
            cie = bytearray(frame.cie)
            for off, addend in frame.cie_relocs:
                struct.pack_into("<q", cie, off, addend)
                cie_relocs.append(add(cie_at + 20 + off, f.name, addend))
            out += _frame_entry(b"\xff" * 8 + bytes(cie))
            fde_at = len(out)
            out += _frame_entry(struct.pack("<QQQ", cie_at, offset, size) + frame.fde)
            if desc.relocatable:
                # the CIE pointer is relocated against .debug_frame; with an addend it is a
                # .rela entry and the field itself stays 0
                # ptxas counts 8 more bytes per preceding CIE/FDE pair than the pairs take
                struct.pack_into("<Q", out, fde_at + 12, 0)
                cie_ptr = Reloc(
                    fde_at + 12,
                    r64,
                    ".debug_frame",
                    frame.cie_ptr_addend if frame.cie_ptr_addend is not None else cie_at,
                )
                if not rela and pairs == 0:
                    cie_ptr = Reloc(fde_at + 12, r64, ".debug_frame", None)
                fde_relocs += [
                    cie_ptr,
                    add(fde_at + 20, f.name, offset),
                    Reloc(fde_at + 28, RelocType.R_CUDA_UNUSED_CLEAR64, f.name, 0),
                ]
            else:
                fde_relocs.append(add(fde_at + 20, f.name, offset))
            pairs += 1
        made += cie_relocs + fde_relocs
    return bytes(out), made


_ = (Frame, GlobalVar, RelocType, SymValue)
