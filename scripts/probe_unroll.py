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

``--partial`` probes loops of an unknown trip count instead (nvcc's count-down form: ``c -= s;
while (c != 0)``, the count a parameter) with ``b`` ALU instructions besides the counter's add
and compare; the figure is how many copies of the body the SASS holds. Observed: ptxas unrolls
such a loop four times (a loop of four copies and the original for the rest: about 7 copies in
all) when b <= 18, whatever the step (1, 2 or 4), and not at all from b = 19 (the pass's
PARTIAL_FACTORS).
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


def countdown_kernel(b: int, s: int) -> str:
    """A count-down loop of ``b`` ALU instructions (XORs and ADDs rotating through four
    registers) and step ``s``; the count is ``n << log2(s)``, ``n`` a parameter."""
    ops = [
        f"  xor.b32 %r{10 + j % 4}, %r{10 + (j + 1) % 4}, %r3;"
        f" add.s32 %r{10 + j % 4}, %r{10 + j % 4}, %r2;"
        for j in range(b // 2)
    ]
    ops += [f"  xor.b32 %r{10 + b // 2 % 4}, %r{10 + b // 2 % 4}, %r2;"] * (b % 2)
    body = "\n".join(ops)
    return f"""
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n, .param .u32 m)
{{{{
  .reg .b32 %r<20>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  ld.param.u32 %r1, [n]; ld.param.u32 %r2, [m]; mov.u32 %r3, %tid.x;
  mov.u32 %r10, %r3; mov.u32 %r11, %r2; mov.u32 %r12, 7; mov.u32 %r13, 9;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $DONE;
  shl.b32 %r1, %r1, {s.bit_length() - 1};
$L:
{body}
  add.s32 %r1, %r1, -{s};
  setp.ne.s32 %p2, %r1, 0;
  @%p2 bra $L;
$DONE:
  add.s32 %r10, %r10, %r11; add.s32 %r10, %r10, %r12; add.s32 %r10, %r10, %r13;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd2, %rd1; st.global.u32 [%rd2], %r10;
  ret;
}}}}
"""


def xor_copies(cubin: bytes, b: int) -> float:
    """Copies of a count-down probe's body in the SASS: its XORs (LOP3) over the body's."""
    fam, sections = disassemble_cubin(cubin)
    width = listing_width(sections, fam, False)
    xors = sum(
        "LOP3" in text
        for sec in sections
        for text in format_section(sec, fam, False, False, False, width)
    )
    return xors / (b // 2 + b % 2)


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
    ap.add_argument(
        "--partial",
        metavar="BxS",
        help="count-down loops instead: comma-separated BxS (ALU instructions x step), "
        "e.g. 17x1,18x1,19x1,18x4",
    )
    args = ap.parse_args()
    if args.partial:
        print(f"{'b':>4} {'s':>3}  ptxas copies  openptxas copies")
        with tempfile.TemporaryDirectory() as tmp:
            for item in args.partial.split(","):
                b, step = (int(x) for x in item.split("x"))
                ptx = countdown_kernel(b, step)
                src, out = Path(tmp, "k.ptx"), Path(tmp, "k.cubin")
                src.write_text(ptx)
                subprocess.run(["ptxas", "-arch=sm_90", "-o", str(out), str(src)], check=True)
                theirs = xor_copies(out.read_bytes(), b)
                ours = xor_copies(compile_ptx(ptx, Options(arch="sm_90"), "k.ptx").cubin, b)
                print(f"{b:>4} {step:>3}  {theirs:>12.1f}  {ours:>16.1f}")
        return 0
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
