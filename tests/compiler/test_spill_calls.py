"""Spilling across calls (issue 18): values live across a call under register pressure, in a
kernel calling a device function directly, under a guard, through its address, and an
external (``vprintf``, whose argument registers R4-R7 and return address R20-R21 are fixed).
Each kernel is compiled by openptxas and by ptxas under ``-maxrregcount`` 24 and 32, both run in
the emulator, every output word equal and our code free of hazards (difffuzz.check_ptx), at
-O3 and -O0."""

from __future__ import annotations

import pytest

from openptxas.testing.difffuzz import check_ptx, inputs_for
from tests.compiler.test_spill import HEAD, network
from tests.conftest import need_tools

FUNC = """.func (.param .b32 r) g(.param .b32 a, .param .b32 b)
{
  .reg .b32 %x<4>;
  ld.param.b32 %x0, [a];
  ld.param.b32 %x1, [b];
  mad.lo.u32 %x2, %x0, %x1, 7;
  xor.b32 %x2, %x2, %x0;
  st.param.b32 [r], %x2;
  ret;
}
"""
PRINTF = """.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 v);
.global .align 1 .b8 fmt[3] = {104, 10, 0};
"""
CALLS = {
    "direct": "call.uni (pr), g, (pa, pb);",
    "guarded": "setp.lt.u32 %p1, %r3, %r5;\n  @%p1 call (pr), g, (pa, pb);",
    "indirect": (
        "proto : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n"
        "  mov.u64 %d0, g;\n  call (pr), %d0, (pa, pb), proto;"
    ),
}
N = 40


def _call(kind: str) -> str:
    if kind == "printf":
        return (
            "  {\n  .param .b64 pf;\n  .param .b64 pv;\n  .param .b32 pr;\n  mov.u64 %d1, fmt;\n"
            "  cvta.global.u64 %d1, %d1;\n  st.param.b64 [pf], %d1;\n  mov.u64 %d2, 0;\n"
            "  st.param.b64 [pv], %d2;\n  call.uni (pr), vprintf, (pf, pv);\n  }\n"
            "  add.u32 %r1, %r1, %r0;\n"
        )
    guard = "@%p1 " if kind == "guarded" else ""  # an untaken call leaves the result undefined
    return (
        "  {\n  .param .b32 pa;\n  .param .b32 pb;\n  .param .b32 pr;\n"
        "  st.param.b32 [pa], %r0;\n  st.param.b32 [pb], %r7;\n  mov.u32 %t, 0;\n"
        f"  {CALLS[kind]}\n  ld.param.b32 %u, [pr];\n  {guard}mov.u32 %t, %u;\n  }}\n"
        "  add.u32 %r1, %r1, %t;\n  xor.b32 %r9, %r9, %t;\n"
    )


def kernel(kind: str) -> str:
    """``network(40)`` (every value live throughout) with the call halfway through its mixing."""
    lines = network(N, 1).split("\n")
    k = max(i for i, ln in enumerate(lines) if "mad.lo.u32 %r19," in ln)
    lines.insert(k + 1, _call(kind))
    return "\n".join(lines).replace(HEAD, HEAD + (PRINTF if kind == "printf" else FUNC))


@pytest.mark.parametrize("maxrreg", [24, 32])
@pytest.mark.parametrize("kind", ["direct", "guarded", "indirect", "printf"])
def test_spilling_across_calls_equals_ptxas(kind: str, maxrreg: int, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    r = check_ptx(kernel(kind), inputs_for(7, N), N, (3, 0), oracle, None, maxrreg)
    assert r.status == "ok", f"{kind} -maxrregcount={maxrreg}: {r.status}: {r.detail}"


def test_spills_happen_across_calls() -> None:
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    for kind in ("direct", "printf"):
        res = compile_ptx(kernel(kind), Options(arch="sm_90", maxrregcount=24), "c.ptx")
        f = res.functions[0]
        assert f.registers <= 24, kind
        assert f.spill_stores > 0 and f.spill_loads > 0 and f.stack_frame > 0, kind


def busy(local: bool) -> str:
    """A callee ``g`` with 34 values live at once (it spills too), with a ``.local`` array
    when ``local`` (its frame moves the stack pointer the kernel's spill slots are addressed
    from: regalloc/spdelta.py)."""
    lines = [".func (.param .b32 r) g(.param .b32 a, .param .b32 b)", "{", "  .reg .b32 %x<40>;"]
    lines += ["  .reg .b64 %y;", "  .local .align 4 .b8 buf[64];"] if local else []
    lines += ["  ld.param.b32 %x0, [a];", "  ld.param.b32 %x1, [b];"]
    lines += [f"  mad.lo.u32 %x{j}, %x{j - 1}, %x{j - 2}, {j};" for j in range(2, 34)]
    if local:
        lines.append("  mov.u64 %y, buf;")
        lines += [f"  st.local.u32 [%y+{4 * j}], %x{j + 2};" for j in range(16)]
    lines += [
        f"  mad.lo.u32 %x{j}, %x{j}, %x{(j + 5) % 32 + 2}, %x{(j + 11) % 32 + 2};"
        for j in range(2, 34)
    ]
    if local:
        lines += ["  ld.local.u32 %x36, [%y+8];", "  xor.b32 %x2, %x2, %x36;"]
    lines += [f"  xor.b32 %x2, %x2, %x{j};" for j in range(3, 34)]
    lines += ["  st.param.b32 [r], %x2;", "  ret;", "}", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("kind", ["direct", "indirect"])
@pytest.mark.parametrize("local", [False, True], ids=["no-frame", "frame"])
def test_spilling_callee_equals_ptxas(kind: str, local: bool, oracle) -> None:  # type: ignore[no-untyped-def]
    need_tools("ptxas")
    ptx = kernel(kind).replace(FUNC, busy(local))
    r = check_ptx(ptx, inputs_for(7, N), N, (3, 0), oracle, None, 24)
    assert r.status == "ok", f"{kind} local={local}: {r.status}: {r.detail}"


def test_callee_spills_in_its_own_verbose_block() -> None:
    """The spill code in a subroutine's blocks is counted in its ``Function properties``
    block and its --warn-on-spills line, the kernel's own in the kernel's, as ptxas reports
    them (slots in the kernel's frame: the callee's frame stays its .local array)."""
    from openptxas.driver import compile_ptx

    ptx = kernel("direct").replace(FUNC, busy(True))
    from openptxas.options import parse_args

    opts = parse_args(["-arch=sm_90", "-maxrregcount=24", "--warn-on-spills", "c.ptx"]).options
    res = compile_ptx(ptx, opts, "c.ptx")
    k, g = res.functions
    assert (k.name, g.name) == ("fuzz", "g")
    assert k.spill_stores > 0 and g.spill_stores > 0 and g.spill_loads > 0
    assert g.stack_frame == 0  # as ptxas: the callee's .local array is counted in the kernel's
    texts = [d.render() for d in res.late_warnings]
    assert any("in function 'g'" in t for t in texts), texts


def recursive(local: bool) -> str:
    """``busy(local)`` calling itself once more on its first levels (``g(a + 1, ..)`` while
    ``a <= 3``): its values spill with each activation's stack pointer elsewhere."""
    return (
        busy(local)
        .replace(
            "  st.param.b32 [r], %x2;\n",
            "  setp.gt.u32 %p, %x0, 3;\n  @%p bra DONE;\n  {\n  .param .b32 qa;\n"
            "  .param .b32 qb;\n  .param .b32 qr;\n  add.u32 %x3, %x0, 1;\n"
            "  st.param.b32 [qa], %x3;\n"
            "  st.param.b32 [qb], %x2;\n  call (qr), g, (qa, qb);\n"
            "  ld.param.b32 %x4, [qr];\n  }\n"
            "  xor.b32 %x2, %x2, %x4;\nDONE:\n  st.param.b32 [r], %x2;\n",
        )
        .replace("  .reg .b32 %x<40>;\n", "  .reg .b32 %x<40>;\n  .reg .pred %p;\n")
    )


@pytest.mark.parametrize("local", [False, True], ids=["no-frame", "frame"])
def test_spilling_in_recursion_equals_ptxas(local: bool, oracle) -> None:  # type: ignore[no-untyped-def]
    """A recursive function's activations each lower the stack pointer: its values spill to
    slots in its own frame (refused before, "differs between activations"), and the output
    equals ptxas's at -O3 and -O0."""
    need_tools("ptxas")
    ptx = kernel("direct").replace(FUNC, recursive(local))
    r = check_ptx(ptx, inputs_for(7, N), N, (3, 0), oracle, None, 24)
    assert r.status == "ok", f"local={local}: {r.status}: {r.detail}"


def test_recursive_spill_slots_in_own_frame() -> None:
    """The recursive callee's spill code addresses its own frame: the stack pointer goes down
    first thing in it and up again right before its return, and -v reports its frame and
    spill bytes in its own block."""
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    res = compile_ptx(
        kernel("direct").replace(FUNC, recursive(False)),
        Options(arch="sm_90", maxrregcount=24),
        "c.ptx",
    )
    g = next(f for f in res.functions if f.name == "g")
    assert g.spill_stores > 0 and g.spill_loads > 0 and g.stack_frame > 0
