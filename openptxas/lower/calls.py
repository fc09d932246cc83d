"""Device-function calls in whole-program mode, as ptxas 13.0.88 compiles them for sm_90: every
``.func`` a kernel calls (directly or through other functions) becomes a subroutine placed after
the kernel's code in the kernel's own section (``$kernel$func`` in the cubin), entered with
``CALL.REL.NOINC `(sub)`` and left with ``RET.REL.NODEC Rra `(kernel)``: the caller puts the
return address (an offset in the section) in a register pair, the callee returns through it.

ptxas allocates the registers of a kernel and its subroutines together (its own convention per
call graph, not the ``-c`` ABI). openptxas does the same: the callee's blocks are lowered into the
caller's function, its ``.param`` arguments and results are virtual registers (one per 32-bit
word) that the call site writes and reads, and the CFG has an edge from each ``CALL`` to the
subroutine and from the subroutine's ``RET`` to every return site (``ir.core.successors``), so
liveness, allocation and the control codes see through calls. Recursion needs a stack of
activations and is refused; so are indirect calls.

Call-sequence parameters (``{ .param .b32 param0; st.param.b32 [param0], %r1; call ... }``)
are word registers as well: ``st.param`` writes words (sub-word stores merge into their word),
``ld.param`` reads them, sign- or zero-extending sub-word values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Addr,
    Block,
    CBank,
    Function,
    Imm,
    Label,
    Operand,
    Part,
    Src,
    VReg,
)
from openptxas.lower.context import LowerCtx, width_of
from openptxas.lower.rules import Rule, always
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType


@dataclass
class ParamWords:
    """A ``.param`` variable held in registers: one R virtual register per 32-bit word."""

    size: int
    words: list[VReg]
    written: set[int] = field(default_factory=set)


@dataclass
class Sub:
    """A subroutine of the kernel being lowered (a ``.func`` it calls)."""

    name: str
    entry: str  # its first block
    params: list[ParamWords]
    rets: list[ParamWords]
    ra: VReg  # the return address (a pair, high word 0)
    blocks: list[Block] = field(default_factory=list)
    frame: int = 0
    # parameters whose address the function takes: passed in its frame (the caller stores them
    # below its own stack pointer, where the callee's frame will be), at these frame offsets
    memory: list[ast.Param] = field(default_factory=list)
    slots: dict[str, int] = field(default_factory=dict)
    callees: set[str] = field(default_factory=set)
    shared: Sub | None = None  # a recursive function's registers: the ones its callers use
    debug_regs: dict[str, VReg] = field(default_factory=dict)  # -g: its PTX registers


Signature = tuple[tuple[int, ...], tuple[int, ...]]  # words of each parameter, of each result


@dataclass
class Convention:
    """The registers shared by every function an indirect call may reach (one signature): its
    parameters, results and return address are the same virtual registers in all of them."""

    params: list[ParamWords]
    rets: list[ParamWords]
    ra: VReg


@dataclass
class CallState:
    """Per kernel: its subroutines, in the order their code follows the kernel's."""

    subs: dict[str, Sub] = field(default_factory=dict)
    active: list[str] = field(default_factory=list)  # functions being lowered (recursion)
    callees: set[str] = field(default_factory=set)  # the kernel's own
    conventions: dict[Signature, Convention] = field(default_factory=dict)
    taken: set[str] | None = None  # functions whose address the module takes
    recursive: set[str] | None = None  # functions on a cycle of calls
    graph: dict[str, set[str]] = field(default_factory=dict)  # direct calls
    # CALL uid -> (the function it is in, the result registers it returns in)
    cycle_calls: dict[int, tuple[str, tuple[int, ...]]] = field(default_factory=dict)

    def depth(self, names: set[str], path: frozenset[str] = frozenset()) -> int:
        """The deepest chain of subroutine frames below a function calling ``names`` (a cycle
        counted once: recursion's depth is not known)."""
        return max(
            (
                self.subs[n].frame + self.depth(self.subs[n].callees, path | {n})
                for n in names
                if n not in path
            ),
            default=0,
        )


def param_words(c: LowerCtx, size: int) -> ParamWords:
    return ParamWords(size, [c.new(RC.R) for _ in range((size + 3) // 4)])


def _words_of(c: LowerCtx, name: str) -> ParamWords | None:
    return c.param_regs.get(name)


# ---------------------------------------------------------------------------- ld/st.param
def is_reg_param(ins: ast.Instruction, c: LowerCtx) -> bool:
    """Whether a ld/st.param names a parameter held in registers (a call sequence's, or a
    device function's own parameter or result)."""
    for op in ins.operands:
        if isinstance(op, ast.Address) and isinstance(op.base, ast.Sym):
            return op.base.name in c.param_regs
    return False


def _elements(ins: ast.Instruction, op: ast.Operand) -> list[ast.Operand]:
    return list(op.items) if isinstance(op, ast.Vector) else [op]


def ld_param_reg(ins: ast.Instruction, c: LowerCtx) -> None:
    d, a = ins.operands
    assert isinstance(a, ast.Address) and isinstance(a.base, ast.Sym)
    pw = _words_of(c, a.base.name)
    assert pw is not None and ins.type is not None
    t = ins.type
    off = a.base.offset + a.offset
    for k, item in enumerate(_elements(ins, d)):
        at = off + k * t.size
        if at + t.size > 4 * len(pw.words) or at % min(t.size, 4):
            raise c.unsupported(f"ld.param at offset {at} of '{a.base.name}'")
        if isinstance(item, ast.Sink):
            continue
        dst = c.dst(item)
        if t.size >= 4:
            n = width_of(t)
            for j in range(n):
                c.emit("MOV", (), [dst.part(j) if dst.width > 1 else dst], [pw.words[at // 4 + j]])
            for j in range(n, dst.width):
                # a wider destination: sign- or zero-extended (ld.param.s32 %rd)
                if t.is_signed:
                    c.emit("SHF", ("R", "S32", "HI"), [dst.part(j)], [RZ, Imm(31), dst.part(n - 1)])
                else:
                    c.emit("MOV", (), [dst.part(j)], [RZ])
            continue
        word = pw.words[at // 4]
        b = at % 4
        signed = t.is_signed
        if t.size == 1:
            sel = [b, b | 8, b | 8, b | 8] if signed else [b, 4, 4, 4]
        else:
            sel = [b, b + 1, (b + 1) | 8, (b + 1) | 8] if signed else [b, b + 1, 4, 4]
        code = sum(v << (4 * i) for i, v in enumerate(sel))
        lo = dst.lo if dst.width > 1 else dst
        c.emit("PRMT", (), [lo], [word, Imm(code), RZ])
        for j in range(1, dst.width):
            if signed:
                c.emit("SHF", ("R", "S32", "HI"), [dst.part(j)], [RZ, Imm(31), lo])
            else:
                c.emit("MOV", (), [dst.part(j)], [RZ])


def st_param_reg(ins: ast.Instruction, c: LowerCtx) -> None:
    a, v = ins.operands
    assert isinstance(a, ast.Address) and isinstance(a.base, ast.Sym)
    pw = _words_of(c, a.base.name)
    assert pw is not None and ins.type is not None
    t = ins.type
    off = a.base.offset + a.offset
    for k, item in enumerate(_elements(ins, v)):
        at = off + k * t.size
        if at + t.size > 4 * len(pw.words) or at % min(t.size, 4):
            raise c.unsupported(f"st.param at offset {at} of '{a.base.name}'")
        if t.size >= 4:
            src = c.value(item, t, allow_imm=True)
            for j in range(width_of(t)):
                part: Operand = src
                if isinstance(src, VReg) and src.width > 1:
                    part = src.part(j)
                elif isinstance(src, Imm) and width_of(t) > 1:
                    part = Imm((src.value >> (32 * j)) & 0xFFFFFFFF)
                elif j > 0 and not isinstance(src, VReg | Part):
                    part = RZ
                c.emit("MOV", (), [pw.words[at // 4 + j]], [part])
                pw.written.add(at // 4 + j)
            continue
        # a byte or half: merged into its word (the rest of the word kept, or 0)
        wi = at // 4
        word = pw.words[wi]
        if wi not in pw.written:
            c.emit("MOV", (), [word], [RZ])
            pw.written.add(wi)
        val = c.rvalue(item, T.B32)
        mask = (1 << (8 * t.size)) - 1
        sh = 8 * (at % 4)
        field_ = c.new()
        c.emit("LOP3", ("LUT",), [field_], [val, Imm(mask), RZ, Imm(0xC0), Src(PT, inv=True)])
        if sh:
            shifted = c.new()
            c.emit("SHF", ("L", "U32"), [shifted], [field_, Imm(sh), RZ])
            field_ = shifted
        keep = (~(mask << sh)) & 0xFFFFFFFF
        # word = (word & keep) | field
        c.emit("LOP3", ("LUT",), [word], [word, Imm(keep), field_, Imm(0xEA), Src(PT, inv=True)])


# ---------------------------------------------------------------------------- call
def declare_param(c: LowerCtx, decl: ast.VarDecl) -> None:
    """A call sequence's ``.param`` variable: fresh word registers (a redeclaration in the next
    call sequence is a new variable)."""
    c.param_regs[decl.name] = param_words(c, decl.size)


def call(ins: ast.Instruction, c: LowerCtx) -> None:
    ops = list(ins.operands)
    rets: list[ast.Operand] = []
    if (
        ops
        and isinstance(ops[0], ast.ArgList)
        and len(ops) > 1
        and isinstance(ops[1], ast.Sym | ast.Reg)
    ):
        rets = list(ops[0].items)
        ops = ops[1:]
    args = list(ops[1].items) if len(ops) > 1 and isinstance(ops[1], ast.ArgList) else []
    if ops and isinstance(ops[0], ast.Reg):
        indirect_call(c, ops[0], args, rets)
        return
    if not ops or not isinstance(ops[0], ast.Sym):
        raise c.unsupported("indirect call")
    target = ops[0].name
    callee = next((f for f in c.module.functions if f.name == target and f.body), None)
    if callee is None:
        decl = next((f for f in c.module.functions if f.name == target), None)
        if decl is None:
            raise c.unsupported(f"call to '{target}' (a function without a body here)")
        from openptxas.lower.extcalls import call_extern

        if len(args) != len(decl.params) or len(rets) != len(decl.rets):
            raise c.unsupported(f"call to '{target}' with this argument list")
        words = []
        for op, p in zip(args, decl.params, strict=True):
            src = _arg_words(c, op)
            n = (p.size + 3) // 4
            words.append([src.words[j] if j < len(src.words) else None for j in range(n)])
        outs = []
        for op in rets:
            dst = _arg_words(c, op)
            dst.written.update(range(len(dst.words)))
            outs.append(list(dst.words))
        call_extern(c, decl, words, outs)
        return
    sub = lower_sub(c, callee)
    (c.sub.callees if c.sub is not None else c.calls.callees).add(callee.name)
    if len(args) != len(sub.params) or len(rets) != len(sub.rets):
        raise c.unsupported(f"call to '{target}' with this argument list")
    for op, pw, p in zip(args, sub.params, callee.params, strict=True):
        src = _arg_words(c, op)
        if p.name in sub.slots:
            # stored where the callee's frame will be (it lowers the stack pointer by its size)
            base = sub.slots[p.name] - sub.frame
            for j in range((p.size + 3) // 4):
                w = src.words[j] if j < len(src.words) else RZ
                c.emit("STL", (), [], [Addr(c.sp, base + 4 * j), w])
            continue
        for j, w in enumerate(pw.words):
            c.emit("MOV", (), [w], [src.words[j] if j < len(src.words) else RZ])
    ret_block = c.new_block("ret_")
    c.emit("MOV", (), [sub.ra.lo], [Label(ret_block.name)])
    c.emit("MOV", (), [sub.ra.hi], [RZ])
    cins = c.emit("CALL", ("REL", "NOINC"), [], [Label(sub.entry), Label(ret_block.name)])
    if c.sub is not None and _reaches(c, callee.name, c.sub.name):
        # a call within a cycle: what lives across it is saved (lower/recursion.py)
        results = tuple(w.id for r in sub.rets for w in r.words)
        c.calls.cycle_calls[cins.uid] = (c.sub.name, results)
    c.fn.blocks.append(ret_block)
    c.block = ret_block
    for op, pw in zip(rets, sub.rets, strict=True):
        dst = _arg_words(c, op)
        for j, w in enumerate(dst.words):
            c.emit("MOV", (), [w], [pw.words[j]])
            dst.written.add(j)


def _signature(params: list[int], rets: list[int]) -> Signature:
    return tuple((n + 3) // 4 for n in params), tuple((n + 3) // 4 for n in rets)


def _func_signature(f: ast.Function) -> Signature:
    return _signature([p.size for p in f.params], [p.size for p in f.rets])


def taken_functions(module: ast.Module) -> set[str]:
    """Functions (with a body) whose address the module takes: named in a variable's
    initializer or as an operand other than a call's target."""
    bodies = {f.name for f in module.functions if f.body is not None}
    out: set[str] = set()

    def init(v: object) -> None:
        if isinstance(v, ast.InitList):
            for it in v.items:
                init(it)
        elif isinstance(v, ast.SymInit) and v.name in bodies:
            out.add(v.name)

    for g in module.globals:
        if g.init is not None:
            init(g.init)

    def walk(b: ast.Block) -> None:
        for st in b.stmts:
            if isinstance(st, ast.Block):
                walk(st)
            elif isinstance(st, ast.Instruction) and st.opcode != "call":
                for op in st.operands:
                    if isinstance(op, ast.Sym) and op.name in bodies:
                        out.add(op.name)

    for f in module.functions:
        if f.body is not None:
            walk(f.body)
    return out


def _taken(c: LowerCtx) -> set[str]:
    if c.calls.taken is None:
        c.calls.taken = taken_functions(c.module)
    return c.calls.taken


def _convention(c: LowerCtx, sig: Signature) -> Convention:
    conv = c.calls.conventions.get(sig)
    if conv is None:
        conv = Convention(
            [param_words(c, 4 * n) for n in sig[0]],
            [param_words(c, 4 * n) for n in sig[1]],
            c.new(RC.R, 2),
        )
        c.calls.conventions[sig] = conv
    return conv


def function_address(c: LowerCtx, dst: VReg, name: str) -> None:
    """``mov.u64 d, f``: the code offset of f's subroutine in the kernel's section (what ptxas
    writes; an indirect ``CALL.REL.NOINC Rf `(kernel)`` adds the kernel's start)."""
    func = next(f for f in c.module.functions if f.name == name and f.body is not None)
    sub = lower_sub(c, func)
    lo = dst.lo if dst.width == 2 else dst
    c.emit("MOV", (), [lo], [Label(sub.entry)])
    if dst.width == 2:
        c.emit("MOV", (), [dst.hi], [RZ])


def indirect_call(
    c: LowerCtx, target: ast.Reg, args: list[ast.Operand], rets: list[ast.Operand]
) -> None:
    """``call (r), %rd, (a, b), proto``: a call through a function's address. Every function of
    the module whose address is taken and whose signature matches may be reached; they share
    one convention (``Convention``), and the CFG goes from the call to each of them."""
    srcs = [_arg_words(c, op) for op in args]
    dsts = [_arg_words(c, op) for op in rets]
    sig = _signature([4 * len(w.words) for w in srcs], [4 * len(w.words) for w in dsts])
    cands = sorted(
        f.name
        for f in c.module.functions
        if f.body is not None and f.name in _taken(c) and _func_signature(f) == sig
    )
    if not cands:
        raise c.unsupported("indirect call without a function it may reach")
    subs = [
        lower_sub(c, next(f for f in c.module.functions if f.name == n and f.body)) for n in cands
    ]
    for n in cands:
        (c.sub.callees if c.sub is not None else c.calls.callees).add(n)
    conv = _convention(c, sig)
    addr = c.rvalue(target, T.U64)
    if not isinstance(addr, VReg) or addr.width != 2:
        raise c.unsupported("indirect call through this operand")
    for src, pw in zip(srcs, conv.params, strict=True):
        for j, w in enumerate(pw.words):
            c.emit("MOV", (), [w], [src.words[j] if j < len(src.words) else RZ])
    ret_block = c.new_block("ret_")
    c.emit("MOV", (), [conv.ra.lo], [Label(ret_block.name)])
    c.emit("MOV", (), [conv.ra.hi], [RZ])
    cins = c.emit(
        "CALL",
        ("REL", "NOINC"),
        [],
        [addr, Label(ret_block.name), *(Label(s.entry) for s in subs)],
    )
    if c.sub is not None and any(_reaches(c, n, c.sub.name) for n in cands):
        # within a cycle of calls: what lives across it is saved (lower/recursion.py)
        results = tuple(w.id for r in conv.rets for w in r.words)
        c.calls.cycle_calls[cins.uid] = (c.sub.name, results)
    c.fn.blocks.append(ret_block)
    c.block = ret_block
    for dst, pw in zip(dsts, conv.rets, strict=True):
        for j, w in enumerate(dst.words):
            c.emit("MOV", (), [w], [pw.words[j]])
            dst.written.add(j)


def _address_taken(func: ast.Function) -> set[str]:
    """The parameters of ``func`` named other than as the address of a ld/st.param."""
    names = {p.name for p in func.params}
    out: set[str] = set()

    def walk(b: ast.Block) -> None:
        for st in b.stmts:
            if isinstance(st, ast.Block):
                walk(st)
            elif isinstance(st, ast.Instruction):
                for op in st.operands:
                    if isinstance(op, ast.Sym) and op.name in names:
                        out.add(op.name)
                    elif (
                        isinstance(op, ast.Address)
                        and isinstance(op.base, ast.Sym)
                        and op.base.name in names
                        and st.opcode not in ("ld", "st")
                    ):
                        out.add(op.base.name)

    assert func.body is not None
    walk(func.body)
    return out


def ld_param_frame(ins: ast.Instruction, c: LowerCtx) -> None:
    """``ld.param`` of a device function's parameter that lives in its frame: a local load."""
    from dataclasses import replace

    from openptxas.lower.mem_rules import ld_mem

    ld_mem(replace(ins, mods=replace(ins.mods, spaces=(StateSpace.LOCAL,))), c)


def kernel_param_addr(c: LowerCtx, dst: VReg, name: str, offset: int) -> None:
    """``mov d, kernel_param``: the parameter's offset in the parameter space (ptxas: the
    constant-bank offset after ``param_base``; ``ld.param [d]`` reads ``c[0x0][d + base]``)."""
    off, _size = c.params[name]
    lo = dst.lo if dst.width == 2 else dst
    c.emit("MOV", (), [lo], [Imm((off + offset) & 0xFFFFFFFF)])
    if dst.width == 2:
        c.emit("MOV", (), [dst.hi], [RZ])


def cvta_param(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cvta.param.u64 d, a``: the generic address of kernel-parameter offset ``a``
    (``c[0x0][cb_param_window]`` + a, as ptxas)."""
    d, a = ins.operands
    dv = c.dst(d)
    if dv.width != 2 or not c.func.is_entry:
        raise c.unsupported("cvta.param here")
    src = c.rvalue(a, T.U64)
    base = c.new(RC.R, 2)
    c.emit("LDC", ("64",), [base], [CBank(0, c.target.abi.cb_param_window)])
    carry = c.new(RC.P)
    lo = src.part(0) if isinstance(src, VReg) and src.width == 2 else src
    hi = src.part(1) if isinstance(src, VReg) and src.width == 2 else RZ
    c.emit("IADD3", (), [dv.lo, carry], [base.lo, lo, RZ])
    c.emit("IADD3", ("X",), [dv.hi], [base.hi, hi, RZ, carry, Src(PT, inv=True)])


def _arg_words(c: LowerCtx, op: ast.Operand) -> ParamWords:
    if isinstance(op, ast.Sym) and op.name in c.param_regs and not op.offset:
        return c.param_regs[op.name]
    raise c.unsupported(f"call argument {op!r}")


def lower_sub(c: LowerCtx, func: ast.Function) -> Sub:
    """The subroutine for ``func`` in the kernel being lowered (lowered on its first call)."""
    st = c.calls
    sub = st.subs.get(func.name)
    if sub is not None:
        return sub
    from openptxas.lower import lower_body

    for p in (*func.params, *func.rets):
        if p.space not in (StateSpace.PARAM, StateSpace.PARAM_FUNC):
            raise UnsupportedFeature(
                f"register parameter '{p.name}' is not supported by openptxas yet", c.span
            )
    taken = _address_taken(func)
    if func.name in _taken(c):
        # reachable through its address: the convention of its signature
        if taken:
            raise UnsupportedFeature(
                f"address of '{func.name}' (parameters in its frame) is not supported by "
                "openptxas yet",
                c.span,
            )
        conv = _convention(c, _func_signature(func))
        sub = Sub(func.name, f"$sub${func.name}", list(conv.params), list(conv.rets), conv.ra)
    else:
        sub = Sub(
            func.name,
            f"$sub${func.name}",
            [param_words(c, 0 if p.name in taken else p.size) for p in func.params],
            [param_words(c, p.size) for p in func.rets],
            c.new(RC.R, 2),
        )
    sub.memory = [p for p in func.params if p.name in taken]
    st.subs[func.name] = sub
    st.active.append(func.name)
    inner = Function(func.name, [], is_entry=False)
    inner.next_vreg = c.fn.next_vreg
    ictx = LowerCtx(c.target, c.module, func, inner)
    ictx.calls = st
    ictx.relocatable = c.relocatable
    ictx.unoptimized = c.unoptimized
    for p, pw in zip(func.params, sub.params, strict=True):
        if p.name in taken:
            continue
        pw.written = set(range(len(pw.words)))
        ictx.param_regs[p.name] = pw
    for p, pw in zip(func.rets, sub.rets, strict=True):
        ictx.param_regs[p.name] = pw
    ictx.sub = sub
    ictx.frame_params = sub.memory
    if func.name in _recursive(c) or func.name in _taken(c):
        # a function in a cycle of calls keeps its parameters, results and return address in
        # registers of its own (the call sequences of inner activations overwrite the shared
        # ones); lower/recursion.py saves what lives across the calls of the cycle. So does a
        # function reached through its address: the functions of its convention share those
        # registers, and it may call one of them
        if sub.memory:
            raise UnsupportedFeature(
                f"recursive function '{func.name}' with parameters in its frame is not "
                "supported by openptxas yet",
                c.span,
            )
        own = _private(inner, sub)
        for p, pw in zip(func.params, own.params, strict=True):
            ictx.param_regs[p.name] = pw
        for p, pw in zip(func.rets, own.rets, strict=True):
            ictx.param_regs[p.name] = pw
        ictx.sub = own
    lower_body(ictx)
    sub.debug_regs = dict(ictx.regs)
    sub.slots = {p.name: ictx.locals[p.name] for p in sub.memory}
    st.active.pop()
    c.fn.next_vreg = inner.next_vreg
    sub.frame = inner.local_bytes
    prefix = f"$sub${func.name}"
    ren = {b.name: (prefix if k == 0 else f"{prefix}{b.name}") for k, b in enumerate(inner.blocks)}
    for b in inner.blocks:
        b.name = ren[b.name]
        for i in b.instrs:
            i.srcs = [
                Label(ren.get(s.block, s.block)) if isinstance(s, Label) else s for s in i.srcs
            ]
    sub.blocks = inner.blocks
    sub.entry = inner.blocks[0].name
    return sub


def _recursive(c: LowerCtx) -> set[str]:
    """Functions on a cycle of direct calls (the module's call graph)."""
    if c.calls.recursive is None:
        graph: dict[str, set[str]] = {}
        for f in c.module.functions:
            if f.body is None:
                continue
            out = graph.setdefault(f.name, set())
            for st in _instructions(f.body):
                if st.opcode == "call":
                    out.update(op.name for op in st.operands if isinstance(op, ast.Sym))
                    if any(isinstance(op, ast.Reg) for op in st.operands):
                        out.update(_taken(c))  # an indirect call may reach any of them
        c.calls.graph = graph
        rec: set[str] = set()
        for name in graph:
            seen: set[str] = set()
            todo = list(graph[name])
            while todo:
                n = todo.pop()
                if n == name:
                    rec.add(name)
                    break
                if n in seen or n not in graph:
                    continue
                seen.add(n)
                todo.extend(graph[n])
        c.calls.recursive = rec
    return c.calls.recursive


def _reaches(c: LowerCtx, a: str, b: str) -> bool:
    """Whether ``a`` calls ``b`` directly or through other functions (or is ``b``)."""
    _recursive(c)
    seen: set[str] = set()
    todo = [a]
    while todo:
        n = todo.pop()
        if n == b:
            return True
        if n in seen:
            continue
        seen.add(n)
        todo.extend(c.calls.graph.get(n, ()))
    return False


def _instructions(b: ast.Block) -> list[ast.Instruction]:
    out: list[ast.Instruction] = []
    for st in b.stmts:
        if isinstance(st, ast.Block):
            out.extend(_instructions(st))
        elif isinstance(st, ast.Instruction):
            out.append(st)
    return out


def _private(inner: Function, sub: Sub) -> Sub:
    """The registers a recursive function works in: copies of its parameters (made at its
    entry), its results (copied out at its ``ret``) and its return address."""

    def fresh(pw: ParamWords) -> ParamWords:
        return ParamWords(pw.size, [inner.new_vreg(RC.R) for _ in pw.words], set(pw.written))

    own = Sub(
        sub.name,
        sub.entry,
        [fresh(p) for p in sub.params],
        [fresh(r) for r in sub.rets],
        inner.new_vreg(RC.R, 2),
    )
    own.shared = sub
    return own


def private_entry(c: LowerCtx) -> None:
    """A recursive function's entry: copy the shared parameters and return address."""
    own = c.sub
    if own is None or own.shared is None:
        return
    for mine, theirs in zip(own.params, own.shared.params, strict=True):
        for a, b in zip(mine.words, theirs.words, strict=True):
            c.emit("MOV", (), [a], [b])
    c.emit("MOV", (), [own.ra.lo], [own.shared.ra.lo])
    c.emit("MOV", (), [own.ra.hi], [own.shared.ra.hi])


def emit_ret(c: LowerCtx) -> None:
    """A device function's ``ret``: restore the stack pointer, return through the address the
    caller left (relative to the kernel's start)."""
    sub = c.sub
    assert sub is not None
    if sub.shared is not None:
        for mine, theirs in zip(sub.rets, sub.shared.rets, strict=True):
            for a, b in zip(mine.words, theirs.words, strict=True):
                c.emit("MOV", (), [b], [a])
    if c.fn.local_bytes:
        c.emit("IADD3", (), [c.sp], [c.sp, Imm(c.fn.local_bytes), RZ])
    c.emit("RET", ("REL", "NODEC"), [], [sub.ra, Label(sub.entry)])


def append_subs(c: LowerCtx) -> None:
    """Place every subroutine's blocks after the kernel's."""
    taken = _taken(c)
    # ptxas: by name, the functions reached through their address last
    for sub in sorted(c.calls.subs.values(), key=lambda x: (x.name in taken, x.name)):
        c.fn.blocks.extend(sub.blocks)
        c.fn.subroutines.append((sub.name, sub.entry))
        if c.debug:
            c.fn.debug_subs[sub.name] = (sub.debug_regs, sub.frame, sub.ra)
    c.fn.call_stack = c.calls.depth(c.calls.callees)
    c.fn.cycle_calls = dict(c.calls.cycle_calls)
    c.fn.frames = {
        s.name: (s.entry, s.frame) for s in c.calls.subs.values() if s.name in _recursive(c)
    }


def _ext_rules() -> list[Rule]:
    from openptxas.lower.extcalls import RULES as EXT

    return EXT


RULES: list[Rule] = [
    *_ext_rules(),
    Rule(
        "st.param.reg",
        "st",
        lambda i: i.space in (StateSpace.PARAM, StateSpace.PARAM_FUNC),
        st_param_reg,
        "st.param.b32 [param0], %r1;",
    ),
    Rule("call", "call", always, call, "call.uni (retval0), f, (param0);"),
    Rule(
        "cvta.param",
        "cvta",
        lambda i: i.space in (StateSpace.PARAM, StateSpace.PARAM_ENTRY) and not i.has("to"),
        cvta_param,
        "cvta.param.u64 %rd1, %rd2;",
    ),
]


__all__ = ["CallState", "Sub", "append_subs", "call", "declare_param", "emit_ret"]
