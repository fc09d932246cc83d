"""Linked cubins (nvlink output): a kernel that calls functions in other ``.text`` sections and
reads addresses the driver fills in at load time.

``nvlink`` keeps the code relocations of its ``-c`` inputs for the driver: absolute calls
(``CALL.ABS.NOINC `(f)``, R_CUDA_ABS55_16_34), return addresses and symbol addresses in move
immediates (``MOV R20, 32@lo((kern + .L_x_0@srel))``, ``UMOV UR4, 32@lo(gcount)``:
R_CUDA_ABS32_LO_32 / R_CUDA_ABS32_HI_32). The emulator runs the kernel's section at code address
0 (:mod:`openptxas.emu.program`); :func:`link_functions` places every other function section
(not a kernel's) at its own base above it, decoded with its labels moved there, fills those
immediates in every placed section (code symbols: their placed address; data symbols and the
driver's functions: their launch address), and records where each absolute call goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from openptxas.elf.consts import SymbolType
from openptxas.emu.model import Imm, ImmKind, Instruction, Label

if TYPE_CHECKING:
    from openptxas.emu.machine import Machine
    from openptxas.emu.program import Reloc

# Where the first other function section is placed, and the room each gets (code addresses
# stay below the emulator's built-in function addresses, launch.BUILTIN_BASE).
LINK_BASE = 0x1_0000_0000
LINK_STRIDE = 0x1000_0000


def text_sections(m: Machine) -> dict[str, int]:
    """Base address of every function section the kernel's code may reach: its own at 0, the
    sections of non-kernel functions after it."""
    cubin = m.module.cubin
    kernels = {k.section for k in m.module.kernels.values()}
    bases = {m.kernel.section: 0}
    n = 0
    for s in cubin.sections:
        if s.name.startswith(".text.") and s.name not in kernels:
            bases[s.name] = LINK_BASE + n * LINK_STRIDE
            n += 1
    return bases


def link_functions(m: Machine, symaddr: Mapping[str, int]) -> None:
    """Place the other function sections in ``m``'s code and fill in the relocated immediates
    (see the module docstring). A cubin with one function section is left as it is."""
    from openptxas.emu.program import _relocs_for, _section_bytes

    bases = text_sections(m)
    if len(bases) == 1 and not any(_is_abs32(r) for r in m.kernel.code_relocs):
        return
    module = m.module
    cubin = module.cubin
    decoder = module.decoder
    if decoder is None:
        return
    code: dict[int, Instruction] = dict(m.instructions)
    placed: dict[str, int] = {}  # code symbol -> address
    for y in cubin.symtab.symbols:
        if y.type == SymbolType.FUNC and 0 < y.shndx < len(cubin.sections):
            sec = cubin.sections[y.shndx].name
            if sec in bases and y.name not in m.builtin_fns:
                # (a function the emulator has a built-in of runs that: the device runtime's)
                placed.setdefault(y.name, bases[sec] + y.value)
    for sec, base in bases.items():
        if base:
            got = _section_bytes(cubin, sec)
            if got is None:
                continue
            for pc, ins in decoder(sec, got[0]).items():
                code[base + pc] = _moved(ins, base)
        for r in _relocs_for(cubin, sec):
            at = base + r.offset
            if r.type == "R_CUDA_ABS55_16_34":
                # a placed function's address, or the driver's function by name
                m.linked_calls[at] = placed.get(r.symbol, r.symbol)
                continue
            if not _is_abs32(r):
                continue
            if r.symbol in placed:
                value = placed[r.symbol] + r.addend
            elif r.symbol in m.builtin_fns:
                # a function the emulator has a built-in of (the device runtime's), called
                # through a register (openptxas -c: the address in a relocated move pair)
                value = _builtin_address(m, r.symbol) + r.addend
            elif r.symbol in symaddr:
                value = symaddr[r.symbol] + r.addend
            else:
                continue
            target = code.get(at)
            if target is None:
                continue
            # the first immediate (MOV's second one is its lane mask, 0xf)
            imms = [i for i, o in enumerate(target.operands) if isinstance(o, Imm)]
            if not imms:
                continue
            part = value if r.type.endswith("LO_32") else value >> 32
            ops = list(target.operands)
            ops[imms[0]] = Imm(part & 0xFFFFFFFF, ImmKind.INT)
            code[at] = replace(target, operands=tuple(ops))
    m.instructions = code


def _builtin_address(m: Machine, name: str) -> int:
    """The code address whose call runs built-in ``name`` (one is made when it has none)."""
    from openptxas.emu.launch import BUILTIN_BASE

    for addr, n in m.builtins.items():
        if n == name:
            return addr
    addr = max(m.builtins, default=BUILTIN_BASE - 16) + 16
    m.builtins[addr] = name
    return addr


def _is_abs32(r: Reloc) -> bool:
    return r.type in ("R_CUDA_ABS32_LO_32", "R_CUDA_ABS32_HI_32")


def _moved(ins: Instruction, base: int) -> Instruction:
    if not any(isinstance(o, Label) for o in ins.operands):
        return ins
    ops = tuple(Label(o.target + base) if isinstance(o, Label) else o for o in ins.operands)
    return replace(ins, operands=ops)
