"""The emulator runs other families' cubins (issue 23): corpus kernels compiled by ptxas for
sm_75 (Turing), sm_80 (Ampere), sm_89 (Ada), sm_100 and sm_120 (Blackwell), decoded with their
family's ISA table and launched with their target's constant bank 0 (``[bank0]`` of
openptxas/targets/data), must give their numpy references, as the sm_90 cubins do
(test_corpus_emu.py).

A stable sample: the kernels the ELF tests build for each target (tests/elf/cases.py
``sampled``), so that the ptxas runs are shared. ``python scripts/emu_families.py`` runs every
kernel for every target. Each launch also runs the dynamic hazard checker with its family's
latency model (data/sm_XX_latency.toml, mined from ptxas's code for that target by
``scripts/hazards_mine.py --target``), and the static checker reads the cubin: ptxas's code is
correct, so neither may report anything. Blackwell has no latency model of its own (sm_100
borrows sm_90's, sm_120 has none): its launches are checked for values only.
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
# ... and Blackwell's, whose launches run without the hazard checkers
BLACKWELL = ("sm_100", "sm_120")

# Launches that give another answer than the reference, with what is known.
KNOWN: dict[str, str] = {
    "sm_75-t2/f16_convert:f16_convert": "185 of 2816 halves differ by one rounding step: "
    "sm_75's ptxas lowers cvt.rz.f16.f32 to HADD2 R, R.F32, -RZ.H0_H0 (F2F for .rn/.rm/.rp), so "
    "Turing's HADD2 must truncate an f32 operand; the emulator rounds it to nearest (sm_90's "
    "rule), and the general rule is not modelled without hardware to confirm it",
}

# A third of the ELF tests' sample (one kernel in 18 per target): the emulation is the cost;
# Blackwell's, a twelfth (its forms are in ALWAYS)
SHARE = {"sm_100": 12, "sm_120": 12}
# and always these: the forms only these families have (constant-bank texture and surface
# handles, TEX's coordinates split over two register pairs, QMMA, sm_80's mbarrier word;
# sm_100's ATOMS.CAST.SPIN into a predicate and BRA.U PT, UP0, CREDUX, MOVM.U4TO8 and the
# KPARAM_INFO_V2 flags; sm_120's 64-bit IADD/ISETP/IMNMX/SEL/MOV, U8x4 SIMD, uniform FP, TEX
# with a URZ slot)
ALWAYS = (
    "sm_80-t2/texture_fetch",
    "sm_75-t2/surface_write",
    "sm_89-t3/mma_fp8",
    "sm_80-t3/async_barrier",
    "sm_100-t1/atomic_float_exact",
    "sm_100-t3/redux_sync",
    "sm_100-t3/mma_shapes",
    "sm_100-t2/struct_param_large",
    "sm_120-t1/int64_arith",
    "sm_120-t2/mulhi64",
    "sm_120-t1/simd_video",
    "sm_120-t1/shared_dynamic",
    "sm_120-t2/texture_fetch",
)


def _cases() -> list[Case]:
    from openptxas.testing.corpus import discover

    known = {k.split(":")[0] for k in KNOWN} | set(ALWAYS)
    out = []
    for ks in discover(tiers=("t1", "t2", "t3")):
        for t in TARGETS + BLACKWELL:
            chosen = sampled(ks.name, t) and one_in(f"{ks.name}@{t}:emu", SHARE.get(t, 3))
            if ks.compiles_for(t) and (chosen or f"{t}-{ks.name}" in known):
                out += [Case(ks, t, spec) for spec in ks.specs]
    return out


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.target}-{c.id}" for c in CASES])
def test_family_cubin_matches_reference(case: Case) -> None:
    need_tools("nvcc", "ptxas")
    checked = case.target not in BLACKWELL
    result = run_case(case, hazards=checked)
    problems = [f"hazard: {h}" for h in result.hazards] + check_case(case, result)
    if checked:
        fam = isa_decoder(get_target(case.target).family)
        static = check_module(load_module(case.cubin(), fam))
        problems += [f"static hazard: {h}" for r in static.values() for h in r.reports]
    key = f"{case.target}-{case.id}"
    if key in KNOWN:
        assert problems, f"{key} now matches its reference: update KNOWN"
        pytest.xfail(KNOWN[key])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("target", "values"), [("sm_80", 21), ("sm_100", 23)])
def test_bank0_table_is_what_ptxas_reads(target: str, values: int) -> None:
    """Each ``[bank0]`` value is the offset ptxas 13.0.88's code reads for it
    (scripts/probe_bank0.py: one PTX probe per value, the offsets its SASS reads that the bare
    kernel's does not; ``--check`` does the same for any target). sm_100 adds the two keys of
    its per-CGA reads (cga_stride, cga_indexed)."""
    import sys

    need_tools("ptxas", "nvdisasm")
    from openptxas.testing.corpus import REPO_ROOT

    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    from probe_bank0 import differences

    n, bad = differences(target)
    assert n == values and not bad, bad


# Blackwell reads these per CGA (CS2R.32 R5, SR_CgaSize; IMAD R5, R5, -0xa0, RZ; LDC R5,
# c[0x0][R5+...]): one CTA's view of the launch, 8 words
_CGA_PTX = """
.visible .entry k(.param .u64 out) .explicitcluster .reqnctapercluster 2, 1, 1
{
\t.reg .b32 %r<12>;
\t.reg .b64 %rd<4>;
\t.reg .pred %p<2>;
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
\tld.param.u64 %rd1, [out];
\tcvta.to.global.u64 %rd1, %rd1;
\tmov.u32 %r2, %ctaid.x;
\tmul.wide.u32 %rd2, %r2, 32;
\tadd.u64 %rd1, %rd1, %rd2;
\tmov.u32 %r3, %dynamic_smem_size;
\tst.global.u32 [%rd1], %r3;
\tmov.u32 %r4, %cluster_nctaid.x;
\tst.global.u32 [%rd1+4], %r4;
\tmov.u32 %r5, %cluster_nctaid.y;
\tst.global.u32 [%rd1+8], %r5;
\tmov.u32 %r6, %nclusterid.x;
\tst.global.u32 [%rd1+12], %r6;
\tmov.u32 %r7, %clusterid.x;
\tst.global.u32 [%rd1+16], %r7;
\tmov.u32 %r8, %cluster_ctaid.x;
\tst.global.u32 [%rd1+20], %r8;
\tmov.u32 %r9, %cluster_nctarank;
\tst.global.u32 [%rd1+24], %r9;
\tmov.u32 %r10, %reserved_smem_offset_end;
\tst.global.u32 [%rd1+28], %r10;
DONE:
\tret;
}
"""


@pytest.mark.parametrize("target", BLACKWELL)
def test_per_cga_bank0_values(target: str) -> None:
    """The values Blackwell's code reads at ``c[0x0][SR_CgaSize * -0xa0 + offset]`` are the
    launch's: the emulator's SR_CgaSize (emu/abi.py CGA_SIZE) and the bank-0 fill agree. A grid
    of 4 CTAs in clusters of 2, 48 bytes of dynamic shared memory."""
    import numpy as np

    from openptxas.emu.abi import RESERVED_SMEM
    from tests.emu.ptxrun import ptx_header, run, sass

    need_tools("ptxas")
    ptx = ptx_header(target) + _CGA_PTX
    (out,), _res, blob = run(
        ptx, [np.zeros((4, 8), np.uint32)], target=target, grid=4, shared_bytes=48
    )
    assert any("SR_CgaSize" in str(ins) for ins in sass(blob))
    want = [[48, 2, 1, 2, c // 2, c % 2, 2, RESERVED_SMEM] for c in range(4)]
    assert out.tolist() == want


def test_bank0_layouts_differ_where_ptxas_reads_them() -> None:
    """The facts the launches above rest on (scripts/probe_bank0.py learned them)."""
    b100, b90, b80, b75 = (get_target(t).bank0 for t in ("sm_100", "sm_90", "sm_80", "sm_75"))
    assert (b100.stack, b100.global_desc, b100.ntid, b100.param_window) == (
        0x37C,
        0x358,
        (0x360, 0x364, 0x368),
        0x348,
    )
    assert (b100.dynamic_smem_size, b100.cga_stride) == (0x2AC, -0xA0)
    assert get_target("sm_120").bank0 == b100 and not b90.cga_indexed
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
