"""Print ptxas 13.0's SASS (with control codes) and its info lines for the tensor-core probes of
tests/compiler/test_wgmma.py and test_wmma.py: how lower/wgmma_rules.py, wmma_rules.py and
mma_ext_rules.py were learned.

    python scripts/probe_wgmma.py wgmma [CASE]     # test_wgmma.CASES (sm_90a)
    python scripts/probe_wgmma.py wmma [CASE]      # test_wmma.CASES: m32n8k16-f16-f16-ccrc-global
    python scripts/probe_wgmma.py mma              # the PTX ISA's fp8/b1/s4 mma.sync forms
    python scripts/probe_wgmma.py --ours wgmma n128_two_groups   # openptxas's listing instead
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openptxas.testing.tools import find_tool  # noqa: E402

_MMA = {
    "fp8": "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1,%f2,%f3,%f4}, "
    "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};",
    "b1_xor": "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%r7,%r8,%r9,%r10}, "
    "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r11,%r12,%r13,%r14};",
    "s4": "mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32 {%r7,%r8,%r9,%r10}, {%r1,%r2}, "
    "{%r5}, {%r11,%r12,%r13,%r14};",
}


def _mma_ptx(body: str) -> str:
    loads = "\n".join(f"\tld.global.b32 %r{i}, [%rd1+{4 * i}];" for i in range(1, 15))
    floads = "\n".join(f"\tld.global.f32 %f{i}, [%rd1+{4 * (14 + i)}];" for i in range(5, 9))
    stores = "\n".join(f"\tst.global.b32 [%rd1+{4 * i}], %r{6 + i};" for i in range(1, 5))
    fstores = "\n".join(f"\tst.global.f32 [%rd1+{4 * (20 + i)}], %f{i};" for i in range(1, 5))
    return f""".version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
\t.reg .b32 %r<16>;
\t.reg .f32 %f<10>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [p];
\tcvta.to.global.u64 %rd1, %rd1;
{loads}
{floads}
\t{body}
{stores if "%r7" in body else fstores}
\tret;
}}
"""


def probes(family: str) -> dict[str, tuple[str, str]]:
    """name -> (PTX, arch)"""
    if family == "wgmma":
        from tests.compiler import test_wgmma

        return {n: (test_wgmma._spec(n)[0], "sm_90a") for n in test_wgmma.CASES}
    if family == "wmma":
        from tests.compiler import test_wmma

        return {"-".join(c): (test_wmma._kernel(*c), "sm_90") for c in test_wmma.CASES}
    return {n: (_mma_ptx(b), "sm_90") for n, b in _MMA.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("family", choices=("wgmma", "wmma", "mma"))
    ap.add_argument("case", nargs="?", default="")
    ap.add_argument("--ours", action="store_true", help="openptxas's listing instead")
    args = ap.parse_args()
    for name, (ptx, arch) in probes(args.family).items():
        if args.case and args.case != name:
            continue
        print(f"==== {name} ({arch})")
        with tempfile.TemporaryDirectory() as td:
            src, out = Path(td) / "k.ptx", Path(td) / "k.cubin"
            src.write_text(ptx)
            if args.ours:
                from openptxas.driver import compile_ptx
                from openptxas.options import Options

                res = compile_ptx(ptx, Options(arch=arch), str(src))
                out.write_bytes(res.cubin)
                print("\n".join(d.render() for d in res.diagnostics))
            else:
                ptxas = find_tool("ptxas")
                assert ptxas is not None
                r = subprocess.run([ptxas, f"-arch={arch}", str(src), "-o", str(out)],
                                   capture_output=True, text=True, check=False)  # fmt: skip
                print(r.stdout + r.stderr, end="")
            subprocess.run([sys.executable, "-m", "openptxas.tools.sass_cli", "dis", str(out),
                            "--control"], check=False, cwd=ROOT)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
