"""How far ptxas unrolls a counted loop (issue 17; openptxas.passes.unroll).

Each probe is a kernel with one loop of ``n`` iterations whose body is ``b`` pairs of dependent
ALU instructions (a XOR and an ADD rotating through four registers, so nothing folds away).
ptxas's SASS is counted: one backward branch left means the loop was kept (or unrolled in
part), none that it was unrolled fully. openptxas's is counted the same way.

    python scripts/probe_unroll.py                 # the default grid
    python scripts/probe_unroll.py --grid 16x64,16x80,24x32

Observed on ptxas 13.0.88 (sm_90), b pairs = 2b IR instructions: fully unrolled up to n = 256 at
b = 4, 64 (not 80) at b = 8, 32 (not 40) at b = 12, 20 (not 24) at b = 16, under 16 at b = 24,
under 8 at b = 32, under 4 at b = 64: about n * (2b)^2 <= 16384 (the pass's FULL_BUDGET).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openptxas.driver import compile_ptx
from openptxas.options import Options
from openptxas.tools.sass_cli import disassemble_cubin, format_section, listing_width

DEFAULT = "4x64,4x256,8x64,8x80,12x32,12x40,16x20,16x24,24x16,32x8,64x4"


def kernel(n: int, b: int) -> str:
    body = "\n".join(
        f"  xor.b32 %r{10 + j % 4}, %r{10 + (j + 1) % 4}, %r3;"
        f" add.s32 %r{10 + j % 4}, %r{10 + j % 4}, %r2;"
        for j in range(b)
    )
    return f"""
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 x)
{{
  .reg .pred %p<2>; .reg .b32 %r<20>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r3, [x];
  mov.u32 %r10, %tid.x; mov.u32 %r11, 1; mov.u32 %r12, 2; mov.u32 %r13, 3;
  mov.u32 %r2, 0;
$L:
{body}
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, {n};
  @%p1 bra $L;
  add.s32 %r14, %r10, %r11; add.s32 %r14, %r14, %r12; add.s32 %r14, %r14, %r13;
  st.global.u32 [%rd1], %r14;
  ret;
}}
"""


def backward_branches(cubin: bytes) -> tuple[int, int]:
    """(instructions, backward branches other than the end-of-code BRA to itself)."""
    fam, sections = disassemble_cubin(cubin)
    width = listing_width(sections, fam, False)
    count = back = 0
    for sec in sections:
        for text in format_section(sec, fam, False, False, False, width):
            if "/*" not in text:
                continue
            count += 1
            back += "BRA" in text
    return count, back - 1  # (the trailing BRA to itself)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", default=DEFAULT, help="comma-separated BxN (body pairs x trips)")
    args = ap.parse_args()
    print(f"{'b':>4} {'n':>5} {'n*(2b)^2':>9}  ptxas (instrs, loops)  openptxas (instrs, loops)")
    with tempfile.TemporaryDirectory() as tmp:
        for item in args.grid.split(","):
            b, n = (int(x) for x in item.split("x"))
            ptx = kernel(n, b)
            src, out = Path(tmp, "k.ptx"), Path(tmp, "k.cubin")
            src.write_text(ptx)
            subprocess.run(["ptxas", "-arch=sm_90", "-o", str(out), str(src)], check=True)
            theirs = backward_branches(out.read_bytes())
            ours = backward_branches(compile_ptx(ptx, Options(arch="sm_90"), "k.ptx").cubin)
            print(f"{b:>4} {n:>5} {n * 4 * b * b:>9}  {theirs!s:>21}  {ours!s:>25}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
