"""Print ptxas 13.0's sm_90 SASS for one floating-point division, reciprocal or square root.

    python scripts/probe_fpdiv.py div.rn.ftz.f32 [more...]

Each instruction is placed in a kernel that loads its operands from global memory and stores the
result (2 sources for div, 1 for rcp/sqrt/rsqrt); the listing is nvdisasm's. This is how the
sequences in openptxas/lower/fpdiv.py were observed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

NVDISASM = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm"


def kernel(instr: str) -> str:
    """A one-instruction kernel for ``instr`` (e.g. ``div.rn.f32``)."""
    f64 = instr.endswith(".f64")
    t, r, sz = ("f64", "%fd", 8) if f64 else ("f32", "%f", 4)
    nsrc = 2 if instr.startswith("div") else 1
    srcs = ", ".join(f"{r}{k + 1}" for k in range(nsrc))
    loads = "\n".join(f"ld.global.{t} {r}{k + 1}, [%rd2+{k * sz}];" for k in range(nsrc))
    return f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
.reg .{t} {r}<5>;
.reg .b64 %rd<3>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
{loads}
{instr} {r}3, {srcs};
st.global.{t} [%rd2+16], {r}3;
ret;
}}
"""


def main() -> None:
    for instr in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "k.ptx"
            src.write_text(kernel(instr))
            cub = Path(d) / "k.cubin"
            subprocess.run(["ptxas", "-arch=sm_90", str(src), "-o", str(cub)], check=True)
            out = subprocess.run([NVDISASM, "-c", str(cub)], check=True, capture_output=True)
            print(f"// ---- {instr}")
            for line in out.stdout.decode().splitlines():
                if "/*" in line or line.rstrip().endswith(":"):
                    print(line)


if __name__ == "__main__":
    main()
