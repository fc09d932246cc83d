"""Differential fuzzing of the compiler: random well-defined PTX kernels compiled by openptxas and
by ptxas, both run in the emulator on the same inputs, outputs compared bit for bit (two f32
register words that are both NaNs count as equal: PTX leaves NaN payloads unspecified).

A program is a tree of statements (straight-line instructions, if/else diamonds, loops with
uniform or divergent trip counts, a shared-memory exchange between threads) over a pool of
registers that are all initialised from the input buffer first, so every statement can be
deleted and the program stays well defined: that is what the reducer does to a failing program.
Nothing in the generated code has undefined behaviour in PTX: divisors are made non-zero (and
signed ones positive), bit-field positions are taken modulo 256 as PTX defines, float-to-int
conversions saturate, and single-precision multiplies and adds name their rounding (``.rn`` ...)
so that FMA contraction, which PTX leaves to the compiler, cannot make two correct compilers
disagree.

    from openptxas.testing.difffuzz import generate, check, reduce_program
    prog = generate(seed)
    res = check(prog)          # Result(status="ok" | "mismatch" | "ours-error" | ...)
    small = reduce_program(prog, lambda p: check(p).status == "mismatch")

scripts/difffuzz.py runs many seeds in parallel and writes reduced failures.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

NTHREADS = 64  # two warps: divergence inside and between warps
NR = 8  # 32-bit integer registers %r0..%r7 (all stored at the end)
NF = 4  # f32 registers %f0..%f3: written only by float instructions, conversions and bit copies
# from %r; read by integer code only through numeric conversions and comparisons, so a NaN's
# payload (which PTX leaves unspecified) never reaches integer data
ND = 3  # 64-bit registers %rd0..%rd2
NP = 3  # predicates %p0..%p2 (stored as 0/1)
FBASE = NR  # first word of the f32 registers
DBASE = NR + NF  # first word of the 64-bit registers (even: they stay 8-byte aligned)
PBASE = DBASE + 2 * ND
NIN = PBASE + NP + 1  # input words per thread (even)
NOUT = NIN  # output words per thread


@dataclass(frozen=True)
class Shape:
    """The register pool of a program and the words of its interface. The default is the
    everyday shape; ``PRESSURE`` keeps many more values live at once (all registers are loaded
    first and stored last), compiled under a low ``-maxrregcount`` by both compilers: spilling
    of R registers to local memory and of predicates."""

    nr: int = NR
    nf: int = NF
    nd: int = ND
    np: int = NP
    maxrreg: int | None = None  # -maxrregcount for both compilers

    @property
    def fbase(self) -> int:
        return self.nr

    @property
    def dbase(self) -> int:
        return self.nr + self.nf + (self.nr + self.nf) % 2  # 64-bit words 8-byte aligned

    @property
    def pbase(self) -> int:
        return self.dbase + 2 * self.nd

    @property
    def nin(self) -> int:
        n = self.pbase + self.np + 1
        return n + n % 2

    @property
    def flags(self) -> tuple[str, ...]:
        return (f"-maxrregcount={self.maxrreg}",) if self.maxrreg is not None else ()


DEFAULT = Shape()
# the high-pressure shapes, picked by seed: more live values than the budget holds
PRESSURE_REGS = (16, 24, 32, 40)


def pressure_shape(seed: int) -> Shape:
    r = random.Random(seed * 7919 + 1)
    return Shape(
        nr=r.randrange(24, 56),
        nf=r.randrange(4, 16),
        nd=r.randrange(3, 10),
        np=r.randrange(3, 12),
        maxrreg=r.choice(PRESSURE_REGS),
    )


SPECIAL = [
    0, 1, 2, 3, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x80000001, 31, 32, 33, 0xFF, 0x100, 0xFFFF,
    0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x807FFFFF,
    0x4B000000, 0x4F000000, 0xCF000000, 0x3F000000, 0x00800000, 0x7F7FFFFF,
]  # fmt: skip
# f32 constants: exact and inexact ones, signed zeros, tiny and huge, infinity
FCONSTS = [
    0x3F800000, 0xBF800000, 0x3F000000, 0x3DCCCCCD, 0x40490FDB, 0x2F800000, 0x00000000,
    0x80000000, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xC1200000, 0x3EAAAAAB,
]  # fmt: skip


@dataclass
class Stmt:
    """One statement: ``lines`` of PTX, or a compound with children."""

    kind: str  # "ins", "if", "loop", "xchg"
    lines: list[str] = field(default_factory=list)
    body: list[Stmt] = field(default_factory=list)
    other: list[Stmt] = field(default_factory=list)  # the else branch of "if"
    cond: str = ""  # "if": the predicate line(s) before the branch; "loop": the trip count line
    uid: int = 0


@dataclass
class Program:
    seed: int
    stmts: list[Stmt]
    inputs: np.ndarray[Any, Any]
    shape: Shape = DEFAULT
    funcs: list[str] = field(default_factory=list)  # device functions' PTX (generate(calls=))

    def ptx(self) -> str:
        return render(self)


@dataclass(frozen=True)
class FuncSig:
    """A generated device function: ``nargs`` .b32 arguments, a .b64 one if ``wide``, one .b32
    result or none."""

    name: str
    nargs: int
    wide: bool
    ret: bool

    @property
    def proto(self) -> str:
        ins = [".param .b32 _"] * self.nargs + ([".param .b64 _"] if self.wide else [])
        out = "(.param .b32 _) " if self.ret else "() "
        return f".callprototype {out}_ ({', '.join(ins)})"


class _Gen:
    def __init__(
        self,
        seed: int,
        shape: Shape = DEFAULT,
        funcs: list[FuncSig] | None = None,
        *,
        contract: bool = True,
    ) -> None:
        self.shape = shape
        # False in programs with calls: every f32 multiply names its rounding (see
        # instruction(): ptxas's contraction there depends on its code around the calls)
        self.contract = contract
        self.r = random.Random(seed)
        self.uid = 0
        self.depth = 0
        self.labels = 0
        self.loops = 0  # loops around the statement being generated
        self.hi_pairs: set[frozenset[str]] = set()  # multiplicands of hi multiplies so far
        # calls (generate(calls=True)): the functions a statement may call, decided by their
        # own random stream so that programs without functions stay as they were
        self.funcs = funcs or []
        self.cr = random.Random(seed ^ 0x5EED)
        self.in_func = False

    def reg(self) -> str:
        return f"%r{self.r.randrange(NR)}"

    def freg(self) -> str:
        return f"%f{self.r.randrange(NF)}"

    def fsrc(self) -> str:
        """An f32 source: mostly a register, sometimes a constant (FFMA holds one immediate,
        so two constants meeting in a contraction must move one to a register)."""
        r = self.r
        if r.random() < 0.8:
            return self.freg()
        return f"0f{r.choice(FCONSTS):08X}"

    def rd(self) -> str:
        return f"%rd{self.r.randrange(ND)}"

    def pred(self) -> str:
        return f"%p{self.r.randrange(NP)}"

    def imm32(self) -> str:
        r = self.r
        return str(
            r.choice([r.randrange(0, 64), r.choice(SPECIAL), r.getrandbits(32), r.randrange(1, 9)])
        )

    def src(self) -> str:
        return self.reg() if self.r.random() < 0.75 else self.imm32()

    def pos(self) -> str:
        """A bit-field position or length: any register (PTX uses its low 8 bits), or an
        immediate in 0..31. (ptxas rejects immediates over 255, and folds ``bfe.s32`` with a
        constant position of 32 or more, also one that constant propagation finds in a register,
        to -1 whatever the source's sign, unlike the PTX ISA's definition: such positions
        would only measure that.)"""
        r = self.r
        return self.reg() if r.random() < 0.5 else str(r.randrange(0, 32))

    def guard(self) -> str:
        if self.r.random() < 0.12:
            return f"@{'!' if self.r.random() < 0.5 else ''}{self.pred()} "
        return ""

    def stmt(self) -> Stmt:
        self.uid += 1
        if self.funcs and self.cr.random() < 0.15:
            return Stmt("ins", self.call(), uid=self.uid)
        r = self.r.random()
        if self.depth < 2 and r < 0.10:
            return self.if_stmt()
        if self.depth < 2 and r < 0.17:
            return self.loop_stmt()
        if self.depth == 0 and r < 0.20 and not self.in_func:
            return Stmt("xchg", uid=self.uid)
        return Stmt("ins", self.instruction(), uid=self.uid)

    def call(self) -> list[str]:
        """A call of a generated function: direct (``call.uni``, or ``call`` when guarded),
        or through its address with a prototype; arguments from registers, the result into
        one."""
        cr = self.cr
        f = cr.choice(self.funcs)
        self.labels += 1
        k = self.labels
        out = ["{"]
        names = []
        for i in range(f.nargs):
            out.append(f".param .b32 a{k}_{i};")
            out.append(f"st.param.b32 [a{k}_{i}], {self.src()};")
            names.append(f"a{k}_{i}")
        if f.wide:
            out.append(f".param .b64 a{k}_w;")
            out.append(f"st.param.b64 [a{k}_w], {self.rd()};")
            names.append(f"a{k}_w")
        if f.ret:
            out.append(f".param .b32 r{k};")
        guard = f"@{'!' if cr.random() < 0.5 else ''}{self.pred()} " if cr.random() < 0.2 else ""
        rets = f"(r{k}), " if f.ret else ""
        args = f"({', '.join(names)})"
        if cr.random() < 0.3:
            out.append(f"proto{k} : {f.proto};")
            out.append(f"mov.u64 %fp, {f.name};")
            out.append(f"{guard}call {rets}%fp, {args}, proto{k};")
        else:
            # .uni only where every thread of the warp calls (the kernel's top level)
            uni = ".uni" if not guard and self.depth == 0 and not self.in_func else ""
            out.append(f"{guard}call{uni} {rets}{f.name}, {args};")
        if f.ret and guard:
            # the result exists only where the call ran (ld.param cannot be guarded)
            out.append(f"ld.param.b32 %w, [r{k}];")
            out.append(f"{guard}mov.b32 {self.reg()}, %w;")
        elif f.ret:
            out.append(f"ld.param.b32 {self.reg()}, [r{k}];")
        out.append("}")
        return out

    def block(self, n: int) -> list[Stmt]:
        self.depth += 1
        out = [self.stmt() for _ in range(n)]
        self.depth -= 1
        return out

    def if_stmt(self) -> Stmt:
        uid = self.uid
        cond = self.setp()
        return Stmt(
            "if",
            body=self.block(self.r.randrange(1, 5)),
            other=self.block(self.r.randrange(0, 4)),
            cond=cond[0],
            uid=uid,
        )

    def loop_stmt(self) -> Stmt:
        uid = self.uid
        if self.r.random() < 0.5:
            trip = f"mov.u32 %lc{{d}}, {self.r.randrange(1, 5)};"
        else:  # data-dependent: divergent between threads
            trip = f"and.b32 %lc{{d}}, {self.reg()}, 3; add.u32 %lc{{d}}, %lc{{d}}, 1;"
        self.loops += 1
        body = self.block(self.r.randrange(1, 5))
        self.loops -= 1
        return Stmt("loop", body=body, cond=trip, uid=uid)

    def setp(self) -> list[str]:
        r = self.r
        p = self.pred()
        bop = f".{r.choice(['and', 'or', 'xor'])}" if r.random() < 0.2 else ""
        tail = f", {'!' if r.random() < 0.5 else ''}{self.pred()}" if bop else ""
        if r.random() < 0.6:
            t = r.choice(["u32", "s32", "b32"])
            ops = ["eq", "ne"] + (["lt", "le", "gt", "ge"] if t != "b32" else [])
            a, b = self.reg(), self.src()
            ftz = ""
        elif r.random() < 0.5:
            t = r.choice(["u64", "s64"])
            ops = ["eq", "ne", "lt", "le", "gt", "ge"]
            a, b = self.rd(), self.rd()
            ftz = ""
        else:
            t = "f32"
            ops = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                   "num", "nan"]  # fmt: skip
            a, b = self.freg(), self.freg()
            # no .ftz: ptxas 13.0.88 re-derives a setp.ftz predicate without FTZ when it both
            # branches on it and guards an instruction with it (docs/difffuzz.md)
            ftz = ""
        return [f"setp.{r.choice(ops)}{bop}{ftz}.{t} {p}, {a}, {b}{tail};"]

    def instruction(self) -> list[str]:
        r = self.r
        g = self.guard()
        d, a, b, c = self.reg(), self.reg(), self.src(), self.src()
        k = r.randrange(22)
        if k == 0:
            op = r.choice(["add", "sub", "min", "max"])
            return [f"{g}{op}.{r.choice(['u32', 's32'])} {d}, {a}, {b};"]
        if k == 1:
            op = r.choice(["mul.lo", "mul.hi", "mad.lo", "mad.hi"])
            t = r.choice(["u32", "s32"])
            if op.endswith(".hi"):
                # ptxas 13.0.88 -O3 merges hi multiplies of the same operands that accumulate
                # into one register (`r = mad.hi(a, b, r)` three times, or once in a loop,
                # gives r + 2*hi(a*b): docs/difffuzz.md); keep each pair of multiplicands to
                # one hi multiply, outside loops
                pair = frozenset((a, b))
                if self.loops or pair in self.hi_pairs:
                    op = op.replace(".hi", ".lo")
                else:
                    self.hi_pairs.add(pair)
            extra = f", {c}" if op.startswith("mad") else ""
            return [f"{g}{op}.{t} {d}, {a}, {b}{extra};"]
        if k == 2:
            op = r.choice(["and", "or", "xor"])
            return [f"{g}{op}.b32 {d}, {a}, {b};"]
        if k == 3:
            op = r.choice(["shl.b32", "shr.u32", "shr.s32"])
            return [f"{g}{op} {d}, {a}, {b};"]
        if k == 4:
            op = r.choice(["not.b32", "neg.s32", "abs.s32", "popc.b32", "clz.b32", "brev.b32",
                           "cnot.b32"])  # fmt: skip
            if op == "abs.s32":  # not of INT_MIN: ptxas assumes abs results are non-negative
                return [f"max.s32 %t1, {a}, -2147483647;", f"{g}abs.s32 {d}, %t1;"]
            return [f"{g}{op} {d}, {a};"]
        if k == 5:  # division by a non-zero (signed: positive) divisor
            t = r.choice(["u32", "s32"])
            op = r.choice(["div", "rem"])
            if r.random() < 0.4:
                k2 = r.choice([3, 5, 7, 10, 16, 100, 641, 0x7FFF, 1 << 20])
                if t == "s32" and r.random() < 0.3:
                    k2 = -k2
                return [f"{g}{op}.{t} {d}, {a}, {k2};"]
            mask = "0x7FFF" if t == "s32" else "0xFFFFFFFF"
            return [
                f"and.b32 %t0, {self.reg()}, {mask};",
                "or.b32 %t0, %t0, 1;",
                f"{g}{op}.{t} {d}, {a}, %t0;",
            ]
        if k == 6:
            t = r.choice(["u32", "s32"])
            if t == "s32":  # a position register through "and 31": see pos()
                return [f"and.b32 %t1, {self.reg()}, 31;",
                        f"{g}bfe.s32 {d}, {a}, %t1, {self.pos()};"]  # fmt: skip
            return [f"{g}bfe.{t} {d}, {a}, {self.pos()}, {self.pos()};"]
        if k == 7:
            # the length through "and 31": ptxas folds a constant length of 32 or more modulo
            # 32 (PTX: it inserts up to bit 31)
            return [f"and.b32 %t1, {self.reg()}, 31;",
                    f"{g}bfi.b32 {d}, {a}, {self.reg()}, {self.pos()}, %t1;"]  # fmt: skip
        if k == 8:
            # selectors without the sign-replicate bit (0x8 of a nibble): ptxas rewrites
            # prmt(a, a, sign-of-byte-0) as "PRMT R, RZ, 0x8, Ra", which the emulator reads as
            # the sign of RZ's byte; which of the two is wrong needs a GPU (docs/difffuzz.md)
            if r.random() < 0.5:
                return [f"{g}prmt.b32 {d}, {a}, {self.reg()}, {r.getrandbits(16) & 0x7777};"]
            return [f"and.b32 %t1, {self.reg()}, 0x7777;",
                    f"{g}prmt.b32 {d}, {a}, {self.reg()}, %t1;"]  # fmt: skip
        if k == 9:
            return [f"{g}selp.b32 {d}, {a}, {b}, {self.pred()};"]
        if k == 10:
            return [g + self.setp()[0]]
        if k == 11:
            op = r.choice(["add", "sub", "mul"])
            # no rounding modifier: ptxas contracts mul+add into FFMA (--fmad=true)
            rnd = r.choice([".rn", ".rz", ".rm", ".rp", "", ""])
            if op == "mul" and not rnd and not self.contract:
                # programs with calls: ptxas 13.0.88 may fuse a product that has other uses
                # into an add when the calls make it move or repeat the multiply (seed 141
                # of --calls: FFMA for the add, FMUL again after the calls for the store;
                # the same product without calls stays FMUL + FADD). PTX allows either, so
                # the product is rounded and cannot be contracted.
                rnd = ".rn"
            mods = rnd + (".ftz" if r.random() < 0.3 else "") + (".sat" if r.random() < 0.1 else "")
            return [f"{g}{op}{mods}.f32 {self.freg()}, {self.fsrc()}, {self.fsrc()};"]
        if k == 12:
            rnd = r.choice([".rn", ".rz", ".rm", ".rp"])
            ftz = ".ftz" if r.random() < 0.3 else ""
            f = self.freg
            fs = self.fsrc
            return [f"{g}fma{rnd}{ftz}.f32 {f()}, {fs()}, {fs()}, {fs()};"]
        if k == 13:
            op = r.choice(["min", "max", "min.NaN", "max.NaN"])
            ftz = ".ftz" if r.random() < 0.3 else ""
            op = op.replace(".", ftz + ".", 1) if "." in op else op + ftz
            return [f"{g}{op}.f32 {self.freg()}, {self.freg()}, {self.freg()};"]
        if k == 14:
            op = r.choice(["abs", "neg"])
            return [
                f"{g}{op}{'.ftz' if r.random() < 0.3 else ''}.f32 {self.freg()}, {self.freg()};"
            ]
        if k == 15:
            cv = r.choice(["cvt.rn.f32.s32", "cvt.rn.f32.u32", "cvt.rz.f32.s32", "cvt.rzi.s32.f32",
                           "cvt.rni.u32.f32", "cvt.rmi.s32.f32", "cvt.rpi.u32.f32",
                           "cvt.rni.f32.f32", "cvt.rzi.f32.f32", "cvt.sat.u32.s32",
                           "cvt.sat.s32.u32", "cvt.u8.u32", "cvt.s16.u32", "cvt.s8.s32",
                           "mov.b32"])  # fmt: skip
            dst_f = cv.split(".")[-2] == "f32" or cv == "mov.b32"
            src_f = cv.endswith(".f32")
            dd = self.freg() if dst_f else d
            aa = self.freg() if src_f else a
            return [f"{g}{cv} {dd}, {aa};"]
        if k == 16:
            t = r.choice(["u32", "s32"])
            return [f"{g}mul.wide.{t} {self.rd()}, {a}, {b};"]
        if k == 17:
            op = r.choice(["add.s64", "sub.s64", "and.b64", "or.b64", "xor.b64", "mul.lo.u64",
                           "min.s64", "max.u64"])  # fmt: skip
            return [f"{g}{op} {self.rd()}, {self.rd()}, {self.rd()};"]
        if k == 18:
            # the amount through an integer op: ptxas converts (F2I.U64.TRUNC) a register last
            # written by an f32 instruction when a 64-bit shift reads it as its amount
            op = r.choice(["shl.b64", "shr.u64", "shr.s64"])
            amask = r.choice([63, 127, 0xFF, 0xFFFFFFFF])
            if op == "shl.b64":
                # ptxas 13.0.88 -O3 folds `shl.b64` of a `mul.wide` result by a constant amount
                # of 64 or more into the multiply as if the shift were not there (PTX clamps the
                # amount: the result is 0; seed 26332, docs/difffuzz.md)
                amask = 63
            return [f"and.b32 %t1, {a}, {amask};",
                    f"{g}{op} {self.rd()}, {self.rd()}, %t1;"]  # fmt: skip
        if k == 19:
            if r.random() < 0.5:
                return [f"{g}cvt.u32.u64 {d}, {self.rd()};"]
            return [f"{g}cvt.{r.choice(['u64.u32', 's64.s32'])} {self.rd()}, {a};"]
        if k == 20:
            if r.random() < 0.5:
                return [f"mov.b64 {{{d}, {self.reg()}}}, {self.rd()};"]
            return [f"mov.b64 {self.rd()}, {{{a}, {self.reg()}}};"]
        return [f"{g}mov.b32 {d}, {self.src()};"]


def generate(
    seed: int,
    size: int | None = None,
    *,
    pressure: bool = False,
    calls: bool = False,
    recursion: bool = False,
) -> Program:
    """A random program; ``pressure``: in a high-register-pressure shape (``pressure_shape``);
    ``calls``: with 1-3 device functions (arguments, a result, calls of the functions defined
    before them) that statements call directly, guarded or through their address;
    ``recursion`` (with ``calls``): about half of the functions also call themselves, up to
    three levels deep (drawn apart: the other draws, and so ``calls``' programs, stay)."""
    shape = pressure_shape(seed) if pressure else DEFAULT
    funcs: list[str] = []
    sigs: list[FuncSig] = []
    if calls:
        fr = random.Random(seed ^ 0xF00D)
        rr = random.Random(seed ^ 0x5E1F)
        for k in range(fr.randrange(1, 4)):
            sig = FuncSig(f"fn{k}", fr.randrange(1, 4), fr.random() < 0.3, fr.random() < 0.8)
            again = recursion and rr.random() < 0.5
            funcs.append(_render_func(sig, seed * 8 + k + 1, list(sigs), again))
            sigs.append(sig)
    g = _Gen(seed, shape, sigs, contract=not calls)
    n = size if size is not None else g.r.randrange(6, 30)
    stmts = [g.stmt() for _ in range(n)]
    words = inputs_for(seed, shape.nin)
    return Program(seed, stmts, words, shape, funcs)


_LOCAL_REGS = [
    f"  .reg .b32 %r<{NR}>;",
    f"  .reg .f32 %f<{NF}>;",
    f"  .reg .b64 %rd<{ND}>;",
    f"  .reg .pred %p<{NP}>;",
    "  .reg .b32 %t<2>;",
    "  .reg .b32 %lc<3>;",
    "  .reg .pred %lp<3>;",
    "  .reg .b32 %w;",
    "  .reg .b64 %fp;",
]


def _render_func(sig: FuncSig, seed: int, callees: list[FuncSig], again: bool = False) -> str:
    """A device function: its registers all set from its arguments, random statements (calls
    only of ``callees``; no barrier), the result a mix of its registers; ``again``: then it
    calls itself while its first argument's low two bits (its depth) are not 0, with the depth
    one less and the other arguments from its registers (nvcc's recursion: a divergent call,
    the stack pointer lower in each activation)."""
    g = _Gen(seed, funcs=callees, contract=False)
    g.in_func = True
    params = [f".param .b32 {sig.name}_a{i}" for i in range(sig.nargs)]
    if sig.wide:
        params.append(f".param .b64 {sig.name}_w")
    ret = f"(.param .b32 {sig.name}_ret) " if sig.ret else ""
    lines = [f".func {ret}{sig.name}({', '.join(params)})", "{", *_LOCAL_REGS]
    for i in range(sig.nargs):
        lines.append(f"  ld.param.b32 %r{i}, [{sig.name}_a{i}];")
    if again:
        lines[lines.index("{") + 1 : lines.index("{") + 1] = [
            "  .reg .b32 %dep;",
            "  .reg .pred %pdep;",
        ]
        lines.append("  and.b32 %dep, %r0, 3;")
    for i in range(sig.nargs, NR):
        lines.append(f"  mul.lo.u32 %r{i}, %r{i - 1}, {2 * i + 1};")
        lines.append(f"  xor.b32 %r{i}, %r{i}, {g.r.getrandbits(32)};")
    for i in range(NF):
        lines.append(f"  cvt.rn.f32.s32 %f{i}, %r{i};")
    for i in range(ND):
        if sig.wide and i == 0:
            lines.append(f"  ld.param.b64 %rd0, [{sig.name}_w];")
        else:
            lines.append(f"  mov.b64 %rd{i}, {{%r{i + 1}, %r{i + 2}}};")
    for i in range(NP):
        lines.append(f"  setp.lt.u32 %p{i}, %r{i}, %r{i + 3};")
    stmts = [g.stmt() for _ in range(g.r.randrange(2, 10))]
    body: list[str] = []
    _emit(stmts, body, 0)
    lines.extend(body)
    if again:
        lines += ["  setp.eq.u32 %pdep, %dep, 0;", "  @%pdep bra $Lnorec;", "  {"]
        names = [f"q_{i}" for i in range(sig.nargs)] + (["q_w"] if sig.wide else [])
        lines += [f"  .param .b32 q_{i};" for i in range(sig.nargs)]
        lines += ["  .param .b64 q_w;"] if sig.wide else []
        lines += ["  .param .b32 q_r;"] if sig.ret else []
        lines += ["  sub.u32 %w, %dep, 1;", "  st.param.b32 [q_0], %w;"]
        lines += [f"  st.param.b32 [q_{i}], {g.reg()};" for i in range(1, sig.nargs)]
        lines += [f"  st.param.b64 [q_w], {g.rd()};"] if sig.wide else []
        rets = "(q_r), " if sig.ret else ""
        lines.append(f"  call {rets}{sig.name}, ({', '.join(names)});")
        if sig.ret:
            lines += ["  ld.param.b32 %w, [q_r];", f"  xor.b32 {g.reg()}, {g.reg()}, %w;"]
        lines += ["  }", "$Lnorec:"]
    if sig.ret:
        lines.append("  cvt.rzi.s32.f32 %w, %f0;")
        lines.append("  xor.b32 %r0, %r0, %w;")
        lines.append("  cvt.u32.u64 %w, %rd1;")
        lines.append("  add.u32 %r0, %r0, %w;")
        lines.append("  selp.u32 %w, 7, 0, %p1;")
        lines.append("  xor.b32 %r0, %r0, %w;")
        for i in range(1, NR):
            lines.append(f"  xor.b32 %r0, %r0, %r{i};")
        lines.append(f"  st.param.b32 [{sig.name}_ret], %r0;")
    lines += ["  ret;", "}", ""]
    return "\n".join(lines)


def _emit(stmts: list[Stmt], out: list[str], depth: int) -> None:
    for s in stmts:
        if s.kind == "ins":
            out.extend("  " + x for x in s.lines)
        elif s.kind == "if":
            out.append("  " + s.cond.replace(";", "").strip() + ";")
            p = s.cond.split()[1].rstrip(",")
            out.append(f"  @{p} bra $Lelse{s.uid};")
            _emit(s.body, out, depth + 1)
            out.append(f"  bra $Lend{s.uid};")
            out.append(f"$Lelse{s.uid}:")
            _emit(s.other, out, depth + 1)
            out.append(f"$Lend{s.uid}:")
        elif s.kind == "loop":
            out.append("  " + s.cond.format(d=depth))
            out.append(f"$Lloop{s.uid}:")
            _emit(s.body, out, depth + 1)
            out.append(f"  sub.u32 %lc{depth}, %lc{depth}, 1;")
            out.append(f"  setp.ne.u32 %lp{depth}, %lc{depth}, 0;")
            out.append(f"  @%lp{depth} bra $Lloop{s.uid};")
        elif s.kind == "xchg":
            # every thread publishes %r0 and reads its neighbour's (uniform control flow only)
            out.extend(
                [
                    "  st.shared.u32 [%sa], %r0;",
                    "  bar.sync 0;",
                    "  ld.shared.u32 %r0, [%sb];",
                    "  bar.sync 0;",
                ]
            )


def render(prog: Program) -> str:
    sh = prog.shape
    body: list[str] = []
    _emit(prog.stmts, body, 0)
    lines = [
        ".version 9.0",
        ".target sm_90",
        ".address_size 64",
        *prog.funcs,
        ".visible .entry fuzz(.param .u64 out, .param .u64 inp)",
        "{",
        "  .reg .b64 %fp;",
        f"  .reg .b32 %r<{sh.nr}>;",
        f"  .reg .f32 %f<{sh.nf}>;",
        f"  .reg .b64 %rd<{sh.nd}>;",
        f"  .reg .pred %p<{sh.np}>;",
        "  .reg .b32 %t<2>;",
        "  .reg .b32 %lc<3>;",
        "  .reg .pred %lp<3>;",
        "  .reg .b32 %tx, %sa, %sb, %w;",
        "  .reg .b64 %pin, %pout, %off;",
        f"  .shared .align 4 .b32 xbuf[{NTHREADS}];",
        "  ld.param.u64 %pout, [out];",
        "  ld.param.u64 %pin, [inp];",
        "  cvta.to.global.u64 %pout, %pout;",
        "  cvta.to.global.u64 %pin, %pin;",
        "  mov.u32 %tx, %tid.x;",
        f"  mul.wide.u32 %off, %tx, {4 * sh.nin};",
        "  add.s64 %pin, %pin, %off;",
        f"  mul.wide.u32 %off, %tx, {4 * sh.nin};",
        "  add.s64 %pout, %pout, %off;",
        "  mov.u32 %sa, xbuf;",
        "  shl.b32 %w, %tx, 2;",
        "  add.u32 %sa, %sa, %w;",
        "  add.u32 %w, %tx, 1;",
        f"  and.b32 %w, %w, {NTHREADS - 1};",
        "  shl.b32 %w, %w, 2;",
        "  mov.u32 %sb, xbuf;",
        "  add.u32 %sb, %sb, %w;",
    ]
    for i in range(sh.nr):
        lines.append(f"  ld.global.u32 %r{i}, [%pin+{4 * i}];")
    for i in range(sh.nf):
        lines.append(f"  ld.global.f32 %f{i}, [%pin+{4 * (sh.fbase + i)}];")
    for i in range(sh.nd):
        lines.append(f"  ld.global.u64 %rd{i}, [%pin+{4 * (sh.dbase + 2 * i)}];")
    for i in range(sh.np):
        lines.append(f"  ld.global.u32 %w, [%pin+{4 * (sh.pbase + i)}];")
        lines.append(f"  setp.ne.u32 %p{i}, %w, {i + 1};")  # differs between threads
    lines.extend(body)
    for i in range(sh.nr):
        lines.append(f"  st.global.u32 [%pout+{4 * i}], %r{i};")
    for i in range(sh.nf):
        lines.append(f"  st.global.f32 [%pout+{4 * (sh.fbase + i)}], %f{i};")
    for i in range(sh.nd):
        lines.append(f"  st.global.u64 [%pout+{4 * (sh.dbase + 2 * i)}], %rd{i};")
    for i in range(sh.np):
        lines.append(f"  selp.u32 %w, 1, 0, %p{i};")
        lines.append(f"  st.global.u32 [%pout+{4 * (sh.pbase + i)}], %w;")
    lines += ["  ret;", "}", ""]
    return "\n".join(lines)


def spec(prog: Program) -> dict[str, Any]:
    return _spec(prog.inputs, prog.shape.nin)


def _spec(inputs: np.ndarray[Any, Any], nout: int) -> dict[str, Any]:
    return {
        "kernel": "fuzz",
        "grid": [1, 1, 1],
        "block": [NTHREADS, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": NTHREADS * nout, "init": "zeros"},
            {
                "kind": "buffer",
                "dtype": "u32",
                "count": inputs.size,
                "init": {"hex": inputs.astype("<u4").tobytes().hex()},
            },
        ],
    }


def inputs_for(seed: int, words: int) -> np.ndarray[Any, Any]:
    """``words`` input words per thread: random, 30% of them special values (zero, one, all
    ones, the extreme integers, infinities, NaNs, subnormals, float powers of two)."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 1 << 32, size=NTHREADS * words, dtype=np.uint64).astype(np.uint32)
    special = np.array(SPECIAL, dtype=np.uint32)
    pick = rng.random(w.size) < 0.3
    w[pick] = special[rng.integers(0, special.size, size=int(pick.sum()))]
    return w


@dataclass
class Result:
    status: str  # ok | mismatch | ptxas-disagrees | hazard | ours-error | ptxas-error | emu-error
    detail: str = ""


def check(prog: Program, opt_levels: tuple[int, ...] = (3,), oracle: Any = None) -> Result:
    """Compile with ptxas and openptxas (each -O level), run both in the emulator, compare."""
    sh = prog.shape
    nan_ok = np.zeros((NTHREADS, sh.nin), dtype=bool)
    nan_ok[:, sh.fbase : sh.fbase + sh.nf] = True
    return check_ptx(
        render(prog), prog.inputs, sh.nin, opt_levels, oracle, nan_ok.reshape(-1), sh.maxrreg
    )


# Stack beyond the kernel's frame for both compilers' code (CUDA's default limit is 1 KiB): the
# comparison is of values; where recursion nests (--recursion: up to 12 activations), ours,
# whose recursive frames keep more values than ptxas's, ran out of the default where ptxas's
# did not (seeds 171005, 175112: the frames are a code-quality gap, docs/difffuzz.md)
STACK = 16384


def check_ptx(
    ptx: str,
    inputs: np.ndarray[Any, Any],
    nout: int,
    opt_levels: tuple[int, ...] = (3,),
    oracle: Any = None,
    nan_ok: np.ndarray[Any, Any] | None = None,
    maxrreg: int | None = None,
) -> Result:
    """``check`` for any kernel of the fuzzer's interface: ``fuzz(out, inp)`` launched as one CTA
    of NTHREADS threads, ``nout`` output words per thread; words marked in ``nan_ok`` compare
    equal when both are f32 NaNs; ``maxrreg``: both compile under that ``-maxrregcount``."""
    from openptxas.diag import OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options
    from openptxas.testing.oracle import Oracle, OracleError

    sp = _spec(inputs, nout)
    orc = oracle or Oracle()
    flags = [f"-maxrregcount={maxrreg}"] if maxrreg is not None else []
    wants: dict[bool, Any] = {}

    def want_of(o0: bool) -> Result | None:
        # ptxas at -O0 for our -O0 (neither contracts a mul and an add into an FMA, which PTX
        # leaves to the compiler: seed 91289's f1 = f2*f1 + f2 differed by 1 ulp from ptxas's
        # -O3), at its default for the optimising levels
        if o0 in wants:
            return None
        try:
            theirs = orc.ptxas(ptx, "sm_90", [*flags, "-O0"] if o0 else flags).cubin
        except OracleError as e:
            return Result("ptxas-error", str(e))
        try:
            wants[o0] = run_launch(theirs, sp, stack_limit=STACK).outputs[0]
        except Exception as e:  # the emulator on ptxas's code: not our compiler's fault
            return Result("emu-error", f"ptxas cubin: {e}")
        return None

    def differ_of(got: Any, want: Any) -> Any:
        differ = got != want
        if nan_ok is not None:
            differ &= ~(nan_ok & _is_nan32(got) & _is_nan32(want))
        return differ

    for opt in opt_levels:
        if (err := want_of(opt == 0)) is not None:
            return err
    for opt in opt_levels:
        want = wants[opt == 0]
        try:
            o = Options(arch="sm_90", opt_level=opt, verify=True, maxrregcount=maxrreg)
            ours = compile_ptx(ptx, o, "f.ptx")
        except OpenPtxasError as e:
            return Result("ours-error", f"-O{opt}: {e}")
        except Exception as e:  # an internal error is a finding too
            return Result("ours-error", f"-O{opt}: internal {type(e).__name__}: {e}")
        try:
            res = run_launch(ours.cubin, sp, hazards=True, stack_limit=STACK)
        except Exception as e:
            return Result("mismatch", f"-O{opt}: our cubin fails in the emulator: {e}")
        got = res.outputs[0]
        differ = differ_of(got, want)
        if differ.any():
            bad = np.flatnonzero(differ)
            i = int(bad[0])
            detail = (
                f"-O{opt}: {bad.size} words differ; first: thread {i // nout} word {i % nout}: "
                f"ours {int(got[i]):#x} ptxas {int(want[i]):#x}"
            )
            # ptxas's optimised code against its own -O0 code: where ours equals every word of
            # ptxas -O0, the two ptxas levels disagree and ours sides with the unoptimised one
            # (seed 121826: ptxas -O3 folds neg.ftz into an FSETP without .FTZ, so a negated
            # subnormal compares below +0 in the branch while the stored predicate, computed
            # with .FTZ, says the branch was taken). Reported apart from mismatches; a missed
            # contraction (ours unfused where ptxas -O3 fuses) shows up here too, so each one
            # is still read.
            if opt != 0 and want_of(True) is None and not differ_of(got, wants[True]).any():
                return Result("ptxas-disagrees", f"{detail}; ours equals ptxas -O0 everywhere")
            return Result("mismatch", detail)
        if res.hazards:
            return Result("hazard", f"-O{opt}: {res.hazards[0]}")
    return Result("ok")


def _is_nan32(w: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Words that are f32 NaNs. PTX leaves NaN payloads unspecified, and ptxas's code keeps or
    drops them depending on its instruction choice (``FSEL |x|`` after if-conversion keeps
    one, ``FADD |x|, -RZ`` does not; ``max x, x`` is folded to ``x``): two NaNs compare equal."""
    nan: np.ndarray[Any, Any] = ((w & 0x7F800000) == 0x7F800000) & ((w & 0x007FFFFF) != 0)
    return nan


def _count(stmts: list[Stmt]) -> int:
    return sum(1 + _count(s.body) + _count(s.other) for s in stmts)


def _variants(stmts: list[Stmt]) -> list[list[Stmt]]:
    """Every list obtained by deleting one statement, or flattening one compound, anywhere.
    A statement's lines stay together: a division's divisor set-up must not lose its
    ``or 1``."""
    out: list[list[Stmt]] = []
    for i, s in enumerate(stmts):
        out.append(stmts[:i] + stmts[i + 1 :])
        if s.kind in ("if", "loop"):
            out.append(stmts[:i] + s.body + s.other + stmts[i + 1 :])
        for sub in _variants(s.body):
            out.append([*stmts[:i], replace(s, body=sub), *stmts[i + 1 :]])
        for sub in _variants(s.other):
            out.append([*stmts[:i], replace(s, other=sub), *stmts[i + 1 :]])
    return out


def reduce_program(prog: Program, failing: Callable[[Program], bool], budget: int = 400) -> Program:
    """Greedy delta reduction: delete statements (and flatten compounds) while ``failing``
    still holds, until no single deletion keeps it failing or ``budget`` checks are spent."""
    cur = prog
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for cand in sorted(_variants(cur.stmts), key=_count):
            tries += 1
            p = replace(cur, stmts=cand)
            if failing(p):
                cur = p
                changed = True
                break
            if tries >= budget:
                break
    return cur
