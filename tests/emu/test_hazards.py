"""The hazard checker: silent on ptxas's own control codes (the differential test runs it on every
corpus launch), and it flags every deliberately broken control code (tests/emu/mutate.py):

- ``stall``: one stall count lowered between a fixed-latency producer and a reader issued exactly
  the minimum distance ptxas uses for that pair (openptxas/targets/data/sm_90_latency.toml);
- ``wait``: the scoreboard wait a reader needs for a variable-latency producer's result removed;
- ``scoreboard``: that producer sets another scoreboard, one nothing waits on before the read.

A slice of kernels and of their mutations runs here; scripts/emu_mutations.py runs every
mutation of a wider set of kernels.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from openptxas.emu.hazards import HazardChecker
from openptxas.emu.launch import launch
from openptxas.emu.model import Control, Imm, Instruction, Reg, RegFile
from openptxas.targets.latency import lat_key, load_latency_model
from tests.conftest import need_tools
from tests.emu.harness import Case, corpus_cases
from tests.emu.mutate import mutate_case

# Kernels covering the producer kinds: integer and float ALU, predicates and guards, FP64, the
# uniform datapath, global and shared loads, stores (read scoreboards), shuffles, cp.async.
MUTATED = (
    "t1/vec_add:vec_add",
    "t1/f32_arith:f32_basic",
    "t1/matmul_tiled:matmul_f32",
    "t1/shfl_xor:shfl_xor",
    "t1/uniform_values:uniform_mix",
    "t2/f64_arith:f64_arith",
    "t2/intdiv_s32_var:s32_div_var",
    "t3/cp_async:cp_async_pipeline",
)
PER_KIND = 3


def _case(case_id: str) -> Case:
    return next(c for c in corpus_cases() if c.id == case_id)


@pytest.mark.parametrize("case_id", MUTATED)
def test_every_mutation_is_flagged(case_id: str) -> None:
    need_tools("nvcc", "ptxas")
    outcomes = mutate_case(_case(case_id), per_kind=PER_KIND)
    kinds = {o.mutation.kind for o in outcomes}
    assert {"stall", "wait", "scoreboard"} <= kinds, f"mutation kinds found: {sorted(kinds)}"
    missed = [f"{o.mutation.note}: reported {list(o.reports)}" for o in outcomes if not o.flagged]
    assert not missed, "\n".join(missed)


def test_the_checkers_use_the_compilers_latency_model() -> None:
    """One model object per family: the compiler's control codes, the dynamic and the static
    checker read the same one (sm_90a shares sm_90's)."""
    from openptxas.emu.static_hazards import StaticChecker
    from openptxas.sched import control

    model = load_latency_model("sm_90")
    assert HazardChecker().model is model
    assert StaticChecker().model is model
    from openptxas.targets import get_target

    assert get_target("sm_90").latency is model
    assert load_latency_model("sm_90a") is model
    assert lat_key("IMAD", ("WIDE", "U32")) == "IMAD.WIDE"
    # the compiler's fixed latencies are the model's
    from openptxas.ir.core import Instr

    for op in ("IADD3", "FFMA", "DADD", "ISETP"):
        lat = control.fixed_latency(Instr(op), model)
        assert lat.data == model.worst(op, "data") and lat.guard == model.worst(op, "guard")


def test_removing_a_write_scoreboard_is_flagged() -> None:
    """A load whose write scoreboard is dropped: its reader has nothing to wait on."""
    need_tools("nvcc", "ptxas")
    from openptxas.elf.reader import read_cubin
    from tests.emu.harness import filled_decoder
    from tests.emu.mutate import patch_control

    case = _case("t1/vec_add:vec_add")
    cubin = case.cubin()
    from openptxas.emu.program import load_module

    mod = load_module(cubin, filled_decoder(cubin))
    k = mod.kernel(case.spec.kernel)
    ins = mod.instructions(k)
    ldg = next(pc for pc, i in sorted(ins.items()) if i.opcode == "LDG")
    patched = patch_control(cubin, k.section, ldg, lambda c: replace(c, wr=None))
    assert read_cubin(patched).sm == 90
    r = launch(patched, case.spec, decoder=filled_decoder(cubin), hazards=True)
    assert any(h.rule == "raw-scoreboard" and "no write scoreboard" in h.detail for h in r.hazards)


def test_depbar_completes_older_scoreboard_entries() -> None:
    """DEPBAR.LE SBk, n: everything but the newest n instructions on SBk is complete."""
    from openptxas.emu.hazards import expand
    from openptxas.emu.lanes import ALL

    class M:
        L = 32

    hz = HazardChecker()
    hz.reset(M())  # type: ignore[arg-type]
    prod = Instruction("LDG", ("E",), (Reg(RegFile.R, 4),), control=Control(stall=1, wr=2))
    # (a stall of 4 at least: DEPBAR.LE waits that long after issue, model.issue_gap)
    dep = Instruction("DEPBAR", ("LE",), (Reg(RegFile.SB, 2), Imm(0)), control=Control(stall=4))
    use = Instruction("IADD3", (), (Reg(RegFile.R, 5), Reg(RegFile.R, 4)), control=Control(1))
    nop = lambda sel, nw: None  # noqa: E731
    hz.wrap(0x0, prod, nop, expand([], [(4, 1)]), None)(ALL, 1)
    hz.wrap(0x20, use, nop, expand([(4, 1, "data")], [(5, 1)]), None)(ALL, 1)
    assert [h.rule for h in hz.reports] == ["raw-scoreboard"]
    hz.reset(M())  # type: ignore[arg-type]
    hz.reports.clear()
    hz._seen.clear()
    hz.wrap(0x0, prod, nop, expand([], [(4, 1)]), None)(ALL, 1)
    hz.wrap(0x10, dep, nop, expand([], []), None)(ALL, 1)
    hz.wrap(0x20, use, nop, expand([(4, 1, "data")], [(5, 1)]), None)(ALL, 1)
    assert hz.reports == []
    assert np.all(hz.cycle == 6)


def test_wgmma_results_wait_for_their_group() -> None:
    """HGMMA results are due until WARPGROUP.DEPBAR.LE gsb0, n; the next wgmma may chain on them."""
    from openptxas.emu.hazards import expand
    from openptxas.emu.lanes import ALL
    from openptxas.emu.model import GDesc, Keyword

    class M:
        L = 32

    d, ur = Reg(RegFile.R, 24), Reg(RegFile.UR, 4)
    mma = Instruction("HGMMA", ("64x8x16", "F32"), (d, GDesc(ur), d, Reg(RegFile.UP, 7)))
    last = replace(mma, operands=(*mma.operands, Keyword("gsb0")))
    dep = Instruction("WARPGROUP", ("DEPBAR", "LE"), (Keyword("gsb0"), Imm(0)))
    use = Instruction("IADD3", (), (Reg(RegFile.R, 5), Reg(RegFile.R, 26)))
    nop = lambda sel, nw: None  # noqa: E731
    mma_acc = expand([(24, 4, "data"), (260, 4, "addr")], [(24, 4)])

    def run(*seq: Instruction) -> list[str]:
        hz = HazardChecker()
        hz.reset(M())  # type: ignore[arg-type]
        for k, ins in enumerate(seq):
            ins = replace(ins, control=Control(stall=2))
            acc = (
                mma_acc
                if ins.opcode == "HGMMA"
                else expand([(26, 1, "data")], [(5, 1)])
                if ins.opcode == "IADD3"
                else expand([], [])
            )
            hz.wrap(16 * k, ins, nop, acc, None)(ALL, 1)
        return [h.rule for h in hz.reports]

    assert run(mma, last, use) == ["raw-scoreboard"]
    assert run(mma, last, dep, use) == []
    two = replace(dep, operands=(Keyword("gsb0"), Imm(1)))
    assert run(last, last, two, use) == ["raw-scoreboard"]  # only the first group is complete
