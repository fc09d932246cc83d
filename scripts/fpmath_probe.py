"""Show ptxas 13.0's SASS for one-instruction PTX probes (the sequences lower/mufu_rules.py and
lower/half_rules.py reproduce).

    python scripts/fpmath_probe.py 'ex2.approx.f32 %f1, %f0;' 'tanh.approx.f32 %f1, %f0;'

Each snippet runs in a kernel that loads %r0..%r3 (and %f0..%f3, %rd0/%fd0 from pairs of them)
from a buffer, and stores %r4..%r7 / %f1 / %fd1 (whatever the snippet writes) back.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from openptxas.testing.tools import find_tool

HEAD = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p0)
{
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<8>;
\t.reg .b16 %rs<8>;
\t.reg .f32 %f<8>;
\t.reg .f64 %fd<4>;
\t.reg .pred %p<4>;
\tld.param.u64 %rd7, [p0];
\tld.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd7];
\tmov.b32 %f0, %r0;
\tmov.b32 %f2, %r2;
\tmov.b32 %f3, %r3;
\tmov.b64 %fd0, {%r0, %r1};
\tmov.b64 %fd2, {%r2, %r3};
\tcvt.u16.u32 %rs0, %r0;
\tcvt.u16.u32 %rs2, %r2;
\tcvt.u16.u32 %rs3, %r3;
\tmov.b32 %f1, %r1;
"""
TAIL = """\tst.global.v4.u32 [%rd7+16], {%r4, %r5, %r6, %r7};
\tst.global.f32 [%rd7+32], %f1;
\tst.global.f64 [%rd7+40], %fd1;
\tst.global.u16 [%rd7+48], %rs1;
\tselp.u32 %r8, 1, 0, %p1;
\tst.global.u32 [%rd7+52], %r8;
\tret;
}
"""


def listing(snippet: str) -> str:
    ptxas = find_tool("ptxas")
    nvdisasm = find_tool("nvdisasm")
    assert ptxas and nvdisasm
    with tempfile.TemporaryDirectory() as td:
        p = Path(td)
        (p / "t.ptx").write_text(HEAD + "\t" + snippet + "\n" + TAIL)
        r = subprocess.run(
            [str(ptxas), "-arch=sm_90", "t.ptx", "-o", "t.cubin"],
            cwd=td,
            capture_output=True,
            text=True,
            check=False,
        )
        if r.returncode:
            return r.stderr
        d = subprocess.run(
            [str(nvdisasm), "-c", "t.cubin"], cwd=td, capture_output=True, text=True, check=True
        )
    lines = [ln.split("*/", 1)[-1].strip().rstrip(" ;") for ln in d.stdout.splitlines()]
    keep = [ln for ln in lines if ln and not ln.startswith(("//", ".", "/*")) and "NOP" not in ln]
    # drop the harness: loads, stores, exit
    return "\n".join(
        ln
        for ln in keep
        if not ln.startswith("SEL ")
        and not any(k in ln for k in ("LDG", "STG", "LDC", "ULDC", "EXIT", "BRA"))
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("snippets", nargs="+")
    for s in ap.parse_args().snippets:
        print(f"== {s}\n{listing(s)}")


if __name__ == "__main__":
    main()
