"""Lowering: PTX AST -> SASS-level IR with virtual registers.

``lower_function`` builds the CFG (a block starts at every label and after every branch, exit or
return: ptxas's SetControlFlowOpLastInBB), maps PTX registers to virtual registers, lays out
parameters and shared variables, and selects SASS for each instruction through the rule tables.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import (
    PT,
    RC,
    Block,
    CBank,
    Function,
    Guard,
    Imm,
    Instr,
    Label,
    Param,
    Part,
    Reg,
    Src,
    VReg,
)
from openptxas.lower.calls import append_subs, declare_param, emit_ret, private_entry
from openptxas.lower.context import LowerCtx
from openptxas.lower.extcalls import module_externs, pic_slots
from openptxas.lower.layout import const_offsets, global_slots, module_layout
from openptxas.lower.local_rules import adjust_stack, frame_layout
from openptxas.lower.relocs import address_slots
from openptxas.lower.rules import RuleTable
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace
from openptxas.targets import SMInfo

ENDS_BLOCK = frozenset({"bra", "ret", "exit", "brx.idx", "trap"})
BRANCH_AROUND = frozenset({"call", "trap", "brkpt"})  # predicated: a branch around them


@functools.cache
def rule_table() -> RuleTable:
    from openptxas.lower import (
        async_rules,
        bit_rules,
        bulk_rules,
        cluster_rules,
        ctrl_rules,
        cvt_rules,
        divide,
        fp_extras,
        fp_forms,
        fp_rules,
        fpdiv,
        half_rules,
        int_helpers,
        int_rules,
        local_rules,
        mem_rules,
        mma_ext_rules,
        mma_sp_rules,
        mufu_rules,
        set_rules,
        tensor_rules,
        tex_rules,
        warp_rules,
        wgmma_rules,
        wmma_rules,
    )
    from openptxas.lower.calls import RULES as CALL_RULES

    return RuleTable(
        [
            *fp_forms.RULES,
            *int_helpers.RULES,
            *cvt_rules.RULES,
            *fp_rules.RULES,
            *fp_extras.RULES,
            *mufu_rules.RULES,
            *half_rules.RULES,
            *set_rules.RULES,
            *divide.RULES,
            *fpdiv.RULES,
            *bit_rules.RULES,
            *int_rules.RULES,
            *bulk_rules.RULES,
            *warp_rules.RULES,
            *async_rules.RULES,
            *mma_sp_rules.RULES,
            *mma_ext_rules.RULES,
            *tensor_rules.RULES,
            *wgmma_rules.RULES,
            *wmma_rules.RULES,
            *cluster_rules.RULES,
            *mem_rules.RULES,
            *local_rules.RULES,
            *CALL_RULES,
            *ctrl_rules.RULES,
            *tex_rules.RULES,
        ]
    )


# register ranges larger than this stay ranges (`%r<200000000>` was expanded name by name: the
# compile hung; found by scripts/ptx_fuzz.py --full)
BIG_RANGE = 4096


class RegTypes(dict[str, PtxType]):
    """The declared type of each register; big ranges (`%r<N>`) kept as (prefix, count, type)."""

    def __init__(self) -> None:
        super().__init__()
        self.ranges: dict[str, tuple[int, PtxType]] = {}

    def get(self, name: str, default: PtxType | None = None) -> PtxType | None:  # type: ignore[override]
        t = dict.get(self, name)
        if t is not None or not self.ranges:
            return t if t is not None else default
        r = _in_range(self.ranges, name)
        return r[1] if r is not None else default


def _in_range(ranges: dict[str, tuple[int, PtxType]], name: str) -> tuple[int, PtxType] | None:
    """The range ``name`` belongs to (``%r12`` is in ``%r<13>`` and in ``%r1<3>``; no leading
    zeros)."""
    k = len(name)
    while k > 0 and name[k - 1].isdigit():
        k -= 1
    for i in range(k, len(name)):
        digits = name[i:]
        if digits != "0" and digits[0] == "0":
            continue
        r = ranges.get(name[:i])
        if r is not None and int(digits) < r[0]:
            return r
    return None


def _flatten(body: ast.Block) -> list[ast.Stmt]:
    """The body's statements with nested ``{ }`` blocks inlined. A ``.reg`` that a nested block
    declares under a name already declared (in an enclosing block, or an earlier sibling) is a
    new register: it is renamed ``name%k`` (``%`` cannot occur inside a PTX identifier) in that
    block's declarations and instructions, so it shadows the outer one as PTX scoping says."""
    out: list[ast.Stmt] = []
    taken: set[str] = set()
    big: dict[str, tuple[int, PtxType]] = {}  # big ranges, never expanded
    counter = iter(range(1, 1 << 62))

    labels: set[str] = set()  # labels defined so far (a nested block's own are local to it)

    def walk(b: ast.Block, ren: dict[str, str], top: bool) -> None:
        ren = dict(ren)
        for st in b.stmts:
            if isinstance(st, ast.LabelDef):
                # the same label in two nested blocks (Triton's inline ``{ waitLoop: ... }``):
                # each block's label is its own, renamed ``name%k`` with its branches
                if not top and st.name in labels:
                    ren[st.name] = f"{st.name}%{next(counter)}"
                labels.add(st.name)
        for st in b.stmts:
            if isinstance(st, ast.VarDecl) and st.space is StateSpace.REG:
                if st.count > BIG_RANGE:
                    if not top and (
                        st.name in big
                        or any(_in_range({st.name: (st.count, st.type)}, n) for n in taken)
                    ):
                        raise UnsupportedFeature(
                            f"register range '{st.name}<{st.count}>' shadowing registers of an "
                            "enclosing block is not supported by openptxas yet",
                            st.span,
                        )
                    big[st.name] = (st.count, st.type)
                    continue
                for n in st.names():
                    if not top and big and _in_range(big, n) is not None:
                        raise UnsupportedFeature(
                            f"register '{n}' shadowing a register range is not supported by "
                            "openptxas yet",
                            st.span,
                        )
                    if not top and n in taken:
                        ren[n] = f"{n}%{next(counter)}"
                    else:
                        ren.pop(n, None)
                    taken.add(n)
        for st in b.stmts:
            if isinstance(st, ast.Block):
                walk(st, ren, False)
            elif (
                isinstance(st, ast.VarDecl)
                and st.space is StateSpace.REG
                and ren
                and st.count <= BIG_RANGE
            ):
                for n in st.names():
                    out.append(replace(st, name=ren.get(n, n), count=0))
            elif isinstance(st, ast.Instruction) and ren:
                out.append(_rename_regs(st, ren))
            elif isinstance(st, ast.LabelDef) and st.name in ren:
                out.append(replace(st, name=ren[st.name]))
            else:
                out.append(st)

    walk(body, {}, True)
    return out


def _rename_regs(ins: ast.Instruction, ren: dict[str, str]) -> ast.Instruction:
    def op(o: ast.Operand) -> ast.Operand:
        if isinstance(o, ast.Reg):
            return replace(o, name=ren[o.name]) if o.name in ren else o
        if isinstance(o, ast.Address) and isinstance(o.base, ast.Reg):
            b = op(o.base)
            assert isinstance(b, ast.Reg)
            return replace(o, base=b)
        if isinstance(o, ast.Vector | ast.ArgList | ast.MemList):
            return replace(o, items=tuple(op(i) for i in o.items))
        if isinstance(o, ast.Pair):
            return replace(o, first=op(o.first), second=op(o.second))
        if isinstance(o, ast.Not):
            return replace(o, operand=op(o.operand))
        if isinstance(o, ast.Label) and o.name in ren:
            return replace(o, name=ren[o.name])
        return o

    g = ins.guard
    if g is not None and g.reg in ren:
        g = replace(g, reg=ren[g.reg])
    return replace(ins, operands=tuple(op(o) for o in ins.operands), guard=g)


def _referenced_syms(stmts: list[ast.Stmt]) -> set[str]:
    return {
        x.name
        for s in stmts
        if isinstance(s, ast.Instruction)
        for op in s.operands
        for x in ast.operand_leaves(op)
        if isinstance(x, ast.Sym)
    }


def _layout_variables(ctx: LowerCtx, decls: list[ast.VarDecl]) -> None:
    """Static shared variables from the ABI's shared base (after the driver's reserved 1 KB),
    extern (dynamic) shared ones right after them; __constant__ data in bank 3 and the addresses
    of .global variables in bank 4 as the module layout (``lower.layout``) places them."""
    off = ctx.shared_window_base
    align = 4
    dynamic: list[ast.VarDecl] = []
    if ctx.relocatable:
        _relocatable_variables(ctx, decls)
        return
    for v in decls:
        if v.space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
            if v.linkage is not None and v.linkage.value == "extern":
                dynamic.append(v)
                continue
            a = v.alignment
            off = (off + a - 1) // a * a
            ctx.shared[v.name] = off
            off += v.size
            align = max(align, a)
    ctx.fn.shared_static = off - ctx.shared_window_base
    ctx.fn.shared_align = align
    for v in dynamic:
        a = v.alignment
        ctx.shared[v.name] = (off + a - 1) // a * a
    layout = module_layout(ctx.module)
    ctx.consts.update(const_offsets(layout))
    ctx.globals.update(address_slots(ctx.module, pic_slots(ctx.module, global_slots(layout))))
    ctx.fn.symbol_slots = {slot: name for name, slot in ctx.globals.items()}


def _relocatable_variables(ctx: LowerCtx, decls: list[ast.VarDecl]) -> None:
    """``-c`` (lower/reldata.py): every shared variable is addressed from its own base (its
    offset in ``ctx.shared`` is the window base); the extern constant variables get pseudo
    bank-3 offsets after the module's; the pseudo slots of the relocated moves join the
    address-table slots."""
    from openptxas.lower.reldata import (
        check_function,
        extern_const_offsets,
        shared_layout,
        slot_names,
    )

    check_function(ctx.module, ctx.func)
    static = []
    for v in decls:
        if v.space in (StateSpace.SHARED, StateSpace.SHARED_CTA):
            ctx.shared[v.name] = ctx.shared_window_base
            # (ptxas -v counts a kernel's own shared variables: the module's are the linker's)
            if (v.linkage is None or v.linkage.value != "extern") and v not in ctx.module.globals:
                static.append(v)
    ctx.fn.shared_static, ctx.fn.shared_align = shared_layout(static)
    layout = module_layout(ctx.module)
    consts = const_offsets(layout)
    end = max(
        (v.offset + v.size for v in layout if v.section == "const" and v.offset is not None),
        default=0,
    )
    ctx.consts.update(consts)
    ctx.consts.update(extern_const_offsets(ctx.module, end))
    ctx.globals.update(address_slots(ctx.module, pic_slots(ctx.module, global_slots(layout))))
    ctx.fn.symbol_slots = {slot: name for name, slot in ctx.globals.items()}
    ctx.fn.symbol_slots.update(slot_names(ctx.module))


def lower_function(
    module: ast.Module,
    func: ast.Function,
    target: SMInfo,
    *,
    relocatable: bool = False,
    debug: bool = False,
    unoptimized: bool = False,
) -> Function:
    if func.body is None:
        raise UnsupportedFeature(f"function '{func.name}' has no body", func.span)
    fn = Function(func.name, [], is_entry=func.is_entry)
    if "nounroll" in func.pragmas or any(
        isinstance(it, ast.Pragma) and "nounroll" in it.values for it in module.items
    ):
        fn.nounroll.add("*")  # the function's or the module's pragma: every loop stays
    ctx = LowerCtx(target, module, func, fn)
    ctx.relocatable = relocatable  # -c
    ctx.unoptimized = unoptimized  # -O0
    for slot in func.param_layout(target.param_base):
        ctx.params[slot.param.name] = (slot.offset, slot.size)
        fn.params.append(Param(slot.param.name, slot.offset, slot.size, slot.param.alignment))
    fn.externs = module_externs(module, func)
    lower_body(ctx)
    ctx.debug = debug
    if debug:  # -g: what openptxas.debuginfo needs
        fn.debug_regs, fn.debug_locals = dict(ctx.regs), dict(ctx.locals)
        fn.debug_shared = dict(ctx.shared)
    append_subs(ctx)
    if fn.cycle_calls:
        from openptxas.lower.recursion import save_across_cycle_calls

        save_across_cycle_calls(fn, target)
    return fn


def lower_body(ctx: LowerCtx) -> None:
    """Lower ``ctx.func``'s body into ``ctx.fn`` (a kernel, or a subroutine: lower.calls)."""
    func, fn, module, target = ctx.func, ctx.fn, ctx.module, ctx.target
    assert func.body is not None
    stmts = _flatten(func.body)
    reg_types = RegTypes()
    reg_types.update(ctx.reg_types)  # what the caller declared already (a subroutine's params)
    for s in stmts:
        if isinstance(s, ast.VarDecl) and s.space is StateSpace.REG:
            if s.count > BIG_RANGE:
                reg_types.ranges[s.name] = (s.count, s.type)
                continue
            for n in s.names():
                reg_types[n] = s.type
    ctx.reg_types = reg_types
    for s in stmts:
        if isinstance(s, ast.BranchTargets):
            ctx.branch_targets[s.label] = s.targets
    used = _referenced_syms(stmts)
    shared = [g for g in module.globals if g.name in used] + [
        s
        for s in stmts
        if isinstance(s, ast.VarDecl) and s.space not in (StateSpace.REG, StateSpace.PARAM)
    ]
    allowed = (
        StateSpace.SHARED,
        StateSpace.SHARED_CTA,
        StateSpace.REG,
        StateSpace.CONST,
        StateSpace.GLOBAL,
        StateSpace.LOCAL,
    )
    for v in shared:
        if v.space not in allowed:
            raise UnsupportedFeature(
                f"{v.space.value} variable '{v.name}' is not supported by openptxas yet", v.span
            )
        if v.space is StateSpace.LOCAL and v in module.globals:
            raise UnsupportedFeature(
                f"module-scope local variable '{v.name}' is not supported by openptxas yet", v.span
            )
        if v.space in (StateSpace.CONST, StateSpace.GLOBAL) and v not in module.globals:
            raise UnsupportedFeature(
                f"function-scope {v.space.value} variable '{v.name}' is "
                "not supported by openptxas yet",
                v.span,
            )
    _layout_variables(ctx, shared)
    ctx.locals, fn.local_bytes = frame_layout(
        [*ctx.frame_params, *(v for v in shared if v.space is StateSpace.LOCAL)]
    )

    from openptxas.lower import wgmma_rules

    wgmma_rules.prepare(ctx, stmts)
    table = rule_table()
    entry = Block(".L_entry")
    fn.blocks.append(entry)
    ctx.block = entry
    if func.is_entry:
        ctx.emit("LDC", (), [ctx.sp], [CBank(0, target.abi.cb_stack)])
    adjust_stack(ctx, fn.local_bytes)
    private_entry(ctx)
    for s in stmts:
        if isinstance(s, ast.LabelDef):
            b = Block(s.name)
            fn.blocks.append(b)
            ctx.block = b
            continue
        if isinstance(s, ast.VarDecl) and s.space is StateSpace.PARAM:
            declare_param(ctx, s)
            continue
        if isinstance(s, ast.Pragma) and "nounroll" in s.values:
            assert ctx.block is not None
            fn.nounroll.add(ctx.block.name)  # (the loop whose header this is stays a loop)
            continue
        if not isinstance(s, ast.Instruction):
            continue
        ctx.span = s.span
        rule = table.select(s)
        if rule is None:
            raise UnsupportedFeature(
                f"instruction '{s.name}' is not supported by openptxas yet", s.span
            )
        assert ctx.block is not None
        if s.guard is not None and s.opcode in BRANCH_AROUND:
            # a predicated call or trap: a branch around it (as ptxas does)
            skip = ctx.new_block()
            g = Guard(ctx.reg(s.guard.reg), not s.guard.negated)
            ctx.emit("BRA", (), [], [Label(skip.name)]).guard = g
            fall = ctx.new_block()
            fn.blocks.append(fall)
            ctx.block = fall
            rule.emit(replace(s, guard=None), ctx)
            fn.blocks.append(skip)
            ctx.block = skip
            continue
        start = len(ctx.block.instrs)
        cur = ctx.block
        ctx.guard_tail = None
        rule.emit(s, ctx)
        if s.guard is not None and not getattr(rule.emit, "own_guard", False):
            if ctx.block is not cur and ctx.guard_tail is not None:
                cur, start = ctx.guard_tail
            if ctx.block is not cur:
                raise UnsupportedFeature(
                    f"predicated '{s.name}' is not supported by openptxas yet", s.span
                )
            _guard_expansion(ctx, cur, start, Guard(ctx.reg(s.guard.reg), s.guard.negated))
        if s.opcode in ENDS_BLOCK:
            nb = ctx.new_block()
            fn.blocks.append(nb)
            ctx.block = nb
    wgmma_rules.bind(ctx)
    _drop_empty_blocks(fn, ctx.cold_blocks)
    last = fn.blocks[-1]
    t = last.instrs[-1] if last.instrs else None
    if t is None or t.op not in ("EXIT", "BRA", "RET") or t.guard is not None:
        ctx.block = last
        if func.is_entry:
            ctx.emit("EXIT")
        else:
            emit_ret(ctx)
    fn.blocks.extend(ctx.cold_blocks)
    k = (1 if func.is_entry else 0) + (1 if fn.local_bytes else 0)
    entry.instrs[k:k] = ctx.prologue()


def _guard_expansion(ctx: LowerCtx, blk: Block, start: int, g: Guard) -> None:
    """Guard every instruction a predicated PTX instruction expanded to. One that the expansion
    guarded itself (a division's correction step ``@P1 IADD3``) runs only when both hold: its
    guard becomes ``g AND inner``, computed by a PLOP3 just before it (unguarded: when ``g`` is
    false the inner predicate may be stale, and the AND is false anyway)."""
    out: list[Instr] = []
    for ins in blk.instrs[start:]:
        if _uniform_temp(ins):
            # a uniform-datapath ALU instruction takes no P guard; it only computes a uniform
            # temporary of the expansion (the count of a predicated mbarrier.init)
            out.append(ins)
            continue
        if ins.guard is not None:
            both = ctx.new(RC.P)
            a = Src(g.pred, inv=True) if g.inv else g.pred
            b = Src(ins.guard.pred, inv=True) if ins.guard.inv else ins.guard.pred
            out.append(
                Instr("PLOP3", ("LUT",), [both, PT], [a, b, PT, Imm(0xC0), Imm(0)], line=ins.line)
            )
            ins.guard = Guard(both)
        else:
            ins.guard = g
        out.append(ins)
    blk.instrs[start:] = out


def _uniform_temp(ins: Instr) -> bool:
    def uniform(d: object) -> bool:
        v = d.v if isinstance(d, Part) else d
        return isinstance(v, VReg | Reg) and v.rc in (RC.UR, RC.UP)

    return (
        ins.op.startswith("U")
        and ins.guard is None
        and bool(ins.dsts)
        and all(uniform(d) for d in ins.dsts)
    )


def _drop_empty_blocks(fn: Function, cold: list[Block]) -> None:
    """Remove empty blocks that no branch (of the function or of its cold blocks) names
    (fall-through placeholders)."""
    instrs = [*fn.instrs(), *(i for b in cold for i in b.instrs)]
    targets = {s.block for ins in instrs for s in ins.srcs if isinstance(s, Label)}
    fn.blocks = [b for k, b in enumerate(fn.blocks) if b.instrs or b.name in targets or k == 0]


__all__ = ["lower_body", "lower_function", "rule_table"]
_ = RC
