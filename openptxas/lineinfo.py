"""Line information as ptxas 13.0 writes it (``-lineinfo``, or PTX with ``.loc``):

* ``.nv_debug_ptx_txt``: the PTX text, one NUL-terminated line per source line (leading blanks
  dropped; comment-only lines, ``.loc`` and ``.file`` lines empty; trailing empty lines dropped);
* ``.nv_debug_line_sass``: a DWARF 2 line program from each kernel's SASS addresses to lines of
  that text (a row at address 0 for the function's ``{``, then one per change of PTX line);
* ``.debug_line``: a line program from SASS addresses to the source lines of the PTX's ``.loc``
  directives, with the ``.file`` table (directory split off, modification time and size from the
  ``.file`` directive or, as ptxas does, from the file itself when it exists); without ``.loc`` a
  header alone.

Each program has one sequence per ``.text`` section, in the cubin's order, its start address
relocated (R_CUDA_64) against the kernel's symbol. Observed with scripts/lineinfo_probe.py.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from openptxas.elf.dwarfline import FileEntry, Row
from openptxas.elf.dwarfline import Sequence as LineSeq
from openptxas.elf.dwarfline import encode as encode_lines
from openptxas.ptx import ast

R_CUDA_64 = 2
_DATA = (".b8", ".b16", ".b32", ".b64")
_SHT_PROGBITS = 1


@dataclass(frozen=True, slots=True)
class CodeLines:
    """One kernel's code: its symbol, size, and the PTX line of each 16-byte instruction (0: none,
    such as the prologue)."""

    symbol: str
    size: int
    lines: Sequence[int]
    func: ast.Function


def has_loc(module: ast.Module) -> bool:
    return any(_locs(f) for f in module.functions if f.body is not None)


def ptx_text(source: str) -> bytes:
    """``.nv_debug_ptx_txt``."""
    out: list[str] = []
    in_section = False
    for raw in source.split("\n"):
        s = raw.rstrip("\r").lstrip()
        if s.startswith(".section"):
            in_section = True
        elif in_section and s.startswith("}"):
            in_section = False
        if (
            s.startswith("//")
            or s.split(None, 1)[:1] in ([".loc"], [".file"])
            or (in_section and s.startswith(_DATA))
        ):
            s = ""  # (a .section's data lines too: ptxas keeps only its labels and braces)
        out.append(s)
    while out and not out[-1]:
        out.pop()
    return "".join(s + "\0" for s in out).encode("utf-8", "surrogateescape")


def _locs(func: ast.Function) -> dict[int, list[tuple[int, int]]]:
    """(file index, source line) rows of each PTX instruction line: the ``.loc`` directives
    since the previous instruction (an inlined location is its call site, then the callee's, as
    ptxas writes two rows at the same address), else the one in force. ``.loc`` with line 0 is
    ignored (ptxas writes no row for it)."""
    out: dict[int, list[tuple[int, int]]] = {}
    pending: list[tuple[int, int]] = []
    active: list[tuple[int, int]] = []

    def walk(b: ast.Block) -> None:
        nonlocal pending, active
        for s in b.stmts:
            if isinstance(s, ast.Loc):
                if s.line > 0:
                    if s.inlined_at is not None and s.inlined_at[1] > 0:
                        site = (s.inlined_at[0], s.inlined_at[1])
                        if not pending or pending[-1] != site:
                            pending.append(site)
                    pending.append((s.file, s.line))
            elif isinstance(s, ast.Instruction):
                if pending:
                    active = [pending[-1]]
                    out.setdefault(s.span.line, pending)
                    pending = []
                elif active:
                    out.setdefault(s.span.line, active)
            elif isinstance(s, ast.Block):
                walk(s)

    if func.body is not None:
        walk(func.body)
    return out


def _brace_line(func: ast.Function, source_lines: list[str]) -> int:
    """The line of the body's ``{`` (ptxas's row for code without a PTX line of its own)."""
    line = func.body.span.line if func.body is not None else 0
    if line <= 0:
        line = func.span.line
    k = max(line - 1, 0)
    while k < len(source_lines) and "{" not in source_lines[k]:
        k += 1
    return k + 1 if k < len(source_lines) else line


def _files(module: ast.Module) -> tuple[list[str], list[FileEntry], dict[int, int]]:
    dirs: list[str] = []
    files: list[FileEntry] = []
    index: dict[int, int] = {}
    for it in sorted(
        (i for i in module.items if isinstance(i, ast.FileDirective)), key=lambda d: d.index
    ):
        head, sep, name = it.name.rpartition("/")
        d = 0
        if sep:
            if head not in dirs:
                dirs.append(head)
            d = dirs.index(head) + 1
        mtime, size = it.timestamp or 0, it.size or 0
        if it.timestamp is None and it.size is None:
            try:
                st = os.stat(it.name)
                mtime, size = int(st.st_mtime), st.st_size
            except OSError:
                pass
        files.append(FileEntry(name if sep else it.name, d, mtime, size))
        index[it.index] = len(files)
    return dirs, files, index


def line_sections(
    module: ast.Module, code: list[CodeLines], source: str
) -> list[tuple[str, bytes, list[tuple[int, str]]]]:
    """(name, bytes, relocations as (offset, symbol)) of the three sections, in ptxas's order."""
    lines = source.split("\n")
    sass_seqs: list[LineSeq] = []
    src_seqs: list[LineSeq] = []
    dirs, files, findex = _files(module)
    any_loc = has_loc(module)
    for c in code:
        brace = _brace_line(c.func, lines)
        rows = [Row(0, 0, brace)]
        prev = None
        for k, ln in enumerate(c.lines):
            ln = ln or brace
            if ln != prev:
                rows.append(Row(16 * k, 0, ln))
                prev = ln
        sass_seqs.append(LineSeq(c.symbol, tuple(rows), c.size))
        locs = _locs(c.func)
        if any_loc and locs:
            first = locs[min(locs)]
            srows: list[Row] = []
            cur: tuple[int, int] | None = None
            for k, ln in enumerate(c.lines):
                group = locs.get(ln) or first
                if cur == (findex.get(group[-1][0], group[-1][0]), group[-1][1]):
                    continue
                for f, sl in group:
                    key = (findex.get(f, f), sl)
                    if key != cur:
                        srows.append(Row(16 * k, key[0], key[1]))
                        cur = key
            src_seqs.append(LineSeq(c.symbol, tuple(srows), c.size))
    if any_loc:
        dbg, dbg_relocs = encode_lines(dirs, files, src_seqs)
    else:
        dbg, dbg_relocs = encode_lines([], [], [])
    sass, sass_relocs = encode_lines([], [], sass_seqs)
    return [
        (".debug_line", dbg, dbg_relocs),
        (".nv_debug_line_sass", sass, sass_relocs),
        (".nv_debug_ptx_txt", ptx_text(source), []),
    ]
