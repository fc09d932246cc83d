"""The placement of a module's .global and .const variables: the one layout the lowering
addresses them by and the cubin places them at.

Each section (``const``: constant bank 3; ``global``: .nv.global; ``init``: .nv.global.init) holds
its variables in declaration order, each at its alignment; an extern variable has no place. The
address table in constant bank 4 has one 8-byte slot per placed .global variable, in order.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from openptxas.diag import UnsupportedFeature
from openptxas.ptx import ast
from openptxas.ptx.types import Linkage, StateSpace


@dataclass(frozen=True, slots=True)
class VarPlace:
    decl: ast.VarDecl
    section: str  # "const", "global" or "init"
    size: int  # bytes (an unsized array: its initializer's)
    offset: int | None  # within its section; None: extern (defined elsewhere)
    init: bytes | None  # the initializer's bytes, None without one


def module_layout(module: ast.Module) -> list[VarPlace]:
    offsets: dict[str, int] = {}
    out: list[VarPlace] = []
    funcs = frozenset(f.name for f in module.functions if f.body is not None)
    for g in module.globals:
        if g.space is StateSpace.CONST:
            section = "const"
        elif g.space is StateSpace.GLOBAL:
            section = "global" if g.init is None else "init"
        else:
            continue
        init = None if g.init is None else init_bytes(g, funcs)
        size = g.size or (len(init) if init is not None else 0)
        off: int | None = None
        if g.linkage is not Linkage.EXTERN:
            a = g.alignment
            off = (offsets.get(section, 0) + a - 1) // a * a
            offsets[section] = off + size
        out.append(VarPlace(g, section, size, off, init))
    return out


def const_offsets(layout: list[VarPlace]) -> dict[str, int]:
    """__constant__ variable -> its offset in constant bank 3."""
    return {v.decl.name: v.offset for v in layout if v.section == "const" and v.offset is not None}


def global_slots(layout: list[VarPlace]) -> dict[str, int]:
    """.global variable -> the offset of its address in constant bank 4."""
    placed = [v.decl.name for v in layout if v.section != "const" and v.offset is not None]
    return {name: 8 * k for k, name in enumerate(placed)}


def init_bytes(g: ast.VarDecl, functions: frozenset[str] | None = None) -> bytes:
    """A variable's initializer as little-endian bytes, zero-padded to the variable's size."""
    t = g.type
    es = t.size
    out = bytearray()

    def put(v: ast.Init) -> None:
        if isinstance(v, ast.InitList):
            for it in v.items:
                put(it)
        elif isinstance(v, ast.IntImm):
            if t.is_float:
                out.extend(_float_bytes(float(v.value), es))
            else:
                out.extend((v.value & ((1 << (8 * es)) - 1)).to_bytes(es, "little"))
        elif isinstance(v, ast.SymInit) and v.name in funcs and es == 8 and not v.generic:
            # a function's address: its code offset, written when the code is placed
            # (``function_fixups``)
            out.extend(bytes(8))
        elif isinstance(v, ast.FloatImm):
            if t.is_float:
                if v.width == 8 * es:
                    out.extend(v.bits.to_bytes(es, "little"))
                else:
                    out.extend(_float_bytes(v.value, es))
            else:
                out.extend((int(v.value) & ((1 << (8 * es)) - 1)).to_bytes(es, "little"))
        else:
            raise UnsupportedFeature(
                f"initializer of '{g.name}' (addresses, texture fields) is not supported "
                "by openptxas yet",
                g.span,
            )

    assert g.init is not None
    funcs = functions or frozenset()
    put(g.init)
    return bytes(out) + bytes(max(0, g.size - len(out)))


def _float_bytes(v: float, size: int) -> bytes:
    if size == 2:
        return struct.pack("<e", v)
    return struct.pack("<f" if size == 4 else "<d", v)


def function_fixups(g: ast.VarDecl, functions: frozenset[str]) -> list[tuple[int, str]]:
    """(byte offset in ``g``, function) for each function address in its initializer."""
    out: list[tuple[int, str]] = []
    es = g.type.size
    pos = 0

    def walk(v: ast.Init) -> None:
        nonlocal pos
        if isinstance(v, ast.InitList):
            for it in v.items:
                walk(it)
            return
        if isinstance(v, ast.SymInit) and v.name in functions:
            out.append((pos, v.name))
        pos += es

    if g.init is not None:
        walk(g.init)
    return out
