"""PTX parser: text -> `Module` (typed AST, see ast.py and docs/ptx.md).

Speed comes from reading whole instruction statements with one regular expression (`_FAST`) and
classifying operand texts once per distinct text (a per-parse cache); anything unusual (vectors
spanning lines, call argument lists, expressions, directives, errors) goes through the token-level
recursive-descent path, which also produces ptxas's syntax-error messages
(``Parsing error near 'X': syntax error``).

The parser checks syntax only; `openptxas.ptx.check` applies the PTX ISA rules. On a syntax error
the `PtxSyntaxError` carries what was parsed before it (``exc.partial``), so that the checker can
report the errors ptxas reports before it gives up.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from openptxas.diag import PtxSyntaxError, Span
from openptxas.ptx.ast import (
    Address,
    AddressSizeDirective,
    Alias,
    ArgList,
    Block,
    BranchTargets,
    CallPrototype,
    CallTargets,
    DataDirective,
    FileDirective,
    FloatImm,
    FuncDirective,
    FuncKind,
    Function,
    Guard,
    Init,
    InitFields,
    InitList,
    Instruction,
    IntImm,
    Label,
    LabelDef,
    Loc,
    MemList,
    Module,
    ModuleItem,
    Not,
    Operand,
    Pair,
    Param,
    Pragma,
    PtrAttr,
    Reg,
    Section,
    Sink,
    SpecialReg,
    Stmt,
    Sym,
    SymInit,
    TargetDirective,
    VarDecl,
    Vector,
    VersionDirective,
)
from openptxas.ptx.lexer import EOF_KIND, Lexer, Tok, int_value
from openptxas.ptx.linemap import extract as extract_line_markers
from openptxas.ptx.modifiers import Mods, decode_name
from openptxas.ptx.types import (
    SPACE_NAMES,
    SPECIAL_REGISTERS,
    TYPE_NAMES,
    Linkage,
    PtxType,
    StateSpace,
)

MAX_U64 = (1 << 64) - 1

# string literals (skipped) or a non-ASCII character
_NON_ASCII = re.compile(r'"(?:[^"\\\n]|\\.)*"|[^\x00-\x7f]')
# an initializer item that is a plain integer literal, and the ',' or '}' after it
_INIT_INT = re.compile(
    r"[ \t\r\n\f\v]*+(0[xX][0-9a-fA-F]++U?|0[bB][01]++U?|0[0-7]*+U?|[1-9][0-9]*+U?)"
    r"[ \t\r\n\f\v]*+([,}])"
)
_INIT_LIT = re.compile(r"0[xX][0-9a-fA-F]++U?|0[bB][01]++U?|0[0-7]*+U?|[1-9][0-9]*+U?")
_INIT_INT_RUN = re.compile(
    r"(?:[ \t\r\n\f\v]*+(?:0[xX][0-9a-fA-F]++U?|0[bB][01]++U?|0[0-7]*+U?|[1-9][0-9]*+U?)"
    r"[ \t\r\n\f\v]*+,)++"
)
_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|/\*', re.DOTALL)

# One instruction statement or label, read in one match (see module docstring).
_FAST = re.compile(
    r"[ \t\r\n]*(?:"
    # 1-5: instruction (guard negation, guard, name, operand text)
    # (possessive quantifiers: linear time even on a statement that does not match)
    r"(?:@(!?)(%?[A-Za-z_$][\w$]*)[ \t]+)?"
    r"([a-z][a-z0-9_]*(?:\.\w[\w:]*+)*+)"
    r"(?:[ \t]++((?:[^;{}()\"\n]++|\{[^;{}()\"\n]*+\})*+))?;"
    # 5: label
    r"|([A-Za-z_$][\w$]*)[ \t]*:(?!:)"
    # 6-13: .loc file line col [, function_name f [+ off]] [, inlined_at f l c]
    r"|\.loc[ \t]+([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+)"
    r"(?:[ \t]*,[ \t]*function_name[ \t]+([A-Za-z_$.][\w$.]*)(?:[ \t]*\+[ \t]*([0-9]+))?)?"
    r"(?:[ \t]*,[ \t]*inlined_at[ \t]+([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+))?[ \t]*(?=\n)"
    # 14-19: a simple declaration: .reg .b32 %r<10>;  .param .align 8 .b8 p[16];
    r"|\.(reg|param|local|shared)[ \t]+(?:\.align[ \t]+([0-9]+)[ \t]+)?\.([a-z0-9]+)[ \t]+"
    r"(%?[A-Za-z_$][\w$]*)(?:<([0-9]+)>)?(?:\[([0-9]+)\])?[ \t]*;"
    # 20, 21: braces
    r"|(\{)|(\})"
    r")"
)
_OPEN_BRACE = re.compile(r"[ \t\r\n]*\{")
# one simple parameter of a parameter list, with the ',' or ')' after it
_PARAM = re.compile(
    r"[ \t\r\n]*\.(param|reg)[ \t\r\n]+(?:\.align[ \t\r\n]+([0-9]+)[ \t\r\n]+)?"
    r"\.([a-z0-9]+)[ \t\r\n]+([%A-Za-z_$][\w$]*)(?:\[([0-9]+)\])?[ \t\r\n]*([,)])"
)
# a direct call: call[.uni] [(rets),] f[, (args)][, proto];
_CALL = re.compile(
    r"[ \t\r\n]*(?:@(!?)(%?[A-Za-z_$][\w$]*)[ \t]+)?call(\.uni)?[ \t\r\n]+"
    r"(?:\(([^()]*)\)[ \t\r\n]*,[ \t\r\n]*)?([%A-Za-z_$][\w$]*)[ \t\r\n]*"
    r"(?:,[ \t\r\n]*\(([^()]*)\)[ \t\r\n]*)?(?:,[ \t\r\n]*([A-Za-z_$][\w$]*)[ \t\r\n]*)?;"
)
_CALL_ARG = re.compile(r"[ \t\r\n]*(%?[A-Za-z_$][\w$]*)[ \t\r\n]*")
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.\w[\w:]*)*")  # '$foo': an unknown opcode
_OP_REG = re.compile(r"(%[A-Za-z_$][\w$]*)(?:\.([A-Za-z]\w*))?")
_OP_ID = re.compile(r"[A-Za-z_$][\w$]*")
_OP_INT = re.compile(r"(-?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)U?")
_OP_FLT = re.compile(r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}")
_OP_ADDR = re.compile(
    r"\[[ \t]*(%?[A-Za-z_$][\w$]*)[ \t]*"
    r"(?:\+[ \t]*(-?)[ \t]*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*))?[ \t]*\]"
)
_OP_NOT = re.compile(r"![ \t]*(%?[A-Za-z_$][\w$]*)")
_OP_PAIR = re.compile(r"(%?[A-Za-z_$][\w$]*)[ \t]*\|[ \t]*(%?[A-Za-z_$][\w$]*)")
_COMPONENT = re.compile(r"[xyzw]|[rgba]|b[0-3]|h[01]")
_ENTRY_ONLY = frozenset(
    {
        "maxntid",
        "reqntid",
        "minnctapersm",
        "maxnreg",
        "maxclusterrank",
        "reqnctapercluster",
        "explicitcluster",
        "blocksareclusters",
    }
)
_FUNC_DIRECTIVES = _ENTRY_ONLY | {"noreturn", "pragma", "abi_preserve", "abi_preserve_control"}
_VAR_SPACES = frozenset({"reg", "local", "shared", "param", "const", "global", "tex"})
_DECL_SPACES = {
    "reg": StateSpace.REG,
    "param": StateSpace.PARAM,
    "local": StateSpace.LOCAL,
    "shared": StateSpace.SHARED,
}
_LINKAGE = frozenset(v.value for v in Linkage)

# Cached operand classifications (see Parser._classify); plain tuples keep the cache cheap.
_Kind = tuple[Any, ...]
_MISS: _Kind = ("miss",)


# -- fast node construction --------------------------------------------------------------------
# Frozen dataclasses set each field through object.__setattr__ in __init__; the hot loop builds
# millions of nodes, so it sets the slots through their member descriptors instead (same
# objects, no __post_init__ anywhere; about 2.5x cheaper).
_new: Any = object.__new__


def _setters(cls: type, *names: str) -> tuple[Any, ...]:
    return tuple(cls.__dict__[n].__set__ for n in names)


_SP = _setters(Span, "file", "line", "col", "end_line", "end_col")
_RG = _setters(Reg, "name", "comp", "span")
_II = _setters(IntImm, "value", "span")
_AD = _setters(Address, "base", "offset", "span")
_SY = _setters(Sym, "name", "offset", "span")
_IN = _setters(Instruction, "opcode", "mods", "operands", "guard", "span")
_DD = _setters(DataDirective, "type", "values", "span")


def _span_of(file: str, line: int, col: int) -> Span:
    o: Span = _new(Span)
    _SP[0](o, file)
    _SP[1](o, line)
    _SP[2](o, col)
    _SP[3](o, 0)
    _SP[4](o, 0)
    return o


def _reg(name: str, comp: str, span: Span) -> Reg:
    o: Reg = _new(Reg)
    _RG[0](o, name)
    _RG[1](o, comp)
    _RG[2](o, span)
    return o


def _intimm(value: int, span: Span) -> IntImm:
    o: IntImm = _new(IntImm)
    _II[0](o, value)
    _II[1](o, span)
    return o


def _address(base: Reg | Sym | None, offset: int, span: Span) -> Address:
    o: Address = _new(Address)
    _AD[0](o, base)
    _AD[1](o, offset)
    _AD[2](o, span)
    return o


def _instruction(
    opcode: str, mods: Any, operands: tuple[Operand, ...], guard: Guard | None, span: Span
) -> Instruction:
    o: Instruction = _new(Instruction)
    _IN[0](o, opcode)
    _IN[1](o, mods)
    _IN[2](o, operands)
    _IN[3](o, guard)
    _IN[4](o, span)
    return o


def _data(type_: PtxType, values: Any, span: Span) -> DataDirective:
    o: DataDirective = _new(DataDirective)
    _DD[0](o, type_)
    _DD[1](o, values)
    _DD[2](o, span)
    return o


_DATA_LINE = re.compile(
    r"[ \t\r\n]*(?:\.(b8|b16|b32|b64)[ \t]++([^\n;{}]*+)(?=\n)|([A-Za-z_$][\w$]*+):(?!:))"
)
_DATA_TYPES = {"b8": PtxType.B8, "b16": PtxType.B16, "b32": PtxType.B32, "b64": PtxType.B64}
_DATA_INT = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|[1-9][0-9]*|0)")
_DATA_SYM = re.compile(r"([.A-Za-z_$][\w$.]*)(?:\+([0-9]+)|-([.A-Za-z_$][\w$.]*))?")


def _data_values(s: str) -> tuple[int | tuple[str, int] | tuple[str, str], ...] | None:
    """Values of a section data line, or None when the token path must read them."""
    out: list[int | tuple[str, int] | tuple[str, str]] = []
    for v in s.split(","):
        v = v.strip()
        if _DATA_INT.fullmatch(v):
            out.append(int(v, 0) if "x" in v or "X" in v else int(v))
            continue
        m = _DATA_SYM.fullmatch(v)
        if m is None:
            return None
        if m.group(2) is not None:
            out.append((m.group(1), int(m.group(2))))
        elif m.group(3) is not None:
            out.append((m.group(1), m.group(3)))
        else:
            out.append((m.group(1), 0))
    return tuple(out)


def strip_comments(text: str, file: str) -> str:
    """Remove ``//`` and ``/* */`` comments, keeping line numbers (and string literals)."""
    if "/" not in text:
        return text

    def repl(m: re.Match[str]) -> str:
        s = m.group()
        if s[0] == '"':
            return s
        if s[1] == "/":
            return ""
        if len(s) == 2:  # an unterminated /*
            line = text.count("\n", 0, m.start()) + 1
            raise PtxSyntaxError(
                "Parsing error near '': unexpected EOF while scanning", Span(file, line)
            )
        return " " + "\n" * s.count("\n")

    return _COMMENT.sub(repl, text)


class _Nested:
    """A closed nested block whose statements may still be patched (label fix-ups)."""

    __slots__ = ("span", "stmts")

    def __init__(self, stmts: list[_Open], span: Span) -> None:
        self.stmts = stmts
        self.span = span

    def freeze(self) -> Block:
        return Block(
            tuple(s.freeze() if isinstance(s, _Nested) else s for s in self.stmts), self.span
        )


_Open = Stmt | _Nested


class _FnState:
    """What the parser tracks inside one function body."""

    __slots__ = ("fixups", "labels", "plain_regs")

    def __init__(self) -> None:
        self.plain_regs: set[str] = set()  # registers declared without a leading %
        self.labels: set[str] = set()
        self.fixups: list[tuple[list[_Open], int]] = []  # instructions that name symbols


class Parser:
    def __init__(self, text: str, file: str = "<ptx>") -> None:
        self.file = file
        self.text, self.line_map = extract_line_markers(strip_comments(text, file))
        if not self.text.isascii():
            for m in _NON_ASCII.finditer(self.text):
                if m.group()[0] != '"':
                    line = self.text.count("\n", 0, m.start()) + 1
                    raise PtxSyntaxError(
                        f"Unexpected non-ASCII character encountered on line {line}", None
                    )
        self.items: list[ModuleItem] = []
        self._lpos = 0
        self._line = 1
        self._lstart = 0  # position of the first character of line self._lstart_line
        self._lstart_line = 1
        self._opcache: dict[str, tuple[_Kind, ...] | None] = {}
        self._partcache: dict[str, _Kind | None] = {}
        self._decoded: dict[str, tuple[str, Mods]] = {}
        self._fn = _FnState()
        # for partial modules on errors: the function being parsed and its open blocks
        self._open_fn: Function | None = None
        self._open_blocks: list[list[_Open]] = []
        self._last_block: _Nested | None = None

    # -- positions ---------------------------------------------------------------------------

    def _span(self, pos: int) -> Span:
        """Span of a position; lines are counted incrementally from the last position asked."""
        text = self.text
        if pos >= self._lpos:
            n = text.count("\n", self._lpos, pos)
            if n:
                self._line += n
                self._lstart = text.rfind("\n", self._lpos, pos) + 1
                self._lstart_line = self._line
        else:
            self._line -= text.count("\n", pos, self._lpos)
        self._lpos = pos
        # the start of the line is remembered (per line number: the statement loop moves
        # _line/_lpos itself): no scan back over a long line per call
        if self._lstart_line != self._line:
            self._lstart = text.rfind("\n", 0, pos) + 1
            self._lstart_line = self._line
        return Span(self.file, self._line, pos - self._lstart + 1)

    # -- entry point -------------------------------------------------------------------------

    def parse(self) -> Module:
        try:
            self._module()
        except PtxSyntaxError as exc:
            exc.partial = self._partial()  # type: ignore[attr-defined]
            raise
        return Module(tuple(self.items), self.file, self._module_span(), self.line_map)

    def _module_span(self) -> Span:
        return Span(self.file, 1, 1, self.text.count("\n") + 1)

    def _partial(self) -> Module:
        items = list(self.items)
        if self._open_fn is not None:
            # the open blocks, innermost last, folded into one body
            inner: list[_Open] = []
            for blk in reversed(self._open_blocks):
                inner = [*blk, *([_Nested(inner, self._open_fn.span)] if inner else [])]
            body = _Nested(inner, self._open_fn.span).freeze()
            items.append(replace(self._open_fn, body=body))
        return Module(tuple(items), self.file, self._module_span(), self.line_map)

    # -- module level ------------------------------------------------------------------------

    def _module(self) -> None:
        lx = Lexer(self.text, 0, self.file)
        while True:
            t = lx.peek()
            if t.kind == EOF_KIND:
                return
            if t.kind != "dir":
                raise lx.error(t)
            d = t.text[1:]
            if d == "version":
                lx.next()
                v = lx.next()
                if v.kind == "int":  # '.version 9': ptxas does not see a version at all
                    raise PtxSyntaxError(
                        f"Missing .version directive at start of file '{self.file}'",
                        self._span(t.pos),
                    )
                if v.kind != "dec" or not re.fullmatch(r"[0-9]+\.[0-9]+", v.text):
                    raise lx.error(v)
                major, minor = v.text.split(".")
                self.items.append(VersionDirective(int(major), int(minor), self._span(t.pos)))
            elif d == "target":
                lx.next()
                names = [self._ident(lx).text]
                while lx.accept(","):
                    names.append(self._ident(lx).text)
                self.items.append(TargetDirective(tuple(names), self._span(t.pos)))
            elif d == "address_size":
                lx.next()
                v = lx.next()
                if v.kind != "int":
                    raise lx.error(v)
                self.items.append(AddressSizeDirective(int_value(v.text), self._span(t.pos)))
            elif d == "file":
                lx.next()
                fd = self._file(lx, t)
                # remember the line of the next token: ptxas reports .file errors there
                nxt = self._span(lx.peek().pos) if lx.peek().kind != EOF_KIND else fd.span
                self.items.append(
                    replace(fd, span=Span(self.file, fd.span.line, fd.span.col, nxt.line))
                )
            elif d == "section":
                lx.next()
                self.items.append(self._section(lx, t))
            elif d == "alias":
                lx.next()
                a = self._ident(lx).text
                lx.expect(",")
                b = self._ident(lx).text
                lx.expect(";")
                self.items.append(Alias(a, b, self._span(t.pos)))
            elif d == "pragma":
                lx.next()
                self.items.append(self._pragma(lx, t))
            elif d in _LINKAGE or d in ("entry", "func") or d in _VAR_SPACES:
                self._decl_or_function(lx)
            else:
                raise lx.error(t)

    def _ident(self, lx: Lexer) -> Tok:
        t = lx.next()
        if t.kind != "id":
            raise lx.error(t)
        return t

    def _int(self, lx: Lexer) -> int:
        neg = lx.accept("-")
        t = lx.next()
        if t.kind != "int":
            raise lx.error(t)
        v = int_value(t.text)
        return -v if neg else v

    def _file(self, lx: Lexer, start: Tok) -> FileDirective:
        idx = self._int(lx)
        s = lx.next()
        if s.kind != "str":
            raise lx.error(s)
        ts: int | None = None
        size: int | None = None
        if lx.accept(","):
            ts = self._int(lx)
            lx.expect(",")
            size = self._int(lx)
        return FileDirective(idx, _unquote(s.text), ts, size, self._span(start.pos))

    def _pragma(self, lx: Lexer, start: Tok) -> Pragma:
        vals = []
        while True:
            s = lx.next()
            if s.kind != "str":
                raise lx.error(s)
            vals.append(_unquote(s.text))
            if not lx.accept(","):
                break
        lx.expect(";")
        return Pragma(tuple(vals), self._span(start.pos))

    def _section(self, lx: Lexer, start: Tok) -> Section:
        nt = lx.next()
        if nt.kind not in ("dir", "id"):
            raise lx.error(nt)
        lx.expect("{")
        entries: list[DataDirective | LabelDef] = []
        text = self.text
        file = self.file
        match = _DATA_LINE.match
        vcache: dict[str, tuple[int | tuple[str, int] | tuple[str, str], ...] | None] = {}
        while True:
            # fast path: one '.bN v, v, ...' line or a 'label:' per regex match
            pos = lx.resume_at()
            line, lpos = self._line, self._lpos
            while True:
                m = match(text, pos)
                if m is None:
                    break
                g = m.groups()
                at = m.start(1) if g[2] is None else m.start(3)
                line += text.count("\n", lpos, at)
                lpos = at
                sp = _span_of(file, line, at - text.rfind("\n", 0, at))
                if g[2] is not None:
                    entries.append(LabelDef(g[2], sp))
                    pos = m.end()
                    continue
                fvals = vcache.get(g[1], ())
                if fvals == ():
                    fvals = vcache[g[1]] = _data_values(g[1])
                if fvals is None:
                    break
                entries.append(_data(_DATA_TYPES[g[0]], fvals, sp))
                pos = m.end()
            self._line, self._lpos = line, lpos
            lx.seek(pos)
            t = lx.next()
            if t.text == "}" and t.kind == "op":
                break
            if t.kind == "id":
                lx.expect(":")
                entries.append(LabelDef(t.text, self._span(t.pos)))
                continue
            if t.kind != "dir" or t.text[1:] not in ("b8", "b16", "b32", "b64"):
                raise lx.error(t)
            ty = PtxType(t.text[1:])
            vals: list[int | tuple[str, int] | tuple[str, str]] = []
            while True:
                v = lx.next()
                if v.kind == "int":
                    vals.append(int_value(v.text))
                elif v.kind in ("id", "dir"):
                    if lx.accept("+"):
                        vals.append((v.text, self._int(lx)))
                    elif lx.accept("-"):
                        w = lx.next()
                        if w.kind not in ("id", "dir"):
                            raise lx.error(w)
                        vals.append((v.text, w.text))
                    else:
                        vals.append((v.text, 0))
                elif v.text == "-" and v.kind == "op":
                    w = lx.next()
                    if w.kind != "int":
                        raise lx.error(w)
                    vals.append(-int_value(w.text))
                else:
                    raise lx.error(v)
                if not lx.accept(","):
                    break
            entries.append(DataDirective(ty, tuple(vals), self._span(t.pos)))
        return Section(nt.text, tuple(entries), self._span(start.pos))

    def _decl_or_function(self, lx: Lexer) -> None:
        start = lx.peek()
        linkage: Linkage | None = None
        while lx.peek().kind == "dir" and lx.peek().text[1:] in _LINKAGE:
            lk = lx.next()
            linkage = Linkage(lk.text[1:])
        t = lx.peek()
        if t.kind == "dir" and t.text in (".entry", ".func"):
            lx.next()
            self._function(lx, start, linkage, FuncKind(t.text[1:]))
            return
        if t.kind == "dir" and t.text[1:] in _VAR_SPACES:
            self.items.extend(self._var_decls(lx, linkage, start))
            return
        raise lx.error(t)

    # -- declarations ------------------------------------------------------------------------

    def _var_decls(self, lx: Lexer, linkage: Linkage | None, start: Tok) -> list[VarDecl]:
        """``space [attrs] type name[<n>][dims][= init] {, ...} ;`` -> one VarDecl per name."""
        sp = lx.next()
        space = StateSpace(sp.text[1:])
        align: int | None = None
        vec = 0
        ty: PtxType | None = None
        attrs: list[str] = []
        ptr: PtrAttr | None = None
        while True:
            t = lx.peek()
            if t.kind != "dir":
                break
            w = t.text[1:]
            if w == "align":
                lx.next()
                align = self._int(lx)
            elif w in ("v2", "v4", "v8", "v16"):
                lx.next()
                vec = int(w[1:])
            elif w in TYPE_NAMES and ty is None:
                lx.next()
                ty = PtxType(w)
            elif w == "attribute":
                lx.next()
                lx.expect("(")
                while True:
                    a = lx.next()
                    if a.kind != "dir":
                        raise lx.error(a)
                    attrs.append(a.text[1:])
                    if not lx.accept(","):
                        break
                lx.expect(")")
            elif w == "ptr":
                lx.next()
                ptr = self._ptr_attr(lx)
            else:
                raise lx.error(t)
        if ty is None:
            raise lx.error(lx.peek())
        out: list[VarDecl] = []
        while True:
            nt = self._ident(lx)
            count = 0
            if lx.accept("<"):
                count = self._int(lx)
                lx.expect(">")
            dims = self._dims(lx)
            init: Init | None = None
            if lx.accept("="):
                init = self._init(lx)
            decl = VarDecl(
                space=space,
                type=ty,
                name=nt.text,
                linkage=linkage,
                align=align,
                vec=vec,
                dims=dims,
                count=count,
                init=init,
                attrs=tuple(attrs),
                ptr=ptr,
                span=self._span(start.pos),
            )
            if space is StateSpace.REG and not nt.text.startswith("%"):
                self._fn.plain_regs.add(nt.text)
            out.append(decl)
            if not lx.accept(","):
                break
        lx.expect(";")
        return out

    def _ptr_attr(self, lx: Lexer) -> PtrAttr:
        space: StateSpace | None = None
        align: int | None = None
        while True:
            t = lx.peek()
            if t.kind == "dir" and t.text[1:] in SPACE_NAMES and space is None:
                lx.next()
                space = StateSpace(t.text[1:])
            elif t.kind == "dir" and t.text == ".align" and align is None:
                lx.next()
                align = self._int(lx)
            else:
                return PtrAttr(space, align)

    def _dims(self, lx: Lexer) -> tuple[int | None, ...]:
        dims: list[int | None] = []
        while lx.accept("["):
            if lx.accept("]"):
                dims.append(None)
                continue
            v = self._const_int(lx)
            lx.expect("]")
            dims.append(v)
        return tuple(dims)

    def _const_int(self, lx: Lexer) -> int:
        v = self._expr(lx)
        if not isinstance(v, int):
            raise lx.error(lx.peek())
        return v

    def _init(self, lx: Lexer) -> Init:
        t = lx.peek()
        if t.text == "{" and t.kind == "op":
            lx.next()
            # texture/sampler fields: { name = value, ... }
            save = lx.resume_at()
            first = lx.next()
            if first.kind == "id" and lx.peek().text == "=":
                lx.seek(save)
                return self._init_fields(lx, t)
            lx.seek(save)
            items: list[Init] = []
            if not lx.accept("}"):
                text = self.text
                int_item = _INIT_INT.match
                int_run = _INIT_INT_RUN.match
                while True:
                    # fast paths for the large tables of real PTX (a megabyte of bytes in one
                    # initializer): a run of plain integer literals each followed by ',' is
                    # read with one match, its items sharing one node per distinct literal
                    # (and the span of the run's start); then a literal followed by ',' or '}'
                    pos = lx.resume_at()
                    m = int_run(text, pos)
                    if m is not None:
                        sp = self._span(pos)
                        nodes: dict[str, IntImm] = {}
                        for lit in _INIT_LIT.findall(m.group()):
                            node = nodes.get(lit)
                            if node is None:
                                node = nodes[lit] = IntImm(int_value(lit), sp)
                            items.append(node)
                        lx.seek(m.end())
                    m = int_item(text, lx.resume_at())
                    if m is not None:
                        items.append(IntImm(int_value(m.group(1)), self._span(m.start(1))))
                        lx.seek(m.end())
                        if m.group(2) == ",":
                            continue
                        break
                    items.append(self._init(lx))
                    if not lx.accept(","):
                        lx.expect("}")
                        break
            return InitList(tuple(items), self._span(t.pos))
        if t.kind == "id" and t.text == "generic":
            lx.next()
            lx.expect("(")
            name = self._ident(lx).text
            lx.expect(")")
            off = self._init_offset(lx)
            return SymInit(name, off, True, None, self._span(t.pos))
        if t.kind == "id":
            lx.next()
            return SymInit(t.text, self._init_offset(lx), False, None, self._span(t.pos))
        v = self._expr(lx)
        if isinstance(v, int) and lx.peek().text == "(":
            # byte mask of an address: 0xFF00(sym)
            lx.next()
            name = self._ident(lx).text
            lx.expect(")")
            return SymInit(name, 0, False, v, self._span(t.pos))
        return self._imm(v, lx, t)

    def _init_offset(self, lx: Lexer) -> int:
        if lx.accept("+"):
            return self._const_int(lx)
        if lx.accept("-"):
            return -self._const_int(lx)
        return 0

    def _init_fields(self, lx: Lexer, start: Tok) -> InitFields:
        items: list[tuple[str, str | int]] = []
        while True:
            k = self._ident(lx).text
            lx.expect("=")
            v = lx.next()
            if v.kind == "id":
                items.append((k, v.text))
            elif v.kind == "int":
                items.append((k, int_value(v.text)))
            else:
                raise lx.error(v)
            if not lx.accept(","):
                break
        lx.expect("}")
        return InitFields(tuple(items), self._span(start.pos))

    def _param(self, lx: Lexer) -> Param:
        sp = lx.next()
        if sp.kind != "dir" or sp.text not in (".param", ".reg"):
            raise lx.error(sp)
        align: int | None = None
        vec = 0
        ty: PtxType | None = None
        ptr: PtrAttr | None = None
        while True:
            t = lx.peek()
            if t.kind != "dir":
                break
            w = t.text[1:]
            if w == "align":
                lx.next()
                align = self._int(lx)
            elif w in ("v2", "v4", "v8"):
                lx.next()
                vec = int(w[1:])
            elif w in TYPE_NAMES and ty is None:
                lx.next()
                ty = PtxType(w)
            elif w == "ptr":
                lx.next()
                ptr = self._ptr_attr(lx)
            else:
                raise lx.error(t)
        if ty is None:
            raise lx.error(lx.peek())
        nt = self._ident(lx)
        dims = self._dims(lx)
        space = StateSpace.PARAM if sp.text == ".param" else StateSpace.REG
        return Param(nt.text, ty, space, align, vec, dims, ptr, self._span(nt.pos))

    def _params(self, lx: Lexer) -> tuple[Param, ...]:
        lx.expect("(")
        out: list[Param] = []
        if lx.accept(")"):
            return ()
        text = self.text
        while True:
            # fast path: '.param .align 8 .b8 name[16],' in one match
            pos = lx.resume_at()
            m = _PARAM.match(text, pos)
            if m is not None and m.group(3) in TYPE_NAMES:
                sp = StateSpace.PARAM if m.group(1) == "param" else StateSpace.REG
                al = int(m.group(2)) if m.group(2) is not None else None
                dims = (int(m.group(5)),) if m.group(5) is not None else ()
                out.append(
                    Param(
                        m.group(4),
                        PtxType(m.group(3)),
                        sp,
                        al,
                        0,
                        dims,
                        None,
                        self._span(m.start(4)),
                    )
                )
                lx.seek(m.end())
                if m.group(6) == ")":
                    return tuple(out)
                continue
            out.append(self._param(lx))
            if not lx.accept(","):
                break
        lx.expect(")")
        return tuple(out)

    # -- functions ---------------------------------------------------------------------------

    def _function(self, lx: Lexer, start: Tok, linkage: Linkage | None, kind: FuncKind) -> None:
        attrs: list[str] = []
        rets: tuple[Param, ...] = ()
        if kind is FuncKind.FUNC:
            while lx.peek().text == ".attribute":
                lx.next()
                lx.expect("(")
                while True:
                    a = lx.next()
                    if a.kind != "dir":
                        raise lx.error(a)
                    attrs.append(a.text[1:])
                    if not lx.accept(","):
                        break
                lx.expect(")")
            if lx.peek().text == "(":
                rets = self._params(lx)
        name = self._ident(lx)
        params: tuple[Param, ...] = ()
        if lx.peek().text == "(":
            params = self._params(lx)
        directives: list[FuncDirective] = []
        while True:
            t = lx.peek()
            if t.kind != "dir" or t.text[1:] not in _FUNC_DIRECTIVES:
                break
            w = t.text[1:]
            if kind is FuncKind.FUNC and w in _ENTRY_ONLY:
                raise lx.error(t)
            lx.next()
            vals: list[int | str] = []
            if w == "pragma":
                vals.extend(self._pragma(lx, t).values)
            elif w not in ("explicitcluster", "blocksareclusters", "noreturn"):
                vals.append(self._int(lx))
                while lx.accept(","):
                    vals.append(self._int(lx))
            directives.append(FuncDirective(w, tuple(vals), self._span(t.pos)))
        span = self._span(start.pos)
        fn = Function(
            name=name.text,
            kind=kind,
            params=params,
            rets=rets,
            linkage=linkage,
            directives=tuple(directives),
            attrs=tuple(attrs),
            body=None,
            span=span,
        )
        if lx.accept(";"):
            self.items.append(fn)
            return
        t = lx.peek()
        if t.text != "{" or t.kind != "op":
            raise lx.error(t)
        self._open_fn = fn
        self._fn = _FnState()
        for p in (*params, *rets):
            if p.space is StateSpace.REG and not p.name.startswith("%"):
                self._fn.plain_regs.add(p.name)
        body, end = self._body(lx.resume_at())
        self.items.append(replace(fn, body=body))
        self._open_fn = None
        self._open_blocks = []
        lx.pos = end

    def _body(self, pos: int) -> tuple[Block, int]:
        """Parse ``{ ... }`` starting at ``pos`` (at the brace); returns the block and the end.

        The hot loop of the parser: one `_FAST` match per statement, line numbers counted
        incrementally, operand texts classified once per distinct text."""
        text = self.text
        file = self.file
        fast = _FAST.match
        fn = self._fn
        count = text.count
        rfind = text.rfind
        m0 = _OPEN_BRACE.match(text, pos)
        assert m0 is not None
        open_span = self._span(m0.end() - 1)
        stack: list[list[_Open]] = [[]]
        spans: list[Span] = [open_span]
        self._open_blocks = stack
        pos = m0.end()
        make_ops = self._fast_operands
        line = self._line
        lpos = self._lpos
        # the '\n' before line `lstart_line` (no scan back over a long line per statement)
        lstart = rfind("\n", 0, lpos)
        lstart_line = line
        stmts = stack[-1]
        new = _new
        decoded = self._decoded
        sp_file, sp_line, sp_col, sp_el, sp_ec = _SP
        in_op, in_mods, in_ops, in_guard, in_span = _IN
        while True:
            m = fast(text, pos)
            if m is None:
                cm = _CALL.match(text, pos)
                if cm is not None:
                    self._line, self._lpos = line, lpos
                    call = self._fast_call(cm)
                    line, lpos = self._line, self._lpos
                    if call is not None:
                        stmts.append(call)
                        pos = cm.end()
                        continue
                self._line, self._lpos = line, lpos
                pos = self._slow_stmt(pos, stack, spans)
                line, lpos = self._line, self._lpos
                if not stack:
                    break
                stmts = stack[-1]
                continue
            g = m.groups()
            name = g[2]
            if name is not None:
                start = m.start(3) if g[1] is None else m.start(2) - 1
                nl = count("\n", lpos, start)
                if nl:
                    line += nl
                    lstart = rfind("\n", lpos, start)
                elif lstart_line != line:  # moved by the token path
                    lstart = rfind("\n", 0, start)
                lstart_line = line
                lpos = start
                span = new(Span)
                sp_file(span, file)
                sp_line(span, line)
                sp_col(span, start - lstart)
                sp_el(span, 0)
                sp_ec(span, 0)
                ops_text = g[3]
                if ops_text:
                    ops = make_ops(ops_text, span)
                    if ops is None:  # an operand needs the full parser
                        self._line, self._lpos = line, lpos
                        pos = self._slow_stmt(pos, stack, spans)
                        line, lpos = self._line, self._lpos
                        if not stack:
                            break
                        stmts = stack[-1]
                        continue
                    operands, has_sym = ops
                else:
                    operands, has_sym = (), False
                dec = decoded.get(name)
                if dec is None:
                    dec = decoded[name] = decode_name(name)
                opcode, mods = dec
                gd = g[1]
                guard = Guard(gd, g[0] == "!", span) if gd is not None else None
                if has_sym:
                    fn.fixups.append((stmts, len(stmts)))
                ins = new(Instruction)
                in_op(ins, opcode)
                in_mods(ins, mods)
                in_ops(ins, operands)
                in_guard(ins, guard)
                in_span(ins, span)
                stmts.append(ins)
            elif g[4] is not None:
                lab = g[4]
                fn.labels.add(lab)
                start = m.start(5)
                nl = count("\n", lpos, start)
                if nl:
                    line += nl
                    lstart = rfind("\n", lpos, start)
                elif lstart_line != line:
                    lstart = rfind("\n", 0, start)
                lstart_line = line
                lpos = start
                stmts.append(LabelDef(lab, _span_of(file, line, start - lstart)))
            elif g[5] is not None:
                start = m.start(6) - 5
                nl = count("\n", lpos, start)
                if nl:
                    line += nl
                    lstart = rfind("\n", lpos, start)
                elif lstart_line != line:
                    lstart = rfind("\n", 0, start)
                lstart_line = line
                lpos = start
                sp = _span_of(file, line, start - lstart)
                inl = (int(g[10]), int(g[11]), int(g[12])) if g[10] is not None else None
                stmts.append(
                    Loc(
                        int(g[5]),
                        int(g[6]),
                        int(g[7]),
                        g[8],
                        int(g[9]) if g[9] is not None else 0,
                        inl,
                        sp,
                    )
                )
            elif g[13] is not None:
                ty = g[15]
                if ty not in TYPE_NAMES:  # not a simple declaration after all
                    self._line, self._lpos = line, lpos
                    pos = self._slow_stmt(pos, stack, spans)
                    line, lpos = self._line, self._lpos
                    stmts = stack[-1]
                    continue
                start = m.start(14) - 1
                nl = count("\n", lpos, start)
                if nl:
                    line += nl
                    lstart = rfind("\n", lpos, start)
                elif lstart_line != line:
                    lstart = rfind("\n", 0, start)
                lstart_line = line
                lpos = start
                space = _DECL_SPACES[g[13]]
                dname = g[16]
                if space is StateSpace.REG and dname[0] != "%":
                    fn.plain_regs.add(dname)
                stmts.append(
                    VarDecl(
                        space=space,
                        type=PtxType(ty),
                        name=dname,
                        align=int(g[14]) if g[14] is not None else None,
                        dims=(int(g[18]),) if g[18] is not None else (),
                        count=int(g[17]) if g[17] is not None else 0,
                        span=Span(file, line, start - lstart),
                    )
                )
            elif g[19] is not None:
                start = m.start(20)
                nl = count("\n", lpos, start)
                if nl:
                    line += nl
                    lstart = rfind("\n", lpos, start)
                elif lstart_line != line:
                    lstart = rfind("\n", 0, start)
                lstart_line = line
                lpos = start
                stmts = []
                stack.append(stmts)
                spans.append(Span(file, line, start - lstart))
            else:
                start = m.start(21)
                nl = count("\n", lpos, start)
                if nl:
                    line += nl
                    lstart = rfind("\n", lpos, start)
                elif lstart_line != line:
                    lstart = rfind("\n", 0, start)
                lstart_line = line
                lpos = start
                inner = stack.pop()
                o = spans.pop()
                blk = _Nested(inner, Span(o.file, o.line, o.col, line, start - lstart))
                if not stack:
                    self._last_block = blk
                    pos = m.end()
                    break
                stmts = stack[-1]
                stmts.append(blk)
            pos = m.end()
        self._line, self._lpos = line, lpos
        return self._finish_body(), pos

    def _fast_call(self, cm: re.Match[str]) -> Instruction | None:
        """A direct or prototyped call matched by `_CALL` (common in nvcc output); None when an
        argument is more than a name (the full parser reads those)."""
        g = cm.groups()
        for t in (g[3], g[5]):
            if (
                t is not None
                and t.strip()
                and not all(_CALL_ARG.fullmatch(a) for a in t.split(","))
            ):
                return None
        # the statement's first character ('@' or 'call'; the old 'cm.start(3) - 4' was -5
        # without '.uni': the span of a call and of the statements after it went a line back)
        whole = cm.group()
        start = cm.start() + len(whole) - len(whole.lstrip())
        span = self._span(start)
        fn = self._fn

        def ref(name: str) -> Operand:
            if name[0] == "%" or name in fn.plain_regs:
                return Reg(name, "", span)
            return Sym(name, 0, span)

        def args(t: str) -> ArgList:
            items = [ref(a.strip()) for a in t.split(",")] if t.strip() else []
            return ArgList(tuple(items), span)

        ops: list[Operand] = []
        if g[3] is not None:
            ops.append(args(g[3]))
        ops.append(ref(g[4]))
        if g[5] is not None:
            ops.append(args(g[5]))
        if g[6] is not None:
            ops.append(ref(g[6]))
        opcode, mods = decode_name("call.uni" if g[2] else "call")
        guard = Guard(g[1], g[0] == "!", span) if g[1] is not None else None
        fn.fixups.append((self._open_blocks[-1], len(self._open_blocks[-1])))
        return Instruction(opcode, mods, tuple(ops), guard, span)

    def _finish_body(self) -> Block:
        """Turn symbol operands that name labels of the function into `Label` operands."""
        body = self._last_block
        assert body is not None
        fn = self._fn
        if fn.fixups and fn.labels:
            labels = fn.labels
            for stmts, i in fn.fixups:
                ins = stmts[i]
                assert isinstance(ins, Instruction)
                new_ops = tuple(
                    Label(o.name, o.span)
                    if isinstance(o, Sym) and o.offset == 0 and o.name in labels
                    else o
                    for o in ins.operands
                )
                if new_ops != ins.operands:
                    stmts[i] = replace(ins, operands=new_ops)
        return body.freeze()

    # -- statements (token level) ------------------------------------------------------------

    def _slow_stmt(self, pos: int, stack: list[list[_Open]], spans: list[Span]) -> int:
        """Parse one statement of a function body with the lexer; returns the new position.
        Pops ``stack`` when a block closes (empty stack: the function body ended)."""
        lx = Lexer(self.text, pos, self.file)
        t = lx.peek()
        stmts = stack[-1]
        if t.kind == "op" and t.text == "{":
            lx.next()
            stack.append([])
            spans.append(self._span(t.pos))
            return lx.resume_at()
        if t.kind == "op" and t.text == "}":
            lx.next()
            inner = stack.pop()
            o = spans.pop()
            end = self._span(t.pos)
            blk = _Nested(inner, Span(o.file, o.line, o.col, end.line, end.col))
            if stack:
                stack[-1].append(blk)
            else:
                self._last_block = blk
            return lx.resume_at()
        if t.kind == "dir":
            w = t.text[1:]
            linkage: Linkage | None = None
            while w in _LINKAGE:
                lx.next()
                linkage = Linkage(w)
                t = lx.peek()
                if t.kind != "dir":
                    raise lx.error(t)
                w = t.text[1:]
                if w not in _VAR_SPACES and w not in _LINKAGE:
                    raise lx.error(t)
            if w in _VAR_SPACES:
                stmts.extend(self._var_decls(lx, linkage, t))
            elif w == "loc":
                lx.next()
                stmts.append(self._loc(lx, t))
            elif w == "pragma":
                lx.next()
                stmts.append(self._pragma(lx, t))
            elif w in ("callprototype", "branchtargets", "calltargets"):
                if not stmts or not isinstance(stmts[-1], LabelDef):
                    raise lx.error(t)
                lab = stmts.pop()
                assert isinstance(lab, LabelDef)
                lx.next()
                stmts.append(self._label_directive(lx, lab, w))
            else:
                raise lx.error(t)
            return lx.resume_at()
        if t.kind == "id" or (t.kind == "op" and t.text == "@"):
            if t.kind == "id":
                # a label?
                save = lx.resume_at()
                lx.next()
                if lx.peek().text == ":" and lx.peek().kind == "op":
                    lx.next()
                    self._fn.labels.add(t.text)
                    stmts.append(LabelDef(t.text, self._span(t.pos)))
                    return lx.resume_at()
                lx.seek(save)
            ins, has_sym = self._instruction(lx)
            if has_sym:
                self._fn.fixups.append((stmts, len(stmts)))
            stmts.append(ins)
            return lx.resume_at()
        raise lx.error(t)

    def _loc(self, lx: Lexer, start: Tok) -> Loc:
        f = self._int(lx)
        ln = self._int(lx)
        col = self._int(lx)
        fname: str | None = None
        foff = 0
        inl: tuple[int, int, int] | None = None
        while lx.accept(","):
            k = self._ident(lx)
            if k.text == "function_name":
                fname = self._ident(lx).text
                if lx.accept("+"):
                    foff = self._int(lx)
            elif k.text == "inlined_at":
                inl = (self._int(lx), self._int(lx), self._int(lx))
            else:
                raise lx.error(k)
        return Loc(f, ln, col, fname, foff, inl, self._span(start.pos))

    def _label_directive(
        self, lx: Lexer, lab: LabelDef, w: str
    ) -> CallPrototype | BranchTargets | CallTargets:
        self._fn.labels.add(lab.name)
        if w == "callprototype":
            rets: tuple[Param, ...] = ()
            if lx.peek().text == "(":
                rets = self._params(lx)
            us = self._ident(lx)
            if us.text != "_":
                raise lx.error(us)
            params: tuple[Param, ...] = ()
            if lx.peek().text == "(":
                params = self._params(lx)
            noret = lx.accept(".noreturn")
            lx.expect(";")
            return CallPrototype(lab.name, rets, params, noret, lab.span)
        names = [self._ident(lx).text]
        while lx.accept(","):
            names.append(self._ident(lx).text)
        lx.expect(";")
        if w == "branchtargets":
            return BranchTargets(lab.name, tuple(names), lab.span)
        return CallTargets(lab.name, tuple(names), lab.span)

    def _instruction(self, lx: Lexer) -> tuple[Instruction, bool]:
        t = lx.peek()
        guard: Guard | None = None
        start = t.pos
        if t.text == "@" and t.kind == "op":
            lx.next()
            neg = lx.accept("!")
            g = self._ident(lx)
            guard = Guard(g.text, neg, self._span(start))
            t = lx.peek()
        if t.kind != "id":
            raise lx.error(t)
        pos = lx.resume_at()
        m = _NAME.match(self.text, pos)
        if m is None:  # e.g. an identifier starting with '%' or '$' where an opcode belongs
            raise lx.error(lx.next())
        name = m.group()
        lx.seek(m.end())
        span = self._span(start)
        if guard is not None:
            guard = Guard(guard.reg, guard.negated, span)
        opcode, mods = decode_name(name)
        operands: list[Operand] = []
        has_sym = [False]
        if not lx.accept(";"):
            while True:
                if operands and lx.peek().text == "_":
                    # ptxas's grammar has a sink only as the first operand (or in a vector, or
                    # after '|'): 'add.s32 %r1, _, %r3' is a syntax error there
                    raise lx.error(lx.peek())
                operands.append(
                    self._operand(lx, span, opcode == "call", has_sym, first=not operands)
                )
                if not lx.accept(","):
                    break
            lx.expect(";")
        return Instruction(opcode, mods, tuple(operands), guard, span), has_sym[0]

    # -- operands ----------------------------------------------------------------------------

    def _fast_operands(self, text: str, span: Span) -> tuple[tuple[Operand, ...], bool] | None:
        """Operands of a fast-path statement, or None when one needs the full parser.

        Each operand text is classified once per distinct text (per-parse caches); building
        the nodes is the hot part."""
        rec: Sequence[_Kind]
        if "{" in text:
            vrec = self._opcache.get(text)
            if vrec is None:
                if text in self._opcache:
                    return None
                vrec = self._opcache[text] = self._recipe(text)
                if vrec is None:
                    return None
            rec = vrec
        else:
            parts: list[_Kind] = []
            cache = self._partcache
            for raw in text.split(","):
                k = cache.get(raw, _MISS)
                if k is _MISS:
                    k = cache[raw] = _classify(raw.strip())
                if k is None:
                    return None
                parts.append(k)
            rec = parts
        new = _new
        rg_name, rg_comp, rg_span = _RG
        ii_value, ii_span = _II
        ad_base, ad_off, ad_span = _AD
        sy_name, sy_off, sy_span = _SY
        plain = self._fn.plain_regs
        out: list[Operand] = []
        has_sym = False
        for k in rec:
            kind = k[0]
            if kind == "reg":
                o = new(Reg)
                rg_name(o, k[1])
                rg_comp(o, k[2])
                rg_span(o, span)
                out.append(o)
            elif kind == "int":
                o = new(IntImm)
                ii_value(o, k[1])
                ii_span(o, span)
                out.append(o)
            elif kind == "addr":
                base_name = k[1]
                if base_name[0] == "%" or base_name in plain:
                    b = new(Reg)
                    rg_name(b, base_name)
                    rg_comp(b, "")
                    rg_span(b, span)
                else:
                    b = new(Sym)
                    sy_name(b, base_name)
                    sy_off(b, 0)
                    sy_span(b, span)
                o = new(Address)
                ad_base(o, b)
                ad_off(o, k[2])
                ad_span(o, span)
                out.append(o)
            elif kind == "vec":
                items: list[Operand] = []
                for kk in k[1]:
                    op, sym = self._build(kk, span)
                    has_sym = has_sym or sym
                    items.append(op)
                out.append(Vector(tuple(items), span))
            else:
                if (kind == "sink" or kind == "pair") and out:
                    return None  # a syntax error: the full parser reports it
                op, sym = self._build(k, span)
                has_sym = has_sym or sym
                out.append(op)
        return tuple(out), has_sym

    def _recipe(self, text: str) -> tuple[_Kind, ...] | None:
        """Classify every operand of an operand text (None: the full parser must read it)."""
        if "{" in text:
            parts = _split_top(text)
            if parts is None:
                return None
        else:
            parts = text.split(",")
        cache = self._partcache
        out: list[_Kind] = []
        for raw in parts:
            s = raw.strip()
            k = cache.get(s, _MISS)
            if k is _MISS:
                k = cache[s] = _classify(s)
            if k is None:
                return None
            if k[0] == "vec":
                subs: list[_Kind] = []
                for sub in k[1]:
                    kk = cache.get(sub, _MISS)
                    if kk is _MISS:
                        kk = cache[sub] = _classify(sub)
                    if kk is None or kk[0] in ("vec", "addr", "not", "pair"):
                        return None
                    subs.append(kk)
                k = ("vec", tuple(subs))
            out.append(k)
        return tuple(out)

    def _build(self, k: _Kind, span: Span) -> tuple[Operand, bool]:
        kind = k[0]
        if kind == "reg":
            return _reg(k[1], k[2], span), False
        if kind == "int":
            return _intimm(k[1], span), False
        if kind == "sreg":
            return SpecialReg(k[1], k[2], span), False
        if kind == "id":
            if k[1] in self._fn.plain_regs:
                return Reg(k[1], "", span), False
            return Sym(k[1], 0, span), True
        if kind == "addr":
            base = k[1]
            if base[0] == "%" or base in self._fn.plain_regs:
                return Address(Reg(base, "", span), k[2], span), False
            return Address(Sym(base, 0, span), k[2], span), False
        if kind == "flt":
            return FloatImm(k[1], k[2], span), False
        if kind == "not":
            return Not(Reg(k[1], "", span), span), False
        if kind == "pair":
            a, sa = self._build(k[1], span)
            b, sb = self._build(k[2], span)
            return Pair(a, b, span), sa or sb
        if kind == "sink":
            return Sink(span), False
        raise AssertionError(kind)

    def _operand(
        self, lx: Lexer, span: Span, is_call: bool, has_sym: list[bool], first: bool = True
    ) -> Operand:
        t = lx.peek()
        op = self._operand1(lx, span, is_call, has_sym)
        nt = lx.peek()
        if nt.kind == "op" and nt.text == "|":
            if not first:  # ptxas's grammar has 'a|p' outputs only as the first operand
                raise lx.error(nt)
            if isinstance(op, Sink):
                save = lx.resume_at()
                lx.next()
                if lx.peek().text == "_":  # '_|_': ptxas's syntax error at the second sink
                    raise lx.error(lx.peek())
                lx.seek(save)
            lx.next()
            op2 = self._operand1(lx, span, is_call, has_sym)
            return Pair(op, op2, span)
        del t
        return op

    def _operand1(self, lx: Lexer, span: Span, is_call: bool, has_sym: list[bool]) -> Operand:
        t = lx.peek()
        if t.kind == "op":
            if t.text == "!":
                save = lx.resume_at()
                lx.next()
                nt = lx.peek()
                if nt.kind == "id" and (nt.text[0] == "%" or nt.text in self._fn.plain_regs):
                    return Not(self._operand1(lx, span, is_call, has_sym), span)
                lx.seek(save)  # '!' of a constant expression
            if t.text == "-":
                save = lx.resume_at()
                lx.next()
                nt = lx.peek()
                if nt.kind == "id" and (nt.text[0] == "%" or nt.text in self._fn.plain_regs):
                    return Not(self._operand1(lx, span, is_call, has_sym), span, arith=True)
                lx.seek(save)  # '-' of a constant expression
            if t.text == "{":
                lx.next()
                items: list[Operand] = []
                if not lx.accept("}"):
                    while True:
                        if lx.peek().text in ("[", "{"):  # no addresses or nesting in vectors
                            raise lx.error(lx.peek())
                        items.append(self._operand1(lx, span, is_call, has_sym))
                        if not lx.accept(","):
                            break
                    lx.expect("}")
                return Vector(tuple(items), span)
            if t.text == "[":
                lx.next()
                return self._address(lx, span, has_sym)
            if t.text == "(" and is_call:
                lx.next()
                items = []
                if not lx.accept(")"):
                    while True:
                        self._call_arg_form(lx)
                        items.append(self._operand1(lx, span, is_call, has_sym))
                        if not lx.accept(","):
                            break
                    lx.expect(")")
                return ArgList(tuple(items), span)
        if t.kind == "id":
            name = t.text
            if name == "_":
                lx.next()
                return Sink(span)
            if name[0] == "%" or name in self._fn.plain_regs:
                lx.next()
                comp = self._component(lx, t)
                if name in SPECIAL_REGISTERS:
                    return SpecialReg(name, comp, span)
                return Reg(name, comp, span)
        v = self._expr(lx)
        if isinstance(v, _SymVal):
            has_sym[0] = True
            return Sym(v.name, v.offset, span)
        return self._imm(v, lx, t)

    def _call_arg_form(self, lx: Lexer) -> None:
        """A call argument is a name or a constant: ptxas's syntax error at a brace vector or
        at the '+' of ``p+4``."""
        t = lx.peek()
        if t.text == "{":
            raise lx.error(t)
        if t.kind == "id":
            save = lx.resume_at()
            lx.next()
            nt = lx.peek()
            if nt.text in ("+", "-"):
                raise lx.error(nt)
            lx.seek(save)

    def _component(self, lx: Lexer, t: Tok) -> str:
        nt = lx.peek()
        if nt.kind == "dir" and nt.pos == t.pos + len(t.text):
            lx.next()
            return nt.text[1:]
        return ""

    def _imm(self, v: object, lx: Lexer, t: Tok) -> IntImm | FloatImm:
        if isinstance(v, _FltBits):
            return FloatImm(v.bits, v.width, self._span(t.pos))
        if isinstance(v, int):
            return IntImm(v, self._span(t.pos))
        if isinstance(v, float):
            return FloatImm.from_float(v, self._span(t.pos))
        raise lx.error(t)

    def _address(self, lx: Lexer, span: Span, has_sym: list[bool]) -> Address | MemList:
        """After ``[``: ``reg``, ``reg+off``, ``sym+off``, ``imm``, or a tex list ``a, b, {..}``."""
        t = lx.peek()
        base: Reg | Sym | None = None
        off = 0
        if t.kind == "id" and (t.text[0] == "%" or t.text in self._fn.plain_regs):
            lx.next()
            base = Reg(t.text, "", span)
            if lx.accept("+"):
                off = self._const_int(lx)
        else:
            v = self._expr(lx)
            if isinstance(v, _SymVal):
                base = Sym(v.name, 0, span)
                off = v.offset
                has_sym[0] = True
            elif isinstance(v, int) and not isinstance(v, _FltBits):
                off = v
            else:
                raise lx.error(t)
        if lx.peek().text == "," and lx.peek().kind == "op":
            first: Operand = base if base is not None else IntImm(off, span)
            if off and base is not None:
                raise lx.error(lx.peek())
            items: list[Operand] = [first]
            while lx.accept(","):
                items.append(self._operand1(lx, span, False, has_sym))
            lx.expect("]")
            return MemList(tuple(items), span)
        lx.expect("]")
        return Address(base, off, span)

    # -- constant expressions ----------------------------------------------------------------

    def _expr(self, lx: Lexer, min_prec: int = 0) -> Any:
        """A C-like constant expression. Returns an int, a float (decimal literal), a
        (bits, width) pair for 0f/0d literals, or (name, offset) for ``sym [+- const]``."""
        lhs = self._unary(lx)
        while True:
            t = lx.peek()
            if t.kind != "op":
                return lhs
            if t.text == "?" and min_prec == 0:
                lx.next()
                a = self._expr(lx)
                lx.expect(":")
                b = self._expr(lx)
                lhs = a if _truth(lhs, lx, t) else b
                continue
            prec = _BINARY.get(t.text)
            if prec is None or prec < min_prec or prec == 0:
                return lhs
            lx.next()
            rhs = self._expr(lx, prec + 1)
            lhs = _binop(t, lhs, rhs, lx)

    def _unary(self, lx: Lexer) -> Any:
        t = lx.next()
        if t.kind == "op":
            if t.text in ("-", "+", "~", "!"):
                nt = lx.peek()
                if nt.kind == "float":
                    raise lx.error(nt)
                v = self._unary(lx)
                if t.text == "+":
                    return v
                if isinstance(v, (_SymVal, _FltBits)):
                    raise lx.error(t)
                if t.text == "-":
                    return -v
                if isinstance(v, float):
                    raise lx.error(t)
                return ~v if t.text == "~" else int(not v)
            if t.text == "(":
                v = self._expr(lx)
                lx.expect(")")
                return v
            raise lx.error(t)
        if t.kind == "int":
            v = int_value(t.text)
            # wider than 64 bits: ptxas reports it (non-fatal); the checker finds it again
            return v
        if t.kind == "dec":
            return float(t.text)
        if t.kind == "float":
            hexd = t.text[2:]
            return _FltBits(int(hexd, 16), 32 if t.text[1] in "fF" else 64)
        if t.kind == "id" and t.text[0] != "%":
            return _SymVal(t.text, 0)
        raise lx.error(t)


class _SymVal(NamedTuple):
    """``sym + offset`` in a constant expression."""

    name: str
    offset: int


class _FltBits(NamedTuple):
    """A ``0f``/``0d`` literal: its bit pattern and width."""

    bits: int
    width: int


_BINARY = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}


def _truth(v: Any, lx: Lexer, t: Tok) -> bool:
    if isinstance(v, (_SymVal, _FltBits)):
        raise lx.error(t)
    return bool(v)


def _binop(t: Tok, a: Any, b: Any, lx: Lexer) -> Any:
    op = t.text
    # symbol arithmetic: sym + c, c + sym, sym - c; no arithmetic on 0f/0d bit patterns
    if isinstance(a, _FltBits) or isinstance(b, _FltBits):
        raise lx.error(t)
    if isinstance(a, _SymVal):
        if op in ("+", "-") and isinstance(b, int) and not isinstance(b, _SymVal):
            return _SymVal(a.name, a.offset + b if op == "+" else a.offset - b)
        raise lx.error(t)
    if isinstance(b, _SymVal):
        if op == "+" and isinstance(a, int):
            return _SymVal(b.name, b.offset + a)
        raise lx.error(t)
    if isinstance(a, float) or isinstance(b, float):
        if op == "+":
            return float(a) + float(b)
        if op == "-":
            return float(a) - float(b)
        if op == "*":
            return float(a) * float(b)
        if op == "/":
            if b == 0:
                raise lx.error(t, "division by zero")
            return float(a) / float(b)
        raise lx.error(t)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%"):
        if b == 0:
            raise lx.error(t, "division by zero")
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C truncation
        return q if op == "/" else a - q * b
    if op == "<<":
        return (a << (b & 63)) & MAX_U64
    if op == ">>":
        return a >> (b & 63)
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "&&":
        return int(bool(a) and bool(b))
    if op == "||":
        return int(bool(a) or bool(b))
    return int({"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op])


def _split_top(text: str) -> list[str] | None:
    """Split operands at top-level commas; a ``{...}`` stays one part (no nesting)."""
    parts: list[str] = []
    depth = 0
    cur = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
            if depth > 1:
                return None
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[cur:i])
            cur = i + 1
    parts.append(text[cur:])
    return parts


def _classify(s: str) -> _Kind | None:
    """Classify one operand text for the fast path (None: let the full parser do it)."""
    if not s:
        return None
    c = s[0]
    if c == "%":
        m = _OP_REG.fullmatch(s)
        if m is None:
            return _pair(s)
        name, comp = m.group(1), m.group(2) or ""
        if comp and not _COMPONENT.fullmatch(comp):
            return None
        if name in SPECIAL_REGISTERS:
            return ("sreg", name, comp)
        return ("reg", name, comp)
    if c == "[":
        m = _OP_ADDR.fullmatch(s)
        if m is None:
            return None
        off = int_value(m.group(3)) if m.group(3) else 0
        if m.group(2):
            off = -off
        return ("addr", m.group(1), off)
    if c == "{":
        if s[-1] != "}":
            return None
        inner = s[1:-1].strip()
        if not inner:
            return ("vec", ())
        return ("vec", tuple(x.strip() for x in inner.split(",")))
    if c.isdigit() or c == "-":
        m = _OP_FLT.fullmatch(s)
        if m is not None:
            return ("flt", int(s[2:], 16), 32 if s[1] in "fF" else 64)
        m = _OP_INT.fullmatch(s)
        if m is None:
            return None
        v = int_value(m.group(2))
        if v > MAX_U64:
            return None
        return ("int", -v if m.group(1) else v)
    if c == "!":
        m = _OP_NOT.fullmatch(s)
        return ("not", m.group(1)) if m else None
    if s == "_":
        return ("sink",)
    if _OP_ID.fullmatch(s):
        return ("id", s)
    return _pair(s)


def _pair(s: str) -> _Kind | None:
    """``a|b``: both sides classified like any operand (a special register stays one)."""
    m = _OP_PAIR.fullmatch(s)
    if m is None:
        return None
    a = _classify(m.group(1))
    b = _classify(m.group(2))
    if (
        a is None
        or b is None
        or a[0] not in ("reg", "sreg", "id", "sink")
        or b[0]
        not in (
            "reg",
            "sreg",
            "id",
            "sink",
        )
        or a[0] == b[0] == "sink"  # '_|_' is a syntax error: the full parser reports it
    ):
        return None
    return ("pair", a, b)


def _unquote(s: str) -> str:
    body = s[1:-1]
    if "\\" not in body:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")


def parse(text: str, file: str = "<ptx>") -> Module:
    """Parse PTX text into a `Module`; raises `PtxSyntaxError` (ptxas's message and line)."""
    return Parser(text, file).parse()


def float_bits32(x: float) -> int:
    """The IEEE-754 single-precision bit pattern of ``x`` (rounded to nearest)."""
    return int(struct.unpack("<I", struct.pack("<f", x))[0])
