"""Cubin -> :class:`~openptxas.elf.description.ModuleDescription`: the facts a compiler decides,
read back out of a ptxas cubin (the inverse of :func:`openptxas.elf.builder.build`)."""

from __future__ import annotations

import re
import struct

from openptxas.diag import CubinFormatError, UsageError
from openptxas.elf.consts import (
    NOBITS_TYPES,
    RelocType,
    SectionFlag,
    SectionType,
    SymbolBind,
    SymbolType,
)
from openptxas.elf.description import (
    Frame,
    Function,
    GlobalVar,
    Linkage,
    LocalSymbol,
    MercurySection,
    MercurySymbol,
    ModuleDescription,
    OpaqueSection,
    Param,
    Reloc,
    Space,
    Subroutine,
)
from openptxas.elf.model import (
    Blob,
    CompatSection,
    Cubin,
    InfoSection,
    NoBits,
    NoteSection,
    RelocTable,
    Section,
    StringTable,
    SymbolTable,
    WordPairs,
)
from openptxas.elf.nvinfo import (
    EIATTR,
    Attribute,
    Dim3,
    KParamInfo,
    KParamInfoV2,
    ParamCBank,
    SymValue,
    Words,
)
from openptxas.targets import SMInfo, get_target

# Records the builder writes from Function fields (everything else is passed through).
SYNTHESIZED = frozenset(
    {
        EIATTR.CUDA_API_VERSION,
        EIATTR.KPARAM_INFO,
        EIATTR.KPARAM_INFO_V2,
        EIATTR.SPARSE_MMA_MASK,
        EIATTR.MAXREG_COUNT,
        EIATTR.NUM_BARRIERS,
        EIATTR.MERCURY_ISA_VERSION,
        EIATTR.EXIT_INSTR_OFFSETS,
        EIATTR.MAX_THREADS,
        EIATTR.REQNTID,
        EIATTR.CRS_STACK_SIZE,
        EIATTR.CBANK_PARAM_SIZE,
        EIATTR.PARAM_CBANK,
        EIATTR.SW_WAR,
        EIATTR.SW2861232_WAR,
        EIATTR.CTA_PER_CLUSTER,
        EIATTR.MAX_CLUSTER_RANK,
        EIATTR.EXTERNS,
    }
)

_ARCH = re.compile(r"-arch\s+(sm_\d+[af]?)")


def _tkinfo(cubin: Cubin) -> tuple[str, str]:
    for s in cubin.sections:
        if isinstance(s.content, NoteSection):
            for n in s.content.notes:
                if n.tkinfo is not None:
                    return n.tkinfo.options, n.tkinfo.object_name
    raise CubinFormatError("the cubin has no .note.nv.tkinfo")


def _ptx_target(cubin: Cubin) -> int:
    for s in cubin.sections:
        if isinstance(s.content, NoteSection):
            for n in s.content.notes:
                if n.cuinfo is not None:
                    return n.cuinfo.sm
    raise CubinFormatError("the cubin has no .note.nv.cuinfo")


def _relocs_by_target(cubin: Cubin) -> dict[int, list[Reloc]]:
    out: dict[int, list[Reloc]] = {}
    for s in cubin.sections:
        if s.type in (SectionType.RELA, SectionType.REL) and isinstance(s.content, RelocTable):
            out.setdefault(s.info, []).extend(
                Reloc(r.offset, r.type, cubin.symbol_name(r.sym), r.addend)
                for r in s.content.relocs
            )
    return out


def parse_frames(cubin: Cubin) -> dict[tuple[str, int], Frame]:
    """Split ``.debug_frame`` into (function symbol, offset) -> its CIE and FDE programs."""
    try:
        sec = cubin.section(".debug_frame")
    except KeyError:
        return {}
    data = sec.data()
    relocs: dict[int, tuple[str, int]] = {}
    for s in cubin.sections:
        if s.name in (".rela.debug_frame", ".rel.debug_frame") and isinstance(
            s.content, RelocTable
        ):
            for r in s.content.relocs:
                addend = r.addend
                if addend is None:  # SHT_REL: the addend sits in the patched bytes
                    addend = struct.unpack_from("<q", data, r.offset)[0]
                relocs[r.offset] = (cubin.symbol_name(r.sym), addend)
    frames: dict[tuple[str, int], Frame] = {}
    cies: dict[int, tuple[bytes, tuple[tuple[int, int], ...]]] = {}
    o = 0
    while o + 12 <= len(data):
        if data[o : o + 4] != b"\xff\xff\xff\xff":
            raise CubinFormatError(f".debug_frame: unexpected entry at {o:#x}")
        length = struct.unpack_from("<Q", data, o + 4)[0]
        body = data[o + 12 : o + 12 + length]
        cie_id = struct.unpack_from("<Q", body, 0)[0]
        if cie_id == 0xFFFFFFFFFFFFFFFF:
            cie = _strip_cie(body[8:])
            crel = tuple(
                (off - (o + 20), relocs[off][1])
                for off in sorted(relocs)
                if o + 20 <= off < o + 12 + length
            )
            cies[o] = (cie, crel)
        else:
            loc = o + 20
            name, addend = relocs.get(loc, ("", 0))
            ptr = relocs.get(o + 12)
            cie_at = max(cies) if cies else 0
            ptr_addend = ptr[1] if ptr is not None and ptr[1] != cie_at else None
            # ptxas writes CIE/FDE pairs; in -c output the CIE pointer field is 0 (relocated)
            cie, crel = cies[max(cies)] if cies else (b"", ())
            frames[(name, addend)] = Frame(
                cie=cie, fde=_strip_nops(body[24:]), cie_relocs=crel, cie_ptr_addend=ptr_addend
            )
        o += 12 + length
    return frames


def _compat_if_needed(cubin: Cubin, target: str) -> tuple[Attribute, ...] | None:
    from openptxas.elf.builder import default_compat

    for s in cubin.sections:
        if isinstance(s.content, CompatSection):
            t = _target_info(target)
            if t is not None and s.content == default_compat(t):
                return None
            return s.content.attributes
    return None


def _callgraph(
    cubin: Cubin, cg: WordPairs
) -> tuple[tuple[tuple[str | int, str | int], ...], ...] | None:
    groups: list[list[tuple[str | int, str | int]]] = []
    for a, b in cg.pairs:
        if a == 0 and b < 0:
            groups.append([])
            continue
        if not groups:
            return None

        def name(i: int) -> str | int:
            syms = cubin.symtab.symbols
            if 0 < i < len(syms) and syms[i].type == SymbolType.FUNC:
                return syms[i].name
            return i

        groups[-1].append((name(a), name(b)))
    if len(groups) != 4:
        return None
    out = tuple(tuple(g) for g in groups)
    if not any(out):
        return None
    return out


def _local_symbols(cubin: Cubin, fname: str) -> tuple[LocalSymbol, ...]:
    kinds = {f".nv.shared.{fname}": "shared", f".nv.constant2.{fname}": "const2"}
    out = []
    for y in cubin.symtab.symbols:
        if y.type == SymbolType.SECTION or not 0 < y.shndx < len(cubin.sections):
            continue
        kind = kinds.get(cubin.sections[y.shndx].name)
        if kind is not None:
            out.append(LocalSymbol(y.name, kind, y.value, y.size, y.type, y.other, y.bind))
    return tuple(out)


def _strings(cubin: Cubin, index: int) -> list[str]:
    content = cubin.sections[index].content if 0 <= index < len(cubin.sections) else None
    return list(content.strings) if isinstance(content, StringTable) else []


def _strtab_index(cubin: Cubin) -> int:
    for s in cubin.sections:
        if s.type == SectionType.SYMTAB:
            return s.link
    return 2


def _target_info(target: str) -> SMInfo | None:
    try:
        return get_target(target)
    except UsageError:
        return None


def _rename_pad(name: str) -> int:
    base = name.removeprefix(".rela").removeprefix(".rel")
    if base == ".nv.constant4":
        return len(".nv.constant.pic") - len(base)
    if base == ".nv.constant3":
        return len(".nv.constant.user") - len(base)
    if base.startswith(".nv.constant2."):
        return len(".nv.constant.optimizer.") - len(".nv.constant2.")
    return 0


def _cap_functions(history: list[str]) -> set[str]:
    """Functions during whose compilation ptxas blanked a ``.nv.reservedSmem.cap`` symbol
    (a run of 21 empty strings in .strtab)."""
    out: set[str] = set()
    run = len(".nv.reservedSmem.cap") + 1
    i = 1
    current = ""
    while i < len(history):
        if history[i].startswith(".text."):
            current = history[i][len(".text.") :]
        elif history[i] == ".nv.reservedSmem.cap":  # sm_100+ keeps the symbol
            out.add(current)
        if history[i] == "" and history[i - 1] != "":
            j = i
            while j < len(history) and history[j] == "":
                j += 1
            prev = history[i - 1]
            # an in-place rename leaves len(old) - len(new) NULs after the new name
            pad = _rename_pad(prev)
            if j - i - pad == run and not prev.startswith(".rel"):
                out.add(current)
            i = j
            continue
        i += 1
    return out


def _cap_offset(history: list[str], fname: str, relocs: tuple[Reloc, ...]) -> int | None:
    """See Function.reserved_smem_cap_offset: an offset before the first relocation when the
    relocation sections were made before the symbol that relocation needed."""
    if not relocs:
        return None
    first = min(relocs, key=lambda r: r.offset)
    try:
        start = history.index(f".text.{fname}")
    except ValueError:
        return None
    tail = history[start:]
    secs = [i for i, x in enumerate(tail) if x in (f".rel.text.{fname}", f".rela.text.{fname}")]
    if not secs or first.symbol not in tail:
        return None
    if min(secs) < tail.index(first.symbol):
        return max(first.offset - 16, 0)
    return None


def _names_if_needed(
    history: list[str], target: str, final: tuple[Reloc, ...], rela: bool
) -> tuple[str, ...] | None:
    """The .rel/.rela creation order for ``target`` when the final relocations do not imply it
    (ptxas resolved some itself)."""
    from openptxas.elf.builder import reloc_names

    seen = [
        (history.index(f".{k}{target}"), k) for k in ("rel", "rela") if f".{k}{target}" in history
    ]
    names = tuple(k for _, k in sorted(seen))
    if names == reloc_names(list(reversed(final)), rela):
        return None
    return names


def _uleb(data: bytes, o: int) -> int:
    while o < len(data) and data[o] & 0x80:
        o += 1
    return o + 1


def _cfa_end(program: bytes) -> int:
    """Length of a DWARF call-frame program without its DW_CFA_nop padding."""
    o = 0
    end = 0
    n = len(program)
    while o < n:
        op = program[o]
        o += 1
        hi = op >> 6
        if op == 0:
            continue  # nop: padding unless something follows
        if hi == 1 or hi == 3:  # advance_loc, restore
            pass
        elif hi == 2:  # offset: uleb
            o = _uleb(program, o)
        elif op in (0x0A, 0x0B):
            pass
        elif op == 0x01:
            o += 8
        elif op in (0x02, 0x03, 0x04):
            o += {0x02: 1, 0x03: 2, 0x04: 4}[op]
        elif op in (0x06, 0x07, 0x08, 0x0D, 0x0E, 0x13):
            o = _uleb(program, o)
        elif op in (0x05, 0x09, 0x0C, 0x11, 0x12, 0x14, 0x15):
            o = _uleb(program, _uleb(program, o))
        elif op == 0x0F:
            start = _uleb(program, o)
            o = start + int.from_bytes(program[o:start], "little") if False else _block(program, o)
        elif op in (0x10, 0x16):
            o = _block(program, _uleb(program, o))
        else:
            return len(program)  # unknown: keep everything
        end = o
    return min(end, n)


def _block(program: bytes, o: int) -> int:
    length = 0
    shift = 0
    while o < len(program):
        b = program[o]
        o += 1
        length |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    return o + length


def _strip_nops(program: bytes) -> bytes:
    """Drop the DW_CFA_nop padding after the last instruction (the builder pads again)."""
    return program[: _cfa_end(program)]


def _strip_cie(cie: bytes) -> bytes:
    """A CIE body (version onwards) without the padding after its initial instructions."""
    aug_end = cie.index(b"\0", 1) + 1
    o = _uleb(cie, aug_end)  # code alignment
    o = _uleb(cie, o)  # data alignment (sleb: same length rule)
    o = _uleb(cie, o)  # return address register
    return cie[:o] + _strip_nops(cie[o:])


def describe(cubin: Cubin) -> ModuleDescription:
    """Extract the compiler-level facts of a ptxas cubin."""
    options, object_name = _tkinfo(cubin)
    m = _ARCH.search(options)
    target = m.group(1) if m else f"sm_{cubin.sm}"
    symtab = cubin.symtab
    syms = symtab.symbols
    relocs = _relocs_by_target(cubin)
    frames = parse_frames(cubin)

    glob_attrs: list[Attribute] = []
    info_by_text: dict[int, InfoSection] = {}
    for s in cubin.sections:
        if s.type == SectionType.CUDA_INFO and isinstance(s.content, InfoSection):
            if s.name == ".nv.info":
                glob_attrs.extend(s.content.attributes)
            else:
                info_by_text[s.info] = s.content
    per_sym: dict[int, dict[int, int]] = {}
    errbar: set[int] = set()  # functions followed by GEN_ERRBAR_AT_EXIT in .nv.info
    last_frame = -1
    for a in glob_attrs:
        if isinstance(a.value, SymValue):
            per_sym.setdefault(a.code, {})[a.value.sym] = a.value.value
            if a.code == EIATTR.FRAME_SIZE:
                last_frame = a.value.sym
        elif a.code == EIATTR.GEN_ERRBAR_AT_EXIT:
            errbar.add(last_frame)

    t = _target_info(target)
    rela = t.elf_rela if t is not None else True
    renames = t.elf_constant_renames if t is not None else False
    reserved = t.elf_reserved_smem if t is not None and not cubin.is_relocatable else 0
    history = _strings(cubin, _strtab_index(cubin))
    cap_functions = _cap_functions(history)
    shhistory = _strings(cubin, cubin.shstrndx)
    functions: list[Function] = []
    for idx, sec in enumerate(cubin.sections):
        if not sec.name.startswith(".text."):
            continue
        fname = sec.name[len(".text.") :]
        symi = next(
            (
                i
                for i, y in enumerate(syms)
                if y.name == fname and y.type == SymbolType.FUNC and y.shndx == idx
            ),
            None,
        )
        if symi is None:
            raise CubinFormatError(f"no function symbol for {sec.name}")
        fsym = syms[symi]
        info = info_by_text.get(idx, InfoSection(()))
        params: list[Param] = []
        param_bytes = None
        kw: dict[str, object] = {}
        extra: list[Attribute] = []
        for a in info.attributes:
            v = a.value
            if isinstance(v, KParamInfo):
                params.append(Param(v.offset, v.size, v.log_align, v.space, v.cbank, v.param_space))
            elif isinstance(v, KParamInfoV2):
                params.append(Param(v.offset, v.size))
            elif a.code == EIATTR.CBANK_PARAM_SIZE and isinstance(v, int):
                param_bytes = v
            elif isinstance(v, ParamCBank):
                if t is None or v.offset != t.param_base:
                    kw["param_base"] = v.offset
            elif a.code == EIATTR.MAXREG_COUNT and isinstance(v, int):
                kw["maxreg"] = v
            elif a.code == EIATTR.NUM_BARRIERS and isinstance(v, int):
                kw["barriers"] = v
            elif a.code == EIATTR.EXIT_INSTR_OFFSETS and isinstance(v, Words):
                kw["exit_offsets"] = v.values
            elif a.code == EIATTR.MAX_THREADS and isinstance(v, Dim3):
                kw["max_threads"] = (v.x, v.y, v.z)
            elif a.code == EIATTR.REQNTID and isinstance(v, Dim3):
                kw["reqntid"] = (v.x, v.y, v.z)
            elif a.code == EIATTR.CTA_PER_CLUSTER and isinstance(v, Dim3):
                kw["cluster_dims"] = (v.x, v.y, v.z)
            elif a.code == EIATTR.MAX_CLUSTER_RANK and isinstance(v, Words):
                kw["max_cluster_rank"] = v.values[0]
            elif a.code == EIATTR.CRS_STACK_SIZE and isinstance(v, Words):
                kw["crs_stack"] = v.values[0]
            elif a.code == EIATTR.EXTERNS and isinstance(v, Words):
                kw["externs"] = tuple(cubin.symbol_name(i) for i in v.values)
            elif a.code in SYNTHESIZED:
                continue  # target constants (API version, SW_WAR, ...) and PARAM_CBANK
            else:
                extra.append(a)
        params.sort(key=lambda p: p.offset)
        subs = []
        for i, y in enumerate(syms):
            if y.shndx == idx and y.type == SymbolType.FUNC and i != symi:
                subs.append(
                    Subroutine(
                        y.name,
                        y.value,
                        y.size,
                        y.bind,
                        per_sym.get(EIATTR.FRAME_SIZE, {}).get(i),
                        frames.get((fname, y.value)),
                    )
                )
        shared = None
        shared_align = 16
        for s in cubin.sections:
            if s.name == f".nv.shared.{fname}" and isinstance(s.content, NoBits):
                shared = s.content.size - reserved
                shared_align = s.addralign
        const2 = None
        const2_relocs: tuple[Reloc, ...] = ()
        c2_names = None
        c2_late = False
        for i, s in enumerate(cubin.sections):
            if s.name == f".nv.constant2.{fname}" and isinstance(s.content, Blob):
                const2 = s.content.data
                kw["const2_align"] = s.addralign
                const2_relocs = tuple(relocs.get(i, ()))
                c2 = f".nv.constant.optimizer.{fname}" if renames else f".nv.constant2.{fname}"
                c2_names = _names_if_needed(history, c2, const2_relocs, rela)
                positions = [
                    history.index(f".{k}{c2}") for k in ("rel", "rela") if f".{k}{c2}" in history
                ]
                frame_at = history.index(".debug_frame") if ".debug_frame" in history else 0
                c2_late = bool(positions) and min(positions) > frame_at
        text_relocs = tuple(relocs.get(idx, ()))
        functions.append(
            Function(
                name=fname,
                entry=bool(fsym.other & 0x10),
                code=sec.data(),
                registers=per_sym.get(EIATTR.REGCOUNT, {}).get(symi, sec.info >> 24),
                bind=fsym.bind,
                other=fsym.other,
                frame_size=per_sym.get(EIATTR.FRAME_SIZE, {}).get(symi, 0),
                min_stack=per_sym.get(EIATTR.MIN_STACK_SIZE, {}).get(symi),
                max_stack=per_sym.get(EIATTR.MAX_STACK_SIZE, {}).get(symi),
                params=tuple(params),
                param_bytes=param_bytes,
                shared=shared,
                shared_align=shared_align,
                relocs=text_relocs,
                reloc_names=_names_if_needed(history, f".text.{fname}", text_relocs, rela),
                subroutines=tuple(subs),
                const2=const2,
                const2_relocs=const2_relocs,
                const2_reloc_names=c2_names,
                const2_relocs_late=c2_late,
                shared_symbol=any(
                    y.name == f".nv.shared.{fname}" and y.type == SymbolType.SECTION for y in syms
                ),
                reserved_smem_cap=fname in cap_functions,
                errbar_at_exit=symi in errbar,
                reserved_smem_cap_offset=_cap_offset(history, fname, text_relocs)
                if cubin.is_relocatable and t is not None and t.elf_reserved_smem_symbols
                else None,
                local_symbols=_local_symbols(cubin, fname),
                attributes=tuple(extra),
                frame=frames.get((fname, 0)),
                **kw,  # type: ignore[arg-type]
            )
        )

    globals_: list[GlobalVar] = []
    data_sections = {}
    for i, s in enumerate(cubin.sections):
        if s.name in (".nv.global", ".nv.global.init", ".nv.constant3"):
            data_sections[i] = s
    for y in syms:
        if y.type not in (SymbolType.OBJECT, SymbolType.CUDA_FUNC_DESC):
            continue
        if y.shndx == 0 and y.bind == SymbolBind.GLOBAL:
            # an undefined variable (-c: .extern .global / .const / .shared)
            space = Space.SHARED if y.other & 0x40 else Space.GLOBAL
            globals_.append(
                GlobalVar(
                    y.name,
                    space,
                    y.size,
                    1,
                    linkage=Linkage.EXTERN,
                    sym_type=y.type,
                    sym_other=y.other,
                )
            )
            continue
        dsec = data_sections.get(y.shndx)
        if dsec is None:
            continue
        globals_.append(_global(cubin, y, dsec, relocs))

    debug: list[OpaqueSection] = []
    for i, s in enumerate(cubin.sections):
        if s.name.startswith((".debug_", ".nv_debug")) and s.name != ".debug_frame":
            seen = [
                (shhistory.index(f".{k}{s.name}"), k)
                for k in ("rel", "rela")
                if f".{k}{s.name}" in shhistory
            ]
            debug.append(
                OpaqueSection(
                    s.name,
                    s.type,
                    s.flags,
                    s.data(),
                    s.addralign,
                    s.entsize,
                    tuple(relocs.get(i, ())),
                    tuple(k for _, k in sorted(seen)),
                    any(y.name == s.name and y.type == SymbolType.SECTION for y in syms),
                )
            )

    callgraph: tuple[tuple[tuple[str | int, str | int], ...], ...] | None = None
    for s in cubin.sections:
        if s.type == SectionType.CUDA_CALLGRAPH and isinstance(s.content, WordPairs):
            callgraph = _callgraph(cubin, s.content)
    prototypes: list[tuple[str, str]] = []
    signatures: list[str] = []
    for x in history[1:]:
        if x in (".shstrtab", ".strtab"):
            break
        signatures.append(x)
    for s in cubin.sections:
        if s.type == SectionType.CUDA_PROTOTYPE and isinstance(s.content, WordPairs):
            strtab = cubin.sections[_strtab_index(cubin)].content
            at: dict[int, str] = {}
            if isinstance(strtab, StringTable):
                off = 0
                for x in strtab.strings:
                    at.setdefault(off, x)
                    off += len(x.encode("utf-8", "surrogateescape")) + 1
            pairs = sorted(s.content.pairs, key=lambda p: p[1])  # by string
            prototypes = [(cubin.symbol_name(a), at.get(b, "")) for a, b in pairs]
    reserved_shared = None
    for y in syms:
        if y.name == ".nv.reservedSmem.offset0":
            default = t.elf_reserved_shared if t is not None else 0
            reserved_shared = None if y.value == default else y.value
    mercury, mercury_symbols = _mercury(cubin)
    return ModuleDescription(
        target=target,
        ptx_target=_ptx_target(cubin),
        relocatable=cubin.is_relocatable,
        options=options,
        object_name=object_name,
        functions=tuple(functions),
        globals=tuple(globals_),
        debug_sections=tuple(debug),
        e_flags_kind=cubin.e_flags >> 24,
        compat=_compat_if_needed(cubin, target),
        callgraph=callgraph,
        reserved_shared=reserved_shared,
        prototype_strings=tuple(signatures),
        prototypes=tuple(prototypes),
        mercury=mercury,
        mercury_symbols=mercury_symbols,
    )


def _mercury(cubin: Cubin) -> tuple[tuple[MercurySection, ...], tuple[MercurySymbol, ...]]:
    """The Mercury image of an sm_100+ cubin: its sections, as they are."""
    secs = cubin.sections

    def name(i: int) -> str | None:
        return secs[i].name if 0 < i < len(secs) else None

    out: list[MercurySection] = []
    symbols: tuple[MercurySymbol, ...] = ()
    for s in secs:
        if not s.is_mercury:
            continue
        info: str | int = s.info
        if s.flags & SectionFlag.INFO_LINK and 0 < s.info < len(secs):
            info = secs[s.info].name
        out.append(
            MercurySection(
                s.name, s.type, s.flags, s.addralign, s.entsize, name(s.link), info, s.content
            )
        )
        if isinstance(s.content, SymbolTable):
            symbols = tuple(
                MercurySymbol(y.name, y.bind, y.type, y.other, name(y.shndx), y.value, y.size)
                for y in s.content.symbols[1:]
            )
    return tuple(out), symbols


def _has_reloc_section(cubin: Cubin, idx: int) -> bool:
    """Whether ptxas made relocation sections for section ``idx`` (sm_75..89 drop the ones left
    empty, but their names stay in .shstrtab)."""
    name = cubin.sections[idx].name
    names = set(_strings(cubin, cubin.shstrndx))
    return f".rel{name}" in names or f".rela{name}" in names


def _resolved_addresses(
    cubin: Cubin, init: bytes, taken: set[int], addend: int | None
) -> tuple[Reloc, ...]:
    """Whole-program output: ptxas writes the addresses of subroutines (functions placed in a
    kernel's code) into initializers itself; recover them as relocations (8-byte words equal to
    a subroutine's offset)."""
    subs: dict[int, str] = {}
    for y in cubin.symtab.symbols:
        if y.type == SymbolType.FUNC and y.bind == SymbolBind.LOCAL and y.value and y.shndx:
            subs.setdefault(y.value, y.name)
    out = []
    for off in range(0, len(init) - 7, 8):
        (v,) = struct.unpack_from("<Q", init, off)
        if v in subs and off not in taken:
            out.append(Reloc(off, RelocType.R_CUDA_64, subs[v], addend))
    return tuple(out)


def _global(cubin: Cubin, y: object, sec: Section, relocs: dict[int, list[Reloc]]) -> GlobalVar:
    from openptxas.elf.model import Symbol

    assert isinstance(y, Symbol)
    space = Space.CONST if sec.name == ".nv.constant3" else Space.GLOBAL
    init = None
    if sec.type not in NOBITS_TYPES and not isinstance(sec.content, NoBits):
        data = sec.data()
        init = data[y.value : y.value + y.size]
    idx = cubin.sections.index(sec)
    own = tuple(
        Reloc(r.offset - y.value, r.type, r.symbol, r.addend)
        for r in relocs.get(idx, ())
        if y.value <= r.offset < y.value + y.size
    )
    if init is not None and not cubin.is_relocatable and _has_reloc_section(cubin, idx):
        legacy = cubin.sm < 90  # SHT_REL output
        own += _resolved_addresses(cubin, init, {r.offset for r in own}, None if legacy else 0)
    if y.bind == SymbolBind.GLOBAL:
        linkage = Linkage.VISIBLE
    elif y.bind == SymbolBind.WEAK:
        linkage = Linkage.WEAK
    else:
        linkage = Linkage.LOCAL
    # The symbol does not record the alignment: take the largest one the placement allows, up to
    # the section's (the variable at offset 0 then carries the section's alignment).
    align = max(sec.addralign, 1)
    while align > 1 and y.value % align:
        align //= 2
    return GlobalVar(
        name=y.name,
        space=space,
        size=y.size,
        align=align,
        init=init,
        relocs=own,
        linkage=linkage,
        managed=bool(y.other & 0x4),
        offset=y.value,
        sym_type=y.type,
        sym_other=None if y.other == (0x4 if y.other & 0x4 else 0) else y.other,
    )


__all__ = ["SYNTHESIZED", "describe", "parse_frames"]
_ = SymbolTable
