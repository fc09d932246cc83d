"""Spilling (openptxas/regalloc/spill.py) and register budgets (regalloc/budget.py): small
high-pressure kernels compiled by openptxas and by ptxas under several ``-maxrregcount`` values
(and ``.maxnreg``, ``.maxntid``/``.minnctapersm``), both run in the emulator, every output word
equal and our code free of hazards; and the ``-v`` text (register counts, the override notes,
``--warn-on-spills`` and ``--warn-on-local-memory-usage``) equal to ptxas's line for line, the
spill and frame byte counts aside (our choice of what to spill is our own)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from openptxas.testing.difffuzz import NTHREADS, check_ptx, inputs_for
from tests.conftest import need_tools

HEAD = ".version 8.8\n.target sm_90\n.address_size 64\n"


def _kernel(body: list[str], n: int, decls: str = "", directives: str = "") -> str:
    """``fuzz(out, inp)`` (the fuzzer's interface): each thread loads ``n`` words into
    %r0..%r{n-1}, runs ``body`` and stores %r0..%r{n-1}."""
    lines = [
        HEAD + f".visible .entry fuzz(.param .u64 out, .param .u64 inp) {directives}",
        "{",
        f"  .reg .b32 %r<{n}>;",
        "  .reg .b32 %tx, %t, %u;",
        "  .reg .b64 %pin, %pout, %off, %d<8>;",
        "  .reg .f32 %f<8>;",
        "  .reg .pred %p<12>;",
        decls,
        "  ld.param.u64 %pout, [out];",
        "  ld.param.u64 %pin, [inp];",
        "  cvta.to.global.u64 %pout, %pout;",
        "  cvta.to.global.u64 %pin, %pin;",
        "  mov.u32 %tx, %tid.x;",
        f"  mul.wide.u32 %off, %tx, {4 * n};",
        "  add.s64 %pin, %pin, %off;",
        "  add.s64 %pout, %pout, %off;",
    ]
    lines += [f"  ld.global.u32 %r{j}, [%pin+{4 * j}];" for j in range(n)]
    lines += ["  " + b for b in body]
    lines += [f"  st.global.u32 [%pout+{4 * j}], %r{j};" for j in range(n)]
    lines += ["  ret;", "}", ""]
    return "\n".join(lines)


def network(n: int = 40, rounds: int = 2) -> str:
    """Every value mixed with two others, ``rounds`` times: all ``n`` live throughout."""
    body = []
    for r in range(rounds):
        for j in range(n):
            a, b = (j + 3 + r) % n, (j + 17) % n
            body.append(f"shf.l.wrap.b32 %t, %r{a}, %r{a}, {j % 31 + 1};")
            body.append(f"xor.b32 %t, %t, %r{j};")
            body.append(f"mad.lo.u32 %r{j}, %r{b}, -1640531535, %t;")
    return _kernel(body, n)


def wide(n: int = 24) -> str:
    """64-bit and f32 values among the live ones (pairs spill with STL.64)."""
    body = []
    for k in range(8):
        body.append(f"mov.b64 %d{k}, {{%r{2 * k}, %r{2 * k + 1}}};")
    for j in range(n):
        body.append(f"mad.lo.u32 %r{j}, %r{j}, %r{(j + 5) % n}, %r{(j + 11) % n};")
    for k in range(8):
        body.append(f"mul.lo.u64 %d{k}, %d{k}, %d{(k + 3) % 8};")
        body.append(f"xor.b64 %d{k}, %d{k}, %d{(k + 1) % 8};")
    for k in range(8):
        body.append(f"mov.b64 {{%t, %u}}, %d{k};")
        body.append(f"add.u32 %r{k}, %r{k}, %t;")
        body.append(f"xor.b32 %r{k + 8}, %r{k + 8}, %u;")
    return _kernel(body, n)


def loop(n: int = 36) -> str:
    """Values live across a loop whose trip count differs between threads."""
    body = [
        "and.b32 %u, %r0, 7;",
        "add.u32 %u, %u, 1;",
        "$Lloop:",
    ]
    for j in range(n):
        body.append(f"add.u32 %r{j}, %r{j}, %r{(j + 1) % n};")
    body += [
        "sub.u32 %u, %u, 1;",
        "setp.ne.u32 %p0, %u, 0;",
        "@%p0 bra $Lloop;",
    ]
    return _kernel(body, n)


def guarded(n: int = 36) -> str:
    """Predicated definitions of spilled values and more predicates live than P0-P6."""
    body = []
    for k in range(10):
        body.append(f"setp.lt.u32 %p{k}, %r{k}, %r{k + 10};")
    for j in range(n):
        p = j % 10
        body.append(f"@%p{p} mad.lo.u32 %r{j}, %r{j}, %r{(j + 7) % n}, {j + 1};")
        body.append(f"@!%p{(p + 3) % 10} xor.b32 %r{(j + 2) % n}, %r{(j + 2) % n}, %r{j};")
    for k in range(10):
        body.append(f"selp.u32 %t, 1, 0, %p{k};")
        body.append(f"add.u32 %r{k}, %r{k}, %t;")
    return _kernel(body, n)


def vector(n: int = 32) -> str:
    """Quad registers: v4 loads of the same words kept live beside the others."""
    body = [
        "ld.global.v4.u32 {%t, %u, %r30, %r31}, [%pin];",
    ]
    for j in range(n - 2):
        body.append(f"mad.lo.u32 %r{j}, %r{j}, %r{(j + 9) % (n - 2)}, %t;")
        body.append(f"xor.b32 %r{j}, %r{j}, %u;")
    return _kernel(body, n)


KERNELS = {"network": network, "wide": wide, "loop": loop, "guarded": guarded, "vector": vector}


@pytest.mark.parametrize("maxrreg", [16, 24, 32])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_spilling_kernels_equal_ptxas(name: str, maxrreg: int, oracle) -> None:
    need_tools("ptxas")
    ptx = KERNELS[name]()
    n = int(re.search(r"\.reg \.b32 %r<(\d+)>", ptx).group(1))  # type: ignore[union-attr]
    r = check_ptx(ptx, inputs_for(7, n), n, (3, 0), oracle, None, maxrreg)
    assert r.status == "ok", f"{name} -maxrregcount={maxrreg}: {r.status}: {r.detail}"


def test_spills_happen_and_stay_within_budget() -> None:
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    for maxrreg in (24, 32):
        res = compile_ptx(network(), Options(arch="sm_90", maxrregcount=maxrreg), "n.ptx")
        f = res.functions[0]
        assert f.registers == maxrreg
        assert f.spill_stores > 0 and f.spill_loads > 0 and f.stack_frame > 0
        assert f.stack_frame % 8 == 0
    free = compile_ptx(network(), Options(arch="sm_90"), "n.ptx").functions[0]
    assert free.spill_stores == free.spill_loads == free.stack_frame == 0


# -v text: ours equals ptxas's with the spill and frame bytes replaced by N
_BYTES = re.compile(r"\d+ bytes (stack frame|spill stores|spill loads|cumulative stack size)")


def _normal(text: str) -> list[str]:
    out = []
    for ln in text.splitlines():
        if "Compile time" in ln or not ln.strip():
            continue
        ln = re.sub(r"ptxas \S+\.ptx, line", "ptxas F, line", ln)
        ln = re.sub(r"size of stack frame: \d+ bytes", "size of stack frame: N bytes", ln)
        out.append(_BYTES.sub(lambda m: "N bytes " + m.group(1), ln))
    return out


def _ours_text(ptx: str, flags: list[str]) -> str:
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args

    opts = parse_args([*flags, "-arch=sm_90", "-v", "x.ptx"]).options
    res = compile_ptx(ptx, opts, "x.ptx")
    return "\n".join(d.render() for d in res.diagnostics) + "\n" + res.verbose_report()


# (directives, flags, live values): enough live values that the budget binds, so that both
# compilers use all of it; under a budget of 255 only the note is compared (the counts are the
# allocators' own)
VTEXT = [
    ("", ["-maxrregcount=32"], 48),
    ("", ["-maxrregcount=16", "--warn-on-spills"], 48),
    ("", ["-maxrregcount=40", "--warn-on-spills", "--warn-on-local-memory-usage"], 48),
    (".maxnreg 17", ["-maxrregcount=30", "--warn-on-spills", "--warn-on-local-memory-usage"], 48),
    (".maxnreg 40", ["-maxrregcount=40"], 48),
    (".maxntid 1024, 1, 1 .minnctapersm 2", ["-maxrregcount=40"], 48),
    (".maxntid 1024, 1, 1", ["-maxrregcount=24"], 80),
    (".maxntid 256, 1, 1 .minnctapersm 1", ["-maxrregcount=40"], 0),
    (".reqntid 128, 1, 1 .minnctapersm 6", [], 96),
    (".maxntid 1024, 1, 1 .minnctapersm 2 .maxnreg 48", [], 48),
]


@pytest.mark.parametrize(("directives", "flags", "live"), VTEXT)
def test_verbose_text_equals_ptxas(directives: str, flags: list[str], live: int, oracle) -> None:
    need_tools("ptxas")
    ptx = network(live or 40, 1).replace("inp) ", f"inp) {directives}")
    theirs = _normal(oracle.ptxas(ptx, "sm_90", flags).log)
    ours = _normal(_ours_text(ptx, flags))
    if not live:
        used = re.compile(r"Used \d+ registers")
        theirs = [used.sub("Used N registers", ln) for ln in theirs]
        ours = [used.sub("Used N registers", ln) for ln in ours]
    assert ours == theirs


def test_warnings_without_verbose() -> None:
    """Without -v the spill warnings still print (after the other diagnostics)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "n.ptx"
        p.write_text(network(40, 1))
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from openptxas.cli import main; sys.exit(main())",
                "-arch=sm_90",
                "-maxrregcount=24",
                "--warn-on-spills",
                str(p),
                "-o",
                str(Path(d) / "n.cubin"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(
        r"ptxas warning : Registers are spilled to local memory in function 'fuzz', "
        r"\d+ bytes spill stores, \d+ bytes spill loads\n",
        r.stderr,
    ), r.stderr


def test_inputs_shape() -> None:
    assert inputs_for(7, 40).size == NTHREADS * 40
    assert np.any(inputs_for(7, 40))


def test_dead_spill_stores() -> None:
    """A spill store is dropped only where the block stores all its bytes again before
    anything may read them (regalloc/spill.py ``dead_spill_stores``)."""
    from openptxas.ir.core import RC, RZ, Addr, Imm, Instr, Label, Reg, VReg
    from openptxas.regalloc.spill import dead_spill_stores

    sp = Reg(RC.R, 1)
    t = [VReg(RC.R, i) for i in range(4)]

    def stl(off: int, k: int, mods: tuple[str, ...] = ()) -> Instr:
        return Instr("STL", mods, [], [Addr(sp, off), t[k]])

    def run(instrs: list[Instr], mine: list[Instr]) -> tuple[list[int], int]:
        kept, dropped = dead_spill_stores(instrs, {id(i) for i in mine}, sp)
        return [instrs.index(i) for i in kept], dropped

    a, b = stl(8, 0), stl(8, 1)
    assert run([a, b], [a, b]) == ([1], 4)  # stored again, never read in between
    load = Instr("LDL", (), [t[2]], [Addr(sp, 8)])
    assert run([a, load, b], [a, b]) == ([0, 1, 2], 0)  # read in between
    other = Instr("LDL", (), [t[2]], [Addr(sp, 12)])
    assert run([a, other, b], [a, b]) == ([1, 2], 4)  # another slot's load
    call = Instr("CALL", ("REL", "NOINC"), [], [Label("f"), Label("r")])
    assert run([a, call, b], [a, b]) == ([0, 1, 2], 0)  # a subroutine may read the slot
    exit_ = Instr("BRA", (), [], [Label("elsewhere")])
    assert run([a, exit_, b], [a, b]) == ([0, 1, 2], 0)  # code elsewhere may read it
    lower = Instr("IADD3", (), [sp], [sp, Imm((-16) & 0xFFFFFFFF), RZ])
    assert run([a, lower, b], [a, b]) == ([0, 1, 2], 0)  # the offsets move
    assert run([a, b], [b]) == ([0, 1], 0)  # not a spill store
    wide = stl(8, 0, ("64",))
    assert run([wide, b], [wide, b]) == ([0, 1], 0)  # only half of it stored again
    assert run([b, wide], [b, wide]) == ([1], 4)  # all of it
