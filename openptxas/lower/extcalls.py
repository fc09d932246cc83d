"""Calls to functions the driver resolves at load time (``vprintf``, ``__assertfail``, any
``.extern .func`` without a body in the module), as ptxas 13.0.88 makes them in whole-program mode
on sm_90 (observed with ``scripts/probe_calls.py``, PTX in ``scripts/call_probes``)::

    LDC.64 R8, c[0x4][slot]          the function's address: a slot of the address table
                                     (.nv.constant4), filled by an R_CUDA_64 relocation
    MOV R4, fmt.lo ... MOV R7, ...   arguments from R4 (``Abi.call_first_arg``), each aligned to
                                     its size (b64 in an even pair), in declaration order
    LEPC R20, `(return site)         the return address (``Abi.call_return_address``)
    CALL.ABS.NOINC R8
    (return site) MOV r, R4          the result from R4

The callee may change R0-R15, R20-R21, UR0-UR35 and every predicate (``Abi.call_clobbers_*``):
values live across the call avoid them (``regalloc/clobbers.py``; predicates live across it are
kept in a general register). The cubin lists the function in the kernel's EIATTR_EXTERNS and the
address table's slots come first for the first kernel's externals (``elf.builder._pic_entries``:
the first kernel's externals, the .global variables, the other kernels' externals).
"""

from __future__ import annotations

from collections.abc import Sequence

from openptxas.ir.core import PT, RC, RZ, CBank, Imm, Label, Reg, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast


def module_externs(module: ast.Module, func: ast.Function) -> list[str]:
    """The functions without a body that ``func`` calls, directly or through the device
    functions it calls, in order of first call."""
    from openptxas.lower.calls import taken_functions

    bodies = {f.name: f for f in module.functions if f.body is not None}
    out: list[str] = []
    seen: set[str] = set()

    def walk(f: ast.Function) -> None:
        if f.name in seen or f.body is None:
            return
        seen.add(f.name)
        for st in _instructions(f.body):
            if st.opcode != "call":
                continue
            for op in st.operands:
                if isinstance(op, ast.Reg):  # an indirect call: any function whose address
                    for name in sorted(taken_functions(module)):  # is taken
                        walk(bodies[name])
                    break
                if isinstance(op, ast.Sym):
                    if op.name in bodies:
                        walk(bodies[op.name])
                    elif _is_function(module, op.name) and op.name not in out:
                        out.append(op.name)
                    break

    walk(func)
    return out


def _is_function(module: ast.Module, name: str) -> bool:
    return any(f.name == name for f in module.functions)


def _instructions(b: ast.Block) -> list[ast.Instruction]:
    out: list[ast.Instruction] = []
    for st in b.stmts:
        if isinstance(st, ast.Block):
            out.extend(_instructions(st))
        elif isinstance(st, ast.Instruction):
            out.append(st)
    return out


def pic_externs(module: ast.Module) -> tuple[list[str], list[str]]:
    """(the first compiled kernel's externals, every other kernel's) in the address table's
    order (ptxas compiles kernels in reverse order of definition)."""
    kernels = list(reversed(module.entries))
    first = module_externs(module, kernels[0]) if kernels else []
    rest: list[str] = []
    for k in kernels[1:]:
        for x in module_externs(module, k):
            if x not in first and x not in rest:
                rest.append(x)
    return first, rest


def pic_slots(module: ast.Module, global_slots: dict[str, int]) -> dict[str, int]:
    """Offsets in constant bank 4 of every .global variable's and external function's
    address (``global_slots``: the variables' offsets without externals)."""
    first, rest = pic_externs(module)
    out = {x: 8 * k for k, x in enumerate(first)}
    shift = 8 * len(first)
    out.update({g: off + shift for g, off in global_slots.items()})
    end = shift + 8 * len(global_slots)
    out.update({x: end + 8 * k for k, x in enumerate(rest)})
    return out


# the registers arguments and results may occupy (ptxas 13.0.88, sm_90: one that does not fit
# goes to the stack, which openptxas does not do yet)
_LAST_ARG_REGISTER = 15


def arg_registers(c: LowerCtx, params: Sequence[ast.Param | int]) -> list[int]:
    """The first register of each argument (a parameter, or a size in bytes naturally aligned):
    the lowest free one aligned to the parameter's alignment in words (a ``.b64`` two, an
    ``.align 4 .b8 x[12]`` one, ``.align 16`` four), so a 32-bit argument fills the hole an
    earlier 64-bit one's alignment left. ptxas 13.0.88: ``(b32 a, b64 b, b32 c, f64 d)`` passes
    a in R4, b in R6:R7, c in R5, d in R8:R9; the device runtime's ``(b64 f, .align 4 .b8
    grid[12], .align 4 .b8 block[12], b32 shmem)`` f in R4:R5, grid R6-R8, block R9-R11, shmem
    R12 (observed with scripts/link_probe.py --show wide_args / arg_holes). Arguments go in
    R4-R15; one that does not fit there (ptxas passes it on the stack) is refused."""
    out = []
    first = c.target.abi.call_first_arg
    used: set[int] = set()
    for p in params:
        size, align = (p, p) if isinstance(p, int) else (p.size, p.alignment)
        n = max(1, (size + 3) // 4)
        step = max(1, min(align, 16) // 4)
        r = (first + step - 1) // step * step
        while any(r + k in used for k in range(n)):
            r += step
        if r + n - 1 > _LAST_ARG_REGISTER:
            raise c.unsupported(
                "a call whose arguments or results do not fit in R4-R15 (passed on the stack)"
            )
        out.append(r)
        used.update(range(r, r + n))
    return out


def call_extern(
    c: LowerCtx,
    callee: ast.Function,
    args: list[list[VReg | None]],
    rets: list[list[VReg]],
) -> None:
    """A call of ``callee`` (no body here): ``args``/``rets`` are the argument and result words
    (registers or zero)."""
    abi = c.target.abi
    slot = c.globals.get(callee.name)
    if slot is None:
        raise c.unsupported(f"call to '{callee.name}' here")
    target = c.new(RC.R, 2)
    c.emit("LDC", ("64",), [target], [CBank(4, slot)])
    for first, words in zip(arg_registers(c, callee.params), args, strict=True):
        for j, a in enumerate(words):
            c.emit("MOV", (), [Reg(RC.R, first + j)], [a if a is not None else RZ])
    ret_block = c.new_block("ret_")
    ra = abi.call_return_address
    if c.target.lowering.lepc_label:
        c.emit("LEPC", (), [Reg(RC.R, ra, 2)], [Label(ret_block.name)])
    else:
        # before sm_90 LEPC gives its own address: ptxas adds the return site's distance
        # (LEPC R8; ... IADD3 R20, P0, P1, -R20, R11, R8 with R20 = the LEPC's offset and R11
        # the return site's). Here one add whose immediate the encoder resolves: a Label in
        # IADD3 is the return site's distance from the LEPC before it (codegen_encode)
        pc, carry = c.new(RC.R, 2), c.new(RC.P)
        c.emit("LEPC", (), [pc], [])
        c.emit("IADD3", (), [Reg(RC.R, ra), carry], [pc.lo, Label(ret_block.name), RZ])
        c.emit("IADD3", ("X",), [Reg(RC.R, ra + 1)], [pc.hi, RZ, RZ, carry, Src(PT, inv=True)])
    c.emit("CALL", ("ABS", "NOINC"), [], [target])
    c.fn.blocks.append(ret_block)
    c.block = ret_block
    for first, outs in zip(arg_registers(c, callee.rets), rets, strict=True):
        for j, r in enumerate(outs):
            c.emit("MOV", (), [r], [Reg(RC.R, first + j)])


def trap(ins: ast.Instruction, c: LowerCtx) -> None:
    """``trap`` and ``brkpt``: ``BPT.TRAP 0x1`` (ptxas 13.0 writes the same for both; the code
    after it stays reachable)."""
    c.emit("BPT", ("TRAP",), [], [Imm(1)])


RULES: list[Rule] = [
    Rule("trap", "trap", always, trap, "trap;"),
    Rule("brkpt", "brkpt", always, trap, "brkpt;"),
]


__all__ = ["RULES", "call_extern", "module_externs", "pic_externs", "pic_slots"]
