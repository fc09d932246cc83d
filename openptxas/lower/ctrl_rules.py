"""Selection rules for control flow and warp-level instructions."""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, CBank, Imm, Label, Operand, Src
from openptxas.lower.context import LowerCtx
from openptxas.lower.rules import Rule, always
from openptxas.lower.warp_rules import warpsync
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType

T = PtxType


def bra(ins: ast.Instruction, c: LowerCtx) -> None:
    (target,) = ins.operands
    if not isinstance(target, ast.Label):
        raise c.unsupported("indirect branch")
    c.emit("BRA", (), [], [Label(target.name)])


def brx_idx(ins: ast.Instruction, c: LowerCtx) -> None:
    """``brx.idx i, table``: as ptxas, a table of code offsets in constant bank 2, read by the
    index and sign-extended to the 64-bit register pair ``BRX`` jumps through (codegen adds the
    offset of the instruction after the BRX as its immediate, so the pair holds the target's
    offset from the function start)."""
    idx, table = ins.operands
    if not isinstance(table, ast.Label) or table.name not in c.branch_targets:
        raise c.unsupported("brx.idx without a .branchtargets table")
    targets = c.branch_targets[table.name]
    base = 4 * sum(len(t) for t in c.fn.jump_tables)
    c.fn.jump_tables.append(targets)
    off = c.new(RC.R)
    c.emit("IMAD", ("SHL", "U32"), [off], [c.rvalue(idx, T.U32), Imm(4), RZ])
    pair = c.new(RC.R, 2)
    c.emit("LDC", (), [pair.lo], [CBank(2, base, off)])
    c.emit("SHF", ("R", "S32", "HI"), [pair.hi], [RZ, Imm(31), pair.lo])
    c.emit("BRX", (), [], [pair, *(Label(t) for t in targets)])


def ret(ins: ast.Instruction, c: LowerCtx) -> None:
    if not c.func.is_entry:
        from openptxas.lower.calls import emit_ret

        return emit_ret(c)
    c.emit("EXIT")


def exit_(ins: ast.Instruction, c: LowerCtx) -> None:
    c.emit("EXIT")


_SHFL = {"idx": "IDX", "up": "UP", "down": "DOWN", "bfly": "BFLY"}


def shfl(ins: ast.Instruction, c: LowerCtx) -> None:
    ops = ins.operands
    d = ops[0]
    mode = _SHFL.get(ins.op or "")
    if mode is None:
        raise c.unsupported(f"shfl mode {ins.op}")
    if isinstance(d, ast.Pair):
        rd: Operand = c.dst(d.first)
        pd: Operand = PT if isinstance(d.second, ast.Sink) else c.dst(d.second)
    else:
        rd, pd = c.dst(d), PT
    a, b, cc = ops[1], ops[2], ops[3]
    # The member mask names the lanes taking part: where the warp may be diverged ptxas 13.0
    # waits for them first (``WARPSYNC R`` before the SHFL in a divergent region); where it
    # cannot be, it emits the bare SHFL for any mask (InsertConvergenceBarriers drops the wait)
    if len(ops) > 4:
        warpsync(c, ops[4])
    # immediate lane (5 bits) and clamp (13 bits) fields: ptxas moves a wider constant into a
    # register (SHFL.BFLY PT, R5, R5, 0x2, R0; found by scripts/ptx_fuzz.py --full)
    vb, vc = c.value(b, T.U32), c.value(cc, T.U32)
    if isinstance(vb, Imm) and not 0 <= vb.value < (1 << 5):
        vb = c.materialize(vb.value & 0xFFFFFFFF, T.U32)
    if isinstance(vc, Imm) and not 0 <= vc.value < (1 << 13):
        vc = c.materialize(vc.value & 0xFFFFFFFF, T.U32)
    c.emit("SHFL", (mode,), [pd, rd], [c.rvalue(a, T.B32), vb, vc])


def vote(ins: ast.Instruction, c: LowerCtx) -> None:
    ops = ins.operands
    mode = ins.op
    if len(ops) > 2:
        warpsync(c, ops[2])  # (as for shfl)
    src = c.value(ops[1], T.PRED)
    if mode == "ballot":
        c.emit("VOTE", ("ANY",), [c.dst(ops[0]), PT], [src])
    elif mode in ("all", "uni") and c.target.lowering.vote_by_ballot:
        # sm_75: ptxas never writes VOTE.ALL/VOTE.EQ; it compares the ballot with the active
        # mask: all = (ballot & active) == active, uni = all or (ballot & active) == 0
        ballot, active, mine = c.new(RC.R), c.new(RC.R), c.new(RC.R)
        c.emit("VOTE", ("ANY",), [ballot, PT], [src])
        c.emit("VOTE", ("ANY",), [active, PT], [PT])
        c.emit("LOP3", ("LUT",), [mine], [ballot, active, RZ, Imm(0xC0), Src(PT, inv=True)])
        if mode == "all":
            c.emit("ISETP", ("EQ", "U32", "AND"), [c.dst(ops[0]), PT], [mine, active, PT])
        else:
            none = c.new(RC.P)
            c.emit("ISETP", ("EQ", "U32", "AND"), [none, PT], [mine, RZ, PT])
            c.emit("ISETP", ("EQ", "U32", "OR"), [c.dst(ops[0]), PT], [mine, active, none])
    elif mode in ("any", "all", "uni"):
        op = {"any": "ANY", "all": "ALL", "uni": "EQ"}[mode]
        scratch = c.new(RC.R)
        c.emit("VOTE", (op,), [scratch, c.dst(ops[0])], [src])
    else:
        raise c.unsupported(f"vote.{mode}")


def activemask(ins: ast.Instruction, c: LowerCtx) -> None:
    c.emit("VOTE", ("ANY",), [c.dst(ins.operands[0]), PT], [PT])


def griddepcontrol(ins: ast.Instruction, c: LowerCtx) -> None:
    """Programmatic dependent launch: ``.wait`` waits for the grids this one depends on
    (``ACQBULK``), ``.launch_dependents`` lets the dependent grid start (``PREEXIT``), as ptxas
    writes them; no result, so nothing is scheduled across either (sched/deps.py)."""
    c.emit("ACQBULK" if ins.has("wait") else "PREEXIT")


RULES: list[Rule] = [
    Rule("bra", "bra", always, bra, "bra $L__BB0_1;"),
    Rule("brx.idx", "brx.idx", always, brx_idx, "brx.idx %r1, $ts;"),
    Rule("ret", "ret", always, ret, "ret;"),
    Rule("exit", "exit", always, exit_, "exit;"),
    Rule("shfl", "shfl", always, shfl, "shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;"),
    Rule("vote", "vote", always, vote, "vote.sync.ballot.b32 %r1, %p1, -1;"),
    Rule("activemask", "activemask", always, activemask, "activemask.b32 %r1;"),
    Rule("griddepcontrol", "griddepcontrol", always, griddepcontrol, "griddepcontrol.wait;"),
]

_ = Imm
