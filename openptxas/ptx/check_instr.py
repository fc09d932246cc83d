"""Instruction checks: modifiers against the instruction table, target and version gates, operand
counts, kinds and types, and the value rules of single instructions (cp.async sizes, barrier
numbers, ...). Messages follow ptxas 13.0.88 where it was observed (tests/ptx/negative/*.ptxas).

`InstrChecks` is mixed into the module checker (check.py), which provides symbol lookup and the
diagnostic sink.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from openptxas.diag import Span
from openptxas.ptx.ast import (
    Address,
    ArgList,
    FloatImm,
    Function,
    Instruction,
    IntImm,
    Label,
    MemList,
    Not,
    Operand,
    Pair,
    Param,
    Reg,
    Sink,
    SpecialReg,
    Sym,
    VarDecl,
    Vector,
)
from openptxas.ptx.check_operands import OPERAND_CHECKS, VIDEO_OPS, OperandError, gate_name
from openptxas.ptx.modifiers import is_known_mnemonic
from openptxas.ptx.opspec import Form, Gate, OperandSpec, gate_ok
from openptxas.ptx.optable import table, vocabulary
from openptxas.ptx.types import (
    SPECIAL_REGISTERS,
    TYPE_NAMES,
    VECTOR_SPECIAL_REGISTERS,
    PtxType,
    StateSpace,
)

Decl = VarDecl | Param | Function

# ld/st/cvt accept data registers wider than the instruction type (PTX ISA "relaxed" rules);
# so do the surface accesses (nvcc writes ``sust.b.2d.v4.b8 [s, {x, y}], {%rs1, ...}`` with
# 16-bit registers for 8-bit data, which ptxas accepts).
_RELAXED = frozenset(
    {"ld", "ldu", "st", "cvt", "ld.global.nc", "st.async", "multimem.ld_reduce", "sust", "suld"}
)
# Instructions whose source may be a variable or function name (its address).
_ADDR_OF = frozenset({"mov", "cvta", "isspacep", "getctarank", "mapa", "add", "sub"})
_VEC_OK = frozenset({1, 2, 4, 8, 16, 32, 64, 128})
_UNCHECKED_VEC_SIZE = frozenset(
    {
        "wgmma.mma_async",
        "tcgen05.ld",
        "tcgen05.st",
        "call",
        "cp.async.bulk.tensor",
        "cp.reduce.async.bulk.tensor",
        "cp.async.bulk.prefetch.tensor",
    }
)
_INT_KINDS = ("b", "u", "s")
_SCALAR_ROLES = frozenset({"d", "a", "b", "c", "e", "f", "g", "h", "dp", "ds", "r"})
_UNSIGNED_CMP = frozenset({"lo", "ls", "hi", "hs"})
_FLOAT_CMP = frozenset({"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"})


def _no_sink(o: Operand) -> Operand:
    """A vector element in a source position: ``_`` there is ptxas's own error."""
    if isinstance(o, Sink):
        raise OperandError("Sink '_' not allowed as a source operand")
    return o


@dataclass(frozen=True, slots=True)
class ModMatch:
    """The outcome of matching an instruction's modifiers against its forms (cached)."""

    unknown: tuple[str, ...]  # modifiers no instruction knows
    forms: tuple[Form, ...]  # forms whose modifiers and types match
    errors: tuple[str, ...]  # when no form matches: ptxas-style messages (first is primary)


_NAMED_MODES = {
    "setmaxnreg": ("inc", "dec"),
    "mul": ("lo", "hi", "wide"),
    "mad": ("lo", "hi", "wide"),
    "shf": ("l", "r"),
    "suld": ("b",),
    "sust": ("b", "p"),
    "sured": ("b", "p"),
    "tex": ("base", "level", "grad"),
    "txq": ("level",),
    "tcgen05.ld": ("red",),
    "tcgen05.mma": ("ws",),
}


def msg_name(opcode: str, raw: tuple[str, ...]) -> str:
    """The instruction name ptxas uses in messages (``setmaxnreg.inc``, ``mul.lo``)."""
    modes = _NAMED_MODES.get(opcode)
    if modes is not None:
        for m in raw:
            if m in modes:
                return f"{opcode}.{m}"
    return opcode


@functools.lru_cache(maxsize=4096)
def match_mods(opcode: str, raw: tuple[str, ...]) -> ModMatch:
    forms = table().get(opcode, ())
    vocab = vocabulary()
    unknown = tuple(m for m in raw if m not in vocab)
    known = [m for m in raw if m in vocab]
    types = [m for m in known if m in TYPE_NAMES]
    others = [m for m in known if m not in TYPE_NAMES]
    name = msg_name(opcode, raw)
    matched: list[Form] = []
    # (form, extra mods, duplicate groups, missing groups) for forms whose types fit
    near: list[tuple[Form, list[str], list[str], list[str]]] = []
    typed = False
    for f in forms:
        slots = f.type_slots
        fits = len(slots) == len(types) and all(
            t in s.values for t, s in zip(types, slots, strict=True)
        )
        # a type that sits among the modifiers of a typeless form (e.g. .b1024) is fine
        if not fits and not (types and not slots and all(_type_is_modifier(f, t) for t in types)):
            continue
        typed = True
        used: dict[int, str] = {}
        extra: list[str] = []
        dup: list[str] = []
        for m in others:
            hit = -1
            for i, g in enumerate(f.groups):
                if m in g.values:
                    if i not in used:
                        hit = i
                        break
                    hit = -2
            if hit >= 0:
                used[hit] = m
            elif hit == -2:
                dup.append(m)
            else:
                extra.append(m)
        missing = [g.category for i, g in enumerate(f.groups) if not g.optional and i not in used]
        if not extra and not dup and not missing:
            matched.append(f)
        else:
            near.append((f, extra, dup, [*missing]))
    if matched:
        return ModMatch(unknown, tuple(matched), ())
    errors = _diagnose(opcode, name, forms, types, others, typed, near)
    return ModMatch(unknown, (), tuple(errors))


_NO_PAIR = "Predicate output not allowed for instruction '{name}'"


def _follow_ups(op: str, name: str, err: str) -> list[str]:
    """The messages ptxas prints after an operand error (observed: ld checks its operands twice,
    a '|' output is also 'expected')."""
    if err == _NO_PAIR.format(name=name):
        return [f"Predicate output expected for instruction '{name}'"]
    if op == "ld" and err == f"Argument vector size mismatch for instruction '{name}'":
        return [err]
    if op == "ld" and err.startswith("Illegal to use symbol"):
        return [f"Illegal operand type to instruction '{name}'"] * 2
    if op in ("ld", "st") and err.startswith("Illegal expression"):
        return [f"Vector with elements of different types are not allowed in {op} instruction"]
    return []


_SPACES = frozenset(
    {"global", "shared", "local", "const", "param", "shared::cta", "shared::cluster"}
)


def _vector_before_space(raw: tuple[str, ...] | list[str]) -> bool:
    """``ld.v4.global.f32``: a vector modifier ahead of the state space (ptxas warns)."""
    vec = next((i for i, m in enumerate(raw) if m[:1] == "v" and m[1:].isdigit()), None)
    space = next((i for i, m in enumerate(raw) if m in _SPACES), None)
    return vec is not None and space is not None and vec < space


_SHAPE = re.compile(r"m\d+n\d+k\d+")
_MATRIX_OPS = frozenset({"ldmatrix", "stmatrix", "movmatrix"})


def _type_is_modifier(f: Form, t: str) -> bool:
    return any(t in g.values for g in f.groups)


def _diagnose(
    opcode: str,
    name: str,
    forms: tuple[Form, ...],
    types: list[str],
    others: list[str],
    typed: bool,
    near: list[tuple[Form, list[str], list[str], list[str]]],
) -> list[str]:
    """Pick ptxas's message for modifiers that fit no form."""
    from openptxas.ptx.cvt_diag import cvt_message, float_message

    special = float_message(opcode, types, others)
    if special is not None:
        return special
    if opcode == "cvt":
        msgs = cvt_message(types, others)
        if msgs is not None:
            return msgs
    if opcode in ("abs", "neg") and types and types[0][0] == "u":
        return [f"Instruction '{name}' applies only to signed numeric types"]
    if opcode in ("mul", "mad", "mul24", "mad24", "div") and not typed:
        mode = next((m for m in others if m in ("lo", "hi", "wide", "approx", "full")), None)
        if mode is not None:
            base = name if name.endswith("." + mode) else f"{name}.{mode}"
            return [f"Unexpected instruction types specified for '{base}'"]
    if opcode == "vote" and types and types[0] != "pred":
        mode = next((m for m in others if m in ("all", "any", "uni")), None)
        if mode is not None:
            return [f"Instruction 'vote' requires '.pred' type with '.{mode}' modifier."]
    if (
        opcode in ("atom", "red")
        and "noftz" not in others
        and types
        and types[0] in ("f16", "f16x2", "bf16", "bf16x2")
        and "add" in others
    ):
        return [f"'.noftz' modifier required for instruction '{name}' with type '.{types[0]}'"]
    if opcode == "sured" and "p" in others:
        return [f"Unexpected instruction types specified for '{name}'"]
    if opcode == "red" and "cas" in others:
        return [f"Illegal modifier '.cas' for instruction '{name}'"]
    if opcode in _INCORRECT_TYPE_OPS and types:
        op = next((m for m in others if m in _ATOMIC_TYPES), None)
        if op is not None and any(op in g.values for f in forms for g in f.groups):
            return [f"Incorrect type '.{types[-1]}' for operation '.{op}' in instruction '{name}'"]
    if opcode in ("atom", "red") and types:
        op = next((m for m in others if m in _ATOMIC_TYPES), None)
        if op is not None and not any(op in g.values for n in near for g in n[0].groups):
            if op == "cas":
                return [f"Unexpected instruction types specified for '{name}'"]
            return [f"Operation .{op} requires {_ATOMIC_TYPES[op]} type for instruction '{name}'"]
    if not typed:
        return [f"Unexpected instruction types specified for '{name}'"]
    # forms whose types fit: the closest one decides
    best = min(near, key=lambda n: (len(n[1]) + len(n[2]), len(n[3])))
    _, extra, dup, _ = best
    dups = [m for n in near for m in n[2]]
    from openptxas.ptx.optable import sets

    spaces = sets()["ldss"][1] | sets()["allss"][1]
    if dups or dup:
        d = (dup or dups)[0]
        if d in spaces:
            return [f"Unexpected number of state spaces specified in instruction '{name}'"]
        if d in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs"):
            return ["Multiple rounding modifiers specified"]
        return [f"Illegal modifier '.{d}' for instruction '{name}'"]
    # modifiers that no form with these types accepts
    accepted = {m for n in near for m in others if m not in n[1]}
    bad = [m for m in extra if m not in accepted] or extra
    # ptxas names another illegal modifier before .ftz (add.ftz.sat.bf16: '.sat')
    bad = sorted(bad, key=lambda m: m == "ftz")
    if bad:
        m = bad[0]
        if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs"):
            return [f"Illegal rounding modifier for instruction '{name}'"]
        if m == "sat" and types and types[0][:1] in ("u", "s"):
            return [f"Modifier '.sat' does not apply to '.{types[0]}' type"]
        if m in spaces:
            return [f"State space incorrect for instruction '{name}'"]
        if (opcode in ("mul", "mad", "mul24", "mad24") and m in ("lo", "hi", "wide")) or (
            opcode == "div" and m in ("approx", "full")
        ):
            base = name if name.endswith("." + m) else f"{name}.{m}"
            return [f"Unexpected instruction types specified for '{base}'"]
        if m == "relu" and types and opcode in ("min", "max"):
            return [f"Illegal modifier '.relu' for instruction '{name}' with type '.{types[0]}'"]
        return [f"Illegal modifier '.{m}' for instruction '{name}'"]
    # something required is missing: report by category, over the closest forms
    cats = {c for n in near if not n[1] and not n[2] for c in n[3]}
    if cats == {"mod"}:
        # an unnamed group: ptxas names it by what it holds (mma's shape, ldmatrix's .x1/.x2/.x4)
        vals = {
            v
            for n in near
            if not n[1] and not n[2]
            for g in n[0].groups
            if not g.optional and not any(m in g.values for m in others)
            for v in g.values
        }
        if any(_SHAPE.fullmatch(v) for v in vals):
            return [f"Shape modifier required for instruction '{name}'"]
        if vals & {"x1", "x2", "x4"}:
            return [f".num modifier required for instruction '{name}'"]
    sem = next((m for m in others if m in ("acquire", "release", "relaxed")), None)
    if opcode in ("bar", "barrier"):
        return [f"Barrier modifier required for instruction '{name}'"]
    if opcode == "fence" and "scope" in cats:
        # ptxas: the scope first, then the ordering that needs it (fence.sc, fence.acq_rel)
        order = next((m for m in others if m in ("sc", "acq_rel", "acquire", "release")), None)
        msgs = [f"Scope modifier required for instruction '{name}'"]
        if order is not None:
            msgs.append(f"Modifier '.{order}' requires scope with '{name}' instruction")
        return msgs
    msg = _missing_message(cats, name, sem)
    if opcode == "rcp" and "rnd" in cats and "approx" in cats and "f64" in types:
        # rcp.f64 also fails its .rn form's check (ptxas reports both)
        return [msg, f"Rounding modifier required for instruction '{name}'"]
    return [msg]


def _missing_message(cats: set[str], name: str, sem: str | None) -> str:
    if "rnd" in cats and "approx" in cats:
        return f"Rounding modifier or '.approx' modifier required for instruction '{name}'"
    if "rnd" in cats:
        return f"Rounding modifier required for instruction '{name}'"
    if "approx" in cats:
        return f".approx modifier required for instruction '{name}'"
    if "cmp" in cats:
        return f"Comparison modifier required for instruction '{name}'"
    if "shape" in cats:
        return f"Shape modifier required for instruction '{name}'"
    if "level" in cats:
        return f"Membar level required for instruction '{name}'"
    if "cachelevel" in cats:
        return f"Cache level modifier required for instruction '{name}'"
    if "scope" in cats and sem is not None:
        return f"Modifier '.{sem}' requires scope with '{name}' instruction"
    if "mulmode" in cats:
        return f"Unexpected instruction types specified for '{name}'"
    if "clamp" in cats:
        return f"Clamp modifier required for instruction '{name}'"
    if "aligned" in cats:
        return f".aligned modifier required for instruction '{name}'"
    if "scope" in cats:
        return f"Scope modifier required for instruction '{name}'"
    if "atomop" in cats:
        return f"Operation modifier required for instruction '{name}'"
    if "space" in cats:
        return f"State space required for instruction '{name}'"
    return f"Missing modifier for instruction '{name}'"


# ptxas's lists of the types each atomic operation takes (its message text, typos included).
_ATOMIC_TYPES = {
    "add": ".u32 or .s32 or .u64 or .f64 or f16 or f16x2 or .f32 or .bf16 or .bf16x2",
    "inc": ".u32",
    "dec": ".u32",
    "and": ".b32 or .b64",
    "or": ".b32 or .b64",
    "xor": ".b32 or .b64",
    "exch": ".b32 or .b64 or .b128",
    "min": ".u32 or .s32 or .u64 or .s64 or .f16 or .f16x2 or .bf16 or .bf16x2",
    "max": ".u32 or .s32 or .u64 or .s64 or .f16 or .f16x2 or .bf16 or .bf16x2",
    "cas": "",
}


_INCORRECT_TYPE_OPS = frozenset(
    {"red.async", "multimem.ld_reduce", "multimem.red", "cp.reduce.async.bulk"}
)
# Optional operands that are present exactly when a modifier is: cache policy, CTA mask, ...
_TIED = {"pol": "L2::cache_hint", "msk": "multicast::cluster", "bm": "cp_mask"}


# Instructions whose target gate ptxas words as "Instruction 'x' requires ..."
_INSTRUCTION_GATES = {
    "dp4a": "Instruction 'dp4a'",
    "dp2a": "Instruction 'dp2a'",
    "match": "Instruction 'match'",
    "griddepcontrol": "Instruction 'griddepcontrol'",
}


# instructions whose modifiers carry the instruction's own target and version gates in ptxas's
# messages (griddepcontrol.wait: "Modifier '.wait' requires .target sm_90 or higher" first)
_MODIFIER_GATED = frozenset({"griddepcontrol"})


def _atomic_gate_name(ins: Instruction) -> str:
    """ptxas names an atomic by operation, type and space in its target gate:
    'atom.cas.b16.global', 'red.add.f16.global', 'atom.cas.b16 with generic state space'."""
    op = next((m for m in ins.mods.raw if m in _ATOMIC_TYPES), "")
    parts = [ins.opcode, *([op] if op else []), *(t.value for t in ins.mods.types[-1:])]
    spaces = ins.mods.spaces
    where = f".{spaces[0].value}" if spaces else " with generic state space"
    return f"Instruction '{'.'.join(parts)}{where}'"


def _feature_name(ins: Instruction, name: str) -> str:
    if ins.opcode == "cvt" and any(t.value in ("e4m3x2", "e5m2x2") for t in ins.mods.types):
        return "cvt with .e4m3x2/.e5m2x2"
    return name


@functools.cache
def type_compatible(reg: PtxType, want: PtxType, relaxed: bool) -> bool:
    """PTX ISA type-checking rules for register operands (relaxed: ld/st/cvt data operands
    may be wider than the instruction type)."""
    if reg is want:
        return True
    if reg is PtxType.PRED or want is PtxType.PRED:
        return False
    rk, wk = reg.kind, want.kind
    rb, wb = reg.bits, want.bits
    if wk in _INT_KINDS and want.value[1:].isdigit():
        size_ok = rb >= wb if relaxed else rb == wb
        if wk == "b":
            return size_ok and rk in ("b", "u", "s", "f")
        return size_ok and rk in _INT_KINDS and reg.value[1:].isdigit()
    # floating-point, packed and narrow types: same size, bit-size or identical registers
    if rk == "b":
        return rb >= wb if relaxed else rb == wb
    if relaxed and wk == "f" and rk in _INT_KINDS:
        return False
    return False


class InstrChecks:
    """Instruction checking; the checker class provides the attributes used here."""

    sm: int
    variant: str
    ptx: tuple[int, int]
    arch: str
    address_size: int
    texmode: str

    # -- provided by the checker --------------------------------------------------------------
    def error(self, msg: str, span: Span) -> None:
        raise NotImplementedError

    def warning(self, msg: str, span: Span) -> None:
        raise NotImplementedError

    def fatal(self, msg: str, span: Span | None = None) -> None:
        raise NotImplementedError

    def lookup(self, name: str) -> Decl | None:
        raise NotImplementedError

    def is_label(self, name: str) -> bool:
        raise NotImplementedError

    def unknown_symbol(self, name: str, span: Span) -> None:
        raise NotImplementedError

    def label_kind(self, name: str) -> str:
        raise NotImplementedError

    def function_param_names(self) -> frozenset[str]:
        raise NotImplementedError

    # -- the instruction ----------------------------------------------------------------------
    def check_instruction(self, ins: Instruction) -> None:
        span = ins.span
        op = ins.opcode
        if not is_known_mnemonic(op):
            # ptxas's order: the guard, the opcode, then the guard's unknown symbol
            unknown_guard = self._check_guard(ins, report_unknown=False)
            self.error(f"Not a name of any known instruction: '{op}'", span)
            if unknown_guard is not None:
                self.unknown_symbol(unknown_guard, span)
            self._note_symbols(ins)
            return
        raw = ins.mods.raw
        if op in ("ld", "st") and _vector_before_space(raw):
            self.warning("Vector Type not specified properly", span)
        mm = match_mods(op, raw)
        bad_vec = False
        for u in mm.unknown:
            self.error(f"Unknown modifier '.{u.lstrip(':')}'", span)
            if (u.startswith("v") or (u.startswith("x") and op in _MATRIX_OPS)) and u[1:].isdigit():
                self.error(f"Illegal vector size: {u[1:]}", span)
                bad_vec = True
        name = msg_name(op, raw)
        if not mm.forms:
            for e in mm.errors:
                self.error(e, span)
            self._note_symbols(ins)
            return
        self._check_guard(ins)
        if op not in VIDEO_OPS and self._negation(ins, name):  # video: its own rules
            self._note_symbols(ins)
            return
        for o in ins.operands:
            if (
                isinstance(o, Vector)
                and not bad_vec  # reported with the modifier
                and op not in _UNCHECKED_VEC_SIZE
                and len(o.items) not in _VEC_OK
            ):
                self.error(f"Illegal vector size: {len(o.items)}", span)
        first = ins.operands[0] if ins.operands else None
        if isinstance(first, Pair) and all(
            f.operands and f.operands[0].role == "dp" for f in mm.forms
        ):
            first = first.first  # shfl's value, before '|'
        if (
            isinstance(first, Sink)
            and op != "atom"
            and all(f.operands and f.operands[0].role in ("d", "p", "dp") for f in mm.forms)
        ):
            self.fatal(f"Result discard mode is not allowed for instruction '{name}'", span)
            return
        # operands: the first form that accepts them wins
        first_err: str | None = None
        more: tuple[str, ...] = ()
        chosen: Form | None = None
        for f in mm.forms:
            try:
                self._check_operands(ins, f, name)
            except OperandError as e:
                if first_err is None:
                    first_err = str(e)
                    more = e.more
                continue
            chosen = f
            break
        if chosen is None:
            assert first_err is not None
            if bad_vec and first_err.startswith("Vector operand is not allowed"):
                self.error(f"Argument vector size mismatch for instruction '{name}'", span)
            else:
                self.error(first_err, span)
                for m in more:
                    self.error(m, span)
                for extra in _follow_ups(op, name, first_err):
                    if extra.startswith("Predicate output expected") and self._pred_pair(ins):
                        continue  # 'a|p' with a predicate after '|': only 'not allowed'
                    self.error(extra, span)
            self._note_symbols(ins)
            return
        self._check_gates(ins, chosen, name)
        self._note_symbols(ins)
        check = _VALIDATORS.get(op)
        if check is not None:
            check(self, ins, name)

    def _negation(self, ins: Instruction, name: str) -> bool:
        """'-%r' outside vmad: ptxas's errors (True when there was one)."""
        for o in ins.operands:
            if not (isinstance(o, Not) and o.arith):
                continue
            inner = o.operand
            t = self._reg_type(inner) if isinstance(inner, Reg) else None
            if isinstance(inner, SpecialReg):
                self.error(
                    f"Special register argument not allowed for instruction '{name}'", ins.span
                )
            elif t is None or t is PtxType.PRED:
                self.error("Illegal argument to unary minus", ins.span)
                self.error(f"Arguments mismatch for instruction '{name}'", ins.span)
                return True
            elif t.bits != 32 or t.kind not in _INT_KINDS:
                # ptxas negates 32-bit integers only
                self.error("Illegal argument to unary minus", ins.span)
            self.error(f"Operand negation not allowed for instruction '{name}'", ins.span)
            return True
        return False

    def _check_guard(self, ins: Instruction, *, report_unknown: bool = True) -> str | None:
        """Report a guard that is not a predicate register; an undeclared one is also an unknown
        symbol (reported here, or its name returned for the caller to report later)."""
        g = ins.guard
        if g is None:
            return None
        d = self.lookup(g.reg)
        if (
            not isinstance(d, VarDecl)
            or d.space is not StateSpace.REG
            or d.type is not (PtxType.PRED)
        ):
            self.error("Predicate expression expected", ins.span)
            if d is None:
                if not report_unknown:
                    return g.reg
                self.unknown_symbol(g.reg, ins.span)
        return None

    def _pred_pair(self, ins: Instruction) -> bool:
        pair = next((o for o in ins.operands if isinstance(o, Pair)), None)
        if pair is None or isinstance(pair.second, Sink):
            return pair is not None
        return isinstance(pair.second, Reg) and self._reg_type(pair.second) is PtxType.PRED

    def _check_gates(self, ins: Instruction, f: Form, name: str) -> None:
        feature = _feature_name(ins, name)
        failed = [g for g in f.gates if not gate_ok(g, self.sm, self.variant, self.ptx)]
        if ins.opcode in _MODIFIER_GATED:
            # ptxas checks the modifier first, target before version
            for m in ins.mods.raw:
                for g in sorted(failed, key=lambda g: g.kind == "ptx"):
                    if g.kind == "sm":
                        self.error(
                            f"Modifier '.{m}' requires .target sm_{g.sm} or higher", ins.span
                        )
                    elif g.kind == "ptx":
                        v = f"{g.ptx[0]}.{g.ptx[1]}"
                        self.error(
                            f"Modifier '.{m}' requires PTX ISA .version {v} or later", ins.span
                        )
        bf16 = next((t.value for t in ins.mods.types if t.value.startswith("bf16")), None)
        cluster = 0 < self.sm < 90 and any("::cluster" in sp.value for sp in ins.mods.spaces)
        atomic = ins.opcode in ("atom", "red")
        if bf16 is not None and 0 < self.sm < 80:
            # the type's own gate comes first (add.rn.bf16 on sm_75: '.bf16' sm_80, then
            # 'add.bf16' sm_90)
            self.error(f"Feature '.{bf16}' requires .target sm_80 or higher", ins.span)
        if bf16 is not None and atomic and 0 < self.sm < 90:
            self.error(f"{_atomic_gate_name(ins)} requires .target sm_90 or higher", ins.span)
        scope = ins.mods.scope
        if scope is not None and scope.value == "cluster" and 0 < self.sm < 90:
            self.error("Feature '.cluster scope' requires .target sm_90 or higher", ins.span)
        for g in sorted(f.gates, key=lambda g: g.kind != "ptx"):
            if gate_ok(g, self.sm, self.variant, self.ptx):
                continue
            if g.kind == "sm" and cluster and ins.opcode != "mapa":
                continue  # reported as '::cluster' below (ld.shared::cluster on sm_80)
            if g.kind == "sm" and bf16 is not None and (atomic or (g.sm <= 80 and self.sm < 80)):
                if ins.opcode == "cvt":
                    cvt = ".".join(t.value for t in ins.mods.types)
                    self.error(
                        f"Feature 'cvt.{cvt}' requires .target sm_{g.sm} or higher", ins.span
                    )
                elif not atomic:
                    self.error(f"Feature '.{bf16}' requires .target sm_{g.sm} or higher", ins.span)
                continue
            if g.kind == "sm" and bf16 is not None and g.sm == 90:
                self.error(
                    f"Feature '{ins.opcode}.{bf16}' requires .target sm_90 or higher", ins.span
                )
                continue
            if g.kind == "ptx":
                self.error(
                    f"Feature '{feature}' requires PTX ISA .version {g.ptx[0]}.{g.ptx[1]} or later",
                    ins.span,
                )
            elif (
                g.kind == "sm"
                and ins.opcode == "cvt"
                and ins.has("satfinite")
                and ([t.value for t in ins.mods.types] == ["tf32", "f32"])
                and (ins.has("rn") or ins.has("rz"))
            ):
                rnd = "rn" if ins.has("rn") else "rz"
                self.error(
                    f"Modifier '.satfinite' on 'cvt.tf32.f32.{rnd}' requires .target "
                    f"sm_{g.sm} or higher",
                    ins.span,
                )
            elif g.kind == "sm":
                what = _INSTRUCTION_GATES.get(ins.opcode, f"Feature '{feature}'")
                if ins.opcode in ("atom", "red"):
                    what = _atomic_gate_name(ins)
                if g.sm == 80 and bf16 is not None:
                    what = f"Feature '.{bf16}'"
                self.error(f"{what} requires .target sm_{g.sm} or higher", ins.span)
            elif ins.opcode == "cvt" and ins.has("rs"):
                self.error(f"Feature '.rs' not supported on .target '{self.arch}'", ins.span)
            else:
                what = gate_name(ins, name)
                self.error(f"Instruction '{what}' not supported on .target '{self.arch}'", ins.span)
                if self.arch.endswith("a") and self.sm > g.sm:
                    # a newer family's arch-specific target (wgmma on sm_100a; not tcgen05 on
                    # sm_90a)
                    self.error(
                        f"Instruction '{what}' cannot be compiled for architecture '{self.arch}'",
                        ins.span,
                    )
        if cluster:
            self.error("Feature '::cluster' requires .target sm_90 or higher", ins.span)

    # -- operands ---------------------------------------------------------------------------
    def _check_operands(self, ins: Instruction, f: Form, name: str) -> None:
        if name == "bar.warp.sync":
            name = "bar.warp"  # ptxas's name in its operand messages
        family = OPERAND_CHECKS.get(ins.opcode)
        if family is not None and family(self, ins, name) is not False:
            return
        ops = ins.operands
        specs = list(f.operands)
        if any(s.role in _TIED for s in specs):
            flags = ins.mods.raw_set
            specs = [
                OperandSpec(s.role, s.type, False) if s.role in _TIED else s
                for s in specs
                if s.role not in _TIED or _TIED[s.role] in flags
            ]
        required = sum(1 for s in specs if not s.optional)
        if len(ops) < required or len(ops) > len(specs):
            raise OperandError(f"Arguments mismatch for instruction '{name}'")
        types = ins.mods.types
        vec = ins.mods.vec
        spaces = ins.mods.spaces
        data_roles = ("d", "a", "dp") if vec else ()
        nmem = 0
        for i, (o, s) in enumerate(zip(ops, specs, strict=False)):
            want = _resolve_type(s, types, f)
            space = None
            if s.role == "m":
                space = spaces[nmem] if nmem < len(spaces) else None
                nmem += 1
            self._check_operand(ins, i, o, s, want, vec if s.role in data_roles else 0, name, space)

    def _check_operand(
        self,
        ins: Instruction,
        i: int,
        o: Operand,
        s: OperandSpec,
        want: PtxType | None,
        vec: int,
        name: str,
        space: StateSpace | None = None,
    ) -> None:
        role = s.role
        mismatch = f"Arguments mismatch for instruction '{name}'"
        relaxed = ins.opcode in _RELAXED
        if role == "x":
            return
        if (
            ins.opcode == "cvt"
            and want in (PtxType.U8, PtxType.S8)
            and isinstance(o, Reg)
            and any(t.value == "bf16" for t in ins.mods.types)
        ):
            # cvt between bf16 and an 8-bit integer takes only 8-bit registers (ptxas; a
            # 16-bit one is fine for f16)
            rt = self._reg_type(o)
            if rt is not None and rt.size != 1:
                raise OperandError(mismatch)
        if not vec and isinstance(o, Vector) and role in _SCALAR_ROLES:
            if len(o.items) != 1 and ins.opcode != "mov":
                raise OperandError(f"Vector operand is not allowed for instruction '{name}'")
            if len(o.items) == 1:
                o = o.items[0]  # {%r1} is the scalar %r1
        if isinstance(o, Pair) and role not in ("pq", "dp", "dpp"):
            raise OperandError(_NO_PAIR.format(name=name))
        if isinstance(o, Not) and role != "q":
            raise OperandError("Illegal argument to predicate negation")
        if role == "l":
            if not isinstance(o, Label):
                if isinstance(o, Sym) and o.offset == 0 and self.lookup(o.name) is None:
                    return  # an undefined label: reported as an unknown symbol
                raise OperandError(f"Label expected for argument {i} of instruction '{name}'")
            if ins.opcode == "brx.idx" and self.label_kind(o.name) != "branchtargets":
                raise OperandError(mismatch)
            return
        if vec:
            if role == "dp" and isinstance(o, Pair):
                o = o.first
            if not isinstance(o, Vector) or len(o.items) != vec:
                raise OperandError(f"Argument vector size mismatch for instruction '{name}'")
            for it in o.items:
                if isinstance(it, Reg) and self.lookup(it.name) is None:
                    raise OperandError(f"Illegal expression '{it.name}'")
                if role in ("d", "dp"):
                    self._dest(it, want, relaxed, name, allow_sink=True)
                else:
                    self._source(ins, _no_sink(it), want, relaxed, name, allow_addr=False)
            return
        if role == "d":
            if ins.opcode == "mov" and isinstance(o, Vector):
                self._vector_pack(o, want, name)
                return
            # an atomic's old value may be discarded (ptxas: a RED, or RZ as the destination)
            self._dest(o, want, relaxed, name, allow_sink=ins.opcode == "atom")
        elif role == "ds":
            self._dest(o, want, relaxed, name, allow_sink=True)
        elif role in ("a", "b", "c", "e", "f", "g", "h"):
            if ins.opcode == "mov" and isinstance(o, Vector):
                for it in o.items:
                    _no_sink(it)
                self._vector_pack(o, want, name)
                return
            self._source(ins, o, want, relaxed, name, allow_addr=ins.opcode in _ADDR_OF)
        elif role == "r":
            if not isinstance(o, Reg):
                raise OperandError(mismatch)
            self._source(ins, o, want, relaxed, name, allow_addr=False)
        elif role == "i":
            if not isinstance(o, IntImm):
                raise OperandError(mismatch)
        elif role == "p":
            self._dest(o, PtxType.PRED, False, name, allow_sink=False)
        elif role == "q":
            if isinstance(o, Not):
                o = o.operand
                if not (isinstance(o, Reg) and self._reg_type(o) is PtxType.PRED):
                    raise OperandError("Illegal argument to predicate negation")
            if isinstance(o, IntImm):
                return
            self._source(ins, o, PtxType.PRED, False, name, allow_addr=False)
        elif role == "pq":
            if isinstance(o, Pair):
                self._dest(o.first, PtxType.PRED, False, name, allow_sink=True)
                self._dest(o.second, PtxType.PRED, False, name, allow_sink=True)
            else:  # 'setp.eq.s32 _, a, b' is accepted: the result is discarded
                self._dest(o, PtxType.PRED, False, name, allow_sink=True)
        elif role == "dp":
            if isinstance(o, Pair):
                self._dest(o.first, want, relaxed, name, allow_sink=True)
                self._dest(o.second, PtxType.PRED, False, name, allow_sink=True)
            elif isinstance(o, Vector):
                for it in o.items:
                    self._dest(it, want, relaxed, name, allow_sink=True)
            else:
                self._dest(o, want, relaxed, name, allow_sink=False)
        elif role == "m":
            self._memory(ins, o, name, space)
        elif role == "pol":
            self._source(ins, o, PtxType.B64, False, name, allow_addr=False)
        elif role in ("msk", "bm"):
            self._source(ins, o, PtxType.B16, False, name, allow_addr=False)
        elif role == "dpp":
            if not isinstance(o, Pair):
                raise OperandError(f"Predicate output expected for instruction '{name}'")
            self._dest(o.first, want, relaxed, name, allow_sink=True)
            self._dest(o.second, PtxType.PRED, False, name, allow_sink=True)
        elif role == "v":
            if not isinstance(o, Vector):
                raise OperandError(mismatch)
            for it in o.items:
                if isinstance(it, (Reg, Sink)):
                    if isinstance(it, Reg) and self._reg_type(it) is None:
                        raise OperandError(mismatch)
                    continue
                if isinstance(it, (IntImm, FloatImm)):
                    continue
                raise OperandError(mismatch)
        else:  # pragma: no cover - table error
            raise AssertionError(role)

    def _reg_type(self, r: Reg) -> PtxType | None:
        d = self.lookup(r.name)
        if isinstance(d, VarDecl) and d.space is StateSpace.REG:
            return d.type
        if isinstance(d, Param) and d.space is StateSpace.REG:
            return d.type
        return None

    def _dest(
        self, o: Operand, want: PtxType | None, relaxed: bool, name: str, *, allow_sink: bool
    ) -> None:
        mismatch = f"Arguments mismatch for instruction '{name}'"
        if isinstance(o, Sink):
            if allow_sink:
                return
            raise OperandError(mismatch)
        if isinstance(o, SpecialReg):
            raise OperandError("Read-only special register cannot be destination argument")
        if isinstance(o, (IntImm, FloatImm)):
            raise OperandError(f"Result register required for instruction '{name}'")
        if not isinstance(o, Reg):
            raise OperandError(mismatch)
        t = self._reg_type(o)
        if t is None:
            raise OperandError(mismatch)
        if want is not None and not type_compatible(t, want, relaxed):
            raise OperandError(mismatch)

    def _source(
        self,
        ins: Instruction,
        o: Operand,
        want: PtxType | None,
        relaxed: bool,
        name: str,
        *,
        allow_addr: bool,
    ) -> None:
        mismatch = f"Arguments mismatch for instruction '{name}'"
        if isinstance(o, Reg):
            t = self._reg_type(o)
            if t is None:
                d = self.lookup(o.name)
                if d is not None and allow_addr:
                    return  # a %-named variable used for its address
                raise OperandError(mismatch)
            if o.comp and t is not PtxType.PRED:
                # vector register component (.x) or video byte/half selector
                return
            if want is not None and not type_compatible(t, want, relaxed):
                raise OperandError(mismatch)
            return
        if isinstance(o, SpecialReg):
            base = o.name
            st = SPECIAL_REGISTERS[base]
            if o.comp and (
                base not in VECTOR_SPECIAL_REGISTERS or o.comp not in ("x", "y", "z", "w")
            ):
                raise OperandError(f"Unknown field '.{o.comp}'")
            if want is not None and not type_compatible(st, want, False):
                raise OperandError(mismatch)
            return
        if isinstance(o, IntImm):
            if want is None or want.kind in ("b", "u", "s", "pred"):
                return
            raise OperandError(mismatch)
        if isinstance(o, FloatImm):
            # a bit-size operand takes a float literal of its own width only (ptxas 13.0.88:
            # 0f.. for .b32, not 0d.. or 1.5, which are doubles; 0d.. for .b64)
            if want is None or want.kind == "f" or (want.kind == "b" and want.bits == o.width):
                return
            raise OperandError(mismatch)
        if isinstance(o, Sym):
            d = self.lookup(o.name)
            if allow_addr and (d is None or isinstance(d, (VarDecl, Function, Param))):
                return
            raise OperandError(mismatch)
        if isinstance(o, Vector) and want is not None:
            raise OperandError(mismatch)
        raise OperandError(mismatch)

    def _vector_pack(self, v: Vector, want: PtxType | None, name: str) -> None:
        """mov.b64 %rd, {%r1, %r2} / mov.b64 {%r1, %r2}, %rd: element sizes must add up."""
        mismatch = f"Arguments mismatch for instruction '{name}'"
        if want is None or len(v.items) not in (2, 4):
            raise OperandError(mismatch)
        total = 0
        for it in v.items:
            if isinstance(it, (Sink, IntImm, FloatImm)):
                total += want.bits // len(v.items)
                continue
            if not isinstance(it, Reg):
                raise OperandError(mismatch)
            t = self._reg_type(it)
            if t is None:
                raise OperandError(mismatch)
            total += t.bits
        if total != want.bits:
            raise OperandError(mismatch)

    def _memory(self, ins: Instruction, o: Operand, name: str, space: StateSpace | None) -> None:
        bad = f"Illegal operand type to instruction '{name}'"
        if isinstance(o, MemList):
            return
        if not isinstance(o, Address):
            raise OperandError(f"Arguments mismatch for instruction '{name}'")
        base = o.base
        if base is None:
            if (
                space is not None
                and space.base is not StateSpace.LOCAL
                and ins.opcode
                in (
                    "ld",
                    "st",
                )
            ):
                raise OperandError("Immediate addresses allowed only for .local state space")
            return
        if isinstance(base, Reg):
            t = self._reg_type(base)
            if t is None:
                d = self.lookup(base.name)
                if d is None:
                    raise OperandError(bad)
                self._symbol_space(ins, d, space, name, base.name)
                return
            if t.kind not in _INT_KINDS or t.bits not in (32, 64):
                raise OperandError(bad)
            return
        d = self.lookup(base.name)
        if d is None:
            if self.is_label(base.name):
                raise OperandError(
                    f"Illegal to use symbol '{base.name}' of type unexpected as address "
                    "operand. Use integer or bit only."
                )
            raise OperandError(bad)
        self._symbol_space(ins, d, space, name, base.name)

    def _symbol_space(
        self, ins: Instruction, d: Decl, space: StateSpace | None, name: str, sym: str
    ) -> None:
        if isinstance(d, Function):
            raise OperandError(f"Illegal operand type to instruction '{name}'")
        dspace = d.space
        if space is None:
            return
        if isinstance(d, Param) and d.space is StateSpace.REG:
            raise OperandError(f"Illegal operand type to instruction '{name}'")
        if space.base is not dspace.base:
            raise OperandError(
                f"State space mismatch between instruction and address in instruction '{name}'"
            )
        if ins.opcode == "st" and dspace is StateSpace.PARAM and sym in self.function_param_names():
            raise OperandError(f"Illegal to write to function input parameter '{sym}'")

    # -- symbols ------------------------------------------------------------------------------
    def _note_symbols(self, ins: Instruction) -> None:
        """Defer 'Unknown symbol' for every name the instruction uses that nothing declares."""
        seen: set[str] = set()
        for o in ins.operands:
            for nm in _names(o):
                if nm in seen:
                    continue
                seen.add(nm)
                if nm in PREDEFINED_CONSTANTS:
                    continue  # WARP_SZ: a constant ptxas predefines (32)
                if nm == "_" and ins.opcode == "call":
                    continue  # a call argument '_' (checked against its formal parameter)
                if self.lookup(nm) is None and not self.is_label(nm):
                    self.unknown_symbol(nm, ins.span)


# Identifiers ptxas predefines as integer constants.
PREDEFINED_CONSTANTS = frozenset({"WARP_SZ"})


def _names(o: Operand) -> list[str]:
    if isinstance(o, Reg):
        return [o.name]
    if isinstance(o, (Sym, Label)):
        return [o.name]
    if isinstance(o, Address):
        return [o.base.name] if o.base is not None else []
    if isinstance(o, (Vector, ArgList, MemList)):
        return [n for it in o.items for n in _names(it)]
    if isinstance(o, Pair):
        return _names(o.first) + _names(o.second)
    if isinstance(o, Not):
        return _names(o.operand)
    return []


def _resolve_type(s: OperandSpec, types: tuple[PtxType, ...], f: Form) -> PtxType | None:
    t = s.type
    if t == "" or t == "T":
        return types[0] if types else None
    if t.startswith("T") and t[1:].isdigit():
        k = int(t[1:])
        return types[k] if k < len(types) else None
    if t == "addr":
        return None
    if t == "W":  # twice the width of the instruction type (mul.wide, mad.wide)
        return _WIDE.get(types[0]) if types else None
    return PtxType(t)


_WIDE = {
    PtxType.U16: PtxType.U32,
    PtxType.U32: PtxType.U64,
    PtxType.S16: PtxType.S32,
    PtxType.S32: PtxType.S64,
}


# ----------------------------------------------------------------------------------------------
# Value rules of single instructions


def _imm(o: Operand) -> int | None:
    return o.value if isinstance(o, IntImm) else None


def _v_cp_async(c: InstrChecks, ins: Instruction, name: str) -> None:
    if len(ins.operands) < 3:
        return
    v = _imm(ins.operands[2])
    if v is None:
        return
    allowed = (16,) if ins.mods.cache is not None and ins.mods.cache.value == "cg" else (4, 8, 16)
    if v not in allowed:
        c.error(
            f"Argument 2 of instruction '{name}': unexpected value '{v}', expected to be "
            + " or ".join(str(a) for a in allowed),
            ins.span,
        )


def _v_setmaxnreg(c: InstrChecks, ins: Instruction, name: str) -> None:
    v = _imm(ins.operands[0]) if ins.operands else None
    if v is None:
        return
    if v % 8:
        c.error(
            f"Argument 1 of instruction '{name}': unexpected value '{v}', expected to be "
            "multiple of 8",
            ins.span,
        )
    if not 24 <= v <= 256:
        c.error(
            f"Argument 1 of instruction '{name}': value '{v}' out of range, expected to be in "
            "range [24..256]",
            ins.span,
        )


def _v_pmevent(c: InstrChecks, ins: Instruction, name: str) -> None:
    v = _imm(ins.operands[0]) if ins.operands else None
    hi = 0xFFFF if "mask" in ins.mods.flags else 15
    if v is not None and not 0 <= v <= hi:
        c.error(
            f"Argument 0 of instruction '{name}': value '{v}' out of range, expected to be in "
            f"range [0..{hi}]",
            ins.span,
        )


def _v_bar(c: InstrChecks, ins: Instruction, name: str) -> None:
    if not ins.operands:
        return
    idx = 1 if "red" in ins.mods.flags else 0
    if idx >= len(ins.operands):
        return
    v = _imm(ins.operands[idx])
    if v is not None and not 0 <= v <= 15:
        c.error(f"Barrier number '{v}' out of range, expected to be in range [0..15]", ins.span)


def _v_setp(c: InstrChecks, ins: Instruction, name: str) -> None:
    cmp = ins.mods.cmp
    t = ins.mods.types[-1] if ins.mods.types else None
    if cmp is None or t is None:
        return
    if (
        (cmp.value in _UNSIGNED_CMP and t.kind == "f")
        or (cmp.value in _FLOAT_CMP and t.kind != "f")
        or (t.kind == "b" and cmp.value not in ("eq", "ne"))
    ):
        c.error("Mismatch between instruction type and comparison qualifier", ins.span)


def _v_matrix_count(c: InstrChecks, ins: Instruction, name: str) -> None:
    want = {"x1": 1, "x2": 2, "x4": 4}.get(
        next((m for m in ins.mods.raw if m in ("x1", "x2", "x4")), ""), 0
    )
    if not want:
        return
    pos = 0 if ins.opcode == "ldmatrix" else 1
    if pos >= len(ins.operands):
        return
    o = ins.operands[pos]
    if isinstance(o, Vector) and len(o.items) != want:
        c.error(
            f"Vector of size {want} is expected for argument {pos} of instruction '{name}'",
            ins.span,
        )
        c.error(f"Argument vector size mismatch for instruction '{name}'", ins.span)


# mma fragment sizes in registers: (shape, A type) -> (a, b, c/d for f32|s32 c, for f16 c)
_MMA_FRAGS: dict[tuple[str, str], tuple[int, int, int, int]] = {
    ("m16n8k16", "f16"): (4, 2, 4, 2),
    ("m16n8k8", "f16"): (2, 1, 4, 2),
    ("m16n8k16", "bf16"): (4, 2, 4, 4),
    ("m16n8k8", "bf16"): (2, 1, 4, 4),
    ("m16n8k4", "tf32"): (2, 1, 4, 4),
    ("m16n8k8", "tf32"): (4, 2, 4, 4),
    ("m8n8k4", "f64"): (1, 1, 2, 2),
    ("m16n8k32", "s8"): (4, 2, 4, 4),
    ("m16n8k32", "u8"): (4, 2, 4, 4),
    ("m16n8k16", "s8"): (2, 1, 4, 4),
    ("m16n8k16", "u8"): (2, 1, 4, 4),
    ("m16n8k32", "e4m3"): (4, 2, 4, 2),
    ("m16n8k32", "e5m2"): (4, 2, 4, 2),
}


def _v_mma(c: InstrChecks, ins: Instruction, name: str) -> None:
    if "sp" in ins.mods.flags or "sp::ordered_metadata" in ins.mods.flags:
        return
    types = ins.mods.types
    shape = ins.mods.shape
    if shape is None or len(types) < 4:
        return
    frag = _MMA_FRAGS.get((shape, types[1].value))
    if frag is None:
        return
    a, b, cf, ch = frag
    dn = ch if types[0] is PtxType.F16 else cf
    cn = ch if types[3] is PtxType.F16 else cf
    for o, n in zip(ins.operands, (dn, a, b, cn), strict=False):
        if isinstance(o, Vector) and len(o.items) != n:
            # an illegal size (3) was reported already; ptxas adds the mismatch too
            c.error(f"Argument vector size mismatch for instruction '{name}'", ins.span)
            return


_NOSEM_SPACES = frozenset({"local", "param", "param::entry", "param::func", "const"})


def _v_ldst(c: InstrChecks, ins: Instruction, name: str) -> None:
    """Cross-modifier rules of ld/st: vector width, semantics per space, L2 hints."""
    mods = ins.mods
    t = mods.type
    sem = mods.sem
    sp = mods.space
    if sem is not None and sem.value != "weak" and sp is not None and sp.value in _NOSEM_SPACES:
        c.error(f"Modifier '.{sem.value}' cannot be applied to '.{sp.value}' space", ins.span)
        return
    wide = False
    if mods.vec and t is not None:
        total = mods.vec * t.bits
        wide = total == 256 and t.bits in (32, 64)
        if total > 128 and not wide:
            c.error("Vector type too large, exceeds 128 bit limit", ins.span)
            return
        if wide:
            if c.sm < 100:
                c.error(
                    "Feature '256 bit wide load/store' requires .target sm_100 or higher", ins.span
                )
                return
            if sp is not None and sp.base is not StateSpace.GLOBAL:
                c.error(
                    "global state space expected for feature '256 bit wide load/store'", ins.span
                )
                return
    for m in mods.raw:
        if m in ("L2::evict_normal", "L2::evict_first", "L2::evict_last") and not wide:
            c.error(
                f"Instruction '{name}' requires '.v8.b32/.v4.b64' type with '.{m}' modifier.",
                ins.span,
            )
            return


def _v_cvt(c: InstrChecks, ins: Instruction, name: str) -> None:
    """.sat only where the destination cannot hold every source value; .ftz only with f32."""
    types = ins.mods.types
    if len(types) != 2:
        return
    d, a = types
    flags = ins.mods.flags
    if "ftz" in flags and PtxType.F32 not in (d, a):
        c.error("Modifier '.ftz' does not apply to this type of convert operation", ins.span)
        return
    if "sat" in flags and d.is_int and a.is_int:
        holds = (d.is_signed == a.is_signed and d.bits >= a.bits) or (
            d.is_signed and not a.is_signed and d.bits > a.bits
        )
        if holds:
            c.error(f"Illegal modifier '.sat' for instruction '{name}'", ins.span)


def _v_minmax(c: InstrChecks, ins: Instruction, name: str) -> None:
    flags = ins.mods.flags
    if "xorsign" in flags and "abs" not in flags:
        c.error("Modifier '.xorsign' requires modifier '.abs'", ins.span)
    elif "abs" in flags and "xorsign" not in flags and len(ins.operands) == 3:
        c.error("Modifier '.abs' requires modifier '.xorsign'", ins.span)


def _sem_name(ins: Instruction, name: str) -> str:
    for sub in ("expect_tx", "parity"):
        if sub in ins.mods.flags:
            return f"{name}.{sub}"
    return name


def _v_sem_scope(c: InstrChecks, ins: Instruction, name: str) -> None:
    """Memory-ordering modifiers come in pairs: an order (.relaxed/.acquire/.release) needs a
    scope and a scope needs an order."""
    sem = ins.mods.sem
    scope = ins.mods.scope
    nm = _sem_name(ins, name)
    if sem is not None and sem.value in ("relaxed", "acquire", "release") and scope is None:
        c.error(f"Modifier '.{sem.value}' requires scope with '{nm}' instruction", ins.span)
    elif scope is not None and (sem is None or sem.value == "weak"):
        c.error(f"Modifier '.{scope.value}' requires order with '{nm}' instruction", ins.span)


def _v_mbarrier_arrive(c: InstrChecks, ins: Instruction, name: str) -> None:
    _v_sem_scope(c, ins, name)
    sp = ins.mods.space
    if sp is StateSpace.SHARED_CLUSTER and ins.operands and not isinstance(ins.operands[0], Sink):
        c.error(
            f"Sink '_' is expected as a destination operand for instruction "
            f"'{_sem_name(ins, name)}' with '.shared::cluster'",
            ins.span,
        )


def _v_tcgen05_cp(c: InstrChecks, ins: Instruction, name: str) -> None:
    flags = ins.mods.flags
    n = ("b8x16" in flags) + ("b6x16_p32" in flags or "b4x16_p64" in flags)
    if n == 1:
        c.error("Unexpected number of 'format conversion' modifiers specified", ins.span)


_VALIDATORS = {
    "tcgen05.cp": _v_tcgen05_cp,
    "ld": _v_ldst,
    "st": _v_ldst,
    "ldu": _v_ldst,
    "cvt": _v_cvt,
    "min": _v_minmax,
    "max": _v_minmax,
    "mbarrier.arrive": _v_mbarrier_arrive,
    "mbarrier.arrive_drop": _v_mbarrier_arrive,
    "mbarrier.expect_tx": _v_sem_scope,
    "mbarrier.complete_tx": _v_sem_scope,
    "mbarrier.test_wait": _v_sem_scope,
    "mbarrier.try_wait": _v_sem_scope,
    "multimem.ld_reduce": _v_sem_scope,
    "multimem.st": _v_sem_scope,
    "multimem.red": _v_sem_scope,
    "cp.async": _v_cp_async,
    "setmaxnreg": _v_setmaxnreg,
    "pmevent": _v_pmevent,
    "bar": _v_bar,
    "barrier": _v_bar,
    "setp": _v_setp,
    "set": _v_setp,
    "ldmatrix": _v_matrix_count,
    "stmatrix": _v_matrix_count,
    "mma": _v_mma,
}


def gates_ok(gates: tuple[Gate, ...], sm: int, variant: str, ptx: tuple[int, int]) -> bool:
    return all(gate_ok(g, sm, variant, ptx) for g in gates)
