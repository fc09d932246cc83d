"""Cubin -> :class:`~openptxas.elf.description.ModuleDescription`: the facts a compiler decides,
read back out of a ptxas cubin (the inverse of :func:`openptxas.elf.builder.build`)."""

from __future__ import annotations

import re
import struct

from openptxas.diag import CubinFormatError, UsageError
from openptxas.elf.consts import (
    NOBITS_TYPES,
    SectionType,
    SymbolBind,
    SymbolType,
)
from openptxas.elf.description import (
    Frame,
    Function,
    GlobalVar,
    Linkage,
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
        EIATTR.CTA_PER_CLUSTER,
        EIATTR.MAX_CLUSTER_RANK,
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
            cie, crel = cies[cie_id]
            frames[(name, addend)] = Frame(cie=cie, fde=_strip_nops(body[24:]), cie_relocs=crel)
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
        if history[i] == "" and history[i - 1] != "":
            j = i
            while j < len(history) and history[j] == "":
                j += 1
            prev = history[i - 1]
            if j - i == run and not prev.startswith((".nv.constant", ".rela.nv.constant", ".rel")):
                out.add(current)
            i = j
            continue
        i += 1
    return out


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
    for a in glob_attrs:
        if isinstance(a.value, SymValue):
            per_sym.setdefault(a.code, {})[a.value.sym] = a.value.value

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
    )


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
    )


__all__ = ["SYNTHESIZED", "describe", "parse_frames"]
_ = SymbolTable
