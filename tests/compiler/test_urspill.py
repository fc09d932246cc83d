"""Uniform-register spilling (regalloc/urspill.py): a kernel keeping 80 uniform values (kernel
parameters mixed with constants, each read once by per-thread arithmetic at the end) live at
once, more than UR0-UR62 hold. The spilled ones live in R registers (``MOV R, UR`` after the
definition, ``R2UR`` before each use), which may spill to local memory in turn
(``-maxrregcount 32``). Ours and ptxas's cubins, run in the emulator, give the same words, and
our code is free of hazards."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import need_tools

N = 80


def kernel(n: int = N) -> str:
    params = ", ".join([".param .u64 po"] + [f".param .u32 a{i}" for i in range(n)])
    lines = [
        ".version 8.8",
        ".target sm_90",
        ".address_size 64",
        f".visible .entry k({params})",
        "{",
        f"  .reg .b32 %u<{n}>;",
        f"  .reg .b32 %v<{n}>;",
        f"  .reg .b32 %t<{2 * n + 1}>;",
        "  .reg .b32 %x;",
        "  .reg .b64 %o, %w;",
        "  ld.param.u64 %o, [po];",
        "  cvta.to.global.u64 %o, %o;",
        "  mov.u32 %x, %tid.x;",
    ]
    lines += [f"  ld.param.u32 %u{i}, [a{i}];" for i in range(n)]
    lines += [f"  xor.b32 %v{i}, %u{i}, {i * 2654435761 % 2**32};" for i in range(n)]
    lines.append("  mov.u32 %t0, %x;")
    for i in range(n):
        lines.append(f"  add.u32 %t{2 * i + 1}, %t{2 * i}, %v{i};")
        lines.append(f"  shf.l.wrap.b32 %t{2 * i + 2}, %t{2 * i + 1}, %t{2 * i + 1}, 3;")
    lines += [
        "  mul.wide.u32 %w, %x, 4;",
        "  add.s64 %o, %o, %w;",
        f"  st.global.u32 [%o], %t{2 * n};",
        "  ret;",
        "}",
        "",
    ]
    return "\n".join(lines)


def _spec() -> dict[str, object]:
    rng = np.random.default_rng(5)
    scalars = [
        {"kind": "scalar", "dtype": "u32", "init": int(x)} for x in rng.integers(0, 2**32, N)
    ]
    out = {"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros"}
    return {"kernel": "k", "grid": [1, 1, 1], "block": [64, 1, 1], "args": [out, *scalars]}


@pytest.mark.parametrize("maxrreg", [None, 32])
@pytest.mark.parametrize("opt", [3, 0])
def test_uniform_spills_equal_ptxas(opt: int, maxrreg: int | None, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options
    from openptxas.tools.sass_cli import disassemble_cubin

    ptx = kernel()
    flags = [f"-maxrregcount={maxrreg}"] if maxrreg else []
    want = run_launch(oracle.ptxas(ptx, "sm_90", flags).cubin, _spec()).outputs[0]
    opts = Options(arch="sm_90", opt_level=opt, verify=True, maxrregcount=maxrreg)
    ours = compile_ptx(ptx, opts, "k.ptx")
    res = run_launch(ours.cubin, _spec(), hazards=True)
    assert not res.hazards, res.hazards[:3]
    assert np.array_equal(res.outputs[0], want)
    _, sections = disassemble_cubin(ours.cubin)
    ops = [getattr(i, "opcode", None) for s in sections for i in s.items]
    # at -O3 uniform values went through R registers (-O0 keeps them in R: no conversion)
    assert ("R2UR" in ops) == (opt == 3)
    if maxrreg:
        f = ours.functions[0]
        assert f.registers <= maxrreg and f.spill_stores > 0


def divergent_kernel(n: int = 90) -> str:
    """``n`` parameters, every one read inside a divergent region (``tid < 7``) and half of them
    after it: a uniform register is live over a whole divergent region, so the region holds
    them all at once."""
    params = ",".join([".param .u64 out"] + [f".param .u32 a{i}" for i in range(n)])
    body = [f".reg .b32 %r<{n}>; .reg .b32 %s<4>; .reg .pred %p<2>; .reg .b64 %rd<4>;",
            "ld.param.u64 %rd0, [out]; cvta.to.global.u64 %rd0, %rd0;"]  # fmt: skip
    body += [f"ld.param.u32 %r{i}, [a{i}];" for i in range(n)]
    body += ["mov.u32 %s0, %tid.x; mov.u32 %s1, 0; mul.wide.u32 %rd1, %s0, 4;",
             "add.s64 %rd2, %rd0, %rd1; setp.lt.u32 %p0, %s0, 7; @!%p0 bra SKIP;",
             "ld.global.u32 %s2, [%rd2];"]  # fmt: skip
    body += [f"xor.b32 %s1, %s1, %r{i}; add.s32 %s1, %s1, %s2; shl.b32 %s2, %s2, 1;"
             for i in range(n)]  # fmt: skip
    body += ["SKIP:", *(f"add.s32 %s1, %s1, %r{i};" for i in range(0, n, 2))]
    body += ["st.global.u32 [%rd2], %s1; ret;"]
    head = ".version 8.8\n.target sm_90\n.address_size 64\n"
    return head + f".visible .entry k({params})\n{{\n" + "\n".join(body) + "\n}\n"


@pytest.mark.parametrize("opt", [3, 0])
def test_uniform_values_in_a_divergent_region(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """Was "too many UR registers live at once" (MonteCarloMultiGPU, rodinia rdwt53/97): each
    use of a spilled UR got an R2UR copy of its own, and in a divergent region those were all
    live at once. Vector instructions now read the R copy itself."""
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.emu import run_launch
    from openptxas.options import Options

    n = 90
    rng = np.random.default_rng(5)
    spec = {
        "kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": 32, "init": "random"},
                 *({"kind": "scalar", "dtype": "u32", "init": int(x)}
                   for x in rng.integers(0, 2**32, n))],
    }  # fmt: skip
    ptx = divergent_kernel(n)
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec).outputs[0]
    ours = compile_ptx(ptx, Options(arch="sm_90", opt_level=opt, verify=True), "k.ptx")
    res = run_launch(ours.cubin, spec, hazards=True)
    assert not res.hazards, res.hazards[:3]
    assert np.array_equal(res.outputs[0], want)
