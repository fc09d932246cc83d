"""Bulk copies, TMA and st.async on a real GPU: our cubins against ptxas's cubins and the numpy
references (the hardware as the third oracle for lower/bulk_rules.py).

    python scripts/gpu_bulk_check.py prep DIR     # here: compile ours and ptxas's, pickle specs
    python scripts/gpu_bulk_check.py run DIR      # on the GPU machine (tests/gpu/runner.py)
    python scripts/gpu_bulk_check.py one DIR K    # only launch K

``prep`` takes the tests/kernels modules that use these instructions (every launch spec) and the
kernels of tests/compiler/test_bulk.py (at -O3); ``run`` launches both cubins of each and
prints, per launch, whether every output buffer of ours equals ptxas's bit for bit (floating-point
reductions by several CTAs may differ in order: reported, not failed) and whether ours equals
the reference where there is one.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

KERNELS = ("t4/mbarrier", "t4/cluster", "t3/async_barrier", "t4/bulk_copy", "t4/cluster_async",
           "t4/fence_proxy_async", "t4/tma_bulk", "t4/tma_more", "t4/tma_multicast",
           "t4/tma_tensor")  # fmt: skip


def prep(out: Path) -> None:
    from openptxas.driver import compile_ptx
    from openptxas.options import Options
    from openptxas.testing.corpus import discover
    from openptxas.testing.oracle import Oracle
    from tests.compiler import test_bulk as tb
    from tests.emu.harness import Case, compile_ours, emu_target, expected

    oracle = Oracle()
    items: list[dict[str, Any]] = []
    for ks in discover():
        if ks.name not in KERNELS:
            continue
        target = emu_target(ks)
        ours = compile_ours(ks, 3, oracle)
        for spec in ks.specs:
            case = Case(ks, target, spec)
            want, _ = expected(case)
            items.append({"name": f"{ks.name}:{spec.kernel}", "ours": ours,
                          "ptxas": case.cubin(), "spec": spec, "want": want})  # fmt: skip

    def add(name: str, ptx: str, spec: dict[str, Any]) -> None:
        ours = compile_ptx(ptx, Options(arch=tb.ARCH), "k.ptx").cubin
        theirs = oracle.ptxas(ptx, tb.ARCH).cubin
        items.append({"name": name, "ours": ours, "ptxas": theirs, "spec": spec, "want": None})

    for c in tb.BULK_CASES:
        ptx, spec = tb._bulk_case(*c[:6])
        add(f"bulk {c[0]}x{c[1]} {c[4]}{' pred' if c[6] else ''}",
            tb._predicated(ptx) if c[6] else ptx, spec)  # fmt: skip
    for rank, ncopy, block in [(1, 3, 32), (2, 2, 64), (3, 4, 32), (4, 1, 32), (5, 2, 32)]:
        ptx, spec = tb._tma_case(rank, ncopy, block)
        add(f"tma {rank}d", ptx, spec)
    add("st.async/red.async", tb._spell(tb.ASYNC.format()), {
        "kernel": "k", "grid": [2, 1, 1], "block": [tb.NT, 1, 1],
        "args": [tb._buf("u32", 2 * tb.NT * 4, 9),
                 tb._buf("u8", 2 * (tb.NT * 44 + 32))]})  # fmt: skip
    for mask in ("%rs1", "3"):
        add(f"multicast mask {mask}", tb._spell(tb.MCAST.format(mask=mask)), {
            "kernel": "k", "grid": [2, 1, 1], "block": [64, 1, 1],
            "args": [tb._buf("u32", 64, 21), tb._buf("u32", 96)]})  # fmt: skip
    for name in ("tma_copy", "tma_add", "tma_rowsum"):
        add(f"triton {name}", (tb.TRITON / f"{name}.ptx").read_text(), tb._triton_spec(name))
    out.mkdir(parents=True, exist_ok=True)
    (out / "items.pkl").write_bytes(pickle.dumps(items))
    print(f"{len(items)} launches in {out / 'items.pkl'}")


def one(src: Path, k: int) -> int:
    """Launch item ``k``: ptxas's cubin, then ours (a fault poisons the CUDA context: each item
    runs in its own process)."""
    from openptxas.testing.corpus import compare_outputs
    from tests.gpu.runner import Driver, run_on_gpu

    it = pickle.loads((src / "items.pkl").read_bytes())[k]
    drv = Driver()
    try:
        ls, theirs = run_on_gpu(drv, it["ptxas"], it["spec"])
    except Exception as exc:
        print(f"FAIL {it['name']}: ptxas's cubin: {str(exc).splitlines()[0]}")
        return 1
    try:
        _, ours = run_on_gpu(drv, it["ours"], it["spec"])
    except Exception as exc:
        print(f"FAIL {it['name']}: ours: {str(exc).splitlines()[0]}")
        return 1
    outs = [i for i, a in enumerate(ls.args) if a.kind == "buffer"]
    diff = [i for i in outs if ours[i].tobytes() != theirs[i].tobytes()]
    ref = ""
    bad = 0
    if it["want"] is not None:
        problems = compare_outputs(ls, {i: ours[i] for i in it["want"]}, it["want"])
        ref = "; reference: " + ("equal" if not problems else problems[0])
        bad = bool(problems)
    nz = sum(int(np.count_nonzero(ours[i])) for i in outs)
    print(f"{'ok  ' if not diff else 'DIFF'} {it['name']}: ours vs ptxas "
          f"{'equal' if not diff else f'args {diff} differ'}{ref} ({nz} nonzero)")  # fmt: skip
    return int(bad)


def run(src: Path) -> int:
    import subprocess

    n = len(pickle.loads((src / "items.pkl").read_bytes()))
    bad = 0
    for k in range(n):
        try:
            r = subprocess.run([sys.executable, __file__, "one", str(src), str(k)], text=True,
                               capture_output=True, timeout=30, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            print(f"FAIL item {k}: no answer in 30 s (a hang)", flush=True)
            bad += 1
            continue
        text = (r.stdout + r.stderr).strip()
        print(text.splitlines()[-1] if text else f"FAIL item {k}: no output, rc {r.returncode}",
              flush=True)  # fmt: skip
        bad += r.returncode != 0
    print(f"{n} launches, {bad} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    what, where = sys.argv[1], Path(sys.argv[2])
    if what == "prep":
        prep(where)
    elif what == "one":
        sys.exit(one(where, int(sys.argv[3])))
    else:
        sys.exit(run(where))
