"""Local memory: the function's stack frame, ``.local`` variables (nvcc's ``__local_depot``),
``ld/st.local`` and the conversions between local and generic addresses.

As ptxas 13.0.88 lays it out (observed with scripts/probe_local.py): the ``.local`` variables
of a function are placed in declaration order, each at its alignment, in one frame whose size
is rounded up to ``max(8, largest alignment)``; the stack pointer (the ABI's register, loaded
from bank 0 at entry) is lowered by the frame size once at entry, and the frame sits at
``[SP, SP + size)``. A local address is 32 bits: PTX computes with 64-bit ``%SPL`` values, of
which the accesses read the low word (the high word is 0). A generic address of a local is
``local + c[0x0][cb_local_window]`` (64-bit), as ``cvta.local`` computes it.
"""

from __future__ import annotations

from collections.abc import Sequence

from openptxas.ir.core import PT, RC, RZ, CBank, Imm, Src, VReg
from openptxas.lower.context import LowerCtx
from openptxas.lower.int_rules import half
from openptxas.lower.rules import Rule, both, has
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, StateSpace

T = PtxType


def frame_layout(decls: Sequence[ast.VarDecl | ast.Param]) -> tuple[dict[str, int], int]:
    """Offsets of the function's ``.local`` variables (and of the parameters it keeps in its
    frame, first) in its frame, and the frame size."""
    offsets: dict[str, int] = {}
    off = 0
    align = 8
    for v in decls:
        a = max(1, v.alignment)
        off = (off + a - 1) // a * a
        offsets[v.name] = off
        off += v.size
        align = max(align, a)
    return offsets, (off + align - 1) // align * align


def adjust_stack(c: LowerCtx, frame: int) -> None:
    """Lower the stack pointer by the frame size (the entry block, after its load)."""
    if frame:
        c.emit("IADD3", (), [c.sp], [c.sp, Imm((-frame) & 0xFFFFFFFF), RZ])


def local_sym_addr(c: LowerCtx, dst: VReg, name: str, offset: int) -> None:
    """``mov dst, local_var(+offset)``: its local address (a 64-bit destination gets 0 above)."""
    lo = dst.lo if dst.width == 2 else dst
    off = c.locals[name] + offset
    if off:
        c.emit("IADD3", (), [lo], [c.sp, Imm(off & 0xFFFFFFFF), RZ])
    else:
        c.emit("MOV", (), [lo], [c.sp])
    if dst.width == 2:
        c.emit("MOV", (), [dst.hi], [RZ])


def _window(c: LowerCtx) -> VReg:
    w = c.new(RC.UR, 2)
    c.emit("ULDC", ("64",), [w], [CBank(0, c.target.abi.cb_local_window)])
    return w


def cvta_local(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cvta.local.u64 d, a``: the generic address of local address ``a``."""
    d, a = ins.operands
    dv = c.dst(d)
    src = c.rvalue(a, T.U64 if dv.width == 2 else T.U32)
    w = _window(c)
    if dv.width != 2:
        raise c.unsupported("cvta.local to a 32-bit generic address")
    carry = c.new(RC.P)
    c.emit("IADD3", (), [dv.lo, carry], [half(src, 0), w.part(0), RZ])
    c.emit("IADD3", ("X",), [dv.hi], [RZ, w.part(1), RZ, carry, Src(PT, inv=True)])


def cvta_to_local(ins: ast.Instruction, c: LowerCtx) -> None:
    """``cvta.to.local.u64 d, a``: the local address of generic address ``a`` (low word)."""
    d, a = ins.operands
    dv = c.dst(d)
    src = c.rvalue(a, T.U64)
    w = _window(c)
    lo = dv.lo if dv.width == 2 else dv
    c.emit("IADD3", (), [lo], [half(src, 0), Src(w.part(0), neg=True), RZ])
    if dv.width == 2:
        c.emit("MOV", (), [dv.hi], [RZ])


RULES: list[Rule] = [
    Rule(
        "cvta.to.local",
        "cvta",
        both(has("to"), lambda i: i.space is StateSpace.LOCAL),
        cvta_to_local,
        "cvta.to.local.u64 %rd1, %rd2;",
    ),
    Rule(
        "cvta.local",
        "cvta",
        lambda i: i.space is StateSpace.LOCAL and not i.has("to"),
        cvta_local,
        "cvta.local.u64 %rd1, %rd2;",
    ),
]
