"""ptxas 13.0's diagnostics for invalid modifiers of the scalar conversions and of a few
floating-point instructions, as observed over every combination of modifiers by
scripts/fp_audit.py (openptxas/testing/fp_audit.py's forms; ptxas's answer for each).

Scalar ``cvt`` between integer and floating types, in ptxas's order of checks:

- with bf16 on either side: an 8-bit integer on the other is 'Arguments mismatch'; ``.sat`` is an
  'Illegal modifier'; so is ``.ftz`` unless the other type is f32;
- otherwise ``.ftz`` without f32 on either side: 'Modifier '.ftz' does not apply to this type
  of convert operation';
- then the rounding: integer -> float needs one of .rn/.rz/.rm/.rp, float -> integer one of
  .rni/.rzi/.rmi/.rpi, narrowing float conversions one of .rn/.rz/.rm/.rp; a float to its own
  type takes none or an integer rounding; widening takes none, except from bf16 (none or
  .rn/.rz/.rm/.rp, as between f16 and bf16). A missing one: 'Rounding modifier required', a wrong
  one: 'Illegal rounding modifier'.
"""

from __future__ import annotations

_INTS = frozenset({"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"})
_FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
_RND = frozenset({"rn", "rz", "rm", "rp"})
_IRND = frozenset({"rni", "rzi", "rmi", "rpi"})
_ALL_RND = _RND | _IRND | {"rna", "rs"}
_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def _rounding(dt: str, st: str) -> tuple[frozenset[str], bool]:
    """The roundings a conversion takes and whether it needs one."""
    if st in _INTS:
        return _RND, True
    if dt in _INTS:
        return _IRND, True
    if dt == st:
        return _IRND, False
    if st == "bf16" or {dt, st} == {"f16", "bf16"}:
        return _RND, False
    if _WIDTH[dt] > _WIDTH[st]:
        return frozenset(), False
    return _RND, True


def cvt_message(types: list[str], others: list[str]) -> list[str] | None:
    """ptxas's messages for an invalid scalar ``cvt`` (None: not one of the forms modelled).
    ptxas reports every failed check, in this order."""
    if len(types) != 2:
        return None
    dt, st = types
    scalar = _INTS | _FLOATS
    if dt not in scalar or st not in scalar or (dt in _INTS and st in _INTS):
        return None
    mods = set(others)
    if mods - _ALL_RND - {"ftz", "sat"}:
        return None
    rnds = [m for m in others if m in _ALL_RND]
    if len(rnds) > 1:
        return None
    out: list[str] = []
    if "bf16" in (dt, st):
        if {dt, st} & {"u8", "s8"}:
            return ["Arguments mismatch for instruction 'cvt'"]
        if "sat" in mods:
            out.append("Illegal modifier '.sat' for instruction 'cvt'")
        if "ftz" in mods and "f32" not in (dt, st):
            out.append("Illegal modifier '.ftz' for instruction 'cvt'")
    if "ftz" in mods and "f32" not in (dt, st):
        out.append("Modifier '.ftz' does not apply to this type of convert operation")
    allowed, required = _rounding(dt, st)
    if not rnds and required:
        out.append("Rounding modifier required for instruction 'cvt'")
    elif rnds and rnds[0] not in allowed:
        out.append("Illegal rounding modifier for instruction 'cvt'")
    return out or None


_ILLRND = "Illegal rounding modifier for instruction 'cvt'"
_F8 = ("e4m3x2", "e5m2x2")


def _cvt_packed(dt: str, st: str, mods: set[str], rnd: str | None) -> list[str] | None:
    """fp8 pairs and tf32."""
    out: list[str] = []
    if dt in _F8:
        if st == "bf16x2":
            out.append("Unexpected instruction types specified for 'cvt'")
        if "satfinite" not in mods:
            need = "'.satfinite' modifier required for instruction 'cvt'"
            out.append(f"{need} with destination type '.{dt}'")
        if rnd != "rn":
            out.append(_ILLRND)
        return out or None
    if st in _F8 and dt in ("f16x2", "bf16x2"):
        if dt == "bf16x2":
            out.append("Unexpected instruction types specified for 'cvt'")
        if rnd != "rn":
            out.append(_ILLRND)
        return out or None
    if (dt, st) == ("tf32", "f32") and rnd is not None:
        if rnd == "rna" and "relu" in mods:
            return ["Modifier '.relu' cannot be combined with modifier '.rna'", _ILLRND]
        if rnd not in ("rn", "rz", "rna"):
            out.append(_ILLRND)
            if "relu" in mods:
                out.append(_ILLRND)
            if "satfinite" in mods:
                out.append(f"Modifier '.satfinite' cannot be combined with modifier '.{rnd}'")
        return out or None
    return None


_HALF_LEGAL = {
    # per type, the modifiers add/sub/mul and fma take
    "f16": ({"ftz", "sat"}, {"ftz", "sat", "relu"}),
    "bf16": (set(), {"relu"}),
}


def _half_arith(opcode: str, t: str, others: list[str]) -> list[str] | None:
    base = t.removesuffix("x2")
    if base not in _HALF_LEGAL or opcode not in ("add", "sub", "mul", "fma"):
        return None
    legal = _HALF_LEGAL[base][opcode == "fma"]
    mods = set(others)
    if mods - {"rn", "ftz", "sat", "relu"}:
        return None
    bad = [m for m in ("relu", "sat", "ftz") if m in mods and m not in legal]
    if not bad:
        return None
    if "relu" in bad:  # ptxas then names nothing else (add.ftz.relu.bf16: '.relu' only)
        bad = ["relu"]
    out = [f"Illegal modifier '.{m}' for instruction '{opcode}'" for m in bad]
    if opcode == "fma" and "rn" not in mods:
        out.append(f"Rounding modifier required for instruction '{opcode}'")
    return out


def float_message(opcode: str, types: list[str], others: list[str]) -> list[str] | None:
    """ptxas's messages for a few invalid floating-point forms the generic choice gets wrong."""
    t = types[0] if types else ""
    mods = set(others)
    if opcode == "cvt" and len(types) == 2:
        rnd = next((m for m in others if m in _ALL_RND), None)
        packed = _cvt_packed(types[0], types[1], mods, rnd)
        if packed is not None:
            return packed
    half = _half_arith(opcode, t, others)
    if half is not None:
        return half
    if opcode == "fma" and "oob" in mods and "ftz" in mods:
        out = ["Modifier '.ftz' cannot be combined with modifier '.oob'"]
        if t in ("bf16", "bf16x2"):  # then each modifier bf16 does not take
            out += [
                f"Illegal modifier '.{m}' for instruction 'fma'"
                for m in ("sat", "ftz")
                if m in mods
            ]
        return out
    if opcode == "ex2" and t in ("bf16", "bf16x2") and "ftz" not in mods:
        return [f".ftz modifier required for instruction 'ex2.{t}'"]
    if opcode == "rcp" and t == "f64" and mods == {"approx"}:
        return ["'.ftz' modifier required for instruction 'rcp.approx.f64'"]
    if opcode == "div" and t == "f64" and "approx" in mods:
        return [
            f"Illegal modifier '.{m}' for instruction 'div'" for m in ("approx", "ftz") if m in mods
        ]
    if opcode == "div" and t == "f64" and mods == {"ftz"}:
        return [
            "Illegal modifier '.ftz' for instruction 'div'",
            "Rounding modifier required for instruction 'div'",
        ]
    if opcode == "sqrt" and t == "f64" and mods == {"approx", "ftz"}:
        return [
            "Illegal modifier '.approx' for instruction 'sqrt'",
            "Illegal modifier '.ftz' for instruction 'sqrt'",
        ]
    if opcode == "cvt" and t in ("f16x2", "bf16x2") and "satfinite" in mods:
        rnd = next((m for m in others if m in ("rm", "rp")), None)
        if rnd is not None:
            return [
                f"Modifier '.satfinite' cannot be combined with modifier '.{rnd}'",
                "Illegal rounding modifier for instruction 'cvt'",
            ]
    if opcode == "mad24" and "sat" in mods and "lo" in mods:
        return ["Illegal modifier '.sat' for instruction 'mad24.lo'"]
    return None
