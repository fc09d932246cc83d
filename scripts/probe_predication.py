"""Probe ptxas's if-conversion threshold (OriDoPredication): an if-then (triangle) or if-else
(diamond) whose side(s) hold N dependent integer instructions, optionally ending in a load, is
compiled by ptxas (sm_90); the probe reports for each N whether the branch survived.

    python scripts/probe_predication.py [--max 16] [--load] [--diamond]

Each side is N-1 ``xor``/``mul.lo`` steps (one SASS instruction each: LOP3, IMAD) plus one
store-feeding step (or a ``ld.global`` with --load); passes/predication.py's MAX_INSTRS is
taken from the largest N that ptxas still predicates.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openptxas.testing.oracle import Oracle  # noqa: E402


def side(n: int, load: bool, seed: int) -> list[str]:
    out = []
    steps = n - 1 if load else n
    for k in range(steps):
        if k % 2:
            out.append(f"  mul.lo.s32 %r2, %r2, {seed * 2 + k * 2 + 3};")
        else:
            out.append(f"  xor.b32 %r2, %r2, {seed * 977 + k * 131 + 7};")
    if load:
        out += ["  mul.wide.s32 %rd3, %r2, 4;", "  add.s64 %rd3, %rd2, %rd3;",
                "  ld.global.u32 %r2, [%rd3];"]  # fmt: skip
    return out


def kernel(n: int, load: bool, diamond: bool) -> str:
    body = [
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u64 out, .param .u64 in)", "{",
        "  .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;",
        "  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;",
        "  ld.param.u64 %rd2, [in]; cvta.to.global.u64 %rd2, %rd2;",
        "  mov.u32 %r1, %tid.x;", "  mov.u32 %r2, %r1;",
        "  and.b32 %r3, %r1, 4;", "  setp.eq.s32 %p1, %r3, 0;",
        "  @%p1 bra $Lelse;",
        *side(n, load, 1),
    ]  # fmt: skip
    if diamond:
        body += ["  bra.uni $Lend;", "$Lelse:", *side(n, load, 2), "$Lend:"]
    else:
        body += ["$Lelse:"]
    body += ["  st.global.u32 [%rd1], %r2;", "  ret;", "}"]
    return "\n".join(body) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=16)
    ap.add_argument("--load", action="store_true")
    ap.add_argument("--diamond", action="store_true")
    ns = ap.parse_args()
    o = Oracle()
    for n in range(1, ns.max + 1):
        cubin = o.ptxas(kernel(n, ns.load, ns.diamond), "sm_90", []).cubin
        p = Path("/tmp/probe_pred.cubin")
        p.write_bytes(cubin)
        sass = subprocess.run(["nvdisasm", "-c", str(p)], capture_output=True, text=True).stdout
        body = [ln for ln in sass.splitlines() if "/*0" in ln and "*/" in ln]
        bra = sum(" BRA " in ln and "`(.L_x_" in ln for ln in body) - 1  # less the final loop
        guarded = sum("@P" in ln or "@!P" in ln for ln in body)
        print(f"N={n:2d}: branches {bra}, guarded instructions {guarded}, total {len(body)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
