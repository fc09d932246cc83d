"""nvdisasm's SASS text syntax, below the level of any instruction table.

:func:`parse_line` splits one instruction's text into guard, opcode, modifiers and syntactic
operands. Registers, special registers and keywords come out as model objects; numbers stay text
(:class:`Num`) because only the instruction's form knows whether ``0x40`` is an integer or a branch
target and how ``1.5`` is stored; memory and constant-bank operands come out as term lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from openptxas.diag import OpenPtxasError
from openptxas.isa.model import GDesc, Keyword, Reg, RegFile, SReg


class SassSyntaxError(OpenPtxasError):
    """SASS text that does not follow nvdisasm's syntax."""


@dataclass(frozen=True, slots=True)
class Num:
    """A numeric literal as written: ``0x40``, ``-0x4``, ``1.5``, ``-INF``."""

    text: str

    @property
    def is_int(self) -> bool:
        return _HEX.fullmatch(self.text) is not None

    def int_value(self) -> int:
        return int(self.text, 16)


@dataclass(frozen=True, slots=True)
class LabelRef:
    """A symbolic code address: ``\\`(.L_x_3)`` or ``\\`(func)``."""

    name: str


@dataclass(frozen=True, slots=True)
class Bracket:
    """The inside of ``[...]``: registers and at most one number, joined by ``+``."""

    terms: tuple[Reg | Num, ...]


@dataclass(frozen=True, slots=True)
class SynMem:
    desc: Reg | None
    addr: Bracket


@dataclass(frozen=True, slots=True)
class SynCBank:
    bank: Num | Reg  # a UR for the bindless cx[...] form
    addr: Bracket
    neg: bool = False  # -c[0x0][0x10] (sm_80's IADD3, FADD's -|c[..]|)
    abs: bool = False
    not_: bool = False  # ~c[0x0][0x10] (sm_80's IADD3.X, IMAD.X)


SynOperand = Reg | SReg | Keyword | Num | LabelRef | SynMem | SynCBank | GDesc


@dataclass(frozen=True, slots=True)
class SynInstr:
    guard: Reg | None
    opcode: str
    mods: tuple[str, ...]
    operands: tuple[SynOperand, ...]
    seps: tuple[str, ...] = ()  # the separator before each operand: ", " or " "


_HEX = re.compile(r"[-+]?0x[0-9a-fA-F]+")
_FLOAT = re.compile(
    r"[-+]?(?:INF|(?:QNAN|SNAN)(?:\(0x[0-9a-fA-F]+\))?|NAN|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)"
)
_REG = re.compile(r"(RZ|URZ|PT|UPT|R\d+|UR\d+|P\d|UP\d|B\d+)((?:\.\w+)*)$")
_SREG = re.compile(r"(?:SR_\w+(?:\.\w+)*|SR\d+)$")
_GUARD = re.compile(r"@(!?)(P[0-6T]|UP[0-6T])$")
_IDENT = re.compile(r"[A-Za-z_][\w.]*$")
_FILE_OF = (("UR", RegFile.UR), ("UP", RegFile.UP), ("R", RegFile.R))


def _reg_from_name(name: str) -> Reg | None:
    fixed = {
        "RZ": Reg(RegFile.R, 255),
        "URZ": Reg(RegFile.UR, 255),
        "PT": Reg(RegFile.P, 7),
        "UPT": Reg(RegFile.UP, 7),
    }
    if name in fixed:
        return fixed[name]
    for prefix, file in _FILE_OF:
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            return Reg(file, int(name[len(prefix) :]))
    if name[0] in "PB" and name[1:].isdigit():
        return Reg(RegFile.P if name[0] == "P" else RegFile.B, int(name[1:]))
    return None


def split_operands(text: str) -> list[tuple[str, str]]:
    """Split operands at top-level commas, and at top-level blanks between two operands (as in
    ``RET.REL.NODEC R6 `(f)``). Returns ``(separator, operand text)`` pairs; the first
    separator is ``""``."""
    chunks: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in text:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0:
            chunks.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail or chunks:
        chunks.append(tail)
    out: list[tuple[str, str]] = []
    for n, chunk in enumerate(chunks):
        sep = "" if n == 0 else ", "
        for word in _split_blanks(chunk):
            out.append((sep, word))
            sep = " "
    return out


def _split_blanks(chunk: str) -> list[str]:
    words: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in chunk:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == " " and depth == 0:
            if cur:
                words.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur or not words:
        words.append("".join(cur))
    return words


def parse_reg(text: str) -> Reg | None:
    """Parse a register with its prefix and suffix operand modifiers, or return None."""
    s = text.strip()
    neg = not_ = abs_ = False
    if s.startswith("!") or s.startswith("~"):
        not_, s = True, s[1:]
    if s.startswith("-"):
        neg, s = True, s[1:]
    suffix = ""
    if s.startswith("|"):
        end = s.find("|", 1)
        if end < 0:
            return None
        abs_, suffix, s = True, s[end + 1 :], s[1:end]
    m = _REG.match(s + suffix)
    if m is None:
        return None
    base = _reg_from_name(m.group(1))
    if base is None:
        return None
    sufs = [x for x in m.group(2).split(".") if x]
    reuse = "reuse" in sufs
    if reuse:
        sufs.remove("reuse")
    return Reg(base.file, base.index, neg, abs_, not_, ".".join(sufs), reuse)


def _parse_bracket(text: str) -> Bracket:
    inner = text.strip()
    terms: list[Reg | Num] = []
    for part in re.split(r"\+(?=.)", inner) if inner else []:
        part = part.strip()
        if not part:
            raise SassSyntaxError(f"empty address term in [{text}]")
        reg = parse_reg(part)
        if reg is not None:
            terms.append(reg)
        elif _HEX.fullmatch(part):
            terms.append(Num(part))
        else:
            raise SassSyntaxError(f"bad address term '{part}' in [{text}]")
    return Bracket(tuple(terms))


def _brackets(text: str) -> list[str]:
    """The contents of consecutive ``[...]`` groups; raise unless ``text`` is exactly those."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "[":
            raise SassSyntaxError(f"expected '[' in '{text}'")
        j = text.find("]", i)
        if j < 0:
            raise SassSyntaxError(f"unbalanced '[' in '{text}'")
        out.append(text[i + 1 : j])
        i = j + 1
    return out


def parse_operand(text: str) -> SynOperand:
    s = text.strip()
    if s.startswith("`(") and s.endswith(")"):
        return LabelRef(s[2:-1])
    if s.startswith("gdesc["):
        m = re.fullmatch(r"gdesc\[([^\]]+)\](?:\.(\w+(?:\.\w+)*))?", s)
        reg = parse_reg(m.group(1)) if m else None
        if m is None or reg is None:
            raise SassSyntaxError(f"bad descriptor operand '{s}'")
        return GDesc(reg, m.group(2) or "")
    if s.startswith("desc["):
        groups = _brackets(s[4:])
        if len(groups) != 2:
            raise SassSyntaxError(f"bad descriptor address '{s}'")
        desc = parse_reg(groups[0])
        if desc is None:
            raise SassSyntaxError(f"bad descriptor register in '{s}'")
        return SynMem(desc, _parse_bracket(groups[1]))
    if s.startswith("["):
        groups = _brackets(s)
        if len(groups) != 1:
            raise SassSyntaxError(f"bad address '{s}'")
        return SynMem(None, _parse_bracket(groups[0]))
    # a negated, absolute or complemented constant operand: -c[0x0][0x10], -|c[..]|, ~c[..]
    if s.startswith(("-c[", "-cx[", "|c[", "|cx[", "-|c[", "-|cx[", "~c[", "~cx[")):
        not_ = s.startswith("~")
        neg = s.startswith("-")
        inner = s[1:] if neg or not_ else s
        abs_ = inner.startswith("|")
        if abs_:
            if not inner.endswith("|"):
                raise SassSyntaxError(f"unbalanced '|' in '{s}'")
            inner = inner[1:-1]
        cb = parse_operand(inner)
        if not isinstance(cb, SynCBank):
            raise SassSyntaxError(f"bad constant-bank reference '{s}'")
        return SynCBank(cb.bank, cb.addr, neg, abs_, not_)
    if s.startswith(("c[", "cx[")):
        groups = _brackets(s[s.index("[") :])
        if len(groups) != 2:
            raise SassSyntaxError(f"bad constant-bank reference '{s}'")
        bank: Num | Reg
        if s.startswith("cx"):
            ub = parse_reg(groups[0])
            if ub is None:
                raise SassSyntaxError(f"bad bindless bank in '{s}'")
            bank = ub
        else:
            if not _HEX.fullmatch(groups[0]):
                raise SassSyntaxError(f"bad bank in '{s}'")
            bank = Num(groups[0])
        return SynCBank(bank, _parse_bracket(groups[1]))
    reg = parse_reg(s)
    if reg is not None:
        return reg
    if _HEX.fullmatch(s) or _FLOAT.fullmatch(s):
        return Num(s)
    if s == "SRZ" or _SREG.match(s):
        return SReg(s)
    if s.startswith("{") and s.endswith("}") and re.fullmatch(r"\{\d+(,\d+)*\}", s):
        return Keyword(s)
    if "???" in s:
        raise SassSyntaxError(f"invalid field value in operand '{s}'")
    if _IDENT.match(s) or re.fullmatch(r"\w+", s):
        return Keyword(s)
    raise SassSyntaxError(f"cannot parse operand '{s}'")


def parse_line(text: str) -> SynInstr:
    """Parse one instruction as nvdisasm prints it (address comment and ``;`` optional)."""
    s = text.strip()
    s = re.sub(r"^/\*[0-9a-fA-F]+\*/\s*", "", s)
    s = re.sub(r"/\*.*?\*/", "", s).strip()
    if s.endswith(";"):
        s = s[:-1].rstrip()
    if not s:
        raise SassSyntaxError("empty instruction")
    guard: Reg | None = None
    if s.startswith("@"):
        head, _, s = s.partition(" ")
        m = _GUARD.match(head)
        if m is None:
            raise SassSyntaxError(f"bad guard '{head}'")
        g = _reg_from_name(m.group(2))
        assert g is not None
        guard = Reg(g.file, g.index, not_=bool(m.group(1)))
        s = s.strip()
    mnem, _, rest = s.partition(" ")
    parts = mnem.split(".")
    if not re.fullmatch(r"[A-Z][A-Z0-9_]*", parts[0]):
        raise SassSyntaxError(f"bad opcode '{parts[0]}'")
    pairs = split_operands(rest) if rest.strip() else []
    ops = tuple(parse_operand(o) for _, o in pairs)
    if any("???" in p for p in parts):
        raise SassSyntaxError(f"invalid modifier in '{mnem}'")
    return SynInstr(guard, parts[0], tuple(parts[1:]), ops, tuple(sep for sep, _ in pairs))
