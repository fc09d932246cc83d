"""The static hazard checker (openptxas.emu.static_hazards) and the latency model it shares with
the compiler and the dynamic checker:

- silent on ptxas's code it was not mined from (a held-out sample of tests/kernels);
- not vacuous: every mutation of a sample is flagged with the package model, and with a model of
  all zeros the stall mutations are not (so the mutation test fails, as it should);
- ``openptxas-emu check`` on ptxas's cubin and on a broken one.

Corpus-wide figures (every tests/kernels and public-corpus cubin, both halves of a split, every
mutation) come from scripts/hazards_check.py, scripts/hazards_mine.py and
scripts/hazards_mutations.py (docs/emu.md).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from openptxas.emu.decode import isa_decoder
from openptxas.emu.latency_mining import Cubin, mine_model
from openptxas.emu.launch import launch
from openptxas.emu.program import load_module
from openptxas.emu.static_hazards import StaticChecker, StaticResult, static_instructions
from openptxas.targets.latency import Evidence, LatencyModel, load_latency_model
from openptxas.testing.corpus import discover
from tests.conftest import need_tools
from tests.emu.harness import _cubin, corpus_cases
from tests.emu.mutate import mutations, patch_control

# Kernels whose mutations run here: integer/float ALU, predicates, FP64, uniform datapath,
# global and shared loads, shuffles (in-order results covered by a later scoreboard).
MUTATED = ("t1/vec_add", "t1/f32_arith", "t2/f64_arith", "t1/uniform_values", "t1/shfl_xor",
           "t1/matmul_tiled")  # fmt: skip
FOLDS = 10
# Folds where a model of per-pair minima (before pipes, families and role caps) reported ptxas's
# code: CS2R and IMAD.HI carry predicates (6), MUFU timed by stalls (8), IMMA, ELECT (9).
HELD_OUT_FOLDS = (6, 8, 9)


def _fold(source: str) -> int:
    return hashlib.sha256(source.encode()).digest()[1] % FOLDS


def _sources() -> list[tuple[str, str]]:
    return [(ks.name, t) for ks in discover() for t in ("sm_90", "sm_90a") if ks.compiles_for(t)]


def _code(name: str, target: str = "sm_90"):  # type: ignore[no-untyped-def]
    mod = load_module(_cubin(name, target), isa_decoder("sm90"))
    return [
        (k.name, static_instructions(mod, k, load_latency_model("sm_90"))[0])
        for k in mod.kernels.values()
    ]


def _zero(model: LatencyModel) -> LatencyModel:
    z = Evidence(0)
    return replace(
        model,
        classes={k: z for k in model.classes},
        pipe_latency={k: z for k in model.pipe_latency},
        evidence={k: z for k in model.evidence},
        cross={k: z for k in model.cross},
        stall_floor=0,
        default={r: 0 for r in model.default},
    )


def test_model_mined_without_some_folds_is_silent_on_them() -> None:
    """Mined from 7 folds of tests/kernels (by source hash), checked on the other 3: no report
    on ptxas's code. (scripts/hazards_heldout.py gives the figures for every fold, both halves
    and the public corpus, docs/emu.md.)"""
    need_tools("nvcc", "ptxas")
    structure = (
        resources.files("openptxas.targets").joinpath("data", "sm_90_structure.toml").read_text()
    )
    train = [Cubin(f"{n} [{t}]", lambda n=n, t=t: _cubin(n, t))
             for n, t in _sources() if _fold(n) not in HELD_OUT_FOLDS]  # fmt: skip
    test = [(n, t) for n, t in _sources() if _fold(n) in HELD_OUT_FOLDS]
    assert len(test) >= 5
    model, _text, mined = mine_model(train, structure)
    assert mined.stats["functions"] > 120
    ck = StaticChecker(model)
    reports = []
    dec = isa_decoder("sm90")
    for n, t in test:
        mod = load_module(_cubin(n, t), dec)
        for k in mod.kernels.values():
            res = ck.check_kernel(mod, k)
            assert not res.undecoded
            reports += [f"{n} [{t}]:{k.name}: {h}" for h in res.reports]
    assert not reports, "\n".join(reports)


@pytest.mark.parametrize("name", MUTATED)
def test_every_static_mutation_is_flagged_and_zeros_miss_them(name: str) -> None:
    """Mutations (stall lowered at the model's distance, needed wait removed, wrong
    scoreboard) on ptxas's code: all flagged with the package model; with a model of all zeros
    no stall mutation is, so the mutation test fails."""
    need_tools("nvcc", "ptxas")
    model = load_latency_model("sm_90")
    real, zero = StaticChecker(model), StaticChecker(_zero(model))
    kinds: dict[str, list[bool]] = {}
    zero_stall: list[bool] = []
    for _kname, code in _code(name):
        base = StaticResult()
        StaticChecker(model, explain=True).run(code, base)
        assert not base.reports
        for m in mutations({pc: si.ins for pc, si in code.items()}, base.tight,
                           base.needed_waits)[::3]:  # fmt: skip
            mutated = dict(code)
            si = code[m.pc]
            mutated[m.pc] = replace(si, ins=replace(si.ins, control=m.change(si.ins.control)))
            for ck, out in ((real, kinds.setdefault(m.kind, [])), (zero, zero_stall)):
                if ck is zero and m.kind != "stall":
                    continue
                res = StaticResult()
                ck.run(mutated, res)
                out.append(any(h.rule == m.expect_rule and h.pc == m.expect_pc
                               for h in res.reports))  # fmt: skip
    assert kinds.get("stall") and kinds.get("wait") and kinds.get("scoreboard"), sorted(kinds)
    assert all(all(v) for v in kinds.values()), {k: f"{sum(v)}/{len(v)}" for k, v in kinds.items()}
    assert zero_stall and not any(zero_stall)


def test_check_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``openptxas-emu check``: 0 on ptxas's cubin; 1 with a report when a load loses its write
    scoreboard."""
    need_tools("nvcc", "ptxas")
    from openptxas.emu.cli import main

    cubin = _cubin("t1/vec_add", "sm_90")
    good = tmp_path / "good.cubin"
    good.write_bytes(cubin)
    assert main(["check", str(good)]) == 0
    mod = load_module(cubin, isa_decoder("sm90"))
    k = next(iter(mod.kernels.values()))
    ldg = next(pc for pc, i in sorted(mod.instructions(k).items()) if i.opcode == "LDG")
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(patch_control(cubin, k.section, ldg, lambda c: replace(c, wr=None)))
    capsys.readouterr()
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "raw-scoreboard" in err and "which has no write scoreboard" in err


TWO_FETCHES = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 o)
{
  .reg .f32 %f<16>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [o];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, 0f3F000000;
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}];
  tex.2d.v4.f32.f32 {%f7, %f8, %f9, %f10}, [%rd1, {%f2, %f1}];
  add.f32 %f11, %f3, %f7;
  sub.f32 %f12, %f11, %f4;
  add.f32 %f13, %f12, %f8;
  cvta.to.global.u64 %rd3, %rd2;
  st.global.f32 [%rd3], %f13;
  ret;
}
"""


def test_texture_results_complete_in_order(oracle, tmp_path: Path) -> None:
    """ptxas gives the first of two back-to-back TEX no write scoreboard and waits on the
    second's (boxFilter's d_boxfilter_rgba_x does the same): the texture unit completes in
    order, so that wait covers both (targets/data/sm_90_structure.toml [unit])."""
    need_tools("ptxas")
    from openptxas.emu.cli import main

    cubin = oracle.ptxas(TWO_FETCHES, "sm_90").cubin
    mod = load_module(cubin, isa_decoder("sm90"))
    k = next(iter(mod.kernels.values()))
    texs = [i for _, i in sorted(mod.instructions(k).items()) if i.opcode == "TEX"]
    assert len(texs) == 2 and texs[0].control.wr is None and texs[1].control.wr is not None
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    assert main(["check", str(path)]) == 0


def test_write_after_read_too_soon_is_reported() -> None:
    """A register overwritten before its fixed-latency reader has taken it (model.war: ULDC
    right behind the ULEA that reads the same uniform register computed a wrong shared-memory
    base on an H100): ptxas's code keeps such pairs apart; with the reader's stall one cycle
    short, the checker reports the writer."""
    need_tools("nvcc", "ptxas")
    model = load_latency_model("sm_90")
    cubin = _cubin("t1/atomic_float_exact", "sm_90")
    mod = load_module(cubin, isa_decoder("sm90"))
    for k in mod.kernels.values():
        res = StaticChecker(model, record=True).check_kernel(mod, k)
        code = mod.instructions(k)
        pcs = sorted(code)
        tight = [
            (rpc, wpc)
            for (rk, wk, rpc, wpc), d in res.observed_war.items()
            if d == model.war_bound(rk, wk) >= 2 and pcs.index(wpc) == pcs.index(rpc) + 1
        ]
        if not tight:
            continue
        rpc, wpc = tight[0]
        assert StaticChecker(model).check_kernel(mod, k).reports == []
        bad = patch_control(cubin, k.section, rpc, lambda c: replace(c, stall=c.stall - 1))
        bmod = load_module(bad, isa_decoder("sm90"))
        reports = StaticChecker(model).check_kernel(bmod, bmod.kernels[k.name]).reports
        assert any(h.rule == "war-latency" and h.pc == wpc for h in reports), reports
        # the dynamic checker too, on a launch of the same kernel
        case = next(c for c in corpus_cases(("t1",)) if c.id == f"t1/atomic_float_exact:{k.name}")
        assert launch(cubin, case.spec, hazards=True).hazards == ()
        got = launch(bad, case.spec, hazards=True).hazards
        assert any(h.rule == "war-latency" and h.pc == wpc for h in got), got
        return
    pytest.fail("no write-after-read pair at exactly the model's distance")


def test_indirect_call_goes_to_its_callees_not_to_the_function_start() -> None:
    """``CALL.REL.NOINC R22 `(kernel)``: the label is the function's start (the register is
    relative to it), not a target. In ptxas's cubin and in openptxas's the callees follow the
    kernel in its section, reached by nothing else: the call goes to them. (Taken to the start,
    a path from the call's argument loads into the kernel's first instructions made a false
    write-after-read report once the registers were allocated differently.)"""
    need_tools("nvcc", "ptxas")
    from openptxas.emu.model import Reg
    from openptxas.emu.static_hazards import successors
    from tests.emu.harness import compile_ours

    ks = next(k for k in discover() if k.name == "t2/indirect_calls")
    for cubin in (_cubin(ks.name, "sm_90"), compile_ours(ks)):
        mod = load_module(cubin, isa_decoder("sm90"))
        k = mod.kernels["indirect_calls"]
        code = static_instructions(mod, k, load_latency_model("sm_90"))[0]
        succ = successors(code)
        calls = [
            pc
            for pc, si in code.items()
            if si.ins.opcode == "CALL"
            and any(isinstance(o, Reg) and not o.is_pred for o in si.ins.operands)
        ]
        assert calls
        reached = {t for pc, v in succ.items() if pc not in calls for t in v}
        for pc in calls:
            assert succ[pc] and min(code) not in succ[pc]
            assert not reached & set(succ[pc])  # nothing else goes there


def test_ret_returns_only_to_the_calls_of_its_own_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """A subroutine's ``RET`` comes back to the return sites of the calls to it, not to every
    return site of the section. sm_80's t2/f32_rounding calls eleven division and square-root
    subroutines; ``MUFU.RSQ R9, -QNAN [W0]`` in ``__cuda_sm20_div_rd_f32`` reached, through the
    return site of another call, ``IMAD.WIDE R2, R3, c[0x0][0x180], R8`` that ptxas put there
    without a wait on SB0 (its own return site's STG waits): a false report of ptxas's code,
    which the checker makes again when every RET is joined to every return site."""
    need_tools("nvcc", "ptxas")
    from openptxas.emu import static_hazards
    from openptxas.emu.static_hazards import check_module, successors

    mod = load_module(_cubin("t2/f32_rounding", "sm_80"), isa_decoder("sm80"))
    model = load_latency_model("sm_80")
    k = mod.kernels["f32_rounding"]
    code = static_instructions(mod, k, model)[0]
    succ = successors(code)
    calls = {pc: o.target for pc, si in code.items() if si.ins.opcode == "CALL"
             for o in si.ins.operands if hasattr(o, "target")}  # fmt: skip
    rets = [pc for pc, si in code.items() if si.ins.opcode == "RET"]
    assert len(set(calls.values())) >= 8 and len(rets) >= 8
    for pc in rets:
        # each RET's successors are the return sites of some calls, never all of them
        assert succ[pc] and set(succ[pc]) <= {c + 16 for c in calls}
        assert len(succ[pc]) < len(calls)
    assert not check_module(mod, model)["f32_rounding"].reports
    monkeypatch.setattr(static_hazards, "_returns_of_callers", lambda code, out: None)
    joined = check_module(mod, model)["f32_rounding"].reports
    assert (0x430, "raw-scoreboard", "R9") in [(h.pc, h.rule, h.register) for h in joined]


def test_depbar_with_a_short_stall_is_reported() -> None:
    """DEPBAR.LE waits for its cp.async groups only 4 cycles after issue (model.issue_gap): our
    ``DEPBAR.LE SB0, 0x2 [S01]; LDS`` read shared memory before the copy landed on an H200
    (t3/cp_async). ptxas never gives it less than 4; with 3, the checker reports it."""
    need_tools("nvcc", "ptxas")
    model = load_latency_model("sm_90")
    assert model.issue_gap.get("DEPBAR") == 4
    cubin = _cubin("t3/cp_async", "sm_90")
    mod = load_module(cubin, isa_decoder("sm90"))
    k = mod.kernels["cp_async_ptx"]
    assert StaticChecker(model).check_kernel(mod, k).reports == []
    pc = next(pc for pc, ins in sorted(mod.instructions(k).items()) if ins.opcode == "DEPBAR")
    bad = patch_control(cubin, k.section, pc, lambda c: replace(c, stall=3))
    bmod = load_module(bad, isa_decoder("sm90"))
    reports = StaticChecker(model).check_kernel(bmod, bmod.kernels[k.name]).reports
    assert [(h.rule, h.pc) for h in reports] == [("issue-gap", pc)], reports


def _ours_without_reports(
    name: str, kernel: str, model: LatencyModel
) -> tuple[bytes, Any, list[tuple[int, Any]]]:
    """openptxas's cubin of a corpus kernel, checked clean: (cubin, kernel, its instructions)."""
    need_tools("nvcc", "ptxas")
    from tests.emu.harness import compile_ours

    cubin = compile_ours(next(k for k in discover() if k.name == name))
    mod = load_module(cubin, isa_decoder("sm90"))
    k = mod.kernels[kernel]
    assert StaticChecker(model).check_kernel(mod, k).reports == []
    return cubin, k, sorted(mod.instructions(k).items())


def test_stsm_reads_its_registers_late() -> None:
    """STSM reads its address and data registers after issue, as the other stores do: ptxas
    gives it a read scoreboard where a source is overwritten soon after. Our
    ``STSM.16.MT88.4 [R2+0x1e00], R12 [S01]; MOV R2, 0x0`` without one stored the wrong matrix on
    an H200 (t3/matrix_sm90 stmatrix; only that STSM's stall made longer fixed most of it). Our
    code now waits on the STSMs' read scoreboards before the overwrite, and without the wait the
    checker reports it."""
    model = load_latency_model("sm_90")
    assert "STSM" in model.late_readers
    cubin, k, code = _ours_without_reports("t3/matrix_sm90", "stmatrix", model)
    last = max(i for i, (_pc, ins) in enumerate(code) if ins.opcode == "STSM")
    _stsm_pc, stsm = code[last]
    assert stsm.control.rd is not None  # a read scoreboard, released when R2 has been read
    pc, nxt = code[last + 1]
    assert nxt.control.wait >> stsm.control.rd & 1
    bad = patch_control(cubin, k.section, pc, lambda c: replace(c, wait=0))
    bmod = load_module(bad, isa_decoder("sm90"))
    reports = StaticChecker(model).check_kernel(bmod, bmod.kernels[k.name]).reports
    assert any(h.pc == pc and h.rule.startswith("war") for h in reports), reports


def test_half_to_f32_conversion_reads_its_source_early() -> None:
    """HADD2.F32 (a half to f32 conversion) reads its source a cycle earlier than the FMA pipe's
    other consumers: 5 cycles from an FMA-pipe result (``consumer_floor``; ptxas never fewer).
    Our ``HADD2 R3, |R18|, -RZ.H0_H0 [S01]; F2FP [S03]; HADD2.F32 R8, -RZ, R3.H0_H0`` ran wrong
    on an H200 (t2/f16_math). Our code keeps 5 now; one cycle less is reported."""
    model = load_latency_model("sm_90")
    assert model.need("HADD2", "HADD2.F32", "data") == 5
    assert model.need("HADD2", "HADD2", "data") == 4
    cubin, k, code = _ours_without_reports("t2/f16_math", "f16_math", model)
    for i in range(len(code) - 2):
        (_ppc, p), (mpc, mid), (cpc, c) = code[i], code[i + 1], code[i + 2]
        conv = c.opcode == "HADD2" and "F32" in c.mods and str(p.operands[0]) in str(c.operands[2])
        if p.opcode == "HADD2" and "F32" not in p.mods and conv:
            break
    else:
        pytest.fail("no HADD2 -> HADD2.F32 two instructions apart")
    assert max(p.control.stall, 1) + max(mid.control.stall, 1) >= 5
    short = 4 - max(p.control.stall, 1)
    bad = patch_control(cubin, k.section, mpc, lambda ctl: replace(ctl, stall=short))
    bmod = load_module(bad, isa_decoder("sm90"))
    reports = StaticChecker(model).check_kernel(bmod, bmod.kernels[k.name]).reports
    assert any(h.pc == cpc for h in reports), reports


def test_memory_access_right_behind_a_barrier_is_reported() -> None:
    """No memory access within 6 cycles of a CTA barrier (model.barrier_gap): ptxas never issues
    one sooner (LDS 684 times at exactly 6); our LDS one cycle behind BAR.SYNC ran wrong on an
    H200 (shfl_scan). One cycle short of the gap, the checker reports the access."""
    need_tools("nvcc", "ptxas")
    model = load_latency_model("sm_90")
    cubin = _cubin("t1/matmul_tiled", "sm_90")
    mod = load_module(cubin, isa_decoder("sm90"))
    for k in mod.kernels.values():
        code = mod.instructions(k)
        pcs = sorted(code)
        for i, pc in enumerate(pcs[:-1]):
            nxt = code[pcs[i + 1]]
            if code[pc].opcode == "BAR" and nxt.opcode in model.barrier_readers:
                assert code[pc].control.stall >= model.barrier_gap
                assert StaticChecker(model).check_kernel(mod, k).reports == []
                bad = patch_control(cubin, k.section, pc, lambda c: replace(c, stall=5))
                bmod = load_module(bad, isa_decoder("sm90"))
                got = StaticChecker(model).check_kernel(bmod, bmod.kernels[k.name]).reports
                assert [(h.rule, h.pc) for h in got] == [("barrier-gap", pcs[i + 1])], got
                return
    pytest.fail("no memory access right behind a barrier")
