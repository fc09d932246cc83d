"""The DWARF sections a PTX module carries (``.section .debug_info { ... }``: nvcc -G writes
``.debug_info``, ``.debug_abbrev``, ``.debug_loc``, ``.debug_macinfo``, ...) as ELF section bytes,
what ``-g`` copies into the cubin (:mod:`openptxas.debuginfo` fills the fields listed here from
our code).

ptxas 13.0.88 -g copies these sections into the cubin: each ``.b8/.b16/.b32/.b64`` line's values
little-endian, a reference to a label of a debug section (or to a section's start) as that
label's offset in its section, and each reference to a code label (``.b64 $L__tmp3``,
``$L__func_begin0``) as an ``R_CUDA_64`` relocation against the function plus the label's code
offset in the compiled SASS (observed with ``python scripts/debug_sections_probe.py``: bytes equal
outside the relocated fields, one relocation per code-label reference). The code offsets are
the compiler's: :func:`debug_sections` leaves those fields zero and lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openptxas.diag import UnsupportedFeature
from openptxas.ptx import ast


@dataclass(frozen=True, slots=True)
class CodeRef:
    """A field whose value the compiler's layout decides: ``width`` bytes at ``offset`` = the
    address of ``label`` plus ``addend``. ``kind``: ``code`` (a code label: R_CUDA_64 against
    the function plus the label's code offset), ``global`` (a .global variable: R_CUDA_64
    against it), ``const`` (a .const variable: R_CUDA_G64 against it), ``shared`` (its
    shared-window offset: 0x400 + its place), ``local`` (a function's local variable,
    ``__local_depotN``: ptxas rewrites the ``DW_OP_addr`` expression, its opcode byte included,
    into ``DW_OP_fbreg <offset>`` padded with ``DW_OP_nop``)."""

    offset: int
    width: int
    label: str
    addend: int
    kind: str = "code"


@dataclass(frozen=True, slots=True)
class DebugSection:
    name: str
    data: bytes
    code_refs: tuple[CodeRef, ...] = field(default=())


def _width(d: ast.DataDirective) -> int:
    return max(1, d.type.size)


def param_offsets(module: ast.Module, param_base: int) -> dict[str, int]:
    """Each kernel parameter's offset in constant bank 0 (what ptxas writes for a reference to
    it in the debug sections; ``param_base``: the target's first parameter offset)."""
    out: dict[str, int] = {}
    for f in module.functions:
        if f.is_entry:
            for slot in f.param_layout(param_base):
                out[slot.param.name] = param_base + slot.offset
    return out


def debug_sections(module: ast.Module, params: dict[str, int] | None = None) -> list[DebugSection]:
    """The module's ``.section`` blocks as section bytes (sections of the same name joined, in
    order), with the fields that hold code addresses left zero and listed. A reference to a
    section the compiler writes (``.debug_line``) is its offset, 0; to a kernel parameter its
    offset in constant bank 0 (``params``: :func:`param_offsets`)."""
    params = params or {}
    kinds = _variable_kinds(module)
    blocks = [it for it in module.items if isinstance(it, ast.Section)]
    names = list(dict.fromkeys(b.name for b in blocks))
    # pass 1: where each debug-section label is, and how long each section is
    where: dict[str, tuple[str, int]] = {n: (n, 0) for n in names}
    size = dict.fromkeys(names, 0)
    for b in blocks:
        for e in b.entries:
            if isinstance(e, ast.LabelDef):
                where[e.name] = (b.name, size[b.name])
            else:
                size[b.name] += _width(e) * len(e.values)
    out_data = {n: bytearray() for n in names}
    refs: dict[str, list[CodeRef]] = {n: [] for n in names}
    for b in blocks:
        buf = out_data[b.name]
        for e in b.entries:
            if isinstance(e, ast.LabelDef):
                continue
            w = _width(e)
            for v in e.values:
                value = 0
                if isinstance(v, int):
                    value = v
                elif isinstance(v[1], int):
                    label, add = v[0], v[1]
                    assert isinstance(label, str)
                    if label in where:
                        value = where[label][1] + add
                    elif label.startswith("."):  # a section the compiler writes: its start
                        value = add
                    elif label in params:
                        value = params[label] + add
                    else:  # a code label: the compiler's
                        kind = kinds.get(label, "code")
                        refs[b.name].append(CodeRef(len(buf), w, label, add, kind))
                else:
                    a, c = v
                    assert isinstance(a, str) and isinstance(c, str)
                    if a in where and c in where and where[a][0] == where[c][0]:
                        value = where[a][1] - where[c][1]
                    else:
                        raise UnsupportedFeature(
                            f"debug section {b.name}: the difference {a}-{c} is not supported by "
                            "openptxas yet",
                            e.span,
                        )
                buf += (value & ((1 << (8 * w)) - 1)).to_bytes(w, "little")
    return [DebugSection(n, bytes(out_data[n]), tuple(refs[n])) for n in names]


def _variable_kinds(module: ast.Module) -> dict[str, str]:
    from openptxas.ptx.types import StateSpace

    out: dict[str, str] = {}

    def kind(v: ast.VarDecl) -> str | None:
        if v.space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
            return "shared"
        if v.space is StateSpace.LOCAL:
            return "local"
        if v.space is StateSpace.GLOBAL:
            return "global"
        if v.space is StateSpace.CONST:
            return "const"
        return None

    def walk(b: ast.Block) -> None:
        for st in b.stmts:
            if isinstance(st, ast.Block):
                walk(st)
            elif isinstance(st, ast.VarDecl) and (k := kind(st)) is not None:
                out[st.name] = k

    for g in module.globals:
        if (k := kind(g)) is not None:
            out[g.name] = k
    for f in module.functions:
        if f.body is not None:
            walk(f.body)
    return out
