"""Print ptxas 13.0's SASS for PTX snippets of the warp/async/special-register families.

Each snippet runs in a kernel that loads %r1, %r2 (u32) and %rd2 (a u64 pointer) from its
parameter and stores %r3 (u32) and %rd3 (u64) back, so that nothing is dead code:

    python scripts/probe_warp.py sreg          # one of the families below
    python scripts/probe_warp.py --arch sm_90a 'wgmma.fence.sync.aligned;'

The listings are how the lowering in openptxas/lower/sreg.py and warp_rules.py was learned.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from openptxas.testing.tools import find_tool

KERNEL = """.version 8.7
.target {arch}
.address_size 64
.visible .entry k(.param .u64 p0)
{{
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\t.reg .pred %p<8>;
\t.shared .align 16 .b8 smem[1024];
\tld.param.u64 %rd1, [p0];
\tcvta.to.global.u64 %rd1, %rd1;
\tld.global.u32 %r1, [%rd1];
\tld.global.u32 %r2, [%rd1+4];
\tld.global.u64 %rd2, [%rd1+16];
\tsetp.ne.u32 %p1, %r1, 0;
{body}
\tst.global.u32 [%rd1], %r3;
\tst.global.u64 [%rd1+8], %rd3;
\tret;
}}
"""

SREGS = ["%clock", "%clock_hi", "%globaltimer_lo", "%globaltimer_hi", "%envreg0", "%envreg31",
         "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
         "%reserved_smem_offset_0", "%reserved_smem_offset_1", "%total_smem_size",
         "%dynamic_smem_size", "%nsmid", "%cluster_ctarank", "%cluster_nctarank"] + [
    f"{r}.{a}" for r in ("%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid")
    for a in "xyz"]  # fmt: skip

FAMILIES: dict[str, list[str]] = {
    "sreg": [f"mov.u32 %r3, {s};" for s in SREGS]
    + ["mov.u64 %rd3, %clock64;", "mov.u64 %rd3, %globaltimer;", "mov.u64 %rd3, %gridid;",
       "mov.pred %p2, %is_explicit_cluster; selp.u32 %r3, 1, 0, %p2;",
       "nanosleep.u32 %r1;", "nanosleep.u32 100;"],
}  # fmt: skip


def listing(snippet: str, arch: str) -> str:
    nvdisasm = find_tool("nvdisasm")
    assert nvdisasm is not None
    with tempfile.TemporaryDirectory() as td:
        ptx = Path(td) / "p.ptx"
        ptx.write_text(KERNEL.format(arch=arch, body=snippet))
        r = subprocess.run(
            ["ptxas", f"-arch={arch}", str(ptx), "-o", f"{td}/p.cubin"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if r.returncode:
            return r.stderr.strip()
        out = subprocess.run(
            [nvdisasm, "-c", f"{td}/p.cubin"], capture_output=True, text=True, check=True
        ).stdout
    lines = []
    for ln in out.splitlines():
        s = ln.strip()
        if s.startswith("/*") and "*/" in s and not s.endswith("*/"):
            text = s.split("*/", 1)[1].strip().rstrip(";").strip()
            if text and text != "NOP" and not text.startswith("BRA `(.L_x_"):
                lines.append("    " + text)
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("what", nargs="+", help="a family name or PTX snippets")
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args()
    for w in a.what:
        for snip in FAMILIES.get(w, [w]):
            print(f"== {snip}\n{listing(snip, a.arch)}")


if __name__ == "__main__":
    main()
