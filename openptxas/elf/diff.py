"""Explain how two cubins differ, at the model level (for tests and for debugging the builder)."""

from __future__ import annotations

from openptxas.elf.model import Cubin, Section, StringTable, SymbolTable
from openptxas.elf.writer import layout, section_bytes


def _fields(s: Section) -> tuple[object, ...]:
    return (s.name, s.type, s.flags, s.addralign, s.entsize, s.link, s.info, s.addr)


def diff_cubins(a: Cubin, b: Cubin, limit: int = 20) -> list[str]:
    """Human-readable differences between ``a`` (expected) and ``b`` (got); [] if none."""
    out: list[str] = []
    for attr in ("e_type", "e_flags", "osabi", "abi_version", "shstrndx"):
        if getattr(a, attr) != getattr(b, attr):
            out.append(f"header {attr}: {getattr(a, attr)!r} != {getattr(b, attr)!r}")
    na = [s.name for s in a.sections]
    nb = [s.name for s in b.sections]
    if na != nb:
        out.append(f"section names differ:\n  want {na}\n  got  {nb}")
    for i, (sa, sb) in enumerate(zip(a.sections, b.sections, strict=False)):
        if _fields(sa) != _fields(sb):
            out.append(f"section {i} {sa.name}: header {_fields(sa)} != {_fields(sb)}")
        ca, cb = sa.content, sb.content
        if isinstance(ca, StringTable) and isinstance(cb, StringTable):
            if ca.strings != cb.strings:
                for j, (x, y) in enumerate(zip(ca.strings, cb.strings, strict=False)):
                    if x != y:
                        out.append(
                            f"section {i} {sa.name}: string {j}: {x!r} != {y!r}\n"
                            f"  want ...{ca.strings[max(0, j - 3) : j + 4]}\n"
                            f"  got  ...{cb.strings[max(0, j - 3) : j + 4]}"
                        )
                        break
                else:
                    out.append(
                        f"section {i} {sa.name}: {len(ca.strings)} strings != {len(cb.strings)}:"
                        f" tail {ca.strings[-3:]} / {cb.strings[-3:]}"
                    )
            continue
        if isinstance(ca, SymbolTable) and isinstance(cb, SymbolTable):
            if ca.symbols != cb.symbols:
                for j, (ya, yb) in enumerate(zip(ca.symbols, cb.symbols, strict=False)):
                    if ya != yb:
                        out.append(f"symbol {j}: {ya.describe()} != {yb.describe()}")
                        break
                else:
                    out.append(
                        f"symbol count {len(ca.symbols)} != {len(cb.symbols)}: "
                        f"{[s.name for s in ca.symbols[len(cb.symbols) :]]} / "
                        f"{[s.name for s in cb.symbols[len(ca.symbols) :]]}"
                    )
            continue
        if type(ca) is not type(cb):
            out.append(f"section {i} {sa.name}: content {type(ca).__name__} != {type(cb).__name__}")
        elif ca != cb:
            da = section_bytes(a, sa)
            db = section_bytes(b, sb)
            detail = ""
            if hasattr(ca, "attributes") and hasattr(cb, "attributes"):
                xa = list(ca.attributes)
                xb = list(cb.attributes)
                for j, (x, y) in enumerate(zip(xa, xb, strict=False)):
                    if x != y:
                        detail = f" record {j}: {str(x)[:150]} != {str(y)[:150]}"
                        break
                else:
                    detail = (
                        f" {len(xa)} records != {len(xb)}: "
                        f"{str(xa[len(xb) :])[:200]} / {str(xb[len(xa) :])[:200]}"
                    )
            elif hasattr(ca, "relocs") and hasattr(cb, "relocs"):
                detail = f" {str(ca.relocs)[:300]} != {str(cb.relocs)[:300]}"
            else:
                first = next((k for k in range(min(len(da), len(db))) if da[k] != db[k]), None)
                detail = f" {len(da)} vs {len(db)} bytes, first difference at {first}"
            out.append(f"section {i} {sa.name}: content differs:{detail}")
        if len(out) >= limit:
            return out
    if not out:
        la, lb = layout(a), layout(b)
        if la.segments != lb.segments:
            out.append(f"program headers differ: {la.segments} != {lb.segments}")
        if la.headers != lb.headers:
            for i, (ha, hb) in enumerate(zip(la.headers, lb.headers, strict=False)):
                if ha != hb:
                    out.append(f"section {i} layout: {ha} != {hb}")
                    break
    return out[:limit]
