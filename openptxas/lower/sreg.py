"""Special registers that ptxas 13.0 reads from clocks, constant bank 0 or the cluster geometry.

Observed with ``scripts/probe_warp.py sreg`` (ptxas 13.0.88, sm_90):

- ``%clock``/``%clock_hi``/``%globaltimer_lo``/``_hi``: ``CS2R.32 R, SR_CLOCKLO`` ...;
  ``%clock64``/``%globaltimer``: ``CS2R R(pair), SR_CLOCKLO`` / ``SR_GLOBALTIMERLO``.
- ``%envregN``, ``%nsmid``, ``%dynamic_smem_size``, ``%gridid`` (``LDC.64``),
  ``%reserved_smem_offset_end``/``_1``, ``%cluster_nctarank``, ``%cluster_nctaid.k``,
  ``%nclusterid.k``: ``LDC R, c[0x0][<abi offset>]``; ``%reserved_smem_offset_begin``/``_0``
  are 0 and ``_cap`` is the reserved size (``MOV``).
- ``%cluster_ctarank``: ``S2R SR_CgaCtaId``; ``%is_explicit_cluster``: the bank-0 word == 1.
- ``%clusterid.k = trunc(f32(ctaid.k) * rcp_k)`` (``I2FP.F32.U32``, ``FMUL`` by the driver's
  rounded-up reciprocal of ``%cluster_nctaid.k``, ``F2I.U32.TRUNC.NTZ``) and
  ``%cluster_ctaid.k = ctaid.k - clusterid.k * cluster_nctaid.k`` (``IMAD``).
- ``%total_smem_size = SR_SMEMSZ - c[0x0][reserved]``.
"""

from __future__ import annotations

from openptxas.ir.core import PT, RC, RZ, CBank, Imm, Src, SReg, VReg
from openptxas.lower.context import LowerCtx
from openptxas.ptx import ast

_CS2R32 = {
    "%clock": "SR_CLOCKLO",
    "%clock_hi": "SR_CLOCKHI",
    "%globaltimer_lo": "SR_GLOBALTIMERLO",
    "%globaltimer_hi": "SR_GLOBALTIMERHI",
}
_CS2R64 = {"%clock64": "SR_CLOCKLO", "%globaltimer": "SR_GLOBALTIMERLO"}
_AXIS = {"x": 0, "y": 1, "z": 2}


def _ldc(c: LowerCtx, off: int, width: int = 1) -> VReg:
    if off < 0:  # the target's ABI does not say where the driver puts it
        raise c.unsupported("this special register")
    v = c.new(RC.R, width)
    c.emit("LDC", ("64",) if width == 2 else (), [v], [CBank(0, off)])
    return v


def special_extra(c: LowerCtx, op: ast.SpecialReg) -> VReg | None:
    """The value of special register ``op`` when this module handles it, else None."""
    name = op.name
    abi = c.target.abi
    axis = _AXIS.get(op.comp or "x")
    if name in _CS2R32:
        v = c.new(RC.R)
        c.emit("CS2R", ("32",), [v], [SReg(_CS2R32[name])])
        return v
    if name in _CS2R64:
        v = c.new(RC.R, 2)
        c.emit("CS2R", (), [v], [SReg(_CS2R64[name])])
        return v
    if name.startswith("%envreg") and name[7:].isdigit() and int(name[7:]) < 32:
        return _ldc(c, abi.cb_envreg + 4 * int(name[7:]))
    if name in abi.cb_sreg:
        return _ldc(c, abi.cb_sreg[name], 2 if name == "%gridid" else 1)
    if name in abi.sreg_const:
        v = c.new(RC.R)
        c.emit("MOV", (), [v], [Imm(abi.sreg_const[name])])
        return v
    if name == "%cluster_ctarank":
        v = c.new(RC.R)
        c.emit("S2R", (), [v], [SReg("SR_CgaCtaId")])
        return v
    if name == "%total_smem_size":
        sz = c.new(RC.R)
        c.emit("S2R", (), [sz], [SReg("SR_SMEMSZ")])
        res = _ldc(c, abi.cb_reserved_smem_size)
        v = c.new(RC.R)
        c.emit("IADD3", (), [v], [Src(res, neg=True), sz, RZ])
        return v
    if axis is None:
        return None
    if name in ("%cluster_nctaid", "%nclusterid"):
        base = abi.cb_cluster_nctaid if name == "%cluster_nctaid" else abi.cb_nclusterid
        return _ldc(c, base + 4 * axis)
    if name in ("%clusterid", "%cluster_ctaid"):
        ctaid = c.new(RC.R)
        c.emit("S2R", (), [ctaid], [SReg("SR_CTAID." + "XYZ"[axis])])
        f = c.new(RC.R)
        c.emit("I2FP", ("F32", "U32"), [f], [ctaid])
        rcp = _ldc(c, abi.cb_cluster_rcp + 4 * axis)
        q = c.new(RC.R)
        c.emit("FMUL", (), [q], [f, rcp])
        cid = c.new(RC.R)
        c.emit("F2I", ("U32", "TRUNC", "NTZ"), [cid], [q])
        if name == "%clusterid":
            return cid
        n = _ldc(c, abi.cb_cluster_nctaid + 4 * axis)
        neg = c.new(RC.R)
        c.emit("IADD3", (), [neg], [Src(cid, neg=True), RZ, RZ])
        v = c.new(RC.R)
        c.emit("IMAD", (), [v], [n, neg, ctaid])
        return v
    return None


def special_pred(c: LowerCtx, op: ast.SpecialReg) -> VReg | None:
    """A predicate special register (``%is_explicit_cluster``), else None."""
    if op.name != "%is_explicit_cluster":
        return None
    w = _ldc(c, c.target.abi.cb_is_explicit_cluster)
    p = c.new(RC.P)
    c.emit("ISETP", ("EQ", "AND"), [p, PT], [w, Imm(1), PT])
    return p
