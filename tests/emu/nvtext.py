"""nvdisasm text -> emulator instructions (a test-side decoder).

The emulator executes instructions of :mod:`openptxas.emu.model`. In the package they come from the
ISA tables' decoder; this module builds them from ``nvdisasm -hex -c`` listings instead, so the
emulator's semantics can be checked against a second, independent decoding (and run where the ISA
tables do not cover a form yet). Only tests and scripts use it: it needs nvdisasm's output.

Operands are the ones nvdisasm prints; the emulator's handlers accept both these and the ISA
decoder's full operand lists (hidden default operands such as IADD3's carry-out ``PT``).
"""

from __future__ import annotations

import re
import struct

from openptxas.emu.model import (
    PT,
    CBank,
    GDesc,
    Imm,
    ImmKind,
    Instruction,
    Keyword,
    Label,
    Mem,
    Operand,
    Reg,
    RegFile,
    SReg,
    control_from_word,
)

_RE_INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
_RE_HI = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
_RE_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_RE_LABEL = re.compile(r"^([.$\w@]+):\s*$")
_RE_REG = re.compile(r"^(UR|R|UP|P|B|SB)(\d+|Z|T)$")
_ALIAS = {"IMAD": ("MOV", "IADD", "SHL")}  # alias modifiers the ISA model leaves out

# Opcodes whose decimal immediates are floats, by kind.
_F64_OPS = ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX", "DSET")
_F16_OPS = ("HADD2", "HMUL2", "HFMA2", "HSET2", "HSETP2", "HMNMX2")


def _imm_kind(opcode: str) -> ImmKind | None:
    if opcode in _F64_OPS:
        return ImmKind.F64
    if opcode in _F16_OPS:
        return ImmKind.F16
    if opcode.startswith("F") or opcode in ("MUFU",):
        return ImmKind.F32
    return None


def _bf16_bits(v: float) -> int:
    f = int(struct.unpack("<I", struct.pack("<f", v))[0])
    return ((f + 0x7FFF + ((f >> 16) & 1)) >> 16) & 0xFFFF


def _parse_float(text: str, kind: ImmKind, bf16: bool = False) -> int:
    t = text.upper()
    sign = -1.0 if t.startswith("-") else 1.0
    body = t.lstrip("+-")
    if body == "INF":
        v = sign * float("inf")
    elif body in ("QNAN", "NAN", "SNAN"):
        bits = {ImmKind.F32: 0x7FFFFFFF, ImmKind.F64: 0x7FFFFFFFFFFFFFFF, ImmKind.F16: 0x7FFF}
        b = bits[kind]
        if sign < 0:
            b |= {ImmKind.F32: 1 << 31, ImmKind.F64: 1 << 63, ImmKind.F16: 1 << 15}[kind]
        return b
    else:
        v = float(text)
    if bf16:
        return _bf16_bits(v)
    if kind is ImmKind.F32:
        return int(struct.unpack("<I", struct.pack("<f", v))[0])
    if kind is ImmKind.F64:
        return int(struct.unpack("<Q", struct.pack("<d", v))[0])
    return int(struct.unpack("<H", struct.pack("<e", v))[0])


def _reg(tok: str) -> Reg | None:
    neg = absv = not_ = reuse = False
    t = tok
    if t.startswith("!"):
        not_, t = True, t[1:]
    if t.startswith("~"):
        not_, t = True, t[1:]
    if t.startswith("-"):
        neg, t = True, t[1:]
    sel_parts: list[str] = []
    if t.startswith("|"):
        end = t.index("|", 1)
        absv = True
        rest = t[end + 1 :]
        t = t[1:end]
        parts = [p for p in rest.split(".") if p]
    else:
        head, *parts = t.split(".")
        t = head
    for p in parts:
        if p == "reuse":
            reuse = True
        else:
            sel_parts.append(p)
    m = _RE_REG.match(t)
    if not m:
        return None
    pre, num = m.groups()
    file = RegFile(pre)
    if num in ("Z", "T"):
        if (file in (RegFile.P, RegFile.UP)) != (num == "T"):
            return None
        index = 7 if num == "T" else 255
    else:
        index = int(num)
    return Reg(file, index, neg, absv, not_, ".".join(sel_parts), reuse)


def _bracket(inner: str) -> tuple[Reg | None, Reg | None, int]:
    base: Reg | None = None
    ubase: Reg | None = None
    off = 0
    for term in inner.replace("+-", "+~NEG~").split("+"):
        term = term.strip()
        if not term:
            continue
        if term.startswith("~NEG~"):
            off -= int(term[5:], 16)
            continue
        if term.startswith(("0x", "-0x")):
            off += int(term, 16)
            continue
        r = _reg(term)
        if r is None:
            raise ValueError(f"bad address term {term!r}")
        if r.file is RegFile.UR:
            ubase = r
        else:
            base = r
    return base, ubase, off


def _operand(
    tok: str, opcode: str, labels: dict[str, int], fkind: ImmKind | None, bf16: bool = False
) -> Operand:
    tok = tok.strip()
    if tok.startswith("`("):
        return Label(labels[tok[2:-1]])
    m = re.fullmatch(r"(desc|gdesc)?\[(\w+)\]\[(.*)\]", tok)
    if m:
        base, ubase, off = _bracket(m.group(3))
        d = _reg(m.group(2))
        if m.group(1) == "gdesc":
            return Mem(base, ubase, off, d)
        return Mem(base, ubase, off, d)
    if tok.startswith("["):
        base, ubase, off = _bracket(tok[1:-1])
        return Mem(base, ubase, off, None)
    m = re.fullmatch(r"c\[(0x[0-9a-f]+)\]\[(.*)\]", tok)
    if m:
        base, ubase, off = _bracket(m.group(2))
        # the index register, R or UR (ULDC UR10, c[0x3][UR12+0x4]), as the ISA tables carry it
        return CBank(int(m.group(1), 16), off, base if base is not None else ubase, None)
    m = re.fullmatch(r"cx\[(\w+)\]\[(.*)\]", tok)
    if m:
        base, ubase, off = _bracket(m.group(2))
        return CBank(0, off, base, _reg(m.group(1)))
    if tok.startswith(("SR_", "SRZ")):
        return SReg(tok)
    m = re.fullmatch(r"gdesc\[(UR\d+)\]\.?(.*)", tok)
    if m:  # wgmma descriptors: gdesc[UR8].tnspA.tnspB
        g = _reg(m.group(1))
        assert g is not None
        return GDesc(g, m.group(2))
    r = _reg(tok)
    if r is not None:
        return r
    if re.fullmatch(r"-?0x[0-9a-f]+", tok):
        v = int(tok, 16)
        return Imm(v, ImmKind.INT)
    if fkind is not None and re.fullmatch(r"[-+]?(\d[\d.e+-]*|INF|QNAN|NAN)", tok, re.IGNORECASE):
        return Imm(_parse_float(tok, fkind, bf16), fkind)
    return Keyword(tok)


def _split_operands(text: str) -> list[str]:
    out: list[str] = []
    depth = 0
    cur = ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [o.strip() for o in out]


def parse_instruction(text: str, word: int, labels: dict[str, int]) -> Instruction:
    """One instruction from its nvdisasm text (without ``;``) and its 128-bit word."""
    text = re.sub(r"\(\*.*?\*\)", "", text).strip().rstrip(";").strip()
    guard = PT
    if text.startswith("@"):
        g, text = text.split(None, 1)
        r = _reg(g[1:])
        assert r is not None, g
        guard = r
    head, _, rest = text.partition(" ")
    opcode, *mods = head.split(".")
    drop = _ALIAS.get(opcode, ())
    mods = [m for m in mods if m not in drop]
    fkind = _imm_kind(opcode)
    rest = rest.strip()
    toks: list[str] = []
    if opcode in ("BRX", "JMX", "CALL", "RET") and rest and "," not in rest:
        # "BRX R8 -0x3b0", "RET.REL.NODEC R20 `(f)": space-separated
        toks = rest.split()
    elif rest:
        toks = _split_operands(rest)
    bf16 = "BF16_V2" in mods and fkind is ImmKind.F16
    ops = tuple(_operand(t, opcode, labels, fkind, bf16) for t in toks)
    return Instruction(opcode, tuple(mods), ops, guard, control_from_word(word))


def parse_listing(text: str) -> dict[str, dict[int, Instruction]]:
    """``nvdisasm -hex -c`` output -> {function section name: {address: instruction}}."""
    # First pass: label addresses per section.
    sections: dict[str, list[tuple[int, str, int]]] = {}
    labels: dict[str, dict[str, int]] = {}
    cur: str | None = None
    pending_labels: list[str] = []
    pending: tuple[int, str, int] | None = None
    for line in text.splitlines():
        if m := _RE_SECTION.match(line):
            cur = m.group(1)
            sections.setdefault(cur, [])
            labels.setdefault(cur, {})
            pending_labels = []
            continue
        if cur is None:
            continue
        if m := _RE_LABEL.match(line.strip()):
            pending_labels.append(m.group(1))
            continue
        if m := _RE_INSTR.match(line):
            addr = int(m.group(1), 16)
            for lb in pending_labels:
                labels[cur][lb] = addr
            pending_labels = []
            pending = (addr, m.group(2), int(m.group(3), 16))
            continue
        if pending is not None and (m := _RE_HI.match(line)):
            sections[cur].append((pending[0], pending[1], pending[2] | int(m.group(1), 16) << 64))
            pending = None
    out: dict[str, dict[int, Instruction]] = {}
    for sec, items in sections.items():
        lab = dict(labels[sec])
        end = items[-1][0] + 16 if items else 0
        for lb in pending_labels:
            lab.setdefault(lb, end)
        out[sec] = {a: parse_instruction(t, w, lab) for a, t, w in items}
    return out
