"""Saves around calls within a cycle of calls (recursion), made right after lowering.

Pre: ``fn.cycle_calls`` names the CALLs from a recursive function to a function that may call
it back, ``fn.frames`` each recursive function's entry block and frame (lower.calls). Every
activation of a function uses the same virtual registers, so a value of the caller that lives
across such a call (live at its return site, written by some recursive function, other than the
callee's results) is stored in the caller's frame before the CALL and loaded after it: general
registers word by word (``STL``/``LDL``), predicates as 0/1 (``SEL``, ``ISETP``). Each recursive
function's frame grows by the largest save area of its calls (``IADD3 R1`` at its entry and
before each ``RET``); the slots follow its own locals.

Post: no value a recursive call may overwrite is read after it unsaved. The saves are explicit
in the IR before any pass runs: the IR's registers are shared by every activation (the CFG goes
through the callee), so the passes, which preserve its meaning, keep them right; made after the
passes, a copy propagated over a return (the callee's result register read at the return site)
would be taken for the caller's own value and restored over.
"""

from __future__ import annotations

from openptxas.diag import UnsupportedFeature
from openptxas.ir.core import (
    PT,
    RC,
    RZ,
    Addr,
    Function,
    Guard,
    Imm,
    Instr,
    Label,
    Part,
    Reg,
    Src,
    VReg,
    successors,
)
from openptxas.ir.liveness import defs_mask, uses_mask
from openptxas.targets import SMInfo


def save_across_cycle_calls(fn: Function, target: SMInfo) -> None:
    if not fn.cycle_calls:
        return
    sp = Reg(RC.R, target.abi.stack_pointer)
    idx = {b.name: i for i, b in enumerate(fn.blocks)}
    members: dict[str, set[int]] = {}
    for name, (entry, _frame) in fn.frames.items():
        seen = {idx[entry]}
        todo = [idx[entry]]
        while todo:
            i = todo.pop()
            for j in successors(fn, i, over_calls=True):
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        members[name] = seen
    # each function saves its own values (written in its blocks): an activation of another
    # function of the cycle saves its own at its calls, and functions outside the cycle write
    # none of them
    vregs: dict[int, VReg] = {}
    defined: dict[str, set[int]] = {name: set() for name in members}
    owner_of: dict[int, list[str]] = {}
    for name, blocks in members.items():
        for bi in blocks:
            owner_of.setdefault(bi, []).append(name)
    for bi, b in enumerate(fn.blocks):
        for ins in b.instrs:
            for r in (*ins.def_regs(), *ins.use_regs()):
                v = r.v if isinstance(r, Part) else r
                if isinstance(v, VReg):
                    vregs[v.id] = v
            for name in owner_of.get(bi, ()):
                for r in ins.def_regs():
                    v = r.v if isinstance(r, Part) else r
                    if isinstance(v, VReg):
                        defined[name].add(v.id)
    own_live = {name: _own_liveness(fn, blocks) for name, blocks in members.items()}
    area: dict[str, int] = {}
    stored: dict[str, int] = {}  # bytes of saves per function (-v's spill stores and loads)
    for b in list(fn.blocks):
        t = b.terminator()
        if t is None or t.uid not in fn.cycle_calls:
            continue
        owner, results = fn.cycle_calls[t.uid]
        ret = t.srcs[1]
        assert isinstance(ret, Label)
        rb = fn.blocks[idx[ret.block]]
        live = own_live[owner].get(idx[ret.block], 0)
        keep = [
            vregs[i]
            for i in sorted(vregs)
            if live >> i & 1 and i in defined[owner] and i not in results
        ]
        base = fn.frames[owner][1]
        off = base
        before: list[Instr] = []
        after: list[Instr] = []
        for v in keep:
            if v.rc == RC.R:
                for j in range(v.width):
                    w = v if v.width == 1 else Part(v, j)
                    before.append(Instr("STL", (), [], [Addr(sp, off), w], line=t.line))
                    after.append(Instr("LDL", (), [w], [Addr(sp, off)], line=t.line))
                    off += 4
            elif v.rc == RC.P:
                held = fn.new_vreg(RC.R)
                back = fn.new_vreg(RC.R)
                before.append(Instr("SEL", (), [held], [RZ, Imm(1), Src(v, inv=True)]))
                before.append(Instr("STL", (), [], [Addr(sp, off), held], line=t.line))
                after.append(Instr("LDL", (), [back], [Addr(sp, off)], line=t.line))
                after.append(
                    Instr("ISETP", ("NE", "U32", "AND"), [v, PT], [back, RZ, PT], line=t.line)
                )
                off += 4
            elif v.rc == RC.UR:
                for j in range(v.width):
                    w = v if v.width == 1 else Part(v, j)
                    held = fn.new_vreg(RC.R)
                    back = fn.new_vreg(RC.R)
                    before.append(Instr("MOV", (), [held], [w], line=t.line))
                    before.append(Instr("STL", (), [], [Addr(sp, off), held], line=t.line))
                    after.append(Instr("LDL", (), [back], [Addr(sp, off)], line=t.line))
                    after.append(Instr("R2UR", (), [w], [back], line=t.line))
                    off += 4
            else:
                raise UnsupportedFeature(
                    f"a {v.rc.name} value live across a recursive call in '{owner}' is not "
                    "supported by openptxas yet"
                )
        b.instrs[-1:-1] = before
        stored[owner] = stored.get(owner, 0) + 4 * sum(1 for i in before if i.op == "STL")
        # after the copies of the callee's results (a restored value may share their register)
        k = 0
        res = set(results)
        while k < len(rb.instrs) and _reads_only(rb.instrs[k], res):
            k += 1
        rb.instrs[k:k] = after
        area[owner] = max(area.get(owner, 0), off - base)
    for owner, (_start, frame) in fn.frames.items():
        fn.sub_frames[owner] = (frame, 0)
    for owner, size in area.items():
        size = (size + 7) // 8 * 8
        fn.sub_frames[owner] = (fn.frames[owner][1] + size, stored.get(owner, 0))
        if not size:
            continue
        first = fn.blocks[idx[fn.frames[owner][0]]]
        first.instrs.insert(0, Instr("IADD3", (), [sp], [sp, Imm((-size) & 0xFFFFFFFF), RZ]))
        for i in members[owner]:
            b = fn.blocks[i]
            for k in range(len(b.instrs) - 1, -1, -1):
                ins = b.instrs[k]
                if ins.op == "RET":
                    pop = Instr("IADD3", (), [sp], [sp, Imm(size), RZ], line=ins.line)
                    if ins.guard is not None:
                        pop.guard = Guard(ins.guard.pred, ins.guard.inv)
                    b.instrs.insert(k, pop)


def _own_liveness(fn: Function, blocks: set[int]) -> dict[int, int]:
    """Live-in sets of one function's blocks over its own control flow (a call goes on at its
    return site): what an activation still needs, whatever its callees do."""
    gen: dict[int, int] = {}
    kill: dict[int, int] = {}
    succs: dict[int, list[int]] = {}
    for i in blocks:
        g = k = 0
        for ins in fn.blocks[i].instrs:
            g |= uses_mask(ins) & ~k
            k |= defs_mask(ins)[1]
        gen[i], kill[i] = g, k
        succs[i] = [j for j in successors(fn, i, over_calls=True) if j in blocks]
    live = dict.fromkeys(blocks, 0)
    changed = True
    while changed:
        changed = False
        for i in sorted(blocks, reverse=True):
            out = 0
            for j in succs[i]:
                out |= live[j]
            new = gen[i] | (out & ~kill[i])
            if new != live[i]:
                live[i] = new
                changed = True
    return live


def _reads_only(ins: Instr, ids: set[int]) -> bool:
    """Whether ``ins`` is a copy of one of the registers ``ids``."""
    if ins.op != "MOV" or ins.guard is not None or len(ins.srcs) != 1:
        return False
    s = ins.srcs[0]
    v = s.v if isinstance(s, Part) else s
    return isinstance(v, VReg) and v.id in ids
