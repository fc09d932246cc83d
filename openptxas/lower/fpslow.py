"""The slow paths of IEEE division, reciprocal and square root as one subroutine per kernel, as
ptxas 13.0 places them (observed with scripts/probe_fp19.py on scripts/probes_fp19/*.ptx).

ptxas compiles the slow path of every ``div.rn.f32`` (``rcp.rn``, ``sqrt.rn``, f64, the
directed roundings, ``rsqrt.approx.f64``) of a kernel as ONE subroutine
(``$__internal_N_$__cuda_sm3x_div_rn_noftz_f32_slowpath``, a weak function symbol, numbered
over the module in compile order and, within a kernel, by name) placed after the kernel's code,
entered with ``MOV Rra, <return offset>; CALL.REL.NOINC`` and left with ``RET.REL.NODEC Rra``.
Each call site:

    @!P0 BRA `(join)            # the fast path's test, inverted
    MOV R4, Ra; MOV R5, Rb      # the arguments, where the allocator did not place them already
    MOV R2, <return>            # the return address (the subroutine zeroes the high word)
    CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath)
    MOV Rq, R0                  # the result
  join:

When the fast path follows the test (``rcp.rn``, ``sqrt.rn``), the test branches to it and the
call block branches to the join. As for calls of ``.func`` subroutines (lower/calls.py), there
is no fixed register convention: the subroutine's arguments and results are virtual registers
shared by every call site, allocated together with the kernel's.

The sequences stay the IR text of lower/fpdiv.py (a hot part, a ``.cold`` slow part that
branches back): `expand_shared` derives the interface from the text — the names the slow part
reads that the hot part defines before the test (arguments), the names it writes that the code
after it reads (results) — and rewrites the test into the call. A test that is an
unconditional branch makes a plain call (lower/div64.py: 64-bit integer division, which has no
fast path).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from openptxas.ir.core import RC, RZ, Block, Label, RegLike, VReg
from openptxas.lower.calls import Sub
from openptxas.lower.context import LowerCtx
from openptxas.lower.fpseq import expand

# the form of each instruction -> the name ptxas 13.0 gives its slow-path subroutine
NAMES: dict[str, str] = {
    "div.rn.f32": "$__cuda_sm3x_div_rn_noftz_f32_slowpath",
    "div.rn.ftz.f32": "$__cuda_sm3x_div_rn_ftz_f32_slowpath",
    "rcp.rn.f32": "$__cuda_sm20_rcp_rn_f32_slowpath",
    "rcp.rn.ftz.f32": "$__cuda_sm20_rcp_rn_ftz_f32_slowpath",
    "sqrt.rn.f32": "$__cuda_sm20_sqrt_rn_f32_slowpath",
    "sqrt.rn.ftz.f32": "$__cuda_sm20_sqrt_rn_ftz_f32_slowpath",
    "div.rn.f64": "$__cuda_sm20_div_rn_f64_full",
    "rcp.rn.f64": "$__cuda_sm20_dblrcp_rn_slowpath_v3",
    "sqrt.rn.f64": "$__cuda_sm20_dsqrt_rn_f64_mediumpath_v1",
    "rsqrt.approx.f64": "$__cuda_sm20_drsqrt_f64_slowpath_v2",
}
_DIRECTED = {"rz": "rz", "rm": "rd", "rp": "ru"}
for _r, _s in _DIRECTED.items():
    for _ftz in ("", "_ftz"):
        _f = _ftz.replace("_", ".")
        NAMES[f"div.{_r}{_f}.f32"] = f"$__cuda_sm20_div_{_s}{_ftz}_f32"
        NAMES[f"rcp.{_r}{_f}.f32"] = f"$__cuda_sm20_rcp_{_s}{_ftz}_f32_slowpath"
        NAMES[f"sqrt.{_r}{_f}.f32"] = f"$__cuda_sm20_sqrt_{_s}{_ftz}_f32_slowpath"
    NAMES[f"div.{_r}.f64"] = f"$__cuda_sm20_div_{_s}_f64_v2"
    NAMES[f"rcp.{_r}.f64"] = f"$__cuda_sm20_rcp_{_s}_f64"
    NAMES[f"sqrt.{_r}.f64"] = f"$__cuda_sm20_dsqrt_{_s}_f64"

# the names a caller binds to the instruction's result (written by the slow path, read after)
RESULTS = ("q", "Dq")

_NAME = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_FULL = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)(?![.A-Za-z0-9_])")
_LABEL_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):$")
_BRA = re.compile(r"^(?:@(!?)\$(\S+) )?BRA `\(([A-Za-z_][A-Za-z0-9_]*)\)$")
_PRED = re.compile(r"p(\d|_)")


@dataclass
class SlowSub(Sub):
    """A shared slow path: its interface (``$name`` -> the subroutine's register)."""

    iface: dict[str, VReg] = field(default_factory=dict)
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Shape:
    """A sequence cut into the parts the rewriting needs."""

    hot: list[str]  # the hot lines, the test rewritten into the call
    cold: list[str]  # the slow path, its returns as ``!ret``
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def _lines(text: str) -> list[str]:
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def _dst_src(line: str) -> tuple[str, str]:
    """(destination text, source text incl. the guard) of an instruction line."""
    guard = ""
    if line.startswith("@"):
        guard, line = line.split(" ", 1)
    if " = " in line:
        d, s = line.split(" = ", 1)
        return d, guard + " " + s
    return "", guard + " " + line


def shape(text: str, bound: set[str]) -> Shape | None:
    """The call form of ``text`` (None: not one hot test, one cold part branching back)."""
    lines = _lines(text)
    if lines.count(".cold") != 1 or lines.count(".hot") != 1:
        return None
    c0, h0 = lines.index(".cold"), lines.index(".hot")
    pre, cold, post = lines[:c0], lines[c0 + 1 : h0], lines[h0 + 1 :]
    m = _LABEL_LINE.match(cold[0]) if cold else None
    if m is None:
        return None
    slow = m.group(1)
    cold_labels = {x.group(1) for ln in cold if (x := _LABEL_LINE.match(ln))}
    tests = [k for k, ln in enumerate(pre) if (b := _BRA.match(ln)) and b.group(3) == slow]
    if len(tests) != 1:
        return None
    at = tests[0]
    back = {
        b.group(3)
        for ln in cold
        if (b := _BRA.match(ln)) and b.group(3) not in cold_labels and b.group(2) is None
    }
    if len(back) != 1 or any(
        (b := _BRA.match(ln)) and b.group(3) not in cold_labels and b.group(2) is not None
        for ln in cold
    ):
        return None
    ret = back.pop()
    after = [*pre[at + 1 :], *post]
    nxt = next((x.group(1) for ln in after if (x := _LABEL_LINE.match(ln))), None)
    if nxt is None:
        return None
    # the interface
    before = {n for ln in pre[:at] for n in _NAME.findall(ln)} | (bound - set(RESULTS))
    later = {n for ln in after for n in _NAME.findall(ln)} | (bound & set(RESULTS))
    read: set[str] = set()
    written: set[str] = set()
    for ln in cold:
        d, s = _dst_src(ln)
        read |= set(_NAME.findall(s))
        written |= set(_NAME.findall(d))
    killed: set[str] = set()  # written whole, unguarded, in the entry block before any read
    seen: set[str] = set()
    for ln in cold[1:]:
        if _LABEL_LINE.match(ln) or _BRA.match(ln):
            break
        d, s = _dst_src(ln)
        seen |= set(_NAME.findall(s))
        if not ln.startswith("@"):
            killed |= {n for n in _FULL.findall(d) if n not in seen}
        seen |= set(_NAME.findall(d))
    inputs = sorted(n for n in (read | written) & before if n not in killed)
    outputs = sorted(n for n in written & later)
    if any(_PRED.match(n) for n in (*inputs, *outputs)):
        return None  # a predicate would need a PLOP3 copy; ptxas's slow paths pass none
    b = _BRA.match(pre[at])
    assert b is not None
    call: list[str] = []
    if b.group(2) is not None:
        inv = "" if b.group(1) else "!"
        call += [f"@{inv}${b.group(2)} BRA `({nxt})", "call:"]
    call.append("!call")
    if nxt != ret:
        call.append(f"BRA `({ret})")
    hot = [*pre[:at], *call, *pre[at + 1 :], *post]
    body = [
        "!ret" if (x := _BRA.match(ln)) and x.group(3) == ret and x.group(2) is None else ln
        for ln in cold
    ]
    return Shape(hot, body, tuple(inputs), tuple(outputs))


def _copy(c: LowerCtx, dst: RegLike, src: RegLike) -> None:
    if isinstance(dst, VReg) and dst.width == 2:
        assert isinstance(src, VReg) and src.width == 2
        c.emit("MOV", (), [dst.lo], [src.lo])
        c.emit("MOV", (), [dst.hi], [src.hi])
        return
    c.emit("MOV", (), [dst], [src])


def _subroutine(c: LowerCtx, name: str, sh: Shape) -> SlowSub:
    """The kernel's subroutine ``name`` (lowered on the first call)."""
    sub = c.calls.subs.get(name)
    if sub is not None:
        assert isinstance(sub, SlowSub)
        return sub
    iface = {n: c.new(RC.R, 2 if n.startswith("D") else 1) for n in (*sh.inputs, *sh.outputs)}
    # The return address is one word from the call to the return; the pair RET reads is built
    # there (ptxas: the high word is free inside the subroutine and zeroed before each return,
    # ``IMAD.MOV.U32 R9, RZ, RZ, 0x0; RET.REL.NODEC R8``, or the address copied into a free pair
    # when its neighbour is taken, ``MOV R3, 0; MOV R2, R12; RET.REL.NODEC R2``). The copy of
    # the low word disappears when the allocator puts the pair on it (regalloc/fatpoint.py).
    ra = c.new(RC.R)
    new = SlowSub(name, "", [], [], ra, iface=iface, inputs=sh.inputs, outputs=sh.outputs)
    saved = (c.fn.blocks, c.block, c.cold_blocks)
    c.fn.blocks, c.cold_blocks = [], []

    def hook(line: str, _reg: Callable[[str], RegLike], _block: Callable[[str], Block]) -> None:
        assert line == "!ret", line
        pair = c.new(RC.R, 2)
        c.emit("MOV", (), [pair.lo], [ra])
        c.emit("MOV", (), [pair.hi], [RZ])
        c.emit("RET", ("REL", "NODEC"), [], [pair, Label(c.fn.blocks[0].name)])

    try:
        expand(c, "\n".join(sh.cold), dict(iface), hook)
        new.blocks = c.fn.blocks
    finally:
        c.fn.blocks, c.block, c.cold_blocks = saved
    new.entry = new.blocks[0].name
    c.calls.subs[name] = new
    return new


def expand_shared(c: LowerCtx, text: str, bound: dict[str, RegLike], name: str) -> bool:
    """Expand ``text`` with its slow path as the kernel's shared subroutine ``name``; False
    (nothing emitted) when the text is not of the form this handles."""
    sh = shape(text, set(bound))
    if sh is None:
        return False
    sub = _subroutine(c, name, sh)
    assert sub.inputs == sh.inputs and sub.outputs == sh.outputs, name

    def hook(line: str, reg: Callable[[str], RegLike], _block: Callable[[str], Block]) -> None:
        assert line == "!call", line
        for n in sub.inputs:
            _copy(c, sub.iface[n], reg(n))
        ret = c.new_block("ret_")
        c.emit("MOV", (), [sub.ra], [Label(ret.name)])
        c.emit("CALL", ("REL", "NOINC"), [], [Label(sub.entry), Label(ret.name)])
        c.fn.blocks.append(ret)
        c.block = ret
        for n in sub.outputs:
            _copy(c, reg(n), sub.iface[n])
        (c.sub.callees if c.sub is not None else c.calls.callees).add(name)

    expand(c, "\n".join(sh.hot), bound, hook)
    return True
