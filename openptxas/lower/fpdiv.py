"""IEEE f32/f64 division, reciprocal and square root, and their approximations, as ptxas 13.0
computes them on sm_90 (observed with scripts/probe_fpdiv.py).

The IEEE forms are a fast path inline (a MUFU seed refined with FFMA) and a slow path that
handles what the fast path cannot (FCHK, or an exponent range test, picks it). ptxas makes the
slow path a subroutine (``CALL.REL.NOINC $__internal_N_$__cuda_sm3x_div_rn_noftz_f32_slowpath``,
``RET.REL.NODEC``); openptxas places the same computation in cold blocks after the function's
code, reached by a branch and branching back (one copy per instruction, not shared). The
sequences are written as IR text (lower/fpseq.py), instruction for instruction as ptxas's, with
two spellings changed where the IR lacks the form: ``@!P1 BRA !P2`` is a PLOP3 and a branch.
"""

from __future__ import annotations

from collections.abc import Callable

from openptxas.ir.core import RC, RegLike
from openptxas.lower.context import LowerCtx
from openptxas.lower.fpseq import expand
from openptxas.lower.fpslow import NAMES, expand_shared
from openptxas.lower.rules import Rule, both, types
from openptxas.ptx import ast
from openptxas.ptx.types import PtxType, Rounding

T = PtxType
INF = "f32:0x7f800000"
TWO64 = "f32:0x5f800000"  # 2^64

# ---------------------------------------------------------------------------------- div.rn.f32

DIV_RN_FAST = """
$r = MUFU.RCP $b
$p_slow = FCHK $a, $b
$t = FFMA -$b, $r, f32:0x3f800000
$t = FFMA $r, $t, $r
$r = FFMA $a, $t, RZ
$e = FFMA -$b, $r, $a
$q = FFMA $t, $e, $r
@$p_slow BRA `(slow)
"""

# $__cuda_sm3x_div_rn_noftz_f32_slowpath: a in $a, b in $b, the quotient in $q
DIV_RN_SLOW = """
.cold
slow:
$t4 = SHF.R.U32.HI RZ, 0x17, $b
$q = MOV $a
$t3 = SHF.R.U32.HI RZ, 0x17, $a
$eb = LOP3.LUT $t4, 0xff, RZ, 0xc0, !PT
$ea = LOP3.LUT $t3, 0xff, RZ, 0xc0, !PT
$eb1 = IADD3 $eb, -0x1, RZ
$ea1 = IADD3 $ea, -0x1, RZ
$p0, PT = ISETP.GT.U32.AND $eb1, 0xfd, PT
$p0, PT = ISETP.GT.U32.OR $ea1, 0xfd, $p0
@!$p0 $adj = MOV RZ
$bb = MOV $b
@!$p0 BRA `(scaled)
special:
$p0, PT = FSETP.GTU.FTZ.AND |$a|, f32:0x7f800000, PT
$bc = MOV $b
$p1, PT = FSETP.GTU.FTZ.AND |$b|, f32:0x7f800000, PT
$p0, PT = PLOP3.LUT $p0, $p1, PT, 0xa8, 0x0
@$p0 BRA `(nan_in)
special2:
$p0, RZ = LOP3.LUT $b, 0x7fffffff, $q, 0xc8, !PT
@!$p0 BRA `(nan_out)
special3:
$p2, PT = FSETP.NEU.FTZ.AND |$a|, f32:0x7f800000, PT
$p1, PT = FSETP.NEU.FTZ.AND |$bc|, f32:0x7f800000, PT
$p0, PT = FSETP.NEU.FTZ.AND |$a|, f32:0x7f800000, PT
$p3, PT = PLOP3.LUT $p1, $p2, PT, 0x3, 0x0
@$p3 BRA `(nan_out)
special4:
$p2, RZ = LOP3.LUT $q, 0x7fffffff, RZ, 0xc0, !PT
$p1, PT = PLOP3.LUT $p1, $p2, PT, 0x2a, 0x0
@$p1 BRA `(zero)
special5:
$p1, RZ = LOP3.LUT $b, 0x7fffffff, RZ, 0xc0, !PT
$p0, PT = PLOP3.LUT $p0, $p1, PT, 0x2a, 0x0
@$p0 BRA `(inf)
denormal:
$p0, PT = ISETP.GE.AND $ea1, RZ, PT
$p1, PT = ISETP.GE.AND $eb1, RZ, PT
@$p0 $adj = MOV RZ
@!$p0 $q = FFMA $a, f32:0x5f800000, RZ
@!$p0 $adj = MOV -0x40
@!$p1 $bb = FFMA $bc, f32:0x5f800000, RZ
@!$p1 $adj = IADD3 $adj, 0x40, RZ
scaled:
$s = SHF.L.U32 $eb, 0x17, RZ
$s = IADD3 $s, -0x3f800000, RZ
$ea = IADD3 $ea, -0x7f, RZ
$bm = IADD3 $bb, -$s, RZ
$am = IMAD $ea, -0x800000, $q
$r = MUFU.RCP $bm
$nb = FADD.FTZ -$bm, -RZ
$t10 = FFMA $r, $nb, f32:0x3f800000
$t12 = FFMA $r, $t10, $r
$r = FFMA $am, $t12, RZ
$t10 = FFMA $nb, $r, $am
$t11 = FFMA $t12, $t10, $r
$ex = IADD3 $ea, 0x7f, -$eb
$t10 = FFMA $nb, $t11, $am
$ex = IADD3 $ex, $adj, RZ
$q = FFMA $t12, $t10, $t11
$e0 = SHF.R.U32.HI RZ, 0x17, $q
$e0 = LOP3.LUT $e0, 0xff, RZ, 0xc0, !PT
$e6 = IADD3 $e0, $ex, RZ
$e0 = IADD3 $e6, -0x1, RZ
$p0, PT = ISETP.GE.U32.AND $e0, 0xfe, PT
@!$p0 BRA `(in_range)
range2:
$p0, PT = ISETP.GT.AND $e6, 0xfe, PT
@$p0 BRA `(overflow)
range3:
$p0, PT = ISETP.GE.AND $e6, 0x1, PT
@$p0 BRA `(done)
range4:
$p0, PT = ISETP.GE.AND $e6, -0x18, PT
$q = LOP3.LUT $q, 0x80000000, RZ, 0xc0, !PT
@!$p0 BRA `(done)
subnormal:
$z = FFMA.RZ $t12, $t10, $t11
$sh = IADD3 $e6, 0x20, RZ
$m = FFMA.RM $t12, $t10, $t11
$p2, PT = ISETP.NE.AND $e6, RZ, PT
$mant = LOP3.LUT $z, 0x7fffff, RZ, 0xc0, !PT
$z = FFMA.RP $t12, $t10, $t11
$p1, PT = ISETP.NE.AND $e6, RZ, PT
$ne = IADD3 RZ, -$e6, RZ
$mant = LOP3.LUT $mant, 0x800000, RZ, 0xfc, !PT
$p0, PT = FSETP.NEU.FTZ.AND $z, $m, PT
$lost = SHF.L.U32 $mant, $sh, RZ
$rs = SEL $ne, RZ, $p2
$p1, PT = ISETP.NE.AND $lost, RZ, $p1
$rs = SHF.R.U32.HI RZ, $rs, $mant
$p0, PT = PLOP3.LUT $p0, $p1, PT, 0xa8, 0x0
$half = SHF.R.U32.HI RZ, 0x1, $rs
$rb = SEL RZ, 0x1, !$p0
$rb = LOP3.LUT $rb, 0x1, $half, 0xf8, !PT
$rb = LOP3.LUT $rb, $rs, RZ, 0xc0, !PT
$rb = IADD3 $half, $rb, RZ
$q = LOP3.LUT $rb, $q, RZ, 0xfc, !PT
BRA `(done)
overflow:
$q = LOP3.LUT $q, 0x80000000, RZ, 0xc0, !PT
$q = LOP3.LUT $q, 0x7f800000, RZ, 0xfc, !PT
BRA `(done)
in_range:
$q = IMAD $ex, 0x800000, $q
BRA `(done)
inf:
$q = LOP3.LUT $b, 0x80000000, $q, 0x48, !PT
$q = LOP3.LUT $q, 0x7f800000, RZ, 0xfc, !PT
BRA `(done)
zero:
$q = LOP3.LUT $b, 0x80000000, $q, 0x48, !PT
BRA `(done)
nan_out:
$q = MUFU.RSQ f32:0xffffffff
BRA `(done)
nan_in:
$q = FADD.FTZ $a, $bc
done:
BRA `(join)
.hot
join:
"""

# $__cuda_sm3x_div_rn_ftz_f32_slowpath: subnormal operands are zeros, the quotient is flushed
DIV_RN_FTZ_SLOW = """
.cold
slow:
$t4 = SHF.R.U32.HI RZ, 0x17, $b
$t3 = SHF.R.U32.HI RZ, 0x17, $a
$eb = LOP3.LUT $t4, 0xff, RZ, 0xc0, !PT
$ea = LOP3.LUT $t3, 0xff, RZ, 0xc0, !PT
$eb1 = IADD3 $eb, -0x1, RZ
$ea1 = IADD3 $ea, -0x1, RZ
$p0, PT = ISETP.GT.U32.AND $eb1, 0xfd, PT
$p0, PT = ISETP.GT.U32.OR $ea1, 0xfd, $p0
@!$p0 BRA `(scaled)
special:
$p0, PT = FSETP.GTU.FTZ.AND |$a|, f32:0x7f800000, PT
$p1, PT = FSETP.GTU.FTZ.AND |$b|, f32:0x7f800000, PT
$p0, PT = PLOP3.LUT $p0, $p1, PT, 0xa8, 0x0
@$p0 BRA `(nan_in)
special2:
$p2, PT = FSETP.NEU.FTZ.AND $a, RZ, PT
$p0, PT = FSETP.NEU.FTZ.AND $b, RZ, PT
$p1, PT = FSETP.NEU.FTZ.AND $a, RZ, PT
$p5, PT = PLOP3.LUT $p0, $p2, PT, 0x3, 0x0
@$p5 BRA `(nan_out)
special3:
$p4, PT = FSETP.NEU.FTZ.AND |$a|, f32:0x7f800000, PT
$p3, PT = FSETP.NEU.FTZ.AND |$b|, f32:0x7f800000, PT
$p2, PT = FSETP.NEU.FTZ.AND |$a|, f32:0x7f800000, PT
$p5, PT = PLOP3.LUT $p3, $p4, PT, 0x3, 0x0
@$p5 BRA `(nan_out)
special4:
$p1, PT = PLOP3.LUT $p3, $p1, PT, 0x2a, 0x0
@$p1 BRA `(zero)
special5:
$p2, PT = PLOP3.LUT $p2, $p0, PT, 0x2a, 0x0
@$p2 BRA `(inf)
scaled:
$eb = IADD3 $eb, -0x7f, RZ
$ea = IADD3 $ea, -0x7f, RZ
$bm = IMAD $eb, -0x800000, $b
$am = IMAD $ea, -0x800000, $a
$r = MUFU.RCP $bm
$nb = FADD.FTZ -$bm, -RZ
$ex = IADD3 $ea, -$eb, RZ
$t9 = FFMA $r, $nb, f32:0x3f800000
$t9 = FFMA $r, $t9, $r
$r = FFMA $am, $t9, RZ
$t8 = FFMA $nb, $r, $am
$t11 = FFMA $t9, $t8, $r
$am = FFMA $nb, $t11, $am
$q = FFMA.FTZ $t9, $am, $t11
$e5 = SHF.R.U32.HI RZ, 0x17, $q
$e5 = LOP3.LUT $e5, 0xff, RZ, 0xc0, !PT
$e5 = IADD3 $e5, $ex, RZ
$e4 = IADD3 $e5, -0x1, RZ
$p0, PT = ISETP.GE.U32.AND $e4, 0xfe, PT
@!$p0 BRA `(in_range)
range2:
$p0, PT = ISETP.GT.AND $e5, 0xfe, PT
$sg = LOP3.LUT $q, 0x80000000, RZ, 0xc0, !PT
$p1, PT = ISETP.GE.AND $e5, 0x1, PT
@!$p0 $q = SEL $sg, $q, !$p1
@$p0 $q = LOP3.LUT $sg, 0x7f800000, RZ, 0xfc, !PT
BRA `(done)
in_range:
$q = IMAD $ex, 0x800000, $q
BRA `(done)
inf:
$q = LOP3.LUT $b, 0x80000000, $a, 0x48, !PT
$q = LOP3.LUT $q, 0x7f800000, RZ, 0xfc, !PT
BRA `(done)
zero:
$q = LOP3.LUT $b, 0x80000000, $a, 0x48, !PT
BRA `(done)
nan_out:
$q = MUFU.RSQ f32:0xffffffff
BRA `(done)
nan_in:
$q = FADD.FTZ $a, $b
done:
BRA `(join)
.hot
join:
"""


def _operand(c: LowerCtx, op: ast.Operand, t: PtxType) -> RegLike:
    return c.rvalue(op, t)


# ---------------------------------------------------------------------------------- approx f32

# The approximations: MUFU, with subnormal operands scaled into the normal range first unless
# .ftz (and the quotient's divisor kept below 2^126 for div.full).
DIV_FULL = """
$p0, PT = FSETP.GT.AND |$b|, f32:0x7e800000, PT
$p1, PT = FSETP.GEU.AND |$b|, f32:0x800000, PT
$bb = MOV $b
$aa = MOV $a
@$p0 $bb = FMUL $bb, f32:0x3e800000
@$p0 $aa = FMUL $aa, f32:0x3e800000
@!$p1 $bb = FMUL $bb, f32:0x4b800000
@!$p1 $aa = FMUL $aa, f32:0x4b800000
$r = MUFU.RCP $bb
$q = FMUL $r, $aa ; contract
"""
DIV_FULL_FTZ = """
$p0, PT = FSETP.GT.FTZ.AND |$b|, f32:0x7e800000, PT
$bb = MOV $b
$aa = MOV $a
@$p0 $bb = FMUL.FTZ $bb, f32:0x3e800000
@$p0 $aa = FMUL.FTZ $aa, f32:0x3e800000
$r = MUFU.RCP $bb
$q = FMUL.FTZ $r, $aa ; contract
"""
DIV_APPROX = """
$p0, PT = FSETP.GEU.AND |$b|, f32:0x800000, PT
$bb = MOV $b
$aa = MOV $a
@!$p0 $bb = FMUL $bb, f32:0x4b800000
@!$p0 $aa = FMUL $aa, f32:0x4b800000
$r = MUFU.RCP $bb
$q = FMUL $r, $aa ; contract
"""
DIV_APPROX_FTZ = """
$r = MUFU.RCP $b
$q = FMUL.FTZ $a, $r ; contract
"""
RCP_APPROX = """
$k = MOV 0x4b800000
$p1, PT = FSETP.GEU.AND |$a|, f32:0x800000, PT
$p0, PT = FSETP.GT.AND |$a|, f32:0x7e800000, PT
$k = FSEL $k, f32:0x3f800000, !$p1
$s = FSEL $k, f32:0x3e800000, !$p0
$x = FMUL $a, $s
$x = MUFU.RCP $x
$q = FMUL $s, $x ; contract
"""
RCP_APPROX_FTZ = """
$q = MUFU.RCP $a
"""
SQRT_APPROX = """
$p0, PT = FSETP.GEU.AND |$a|, f32:0x800000, PT
$x = MOV $a
@!$p0 $x = FMUL $x, f32:0x4b800000
$q = MUFU.SQRT $x
@!$p0 $q = FMUL $q, f32:0x39800000
"""
SQRT_APPROX_FTZ = """
$q = MUFU.SQRT $a
"""
RSQRT_APPROX = """
$p0, PT = FSETP.GEU.AND |$a|, f32:0x800000, PT
$x = MOV $a
@!$p0 $x = FMUL $x, f32:0x4b800000
$q = MUFU.RSQ $x
@!$p0 $q = FMUL $q, f32:0x45800000
"""
RSQRT_APPROX_FTZ = """
$q = MUFU.RSQ $a
"""


def _seq(text: str, text_ftz: str) -> Callable[[ast.Instruction, LowerCtx], None]:
    """The lowering of an instruction as one sequence (``text_ftz`` with .ftz): ``$a`` (``$b``)
    the sources, the result in ``$q``."""

    def emit(ins: ast.Instruction, c: LowerCtx) -> None:
        d, *srcs = ins.operands
        t = T.F64 if ins.type is T.F64 else T.F32
        bound: dict[str, RegLike] = {
            n: _operand(c, op, t) for n, op in zip("ab"[: len(srcs)], srcs, strict=True)
        }
        if t is T.F64:
            bound = {"D" + n: r for n, r in bound.items()}
        # the result straight into the destination, unless that is also a source (the sequence
        # writes it before it has read the sources for the last time); a copy would keep the
        # contraction pass from fusing a last multiply into the add that reads the result
        names = {s.name for s in srcs if isinstance(s, ast.Reg)}
        direct = isinstance(d, ast.Reg) and not d.comp and d.name not in names
        # predicated: computed for every thread into a temporary, then a guarded copy (ptxas:
        # the same sequence and an FSEL)
        direct = direct and ins.guard is None
        q = c.dst(d) if direct else c.new(RC.R, 2 if t is T.F64 else 1)
        bound["Dq" if t is T.F64 else "q"] = q
        seq = text_ftz if ins.has("ftz") else text
        name = NAMES.get(_form(ins))
        if name is None or ".cold" not in seq or not expand_shared(c, seq, bound, name):
            expand(c, seq, bound)
        if not direct:
            if ins.guard is not None:
                c.guard_tail = (c.block, len(c.block.instrs)) if c.block is not None else None
            dv = c.dst(d)
            if t is T.F64:  # word by word (a MOV of a pair copied its low word only)
                c.emit("MOV", (), [dv.lo], [q.part(0)])
                c.emit("MOV", (), [dv.hi], [q.part(1)])
            else:
                c.emit("MOV", (), [dv], [q])

    return emit


def _form(ins: ast.Instruction) -> str:
    """``div.rn.ftz.f32``, ``rsqrt.approx.f64``: the key of lower/fpslow.py's NAMES."""
    mode = ins.rnd.value if ins.rnd is not None else "approx" if ins.has("approx") else ""
    t = "f64" if ins.type is T.F64 else "f32"
    return ".".join(x for x in (ins.opcode, mode, "ftz" if ins.has("ftz") else "", t) if x)


def _approx(i: ast.Instruction) -> bool:
    return i.has("approx")


def _full(i: ast.Instruction) -> bool:
    return i.has("full")


RULES_APPROX = [
    Rule("div.full.f32", "div", both(types(T.F32), _full), _seq(DIV_FULL, DIV_FULL_FTZ),
         "div.full.f32 %f1, %f2, %f3;"),
    Rule("div.approx.f32", "div", both(types(T.F32), _approx), _seq(DIV_APPROX, DIV_APPROX_FTZ),
         "div.approx.ftz.f32 %f1, %f2, %f3;"),
    Rule("rcp.approx.f32", "rcp", both(types(T.F32), _approx), _seq(RCP_APPROX, RCP_APPROX_FTZ),
         "rcp.approx.f32 %f1, %f2;"),
    Rule("sqrt.approx.f32", "sqrt", both(types(T.F32), _approx),
         _seq(SQRT_APPROX, SQRT_APPROX_FTZ), "sqrt.approx.f32 %f1, %f2;"),
    Rule("rsqrt.approx.f32", "rsqrt", both(types(T.F32), _approx),
         _seq(RSQRT_APPROX, RSQRT_APPROX_FTZ), "rsqrt.approx.ftz.f32 %f1, %f2;"),
]  # fmt: skip

# ---------------------------------------------------------------------------- rcp.rn, sqrt.rn f32

# exponent outside [-125, 125] (or 0, inf, NaN, subnormal): $__cuda_sm20_rcp_rn_f32_slowpath
RCP_RN_FAST = """
$t = IADD3 $a, 0x1800000, RZ
$t = LOP3.LUT $t, 0x7f800000, RZ, 0xc0, !PT
$p_fast, PT = ISETP.GT.U32.AND $t, 0x1ffffff, PT
@!$p_fast BRA `(slow)
fast:
$y = MUFU.RCP $a
$z = FFMA $a, $y, f32:0xbf800000
$z = FADD.FTZ -$z, -RZ
$q = FFMA $y, $z, $y
"""
RCP_RN_SLOW = """
.cold
slow:
$t = SHF.L.U32 $a, 0x1, RZ
$e = SHF.R.U32.HI RZ, 0x18, $t
$p0, PT = ISETP.NE.U32.AND $e, RZ, PT
@$p0 BRA `(norm)
zero_or_sub:
$t2 = SHF.L.U32 $a, 0x1, RZ
$p0, PT = ISETP.NE.AND $t2, RZ, PT
@!$p0 $r = MUFU.RCP $a
@!$p0 BRA `(done)
sub:
$x = FFMA $a, f32:0x5f800000, RZ
$y = MUFU.RCP $x
$z = FFMA $x, $y, f32:0xbf800000
$z = FADD.FTZ -$z, -RZ
$z = FFMA $y, $z, $y
$r = FFMA $z, f32:0x5f800000, RZ
BRA `(done)
norm:
$e4 = IADD3 $e, -0xfd, RZ
$p0, PT = ISETP.GT.U32.AND $e4, 0x1, PT
@$p0 BRA `(big)
mid:
$m = LOP3.LUT $a, 0x7fffff, RZ, 0xc0, !PT
$three = MOV 0x3
$m = LOP3.LUT $m, 0x3f800000, RZ, 0xfc, !PT
$msk = SHF.L.U32 $three, $e4, RZ
$y = MUFU.RCP $m
$z = FFMA $m, $y, f32:0xbf800000
$z = FADD.FTZ -$z, -RZ
$lo = FFMA.RM $y, $z, $y
$hi = FFMA.RP $y, $z, $y
$mm = LOP3.LUT $lo, 0x7fffff, RZ, 0xc0, !PT
$p0, PT = FSETP.NEU.FTZ.AND $lo, $hi, PT
$mf = LOP3.LUT $mm, 0x800000, RZ, 0xfc, !PT
$s = SEL RZ, 0xffffffff, !$p0
$w = LOP3.LUT $msk, $mf, RZ, 0xc0, !PT
$s = IADD3 RZ, -$s, RZ
$w = SHF.R.U32.HI RZ, $e4, $w
$p1, RZ = LOP3.LUT $s, $e4, $mf, 0xf8, !PT
$p0, RZ = LOP3.LUT $w, 0x1, RZ, 0xc0, !PT
$p2, RZ = LOP3.LUT $w, 0x2, RZ, 0xc0, !PT
$p0, PT = PLOP3.LUT $p0, $p1, $p2, 0xe0, 0x0
$p1, RZ = LOP3.LUT $a, 0x7fffff, RZ, 0xc0, !PT
$one = SEL RZ, 0x1, !$p0
$one = IADD3 RZ, -$one, RZ
$p0, PT = ISETP.GE.AND $one, RZ, PT
$sh = IADD3 $e, -0xfc, RZ
$r = SHF.R.U32.HI RZ, $sh, $mf
@!$p0 $r = IADD3 $r, 0x1, RZ
@!$p1 $r = SHF.L.U32 $r, 0x1, RZ
$r = LOP3.LUT $r, 0x80000000, $a, 0xf8, !PT
BRA `(done)
big:
$r = MUFU.RCP $a
done:
$q = MOV $r
BRA `(join)
.hot
join:
"""
# $__cuda_sm20_rcp_rn_ftz_f32_slowpath
RCP_RN_FTZ_SLOW = """
.cold
slow:
$e = IADD3 $a, 0x1800000, RZ
$e = LOP3.LUT $e, 0x7f800000, RZ, 0xc0, !PT
$p0, PT = ISETP.NE.U32.AND $e, 0x1800000, PT
@!$p0 $r = MUFU.RCP $a
@!$p0 BRA `(done)
s2:
$p1, PT = ISETP.EQ.U32.AND $e, 0x800000, PT
$p0, PT = ISETP.NE.U32.AND $e, RZ, PT
$m = SEL RZ, 0xffffffff, !$p1
$o = SEL RZ, 0x1, $p0
$m = IADD3 RZ, -$m, RZ
$p0, RZ = LOP3.LUT $o, $m, RZ, 0xfc, !PT
@!$p0 BRA `(big)
s3:
$f = LOP3.LUT $a, 0x7fffff, RZ, 0xc0, !PT
$sg = LOP3.LUT $a, 0x80000000, RZ, 0xc0, !PT
$p0, PT = ISETP.EQ.U32.AND $f, RZ, PT
$f = SEL RZ, 0xffffffff, !$p0
$f = IADD3 RZ, -$f, RZ
$p0, RZ = LOP3.LUT $o, $f, RZ, 0xc0, !PT
$r = MOV $sg
@$p0 $r = LOP3.LUT $sg, 0x800000, RZ, 0xfc, !PT
BRA `(done)
big:
$r = MUFU.RCP $a
done:
$q = MOV $r
BRA `(join)
.hot
join:
"""
# a NaN, zero, negative or of exponent outside [-101, 127): $__cuda_sm20_sqrt_rn_f32_slowpath
SQRT_RN_FAST = """
$t = IADD3 $a, -0xd000000, RZ
$y = MUFU.RSQ $a
$p_slow, PT = ISETP.GT.U32.AND $t, 0x727fffff, PT
@$p_slow BRA `(slow)
fast:
$s = FMUL.FTZ $a, $y
$h = FMUL.FTZ $y, f32:0x3f000000
$e = FFMA -$s, $s, $a
$q = FFMA $e, $h, $s
"""
SQRT_RN_SLOW = """
.cold
slow:
$p0, RZ = LOP3.LUT $a, 0x7fffffff, RZ, 0xc0, !PT
@!$p0 $q = MOV $a
@!$p0 BRA `(done)
SQRT_RN_SLOW_TAIL
"""
SQRT_RN_FTZ_SLOW = """
.cold
slow:
$p0, PT = FSETP.NEU.FTZ.AND $a, RZ, PT
@!$p0 $q = FMUL.FTZ $a, f32:0x3f800000
@!$p0 BRA `(done)
SQRT_RN_SLOW_TAIL
"""
SQRT_RN_SLOW_TAIL = """
s2:
$p0, PT = FSETP.GEU.FTZ.AND $a, RZ, PT
@!$p0 $q = MOV 0x7fffffff
@!$p0 BRA `(done)
s3:
$p0, PT = FSETP.GTU.FTZ.AND |$a|, f32:0x7f800000, PT
@$p0 $q = FADD.FTZ $a, f32:0x3f800000
@$p0 BRA `(done)
s4:
$p0, PT = FSETP.NEU.FTZ.AND |$a|, f32:0x7f800000, PT
@!$p0 $q = MOV $a
@!$p0 BRA `(done)
s5:
SCALE
$y2 = MUFU.RSQ $x
$s = FMUL.FTZ $x, $y2
$h = FMUL.FTZ $y2, f32:0x3f000000
$n = FADD.FTZ -$s, -RZ
$n = FFMA $s, $n, $x
$n = FFMA $n, $h, $s
$q = FMUL.FTZ $n, f32:0x2f800000
done:
BRA `(join)
.hot
join:
"""
SQRT_RN = SQRT_RN_FAST + SQRT_RN_SLOW.replace(
    "SQRT_RN_SLOW_TAIL", SQRT_RN_SLOW_TAIL.replace("SCALE", "$x = FFMA $a, f32:0x5f800000, RZ")
)
SQRT_RN_FTZ = SQRT_RN_FAST + SQRT_RN_FTZ_SLOW.replace(
    "SQRT_RN_SLOW_TAIL", SQRT_RN_SLOW_TAIL.replace("SCALE", "$x = FMUL.FTZ $a, f32:0x5f800000")
)


def _rn(i: ast.Instruction) -> bool:
    return i.rnd is Rounding.RN


RULES_RN = [
    Rule("rcp.rn.f32", "rcp", both(types(T.F32), _rn),
         _seq(RCP_RN_FAST + RCP_RN_SLOW, RCP_RN_FAST + RCP_RN_FTZ_SLOW), "rcp.rn.f32 %f1, %f2;"),
    Rule("sqrt.rn.f32", "sqrt", both(types(T.F32), _rn), _seq(SQRT_RN, SQRT_RN_FTZ),
         "sqrt.rn.ftz.f32 %f1, %f2;"),
]  # fmt: skip

# ---------------------------------------------------------------------------------- div.rn.f64

# 2^-1022 as an f32 compared with a high word: 0x00100000; 2^-120: 0x03600000
DIV_RN_F64_FAST = """
$Dr.0 = MOV 0x1
$Dr.1 = MUFU.RCP64H $Db.1
$p1, PT = FSETP.GEU.AND |$Da.1|, f32:0x3600000, PT
$Dt = DFMA -$Db, $Dr, f64:0x3ff0000000000000
$Dt = DFMA $Dt, $Dt, $Dt
$Dt = DFMA $Dr, $Dt, $Dr
$Dr = DFMA -$Db, $Dt, f64:0x3ff0000000000000
$Dr = DFMA $Dt, $Dr, $Dt
$Dm = DMUL $Da, $Dr
$De = DFMA -$Db, $Dm, $Da
$Dq = DFMA $Dr, $De, $Dm
$x = FFMA RZ, $Db.1, $Dq.1
$p0, PT = FSETP.GT.AND |$x|, f32:0x100000, PT
$p_fast, PT = PLOP3.LUT $p0, $p1, PT, 0x80, 0x0
@!$p_fast BRA `(slow)
"""
# $__cuda_sm20_div_rn_f64_full: a in $Da, b in $Db, the quotient in $Dq
DIV_RN_F64_SLOW = """
.cold
slow:
$p0, PT = FSETP.GEU.AND |$Db.1|, f32:0x100000, PT
$Dy.0 = MOV 0x1
$t2 = LOP3.LUT $Db.1, 0x800fffff, RZ, 0xc0, !PT
$c13 = MOV 0x1ca00000
$eb = LOP3.LUT $Db.1, 0x7ff00000, RZ, 0xc0, !PT
$Dbs.1 = LOP3.LUT $t2, 0x3ff00000, RZ, 0xfc, !PT
$Dbs.0 = MOV $Db.0
$ea = LOP3.LUT $Da.1, 0x7ff00000, RZ, 0xc0, !PT
$p1, PT = ISETP.GE.U32.AND $ea, $eb, PT
@!$p0 $Dbs = DMUL $Db, f64:0x7fe0000000000000
$e19 = MOV $ea
$Dy.1 = MUFU.RCP64H $Dbs.1
$Dr = DFMA $Dy, -$Dbs, f64:0x3ff0000000000000
$Dr = DFMA $Dr, $Dr, $Dr
$Dr = DFMA $Dy, $Dr, $Dy
$Das.1 = SEL $c13, 0x63400000, !$p1
$Das.0 = MOV $Da.0
$p1, PT = FSETP.GEU.AND |$Da.1|, f32:0x100000, PT
$Das.1 = LOP3.LUT $Das.1, 0x800fffff, $Da.1, 0xf8, !PT
$Dt = DFMA $Dr, -$Dbs, f64:0x3ff0000000000000
$Dr = DFMA $Dr, $Dt, $Dr
@$p1 BRA `(l1)
tiny_a:
$t15 = LOP3.LUT $Db.1, 0x7ff00000, RZ, 0xc0, !PT
$Dk.0 = MOV RZ
$p1, PT = ISETP.GE.U32.AND $ea, $t15, PT
$t15 = SEL $c13, 0x63400000, !$p1
$t15 = LOP3.LUT $t15, 0x80000000, $Da.1, 0xf8, !PT
$Dk.1 = LOP3.LUT $t15, 0x100000, RZ, 0xfc, !PT
$Das = DFMA $Das, f64:0x4000000000000000, -$Dk
$e19 = LOP3.LUT $Das.1, 0x7ff00000, RZ, 0xc0, !PT
l1:
$e18 = MOV $eb
@!$p0 $e18 = LOP3.LUT $Dbs.1, 0x7ff00000, RZ, 0xc0, !PT
$e20 = IADD3 $e19, -0x1, RZ
$Dm = DMUL $Dr, $Das
$e21 = IADD3 $e18, -0x1, RZ
$p0, PT = ISETP.GT.U32.AND $e20, 0x7feffffe, PT
$p0, PT = ISETP.GT.U32.OR $e21, 0x7feffffe, $p0
$De = DFMA $Dm, -$Dbs, $Das
$Dr = DFMA $Dr, $De, $Dm
@$p0 BRA `(special)
in_range:
$e5 = LOP3.LUT $Db.1, 0x7ff00000, RZ, 0xc0, !PT
$d4 = IADD3 $ea, -$e5, RZ
$d4 = VIMNMX $d4, -0x46a00000, !PT
$p0, PT = ISETP.GE.U32.AND $ea, $e5, PT
$d4 = VIMNMX $d4, 0x46a00000, PT
$c13 = SEL $c13, 0x63400000, !$p0
$d14 = IADD3 $d4, -$c13, RZ
$Ds.0 = MOV RZ
$Ds.1 = IADD3 $d14, 0x7fe00000, RZ
$Dq = DMUL $Dr, $Ds
$p0, PT = FSETP.GTU.AND |$Dq.1|, f32:0x100000, PT
@$p0 BRA `(done)
denormal:
$Drem = DFMA $Dr, -$Dbs, $Das
$p0, PT = FSETP.NEU.AND $Drem.1, RZ, PT
$sgn = LOP3.LUT $Drem.1, 0x80000000, $Db.1, 0x48, !PT
$Ds.1 = LOP3.LUT $sgn, $Ds.1, RZ, 0xfc, !PT
@!$p0 BRA `(done)
denormal2:
$Dn.0 = MOV RZ
$Dn.1 = IADD3 RZ, -$d14, RZ
$Dp = DMUL.RP $Dr, $Ds
$Dn = DFMA $Dq, -$Dn, $Dr
$sgn = LOP3.LUT $Dp.1, $sgn, RZ, 0x3c, !PT
$lim = IADD3 -$d14, -0x43300000, RZ
$p0, PT = FSETP.NEU.AND |$Dn.1|, $lim, PT
$Dq.0 = FSEL $Dp.0, $Dq.0, !$p0
$Dq.1 = FSEL $sgn, $Dq.1, !$p0
BRA `(done)
special:
$p0, PT = DSETP.NAN.AND $Da, $Da, PT
@$p0 BRA `(nan_a)
special2:
$p0, PT = DSETP.NAN.AND $Db, $Db, PT
@$p0 BRA `(nan_b)
special3:
$p0, PT = ISETP.NE.AND $e19, $e18, PT
$Dq.0 = MOV RZ
$Dq.1 = MOV -0x80000
@!$p0 BRA `(done)
special4:
$p0, PT = ISETP.NE.AND $e19, 0x7ff00000, PT
$Dq.1 = LOP3.LUT $Da.1, 0x80000000, $Db.1, 0x48, !PT
$p0, PT = ISETP.EQ.OR $e18, RZ, !$p0
@$p0 $t2 = LOP3.LUT $Dq.1, 0x7ff00000, RZ, 0xfc, !PT
$Dq.0 = MOV RZ
@$p0 $Dq.1 = MOV $t2
BRA `(done)
nan_b:
$Dq.1 = LOP3.LUT $Db.1, 0x80000, RZ, 0xfc, !PT
$Dq.0 = MOV $Db.0
BRA `(done)
nan_a:
$Dq.1 = LOP3.LUT $Da.1, 0x80000, RZ, 0xfc, !PT
$Dq.0 = MOV $Da.0
done:
BRA `(join)
.hot
join:
"""

RULES_F64 = [
    Rule("div.rn.f64", "div", both(types(T.F64), _rn),
         _seq(DIV_RN_F64_FAST + DIV_RN_F64_SLOW, DIV_RN_F64_FAST + DIV_RN_F64_SLOW),
         "div.rn.f64 %fd1, %fd2, %fd3;"),
]  # fmt: skip

# --------------------------------------------------------------------- rcp, sqrt, rsqrt on f64

ONE64 = "f64:0x3ff0000000000000"
INF64 = "f64:0x7ff0000000000000"
TWO106 = "f64:0x4690000000000000"

# the seed's low word is a.hi + 0x300402: below 2^-126 as an f32 (a's exponent outside about
# [-1022, 1021], or a NaN, infinity, zero) -> $__cuda_sm20_dblrcp_rn_slowpath_v3
RCP_RN_F64 = f"""
$Dy.1 = MUFU.RCP64H $Da.1
$Dy.0 = IADD3 $Da.1, 0x300402, RZ
$p_fast, PT = FSETP.GEU.AND |$Dy.0|, f32:0x400402, PT
$Dq = DFMA -$Da, $Dy, {ONE64}
$Dq = DFMA $Dq, $Dq, $Dq
$Dq = DFMA $Dy, $Dq, $Dy
$Dt = DFMA -$Da, $Dq, {ONE64}
$Dq = DFMA $Dq, $Dt, $Dq
@!$p_fast BRA `(slow)
.cold
slow:
$r0 = LOP3.LUT $Da.1, 0x7fffffff, RZ, 0xc0, !PT
$Dq.0 = IADD3 $r0, -0x100000, RZ
$p0, PT = DSETP.GTU.AND |$Da|, {INF64}, PT
@$p0 BRA `(nan)
s2:
$r7 = LOP3.LUT $Da.1, 0x7fffffff, RZ, 0xc0, !PT
$r4 = IADD3 $r7, -0x1, RZ
$p0, PT = ISETP.GE.U32.AND $r4, 0x7fefffff, PT
@$p0 $Dr.1 = LOP3.LUT $Da.1, 0x7ff00000, RZ, 0x3c, !PT
@$p0 $Dr.0 = MOV RZ
@$p0 BRA `(done)
s3:
$p0, PT = ISETP.GE.U32.AND $r7, 0x1000001, PT
@!$p0 BRA `(tiny)
s4:
$Dr.1 = IADD3 $Da.1, -0x3fe00000, RZ
$Dr.0 = MOV $Da.0
$Dq.1 = MUFU.RCP64H $Dr.1
$Dt = DFMA -$Dr, $Dq, {ONE64}
$Dt = DFMA $Dt, $Dt, $Dt
$Dt = DFMA $Dq, $Dt, $Dq
$Dq = DFMA -$Dr, $Dt, {ONE64}
$Dq = DFMA $Dt, $Dq, $Dt
$Dq = DMUL $Dq, f64:0x10000000000000
$Da2 = DFMA -$Da, $Dq, {ONE64}
$Da2 = DFMA $Da2, $Da2, $Da2
$Dr = DFMA $Dq, $Da2, $Dq
BRA `(done)
tiny:
$Da2 = DMUL $Da, {TWO106}
$Dr.0 = MOV $Dq.0
$Dr.1 = MUFU.RCP64H $Da2.1
$Dt = DFMA -$Da2, $Dr, {ONE64}
$Dt = DFMA $Dt, $Dt, $Dt
$Dt = DFMA $Dr, $Dt, $Dr
$Dr = DFMA -$Da2, $Dt, {ONE64}
$Dr = DFMA $Dt, $Dr, $Dt
$Dr = DMUL $Dr, {TWO106}
BRA `(done)
nan:
$Dr.1 = LOP3.LUT $Da.1, 0x80000, RZ, 0xfc, !PT
$Dr.0 = MOV $Da.0
done:
$Dq.0 = MOV $Dr.0
$Dq.1 = MOV $Dr.1
BRA `(join)
.hot
join:
"""

# 1/sqrt(a) refined once (the seed's low word zero): y + y*e*(1/2 + 3/8 e), e = 1 - a*y*y
_RSQ_STEP = """
$Dy{s}.0 = MOV RZ
$Dh{s}.0 = MOV 0x0
$Dh{s}.1 = MOV 0x3fd80000
$Dy{s}.1 = MUFU.RSQ64H {a}.1
"""
_RSQ_REFINE = f"""
$Dt{{s}} = DMUL $Dy{{s}}, $Dy{{s}}
$Dt{{s}} = DFMA {{a}}, -$Dt{{s}}, {ONE64}
$Dh{{s}} = DFMA $Dt{{s}}, $Dh{{s}}, f64:0x3fe0000000000000
$Dt{{s}} = DMUL $Dy{{s}}, $Dt{{s}}
{{out}} = DFMA $Dh{{s}}, $Dt{{s}}, $Dy{{s}}
"""


def _rsq(a: str, out: str, s: str, between: str = "") -> str:
    return _RSQ_STEP.format(a=a, s=s) + between + _RSQ_REFINE.format(a=a, s=s, out=out)


# a's exponent outside [-1022, 1022] (or negative, zero, infinite, NaN):
# $__cuda_sm20_drsqrt_f64_slowpath_v2
RSQRT_APPROX_F64 = (
    _rsq(
        "$Da",
        "$Dq",
        "",
        """
$r0 = IADD3 $Da.1, -0x100000, RZ
$p_slow, PT = ISETP.GE.U32.AND $r0, 0x7fe00000, PT
""",
    )
    + f"""
@$p_slow BRA `(slow)
.cold
slow:
$p0, PT = DSETP.NEU.AND $Da, RZ, PT
$sg = LOP3.LUT $Da.1, 0x80000000, RZ, 0xc0, !PT
@!$p0 BRA `(zero)
s2:
$p0, PT = DSETP.GTU.AND |$Da|, {INF64}, PT
@$p0 BRA `(nan)
s3:
$p0, PT = ISETP.NE.AND $sg, RZ, PT
@$p0 $Dq.0 = MOV 0x0
@$p0 $Dq.1 = MOV -0x80000
@$p0 BRA `(done)
s4:
$p0, PT = DSETP.NEU.AND |$Da|, {INF64}, PT
@!$p0 $Dq.0 = MOV RZ
@!$p0 $Dq.1 = MOV RZ
@!$p0 BRA `(done)
s5:
$Da2 = DMUL $Da, f64:0x4350000000000000
"""
    + _rsq("$Da2", "$Dq", "2")
    + """
$Dq = DMUL $Dq, f64:0x41a0000000000000
BRA `(done)
nan:
$Dq = DADD $Da, $Da
BRA `(done)
zero:
$Dq.1 = LOP3.LUT $sg, 0x7ff00000, RZ, 0xfc, !PT
$Dq.0 = MOV RZ
done:
BRA `(join)
.hot
join:
"""
)

# sqrt = a * rsqrt(a), corrected once; a's exponent outside [-969, 1023) (or a NaN, negative,
# zero, infinite): $__cuda_sm20_dsqrt_rn_f64_mediumpath_v1
SQRT_RN_F64 = (
    _rsq(
        "$Da",
        "$Dt",
        "",
        """
$Dy.0 = IADD3 $Da.1, -0x3500000, RZ
$p_slow, PT = ISETP.GE.U32.AND $Dy.0, 0x7ca00000, PT
""",
    )
    + """
$Ds = DMUL $Da, $Dt
$Dg.1 = IADD3 $Dt.1, -0x100000, RZ
$Dg.0 = MOV $Dt.0
$De = DFMA $Ds, -$Ds, $Da
$Dq = DFMA $De, $Dg, $Ds
@$p_slow BRA `(slow)
.cold
slow:
$p0, PT = ISETP.GE.U32.AND $Dy.0, -0x3400000, PT
@!$p0 BRA `(l1)
m:
$Dm = DFMA.RM $De, $Dg, $Ds
$Dn.0, $p_c = IADD3 $Dm.0, 0x1, RZ
$Dn.1 = IADD3.X RZ, $Dm.1, RZ, $p_c, !PT
$Dz = DFMA.RP -$Dm, $Dn, $Da
$p0, PT = DSETP.GT.AND $Dz, RZ, PT
$Dq.0 = FSEL $Dn.0, $Dm.0, $p0
$Dq.1 = FSEL $Dn.1, $Dm.1, $p0
BRA `(done)
l1:
$p0, PT = DSETP.NE.AND $Da, RZ, PT
@!$p0 BRA `(dadd)
l2:
$p0, PT = ISETP.GE.AND $Da.1, RZ, PT
@!$p0 $Dq.0 = MOV RZ
@!$p0 $Dq.1 = MOV -0x80000
@!$p0 BRA `(done)
l3:
$p0, PT = ISETP.GT.AND $Da.1, 0x7fefffff, PT
@$p0 BRA `(dadd)
l4:
$Da2 = DMUL $Da, f64:0x4690000000000000
"""
    + _rsq("$Da2", "$Dt2", "2")
    + """
$Dr = DMUL $Da2, $Dt2
$Dt2.1 = IADD3 $Dt2.1, -0x100000, RZ
$Dh2 = DFMA $Dr, -$Dr, $Da2
$Dr = DFMA $Dt2, $Dh2, $Dr
$Dq.1 = IADD3 $Dr.1, -0x3500000, RZ
$Dq.0 = MOV $Dr.0
BRA `(done)
dadd:
$Dq = DADD $Da, $Da
done:
BRA `(join)
.hot
join:
"""
)

RCP_APPROX_FTZ_F64 = """
$Dq.1 = MUFU.RCP64H $Da.1
$Dq.0 = MOV RZ
"""
RSQRT_APPROX_FTZ_F64 = """
$Dq.1 = MUFU.RSQ64H $Da.1
$Dq.0 = MOV RZ
"""


def _ftz(i: ast.Instruction) -> bool:
    return i.has("ftz")


RULES_F64_MORE = [
    Rule("rcp.rn.f64", "rcp", both(types(T.F64), _rn), _seq(RCP_RN_F64, RCP_RN_F64),
         "rcp.rn.f64 %fd1, %fd2;"),
    Rule("sqrt.rn.f64", "sqrt", both(types(T.F64), _rn), _seq(SQRT_RN_F64, SQRT_RN_F64),
         "sqrt.rn.f64 %fd1, %fd2;"),
    Rule("rcp.approx.ftz.f64", "rcp", both(types(T.F64), _approx, _ftz),
         _seq(RCP_APPROX_FTZ_F64, RCP_APPROX_FTZ_F64), "rcp.approx.ftz.f64 %fd1, %fd2;"),
    Rule("rsqrt.approx.f64", "rsqrt", both(types(T.F64), _approx),
         _seq(RSQRT_APPROX_F64, RSQRT_APPROX_FTZ_F64), "rsqrt.approx.f64 %fd1, %fd2;"),
]  # fmt: skip


# ------------------------------------------------------------------- div, rcp, sqrt .rz/.rm/.rp


def _directed(ins: ast.Instruction, c: LowerCtx) -> None:
    from openptxas.lower.fpdiv_directed import SEQUENCES

    assert ins.rnd is not None
    t = "f64" if ins.type is T.F64 else "f32"
    form = f"{ins.opcode}.{ins.rnd.value}{'.ftz' if ins.has('ftz') else ''}.{t}"
    text = SEQUENCES[form]
    _seq(text, text)(ins, c)


def _rounding(i: ast.Instruction) -> bool:
    return i.rnd in (Rounding.RZ, Rounding.RM, Rounding.RP)


RULES_DIRECTED = [
    Rule("div.rz.f32", "div", both(types(T.F32), _rounding), _directed,
         "div.rz.f32 %f1, %f2, %f3;"),
    Rule("rcp.rz.f32", "rcp", both(types(T.F32), _rounding), _directed,
         "rcp.rm.ftz.f32 %f1, %f2;"),
    Rule("sqrt.rz.f32", "sqrt", both(types(T.F32), _rounding), _directed,
         "sqrt.rp.f32 %f1, %f2;"),
    Rule("div.rz.f64", "div", both(types(T.F64), _rounding), _directed,
         "div.rm.f64 %fd1, %fd2, %fd3;"),
    Rule("rcp.rz.f64", "rcp", both(types(T.F64), _rounding), _directed,
         "rcp.rp.f64 %fd1, %fd2;"),
    Rule("sqrt.rz.f64", "sqrt", both(types(T.F64), _rounding), _directed,
         "sqrt.rz.f64 %fd1, %fd2;"),
]  # fmt: skip


RULES: list[Rule] = [
    Rule("div.rn.f32", "div", both(types(T.F32), _rn),
         _seq(DIV_RN_FAST + DIV_RN_SLOW, DIV_RN_FAST + DIV_RN_FTZ_SLOW),
         "div.rn.f32 %f1, %f2, %f3;"),
    *RULES_APPROX,
    *RULES_RN,
    *RULES_F64,
    *RULES_F64_MORE,
    *RULES_DIRECTED,
]  # fmt: skip
