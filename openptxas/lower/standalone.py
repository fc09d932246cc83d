"""Device functions of a ``-c`` object: a ``.visible``/``.weak`` ``.func`` compiled on its own, in
its own ``.text.<f>``, callable from other objects with ptxas 13.0.88's sm_90 calling convention
(observed with ``scripts/link_probe.py --show``; the caller's side is lower/extcalls.py):

- arguments in R4 onwards (each aligned to its size: a 64-bit one in an even pair), results from
  R4 the same way, the return address in R20:R21 (``RET.ABS.NODEC R20``), the stack pointer R1;
- the function may change R0, R3-R15, R20-R21, UR0-UR35 and the predicates (and, ptxas's
  callees show, R32-R35, R40-R43, ...: callers keep nothing there); R2 and R16-R31 must hold the
  caller's value when it returns (a ptxas caller keeps ``%tid.x`` in R2 across the call).

openptxas builds it from what whole-program mode already does (lower/calls.py): a wrapper whose
body copies the arguments, the return address and R2 out of the fixed registers, calls the
function as a subroutine (``CALL.REL.NOINC``, its code after the wrapper's), copies the results
into R4.., restores R2 and returns. The wrapper writes the registers it copied once it read them
(``MOV Rk, RZ``), so the allocator (regalloc/clobbers.py) keeps every value copied out of them
away from them. The register budget is R0-R31; the callee-saved registers the allocation writes
(R16-R19, R22-R31: what lives across its own calls of other objects' functions goes there) are
stored below the caller's stack pointer at the entry and loaded back before the return
(``save_callee_saved``, after scheduling). A function that uses convergence barriers (ptxas
saves the barrier register it uses; openptxas does not yet) is refused.
"""

from __future__ import annotations

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import RC, RZ, Addr, Block, Function, Imm, Instr, Label, Reg
from openptxas.lower.context import LowerCtx
from openptxas.ptx import ast
from openptxas.ptx.types import Linkage
from openptxas.targets import SMInfo

# the register budget: R0-R31 (what it uses of R16-R31 is saved)
_BUDGET = 32
_SAVED = frozenset(range(16, 32)) - {20, 21}  # callee-saved (R20:R21: the return address)
# registers below the budget a ptxas caller keeps a value in across a call (observed: ptxas
# keeps %tid.x in R2 across CALL.ABS; its callees use R0, R3-R15, R20, R32-R35, R40-R43, ...)
_KEPT_LOW = (2,)


def standalone_functions(module: ast.Module) -> list[ast.Function]:
    """The device functions a ``-c`` object defines for other objects: ``.visible`` and
    ``.weak`` ``.func`` definitions, in reverse order of definition (as ptxas compiles)."""
    return [
        f
        for f in reversed(module.functions)
        if not f.is_entry and f.body is not None and f.linkage in (Linkage.VISIBLE, Linkage.WEAK)
    ]


def lower_standalone(module: ast.Module, func: ast.Function, target: SMInfo) -> Function:
    from openptxas.lower import _layout_variables
    from openptxas.lower.calls import append_subs, lower_sub
    from openptxas.lower.extcalls import arg_registers, module_externs

    abi = target.abi
    fn = Function(func.name, [], is_entry=False)
    fn.maxnreg = _BUDGET
    ctx = LowerCtx(target, module, func, fn)
    ctx.relocatable = True
    _layout_variables(ctx, [])  # the module's address slots (fn.symbol_slots)
    fn.externs = module_externs(module, func)
    entry = Block(".L_entry")
    fn.blocks.append(entry)
    ctx.block = entry
    sub = lower_sub(ctx, func)
    ctx.calls.callees.add(func.name)
    if sub.memory:
        raise UnsupportedFeature(
            f"relocatable output (-c): device function '{func.name}' taking the address of a "
            "parameter is not supported by openptxas yet",
            func.span,
        )
    fixed: list[int] = []
    firsts = arg_registers(ctx, func.params)
    for first, pw in zip(firsts, sub.params, strict=True):
        for j, w in enumerate(pw.words):
            ctx.emit("MOV", (), [w], [Reg(RC.R, first + j)])
            fixed.append(first + j)
    ra = ctx.new(RC.R, 2)
    ctx.emit("MOV", (), [ra.lo], [Reg(RC.R, abi.call_return_address)])
    ctx.emit("MOV", (), [ra.hi], [Reg(RC.R, abi.call_return_address + 1)])
    kept = [(k, ctx.new(RC.R)) for k in _KEPT_LOW]  # the caller's, restored before returning
    for k, v in kept:
        ctx.emit("MOV", (), [v], [Reg(RC.R, k)])
    for k in [*fixed, *_KEPT_LOW, abi.call_return_address, abi.call_return_address + 1]:
        ctx.emit("MOV", (), [Reg(RC.R, k)], [RZ])  # read: the values above stay out of them
    ret_block = ctx.new_block("ret_")
    ctx.emit("MOV", (), [sub.ra.lo], [Label(ret_block.name)])
    ctx.emit("MOV", (), [sub.ra.hi], [RZ])
    ctx.emit("CALL", ("REL", "NOINC"), [], [Label(sub.entry), Label(ret_block.name)])
    fn.blocks.append(ret_block)
    ctx.block = ret_block
    for first, pw in zip(arg_registers(ctx, func.rets), sub.rets, strict=True):
        for j, w in enumerate(pw.words):
            ctx.emit("MOV", (), [Reg(RC.R, first + j)], [w])
    for k, v in kept:
        ctx.emit("MOV", (), [Reg(RC.R, k)], [v])
    ctx.emit("RET", ("ABS", "NODEC"), [], [ra])
    append_subs(ctx)
    if fn.cycle_calls:
        from openptxas.lower.recursion import save_across_cycle_calls

        save_across_cycle_calls(fn, target)
    return fn


def save_callee_saved(fn: Function, sp: int) -> None:
    """After allocation and scheduling (before the control codes): store the callee-saved
    registers the function writes (R16-R31 but R20:R21) below the caller's stack pointer at the
    entry, and load them back before the return; the function's frame grows by their size."""
    regs = sorted(
        {
            r.index + k
            for ins in fn.instrs()
            for r in ins.def_regs()
            if isinstance(r, Reg) and r.rc == RC.R
            for k in range(r.width)
            if r.index + k in _SAVED
        }
    )
    if not regs:
        return
    size = (4 * len(regs) + 7) // 8 * 8
    stack = Reg(RC.R, sp)
    entry = [Instr("IADD3", (), [stack], [stack, Imm((-size) & 0xFFFFFFFF), RZ])]
    entry += [Instr("STL", (), [], [Addr(stack, 4 * k), Reg(RC.R, r)]) for k, r in enumerate(regs)]
    fn.blocks[0].instrs[0:0] = entry
    for b in fn.blocks:
        for i, ins in enumerate(b.instrs):
            if ins.op == "RET" and "ABS" in ins.mods:
                back = []
                ra = ins.srcs[0]
                assert isinstance(ra, Reg)
                if ra.index in regs or ra.index + 1 in regs:
                    # the return address is in a register about to be restored: to R20:R21
                    back += [
                        Instr("MOV", (), [Reg(RC.R, 20 + k)], [Reg(RC.R, ra.index + k)])
                        for k in range(2)
                    ]
                    ins.srcs[0] = Reg(RC.R, 20, 2)
                back += [
                    Instr("LDL", (), [Reg(RC.R, r)], [Addr(stack, 4 * k)])
                    for k, r in enumerate(regs)
                ]
                back.append(Instr("IADD3", (), [stack], [stack, Imm(size), RZ]))
                b.instrs[i:i] = back
                break
    fn.local_bytes += size
    # (ptxas -v counts these saves as spill stores and loads)
    fn.spill_stores += 4 * len(regs)
    fn.spill_loads += 4 * len(regs)


def check_convention(fn: Function, func: ast.Function) -> None:
    """After allocation: the function changes only what the convention lets a callee change."""
    for ins in fn.instrs():
        if ins.op in ("BSSY", "BSYNC", "BMOV", "WARPSYNC"):
            raise UnsupportedFeature(
                f"relocatable output (-c): device function '{func.name}' with divergent "
                "control flow (convergence barriers) is not supported by openptxas yet",
                func.span,
            )
        for r in ins.def_regs():
            if not isinstance(r, Reg):
                continue
            top = r.index + r.width - 1
            if r.rc == RC.R and r.index != 255 and top >= 32:
                raise UnsupportedFeature(
                    f"relocatable output (-c): device function '{func.name}' needs registers "
                    f"the calling convention keeps for the caller (R{r.index}); not supported "
                    "by openptxas yet",
                    func.span,
                )
            if r.rc == RC.UR and r.index != 63 and top > 35:
                raise UnsupportedFeature(
                    f"relocatable output (-c): device function '{func.name}' needs uniform "
                    f"register UR{r.index}, which the calling convention keeps for the caller; "
                    "not supported by openptxas yet",
                    func.span,
                )
