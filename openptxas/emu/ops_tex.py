"""Texture and surface instructions: TEX (filtered fetch), TLD (texel fetch), SULD and SUST
(surface load and store), on the launch's texture and surface objects
(:mod:`openptxas.emu.texture`).

Operands as the ISA tables decode them (bindless, the handle in a uniform register):

* ``TEX.LL Pd, Rd1, Rd0, Ra, Rb, URh, 0x0, dim, mask`` and ``TLD.LZ`` alike: the enabled
  components of ``mask`` (x, y, z, w) are written packed, the first two to ``Rd0, Rd0+1`` and
  the next two to ``Rd1, Rd1+1`` (``TEX.LL R10, R8, ...`` with mask 0xf: x, y in R8, R9; z, w in
  R10, R11). ``Ra`` holds the coordinates: 2D ``(x, y)``; 3D and CUBE ``(x, y, z)``; ARRAY_1D
  ``(layer, x)``, ARRAY_2D ``(layer, x, y)`` (the layer an integer ptxas clamps to 0xffff);
  ``Rb`` the level of detail (.LL; ptxas writes -32 for plain ``tex``), ignored: only level 0
  exists. TLD's coordinates are integers (``1D``: ``x``); ``TLD.LZ.AOFFI`` adds the texel
  offsets packed in ``Rb`` (4-bit signed, x in bits 0-3, y in 4-7, z in 8-11: ptxas folds an
  ``add -1`` of a coordinate into them) to the coordinates other than the layer. ``Pd`` (the
  residency predicate) is set true. PTX's 1D fetches come as 2D with y = 0: a 1D object
  ignores y.
* ``SUST.D.BA.dim[.size].STRONG.SM[.TRAP|.IGN] [Ra], Rb, URh, 0x0``: raw data (``.D``) of
  ``size`` bytes (U8/S8 1, U16/S16 2, default 4, 64 8, 128 16) from ``Rb...`` at byte x
  coordinate (``.BA``): ``Ra`` holds 1D ``x``, 2D ``(x, y)``, 3D ``(x, y, z)``, 2D_ARRAY
  ``(x, y, layer)``, 1D_ARRAY ``(x, layer)``. Out of range: ``.TRAP`` faults, ``.IGN`` drops
  the store, neither clamps the coordinates. ``SULD.D.BA`` is the load (``Pd, Rd, [Ra], URh``;
  ``.IGN`` reads zeros out of range).

Blackwell's forms have no ``0x0`` slot after the handle (``TEX.LL PT, RZ, R5, R4, R6, UR4, 2D,
0x1``; ``SUST.D.BA.2D.STRONG.SM.TRAP [R6], R0, UR4``): the same operands otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from openptxas.emu import texture as tx
from openptxas.emu.bind import U32, Bound, Ctx
from openptxas.emu.lanes import Sel
from openptxas.emu.model import CBank, Imm, Keyword, Mem, Operand, Reg, RegFile

NDArray = np.ndarray[Any, Any]
I64 = np.int64

# coordinate registers and the position of the layer among them, per dimension keyword
_TEX_COORDS = {
    "1D": (1, -1),
    "2D": (2, -1),
    "3D": (3, -1),
    "CUBE": (3, -1),
    "ARRAY_1D": (2, 0),
    "ARRAY_2D": (3, 0),
}
_SURF_COORDS = {"1D": (1, -1), "2D": (2, -1), "3D": (3, -1), "2D_ARRAY": (3, 2), "1D_ARRAY": (2, 1)}
_SURF_SIZES = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}


def _handle(ctx: Ctx, op: object, slot: object = None) -> Callable[[Sel], NDArray]:
    """The lanes' texture or surface handles: a register (sm_90), or on sm_75-sm_89 the word
    ``slot`` (in words) of constant bank ``op`` (``TEX.SCR ... 0x0, 0x5c``: a kernel parameter)."""
    if isinstance(op, Imm) and isinstance(slot, Imm):
        rd = ctx.const(CBank(op.value, 4 * slot.value), 4)
    elif not isinstance(op, Reg) or op.is_pred:
        raise ctx.unsupported("texture handle not in a register")
    else:
        rd = ctx.src(op)
    m = ctx.m

    def h(sel: Sel) -> NDArray:
        n = m.index(sel).size
        return np.broadcast_to(np.asarray(rd(sel), dtype=U32), (n,))

    return h


def _lookup(ctx: Ctx, handles: NDArray, kind: str) -> tx.TexObject:
    hs = np.unique(handles)
    if hs.size != 1:
        raise ctx.fault(f"{kind} handle differs between lanes ({hs.size} handles)")
    obj = ctx.m.textures.get(int(hs[0]))
    if obj is None or obj.kind != kind:
        raise ctx.fault(f"no {kind} object with handle {int(hs[0]):#x}")
    return obj


def _f32(words: NDArray) -> NDArray:
    return np.asarray(words, U32).view(np.float32).astype(np.float64)


def _i32(words: NDArray) -> NDArray:
    return np.asarray(words, U32).view(np.int32).astype(I64)


def bind_tex(ctx: Ctx) -> Bound:
    """TEX and TLD (see the module docstring)."""
    ins = ctx.ins
    integer = ins.opcode == "TLD"
    lod_mods = {"LZ", "LL", "AOFFI"} if integer else {"LZ", "LL"}
    # (.SCR: sm_75-sm_89's bindless form with the handle in a constant bank slot)
    if set(ins.mods) - lod_mods - {"SCR"}:
        raise ctx.unsupported(f"{ins.mnemonic} (only bindless .LZ/.LL fetches)")
    aoffi = "AOFFI" in ins.mods
    pd, rd1, rd0, ra, rb, uh, _slot, dim, mask = _tex_operands(ctx)
    if dim.name not in _TEX_COORDS or (integer and dim.name == "CUBE"):
        raise ctx.unsupported(f"{ins.mnemonic} on {dim.name} textures")
    ncoord, layer_at = _TEX_COORDS[dim.name]
    comps = [c for c in range(4) if mask.value >> c & 1]
    coords = ctx.srcn(ra, ncoord)
    if "SCR" in ins.mods and ncoord > 2:
        # sm_75-sm_89: two coordinates in Ra's pair, the others in Rb's (then the level)
        if aoffi:
            raise ctx.unsupported(f"{ins.mnemonic} with offsets on {dim.name} textures")
        lo, hi = ctx.srcn(ra, 2), ctx.srcn(rb, ncoord - 2)
        coords = lambda sel: np.concatenate([lo(sel), hi(sel)])  # noqa: E731
    offsets = None
    if aoffi:
        offsets = ctx.src(rb)  # TLD.AOFFI: texel offsets, 4-bit signed, x in bits 0-3, y 4-7...
    elif isinstance(rb, Reg) and not rb.is_zero:
        ctx.src(rb)  # the level of detail: read, not used (level 0 only)
    handle = _handle(ctx, uh, _slot if "SCR" in ins.mods else None)
    w0 = ctx.dstn(rd0, min(2, len(comps))) if comps else None
    w1 = ctx.dstn(rd1, len(comps) - 2) if len(comps) > 2 else None
    wp = ctx.pdst(pd) if pd is not None else None
    m = ctx.m
    name = dim.name

    def fn(sel: Sel) -> None:
        tex = _lookup(ctx, handle(sel), "texture")
        c = coords(sel)
        n = c.shape[1]
        layered = tex.layers > 0 and not tex.cubemap
        if tex.cubemap != (name == "CUBE") or layered != (layer_at >= 0):
            raise ctx.fault(f"{ins.mnemonic} {name} on a {tex.rank}D texture")
        if (name == "3D") != (tex.rank == 3) or tex.rank > c.shape[0] - (layer_at >= 0):
            raise ctx.fault(f"{ins.mnemonic} {name} on a {tex.rank}D texture")
        arena = m.mem.arena
        layer = np.zeros(n, I64)
        if layer_at >= 0:
            layer = np.clip(c[layer_at].astype(I64), 0, tex.layers - 1)
            c = np.delete(c, layer_at, axis=0)
        if integer:
            ic = [_i32(c[d]) for d in range(tex.rank)]
            if offsets is not None:
                o = np.broadcast_to(np.asarray(offsets(sel), dtype=U32), (n,)).astype(I64)
                ic = [x + ((o >> (4 * d) & 0xF) ^ 8) - 8 for d, x in enumerate(ic)]
            vals = tx.fetch(tex, arena, ic, layer)
        elif name == "CUBE":
            face, s, t = tx.cube_face(_f32(c[0]), _f32(c[1]), _f32(c[2]))
            vals = tx.sample(replace(tex, normalized=True), arena, [s, t], face)
        else:
            vals = tx.sample(tex, arena, [_f32(c[d]) for d in range(tex.rank)], layer)
        words = tx.result_words(tex, vals)[comps]
        if w0 is not None:
            w0(sel, words[: min(2, len(comps))])
        if w1 is not None:
            w1(sel, words[2:])
        if wp is not None:
            wp(sel, True)

    return Bound(fn)


def _tex_operands(
    ctx: Ctx,
) -> tuple[Reg | None, Operand, Operand, Operand, Operand, Operand, Operand, Keyword, Imm]:
    """(Pd, Rd1, Rd0, Ra, Rb, handle, slot, dim, mask) of TEX/TLD, by kind: sm_90's ``TEX.LL
    PT, RZ, R5, R4, R6, UR4, 0x0, 2D, 0x1``, sm_100's without the slot, sm_120's ``TEX PT, RZ,
    R5, R4, RZ, UR4, URZ, 2D, 0x1`` (a uniform register in the slot: only URZ is accepted) and
    nvdisasm's lists without the predicate (None), the level register (RZ) or the mask
    (0xf)."""
    ops = list(ctx.ops)
    first = ops[0] if ops else None
    pd = first if isinstance(first, Reg) and first.is_pred else None
    if pd is not None:
        ops.pop(0)
    k = next((i for i, o in enumerate(ops) if isinstance(o, Keyword)), -1)
    if k < 4:
        raise ctx.unsupported()
    dim, after, before = ops[k], ops[k + 1 :], ops[:k]
    mask = after[0] if after else Imm(0xF)
    slot: Operand = before.pop() if len(before) == 6 else Imm(0)
    if isinstance(slot, Reg) and not slot.is_zero:
        raise ctx.unsupported(f"{ctx.ins.mnemonic} with {slot} after the handle")
    uh = before.pop()
    if len(before) not in (3, 4) or not isinstance(dim, Keyword) or not isinstance(mask, Imm):
        raise ctx.unsupported()
    rb: Operand = before[3] if len(before) == 4 else Reg(RegFile.R, 255)
    return pd, before[0], before[1], before[2], rb, uh, slot, dim, mask


def _surface_access(ctx: Ctx) -> tuple[str, int, int, str]:
    """(dimension, coordinate registers, data bytes, out-of-range mode) of SULD/SUST."""
    mods = ctx.ins.mods
    dims = [x for x in mods if x in _SURF_COORDS]
    known = {"D", "BA", "STRONG", "SM", "CTA", "TRAP", "IGN", *_SURF_COORDS, *_SURF_SIZES}
    if len(dims) != 1 or "D" not in mods or "BA" not in mods or set(mods) - known:
        raise ctx.unsupported(f"{ctx.ins.mnemonic} (only raw byte-addressed .D.BA accesses)")
    size = next((_SURF_SIZES[x] for x in mods if x in _SURF_SIZES), 4)
    mode = "trap" if "TRAP" in mods else "ign" if "IGN" in mods else "clamp"
    return dims[0], _SURF_COORDS[dims[0]][0], size, mode


def _surface_addresses(
    ctx: Ctx, surf: tx.TexObject, c: NDArray, name: str, size: int, mode: str
) -> tuple[NDArray, NDArray]:
    """(global addresses, in range) of the lanes' surface accesses."""
    _, layer_at = _SURF_COORDS[name]
    n = c.shape[1]
    layer = np.zeros(n, I64)
    if layer_at >= 0:
        if not surf.layers:
            raise ctx.fault(f"{ctx.ins.mnemonic} on a surface without layers")
        layer = _i32(c[layer_at])
        c = np.delete(c, layer_at, axis=0)
    elif surf.layers:
        raise ctx.fault(f"{ctx.ins.mnemonic} on a layered surface")
    if c.shape[0] != surf.rank:
        raise ctx.fault(f"{ctx.ins.mnemonic} on a {surf.rank}D surface")
    w, h, d = surf.dims
    row = w * surf.texel_bytes
    x = _i32(c[0])
    y = _i32(c[1]) if surf.rank > 1 else np.zeros(n, I64)
    z = _i32(c[2]) if surf.rank > 2 else np.zeros(n, I64)
    nl = max(surf.layers, 1)
    inside = (
        (x >= 0)
        & (x + size <= row)
        & (y >= 0)
        & (y < h)
        & (z >= 0)
        & (z < d)
        & (layer >= 0)
        & (layer < nl)
    )
    if mode == "trap" and not inside.all():
        j = int(np.flatnonzero(~inside)[0])
        raise ctx.fault(
            f"surface access out of range (x byte {int(x[j])}, y {int(y[j])}, z {int(z[j])}, "
            f"layer {int(layer[j])}) of a {w}x{h}x{d} surface, {nl} layer(s)"
        )
    if mode == "clamp":
        inside = np.ones(n, bool)
    x, y, z = np.clip(x, 0, row - size), np.clip(y, 0, h - 1), np.clip(z, 0, d - 1)
    layer = np.clip(layer, 0, nl - 1)
    off = ((layer * d + z) * h + y) * row + x
    return (surf.address + off).astype(I64), inside


def bind_sust(ctx: Ctx) -> Bound:
    ops = ctx.ops
    if len(ops) not in (3, 4) or not isinstance(ops[0], Mem) or ops[0].base is None:
        raise ctx.unsupported()
    name, ncoord, size, mode = _surface_access(ctx)
    coords = ctx.srcn(Reg(ops[0].base.file, ops[0].base.index), ncoord)
    data = ctx.srcn(ops[1], max(1, size // 4))
    handle = _handle(ctx, ops[2], ops[3] if len(ops) == 4 else None)
    m = ctx.m

    def fn(sel: Sel) -> None:
        surf = _lookup(ctx, handle(sel), "surface")
        a, inside = _surface_addresses(ctx, surf, coords(sel), name, size, mode)
        if inside.any():
            idx = m.index(sel)
            m.store("global", a[inside], idx[inside], size, data(sel)[:, inside])

    return Bound(fn)


def bind_suld(ctx: Ctx) -> Bound:
    ops = ctx.ops
    # (Pd, the residency predicate, is left out of nvdisasm's list)
    pd = ops[0] if ops and isinstance(ops[0], Reg) and ops[0].is_pred else None
    ops = ops[1:] if pd is not None else ops
    if len(ops) not in (3, 4) or not isinstance(ops[1], Mem) or ops[1].base is None:
        raise ctx.unsupported()
    rd, mem, uh = ops[:3]
    _slot = ops[3] if len(ops) == 4 else None
    name, ncoord, size, mode = _surface_access(ctx)
    signed = any(x in ("S8", "S16") for x in ctx.ins.mods)
    coords = ctx.srcn(Reg(mem.base.file, mem.base.index), ncoord)  # type: ignore[union-attr]
    handle = _handle(ctx, uh, _slot)
    wr = ctx.dstn(rd, max(1, size // 4))
    wp = ctx.pdst(pd) if pd is not None else None
    m = ctx.m

    def fn(sel: Sel) -> None:
        surf = _lookup(ctx, handle(sel), "surface")
        a, inside = _surface_addresses(ctx, surf, coords(sel), name, size, mode)
        idx = m.index(sel)
        out = np.zeros((max(1, size // 4), idx.size), U32)
        if inside.any():
            out[:, inside] = m.load("global", a[inside], idx[inside], size, signed)
        wr(sel, out)
        if wp is not None:
            wp(sel, True)

    return Bound(fn)


BINDERS: dict[str, Callable[[Ctx], Bound]] = {
    "TEX": bind_tex,
    "TLD": bind_tex,
    "SUST": bind_sust,
    "SULD": bind_suld,
}
