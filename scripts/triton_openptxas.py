"""Which Triton kernels compile through openptxas, and do they compute what ptxas's do?

For every kernel of scripts/kernels_gen_triton.py (the corpus's Triton kernels, with their
launch specs in tests/kernels/t4), in both ways Triton can use openptxas (docs/triton.md):

- ``subprocess``: ``TRITON_PTXAS_BLACKWELL_PATH``/``TRITON_PTXAS_PATH`` name a script running
  ``python -m openptxas`` (``OPENPTXAS_LOG`` shows it ran);
- ``inprocess``: ``openptxas.integrations.triton.enabled()``;

build the kernel with ``triton.compile(..., target=GPUTarget("cuda", 90, 32))``, compile the same
PTX with ptxas 13.0 (the oracle), run both cubins in the emulator on the kernel's launch spec and
compare every output buffer bit for bit. Prints one line per kernel and mode, then the totals::

    pip install triton && python scripts/triton_openptxas.py [--mode subprocess|inprocess|both]

(The CI test tests/integration/test_triton_integration.py runs three kernels both ways.)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("subprocess", "inprocess", "both"), default="both")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="triton-openptxas-"))
    wrapper = tmp / "openptxas"
    wrapper.write_text(
        f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m openptxas "$@"\n'
    )
    wrapper.chmod(0o755)
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    spec = importlib.util.spec_from_file_location("kg", ROOT / "scripts" / "kernels_gen_triton.py")
    assert spec is not None and spec.loader is not None
    kg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kg)  # sets TRITON_PTXAS_*PATH to the PATH's ptxas if unset

    import numpy as np
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    import openptxas.integrations.triton as ot
    from openptxas.emu import run_launch
    from openptxas.testing.oracle import Oracle

    modes = ("subprocess", "inprocess") if args.mode == "both" else (args.mode,)
    totals = {m: [0, 0, 0] for m in modes}  # kernels, compiled, same outputs
    for mode in modes:
        os.environ["TRITON_CACHE_DIR"] = str(tmp / f"cache-{mode}")
        log = tmp / f"{mode}.log"
        if mode == "subprocess":
            os.environ["TRITON_PTXAS_PATH"] = str(wrapper)
            os.environ["TRITON_PTXAS_BLACKWELL_PATH"] = str(wrapper)
            os.environ["OPENPTXAS_LOG"] = str(log)
        for stem, (fn, sig, consts, opts) in kg.KERNELS.items():
            totals[mode][0] += 1
            t0 = time.perf_counter()
            src = ASTSource(
                fn=fn, signature={**sig, **dict.fromkeys(consts, "constexpr")}, constexprs=consts
            )
            try:
                if mode == "inprocess":
                    with ot.enabled() as hook:
                        k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
                    ran = bool(hook.compiled)
                else:
                    before = log.read_text() if log.exists() else ""
                    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
                    after = log.read_text() if log.exists() else ""
                    ran = "--gpu-name=" in after[len(before) :]
            except Exception as exc:
                msg = str(exc).replace("\n", " ")[:160]
                print(f"{mode:10} {stem:22} not compiled: {type(exc).__name__}: {msg}")
                continue
            if not ran:
                print(f"{mode:10} {stem:22} openptxas did not run (Triton fell back to ptxas)")
                continue
            totals[mode][1] += 1
            theirs = Oracle().ptxas(k.asm["ptx"], "sm_90a", subject=stem).cubin
            launch = json.loads((ROOT / "tests/kernels/t4" / f"{stem}.json").read_text())
            ls = launch["kernels"][0]
            a = run_launch(k.asm["cubin"], ls, hazards=True)
            b = run_launch(theirs, ls)
            same = not a.hazards and all(
                np.array_equal(a.outputs[i], b.outputs[i], equal_nan=True) for i in b.outputs
            )
            totals[mode][2] += same
            print(
                f"{mode:10} {stem:22} compiled, emulator outputs "
                f"{'= ptxas' if same else 'DIFFER from ptxas'}, hazards {len(a.hazards)}, "
                f"{time.perf_counter() - t0:.1f}s"
            )
    for mode, (n, c, s) in totals.items():
        print(f"{mode}: compiled {c}/{n}, emulator output = ptxas's {s}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
