"""``-g``: the debug sections ptxas 13.0.88 writes at -O0, filled from our code's layout.

* the DWARF sections the PTX carries (``.debug_info``, ``.debug_abbrev``, ``.debug_loc``,
  ``.debug_str``, ...: :mod:`openptxas.ptxdwarf`), each reference to a code label an
  ``R_CUDA_64`` relocation against the function plus the label's offset in our code, to a
  ``.global`` variable ``R_CUDA_64`` and to a ``.const`` one ``R_CUDA_G64`` against it, a
  shared variable's address its offset in the shared window, and a local variable's
  ``DW_OP_addr __local_depotN`` rewritten as ptxas does into ``DW_OP_fbreg`` (the depot's offset
  from the frame base, the CFA: the stack pointer plus the frame) padded with ``DW_OP_nop``;
* ``.nv_debug_info_reg_sass``: per function, its name, a count, then one record per PTX
  register word and stretch of code it lives in a SASS register: the word (u32: 0 the low
  32 bits, 1 the high ones), the PTX name (NUL-terminated), the register's index (u8), 0 (u16),
  its class (u8: 2 predicate, 4 uniform, 5 general) and the code range [start, end) (two u32),
  sorted by class, register and start;
* ``.nv_debug_info_reg_type``: per function, its name, the same count, one byte per record:
  the PTX register's type (16 .pred, 1 16-bit, 2 32-bit, 3 64-bit integers, 14 .f32, 15 .f64);
* ``.debug_frame``: each function's CIE states every register's rule (:func:`frame_cie`).

Observed with ``python scripts/debug_sections_probe.py`` (ptxas -g on nvcc -G PTX). Where a
part cannot be written (device functions called from a kernel, register types not observed),
-g is refused naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeGuard

from openptxas.diag import UnsupportedFeature
from openptxas.elf.description import Frame, OpaqueSection, Reloc, Subroutine
from openptxas.ir.core import RC, Function, Instr
from openptxas.ptx import ast
from openptxas.ptxdwarf import DebugSection, debug_sections, param_offsets
from openptxas.targets import SMInfo

R_CUDA_64 = 2
R_CUDA_G64 = 4
_DW_OP_FBREG = 0x91
_DW_OP_NOP = 0x96

_KIND = {RC.P: 2, RC.UR: 4, RC.R: 5}
_TYPE = {
    "pred": 16,
    "b16": 1,
    "u16": 1,
    "s16": 1,
    "b32": 2,
    "u32": 2,
    "s32": 2,
    "b64": 3,
    "u64": 3,
    "s64": 3,
    "f32": 14,
    "f64": 15,
}


def frame_cie(base: bytes, ra: int | None = None) -> bytes:
    """The -g CIE (version byte onwards): ``base`` (the target's CIE: header, the CFA as R1 + 0,
    RZ and R1 the same value), then every other register undefined, in ptxas's order and
    register numbering (class << 24 | index): predicates (9) P0-P6, uniform registers (11)
    UR4-UR61, 1:0, 2:0-6, R0 and R2-R254; R1 stays the same value. ``ra``: a device function's
    (one of our subroutines): the return address is in the pair R<ra>:R<ra+1> (ptxas's
    callees: R20), the header's return-address column and those two the same value."""

    def uleb(n: int) -> bytes:
        out = bytearray()
        while True:
            b = n & 0x7F
            n >>= 7
            out.append(b | (0x80 if n else 0))
            if not n:
                return bytes(out)

    same_r1 = b"\x08" + uleb(0x5000001)
    head = base[: len(base) - len(same_r1)] if base.endswith(same_r1) else base
    if ra is not None:  # version, augmentation "", code and data alignment, then the column
        old_ra = b"\xff\xff\xff\xff\x0f"
        assert head[4:9] == old_ra
        head = head[:4] + uleb(0x5000000 + ra) + head[9:]
    regs = [0x9000000 + i for i in range(7)]
    regs += [0xB000000 + i for i in range(4, 62)]
    regs += [0x1000000] + [0x2000000 + i for i in range(7)] + [0x5000000]
    out = bytearray(head)
    for r in regs:
        out += b"\x07" + uleb(r)
    out += same_r1
    for i in range(2, 255):
        same = ra is not None and i in (ra, ra + 1)
        out += (b"\x08" if same else b"\x07") + uleb(0x5000000 + i)
    return bytes(out)


def subroutine_frames(fn: Function, subs: Sequence[Subroutine], base: bytes) -> list[Subroutine]:
    """-g: each device function placed in ``fn`` gets its .debug_frame CIE (the return address
    in the register pair the allocator gave it) and FDE (the CFA: R1, the function has no
    frame of its own: check_supported)."""
    from dataclasses import replace

    homes = {v: r for v, r, _ in fn.debug_homes}
    out = []
    for s in subs:
        name = next((n for n, _ in _device_subs(fn) if s.name == f"${fn.name}${n}"), None)
        if name is None:
            out.append(s)
            continue
        ra = fn.debug_subs[name][2]
        if ra not in homes:
            raise UnsupportedFeature(
                f"debug information (-g): the return address of device function '{name}' is "
                "not in one register pair (openptxas yet)"
            )
        cie = frame_cie(base, homes[ra].index)
        out.append(replace(s, frame=Frame(cie, bytes.fromhex("0c8180802800"))))
    return out


def check_supported(module: ast.Module, compiled: Sequence[tuple[ast.Function, Function]]) -> None:
    """Refuse -g where a part of the debug information cannot be written yet."""
    from openptxas.ptx.types import StateSpace

    for v in module.globals:
        ext = v.linkage is not None and v.linkage.value == "extern"
        if ext and v.space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
            raise UnsupportedFeature(
                f"debug information (-g) for the extern shared variable '{v.name}' (its "
                ".nv_debug.shared symbol) is not supported by openptxas yet",
                v.span,
            )
    copies: dict[str, list[str]] = {}
    for _func, fn in compiled:
        for name, _entry in _device_subs(fn):
            copies.setdefault(name, []).append(fn.name)
    funcs = {f.name: f for f in module.functions}
    for name, kernels in copies.items():
        span = funcs[name].span if name in funcs else None
        if len(kernels) > 1:
            raise UnsupportedFeature(
                f"debug information (-g) for device function '{name}' called from several "
                f"kernels ({', '.join(sorted(kernels))}: a copy in each, one DWARF subprogram) "
                "is not supported by openptxas yet",
                span,
            )
    for _func, fn in compiled:
        for name, (_regs, frame, _ra) in fn.debug_subs.items():
            if frame and not name.startswith("$__cuda"):
                raise UnsupportedFeature(
                    f"debug information (-g) for device function '{name}' with a stack frame "
                    "is not supported by openptxas yet",
                    funcs[name].span if name in funcs else None,
                )
    used = {f.name for f, _ in compiled} | set(copies)
    for f in module.functions:
        for st in _walk(f.body if f.name in used else None):
            if _is_reg(st) and _tname(st) not in _TYPE:
                raise UnsupportedFeature(
                    f"debug information (-g) for a .{_tname(st)} register "
                    "(.nv_debug_info_reg_type) is not supported by openptxas yet",
                    st.span,
                )


def _is_reg(st: object) -> TypeGuard[ast.VarDecl]:
    from openptxas.ptx.types import StateSpace

    return isinstance(st, ast.VarDecl) and st.space is StateSpace.REG


def _tname(st: ast.VarDecl) -> str:
    return str(st.type.value).lstrip(".").lower()


def _walk(b: ast.Block | None) -> Iterable[ast.Stmt]:
    if b is None:
        return
    for st in b.stmts:
        if isinstance(st, ast.Block):
            yield from _walk(st)
        else:
            yield st


def _device_subs(fn: Function) -> list[tuple[str, str]]:
    """The PTX device functions placed in ``fn`` as subroutines (not the compiler's slow paths,
    ``$__cuda_*``), (name, entry block)."""
    return [(n, e) for n, e in fn.subroutines if not n.startswith("$__cuda")]


def code_ranges(fn: Function) -> dict[str, tuple[int, int]]:
    """Where each function's code is in ``fn``'s: the kernel (``fn.name``) from 0 to its first
    device function (the compiler's slow paths count in the kernel, as ptxas's do), each device
    function from its entry block to the next one."""
    at = 0
    block_at: dict[str, int] = {}
    for b in fn.blocks:
        block_at.setdefault(b.name, at)
        at += 16 * len(b.instrs)
    starts = sorted((block_at[e], n) for n, e in _device_subs(fn))
    ends = [a for a, _ in starts[1:]] + [at] if starts else []
    out = {fn.name: (0, starts[0][0] if starts else at)}
    for (a, n), e in zip(starts, ends, strict=True):
        out[n] = (a, e)
    return out


def label_offsets(
    func: ast.Function, fn: Function, prefix: str = "", where: tuple[int, int] | None = None
) -> dict[str, int]:
    """Each PTX label of ``func`` at its place in ``fn``'s code: the block it names (``prefix``
    + the label: a subroutine's blocks are ``$sub$<f>$L..``), else the first instruction made
    from a later PTX line within ``where`` (the function's code range); labels in PTX order
    never go back; a label after the last instruction is the range's end."""
    at = 0
    block_at: dict[str, int] = {}
    first_at_line: list[tuple[int, int]] = []
    for b in fn.blocks:
        block_at.setdefault(b.name, at)
        for ins in b.instrs:
            if ins.line:
                first_at_line.append((ins.line, at))
            at += 16
    lo, hi = where if where is not None else (0, at)
    out: dict[str, int] = {}
    last = lo
    begun = False  # labels before the first instruction: the function's start (its prologue)
    for st in _walk(func.body):
        begun = begun or isinstance(st, ast.Instruction)
        if not isinstance(st, ast.LabelDef):
            continue
        if not begun:
            off = lo
        elif prefix + st.name in block_at and lo <= block_at[prefix + st.name] < hi:
            off = block_at[prefix + st.name]
        else:
            line = st.span.line
            off = min((a for ln, a in first_at_line if ln >= line and lo <= a < hi), default=hi)
        off = max(off, last)
        out[st.name] = last = off
    return out


def _sleb(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        done = (n == 0 and not b & 0x40) or (n == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def register_map(
    compiled: Sequence[tuple[ast.Function, Function]], types: dict[str, dict[str, str]]
) -> tuple[bytes, bytes]:
    """``.nv_debug_info_reg_sass`` and ``.nv_debug_info_reg_type`` of the compiled kernels
    (after every phase: the code offsets are the final ones)."""
    sass = bytearray()
    kinds = bytearray()
    for _func, fn in compiled:
        instrs = list(fn.instrs())
        known = next((u for v, _r, u in fn.debug_homes if v.id == -1), frozenset())
        # the kernel's and its device functions' registers (their code is the kernel's)
        names = {v: (fn.name, n) for n, v in fn.debug_regs.items()}
        for sub, (sub_regs, _frame, _ra) in fn.debug_subs.items():
            names.update((v, (sub, n)) for n, v in sub_regs.items())
        recs: list[tuple[int, int, int, int, int, str, str]] = []
        for v, reg, uids in fn.debug_homes:
            if v.id == -1 or v not in names:
                continue
            if v.rc not in _KIND:
                raise UnsupportedFeature(
                    f"debug information (-g) for a PTX register in a {v.rc.name} register "
                    "(.nv_debug_info_reg_sass) is not supported by openptxas yet"
                )
            for start, end in _runs(instrs, uids, known):
                for k in range(v.width):
                    recs.append((_KIND[v.rc], reg.index + k, start, end, k, *names[v]))
        recs.sort(key=lambda r: r[:4])
        name = fn.name.encode() + b"\0"
        sass += name + len(recs).to_bytes(4, "little")
        kinds += name + len(recs).to_bytes(4, "little")
        for kind, index, start, end, word, owner, ptx in recs:
            sass += word.to_bytes(4, "little") + ptx.encode() + b"\0"
            sass += bytes([index & 0xFF, 0, 0, kind])
            sass += start.to_bytes(4, "little") + end.to_bytes(4, "little")
            kinds.append(_TYPE[types.get(owner, {}).get(ptx, "b32")])
    return bytes(sass), bytes(kinds)


def _runs(
    instrs: Sequence[Instr], uids: frozenset[int], known: frozenset[int]
) -> list[tuple[int, int]]:
    """Stretches of code [start, end) over the instructions in ``uids``; an instruction made
    after allocation (not in ``known``) neither starts nor ends one."""
    out: list[tuple[int, int]] = []
    start = end = -1
    for k, ins in enumerate(instrs):
        uid = ins.uid
        if uid in uids:
            if start < 0:
                start = 16 * k
            end = 16 * k + 16
        elif uid in known and start >= 0:
            out.append((start, end))
            start = -1
    if start >= 0:
        out.append((start, end))
    return out


def reg_types(module: ast.Module) -> dict[str, dict[str, str]]:
    """Each function's PTX registers' type names (``%r<4>`` expanded)."""
    out: dict[str, dict[str, str]] = {}
    for f in module.functions:
        mine: dict[str, str] = {}
        for st in _walk(f.body):
            if _is_reg(st):
                for n in st.names():
                    mine[n] = _tname(st)
        out[f.name] = mine
    return out


def debug_info_sections(
    module: ast.Module,
    compiled: Sequence[tuple[ast.Function, Function]],
    target: SMInfo,
) -> tuple[OpaqueSection, ...]:
    """``.nv_debug_info_reg_sass``, ``.nv_debug_info_reg_type`` and the PTX's DWARF sections,
    in ptxas's order, filled from the compiled code."""
    check_supported(module, compiled)
    labels: dict[str, tuple[str, int]] = {}
    depots: dict[str, tuple[int, int]] = {}  # depot -> (offset from SP, frame size)
    shared: dict[str, int] = {}
    funcs = {f.name: f for f in module.functions}
    for func, fn in compiled:
        ranges = code_ranges(fn)
        for name, off in label_offsets(func, fn, "", ranges[fn.name]).items():
            labels[name] = (fn.name, off)
        for sub, _entry in _device_subs(fn):
            where = ranges[sub]
            for name, off in label_offsets(funcs[sub], fn, f"$sub${sub}", where).items():
                labels[name] = (fn.name, off)
        for name, off in fn.debug_locals.items():
            depots[name] = (off, fn.local_bytes)
        shared.update(fn.debug_shared)
    sass, kinds = register_map(compiled, reg_types(module))
    out = [
        OpaqueSection(".nv_debug_info_reg_sass", 1, 0, sass),
        OpaqueSection(".nv_debug_info_reg_type", 1, 0, kinds),
    ]
    secs = debug_sections(module, param_offsets(module, target.param_base))
    order = {".debug_abbrev": 0, ".debug_loc": 1, ".debug_info": 2}
    secs.sort(key=lambda s: order.get(s.name, 3))
    for s in secs:
        out.append(_filled(s, labels, depots, shared))
    return tuple(out)


def _filled(
    s: DebugSection,
    labels: dict[str, tuple[str, int]],
    depots: dict[str, tuple[int, int]],
    shared: dict[str, int],
) -> OpaqueSection:
    data = bytearray(s.data)
    relocs: list[Reloc] = []
    for r in s.code_refs:
        if r.kind == "code":
            if r.label not in labels:
                raise UnsupportedFeature(
                    f"debug information (-g): the label '{r.label}' of {s.name} is not in the "
                    "compiled code (openptxas yet)"
                )
            fn, off = labels[r.label]
            relocs.append(Reloc(r.offset, R_CUDA_64, fn, off + r.addend))
            # ptxas writes the offset in the field too (what readelf shows: it does not apply
            # CUDA relocations)
            data[r.offset : r.offset + r.width] = (off + r.addend).to_bytes(r.width, "little")
        elif r.kind in ("global", "const"):
            kind = R_CUDA_64 if r.kind == "global" else R_CUDA_G64
            relocs.append(Reloc(r.offset, kind, r.label, r.addend))
        elif r.kind == "shared" and r.label in shared:
            value = shared[r.label] + r.addend
            data[r.offset : r.offset + r.width] = value.to_bytes(r.width, "little")
        elif r.kind == "local" and r.label in depots:
            place, frame = depots[r.label]
            expr = bytes([_DW_OP_FBREG]) + _sleb(place + r.addend - frame)
            room = r.width + 1  # DW_OP_addr and its operand
            if len(expr) > room:
                raise UnsupportedFeature(
                    f"debug information (-g): the frame offset of '{r.label}' does not fit "
                    "its DW_OP_addr expression"
                )
            data[r.offset - 1 : r.offset + r.width] = expr + bytes([_DW_OP_NOP]) * (
                room - len(expr)
            )
        else:
            raise UnsupportedFeature(
                f"debug information (-g): the {r.kind} variable '{r.label}' in {s.name} is not "
                "supported by openptxas yet"
            )
    return OpaqueSection(
        s.name,
        1,
        0,
        bytes(data),
        relocs=tuple(reversed(relocs)),
        reloc_names=("rela",) if relocs else (),
    )
