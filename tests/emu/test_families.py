"""The emulator runs other families' cubins (issue 23): corpus kernels compiled by ptxas for
sm_75 (Turing), sm_80 (Ampere) and sm_89 (Ada), decoded with their family's ISA table and
launched with their target's constant bank 0 (``[bank0]`` of openptxas/targets/data), must give
their numpy references, as the sm_90 cubins do (test_corpus_emu.py).

A stable sample: the kernels the ELF tests build for each target (tests/elf/cases.py
``sampled``), so that the ptxas runs are shared. ``python scripts/emu_families.py`` runs every
kernel for every target. Each launch also runs the dynamic hazard checker with its family's
latency model (data/sm_XX_latency.toml, mined from ptxas's code for that target by
``scripts/hazards_mine.py --target``), and the static checker reads the cubin: ptxas's code is
correct, so neither may report anything.
"""

from __future__ import annotations

import pytest

from openptxas.emu.decode import isa_decoder
from openptxas.emu.program import load_module
from openptxas.emu.static_hazards import check_module
from openptxas.targets import get_target
from tests.conftest import need_tools
from tests.elf.cases import one_in, sampled
from tests.emu.harness import Case, check_case, run_case

# one target per ISA table family (sm_86 shares sm_80's table)
TARGETS = ("sm_75", "sm_80", "sm_89")

# Launches that give another answer than the reference, with what is known.
KNOWN: dict[str, str] = {
    "sm_75-t2/f16_convert:f16_convert": "185 of 2816 halves differ by one rounding step: "
    "sm_75's ptxas lowers cvt.rz.f16.f32 to HADD2 R, R.F32, -RZ.H0_H0 (F2F for .rn/.rm/.rp), so "
    "Turing's HADD2 must truncate an f32 operand; the emulator rounds it to nearest (sm_90's "
    "rule), and the general rule is not modelled without hardware to confirm it",
}

# A third of the ELF tests' sample (one kernel in 18 per target): the emulation is the cost.
SHARE = 3
# and always these: the forms only these families have (constant-bank texture and surface
# handles, TEX's coordinates split over two register pairs, QMMA, sm_80's mbarrier word)
ALWAYS = (
    "sm_80-t2/texture_fetch",
    "sm_75-t2/surface_write",
    "sm_89-t3/mma_fp8",
    "sm_80-t3/async_barrier",
)


def _cases() -> list[Case]:
    from openptxas.testing.corpus import discover

    known = {k.split(":")[0] for k in KNOWN} | set(ALWAYS)
    out = []
    for ks in discover(tiers=("t1", "t2", "t3")):
        for t in TARGETS:
            chosen = sampled(ks.name, t) and one_in(f"{ks.name}@{t}:emu", SHARE)
            if ks.compiles_for(t) and (chosen or f"{t}-{ks.name}" in known):
                out += [Case(ks, t, spec) for spec in ks.specs]
    return out


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.target}-{c.id}" for c in CASES])
def test_family_cubin_matches_reference(case: Case) -> None:
    need_tools("nvcc", "ptxas")
    result = run_case(case, hazards=True)
    problems = [f"hazard: {h}" for h in result.hazards] + check_case(case, result)
    static = check_module(load_module(case.cubin(), isa_decoder(get_target(case.target).family)))
    problems += [f"static hazard: {h}" for r in static.values() for h in r.reports]
    key = f"{case.target}-{case.id}"
    if key in KNOWN:
        assert problems, f"{key} now matches its reference: update KNOWN"
        pytest.xfail(KNOWN[key])
    assert not problems, "\n".join(problems)


def test_bank0_table_is_what_ptxas_reads() -> None:
    """Each sm_80 ``[bank0]`` value is the offset ptxas 13.0.88's code reads for it
    (scripts/probe_bank0.py: one PTX probe per value, the offsets its SASS reads that the bare
    kernel's does not; ``--check`` does the same for any target)."""
    import sys

    need_tools("ptxas", "nvdisasm")
    from openptxas.testing.corpus import REPO_ROOT

    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    from probe_bank0 import differences

    n, bad = differences("sm_80")
    assert n == 21 and not bad, bad


def test_bank0_layouts_differ_where_ptxas_reads_them() -> None:
    """The facts the launches above rest on (scripts/probe_bank0.py learned them)."""
    b90, b80, b75 = (get_target(t).bank0 for t in ("sm_90", "sm_80", "sm_75"))
    assert (b90.global_desc, b80.global_desc, b75.global_desc) == (0x208, 0x118, -1)
    assert (b90.envreg, b80.envreg) == (0x40, 0x88)
    assert (b90.param_window, b90.param_window_base) == (0x198, 0x210)
    assert (b80.param_window, b80.param_window_base) == (0x40, 0)
    assert (b90.shared_window, b80.shared_window) == (-1, 0x18)
    assert (b90.shared_base, b80.shared_base) == (0x400, 0)
    # sm_90's compiler ABI takes its bank-0 offsets from the same table
    abi = get_target("sm_90").abi
    assert (abi.cb_stack, abi.cb_global_desc, abi.cb_envreg) == (0x28, 0x208, 0x40)


def test_hazard_check_refused_without_the_family_latency_model() -> None:
    """A target with no latency model of its own (sm_120: no tests/kernels cubins for it were
    mined) is not checked against another family's latencies: refused, naming the target."""
    from openptxas.emu.errors import EmuLoadError
    from openptxas.emu.hazards import latency_for

    with pytest.raises(EmuLoadError, match="sm_120: no latency model"):
        latency_for(120)


def test_each_family_has_its_own_issue_and_barrier_gaps() -> None:
    """The gaps ptxas keeps after WARPSYNC, BAR.RED and NANOSLEEP and between a CTA barrier and
    a memory access are a family's (mined from its code): sm_80's ptxas gives WARPSYNC and
    BAR.RED stall 1, sm_90's never fewer than 5 and 6, and the H200 ran our sm_90 code wrong
    with less; sm_75's accesses come 5 cycles after BAR.SYNC. sm_90's model judging sm_80's code
    made 38 false reports on tests/kernels (22 of them WARPSYNC)."""
    gaps = {t: get_target(t).latency for t in ("sm_75", "sm_80", "sm_90")}
    assert (gaps["sm_90"].gap("WARPSYNC", ()), gaps["sm_80"].gap("WARPSYNC", ())) == (5, 1)
    assert gaps["sm_90"].gap("BAR", ("RED", "POPC")) == 6
    assert gaps["sm_80"].gap("BAR", ("RED", "POPC")) == 1
    assert (gaps["sm_90"].barrier_gap, gaps["sm_75"].barrier_gap) == (6, 5)
