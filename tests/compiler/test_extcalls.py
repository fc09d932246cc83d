"""Calls beyond the kernel's own subroutines (lower/extcalls.py, lower/calls.py,
lower/recursion.py): functions the driver resolves (``vprintf``, ``__assertfail``), ``trap``,
predicated and indirect calls, recursion. Each: our cubin computes what ptxas's computes in the
emulator with the hazard checker on (-O3, -O0), the ``-v`` report and the cubin's records
(EIATTR_EXTERNS, the address table's relocations, function-pointer tables) as ptxas writes
them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

DATA = Path(__file__).parent / "data" / "calls_ext"
KERNELS = Path(__file__).parents[1] / "kernels"


def _spec(kernel: str, n_in: int, n_out: int, seed: int = 5) -> dict[str, Any]:
    return {
        "kernel": kernel,
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": n_in, "init": "random", "seed": seed},
            {"kind": "buffer", "dtype": "u32", "count": n_out, "init": "zeros"},
        ],
    }


def _same(ptx: str, spec: dict[str, Any], opt: int, oracle: Any) -> Any:
    from openptxas.emu import run_launch

    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec)
    got = run_ours(ptx, spec, opt)
    for k, (a, b) in enumerate(zip(got.outputs, want.outputs, strict=True)):
        assert np.array_equal(a, b), (k, np.nonzero(a != b)[0][:10])
    assert got.printf == want.printf
    return got


def _const4_relocs(cubin: bytes) -> list[tuple[int, str]]:
    """(offset, symbol) of the address table's relocations."""
    from openptxas.elf.model import RelocTable
    from openptxas.elf.reader import read_cubin

    c = read_cubin(cubin)
    out = []
    for s in c.sections:
        if s.name == ".rela.nv.constant4" and isinstance(s.content, RelocTable):
            out += [(r.offset, c.symbol_name(r.sym)) for r in s.content.relocs]
    return sorted(out)


@pytest.mark.parametrize("opt", [3, 0])
def test_vprintf_values_live_across(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """40 values live across a vprintf call (R0-R15, R20-R21 and the predicates are the
    callee's): outputs and printed text equal ptxas's."""
    need_tools("ptxas")
    ptx = (DATA / "vprintf_clobbers.ptx").read_text()
    spec = {
        "kernel": "clob",
        "grid": [1, 1, 1],
        "block": [2, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 40, "init": "random", "seed": 9},
            {"kind": "buffer", "dtype": "u32", "count": 40, "init": "zeros"},
        ],
    }
    got = _same(ptx, spec, opt, oracle)
    assert got.printf == "h\n" * 2


def test_regalloc_avoids_call_clobbers() -> None:
    """No value live across CALL.ABS sits in a register the callee may change."""
    from openptxas.regalloc.clobbers import forbidden_registers, written_fixed
    from openptxas.regalloc.fatpoint import occupancy

    ptx = (DATA / "vprintf_clobbers.ptx").read_text()
    from openptxas.lower import lower_function
    from openptxas.ptx.parser import parse
    from openptxas.targets import get_target

    t = get_target("sm_90")
    m = parse(ptx)
    fn = lower_function(m, m.entries[0], t)
    occ, order = occupancy(fn)
    avoid = forbidden_registers(fn, occ, order, t.abi)
    call = next(i for i in order if i.op == "CALL")
    clob = written_fixed(call, t.abi)
    p = order.index(call)
    across = [v for v, mask in occ.items() if mask >> p & 1]
    assert len(across) >= 40
    for v in across:
        assert clob[v.rc] <= avoid[v], v


@pytest.mark.parametrize("opt", [3, 0])
def test_assertfail_and_trap(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """__assertfail's arguments (R4-R13, b64 aligned) and ``trap``/``brkpt`` (BPT.TRAP) on
    inputs that do not fail; inputs that trap fault both cubins."""
    need_tools("ptxas")
    from openptxas.emu import run_launch

    spec = _spec("af", 64, 64)
    spec["args"] = [
        {"kind": "buffer", "dtype": "u32", "count": 64, "init": {"hex": (b"\x01" * 256).hex()}}
    ]
    _same((DATA / "assertfail.ptx").read_text(), spec, opt, oracle)
    trap = (DATA / "trap.ptx").read_text()
    spec["kernel"] = "tr"
    _same(trap, spec, opt, oracle)
    spec["args"] = [{"kind": "buffer", "dtype": "u32", "count": 64, "init": "zeros"}]
    for cubin in (oracle.ptxas(trap, "sm_90").cubin, _ours(trap, opt)):
        with pytest.raises(Exception, match="trap"):
            run_launch(cubin, spec)


def _ours(ptx: str, opt: int = 3) -> bytes:
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    return compile_ptx(ptx, Options(arch="sm_90", opt_level=opt), "k.ptx").cubin


def test_externs_and_address_table_as_ptxas(oracle) -> None:  # type: ignore[no-untyped-def]
    """EIATTR_EXTERNS and the .nv.constant4 relocations (the function's slot first, then the
    variables) equal ptxas's, for vprintf and __assertfail."""
    need_tools("ptxas")
    from openptxas.elf.describe import describe
    from openptxas.elf.reader import read_cubin

    for name in ("vprintf_clobbers.ptx", "assertfail.ptx"):
        ptx = (DATA / name).read_text()
        ref = oracle.ptxas(ptx, "sm_90").cubin
        ours = _ours(ptx)
        assert _const4_relocs(ours) == _const4_relocs(ref)
        got = [f.externs for f in describe(read_cubin(ours)).functions]
        want = [f.externs for f in describe(read_cubin(ref)).functions]
        assert got == want and any(got)


@pytest.mark.parametrize("opt", [3, 0])
def test_guarded_and_indirect_calls(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """``@p call`` (direct, and indirect through a pointer chosen per thread) and a nested
    call with a .b64 argument."""
    need_tools("ptxas")
    _same((DATA / "guarded_calls.ptx").read_text(), _spec("k", 128, 128), opt, oracle)


@pytest.mark.parametrize("opt", [3, 0])
def test_convention_call_within(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """A function reached through its address calling another of its convention (they share
    the argument and return-address registers): each keeps its own return address."""
    need_tools("ptxas")
    _same((DATA / "convention_nested.ptx").read_text(), _spec("k", 64, 64), opt, oracle)


def _kernel_ptx(name: str, oracle: Any) -> str:
    from openptxas.testing.corpus import discover

    ks = {k.name: k for k in discover()}[name]
    return str(oracle.cu_to_ptx(ks.cu_path, "sm_90", ks.nvcc_flags, subject=name))


def _verbose(text: str) -> list[str]:
    return [
        ln
        for ln in text.splitlines()
        if "Compile time" not in ln and "Used" not in ln and ln.strip()
    ]


@pytest.mark.parametrize("name", ["t2/printf", "t2/indirect_calls"])
def test_verbose_as_ptxas(name: str, oracle) -> None:  # type: ignore[no-untyped-def]
    """-v (but the register counts): gmem, frames, cumulative stack, a block per device
    function in ptxas's order (address-taken functions first)."""
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = _kernel_ptx(name, oracle)
    ref = oracle.ptxas(ptx, "sm_90", ["-v"]).log
    ours = compile_ptx(ptx, Options(arch="sm_90", verbose=True), "k.ptx").verbose_report()
    assert _verbose(ours) == _verbose(ref)


def test_recursion_verbose_blocks(oracle) -> None:  # type: ignore[no-untyped-def]
    """Recursion: the kernel's line as ptxas (no cumulative stack), one block per recursive
    function in ptxas's order, each with its own frame and its saves as spill bytes (ours are
    other figures than ptxas's: different code)."""
    need_tools("ptxas")
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = _kernel_ptx("t2/recursion", oracle)
    ref = _verbose(oracle.ptxas(ptx, "sm_90", ["-v"]).log)
    ours = _verbose(compile_ptx(ptx, Options(arch="sm_90", verbose=True), "k.ptx").verbose_report())
    names = [ln for ln in ours if "Function properties" in ln]
    assert names == [ln for ln in ref if "Function properties" in ln]
    assert ours[:4] == ref[:4]  # gmem, compiling, the kernel's properties and frame
    for ln in ours[4:]:
        if "stack frame" in ln:
            frame, stores, loads = (int(w) for w in ln.split() if w.isdigit())
            assert frame > 0 and stores == loads > 0 and frame % 8 == 0


@pytest.mark.parametrize("opt", [3, 0])
def test_function_pointer_table(opt: int, oracle) -> None:  # type: ignore[no-untyped-def]
    """Calls through a table of function pointers in a variable's initializer."""
    need_tools("ptxas")
    _same((DATA / "fptr_table.ptx").read_text(), _spec("k", 64, 64), opt, oracle)


def test_function_pointer_table_holds_code_offsets() -> None:
    """A table of function pointers holds each function's code offset in the kernel's section,
    as ptxas writes it (no relocation)."""
    from openptxas.elf.describe import describe
    from openptxas.elf.reader import read_cubin

    ptx = (DATA / "fptr_table.ptx").read_text()
    cubin = _ours(ptx)
    d = describe(read_cubin(cubin))
    subs = {s.name: s.offset for f in d.functions for s in f.subroutines}
    table = next(g for g in d.globals if g.name == "tab")
    assert table.init is not None
    words = np.frombuffer(table.init, dtype="<u8")
    assert [int(w) for w in words] == [subs["$k$f_add"], subs["$k$f_sub"], subs["$k$f_add"]]


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
def test_register_count_covers_call_registers(arch: str) -> None:
    """The count in .nv.info (what the hardware grants) covers the registers the call itself
    names: R20:R21, the return address, counted as ptxas counts them (printf_blocks: 24, where
    the allocator's own registers end at R15)."""
    import re

    from openptxas.driver import compile_ptx
    from openptxas.elf.nvinfo import EIATTR
    from openptxas.elf.reader import read_cubin
    from openptxas.isa import model as isa
    from openptxas.isa.codec import decode_code
    from openptxas.options import Options
    from openptxas.targets import get_target

    ptx = re.sub(r"\.target sm_\d+a?", f".target {arch}", (DATA / "assertfail.ptx").read_text())
    cub = read_cubin(compile_ptx(ptx, Options(arch=arch)).cubin)
    counts = {
        cub.symbol_name(a.value.sym): a.value.value
        for s in cub.sections
        if s.name == ".nv.info"
        for a in s.content.find(EIATTR.REGCOUNT)
    }
    for _, sec in cub.find_sections(".text."):
        top = -1
        for ins in decode_code(sec.data(), get_target(arch).isa):
            assert isinstance(ins, isa.Instruction)
            for op in ins.operands:
                if isinstance(op, isa.Reg) and op.file is isa.RegFile.R and op.index < 255:
                    top = max(top, op.index)
        assert counts[sec.name.removeprefix(".text.")] >= top + 1 + 2, sec.name
