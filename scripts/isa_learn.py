#!/usr/bin/env python3
"""Learn the sm_90 instruction table from ptxas output and nvdisasm, and check it.

    python scripts/isa_learn.py learn   # observed words -> openptxas/isa/tables/sm90.py
    python scripts/isa_learn.py check   # re-verify the committed table against nvdisasm

Input: scripts/isa_data/sm90_observed.tsv.gz (scripts/isa_harvest.py), hints in
scripts/isa_hints.py. Method, per form (docs/isa.md has the details):

1. Take an observed word no learned form decodes yet (most frequent first). If flipping single
   bits makes hidden operands appear (IADD3's carry-out PT), set those fields to make every
   operand visible: that word is the form's representative.
2. Flip each of bits 12-104 and 122-125 and disassemble every variant with
   ``nvdisasm -b SM90`` (one batch). Compare each variant's normalised text with the
   representative's: a bit that changes one part of one operand belongs to that operand's field
   (its weight gives its position in the field: register numbers, offsets, branch offsets,
   immediates - floats through their bit patterns); a bit that changes only modifiers is a
   modifier bit; a bit that changes the opcode, the operand layout or makes the word illegal,
   and a bit that changes nothing, is fixed at the representative's value.
3. Enumerate every combination of the modifier bits (or of each run of them when there are too
   many) and factor the table into independent fields, merging interacting bits; enumerate
   selector and special-register fields; probe which optional operands nvdisasm prints.
4. Check the form on every observed word it claims, and drop words it prints wrongly.

``check`` decodes every observed word and a sample of random encodings of every form (random
field values) with the committed table, prints them, and compares with nvdisasm; it also
re-encodes every decoded word and checks the round trip is bit-exact.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import hashlib
import itertools
import pprint
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import isa_hints  # noqa: E402
from isa_norm import ZERO_CODE, Norm, label_operands, normalize  # noqa: E402
from isa_nvdisasm import RawDisasm  # noqa: E402

from openptxas.isa.codec import decode_with, encode_with  # noqa: E402
from openptxas.isa.family import Family  # noqa: E402
from openptxas.isa.floatfmt import parse_float  # noqa: E402
from openptxas.isa.model import ImmKind, RegFile  # noqa: E402
from openptxas.isa.printer import format_instruction  # noqa: E402
from openptxas.isa.spec import Form, bits_mask, form_from_literal  # noqa: E402
from openptxas.isa.syntax import parse_line  # noqa: E402

DATA = REPO / "scripts" / "isa_data"
TABLES = REPO / "openptxas" / "isa" / "tables"
FLIP_BITS = (*range(12, 105), 122, 123, 124, 125)
CTRL_KEEP = ((1 << 23) - 1) << 105
MAX_JOINT = 15  # enumerate up to 2**15 modifier combinations jointly
INPUTS = ("scripts/isa_learn.py", "scripts/isa_norm.py", "scripts/isa_hints.py")


# ----------------------------------------------------------------------------------------------
# Probing


# nvdisasm's architecture each family is learned and checked with. sm80 (sm_80/86/87/88) is
# learned with SM86: it prints every sm_80 word as SM80 does and also reads sm_86's I2FP, which
# SM80 rejects (scripts/isa_family_diff.py), so one table serves the family.
FAMILY_ARCH = {"sm90": "SM90", "sm100": "SM100", "sm80": "SM86", "sm120": "SM120"}
# the targets a family's table serves (its module docstring)
FAMILY_TARGETS = {
    "sm90": "sm_90, sm_90a",
    "sm80": "sm_80, sm_86, sm_87, sm_88",
    "sm89": "sm_89",
    "sm75": "sm_75",
}
FAMILY_ARCH.update(sm89="SM89", sm75="SM75")
# (sm_103 and sm_121 print every word as sm_100 and sm_120 do; sm_110 does not:
# scripts/isa_family_diff.py)
FAMILY_TARGETS.update(sm100="sm_100, sm_103 and their a/f variants", sm120="sm_120, sm_121 (a/f)")
# zero-register codes that differ from sm_90's (URZ is UR255 from Blackwell on: 8-bit UR fields)
FAMILY_ZERO = {"sm100": {RegFile.UR: 255}, "sm120": {RegFile.UR: 255}}
# Families learned as their base's rows plus differences (``learn_derived``): sm_89 prints every
# word as sm_86 does except F2FP's conversion types (F2FP.F16.F32.PACK_AB for F2FP.PACK_AB) and
# the FP8 conversions it adds (scripts/isa_family_diff.py).
FAMILY_BASE = {"sm89": "sm80"}


class Prober:
    """Disassembles words and normalises the text (each word decoded at two addresses so that
    branch targets can be told from other numbers)."""

    def __init__(self, arch: str = "SM90") -> None:
        self.dis = RawDisasm(arch)

    def texts(self, words: Sequence[int]) -> list[str | None]:
        return self.dis.texts(words)

    def norms(self, words: Sequence[int]) -> list[Norm | None]:
        n = len(words)
        both = self.dis.texts([*words, *words])
        out: list[Norm | None] = []
        for i in range(n):
            a, b = both[i], both[n + i]
            out.append(normalize(a, 16 * i, label_operands(a, b, 16 * n), ALIAS_TOKENS))
        return out


NOP = (0x000FC00000000000 << 64) | 0x0000000000007918
ALIAS_TOKENS = {op: frozenset(a[0] for a in al) for op, al in isa_hints.ALIASES.items()}

# A learning step is a generator: it yields the words it wants disassembled and receives their
# Norms; ``run_steps`` runs many steps at once so that each nvdisasm run serves all of them.
T = TypeVar("T")
Step = Generator[list[int], list["Norm | None"], T]


def run_steps(pr: Prober, steps: dict[Any, Step[Any]]) -> dict[Any, Any]:
    """Run generator steps to completion, batching their requests; values or LearnErrors."""
    results: dict[Any, Any] = {}
    requests: dict[Any, list[int]] = {}

    def advance(key: Any, send: list[Norm | None] | None) -> None:
        try:
            req = steps[key].send(send) if send is not None else next(steps[key])
        except StopIteration as stop:
            results[key] = stop.value
            requests.pop(key, None)
        except LearnError as exc:
            results[key] = exc
            requests.pop(key, None)
        else:
            requests[key] = req

    for key in steps:
        advance(key, None)
    while requests:
        keys = list(requests)
        batch: list[int] = []
        spans = []
        for k in keys:
            spans.append((len(batch), len(requests[k])))
            batch.extend(requests[k])
        norms = pr.norms(batch)
        for k, (start, n) in zip(keys, spans, strict=True):
            advance(k, norms[start : start + n])
    return results


def bit(word: int, b: int) -> int:
    return (word >> b) & 1


# ----------------------------------------------------------------------------------------------
# Bit classification


@dataclass
class Attr:
    """Flips that changed one atom of one operand."""

    op: int
    key: str
    flips: list[tuple[int, Any, Any]] = field(default_factory=list)  # (bit, old, new)


@dataclass
class Analysis:
    rep: int
    norm: Norm
    fixed: set[int] = field(default_factory=set)
    guard: set[int] = field(default_factory=set)
    mods: set[int] = field(default_factory=set)
    attrs: dict[tuple[int, str], Attr] = field(default_factory=dict)
    optional: set[int] = field(default_factory=set)
    vanish: dict[int, list[int]] = field(default_factory=dict)  # operand -> bits hiding it
    imm_default: dict[int, int] = field(default_factory=dict)  # operand -> value hiding it


def _default_atoms(d: dict[str, Any]) -> dict[str, Any]:
    out = dict(d)
    if d["k"] == "reg":
        out["index"] = ZERO_CODE.get(RegFile(d["file"]), d["index"])
        out.update(neg=False, abs=False, not_=False, sel="", reuse=False)
        out.pop("not_")
        out["not"] = False
    return out


def _subseq_removed(big: tuple[Any, ...], small: tuple[Any, ...]) -> list[int]:
    """Indices j with big minus big[j] == small."""
    return [j for j in range(len(big)) if big[:j] + big[j + 1 :] == small]


def classify(rep: int, n0: Norm, variants: list[Norm | None]) -> Analysis:
    an = Analysis(rep, n0)
    for b, nb in zip(FLIP_BITS, variants, strict=True):
        if nb is None or nb.opcode != n0.opcode:
            an.fixed.add(b)
            continue
        if nb.text == n0.text:
            if b < 105 or b == 125:
                an.fixed.add(b)  # no visible effect: pinned at the representative's value
            continue
        if nb.guard != n0.guard:
            if nb.mods == n0.mods and nb.ops == n0.ops and 12 <= b <= 15:
                an.guard.add(b)
            else:
                an.fixed.add(b)
            continue
        if nb.mods != n0.mods:
            if nb.ops == n0.ops and nb.seps == n0.seps:
                an.mods.add(b)
            else:
                an.fixed.add(b)
            continue
        if len(nb.ops) < len(n0.ops):
            js = _subseq_removed(n0.ops, nb.ops)
            if len(js) >= 1:
                j = js[-1]
                d0 = n0.op(j)
                if d0["k"] == "reg":
                    zero = ZERO_CODE[RegFile(d0["file"])]
                    delta = abs(zero - d0["index"])
                    if delta and not delta & (delta - 1):
                        _add_attr(an, j, "index", b, d0["index"], zero)
                        an.optional.add(j)
                        continue
                elif d0["k"] == "num" and len(js) == 1:
                    an.vanish.setdefault(j, []).append(b)
                    an.fixed.add(b)
                    continue
            an.fixed.add(b)
            continue
        if len(nb.ops) != len(n0.ops) or nb.shape != n0.shape:
            an.fixed.add(b)
            continue
        diffs = [i for i in range(len(n0.ops)) if n0.ops[i] != nb.ops[i]]
        # one field printed as two equal operands (BAR.SYNC R9, R9): the flip changes both alike
        tied = len(diffs) == 2 and all(n0.ops[i] == n0.ops[diffs[0]] for i in diffs)
        tied = tied and nb.ops[diffs[0]] == nb.ops[diffs[1]]
        if len(diffs) != 1 and not tied:
            an.fixed.add(b)
            continue
        i = diffs[0]
        d0, d1 = n0.op(i), nb.op(i)
        keys = [k for k in d0 if d0[k] != d1.get(k)]
        if len(keys) != 1 or keys[0].endswith("file"):
            an.fixed.add(b)
            continue
        key = keys[0]
        if key.endswith(("index", "offset", "bank", "off")):
            delta = abs(d1[key] - d0[key])
            if delta & (delta - 1):
                an.fixed.add(b)  # a flag that swaps a part in or out: a different form
                continue
        for i in diffs:
            _add_attr(an, i, key, b, d0[key], d1[key])
    return an


def _add_attr(an: Analysis, op: int, key: str, b: int, old: Any, new: Any) -> None:
    a = an.attrs.setdefault((op, key), Attr(op, key))
    a.flips.append((b, old, new))


# ----------------------------------------------------------------------------------------------
# Fields from flips


class LearnError(Exception):
    pass


def to_bits(positions: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """Bit numbers (least significant first) -> ((lsb, width), ...) runs, in value order."""
    out: list[list[int]] = []
    for p in positions:
        if out and out[-1][0] + out[-1][1] == p:
            out[-1][1] += 1
        else:
            out.append([p, 1])
    return tuple((a, w) for a, w in out)


def numeric_field(
    rep: int, flips: list[tuple[int, Any, Any]], allow_inverted: bool = False
) -> tuple[list[int], bool, int]:
    """(bit positions in value order, signed, shift) from flips of an integer-valued atom.

    With ``allow_inverted``, a field whose every weight is negative (value = ~field) is
    returned with signed=True meaning *inverted*."""
    weights = []
    for b, old, new in flips:
        w = (new - old) if not bit(rep, b) else (old - new)
        weights.append((b, w))
    if allow_inverted and weights and all(w < 0 for _, w in weights):
        order, _signed, shift = numeric_field(rep, [(b, n, o) for b, o, n in flips])
        return order, True, shift
    if not weights:
        raise LearnError("no flips")
    scale = min(abs(w) for _, w in weights)
    if scale <= 0 or scale & (scale - 1):
        raise LearnError(f"weights {weights}")
    shift = scale.bit_length() - 1
    order = sorted(weights, key=lambda bw: abs(bw[1]))
    signed = False
    for k, (_b, w) in enumerate(order):
        want = scale << k
        if abs(w) != want:
            raise LearnError(f"field gap: weights {[w for _, w in order]}")
        if w < 0:
            if k != len(order) - 1:
                raise LearnError(f"negative weight inside field: {[w for _, w in order]}")
            signed = True
    return [b for b, _ in order], signed, shift


_FLOAT_KINDS = (ImmKind.F32, ImmKind.F16, ImmKind.F64)


def _special(t: str) -> bool:
    return t.lstrip("+-") in ("INF", "QNAN", "SNAN")


def float_field(rep: int, flips: list[tuple[int, Any, Any]]) -> tuple[list[int], ImmKind, int]:
    """(bit positions in value order, kind, shift) for a floating-point immediate.

    Tries f32, f16 and f64 (a field holding the top bits of the binary64 pattern) in turn;
    flips that print an infinity or NaN are skipped (NaN payloads do not print) and their
    positions filled in from the field's contiguity."""
    bits = sorted(b for b, _, _ in flips)
    width_of = {ImmKind.F16: 16, ImmKind.F32: 32, ImmKind.F64: 64}
    for kind in _FLOAT_KINDS:
        pos: dict[int, int] = {}
        ok = True
        for b, old, new in flips:
            if _special(old) or _special(new):
                continue
            try:
                x = parse_float(old, kind) ^ parse_float(new, kind)
            except (ValueError, KeyError, OverflowError):
                ok = False
                break
            if not x or x & (x - 1):
                ok = False
                break
            pos[b] = x.bit_length() - 1
        if not ok or not pos:
            continue
        lo = {pos[b] - bits.index(b) for b in pos}
        if len(lo) != 1:
            continue
        shift = lo.pop()
        if shift + len(bits) != width_of[kind]:
            continue
        return bits, kind, shift
    raise LearnError(f"no float kind fits {flips[:3]}")


# ----------------------------------------------------------------------------------------------
# Modifier fields


def enumerate_mods(
    rep: int, n0: Norm, mod_bits: list[int]
) -> Step[dict[tuple[int, ...], tuple[str, ...]]]:
    """Modifier tokens for each combination of mod-bit values (that keeps the layout)."""
    runs: list[list[int]]
    if len(mod_bits) <= MAX_JOINT:
        runs = [mod_bits]
    else:
        runs = []
        for b in mod_bits:
            if runs and runs[-1][-1] + 1 == b and len(runs[-1]) < 8:
                runs[-1].append(b)
            else:
                runs.append([b])
    base = tuple(bit(rep, b) for b in mod_bits)
    table: dict[tuple[int, ...], tuple[str, ...]] = {}
    for run in runs:
        words, combos = [], []
        for vals in itertools.product((0, 1), repeat=len(run)):
            w = rep
            for b, v in zip(run, vals, strict=True):
                w = (w & ~(1 << b)) | (v << b)
            words.append(w)
            combos.append(tuple(bit(w, b) for b in mod_bits))
        got = yield words
        for combo, nb in zip(combos, got, strict=True):
            if (
                nb is not None
                and nb.opcode == n0.opcode
                and nb.ops == n0.ops
                and nb.seps == n0.seps
                and nb.guard == n0.guard
            ):
                table[combo] = nb.mods
    if base not in table:
        raise LearnError("representative missing from its own modifier table")
    return table


@dataclass
class ModGroup:
    bits: list[int]  # absolute bit numbers, value order
    tokens: dict[int, tuple[str, ...]]
    pos: int = 0


def _contribution(
    table: dict[tuple[int, ...], tuple[str, ...]], base: tuple[int, ...], idx: list[int]
) -> tuple[dict[int, tuple[str, ...]], int] | None:
    """Tokens each value of the bits ``idx`` contributes (others at base), and their position."""
    variants: dict[int, tuple[str, ...]] = {}
    for vals in itertools.product((0, 1), repeat=len(idx)):
        combo = list(base)
        for i, v in zip(idx, vals, strict=True):
            combo[i] = v
        t = table.get(tuple(combo))
        if t is not None:
            variants[sum(v << k for k, v in enumerate(vals))] = t
    if not variants:
        return None
    seqs = list(variants.values())
    pre = 0
    while all(len(s) > pre for s in seqs) and len({s[pre] for s in seqs}) == 1:
        pre += 1
    suf = 0
    while all(len(s) - pre > suf for s in seqs) and len({s[len(s) - 1 - suf] for s in seqs}) == 1:
        suf += 1
    return {v: s[pre : len(s) - suf] for v, s in variants.items()}, pre


def _additive(
    table: dict[tuple[int, ...], tuple[str, ...]], base: tuple[int, ...], i: int, j: int
) -> bool:
    """Whether bits i and j act independently: M(11) = M(10) + M(01) - M(00) as multisets,
    with the other bits at the representative's values (no evidence counts as independent)."""
    from collections import Counter

    def t(vi: int, vj: int) -> tuple[str, ...] | None:
        c = list(base)
        c[i] ^= vi
        c[j] ^= vj
        return table.get(tuple(c))

    m00, m10, m01, m11 = t(0, 0), t(1, 0), t(0, 1), t(1, 1)
    if m00 is None or m10 is None or m01 is None or m11 is None:
        return True
    want = Counter(m10) + Counter(m01)
    want.subtract(Counter(m00))
    if any(v < 0 for v in want.values()):
        return False
    return +want == Counter(m11)


def factor_mods(
    table: dict[tuple[int, ...], tuple[str, ...]], mod_bits: list[int], rep: int
) -> list[ModGroup]:
    """Split the modifier bits into independent fields (bits whose tokens do not combine
    additively are in one field), each with its value -> tokens map, in print order."""
    base = tuple(bit(rep, b) for b in mod_bits)
    n = len(mod_bits)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in range(n):
        for j in range(i + 1, n):
            if find(i) != find(j) and not _additive(table, base, i, j):
                parent[find(i)] = find(j)
    comps: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        comps[find(i)].append(i)
    groups = sorted(comps.values())
    for _ in range(n):
        built: list[ModGroup] = []
        for g in groups:
            c = _contribution(table, base, g)
            if c is None:
                break
            built.append(ModGroup([mod_bits[i] for i in g], c[0], c[1]))
        else:
            ordered = _order_groups(built, table, mod_bits, base, groups)
            if ordered is not None:
                try:
                    full = with_constant_tokens(
                        ordered, table[base], dict(zip(mod_bits, base, strict=True))
                    )
                except LearnError:
                    full = None
                if full is not None and _consistent(full, table, mod_bits):
                    return full
        pair = _first_conflict(
            groups, built if len(built) == len(groups) else [], table, mod_bits, base
        )
        if pair is None:
            break
        a, b = pair
        merged = sorted(groups[a] + groups[b])
        groups = sorted([g for k, g in enumerate(groups) if k not in (a, b)] + [merged])
    # Fall back to one joint field (always exact on the enumerated combinations).
    toks = {sum(v << k for k, v in enumerate(combo)): t for combo, t in table.items()}
    return [ModGroup(list(mod_bits), toks, 0)]


def _constant_fill(groups: list[ModGroup], mods: tuple[str, ...], rep: int) -> list[ModGroup]:
    return with_constant_tokens(groups, mods, {b: bit(rep, b) for g in groups for b in g.bits})


def with_constant_tokens(
    groups: list[ModGroup], mods: tuple[str, ...], base: dict[int, int]
) -> list[ModGroup]:
    """Insert fixed-token groups (no bits) for the representative's modifiers that no field
    produces (tokens of bits the form fixes, such as LEA's .HI.X). ``groups`` are in print
    order with their token position in ``mods``; ``base``: bit -> representative's value."""
    out: list[ModGroup] = []
    cur = 0
    for g in groups:
        toks = g.tokens[sum(base[b] << k for k, b in enumerate(g.bits))]
        p = max(g.pos, cur) if not toks else g.pos
        if p < cur or tuple(mods[p : p + len(toks)]) != toks:
            raise LearnError(f"modifier fields do not spell {'.'.join(mods)}")
        if p > cur:
            out.append(ModGroup([], {0: tuple(mods[cur:p])}, cur))
        out.append(g)
        cur = p + len(toks)
    if cur < len(mods):
        out.append(ModGroup([], {0: tuple(mods[cur:])}, cur))
    return out


def _order_groups(
    built: list[ModGroup],
    table: dict[tuple[int, ...], tuple[str, ...]],
    mod_bits: list[int],
    base: tuple[int, ...],
    groups: list[list[int]],
) -> list[ModGroup] | None:
    """Order groups by where their tokens go; break ties with joint combinations."""
    idx = list(range(len(built)))

    def before(i: int, j: int) -> int:
        gi, gj = built[i], built[j]
        if gi.pos != gj.pos:
            return -1 if gi.pos < gj.pos else 1
        for vi, ti in gi.tokens.items():
            if not ti:
                continue
            for vj, tj in gj.tokens.items():
                if not tj:
                    continue
                combo = list(base)
                for k, gbit in enumerate(groups[i]):
                    combo[gbit] = vi >> k & 1
                for k, gbit in enumerate(groups[j]):
                    combo[gbit] = vj >> k & 1
                t = table.get(tuple(combo))
                if t is None:
                    continue
                s = ".".join(t)
                a, b = s.find(".".join(ti)), s.find(".".join(tj))
                if a >= 0 and b >= 0 and a != b:
                    return -1 if a < b else 1
        return -1 if min(gi.bits) < min(gj.bits) else 1

    import functools

    idx.sort(key=functools.cmp_to_key(before))
    return [built[i] for i in idx]


def _probe_order(
    rep: int,
    groups: list[ModGroup],
    table: dict[tuple[int, ...], tuple[str, ...]],
    mod_bits: list[int],
) -> Step[list[ModGroup]]:
    """Settle the print order of modifier fields with one probe per pair, both fields set to
    a value that prints tokens (the enumeration may hold no such combination when the bits
    were enumerated in runs: SULD's width and cache fields); kept only if the new order still
    predicts every enumerated combination."""
    from openptxas.isa.spec import put_bits

    def pick(g: ModGroup) -> int | None:
        vals = [v for v, t in sorted(g.tokens.items()) if t and not any("INVALID" in x for x in t)]
        return vals[0] if vals else None

    pairs = []
    words = []
    for i in range(len(groups)):
        for j in range(i + 1, len(groups)):
            vi, vj = pick(groups[i]), pick(groups[j])
            if vi is None or vj is None:
                continue
            w = rep
            if groups[i].bits:
                w = put_bits(w, to_bits(groups[i].bits), vi)
            if groups[j].bits:
                w = put_bits(w, to_bits(groups[j].bits), vj)
            pairs.append((i, j, vi, vj))
            words.append(w)
    if not words:
        return groups
    got = yield words
    order: dict[tuple[int, int], int] = {}
    for (i, j, vi, vj), nb in zip(pairs, got, strict=True):
        if nb is None:
            continue
        text = "." + ".".join(nb.mods) + "."
        a = text.find("." + ".".join(groups[i].tokens[vi]) + ".")
        b = text.find("." + ".".join(groups[j].tokens[vj]) + ".")
        if a >= 0 and b >= 0 and a != b:
            order[(i, j)] = -1 if a < b else 1
            order[(j, i)] = -order[(i, j)]
    import functools

    idx = sorted(
        range(len(groups)),
        key=functools.cmp_to_key(lambda x, y: order.get((x, y), -1 if x < y else 1)),
    )
    new = [groups[k] for k in idx]
    if new != groups and _consistent(new, table, mod_bits):
        return new
    return groups


def _predict(groups: list[ModGroup], combo: dict[int, int]) -> tuple[str, ...] | None:
    out: list[str] = []
    for g in groups:
        v = sum(combo[b] << k for k, b in enumerate(g.bits))
        t = g.tokens.get(v)
        if t is None:
            return None
        out.extend(t)
    return tuple(out)


def _consistent(
    groups: list[ModGroup], table: dict[tuple[int, ...], tuple[str, ...]], mod_bits: list[int]
) -> bool:
    for combo, toks in table.items():
        if _predict(groups, dict(zip(mod_bits, combo, strict=True))) != toks:
            return False
    # values must print distinctly within each group
    return all(len(set(g.tokens.values())) == len(g.tokens) for g in groups)


def _first_conflict(
    groups: list[list[int]],
    built: list[ModGroup],
    table: dict[tuple[int, ...], tuple[str, ...]],
    mod_bits: list[int],
    base: tuple[int, ...],
) -> tuple[int, int] | None:
    if len(groups) < 2:
        return None
    by_bit = {b: gi for gi, g in enumerate(groups) for b in g}
    if built:
        byname = {tuple(g.bits): g for g in built}
        order = [byname[tuple(mod_bits[i] for i in g)] for g in groups]
        for combo, toks in sorted(table.items()):
            pred = _predict(order, dict(zip(mod_bits, combo, strict=True)))
            changed = sorted(
                {by_bit[i] for i, (c, b0) in enumerate(zip(combo, base, strict=True)) if c != b0}
            )
            if pred != toks and len(changed) >= 2:
                return changed[0], changed[1]
        # a group whose values print identically: merge it with its neighbour
        for gi, g in enumerate(order):
            if len(set(g.tokens.values())) != len(g.tokens):
                return (gi, gi + 1) if gi + 1 < len(groups) else (gi - 1, gi)
        for combo, toks in sorted(table.items()):
            pred = _predict(order, dict(zip(mod_bits, combo, strict=True)))
            if pred != toks:
                changed = sorted(
                    {
                        by_bit[i]
                        for i, (c, b0) in enumerate(zip(combo, base, strict=True))
                        if c != b0
                    }
                )
                if changed:
                    other = changed[0] + 1 if changed[0] + 1 < len(groups) else changed[0] - 1
                    return min(changed[0], other), max(changed[0], other)
        return None
    # a group with no valid value on its own: merge with its neighbour
    for gi in range(len(groups)):
        if _contribution(table, base, groups[gi]) is None:
            return (gi, gi + 1) if gi + 1 < len(groups) else (gi - 1, gi)
    return None


# ----------------------------------------------------------------------------------------------
# One form


@dataclass
class Row:
    name: str
    opcode: str
    mask: int
    value: int
    mods: list[tuple[tuple[tuple[int, int], ...], list[tuple[int, str]]]]
    operands: list[dict[str, Any]]
    flags: dict[str, Any]
    rep: int
    layout_bits: tuple[int, ...] = ()  # fixed bits whose flip still disassembles (siblings)
    silent_bits: tuple[int, ...] = ()  # fixed bits whose flip changes nothing in the text
    # rows split off for modifier values under which nvdisasm prints an immediate with the
    # other sign (I2F's 32-bit immediate: unsigned with .U32, signed without)
    extra: list[Row] = field(default_factory=list)

    def literal(self) -> tuple[Any, ...]:
        mods = tuple((bits, tuple(vals)) for bits, vals in self.mods)
        ops = tuple(_frozen(o) for o in self.operands)
        return (self.name, self.opcode, self.mask, self.value, mods, ops, _frozen(self.flags))

    def form(self, index: int = 0) -> Form:
        return form_from_literal(self.literal()[1:], index, self.name)


def _frozen(x: Any) -> Any:
    """dicts -> tuples of (key, value) pairs, lists -> tuples: a constant-foldable literal."""
    if isinstance(x, dict):
        return tuple((k, _frozen(v)) for k, v in x.items())
    if isinstance(x, list | tuple):
        return tuple(_frozen(v) for v in x)
    return x


def make_visible(w: int, n0: Norm, exclude: int = 0) -> Step[tuple[int, Norm, int]]:
    """Set the fields of operands nvdisasm hides at their default so that all are printed.
    Returns the new word, its Norm and the mask of bits that made operands appear. Bits in
    ``exclude`` (flags that switch an operand in and out) are left alone."""
    appeared = 0
    for _ in range(2):
        variants = yield [w ^ (1 << b) for b in FLIP_BITS]
        appear = 0
        for b, nb in zip(FLIP_BITS, variants, strict=True):
            if (
                nb is not None
                and nb.opcode == n0.opcode
                and nb.mods == n0.mods
                and len(nb.ops) > len(n0.ops)
                and b < 105
                and not exclude >> b & 1
            ):
                appear |= 1 << b
        if not appear:
            break
        (nv,) = yield [w ^ appear]
        if nv is None or nv.mods != n0.mods or len(nv.ops) <= len(n0.ops):
            break
        w, n0 = w ^ appear, nv
        appeared |= appear
    return w, n0, appeared


def learn_row(word: int, name: str) -> Step[Row]:
    (orig,) = yield [word]
    if orig is None:
        raise LearnError("representative does not disassemble")
    exclude = 0
    for _attempt in range(4):
        rep, n0, appeared = yield from make_visible(word, orig, exclude)
        variants = yield [rep ^ (1 << b) for b in FLIP_BITS]
        an = classify(rep, n0, variants)
        flags = appeared & sum(1 << b for b in an.fixed | an.mods)
        if not flags:
            break
        exclude |= flags  # a bit that switches an operand on: keep the original's value
    else:
        raise LearnError("cannot make the hidden operands visible")
    yield from _probe_reuse(an)
    for (op, _key), a in an.attrs.items():
        if any(appeared >> b & 1 for b, _, _ in a.flips):
            an.optional.add(op)
    yield from _probe_optional(an)
    yield from _probe_optional_imm(an)
    has_guard = an.guard == {12, 13, 14, 15}
    if an.guard and not has_guard:
        raise LearnError(f"guard bits {sorted(an.guard)}")
    guard_file = "P"
    if has_guard:
        g12 = variants[FLIP_BITS.index(12)]
        assert g12 is not None and g12.guard is not None
        guard_file = g12.guard[0]

    operands = []
    for i in range(len(n0.ops)):
        operands.append((yield from _operand_literal(an, i)))
    used = 0
    for o in operands:
        used |= _literal_bits(o)
    mod_bits = sorted(b for b in an.mods if not used >> b & 1)
    mods: list[tuple[tuple[tuple[int, int], ...], list[tuple[int, str]]]] = []
    groups: list[ModGroup] = []
    if mod_bits:
        erep, en0 = yield from _rich(rep, n0, operands)
        table = yield from enumerate_mods(erep, en0, mod_bits)
        groups = factor_mods(table, mod_bits, erep)
        groups = yield from _probe_order(erep, groups, table, mod_bits)
    if not mod_bits and n0.mods:
        groups = [ModGroup([], {0: n0.mods})]
    for g in groups:
        mods.append((to_bits(g.bits), sorted((v, ".".join(t)) for v, t in g.tokens.items())))
        used |= bits_mask(to_bits(g.bits))
    guard_mask = 0xF << 12 if has_guard else 0
    mask = ((1 << 105) - 1) & ~used & ~guard_mask
    reuse_silent = [b for b in (122, 123, 124, 125) if b in an.fixed]
    for b in reuse_silent:  # candidate loose bits (below); never kept fixed
        mask |= 1 << b
    flags: dict[str, Any] = {}
    if not has_guard:
        flags["guard"] = ""
    elif guard_file != "P":
        flags["guard"] = guard_file
    opt = [i for i in range(len(operands)) if operands[i].get("opt")]
    for i in opt:
        if i in an.imm_default:
            if an.imm_default[i]:
                operands[i]["default"] = an.imm_default[i]
            continue
        v = an.vanish.get(i, [])
        hidden = len(orig.ops) < len(n0.ops) and not v
        _set_default(operands[i], word if hidden else rep, hidden, v)
    if opt:
        flags["omit"] = yield from _omission(rep, n0, operands, opt)
        when = yield from _omission_by_mods(rep, n0, operands, opt, mods, flags["omit"])
        if when:
            flags["omit_when"] = when
    layout = tuple(
        b
        for b, nb in zip(FLIP_BITS, variants, strict=True)
        if 9 <= b < 105 and b in an.fixed and nb is not None and _other_layout(n0, nb)
    )
    # bit 125 (the fourth reuse slot) is printed by no form; ptxas sets it on HMMA.SP/IMMA.SP
    # reading the metadata register of the instruction before (nvdisasm shows nothing): a
    # silent bit like those below 105, so it can become loose
    silent = tuple(
        b
        for b, nb in zip(FLIP_BITS, variants, strict=True)
        if (b < 105 or b in reuse_silent)
        and b in an.fixed
        and nb is not None
        and nb.text == n0.text
    )
    row = Row(name, n0.opcode, mask, rep & mask, mods, operands, flags, rep, layout, silent)
    yield from _loosen(row)
    for b in reuse_silent:  # not loose: must be 0, as every bit no field or mask covers
        row.mask &= ~(1 << b)
        row.value &= ~(1 << b)
    yield from _split_signed(row)
    aliases = isa_hints.ALIASES.get(n0.opcode)
    if aliases:
        kept = yield from _check_aliases(row, aliases)
        if kept:
            row.flags["alias"] = tuple(kept)
    # When does nvdisasm drop the blank before ';'? Stall 0, no wait, with and without a
    # scoreboard set.
    quiet = (rep & ~(((1 << 21) - 1) << 105)) | (0x7E0 << 105)  # reuse bits cleared too
    z, zsb = yield [quiet, quiet & ~(7 << 110)]
    if z is not None and z.text.endswith(" ;"):
        row.flags["semi0"] = " ;"
    elif zsb is not None and zsb.text.endswith(" ;"):
        row.flags["semi0"] = "sb"
    return row


def _shows_reuse(word: int) -> int:
    """``word`` with a control field under which nvdisasm prints ``.reuse``: bit 109 set, and a
    stall of 1 (nvdisasm rejects bit 109 with stall 0 and with stalls 12-15)."""
    return (word & ~(0xF << 105)) | 1 << 105 | 1 << 109


def _probe_reuse(an: Analysis) -> Step[None]:
    """nvdisasm prints ``.reuse`` only when the yield bit (109) is 1: a representative that may
    yield shows no effect of its reuse bits (sm_80's ``MOV R5, R3.reuse`` was learned from a
    yielding MOV). Flip the reuse bits that showed nothing again with bit 109 set; a flip that
    adds ``.reuse`` to one operand is that operand's reuse bit."""
    seen = an.fixed | an.mods | an.guard | {b for a in an.attrs.values() for b, _, _ in a.flips}
    cand = [b for b in (122, 123, 124) if b not in seen]
    # a reuse bit no operand shows is silent, like bit 125 (ptxas sets them on TEX.SCR.B.LL,
    # which prints no .reuse): fixed here, loose if nvdisasm ignores it (_loosen)
    an.fixed.update(cand)
    if an.rep >> 109 & 1 or not cand:
        return
    base = _shows_reuse(an.rep)
    n_base, *variants = yield [base, *(base ^ (1 << b) for b in cand)]
    if n_base is None:
        return
    for b, nb in zip(cand, variants, strict=True):
        if nb is None or nb.mods != n_base.mods or nb.shape != n_base.shape:
            continue
        diffs = [i for i in range(len(nb.ops)) if nb.ops[i] != n_base.ops[i]]
        if len(diffs) != 1:
            continue
        d0, d1 = n_base.op(diffs[0]), nb.op(diffs[0])
        keys = [k for k in d0 if d0[k] != d1.get(k)]
        if len(keys) == 1 and keys[0].endswith("reuse"):
            _add_attr(an, diffs[0], keys[0], b, d0[keys[0]], d1[keys[0]])
            an.fixed.discard(b)


LOOSE_SAMPLES = 8  # random encodings (besides the representative) each silent bit is flipped on


def _loosen(row: Row) -> Step[None]:
    """Free the row's silent bits (fixed bits whose flip changes nothing nvdisasm prints of the
    representative) that nvdisasm ignores: each is flipped on the representative and on
    random encodings of the form, and becomes *loose* (any value decodes; the encoder writes
    the representative's value, kept by ``Instruction.xbits`` when a word has another) only if
    no flip changes the text or makes the word illegal. A silent bit that matters elsewhere
    stays fixed at the representative's value, a value ptxas (or, for derived forms, the
    sibling nvdisasm printed) was seen writing."""
    cands = [b for b in row.silent_bits if row.mask >> b & 1]
    if not cands:
        return
    form = row.form()
    rng = random.Random(row.rep)
    ctl = row.rep & CTRL_KEEP & ~(0xF << 122)
    if any(b >= 122 for b in cands):
        ctl = _shows_reuse(ctl)  # a reuse flag must be able to show to be found loose
    bases = [row.rep] + [random_word(form, rng, ctl) for _ in range(LOOSE_SAMPLES)]
    words = [w ^ (1 << b) if b >= 0 else w for w in bases for b in (-1, *cands)]
    got = yield words
    loose = 0
    n = len(cands) + 1
    for k, b in enumerate(cands):
        ok = True
        for j in range(len(bases)):
            base, flipped = got[j * n], got[j * n + 1 + k]
            if j == 0 and base is None:
                return  # the representative itself: cannot happen
            if base is not None and (flipped is None or flipped.text != base.text):
                ok = False
                break
        if ok:
            loose |= 1 << b
    if loose:
        row.mask &= ~loose
        row.value &= ~loose
        # the encoder's value: the representative's, but never a reuse flag (bit 125)
        row.flags["loose"] = (loose, row.rep & loose & ~(0xF << 122))


def _split_signed(row: Row) -> Step[None]:
    """Modifier values under which nvdisasm prints a 32-bit integer immediate with the other
    sign than the representative (``I2F.U32.RP R0, 0x20`` but ``I2F.RM R4, -0x3``): they move
    to a copy of the row (``row.extra``) whose immediate has the other sign, so that each
    row prints every word it decodes as nvdisasm does."""
    from openptxas.isa.spec import get_bits, put_bits

    imms = [
        i
        for i, o in enumerate(row.operands)
        if o["k"] == "imm"
        and o["num"].get("kind", "int") == "int"
        and sum(w for _, w in o["num"]["bits"]) >= 16
        and not o["num"].get("shift")
    ]
    if not imms or not row.mods:
        return
    i = imms[-1]
    num = row.operands[i]["num"]
    width = sum(w for _, w in num["bits"])
    base = put_bits(row.rep, num["bits"], (1 << (width - 1)) | 0x5)
    cands: list[tuple[int, int, int]] = []
    for fi, (bits, vals) in enumerate(row.mods):
        if not bits or sum(w for _, w in bits) > 3:
            continue
        cur = get_bits(row.rep, bits)
        for v, toks in vals:
            if v != cur and "INVALID" not in toks:
                cands.append((fi, v, put_bits(base, bits, v)))
    if not cands:
        return
    norms = yield [w for _, _, w in cands]
    signed = bool(num.get("signed"))
    moved: dict[int, list[int]] = defaultdict(list)
    for (fi, v, _w), nb in zip(cands, norms, strict=True):
        if nb is None or len(nb.ops) != len(row.operands):
            continue
        text = _operand_text(nb.text, i)
        if text.startswith(("0x", "-0x")) and text.startswith("-") != signed:
            moved[fi].append(v)
    if len(moved) != 1:
        return  # none, or several fields: leave the row as it is (the check reports it)
    ((fi, values),) = moved.items()
    bits, vals = row.mods[fi]
    other = copy.deepcopy(row)
    other.name = row.name + "s"
    other.extra = []
    other.mods[fi] = (bits, [(v, t) for v, t in vals if v in values])
    other.operands[i]["num"]["signed"] = not signed
    other.rep = put_bits(row.rep, bits, values[0])
    other.value = other.rep & other.mask
    if signed:
        other.operands[i]["num"].pop("signed")
    row.mods[fi] = (bits, [(v, t) for v, t in vals if v not in values])
    row.extra.append(other)


def _other_layout(n0: Norm, nb: Norm) -> bool:
    """Whether ``nb`` is another layout of ``n0``'s instruction (other modifiers or opcode,
    operands of other kinds or number), not only other operand values."""
    return nb.opcode != n0.opcode or nb.mods != n0.mods or nb.shape != n0.shape


_REG_PROBES = (None, 1)  # the zero register, R1
_IMM_PROBES = (0, 1, 2, 8, 3, 0x10000, 0x40000000)


def _set_operand(w: int, o: dict[str, Any], value: int | None) -> int | None:
    """``w`` with operand ``o`` set to ``value`` (None: the zero register), or None if the
    operand has no field for it."""
    from openptxas.isa.spec import put_bits

    if o["k"] == "reg" and "index" in o["reg"]:
        if value is not None and value not in _REG_PROBES:
            return None
        reg = o["reg"]
        code = ZERO_CODE[RegFile(reg["file"])] if value is None else value
        if reg.get("inv"):
            code ^= (1 << sum(wd for _, wd in reg["index"])) - 1
        return put_bits(w, reg["index"], code)
    if o["k"] == "imm" and o["num"].get("kind", "int") == "int":
        if value is None:
            return None
        return put_bits(w, o["num"]["bits"], value >> o["num"].get("shift", 0))
    return None


def _probe_optional(an: Analysis) -> Step[None]:
    """Registers that vanish from the text when set to the zero register are optional: on the
    representative, or under another value of one modifier bit (nvdisasm leaves out
    ``BAR.SYNC 0x5, RZ``'s thread count but prints ``BAR.ARV 0x5, RZ``'s). For a modifier bit,
    the word with the bit flipped must print every operand while the register holds its value
    and fewer once it is the zero register, with the same modifiers (the register's value, not
    the modifier, hides it); ``_omission_by_mods`` then records which modifier values hide it."""
    from openptxas.isa.spec import put_bits

    cands = []
    for i in range(len(an.norm.ops)):
        d0 = an.norm.op(i)
        a = an.attrs.get((i, "index"))
        if d0["k"] != "reg" or a is None or i in an.optional:
            continue
        try:
            order, inverted, _ = numeric_field(an.rep, a.flips, allow_inverted=True)
        except LearnError:
            continue
        zero = ZERO_CODE.get(RegFile(d0["file"]))
        if zero is None:
            continue
        if inverted:
            zero ^= (1 << len(order)) - 1
        w = put_bits(an.rep, to_bits(order), zero)
        for key in ("neg", "abs", "not"):
            f = an.attrs.get((i, key))
            if f is not None:
                w &= ~(1 << f.flips[0][0])
        cands.append((i, w))
    if not cands:
        return
    got = yield [w for _, w in cands]
    for (i, _w), nb in zip(cands, got, strict=True):
        if nb is not None and len(nb.ops) < len(an.norm.ops):
            an.optional.add(i)
    flips = sorted(an.mods)
    pairs = [(i, w, b) for i, w in cands if i not in an.optional for b in flips]
    if not pairs:
        return
    got = yield [x for _, w, b in pairs for x in (an.rep ^ (1 << b), w ^ (1 << b))]
    for n, (i, _w, _b) in enumerate(pairs):
        shown, zeroed = got[2 * n], got[2 * n + 1]
        if (
            shown is not None
            and zeroed is not None
            and len(shown.ops) == len(an.norm.ops)
            and len(zeroed.ops) < len(shown.ops)
            and zeroed.mods == shown.mods
        ):
            an.optional.add(i)


def _probe_optional_imm(an: Analysis) -> Step[None]:
    """Integer immediates that nvdisasm leaves out at all-ones or zero (TLD's channel mask
    0xf) although no single flip of the representative's value reaches that value."""
    cands = []
    for i in range(len(an.norm.ops)):
        a = an.attrs.get((i, "text"))
        d0 = an.norm.op(i)
        if d0["k"] != "num" or a is None or i in an.vanish or i in an.optional:
            continue
        if not d0["text"].lstrip("-").startswith("0x"):
            continue
        bits = sorted(b for b, _, _ in a.flips)
        ones = an.rep
        zero = an.rep
        for b in bits:
            ones |= 1 << b
            zero &= ~(1 << b)
        cands += [(i, ones), (i, zero)]
    if not cands:
        return
    got = yield [w for _, w in cands]
    for (i, w), nb in zip(cands, got, strict=True):
        if i in an.imm_default or nb is None or nb.mods != an.norm.mods:
            continue
        if nb.ops != an.norm.ops[:i] + an.norm.ops[i + 1 :]:
            continue  # the operand is printed, or the text changed elsewhere too
        a = an.attrs[(i, "text")]
        try:
            flips = [(b, int(o, 16), int(n, 16)) for b, o, n in a.flips]
            order, signed, shift = numeric_field(an.rep, flips)
        except (LearnError, ValueError):
            continue
        from openptxas.isa.spec import NumSpec

        num = NumSpec(to_bits(order), ImmKind.INT, signed, shift)
        an.imm_default[i] = num.decode(w)


def _omission_by_mods(
    rep: int,
    n0: Norm,
    operands: list[dict[str, Any]],
    opt: list[int],
    mods: list[tuple[tuple[tuple[int, int], ...], list[tuple[int, str]]]],
    base: list[tuple[int, int]],
) -> Step[list[tuple[int, int, tuple[tuple[int, int], ...]]]]:
    """The printed-operand table for each value of each small modifier field, where it differs
    from the representative's (R2UR.OR prints its predicate output even as PT)."""
    from openptxas.isa.spec import get_bits, put_bits

    cands: list[tuple[int, int, int]] = []
    for fi, (bits, vals) in enumerate(mods):
        if not bits or sum(w for _, w in bits) > 3:
            continue
        cur = get_bits(rep, bits)
        for v, toks in vals:
            if v != cur and "INVALID" not in toks:
                cands.append((fi, v, put_bits(rep, bits, v)))
    if not cands:
        return []
    norms = yield [w for _, _, w in cands]
    out = []
    want = sorted(base)
    for (fi, v, w), nv in zip(cands, norms, strict=True):
        if nv is None or nv.shape != n0.shape:
            continue
        try:
            table = yield from _omission(w, nv, operands, opt)
        except LearnError:
            continue
        if sorted(table) != want:
            out.append((fi, v, tuple(sorted(table))))
    return out


def _check_aliases(row: Row, aliases: Any) -> Step[list[Any]]:
    """The longest ordered subset of the hinted aliases that predicts nvdisasm's modifiers on
    every combination of probe values of the operands they test."""
    from openptxas.isa.printer import display_mods

    idxs = sorted({i for _, _, when in aliases for i, _ in when if i < len(row.operands)})
    choices: list[tuple[int | None, ...] | tuple[str]] = []
    for i in idxs:
        o = row.operands[i]
        # operands of other kinds (c[], UR) keep the representative's value
        choices.append(
            _REG_PROBES if o["k"] == "reg" else _IMM_PROBES if o["k"] == "imm" else ("keep",)
        )
    words = []
    for combo in itertools.product(*choices):
        w: int | None = row.rep
        for i, v in zip(idxs, combo, strict=True):
            if v == "keep":
                continue
            w = _set_operand(w, row.operands[i], v) if w is not None else None  # type: ignore[arg-type]
        if w is not None:
            words.append(w)
    if not words:
        return []
    got = yield words
    base = row.form()
    for size in range(len(aliases), 0, -1):
        for subset in itertools.combinations(aliases, size):
            row.flags["alias"] = subset
            form = row.form()
            ok = True
            for w, nb in zip(words, got, strict=True):
                if nb is None:
                    continue
                ins = decode_with(form, w, LEARN_FAMILY, 0)
                if ins is None or display_mods(form, ins) != nb.raw_mods:
                    ok = False
                    break
            if ok:
                row.flags.pop("alias")
                return list(subset)
    row.flags.pop("alias", None)
    del base
    return []


def _reg_literal(an: Analysis, i: int, prefix: str, d0: dict[str, Any]) -> dict[str, Any] | None:
    file = RegFile(d0[prefix + "file"])
    out: dict[str, Any] = {"file": file.value}
    idx = an.attrs.get((i, prefix + "index"))
    if idx is not None:
        order, inverted, shift = numeric_field(an.rep, idx.flips, allow_inverted=True)
        if shift:
            raise LearnError(f"register field with a shift: operand {i}")
        out["index"] = to_bits(order)
        if inverted:
            out["inv"] = True
    else:
        code = d0[prefix + "index"]
        zero = ZERO_CODE.get(file)
        out["const"] = (7 if file in (RegFile.P, RegFile.UP) else 255) if code == zero else code
    for key in ("neg", "abs", "not", "reuse"):
        a = an.attrs.get((i, prefix + key))
        if a is not None:
            if len(a.flips) != 1:
                raise LearnError(f"{key} of operand {i} spans {len(a.flips)} bits")
            out[key] = a.flips[0][0]
        elif d0.get(prefix + key):
            if key != "not":
                raise LearnError(f"operand {i} has a fixed {key}")
            out["const_not"] = True
    sel = an.attrs.get((i, prefix + "sel"))
    if sel is not None:
        out["sel"] = to_bits(sorted(b for b, _, _ in sel.flips))
    elif d0.get(prefix + "sel"):
        out["const_sel"] = d0[prefix + "sel"]
    return out


def _operand_literal(an: Analysis, i: int) -> Step[dict[str, Any]]:
    d0 = an.norm.op(i)
    k = d0["k"]
    lit: dict[str, Any]
    if k in ("reg", "gdesc"):
        lit = {"k": k, "reg": _reg_literal(an, i, "", d0)}
        if "sel" in lit["reg"]:
            yield from _enum_sel(an, i, lit["reg"], "")
            if "abs" in lit["reg"]:
                yield from _probe_sel_in_abs(an, i, lit["reg"])
    elif k == "num":
        a = an.attrs.get((i, "text"))
        if a is None:
            raise LearnError(f"constant immediate operand {i}")
        texts = [d0["text"]] + [x for _, _, x in a.flips]
        if all(t.lstrip("-").startswith("0x") for t in texts):
            flips = [(b, int(o, 16), int(n, 16)) for b, o, n in a.flips]
            order, signed, shift = numeric_field(an.rep, flips)
            order, shift = _extend_down(an, order, signed, shift, int(d0["text"], 16))
            lit = {"k": "imm", "num": _num(order, "int", signed, shift)}
            vanish = an.vanish.get(i, [])
            if (vanish and all(b in order for b in vanish)) or i in an.imm_default:
                an.optional.add(i)
        else:
            flips = a.flips
            if _special(d0["text"]):
                flips = yield from _reprobe_float(an, i, sorted(b for b, _, _ in a.flips))
            order, kind, shift = float_field(an.rep, flips)
            lit = {"k": "imm", "num": _num(order, kind.value, False, shift)}
    elif k == "label":
        a = an.attrs.get((i, "off"))
        if a is None:
            raise LearnError(f"label operand {i} has no field")
        order, signed, shift = numeric_field(an.rep, a.flips)
        lit = {"k": "label", "num": _num(order, "int", signed, shift)}
    elif k in ("mem", "cbank"):
        lit = {"k": k}
        off = an.attrs.get((i, "offset"))
        if off is not None:
            order, signed, shift = numeric_field(an.rep, off.flips)
            lit["num"] = _num(order, "int", signed, shift)
        elif d0["offset"]:
            raise LearnError(f"fixed nonzero offset in operand {i}")
        if k == "mem" and "num" in lit and not lit["num"].get("signed"):
            yield from _probe_offset_sign(an, i, lit)
        if k == "mem":
            regs: list[dict[str, Any] | None] = []
            for prefix in ("desc.", "base.", "ubase."):
                if prefix + "file" not in d0:
                    regs.append(None)
                    continue
                present = d0.get("desc") if prefix == "desc." else True
                has_field = any(key == (i, prefix + "index") for key in an.attrs)
                if not present:
                    regs.append(None)
                elif not has_field and prefix != "desc." and _is_zero_code(d0, prefix):
                    regs.append(None)  # the address has no such part
                else:
                    r = _reg_literal(an, i, prefix, d0)
                    if "sel" in r:
                        yield from _enum_sel(an, i, r, prefix)
                    if prefix != "desc." and "index" in r:
                        yield from _probe_show_zero(an, i, r, lit.get("num"))
                    regs.append(r)
            lit["regs"] = regs
            if "num" in lit and lit["num"].get("signed"):
                yield from _probe_abs_sign(an, i, lit)
        else:
            ub = _reg_literal(an, i, "ubank.", d0) if d0["cx"] else None
            has_reg = (i, "reg.index") in an.attrs or not _is_zero_code(d0, "reg.")
            lit["regs"] = [ub, _reg_literal(an, i, "reg.", d0) if has_reg else None]
            creg = lit["regs"][1]
            if creg is not None and "index" in creg:
                # ULDC c[0xe][URZ+-0x3b4c]: the zero UR index is printed in some forms
                yield from _probe_show_zero(an, i, creg, lit.get("num"))
            bank = an.attrs.get((i, "bank"))
            if bank is not None:
                order, signed, shift = numeric_field(an.rep, bank.flips)
                lit["bank"] = to_bits(order)
            else:
                lit["const_bank"] = d0["bank"]
            # -|c[0x0][0x10]|, ~c[..]: negation, absolute-value, complement bits (sm_80's IADD3)
            for key in ("neg", "abs", "not"):
                a = an.attrs.get((i, key))
                if a is not None:
                    if len(a.flips) != 1:
                        raise LearnError(f"{key} of operand {i} spans {len(a.flips)} bits")
                    lit[key] = a.flips[0][0]
                elif d0.get(key):
                    raise LearnError(f"operand {i} has a fixed {key}")
    elif k in ("sreg", "kw", "list"):
        a = an.attrs.get((i, "name"))
        kind = {"sreg": "sreg", "kw": "keyword", "list": "list"}[k]
        lit = {"k": kind}
        if a is None:
            if k == "list":
                raise LearnError("constant list operand")
            lit["names"] = [d0["name"]]
        else:
            bits = sorted(b for b, _, _ in a.flips)
            lit["enum"] = to_bits(bits)
            if k != "list":
                lit["names"] = yield from _enum_names(an, i, bits)
    else:
        raise LearnError(f"operand kind {k}")
    if i in an.optional:
        lit["opt"] = True
    sep = an.norm.seps[i] if i < len(an.norm.seps) else ", "
    if i > 0 and sep != ", ":
        lit["sep"] = sep
    return lit


def _extend_down(
    an: Analysis, order: list[int], signed: bool, shift: int, actual: int
) -> tuple[list[int], int]:
    """Extend a field downward over fixed bits that the representative's value needs (a low
    bit whose flip nvdisasm rejects, as in BPT.TRAP 0x1)."""
    from openptxas.isa.spec import NumSpec

    while shift > 0:
        num = NumSpec(to_bits(order), ImmKind.INT, signed, shift)
        diff = actual - num.decode(an.rep)
        low = order[0] - 1
        if diff == 0 or diff != 1 << (shift - 1) or low not in an.fixed or not bit(an.rep, low):
            break
        order, shift = [low, *order], shift - 1
        an.fixed.discard(low)
    return order, shift


def _probe_offset_sign(an: Analysis, i: int, lit: dict[str, Any]) -> Step[None]:
    """nvdisasm prints an absolute address's offset unsigned (``[0xfffffc]``) and a register
    relative one signed (``[R0+-0x4]``): learn the sign with a base register in place."""
    from openptxas.isa.spec import put_bits

    base = an.attrs.get((i, "base.index"))
    if base is None:
        return
    try:
        order, _, _ = numeric_field(an.rep, base.flips)
    except LearnError:
        return
    w = put_bits(an.rep, to_bits(order), 1)
    top = [a for a, wd in lit["num"]["bits"] for a in range(a, a + wd)][-1]
    a, b = yield [w & ~(1 << top), w | (1 << top)]
    if a is None or b is None or len(a.ops) <= i or len(b.ops) <= i:
        return
    if a.op(i).get("offset", 0) >= 0 and b.op(i).get("offset", 0) < 0:
        lit["num"]["signed"] = True


def _probe_abs_sign(an: Analysis, i: int, lit: dict[str, Any]) -> Step[None]:
    """Does nvdisasm print this address's offset signed even with no register printed
    (``LDSM R0, [-0x774ee6]``; most forms print ``[0x88b11a]``)?"""
    from openptxas.isa.spec import put_bits

    w = an.rep
    for r in lit["regs"][1:]:
        if r is not None and "index" in r:
            zero = ZERO_CODE[RegFile(r["file"])]
            if r.get("inv"):
                zero ^= (1 << len(_bitlist(r["index"]))) - 1
            w = put_bits(w, r["index"], zero)
            if "sel" in r:
                w = put_bits(w, r["sel"], 0)
    top = _bitlist(lit["num"]["bits"])[-1]
    (nb,) = yield [w | (1 << top)]
    if nb is None or len(nb.ops) != len(an.norm.ops):
        return
    text = _operand_text(nb.text, i)
    if re.fullmatch(r"(desc\[[^]]*\])?\[-0x[0-9a-f]+\]", text):
        lit["abs_signed"] = True


def _operand_text(text: str, i: int) -> str:
    from openptxas.isa.syntax import split_operands

    body = text.rstrip().rstrip(";").strip()
    if body.startswith("@"):
        body = body.split(" ", 1)[1]
    parts = split_operands(body.split(" ", 1)[1]) if " " in body else []
    return parts[i][1] if i < len(parts) else ""


def _probe_sel_in_abs(an: Analysis, i: int, reg: dict[str, Any]) -> Step[None]:
    """Does nvdisasm print this operand's suffix inside the |...| bars?"""
    from openptxas.isa.spec import put_bits

    valid = [v for v, n in enumerate(reg["sel_names"]) if n not in ("", "?")]
    if not valid:
        return
    w = put_bits(an.rep | (1 << reg["abs"]), reg["sel"], valid[0])
    (nb,) = yield [w]
    if nb is not None and re.search(r"\.\w+\|", _operand_text(nb.text, i)):
        reg["sel_in_abs"] = True


def _probe_show_zero(
    an: Analysis, i: int, reg: dict[str, Any], num: dict[str, Any] | None
) -> Step[None]:
    """Is this address part printed even when it is the zero register (with an offset)?"""
    from openptxas.isa.spec import put_bits

    zero = ZERO_CODE[RegFile(reg["file"])]
    if reg.get("inv"):
        zero ^= (1 << len(_bitlist(reg["index"]))) - 1
    w = put_bits(an.rep, reg["index"], zero)
    if num is not None:
        w = put_bits(w, num["bits"], 0x10 >> num.get("shift", 0))
    (nb,) = yield [w]
    if nb is None:
        return
    name = "URZ" if reg["file"] == "UR" else "RZ"
    inner = _operand_text(nb.text, i)
    inner = inner[inner.rfind("[") :]
    others = re.sub(r"\b" + name + r"\b", "", inner)
    if re.search(r"\b" + name + r"\b", inner) and re.search(r"R\d|0x", others):
        reg["show_zero"] = True


def _reprobe_float(an: Analysis, i: int, bits: list[int]) -> Step[list[tuple[int, str, str]]]:
    """Flips of a float operand around a normal value (the representative's is INF or NaN,
    whose mantissa flips print nothing useful): the field is set to 1.5 in its width."""
    pattern = {16: 0x3E00, 32: 0x3FC00000}.get(len(bits), 0x3FF80000)
    w = an.rep
    for k, b in enumerate(bits):
        w = (w & ~(1 << b)) | ((pattern >> k & 1) << b)
    got = yield [w] + [w ^ (1 << b) for b in bits]
    if got[0] is None:
        raise LearnError("cannot re-probe float operand")
    old = got[0].op(i).get("text")
    out = []
    for b, nb in zip(bits, got[1:], strict=True):
        if nb is not None and len(nb.ops) > i and "text" in nb.op(i):
            out.append((b, old, nb.op(i)["text"]))
    return out


def _is_zero_code(d0: dict[str, Any], prefix: str) -> bool:
    return d0[prefix + "index"] == ZERO_CODE.get(RegFile(d0[prefix + "file"]))


def _num(order: list[int], kind: str, signed: bool, shift: int) -> dict[str, Any]:
    out: dict[str, Any] = {"bits": to_bits(order)}
    if kind != "int":
        out["kind"] = kind
    if signed:
        out["signed"] = True
    if shift:
        out["shift"] = shift
    return out


def _literal_bits(o: dict[str, Any]) -> int:
    m = 0

    def regbits(r: dict[str, Any] | None) -> int:
        if r is None:
            return 0
        x = bits_mask(r.get("index", ())) | bits_mask(r.get("sel", ()))
        for key in ("neg", "abs", "not", "reuse"):
            if key in r:
                x |= 1 << r[key]
        return x

    m |= regbits(o.get("reg"))
    for r in o.get("regs", ()):
        m |= regbits(r)
    if "num" in o:
        m |= bits_mask(o["num"]["bits"])
    m |= bits_mask(o.get("bank", ())) | bits_mask(o.get("enum", ()))
    for key in ("neg", "abs", "not"):
        if key in o:
            m |= 1 << o[key]
    return m


def _field_values(rep: int, bits: list[int]) -> list[int]:
    words = []
    for v in range(1 << len(bits)):
        w = rep
        for k, b in enumerate(bits):
            w = (w & ~(1 << b)) | ((v >> k & 1) << b)
        words.append(w)
    return words


def _enum_sel(an: Analysis, i: int, reg: dict[str, Any], prefix: str) -> Step[None]:
    bits = [a for a, w in reg["sel"] for a in range(a, a + w)]
    names = []
    got = yield _field_values(an.rep, bits)
    for nb in got:
        if nb is None or nb.mods != an.norm.mods or len(nb.ops) != len(an.norm.ops):
            names.append("?")
        else:
            names.append(nb.op(i).get(prefix + "sel", "?"))
    reg["sel_names"] = names


def _enum_names(an: Analysis, i: int, bits: list[int]) -> Step[list[str]]:
    if len(bits) > 12:
        raise LearnError(f"enumerated field of {len(bits)} bits")
    names = []
    got = yield _field_values(an.rep, bits)
    for nb in got:
        ok = nb is not None and nb.mods == an.norm.mods and len(nb.ops) == len(an.norm.ops)
        names.append(nb.op(i).get("name", "") if ok and nb is not None else "")
    return names


def _rich(rep: int, n0: Norm, operands: list[dict[str, Any]]) -> Step[tuple[int, Norm]]:
    """The representative with its immediates set to telling values (1.5, 0x5), so that a
    modifier that changes how an operand prints (HFMA2 .BF16_V2) is seen as such."""
    from openptxas.isa.spec import put_bits

    w = rep
    for o in operands:
        for r in (o.get("reg"), *o.get("regs", ())):
            # a non-empty selector, so that a modifier renaming it (.U8: .B1) shows
            if r and "sel" in r:
                names = r.get("sel_names", [])
                pick = next((v for v, n in enumerate(names) if n not in ("", "?")), None)
                if pick is not None:
                    w = put_bits(w, r["sel"], pick)
        if o["k"] != "imm":
            continue
        num = o["num"]
        width = sum(wd for _, wd in num["bits"])
        kind = num.get("kind", "int")
        if kind == "int":
            v = 0x5 >> num.get("shift", 0) if width >= 3 else 1
        elif kind == "f16":
            v = 0x3E00
        elif kind == "f32":
            v = 0x3FC00000
        else:
            v = 0x3FF80000 >> max(0, 32 - width)
        w = put_bits(w, num["bits"], v)
    if w == rep:
        return rep, n0
    (nb,) = yield [w]
    if nb is None or nb.shape != n0.shape or nb.mods != n0.mods:
        return rep, n0
    return w, nb


def _bitlist(bits: Any) -> list[int]:
    return [a for a, w in bits for a in range(a, a + w)]


def _set_default(o: dict[str, Any], orig: int, hidden: bool = True, vanish: list[int] = ()) -> None:  # type: ignore[assignment]
    """Record an optional operand's default: its value in the word that hid it (``hidden``),
    or with the first of ``vanish`` flipped."""
    from openptxas.isa.spec import get_bits

    if o["k"] == "reg":
        reg = o["reg"]
        if "index" not in reg:
            raise LearnError("optional register without a field")
        code = get_bits(orig, reg["index"])
        if reg.get("inv"):
            code ^= (1 << len(_bitlist(reg["index"]))) - 1
        if code != ZERO_CODE[RegFile(reg["file"])]:
            return  # visible in the original: the default is the plain zero register
        flags = 0
        if "not" in reg and bit(orig, reg["not"]):
            flags |= 1
        if flags:
            o["default"] = flags
    elif o["k"] == "imm" and o["num"].get("kind", "int") == "int":
        from openptxas.isa.spec import NumSpec

        num = NumSpec(
            o["num"]["bits"], ImmKind.INT, o["num"].get("signed", False), o["num"].get("shift", 0)
        )
        v = num.decode(orig if hidden else orig ^ (1 << vanish[0]))
        if v:
            o["default"] = v
    elif o["k"] == "list":
        v = get_bits(orig, o["enum"])
        if v:
            o["default"] = v
    elif o["k"] == "keyword" and o.get("enum") and hidden:
        v = get_bits(orig, o["enum"])
        if o["names"][v] != "":
            raise LearnError("optional keyword not hidden by its field")
        o["default"] = v
    else:
        raise LearnError(f"optional operand of kind {o['k']}")


def _omission(
    rep: int, n0: Norm, operands: list[dict[str, Any]], opt: list[int]
) -> Step[list[tuple[int, int]]]:
    """nvdisasm's printed subset of optional operands for each subset holding its default."""
    from openptxas.isa.spec import put_bits

    words = []
    for dmask in range(1 << len(opt)):
        w = rep
        for n, i in enumerate(opt):
            if dmask >> n & 1:
                o = operands[i]
                dflt = o.get("default", 0)
                if o["k"] == "reg":
                    reg = o["reg"]
                    code = ZERO_CODE[RegFile(reg["file"])]
                    if reg.get("inv"):
                        code ^= (1 << len(_bitlist(reg["index"]))) - 1
                    w = put_bits(w, reg["index"], code)
                    for key in ("neg", "not", "abs"):
                        if key in reg:
                            w &= ~(1 << reg[key])
                    if dflt & 1:
                        w |= 1 << reg["not"]
                elif o["k"] == "imm":
                    w = put_bits(w, o["num"]["bits"], dflt >> o["num"].get("shift", 0))
                else:
                    w = put_bits(w, o["enum"], dflt)
        words.append(w)
    out = []
    full = (1 << len(opt)) - 1
    got = yield words
    for dmask, nb in enumerate(got):
        if nb is None:
            continue
        shown = _printed_subset(n0, nb, opt, dmask)
        if shown is None:
            raise LearnError(f"cannot align optional operands in {nb.text!r}")
        if shown != full:
            out.append((dmask, shown))
    return out


def _printed_subset(n0: Norm, nb: Norm, opt: list[int], dmask: int) -> int | None:
    """Which optional operands ``nb`` prints; operands not at their default must keep the
    representative's value, so equal-looking operands are told apart."""
    missing = len(n0.ops) - len(nb.ops)
    at_default = {opt[n] for n in range(len(opt)) if dmask >> n & 1}
    for hidden in itertools.combinations(range(len(opt)), missing):
        hid = {opt[h] for h in hidden}
        kept = [j for j in range(len(n0.ops)) if j not in hid]
        if all(n0.shape[j] == nb.shape[k] for k, j in enumerate(kept)) and all(
            (_is_default_atoms(nb.op(k)) if j in at_default else n0.ops[j] == nb.ops[k])
            for k, j in enumerate(kept)
        ):
            return sum(1 << n for n in range(len(opt)) if n not in hidden)
    return None


def _is_default_atoms(d: dict[str, Any]) -> bool:
    if d["k"] == "reg":
        return bool(d["index"] == ZERO_CODE.get(RegFile(d["file"])))
    return True


# ----------------------------------------------------------------------------------------------
# The table: cover every observed word


@dataclass(frozen=True)
class Obs:
    word: int
    count: int
    text: str
    addr: int = 0  # the address the text was disassembled at

    @property
    def key(self) -> int:
        return self.word & 0xFFF


def load_observed(family: str = "sm90") -> list[Obs]:
    out = []
    for line in (
        gzip.decompress((DATA / f"{family}_observed.tsv.gz").read_bytes()).decode().splitlines()
    ):
        if line.startswith("#") or not line.strip():
            continue
        w, c, t = line.split("\t")
        if t != "?":
            out.append(Obs(int(w, 16), int(c), t))
    return out


# the family being learned: its zero registers are isa_norm.ZERO_CODE (set per family in main)
LEARN_FAMILY = Family("learn", (), ZERO_CODE, {}, {})


def prints_as(form: Form, word: int, text: str, addr: int = 0, fam: Family = LEARN_FAMILY) -> str:
    """'' if ``form`` decodes, prints and re-encodes ``word`` exactly; else what went wrong."""
    ins = decode_with(form, word, fam, addr)
    if ins is None:
        return "does not decode"
    got = format_instruction(ins, fam, addr, form=form)
    if got != text:
        return f"prints {got!r}"
    back = encode_with(form, ins, fam, addr)
    if back != word:
        return f"re-encodes as {back:032x}" if back is not None else "does not re-encode"
    return ""


def _decodes_alike(word: int, text: str, addr: int, fam: Family) -> str:
    """'' if the whole table (first matching form) decodes, prints and re-encodes ``word``
    exactly, as the disassembler does; else what went wrong."""
    from openptxas.isa.codec import decode_word, encode_instruction
    from openptxas.isa.model import Unknown

    ins = decode_word(word, fam, addr)
    if isinstance(ins, Unknown):
        return "the table does not decode it"
    got = format_instruction(ins, fam, addr)
    if got != text:
        return f"the table prints {got!r}"
    try:
        back = encode_instruction(ins, fam, addr)
    except Exception:
        return "the table does not re-encode it"
    return "" if back == word else f"the table re-encodes it as {back:032x}"


class RowFamily(Family):
    """A family over rows being learned (not a module in openptxas.isa.tables)."""

    def __init__(self, rows: Sequence[Row]) -> None:
        forms = [r.form(i) for i, r in enumerate(rows)]
        by_key: dict[int, list[int]] = defaultdict(list)
        by_op: dict[str, list[int]] = defaultdict(list)
        for i, f in enumerate(forms):
            by_key[f.key].append(i)
            by_op[f.opcode].append(i)
        super().__init__(
            "learn",
            (),
            LEARN_FAMILY.reg_zero,
            {k: tuple(v) for k, v in by_key.items()},
            {k: tuple(v) for k, v in by_op.items()},
        )
        object.__setattr__(self, "_forms", tuple(forms))

    def form(self, index: int) -> Form:
        forms: tuple[Form, ...] = self.__dict__["_forms"]
        return forms[index]

    def forms_for_key(self, key: int) -> tuple[Form, ...]:
        return tuple(self.form(i) for i in self.by_key.get(key, ()))

    def forms_for_opcode(self, opcode: str) -> tuple[Form, ...]:
        return tuple(self.form(i) for i in self.by_opcode.get(opcode, ()))

    def all_forms(self) -> tuple[Form, ...]:
        return self.__dict__["_forms"]  # type: ignore[no-any-return]


def encodable(fam: Family, text: str, addr: int) -> bool:
    """Whether the table already encodes nvdisasm's ``text`` (any word will do)."""
    from openptxas.isa.asmparse import parse_instruction
    from openptxas.isa.codec import encode_instruction

    try:
        encode_instruction(parse_instruction(text, fam, addr), fam, addr)
    except Exception:
        return False
    return True


def sibling_words(rows: Sequence[Row]) -> list[int]:
    """Candidate words near the forms' representatives: every value of the operand-kind
    field (bits 9-11: register, immediate, constant or uniform register in each source slot,
    with and without bit 91), every single flip of an opcode bit 0-8, and every single flip of a
    layout bit (a bit that changes the operand layout or makes a modifier appear, such as .X
    or a register in place of an immediate)."""
    cands: dict[int, None] = {}
    for r in rows:
        for k in range(16):
            # bit 91 goes with the uniform-register kinds (FFMA R, R, UR, R)
            cands.setdefault((r.rep & ~(7 << 9) & ~(1 << 91)) | (k & 7) << 9 | (k >> 3) << 91, None)
        for b in range(9):
            cands.setdefault(r.rep ^ (1 << b), None)  # neighbouring opcodes (UPLOP3, UBREV)
        for b in r.layout_bits:
            cands.setdefault(r.rep ^ (1 << b), None)
    return sorted(cands)


def siblings(pr: Prober, rows: list[Row]) -> list[Obs]:
    """Words near the learned forms (:func:`sibling_words`) that nvdisasm accepts and whose
    text the table cannot encode yet: forms ptxas did not emit in the corpus but a compiler
    may print. Texts the table already encodes are dropped, so that a sibling never adds a
    second encoding of an instruction (a word differing only in bits nvdisasm ignores)."""
    words = sibling_words(rows)
    norms = pr.norms(words)
    fam = RowFamily(rows)
    out = []
    for i, (w, nb) in enumerate(zip(words, norms, strict=True)):
        # (forms with a label too: the learner reads branch targets at two addresses, and
        # a sibling keeps the address its text was printed at)
        if nb is None or encodable(fam, nb.text, 16 * i):
            continue
        out.append(Obs(w, 0, nb.text, 16 * i))
    return out


def learn_table(
    pr: Prober, obs: list[Obs], expand: int = 0
) -> tuple[list[Row], dict[int, str], int]:
    """Greedy cover: each round learns one form per opcode key from the most frequent word no
    form of that key prints correctly yet; all keys' forms are learned together. Then
    ``expand`` times: the same for the siblings of the forms learned so far."""
    rows, failed = _cover(pr, obs, [])
    n_sib = 0
    for _ in range(expand):
        sib = siblings(pr, rows)
        n_sib += len(sib)
        new_rows, new_failed = _cover(pr, sib, rows, siblings=True)
        for r in new_rows:
            r.flags["derived"] = True
        rows.extend(new_rows)
        # siblings nvdisasm accepts but the learner cannot describe are not errors
        for w, why in new_failed.items():
            print(f"  sibling not learned: {w:032x} {why}", file=sys.stderr)
        if not new_rows:
            break
    align_silent_bits(rows)
    return rows, failed, n_sib


def align_silent_bits(rows: list[Row]) -> None:
    """Give each derived form's silent bits (invisible in the representative's text) the value
    the first form of its key from ptxas's words has (or the key's first derived form), so that
    an instruction both can represent gets one encoding. Loose bits (see :func:`_loosen`) only
    change the value the encoder writes; a silent bit that stayed fixed (nvdisasm prints it in
    some encodings) takes the base's value only where the base fixes it too."""
    first: dict[int, Row] = {}
    for r in rows:
        if not r.flags.get("derived"):
            first.setdefault(r.value & 0xFFF, r)
    for r in rows:
        first.setdefault(r.value & 0xFFF, r)  # a key only siblings have: its first sibling
    for r in rows:
        base = first[r.value & 0xFFF]
        if base is r or not r.flags.get("derived"):
            continue
        bl, bv = base.flags.get("loose", (0, 0))
        loose, lv = r.flags.get("loose", (0, 0))
        for b in r.silent_bits:
            if base.mask >> b & 1:
                v = base.value >> b & 1
            elif bl >> b & 1:
                v = bv >> b & 1
            else:
                continue
            if r.mask >> b & 1:
                r.value = (r.value & ~(1 << b)) | v << b
            elif loose >> b & 1:
                lv = (lv & ~(1 << b)) | v << b
            else:
                continue
            r.rep = (r.rep & ~(1 << b)) | v << b
        if loose:
            r.flags["loose"] = (loose, lv)


def _cover(
    pr: Prober, obs: list[Obs], known: list[Row], siblings: bool = False
) -> tuple[list[Row], dict[int, str]]:
    """Learn forms for ``obs`` (``known``: rows learned before). For siblings, a word whose
    text the rows learned so far encode is dropped rather than learned (see siblings)."""
    pending: dict[int, list[Obs]] = defaultdict(list)
    for o in sorted(obs, key=lambda o: (o.key, -o.count, o.word)):
        pending[o.key].append(o)
    rows: list[Row] = []
    failed: dict[int, str] = {}
    counter: dict[tuple[str, int], int] = defaultdict(int)
    for r in known:
        counter[(r.opcode, r.value & 0xFFF)] += 1
    rnd = 0
    while any(pending.values()):
        rnd += 1
        steps: dict[Any, Step[Any]] = {}
        reps: dict[int, tuple[Obs, str]] = {}
        for key, lst in sorted(pending.items()):
            if not lst:
                continue
            o = lst[0]
            opcode = parse_line(o.text).opcode
            n = counter[(opcode, key)]
            counter[(opcode, key)] += 1
            name = f"{opcode}_{key:03x}_{n}"
            reps[key] = (o, name)
            steps[key] = learn_row(o.word, name)
        results = run_steps(pr, steps)
        for key, (o, name) in sorted(reps.items()):
            res = results[key]
            lst = pending[key]
            if isinstance(res, LearnError):
                failed[o.word] = f"{o.text}: {res}"
                lst.remove(o)
                continue
            form = res.form()
            why = prints_as(form, o.word, o.text, o.addr)
            if why:
                failed[o.word] = f"{o.text}: learned form {name} {why}"
                lst.remove(o)
                continue
            rows.append(res)
            rows.extend(res.extra)
            forms = [form, *(x.form() for x in res.extra)]
            pending[key] = [
                p for p in lst if all(prints_as(f, p.word, p.text, p.addr) for f in forms)
            ]
        if siblings:
            fam = RowFamily([*known, *rows])
            for key, lst in pending.items():
                pending[key] = [p for p in lst if not encodable(fam, p.text, p.addr)]
        left = sum(len(v) for v in pending.values())
        print(f"round {rnd}: {len(rows)} forms, {left} words left", file=sys.stderr)
    return rows, failed


def inputs_digest(family: str = "sm90") -> str:
    """A hash of everything the table is generated from (scripts and observed words)."""
    h = hashlib.sha256()
    extra = [f"openptxas/isa/tables/{FAMILY_BASE[family]}.py"] if family in FAMILY_BASE else []
    for rel in (*INPUTS, f"scripts/isa_data/{family}_observed.tsv.gz", *extra):
        h.update(rel.encode())
        h.update((REPO / rel).read_bytes())
    return h.hexdigest()


def table_order(rows: Sequence[Row], obs: Sequence[Obs]) -> list[Row]:
    weight: dict[int, int] = defaultdict(int)
    for o in obs:
        weight[o.key] += o.count
    return sorted(
        rows,
        key=lambda r: (bool(r.flags.get("derived")), -weight[r.value & 0xFFF], r.value & 0xFFF),
    )


def observed_precedence(rows: list[Row], obs: Sequence[Obs]) -> list[Row]:
    """``rows`` with a form moved ahead of another of its key where the other decodes an
    observed word first but prints it unlike nvdisasm and the form prints it exactly.

    The cover accepts a word once any form prints it exactly, but the decoder takes the first
    form that decodes it. nvdisasm prints sm_100's ``LDCU.64 UR8, c[0x4][URZ]`` with the URZ when
    the offset is zero; the row with a free offset and no UR slot decodes that word too and
    prints ``c[0x4][0x0]``, so the row with the UR slot (and the offset fixed at zero) must come
    first."""
    rows = list(rows)
    by_key: dict[int, list[Obs]] = defaultdict(list)
    for o in obs:
        by_key[o.key].append(o)
    for _ in range(len(rows)):  # (each move is final for its word: a bound, not a loop count)
        moved = False
        for key, lst in by_key.items():
            mine = [r for r in rows if r.value & 0xFFF == key]
            forms = [r.form() for r in mine]
            for o in lst:
                first = next(
                    (
                        i
                        for i, f in enumerate(forms)
                        if decode_with(f, o.word, LEARN_FAMILY, o.addr)
                    ),
                    None,
                )
                if first is None or not prints_as(forms[first], o.word, o.text, o.addr):
                    continue
                later = next(
                    (j for j in range(first + 1, len(forms))
                     if not prints_as(forms[j], o.word, o.text, o.addr)),
                    None,
                )  # fmt: skip
                if later is None:
                    continue
                row = mine[later]
                rows.remove(row)
                rows.insert(rows.index(mine[first]), row)
                moved = True
                break
        if not moved:
            break
    return rows


def overlaps(rows: Sequence[Row], samples: int = 24, seed: int = 1) -> dict[str, int]:
    """Derived forms with random words that decode to an instruction the table encodes as
    another word (the form represents instructions an earlier form already encodes): form
    name -> how many of ``samples`` words."""
    from openptxas.isa.codec import decode_word, encode_instruction
    from openptxas.isa.model import Unknown

    fam = RowFamily(rows)
    rng = random.Random(seed)
    out: dict[str, int] = {}
    for form in fam.all_forms():
        if not form.derived:
            continue
        bad = 0
        for _ in range(samples):
            w = random_word(form, rng, 0x7F1 << 105)
            ins = decode_word(w, fam, 0)
            if isinstance(ins, Unknown):
                continue
            try:
                if encode_instruction(ins, fam, 0) != w:
                    bad += 1
            except Exception:
                bad += 1
        if bad:
            out[form.name] = bad
    return out


def emit(rows: list[Row], family: str = "sm90", obs: Sequence[Obs] = ()) -> Path:
    # The encoder and the parser take the first form that fits, so a text two forms can
    # represent (BAR.SYNC 0x0: a count of 0, or an omitted RZ) gets the encoding ptxas uses
    # most: forms of words ptxas emitted first, keys with more observed instructions first,
    # then the derived forms (siblings); within a key, discovery order (decoding's order).
    rows = observed_precedence(table_order(rows, obs), obs)
    body = pprint.pformat(tuple(r.literal() for r in rows), width=100, sort_dicts=False)
    path = TABLES / f"{family}.py"
    opt = "" if family == "sm90" else f" --family {family}"
    reg_zero = ", ".join(f'"{k.value}": {v}' for k, v in ZERO_CODE.items())
    path.write_text(
        f'"""SASS instruction table for {family} ({FAMILY_TARGETS[family]}).\n\n'
        "GENERATED by scripts/isa_learn.py from scripts/isa_data/"
        f"{family}_observed.tsv.gz and nvdisasm 13.2.86"
        f"{'' if family == 'sm90' else chr(10) + '(-b ' + FAMILY_ARCH[family] + ')'};\n"
        "do not edit. Row format: openptxas/isa/spec.py. Regenerate with\n"
        f"``python scripts/isa_learn.py learn{opt}``; verify with\n"
        f"``python scripts/isa_learn.py check{opt}``.\n"
        '"""\n\n'
        "# fmt: off\n"
        f"# inputs-digest: {inputs_digest(family)}\n"
        "from typing import Any\n\n"
        f'FAMILY = "{family}"\n'
        "BASE = None\n"
        f"REG_ZERO = {{{reg_zero}}}\n"
        f"FORMS: tuple[Any, ...] = {body}\n"
    )
    return path


# ----------------------------------------------------------------------------------------------
# Derived families


class FormFamily(Family):
    """A family over given forms (a base table's rows with learned rows): checks only."""

    def __init__(self, forms: Sequence[Form], reg_zero: Any) -> None:
        by_key: dict[int, list[int]] = defaultdict(list)
        by_op: dict[str, list[int]] = defaultdict(list)
        for i, f in enumerate(forms):
            by_key[f.key].append(i)
            by_op[f.opcode].append(i)
        super().__init__(
            "derived",
            (),
            reg_zero,
            {k: tuple(v) for k, v in by_key.items()},
            {k: tuple(v) for k, v in by_op.items()},
        )
        object.__setattr__(self, "_forms", tuple(forms))

    def form(self, index: int) -> Form:
        forms: tuple[Form, ...] = self.__dict__["_forms"]
        return forms[index]

    def forms_for_key(self, key: int) -> tuple[Form, ...]:
        return tuple(self.form(i) for i in self.by_key.get(key, ()))

    def forms_for_opcode(self, opcode: str) -> tuple[Form, ...]:
        return tuple(self.form(i) for i in self.by_opcode.get(opcode, ()))

    def all_forms(self) -> tuple[Form, ...]:
        return self.__dict__["_forms"]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class _Known:
    """A base row as ``_cover`` counts it (so that learned rows get names the base lacks)."""

    opcode: str
    value: int


DERIVED_SAMPLES = 20  # random encodings per base row compared with the derived family's nvdisasm


def learn_derived(
    pr: Prober, base: str, obs: list[Obs], seed: int
) -> tuple[list[str], list[Row], dict[int, str]]:
    """A family as ``base``'s rows plus differences, learned from nvdisasm and ptxas's words:

    1. every base row is checked on ``DERIVED_SAMPLES`` random encodings and on the observed
       words it decodes: a row printing any of them unlike this family's nvdisasm is dropped;
    2. the observed words the remaining rows do not decode, print and re-encode exactly are
       learned as new rows (the same greedy cover as ``learn``; no sibling rounds).

    Returns (dropped row names, new rows, words not learned)."""
    from openptxas.isa.codec import decode_word
    from openptxas.isa.family import load_family
    from openptxas.isa.model import Unknown

    fam = load_family(base)
    forms = fam.all_forms()
    stats = random_check(pr, fam, forms, obs, DERIVED_SAMPLES, seed)
    drop = {n for n, st in stats.items() if st[1]}
    for o in obs:
        ins = decode_word(o.word, fam, o.addr)
        if isinstance(ins, Unknown):
            continue
        form = next(
            (f for f in fam.forms_for_key(o.key) if decode_with(f, o.word, fam, o.addr)), None
        )
        if (
            form is not None
            and form.name not in drop
            and _decodes_alike(o.word, o.text, o.addr, fam)
        ):
            drop.add(form.name)
    kept = FormFamily([f for f in forms if f.name not in drop], fam.reg_zero)
    todo = [o for o in obs if _decodes_alike(o.word, o.text, o.addr, kept)]
    print(
        f"{base}: {len(drop)} of {len(forms)} rows print unlike nvdisasm -b {pr.dis.arch};"
        f" {len(todo)} of {len(obs)} observed words to learn",
        file=sys.stderr,
    )
    known = [_Known(f.opcode, f.value) for f in forms]
    rows, failed = _cover(pr, todo, known)  # type: ignore[arg-type]
    align_silent_bits(rows)
    return sorted(drop), rows, failed


def emit_derived(
    family: str, base: str, drop: list[str], rows: list[Row], obs: Sequence[Obs]
) -> Path:
    rows = table_order(rows, obs)
    body = pprint.pformat(tuple(r.literal() for r in rows), width=100, sort_dicts=False)
    path = TABLES / f"{family}.py"
    path.write_text(
        f'"""SASS instruction table for {family} ({FAMILY_TARGETS[family]}): {base}\'s rows plus'
        " differences.\n\n"
        "GENERATED by scripts/isa_learn.py (learn_derived) from scripts/isa_data/"
        f"{family}_observed.tsv.gz,\nthe {base} table and nvdisasm 13.2.86 -b "
        f"{FAMILY_ARCH[family]}; do not edit. DROP: {base} rows that print unlike\n"
        f"nvdisasm -b {FAMILY_ARCH[family]}; FORMS: rows learned from the observed words the"
        " rest does not print.\n"
        f"Regenerate with ``python scripts/isa_learn.py learn --family {family}``; verify with\n"
        f"``python scripts/isa_learn.py check --family {family}``.\n"
        '"""\n\n'
        "# fmt: off\n"
        f"# inputs-digest: {inputs_digest(family)}\n"
        "from typing import Any\n\n"
        f'FAMILY = "{family}"\n'
        f'BASE = "{base}"\n'
        f"DROP: tuple[str, ...] = {pprint.pformat(tuple(drop), width=100)}\n"
        f"FORMS: tuple[Any, ...] = {body}\n"
    )
    return path


# ----------------------------------------------------------------------------------------------
# Checking


def random_word(form: Form, rng: random.Random, ctl: int) -> int:
    """A random encoding of ``form``: every field set to a random valid value."""
    from openptxas.isa.spec import OpKind, bits_width, put_bits

    w = form.value | (rng.getrandbits(105) & form.loose)
    if form.guard:
        w |= rng.randrange(16) << 12
    for mf in form.mods:
        # INVALIDn tokens of different fields can spell the same text: leave them out
        valid = [v for t, v in mf.rev.items() if not any("INVALID" in x for x in t)]
        w = put_bits(w, mf.bits, rng.choice(sorted(valid or mf.rev.values())))

    def reg(w: int, rs: Any) -> int:
        if rs is None:
            return w
        if rs.index:
            w = put_bits(w, rs.index, rng.randrange(1 << bits_width(rs.index)))
        for b in (rs.neg, rs.abs, rs.not_, rs.reuse):
            if b >= 0:
                w |= rng.randrange(2) << b
        if rs.sel:
            valid = [i for i, n in enumerate(rs.sel_names) if n != "?"]
            w = put_bits(w, rs.sel, rng.choice(valid))
        return w

    for o in form.operands:
        if o.reg is not None:
            w = reg(w, o.reg)
        for r in o.regs:
            w = reg(w, r)
        if o.num is not None:
            w = put_bits(w, o.num.bits, rng.randrange(1 << bits_width(o.num.bits)))
        if o.bank:
            w = put_bits(w, o.bank, rng.randrange(1 << bits_width(o.bank)))
        for b in (o.neg, o.abs, o.not_):
            if b >= 0:
                w |= rng.randrange(2) << b
        if o.enum:
            if o.kind is OpKind.LIST:
                w = put_bits(w, o.enum, rng.randrange(1 << bits_width(o.enum)))
            else:
                valid = [i for i, n in enumerate(o.names) if n and n != "?"]
                w = put_bits(w, o.enum, rng.choice(valid))
    return w | ctl


def random_check(
    pr: Prober,
    fam: Family,
    forms: Sequence[Form],
    obs: Sequence[Obs],
    samples: int,
    seed: int,
    verbose: bool = False,
    report: Callable[[str], None] | None = None,
) -> dict[str, list[int]]:
    """``samples`` random encodings of each form vs nvdisasm: per form name, the numbers of
    words printed identically, differently, and rejected by nvdisasm. ``report`` receives a
    line for every word printed differently (``verbose``: the first two per form, printed)."""
    rng = random.Random(seed)
    ctl_of: dict[int, int] = {}
    for o in obs:
        ctl_of.setdefault(o.key, o.word & CTRL_KEEP & ~(0xF << 122))
    words: list[int] = []
    owners: list[Form] = []
    for form in forms:
        ctl = ctl_of.get(form.key, 0x7F1 << 105)
        for _ in range(samples):
            words.append(random_word(form, rng, ctl))
            owners.append(form)
    texts = pr.texts(words)
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    shown: dict[str, int] = defaultdict(int)
    for i, (w, form, t) in enumerate(zip(words, owners, texts, strict=True)):
        s = stats[form.name]
        if t is None or "???" in t:
            # rejected, or printed with "???N" for an operand value nvdisasm calls invalid
            s[2] += 1  # nvdisasm rejects this combination: not an error of ours
            continue
        why = prints_as(form, w, t, 16 * i, fam) or _decodes_alike(w, t, 16 * i, fam)
        if why:
            s[1] += 1
            if report is not None:
                report(f"{form.name}: {w:032x} nvdisasm {t!r}: {why}")
            if verbose and shown[form.name] < 2:
                print(f"RANDOM    {form.name}: {w:032x} nvdisasm {t!r}: {why}")
                shown[form.name] += 1
        else:
            s[0] += 1
    return stats


def check_table(pr: Prober, fam: Family, obs: list[Obs], samples: int, seed: int) -> int:
    """Compare the table with nvdisasm on every observed word and on random encodings."""
    from openptxas.isa.codec import decode_word, encode_instruction
    from openptxas.isa.model import Unknown

    bad = 0
    for o in obs:
        ins = decode_word(o.word, fam, 0)
        if isinstance(ins, Unknown):
            print(f"UNKNOWN   {o.word:032x} {o.text}")
            bad += 1
            continue
        got = format_instruction(ins, fam, 0)
        back = encode_instruction(ins, fam, 0)
        if got != o.text or back != o.word:
            print(f"MISMATCH  {o.word:032x} {o.text!r} -> {got!r} {back:032x}")
            bad += 1
    print(f"observed: {len(obs)} words, {bad} failures")
    stats = random_check(pr, fam, fam.all_forms(), obs, samples, seed, verbose=True)
    nok = sum(s[0] for s in stats.values())
    nbad = sum(s[1] for s in stats.values())
    nrej = sum(s[2] for s in stats.values())
    print(
        f"random: {nok + nbad + nrej} words: {nok} identical, {nbad} different, "
        f"{nrej} rejected by nvdisasm"
    )
    return bad + nbad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("cmd", choices=("learn", "check"))
    ap.add_argument("--family", default="sm90")
    ap.add_argument("--samples", type=int, default=20, help="random encodings per form (check)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--expand", type=int, default=2, help="rounds of sibling forms to learn (learn)"
    )
    args = ap.parse_args(argv)
    ZERO_CODE.update(FAMILY_ZERO.get(args.family, {}))
    pr = Prober(FAMILY_ARCH[args.family])
    obs = load_observed(args.family) if (DATA / f"{args.family}_observed.tsv.gz").exists() else []
    if args.cmd == "learn" and args.family in FAMILY_BASE:
        import subprocess

        base = FAMILY_BASE[args.family]
        drop, rows, failed = learn_derived(pr, base, obs, args.seed + 1)
        path = emit_derived(args.family, base, drop, rows, obs)
        subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(path)], check=False)
        for w, why in sorted(failed.items()):
            print(f"FAILED    {w:032x} {why}")
        print(
            f"{len(drop)} {base} rows dropped, {len(rows)} rows learned -> {path.relative_to(REPO)}"
        )
        return 1 if failed else 0
    if args.cmd == "learn":
        rows, failed, n_sib = learn_table(pr, obs, args.expand)
        ordered = table_order(rows, obs)
        bad = overlaps(ordered)
        if bad:
            # a derived form that re-encodes some of its instructions as another form's words
            # would break decode-encode identity: leave it out
            print(f"derived forms overlapping earlier forms, left out: {sorted(bad)}")
            rows = [r for r in rows if r.name not in bad]
        # a derived form has no ptxas word behind it: it must print as nvdisasm does on
        # random encodings (another seed than `check`'s), or it is left out
        fam = RowFamily(table_order(rows, obs))
        derived = [f for f in fam.all_forms() if f.derived]
        stats = random_check(pr, fam, derived, obs, 16, args.seed + 1)
        wrong = sorted(n for n, st in stats.items() if st[1])
        if wrong:
            print(f"derived forms printing unlike nvdisasm, left out: {wrong}")
            rows = [r for r in rows if r.name not in set(wrong)]
        path = emit(rows, args.family, obs)
        import subprocess

        subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(path)], check=False)
        for w, why in sorted(failed.items()):
            print(f"FAILED    {w:032x} {why}")
        print(f"{len(rows)} forms, {len(failed)} words not learned -> {path.relative_to(REPO)}")
        print(f"sibling words examined: {n_sib}")
        print(f"nvdisasm runs: {pr.dis.runs}")
        return 1 if failed else 0
    from openptxas.isa.family import load_family

    fam = load_family(args.family)
    return 1 if check_table(pr, fam, obs, args.samples, args.seed) else 0


if __name__ == "__main__":
    sys.exit(main())
