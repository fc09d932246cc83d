"""Instruction mnemonics and their modifiers, decoded into structured data.

A PTX instruction name such as ``ld.global.nc.v4.f32`` or
``cp.async.bulk.tensor.2d.shared::cluster`` is split into the mnemonic ptxas names in its
messages (``ld``, ``cp.async.bulk.tensor``) and the modifiers, which `decode` sorts into
categories: types (in order), state spaces, comparison, boolean op, rounding, vector width,
memory semantics, scope, cache operator, operation (atomic op, shuffle mode, vote mode, ...),
shape, and a set of remaining flags (``ftz``, ``sat``, ``approx``, ``L2::cache_hint``, ...).
Decoding depends on the mnemonic (``.lo`` is a comparison for ``setp`` and a mode for ``mul``)
and is cached per distinct name.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from openptxas.ptx.types import (
    CMP_NAMES,
    RND_NAMES,
    SPACE_NAMES,
    TYPE_NAMES,
    BoolOp,
    CacheOp,
    CmpOp,
    PtxType,
    Rounding,
    Scope,
    Sem,
    StateSpace,
)

# Mnemonics made of several dotted words: the first words of an instruction name that name the
# instruction itself (the rest are modifiers). Longest match wins.
MULTI_MNEMONICS: frozenset[str] = frozenset(
    {
        "brx.idx",
        "bar.warp.sync",
        "barrier.cluster",
        "cvt.pack",
        "cp.async",
        "cp.async.commit_group",
        "cp.async.wait_group",
        "cp.async.wait_all",
        "cp.async.mbarrier.arrive",
        "cp.async.bulk",
        "cp.async.bulk.tensor",
        "cp.async.bulk.prefetch",
        "cp.async.bulk.prefetch.tensor",
        "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group",
        "cp.reduce.async.bulk",
        "cp.reduce.async.bulk.tensor",
        "multimem.ld_reduce",
        "multimem.st",
        "multimem.red",
        "multimem.cp.async.bulk",
        "multimem.cp.reduce.async.bulk",
        "mbarrier.init",
        "mbarrier.inval",
        "mbarrier.expect_tx",
        "mbarrier.complete_tx",
        "mbarrier.arrive",
        "mbarrier.arrive_drop",
        "mbarrier.test_wait",
        "mbarrier.try_wait",
        "mbarrier.pending_count",
        "tensormap.replace",
        "tensormap.cp_fenceproxy",
        "clusterlaunchcontrol.try_cancel",
        "clusterlaunchcontrol.query_cancel",
        "wmma.load",
        "wmma.store",
        "wmma.mma",
        "wgmma.mma_async",
        "wgmma.fence",
        "wgmma.commit_group",
        "wgmma.wait_group",
        "tcgen05.alloc",
        "tcgen05.dealloc",
        "tcgen05.relinquish_alloc_permit",
        "tcgen05.ld",
        "tcgen05.st",
        "tcgen05.wait",
        "tcgen05.cp",
        "tcgen05.shift",
        "tcgen05.mma",
        "tcgen05.commit",
        "tcgen05.fence",
        "st.async",
        "st.bulk",
        "red.async",
    }
)

# Single-word mnemonics.
BASE_MNEMONICS: frozenset[str] = frozenset(
    [
        "abs",
        "activemask",
        "add",
        "addc",
        "alloca",
        "and",
        "applypriority",
        "atom",
        "bar",
        "barrier",
        "bfe",
        "bfi",
        "bfind",
        "bmsk",
        "bra",
        "brev",
        "brkpt",
        "call",
        "clz",
        "cnot",
        "copysign",
        "cos",
        "createpolicy",
        "cvt",
        "cvta",
        "discard",
        "div",
        "dp2a",
        "dp4a",
        "elect",
        "ex2",
        "exit",
        "fence",
        "fma",
        "fns",
        "getctarank",
        "griddepcontrol",
        "isspacep",
        "istypep",
        "ld",
        "ldmatrix",
        "ldu",
        "lg2",
        "lop3",
        "mad",
        "mad24",
        "madc",
        "mapa",
        "match",
        "max",
        "membar",
        "min",
        "mma",
        "mov",
        "movmatrix",
        "mul",
        "mul24",
        "nanosleep",
        "neg",
        "not",
        "or",
        "pmevent",
        "popc",
        "prefetch",
        "prefetchu",
        "prmt",
        "rcp",
        "red",
        "redux",
        "rem",
        "ret",
        "rsqrt",
        "sad",
        "selp",
        "set",
        "setmaxnreg",
        "setp",
        "shf",
        "shfl",
        "shl",
        "shr",
        "sin",
        "slct",
        "sqrt",
        "st",
        "stackrestore",
        "stacksave",
        "stmatrix",
        "sub",
        "subc",
        "suld",
        "suq",
        "sured",
        "sust",
        "szext",
        "suld",
        "tanh",
        "testp",
        "tex",
        "tld4",
        "trap",
        "txq",
        "vabsdiff",
        "vabsdiff2",
        "vabsdiff4",
        "vadd",
        "vadd2",
        "vadd4",
        "vavrg2",
        "vavrg4",
        "vmad",
        "vmax",
        "vmax2",
        "vmax4",
        "vmin",
        "vmin2",
        "vmin4",
        "vote",
        "vset",
        "vset2",
        "vset4",
        "vshl",
        "vshr",
        "vsub",
        "vsub2",
        "vsub4",
        "xor",
    ]
)

# First words of the multi-word mnemonics that are not instructions on their own.
_PREFIX_ONLY = frozenset(m.split(".")[0] for m in MULTI_MNEMONICS) - BASE_MNEMONICS
KNOWN_FIRST_WORDS: frozenset[str] = BASE_MNEMONICS | _PREFIX_ONLY

_MULTI_BY_FIRST: dict[str, tuple[tuple[str, ...], ...]] = {}
for _m in sorted(MULTI_MNEMONICS, key=lambda s: -s.count(".")):
    _parts = tuple(_m.split("."))
    _MULTI_BY_FIRST.setdefault(_parts[0], ())
    _MULTI_BY_FIRST[_parts[0]] = (*_MULTI_BY_FIRST[_parts[0]], _parts)

# Operation vocabularies, per mnemonic (the modifier that says *what* an instruction does).
_ATOMIC_OPS = frozenset({"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"})
OP_VOCAB: dict[str, frozenset[str]] = {
    "atom": _ATOMIC_OPS,
    "red": _ATOMIC_OPS,
    "red.async": _ATOMIC_OPS,
    "multimem.ld_reduce": _ATOMIC_OPS,
    "multimem.red": _ATOMIC_OPS,
    "multimem.cp.reduce.async.bulk": _ATOMIC_OPS,
    "cp.reduce.async.bulk": _ATOMIC_OPS,
    "cp.reduce.async.bulk.tensor": _ATOMIC_OPS,
    "redux": frozenset({"add", "min", "max", "and", "or", "xor"}),
    "bar": frozenset({"and", "or", "popc"}),
    "barrier": frozenset({"and", "or", "popc"}),
    "vote": frozenset({"all", "any", "uni", "ballot"}),
    "shfl": frozenset({"up", "down", "bfly", "idx"}),
    "match": frozenset({"any", "all"}),
    "testp": frozenset({"finite", "infinite", "number", "notanumber", "normal", "subnormal"}),
    "prmt": frozenset({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"}),
    "shf": frozenset({"l", "r"}),
    "griddepcontrol": frozenset({"launch_dependents", "wait"}),
    "setmaxnreg": frozenset({"inc", "dec"}),
    "barrier.cluster": frozenset({"arrive", "wait"}),
    "txq": frozenset(
        {
            "width",
            "height",
            "depth",
            "channel_data_type",
            "channel_order",
            "normalized_coords",
            "filter_mode",
            "addr_mode_0",
            "addr_mode_1",
            "addr_mode_2",
            "samp_pos",
            "force_unnormalized_coords",
            "array_size",
            "num_mipmap_levels",
            "num_samples",
        }
    ),
    "suq": frozenset(
        {"width", "height", "depth", "channel_data_type", "channel_order", "array_size"}
    ),
    "istypep": frozenset({"texref", "samplerref", "surfref"}),
}
for _v in ("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad"):
    OP_VOCAB[_v] = frozenset({"add", "min", "max"})
for _v in ("vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2"):
    OP_VOCAB[_v] = frozenset({"add"})
for _v in ("vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4"):
    OP_VOCAB[_v] = frozenset({"add"})

CMP_MNEMONICS = frozenset({"setp", "set", "vset", "vset2", "vset4"})
BOOL_MNEMONICS = frozenset({"setp", "set"})
_SEM_NAMES = frozenset(s.value for s in Sem)
_SCOPE_NAMES = frozenset(s.value for s in Scope)
_CACHE_NAMES = frozenset(c.value for c in CacheOp)
_VEC = {"v2": 2, "v4": 4, "v8": 8, "v16": 16}
_SHAPE = re.compile(r"m\d+n\d+k\d+|\d+x\d+b(?:x\d+)?$")
# Modifiers that never name a type even though they spell like one in some contexts.
_OPAQUE_AS_OP = frozenset({"istypep"})


@dataclass(frozen=True, slots=True)
class Mods:
    """The modifiers of one instruction, as written (``raw``) and decoded by category.

    ``raw`` holds the modifiers without their dots, in order (``("global", "v4", "f32")``); a
    modifier glued to the mnemonic with ``::`` keeps its colons (``tcgen05.wait::ld`` ->
    ``("::ld", ...)``).
    """

    raw: tuple[str, ...] = ()
    types: tuple[PtxType, ...] = ()
    spaces: tuple[StateSpace, ...] = ()
    cmp: CmpOp | None = None
    boolop: BoolOp | None = None
    rnd: Rounding | None = None
    vec: int = 0
    sem: Sem | None = None
    scope: Scope | None = None
    cache: CacheOp | None = None
    op: str | None = None
    shape: str | None = None
    flags: frozenset[str] = frozenset()

    @property
    def type(self) -> PtxType | None:
        """The first (for most instructions the only) type suffix."""
        return self.types[0] if self.types else None

    @property
    def space(self) -> StateSpace | None:
        """The first state space (the destination's, for copies such as ``cp.async``)."""
        return self.spaces[0] if self.spaces else None

    @property
    def raw_set(self) -> frozenset[str]:
        return _raw_set(self.raw)

    @property
    def suffix(self) -> str:
        """The modifiers as PTX text (``.global.v4.f32``)."""
        return "".join(m if m.startswith("::") else "." + m for m in self.raw)


@functools.lru_cache(maxsize=4096)
def _raw_set(raw: tuple[str, ...]) -> frozenset[str]:
    return frozenset(m.lstrip(":") for m in raw)


def split_name(name: str) -> tuple[str, tuple[str, ...]]:
    """Split ``ld.global.f32`` into (``ld``, (``global``, ``f32``)). An unknown mnemonic is
    returned as its first word (the checker reports it). Cached by `decode_name`."""
    parts = name.split(".")
    first = parts[0]
    for cand in _MULTI_BY_FIRST.get(first, ()):
        n = len(cand)
        if len(parts) < n:
            continue
        ok = True
        glued = ""
        for i in range(1, n):
            p = parts[i]
            if p == cand[i]:
                continue
            # tcgen05.wait::ld: the word carries a '::' suffix that is a modifier
            if i == n - 1 and p.startswith(cand[i] + "::"):
                glued = p[len(cand[i]) :]
                continue
            ok = False
            break
        if ok:
            rest = tuple(parts[n:])
            return ".".join(cand), ((glued, *rest) if glued else rest)
    return first, tuple(parts[1:])


def decode(opcode: str, raw: tuple[str, ...]) -> Mods:
    """Sort the modifiers of ``opcode`` into categories (see `Mods`)."""
    return _decode(opcode, raw)


@functools.lru_cache(maxsize=8192)
def _decode(opcode: str, raw: tuple[str, ...]) -> Mods:
    types: list[PtxType] = []
    spaces: list[StateSpace] = []
    cmp: CmpOp | None = None
    boolop: BoolOp | None = None
    rnd: Rounding | None = None
    vec = 0
    sem: Sem | None = None
    scope: Scope | None = None
    cache: CacheOp | None = None
    op: str | None = None
    shape: str | None = None
    flags: list[str] = []
    ops = OP_VOCAB.get(opcode, frozenset())
    for m in raw:
        if m in TYPE_NAMES and opcode not in _OPAQUE_AS_OP:
            types.append(PtxType(m))
        elif m in ops and op is None:
            op = m
        elif m in SPACE_NAMES:
            spaces.append(StateSpace(m))
        elif opcode in CMP_MNEMONICS and m in CMP_NAMES and cmp is None:
            cmp = CmpOp(m)
        elif opcode in BOOL_MNEMONICS and m in ("and", "or", "xor") and boolop is None:
            boolop = BoolOp(m)
        elif m in RND_NAMES and rnd is None:
            rnd = Rounding(m)
        elif m in _VEC and not vec:
            vec = _VEC[m]
        elif m in _SEM_NAMES and sem is None:
            sem = Sem(m)
        elif m in _SCOPE_NAMES and scope is None:
            scope = Scope(m)
        elif m in _CACHE_NAMES and cache is None:
            cache = CacheOp(m)
        elif shape is None and _SHAPE.fullmatch(m):
            shape = m
        else:
            flags.append(m.lstrip(":"))
    return Mods(
        raw=raw,
        types=tuple(types),
        spaces=tuple(spaces),
        cmp=cmp,
        boolop=boolop,
        rnd=rnd,
        vec=vec,
        sem=sem,
        scope=scope,
        cache=cache,
        op=op,
        shape=shape,
        flags=frozenset(flags),
    )


@functools.lru_cache(maxsize=8192)
def decode_name(name: str) -> tuple[str, Mods]:
    """``"ld.global.f32"`` -> (``"ld"``, decoded modifiers)."""
    opcode, raw = split_name(name)
    return opcode, _decode(opcode, raw)


def is_known_mnemonic(opcode: str) -> bool:
    return opcode in BASE_MNEMONICS or opcode in MULTI_MNEMONICS
