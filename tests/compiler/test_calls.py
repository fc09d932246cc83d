"""Device-function calls (whole program, lower/calls.py) and kernel parameters whose address is
taken: our cubin computes what ptxas's computes in the emulator with the hazard checker on
(-O3, -O0); the ``-v`` report has ptxas's stack figures and a "Function properties" block per
device function; the cubin names the subroutines as ptxas does; recursion and indirect calls are
refused with a diagnostic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

DATA = Path(__file__).parent / "data"
CALLS = (DATA / "calls.ptx").read_text()
PARAM_ADDR = (DATA / "param_address.ptx").read_text()
N = 64


def _calls_spec() -> dict[str, object]:
    return {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": N * 4, "init": "random", "seed": 7},
            {"kind": "buffer", "dtype": "u32", "count": N * 12, "init": "zeros"},
        ],
    }


@pytest.mark.parametrize("opt", [3, 0])
def test_calls_same_as_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    spec = _calls_spec()
    want = run_launch(oracle.ptxas(CALLS, "sm_90").cubin, spec).outputs[1]
    got = run_ours(CALLS, spec, opt).outputs[1]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]
    out = got.reshape(N, 12)
    inp = run_launch(oracle.ptxas(CALLS, "sm_90").cubin, spec).outputs[0].reshape(N, 4)
    # leaf(a, b) = a * b ^ a, the first result
    a, b = inp[:, 0].astype(np.uint64), inp[:, 1].astype(np.uint64)
    assert np.array_equal(out[:, 0], ((a * b) & 0xFFFFFFFF).astype(np.uint32) ^ inp[:, 0])


@pytest.mark.parametrize("opt", [3, 0])
def test_param_address_same_as_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    struct = np.arange(16, dtype="<f4").tobytes().hex()
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [32, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 128, "init": "zeros"},
            {"kind": "bytes", "size": 64, "align": 4, "init": {"hex": struct}},
            {"kind": "scalar", "dtype": "u32", "init": 5},
        ],
    }
    want = run_launch(oracle.ptxas(PARAM_ADDR, "sm_90").cubin, spec).outputs[0]
    got = run_ours(PARAM_ADDR, spec, opt).outputs[0]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]
    out = got.reshape(32, 4)
    # the generic load through cvta.param reads the struct's words
    assert np.array_equal(out[:, 0].view(np.float32), np.arange(32) % 16)


def test_verbose_and_subroutines_as_ptxas(oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.elf.describe import describe
    from openptxas.elf.reader import read_cubin
    from openptxas.options import Options

    ref = oracle.ptxas(CALLS, "sm_90", ["-v"])
    ours = compile_ptx(CALLS, Options(arch="sm_90", verbose=True), "k.ptx")

    def lines(text: str) -> list[str]:
        keep = [ln for ln in text.splitlines() if "Compile time" not in ln]
        # register counts differ (allocation); the stack figures and the blocks must not
        return [ln.split(", used")[0] if "Used" in ln else ln for ln in keep]

    want = [ln for ln in lines(ref.log) if "Used" not in ln]
    got = [ln for ln in lines(ours.verbose_report()) if "Used" not in ln]
    assert got == want
    assert "136 bytes cumulative stack size" in ours.verbose_report()
    f = describe(read_cubin(ours.cubin)).functions[0]
    r = describe(read_cubin(ref.cubin)).functions[0]
    assert (f.frame_size, f.min_stack) == (r.frame_size, r.min_stack) == (136, 136)
    assert [s.name for s in f.subroutines] == [s.name for s in r.subroutines]
    assert [s.frame_size for s in f.subroutines] == [s.frame_size for s in r.subroutines]


def test_uncalled_function_has_no_verbose_block(oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = CALLS.replace(
        ".visible .entry k(", ".func unused(.param .b32 q)\n{\n\tret;\n}\n.visible .entry k("
    )
    ref = oracle.ptxas(ptx, "sm_90", ["-v"]).log
    ours = compile_ptx(ptx, Options(arch="sm_90", verbose=True), "k.ptx").verbose_report()
    assert "Function properties for unused" not in ref
    assert ours.count("Function properties for") == ref.count("Function properties for") == 7


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("call.uni (retval0), leaf, (param0, param1);\n\tld.param.b32 	%r2",
             "call.uni (retval0), chain, (param0);\n\tld.param.b32 	%r2"),
            "recursive call of 'chain'",
        ),
    ],
)  # fmt: skip
def test_recursion_compiles(edit: tuple[str, str], message: str) -> None:
    """A function calling itself (refused before lower/recursion.py): it compiles, and its
    -v block shows the frame its saves take."""
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    old, new = edit
    assert old in CALLS
    ptx = CALLS.replace(old, new, 1).replace(
        "st.param.b32 	[param1+0], 7;\n\t.param .b32 retval0;\n\tcall.uni (retval0), chain",
        ".param .b32 retval0;\n\tcall.uni (retval0), chain",
    )
    assert message in "recursive call of 'chain'"
    rep = compile_ptx(ptx, Options(arch="sm_90", verbose=True), "k.ptx").verbose_report()
    block = rep.split("Function properties for chain\n")[1].splitlines()[0]
    assert int(block.split()[0]) > 0, block


@pytest.mark.parametrize("opt", [3, 0])
def test_indirect_call_same_as_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """A call through a function's address (``mov.u64 %rd, scale``; ``call %rd, (..), proto``):
    the address is the subroutine's code offset, ``CALL.REL.NOINC Rf `(k)``."""
    need_tools("ptxas")
    from openptxas.emu import run_launch

    ptx = CALLS.replace(
        "\t{\n\t.param .b64 param0;\n\tst.param.b64 	[param0+0], %rd10;\n"
        "\tcall.uni scale, (param0);",
        "\t{\n\tproto_0 : .callprototype ()_ (.param .b64 _);\n\tmov.u64 	%rd19, scale;\n"
        "\t.param .b64 param0;\n\tst.param.b64 	[param0+0], %rd10;\n"
        "\tcall %rd19, (param0), proto_0;",
    )
    assert ptx != CALLS
    spec = _calls_spec()
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec).outputs[1]
    got = run_ours(ptx, spec, opt).outputs[1]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]


@pytest.mark.parametrize("opt", [3, 0])
def test_guarded_return_same_as_ptxas(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.emu import run_launch

    ptx = (DATA / "call_early_ret.ptx").read_text()
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [N, 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": N, "init": "random", "seed": 3}],
    }
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec).outputs[0]
    got = run_ours(ptx, spec, opt).outputs[0]
    assert np.array_equal(got, want), np.nonzero(got != want)[0][:10]


def test_no_uniform_register_kept_across_a_call_that_a_callee_writes() -> None:
    """Our t2/recursion kernel once kept its pointer parameters in UR6-UR9 across its calls
    (subtree_sum() writes UR6 and UR7): right in the emulator, an illegal address on an H200
    (2026-11-28); the same code with them in R ran right (uniform_regs._live_across_calls says
    why we think so). Parameters live across a call of a device function stay in R, as ptxas
    keeps them; only registers no callee writes (the memory descriptor) are read after a call."""
    need_tools("nvcc", "ptxas")
    from openptxas.emu.decode import isa_decoder
    from openptxas.emu.model import Label, Reg
    from openptxas.emu.program import load_module
    from openptxas.testing.corpus import discover
    from tests.emu.harness import compile_ours

    ks = next(k for k in discover() if k.name == "t2/recursion")
    mod = load_module(compile_ours(ks), isa_decoder("sm90"))
    code = sorted(mod.instructions(mod.kernels["recursion"]).items())
    entries = {o.target for _pc, i in code if i.opcode == "CALL" for o in i.operands
               if isinstance(o, Label)}  # fmt: skip
    first_call = min(pc for pc, i in code if i.opcode == "CALL")
    start = min(entries)

    def urs(ops: list[object]) -> set[int]:
        return {o.index for o in ops if isinstance(o, Reg) and o.file == "UR" and not o.is_zero}

    written = set().union(*(urs(i.operands[:1]) for pc, i in code if pc >= start))
    read_after = set().union(*(urs(i.operands[1:]) for pc, i in code if first_call < pc < start))
    assert written and not read_after & written, (read_after, written)
