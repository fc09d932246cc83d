"""Reads the IR text that ``openptxas.ir.printer`` writes (``--dump-phase`` output, golden files)
back into ``Function`` objects.

``read_functions(text)`` returns every function of a file, ``read_function(text)`` exactly one, and
``read_ir(text)`` the file's ``.target`` too; ``read_dump(text)`` also returns the
``// ---- F after PHASE`` headers of ``--dump-phase`` output. Malformed text raises
``IRSyntaxError`` with the file name and line number (rendered as ptxas renders diagnostics), never
another exception. Block successors are derived from the terminators, so the printer's
``// preds/succs`` comments are not read. A file without ``.next_vreg`` gets one past its highest
virtual register.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass

from openptxas.diag import OpenPtxasError, Span
from openptxas.ir.core import (
    RC,
    Addr,
    Block,
    CBank,
    Control,
    Function,
    Guard,
    Imm,
    ImmKind,
    Instr,
    Label,
    Operand,
    Param,
    Part,
    Reg,
    RegLike,
    Src,
    SReg,
    VReg,
)
from openptxas.ir.printer import IMM_PREFIX, SPECIAL_FIELDS


class IRSyntaxError(OpenPtxasError):
    """IR text that does not parse (with the file and line)."""


@dataclass
class IRFile:
    target: str | None
    functions: list[Function]
    # For --dump-phase output: the phase each function was printed after ("" when no header).
    phases: list[str] = dataclasses.field(default_factory=list)


_VCLASS = {"r": RC.R, "ur": RC.UR, "p": RC.P, "up": RC.UP, "b": RC.B}
_PCLASS = {"R": RC.R, "UR": RC.UR, "P": RC.P, "UP": RC.UP, "B": RC.B}
_VREG = re.compile(r"%(ur|up|r|p|b)(\d+)(?:x(\d+))?")
_PREG = re.compile(r"(UR|UP|R|P|B)(\d+|Z|T)(?:x(\d+))?(?![A-Za-z0-9_])")
_PART = re.compile(r"\.(\d+)(?::(\d+))?")
_SEL = re.compile(r"\.([A-Za-z][A-Za-z0-9_]*)")
_NUM = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|\d+)")
_IMM_KIND = {v: k for k, v in IMM_PREFIX.items()}
_IMM = re.compile(r"(?:(f32|f64|f16x2):)?([+-]?(?:0[xX][0-9a-fA-F]+|\d+))(?![\w.])")
_SREG = re.compile(r"SR_[A-Za-z0-9_.]+")
_OPNAME = re.compile(r"[A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*")
_CTRL = re.compile(r"\[B([0-5-]{6}):R([0-5-]):W([0-5-]):([Y-]):S(\d\d)(?::U(\d+))?\]\s*")
_HEADER = re.compile(r"//\s*----\s*(\S+)\s+after\s+(\S+)\s*$")
_IDENT = re.compile(r"[A-Za-z_$.%][A-Za-z0-9_$.%]*")


class _Cursor:
    """A position in one line of text, with the line's span for errors."""

    def __init__(self, text: str, span: Span) -> None:
        self.s = text
        self.i = 0
        self.span = span

    def error(self, msg: str) -> IRSyntaxError:
        where = Span(self.span.file, self.span.line, self.i + 1)
        return IRSyntaxError(f"{msg} (at '{self.rest()[:30]}')" if self.rest() else msg, where)

    def rest(self) -> str:
        return self.s[self.i :]

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def peek(self, t: str) -> bool:
        return self.s.startswith(t, self.i)

    def take(self, t: str) -> bool:
        if self.s.startswith(t, self.i):
            self.i += len(t)
            return True
        return False

    def expect(self, t: str, what: str) -> None:
        if not self.take(t):
            raise self.error(f"expected '{t}' {what}")

    def match(self, rx: re.Pattern[str]) -> re.Match[str] | None:
        m = rx.match(self.s, self.i)
        if m is not None:
            self.i = m.end()
        return m

    def at_end(self) -> bool:
        self.ws()
        return self.i >= len(self.s)


def _int(text: str) -> int:
    """A hex (``0x``) or decimal integer, with an optional sign."""
    return int(text, 16) if "x" in text.lower() else int(text, 10)


def _reg(c: _Cursor) -> RegLike:
    """A register: virtual (with an optional part) or physical."""
    m = c.match(_VREG)
    if m is not None:
        width = int(m.group(3)) if m.group(3) else 1
        if width not in (1, 2, 3, 4, 8, 16):
            raise c.error(f"bad register width {width}")
        v = VReg(_VCLASS[m.group(1)], int(m.group(2)), width)
        p = _PART.match(c.s, c.i)
        # ".64" after an address base is the wide flag (a part index is always < width <= 16)
        if p is not None and not (c.s.startswith(".64", c.i) and int(p.group(1)) >= width):
            c.i = p.end()
            k = int(p.group(1))
            n = int(p.group(2)) - k if p.group(2) else 1
            if not (k >= 0 and n >= 1 and k + n <= width):
                raise c.error(f"part {k}:{k + n} is outside {m.group(0)}")
            return Part(v, k, n)
        return v
    m = c.match(_PREG)
    if m is not None:
        rc = _PCLASS[m.group(1)]
        idx = m.group(2)
        if idx == "Z":
            if rc not in (RC.R, RC.UR):
                raise c.error(f"{m.group(1)}Z is not a register")
            index = 255
        elif idx == "T":
            if not rc.is_pred:
                raise c.error(f"{m.group(1)}T is not a register")
            index = 7
        else:
            index = int(idx)
        width = int(m.group(3)) if m.group(3) else 1
        if width not in (1, 2, 3, 4, 8, 16):
            raise c.error(f"bad register width {width}")
        return Reg(rc, index, width)
    raise c.error("expected a register")


def _src(c: _Cursor) -> Operand:
    inv = c.take("!") or c.take("~")
    neg = c.take("-")
    plain = not inv and not neg and c.take("+")
    absv = c.take("|")
    x = _reg(c)
    sel = ""
    m = c.match(_SEL)
    if m is not None:
        sel = m.group(1)
    if absv:
        c.expect("|", "to close |x|")
    if inv or neg or absv or sel or plain:
        return Src(x, neg, absv, inv, sel)
    return x


def _offset_terms(c: _Cursor, close: str) -> tuple[list[tuple[RegLike | None, bool]], int]:
    """``item+item+off`` up to ``close``: register items (None for ``_``, with the .64 flag)
    and the offset."""
    items: list[tuple[RegLike | None, bool]] = []
    offset: int | None = None
    first = True
    while True:
        c.ws()
        if c.take(close):
            break
        if not first and not (c.peek("-") or c.take("+")):
            raise c.error(f"expected '+' or '{close}' in an address")
        first = False
        c.ws()
        m = c.match(_NUM)
        if m is not None:
            if offset is not None:
                raise c.error("two offsets in an address")
            offset = _int(m.group(0))
            continue
        if offset is not None:
            raise c.error("the offset comes last in an address")
        if c.take("_"):
            items.append((None, c.take(".64")))
            continue
        r = _reg(c)
        items.append((r, c.take(".64")))
    return items, offset or 0


def _addr(c: _Cursor, desc: RegLike | None) -> Addr:
    c.expect("[", "to open an address")
    items, offset = _offset_terms(c, "]")
    if len(items) > 2:
        raise c.error("an address has at most a base and a uniform base")
    base, wide = items[0] if items else (None, False)
    ubase = items[1][0] if len(items) == 2 else None
    if len(items) == 2 and (items[1][0] is None or items[1][1]):
        raise c.error("the uniform base is a plain register")
    if items and base is None and ubase is None and not wide:
        raise c.error("'_' stands for an absent base before a uniform base")
    return Addr(base, offset, ubase, desc, wide)


def _operand(c: _Cursor) -> Operand:
    c.ws()
    if c.take("`("):
        j = c.s.find(")", c.i)
        if j < 0:
            raise c.error("unterminated label")
        name = c.s[c.i : j]
        c.i = j + 1
        if not name:
            raise c.error("empty label")
        return Label(name)
    if c.peek("desc["):
        c.i += 5
        d = _reg(c)
        c.expect("]", "after the descriptor")
        return _addr(c, d)
    if c.peek("["):
        return _addr(c, None)
    if c.peek("c["):
        c.i += 2
        m = c.match(_NUM)
        if m is None:
            raise c.error("expected a constant bank number")
        bank = _int(m.group(0))
        c.expect("]", "after the bank")
        c.expect("[", "for the bank offset")
        items, offset = _offset_terms(c, "]")
        if len(items) > 1 or any(w or r is None for r, w in items):
            raise c.error("a constant bank offset is [offset] or [register+offset]")
        return CBank(bank, offset, items[0][0] if items else None)
    if c.peek("sreg'") or c.peek('sreg"'):
        c.i += 4
        q = c.s[c.i]
        j = c.s.find(q, c.i + 1)
        if j < 0:
            raise c.error("unterminated special register name")
        name = c.s[c.i + 1 : j]
        c.i = j + 1
        return SReg(name)
    m = c.match(_SREG)
    if m is not None:
        return SReg(m.group(0))
    m = c.match(_IMM)
    if m is not None:
        kind = _IMM_KIND[m.group(1)] if m.group(1) else ImmKind.INT
        return Imm(_int(m.group(2)), kind)
    return _src(c)


def _operands(c: _Cursor, end: int) -> list[Operand]:
    out: list[Operand] = []
    sub = _Cursor(c.s[:end], c.span)
    sub.i = c.i
    if sub.at_end():
        c.i = end
        return out
    while True:
        out.append(_operand(sub))
        sub.ws()
        if sub.i >= end:
            break
        if not sub.take(","):
            raise sub.error("expected ',' between operands")
    c.i = end
    return out


def _top_level_index(s: str, ch: str, start: int) -> int:
    """The first ``ch`` at bracket depth 0 outside a label, or -1."""
    depth = 0
    i = start
    while i < len(s):
        x = s[i]
        if x == "`" and s.startswith("`(", i):
            j = s.find(")", i)
            i = len(s) if j < 0 else j + 1
            continue
        if x in "[(":
            depth += 1
        elif x in "])":
            depth -= 1
        elif x == ch and depth == 0:
            return i
        i += 1
    return -1


def _instr(text: str, span: Span) -> Instr:
    notes = ""
    semi = _top_level_index(text, ";", 0)
    if semi >= 0:
        text, notes = text[:semi].rstrip(), text[semi + 1 :]
    c = _Cursor(text, span)
    ctrl = None
    m = c.match(_CTRL)
    if m is not None:
        wait = sum(1 << i for i, ch in enumerate(m.group(1)) if ch != "-")
        if any(ch not in ("-", str(i)) for i, ch in enumerate(m.group(1))):
            raise c.error("wait mask: scoreboard k is written as digit k in position k")
        rd = None if m.group(2) == "-" else int(m.group(2))
        wr = None if m.group(3) == "-" else int(m.group(3))
        stall = int(m.group(5))
        if stall > 15:
            raise c.error(f"stall {stall} is over 15")
        if m.group(6):
            raise c.error("operand-reuse flags are not modelled in the IR")
        ctrl = Control(stall, m.group(4) == "Y", wr, rd, wait)
    elif c.peek("["):
        raise c.error("malformed control codes; expected [Bwwwwww:Rr:Ww:Y:Snn]")
    guard = None
    c.ws()
    if c.take("@"):
        inv = c.take("!")
        guard = Guard(_reg(c), inv)
        c.ws()
    dsts: list[Operand] = []
    eq = _top_level_index(c.s, "=", c.i)
    if eq >= 0:
        dsts = _operands(c, eq)
        if not dsts:
            raise c.error("'=' without destinations")
        for d in dsts:
            if not isinstance(d, VReg | Part | Reg):
                raise c.error(f"destination {d} is not a register")
        c.i = eq + 1
        c.ws()
    m = c.match(_OPNAME)
    if m is None:
        raise c.error("expected an opcode")
    if c.i < len(c.s) and c.s[c.i] not in " \t":
        raise c.error("expected a space after the opcode")
    op, *mods = m.group(0).split(".")
    srcs = _operands(c, len(c.s))
    contract = fence = False
    line = 0
    for note in notes.split():
        if note == "contract":
            contract = True
        elif note == "fence":
            fence = True
        elif note.startswith("line=") and note[5:].isdigit():
            line = int(note[5:])
        else:
            raise IRSyntaxError(f"unknown instruction note '{note}'", span)
    return Instr(
        op, tuple(mods), dsts, srcs, guard, ctrl, line, contract=contract, contract_fence=fence
    )


def read_instr(text: str) -> Instr:
    """One instruction in the printer's text (``%r2 = FADD %r0, %r1``)."""
    return _instr(text, Span("<ir>", 1, 1))


def _literal(text: str, span: Span) -> object:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise IRSyntaxError(f"cannot read value '{text.strip()}': {exc}", span) from None


_FIELDS = {f.name: f for f in dataclasses.fields(Function) if f.name not in SPECIAL_FIELDS}


class _Reader:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.target: str | None = None
        self.fns: list[Function] = []
        self.phases: list[str] = []
        self.fn: Function | None = None
        self.block: Block | None = None
        self.explicit_next = False
        self.pending_phase = ""
        self.fn_span = Span(filename, 0)

    def span(self, n: int) -> Span:
        return Span(self.filename, n)

    def finish(self) -> None:
        fn = self.fn
        if fn is None:
            return
        if not fn.blocks:
            raise IRSyntaxError(f"function '{fn.name}' has no blocks", self.fn_span)
        names = [b.name for b in fn.blocks]
        seen: set[str] = set()
        for n in names:
            if n in seen:
                raise IRSyntaxError(f"block '{n}' defined twice in '{fn.name}'", self.fn_span)
            seen.add(n)
        top = -1
        for ins in fn.instrs():
            for o in (*ins.dsts, *ins.srcs, *([ins.guard.pred] if ins.guard else [])):
                for r in _regs_of(o):
                    v = r.v if isinstance(r, Part) else r
                    if isinstance(v, VReg):
                        top = max(top, v.id)
        if not self.explicit_next:
            fn.next_vreg = top + 1
        elif fn.next_vreg <= top:
            raise IRSyntaxError(
                f".next_vreg {fn.next_vreg} of '{fn.name}' is not above its highest "
                f"virtual register (%{top})",
                self.fn_span,
            )
        self.fns.append(fn)
        self.fn = None
        self.block = None

    def line(self, n: int, raw: str) -> None:
        span = self.span(n)
        code = raw
        cpos = _comment_start(raw)
        if cpos >= 0:
            m = _HEADER.match(raw[cpos:].strip())
            if m is not None and not raw[:cpos].strip():
                self.pending_phase = m.group(2)
            code = raw[:cpos]
        text = code.strip()
        if not text:
            return
        if text.startswith(".target ") or text == ".target":
            if self.fns or self.fn is not None:
                raise IRSyntaxError(".target comes before the functions", span)
            t = text[len(".target") :].strip()
            if not re.fullmatch(r"sm_\d+[af]?", t):
                raise IRSyntaxError(f"bad target '{t}'", span)
            self.target = t
            return
        if text.startswith((".entry ", ".func ")):
            self.finish()
            kind, _, name = text.partition(" ")
            name = name.strip()
            if not _IDENT.fullmatch(name):
                raise IRSyntaxError(f"bad function name '{name}'", span)
            self.fn = Function(name, [], is_entry=kind == ".entry")
            self.explicit_next = False
            self.fn_span = span
            self.phases.append(self.pending_phase)
            self.pending_phase = ""
            return
        fn = self.fn
        if fn is None:
            raise IRSyntaxError("expected '.entry NAME' or '.func NAME' before this line", span)
        if text.endswith(":") and _IDENT.fullmatch(text[:-1]):
            self.block = Block(text[:-1])
            fn.blocks.append(self.block)
            return
        if self.block is None:
            self.directive(fn, text, span)
            return
        try:
            ins = _instr(text, span)
        except IRSyntaxError:
            raise
        except (ValueError, IndexError, KeyError) as exc:  # defensive: never a traceback
            raise IRSyntaxError(f"cannot read instruction: {exc}", span) from None
        self.block.instrs.append(ins)

    def directive(self, fn: Function, text: str, span: Span) -> None:
        word, _, rest = text.partition(" ")
        rest = rest.strip()
        if word == ".param":
            m = re.fullmatch(r"(\S+)\s+offset=(\d+)\s+size=(\d+)\s+align=(\d+)", rest)
            if m is None:
                raise IRSyntaxError("expected '.param NAME offset=N size=N align=N'", span)
            fn.params.append(Param(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))))
        elif word == ".jump_table":
            names = [t.strip() for t in rest.split(",")]
            if not all(_IDENT.fullmatch(t) for t in names):
                raise IRSyntaxError("expected '.jump_table BLOCK, BLOCK, ...'", span)
            fn.jump_tables.append(tuple(names))
        elif word.startswith(".") and word[1:] in _FIELDS:
            f = _FIELDS[word[1:]]
            lit = _literal(rest, span)
            want = f.default if f.default is not dataclasses.MISSING else None
            if want is not None and type(lit) is not type(want):
                raise IRSyntaxError(f"{word} takes a {type(want).__name__}, not '{rest}'", span)
            setattr(fn, f.name, lit)
            if f.name == "next_vreg":
                self.explicit_next = True
        else:
            raise IRSyntaxError(
                f"unknown directive '{word}' (instructions come after a block label)", span
            )


def _regs_of(o: Operand | RegLike) -> list[RegLike]:
    if isinstance(o, VReg | Part | Reg):
        return [o]
    if isinstance(o, Src):
        return [o.x]
    if isinstance(o, Addr):
        return list(o.regs())
    if isinstance(o, CBank) and o.reg is not None:
        return [o.reg]
    return []


def _comment_start(s: str) -> int:
    """Where a ``//`` comment starts, or -1 (names never hold a '/')."""
    return s.find("//")


def read_ir(text: str, filename: str = "<ir>") -> IRFile:
    r = _Reader(filename)
    for n, raw in enumerate(text.splitlines(), 1):
        r.line(n, raw)
    r.finish()
    return IRFile(r.target, r.fns, r.phases)


def read_functions(text: str, filename: str = "<ir>") -> list[Function]:
    return read_ir(text, filename).functions


def read_function(text: str, filename: str = "<ir>") -> Function:
    fns = read_functions(text, filename)
    if len(fns) != 1:
        raise IRSyntaxError(f"expected one function, found {len(fns)}", Span(filename, 0))
    return fns[0]


def read_dump(text: str, filename: str = "<dump>") -> list[tuple[str, Function]]:
    """``--dump-phase`` output: (phase, function) for every dumped function, in order."""
    f = read_ir(text, filename)
    return list(zip(f.phases, f.functions, strict=True))
