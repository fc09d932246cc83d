"""Warp collectives, barriers, fences, special registers and small sm_90 instructions (issue 20):
each PTX in tests/compiler/data is compiled by openptxas and by ptxas and both cubins run in the
emulator with the hazard checker; the outputs must be equal bit for bit (and, where the
instruction has a definition we can state, equal to it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import need_tools, run_ours

DATA = Path(__file__).parent / "data"


def _same_as_ptxas(
    oracle: Any, name: str, spec: dict[str, Any], opt: int, ptxas_hazards: str = ""
) -> list[np.ndarray]:
    """Our outputs for ``spec`` (hazard-free), asserted equal to ptxas's cubin's outputs.
    ``ptxas_hazards``: text of the only hazard reports ptxas's cubin may get (a checker gap)."""
    need_tools("ptxas")
    from openptxas.emu import run_launch

    ptx = (DATA / name).read_text()
    want = run_launch(oracle.ptxas(ptx, "sm_90").cubin, spec, hazards=True)
    assert all(ptxas_hazards and ptxas_hazards in str(h) for h in want.hazards), want.hazards[:3]
    got = run_ours(ptx, spec, opt)
    assert sorted(got.outputs) == sorted(want.outputs)
    for k in sorted(got.outputs):
        g, w = got.outputs[k], want.outputs[k]
        assert np.array_equal(g, w), (k, np.nonzero(g != w)[0][:10])
    return [got.outputs[k] for k in sorted(got.outputs)]


@pytest.mark.parametrize("opt", [3, 0])
def test_special_registers_and_nanosleep(opt: int, oracle: Any) -> None:
    n = 4 * 2 * 32
    spec = {
        "kernel": "k",
        "grid": [4, 2, 1],
        "block": [32, 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": n * 24, "init": "zeros"}],
    }
    (out,) = _same_as_ptxas(oracle, "sreg_cluster.ptx", spec, opt)
    o = out.reshape(4 * 2, 32, 24)
    assert (o[:, :, 0] == 7).all()  # both clocks advanced, the global timer did not go back
    assert (o[:, :, 5] == 0x400).all()  # %reserved_smem_offset_cap
    for cta in range(8):
        x, y = cta % 4, cta // 4
        rank, ncta, cidx, cidy, cx, cy, nx, ncy = o[cta, 0, 12:20]
        assert (cidx, cidy, cx, cy, nx, ncy) == (x // 2, y // 2, x % 2, y % 2, 2, 1)
        assert rank == (x % 2) + 2 * (y % 2) and ncta == 4
        assert (o[cta, :, 12:24] == o[cta, 0, 12:24]).all()
        # not an explicit cluster launch; %clusterid.z, %cluster_ctaid.z, %cluster_nctaid.z
        assert (o[cta, :, 20:24] == [0, 0, 0, 1]).all()


@pytest.mark.parametrize("opt", [3, 0])
def test_load_store_cache_hints(opt: int, oracle: Any) -> None:
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [64, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 64 * 16, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": 64 * 16, "init": "random", "seed": 7},
        ],
    }
    out = _same_as_ptxas(oracle, "ldst_hints.ptx", spec, opt)[0]
    assert out.reshape(64, 16)[:, :4].any()


@pytest.mark.parametrize("opt", [3, 0])
def test_warp_collectives_barriers_fences(opt: int, oracle: Any) -> None:
    n = 128
    rng = np.random.default_rng(20)
    inp = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32)
    inp[:8] = [0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 1, 3, 3, 3]
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": n * 32, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": n,
             "init": {"hex": inp.astype("<u4").tobytes().hex()}},
        ],
    }  # fmt: skip
    out = _same_as_ptxas(oracle, "warp_collectives.ptx", spec, opt)[0].reshape(n, 32)
    w = inp.reshape(4, 32)
    s = w.view(np.int32)
    # full-warp reductions against their definitions (every lane of a warp gets its warp's)
    per_warp = out.reshape(4, 32, 32)

    def each_lane(v: np.ndarray) -> np.ndarray:
        return np.repeat(v.astype(np.uint32)[:, None], 32, axis=1)

    assert np.array_equal(per_warp[:, :, 0], each_lane(w.astype(np.uint64).sum(1) & 0xFFFFFFFF))
    assert np.array_equal(per_warp[:, :, 2], each_lane(w.min(1)))
    assert np.array_equal(per_warp[:, :, 3], each_lane(s.min(1).view(np.uint32)))
    assert np.array_equal(per_warp[:, :, 5], each_lane(s.max(1).view(np.uint32)))
    assert np.array_equal(per_warp[:, :, 6], each_lane(np.bitwise_and.reduce(w, 1)))
    # warp 1 read what warp 0 wrote before its barrier.arrive
    assert (out[32:64, 24] == (inp[:32] * 3) & 0xFFFFFFFF).all()


@pytest.mark.parametrize("opt", [3, 0])
def test_mbarrier(opt: int, oracle: Any) -> None:
    n = 128
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [{"kind": "buffer", "dtype": "u32", "count": n * 8, "init": "zeros"}],
    }
    out = _same_as_ptxas(oracle, "mbarrier.ptx", spec, opt)[0].reshape(n, 8)
    t = np.arange(n, dtype=np.uint32)
    # each thread read its mirror's value after the phase completed
    assert np.array_equal(out[:, 1], (127 - t) * 7 + 3)


@pytest.mark.parametrize("opt", [3, 0])
def test_cp_async(opt: int, oracle: Any) -> None:
    n = 64
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": n * 20, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": n * 16, "init": "random", "seed": 3},
        ],
    }
    outs = _same_as_ptxas(oracle, "cp_async.ptx", spec, opt)
    out, inp = outs[0].reshape(n, 20), outs[1].reshape(n, 16)
    assert np.array_equal(out[:, 4:8], inp[:, 4:8])  # the 16-byte .cg copy
    assert np.array_equal(out[:, 16:20], inp[:, 0:4])  # the copy the mbarrier tracked
    # zero fill: 16-byte copy of (tid & 15) bytes
    b = out[:, 8:12].copy().view(np.uint8).reshape(n, 16)
    src = inp[:, 8:12].copy().view(np.uint8).reshape(n, 16)
    for t in range(n):
        k = t & 15
        assert (b[t, :k] == src[t, :k]).all() and (b[t, k:] == 0).all()


@pytest.mark.parametrize("opt", [3, 0])
def test_matrix_load_store_and_mma(opt: int, oracle: Any) -> None:
    n = 32
    rng = np.random.default_rng(90)
    inp = rng.integers(0, 1 << 32, size=(n, 16), dtype=np.uint64).astype(np.uint32)
    # finite halves and floats: small random values
    inp[:, 0:8] = (rng.standard_normal((n, 16)).astype(np.float16).view(np.uint32)).reshape(n, 8)
    inp[:, 8:12] = rng.standard_normal((n, 4)).astype(np.float32).view(np.uint32)
    inp[:, 12:16] = rng.standard_normal((n, 2)).view(np.uint32)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": n * 48, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": n * 16,
             "init": {"hex": inp.astype("<u4").tobytes().hex()}},
        ],
    }  # fmt: skip
    out = _same_as_ptxas(oracle, "tensor_core.ptx", spec, opt)[0].reshape(n, 48)
    # ldmatrix x4: lane l gets the 32-bit word l % 4 of row l // 4 of each 8x8 matrix
    halves = inp[:, 0:4].copy().view(np.uint16).reshape(32, 8)
    for j in range(4):
        rows = halves[8 * j : 8 * j + 8].reshape(8, 4, 2).view(np.uint32).reshape(8, 4)
        assert np.array_equal(out[:, j], rows.reshape(32))


@pytest.mark.parametrize("opt", [3, 0])
def test_atomics_types_scopes_orders(opt: int, oracle: Any) -> None:
    n = 64
    rng = np.random.default_rng(64)
    inp = np.zeros((n, 4), dtype=np.uint32)
    inp[:, 0:2] = (rng.standard_normal(n) * 100).view(np.uint32).reshape(n, 2)
    inp[:, 2] = rng.standard_normal(2 * n).astype(np.float16).view(np.uint32)
    inp[:, 3] = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32)
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": 16 + n * 16, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": n * 4,
             "init": {"hex": inp.astype("<u4").tobytes().hex()}},
        ],
    }  # fmt: skip
    # the hazard checker is silent on ptxas's code here too (each QSPC has its own scoreboard)
    out = _same_as_ptxas(oracle, "atomics.ptx", spec, opt)[0]
    assert out[10] == n  # red.release.gpu.add of 1 by every thread
    f64 = inp[:, 0:2].copy().view(np.float64)[:, 0]
    assert np.isclose(out[0:2].copy().view(np.float64)[0], f64.sum())
    rows = out[16:].reshape(n, 16)
    # the shared counters: 3 per thread (acq_rel), the thread ids and 1 per thread (generic)
    assert (rows[:, 0:3] == [3 * n, n * (n - 1) // 2, n]).all()
    assert (rows[:, 6:8] == [1, 8]).all()  # isspacep: shared (and the cluster's), not global
    assert np.isclose(rows[0, 8:10].copy().view(np.float64)[0], f64.sum())  # shared f64 add


@pytest.mark.parametrize("opt", [3, 0])
def test_griddepcontrol(opt: int, oracle: Any) -> None:
    """``griddepcontrol.wait`` is ACQBULK and ``.launch_dependents`` PREEXIT, in place: the load
    after the wait stays after it (no result: the scheduler moves nothing across)."""
    from openptxas.driver import compile_ptx
    from openptxas.options import Options
    from openptxas.tools.sass_cli import disassemble_cubin

    spec = {"kernel": "k", "grid": [1], "block": [32],
            "args": [{"kind": "buffer", "dtype": "u32", "count": 1, "init": "zeros"}]}  # fmt: skip
    _same_as_ptxas(oracle, "griddepcontrol.ptx", spec, opt)
    ptx = (DATA / "griddepcontrol.ptx").read_text()
    cubin = compile_ptx(ptx, Options(arch="sm_90", opt_level=opt), "g.ptx").cubin
    _, sections = disassemble_cubin(cubin)
    ops = [getattr(i, "opcode", "") for s in sections for i in s.items]
    ops = [o for o in ops if o in ("ACQBULK", "LDG", "STG", "PREEXIT", "EXIT")]
    assert ops == ["ACQBULK", "LDG", "STG", "PREEXIT", "EXIT"]


@pytest.mark.parametrize("opt", [3, 0])
def test_generic_packed_half_atomics(opt: int, oracle: Any) -> None:
    """``atom.add.noftz.{f16x2,bf16x2}`` through generic addresses of global, shared and local
    memory (layernorm_backward in llm.c): ATOM.E acts on global memory only and says so in its
    predicate; shared addresses take a spin loop, local ones a load/add/store (ptxas adds the
    words as integers there; so do we). ATOM.E's predicate is due with its read scoreboard
    (targets/latency.py PRED_ON_READ): ptxas's cubin and ours are free of hazards."""
    rng = np.random.default_rng(3)
    h = rng.standard_normal(64 * 16).astype(np.float16).view(np.uint32)
    spec = {
        "kernel": "k", "grid": [1], "block": [64],
        "args": [{"kind": "buffer", "dtype": "u32", "count": 64 * 8, "init": "zeros"},
                 {"kind": "buffer", "dtype": "u32", "count": 64 * 8,
                  "init": {"hex": h.tobytes().hex()}}],
    }  # fmt: skip
    out = _same_as_ptxas(oracle, "atom_generic_half.ptx", spec, opt)
    assert np.count_nonzero(out[0]) > 64 * 4  # every path wrote something


@pytest.mark.parametrize("opt", [3, 0])
def test_cache_control(opt: int, oracle: Any) -> None:
    """discard, applypriority and the L2::evict_last / local prefetches (CCTL.E.RML2/DML2/PML2,
    CCTLL.PF1/PF2) compile as ptxas's and leave the computation alone."""
    n = 64
    spec = {
        "kernel": "k",
        "grid": [1, 1, 1],
        "block": [n, 1, 1],
        "args": [
            {"kind": "buffer", "dtype": "u32", "count": n, "init": "zeros"},
            {"kind": "buffer", "dtype": "u32", "count": n * 64, "init": "random", "seed": 9},
        ],
    }
    out = _same_as_ptxas(oracle, "cache_control.ptx", spec, opt)[0]
    assert out.any()
