"""Print ptxas 13.0's SASS (branches and labels kept) for PTX snippets of the bulk-copy / TMA
family, in the kernel of ``scripts/probe_warp.py`` (%r1, %r2 u32 and %rd2 u64 loaded, %r3/%rd3
stored; ``smem``: 1024 shared bytes; %p1 = %r1 != 0):

    python scripts/probe_bulk.py bulk                 # the families below
    python scripts/probe_bulk.py --arch sm_90 'cp.async.bulk.commit_group;'

How the lowering in openptxas/lower/bulk_rules.py was learned.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_warp import KERNEL

from openptxas.testing.tools import find_tool

G2S = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
S2S = "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
FAMILIES: dict[str, list[str]] = {
    "bulk": [
        f"{G2S} [%r1], [%rd2], 256, [%r2];",
        f"{G2S} [%r1], [%rd2], %r2, [%r2+8];",
        f"@%p1 {G2S} [%r1], [%rd2], 64, [%r2];",
        f"{G2S}.L2::cache_hint [%r1], [%rd2], 64, [%r2], %rd2;",
        f"{G2S}.multicast::cluster [%r1], [%rd2], 64, [%r2], %rs1;".replace("%rs1", "3"),
        f"{S2S} [%r1], [%r2], 32, [%r2+16];",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r1], 128;",
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd2], [%r1], 128, %rd2;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd2], [%r1], 128;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s32 [%rd2], [%r1], 128;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%rd2], [%r1], 128;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd2], [%r1], 128;",
        f"{S2S.replace('cp.', 'cp.reduce.', 1)}.add.u32 [%r1], [%r2], 64, [%r2+8];",
        "cp.async.bulk.prefetch.L2.global [%rd2], 256;",
        "cp.async.bulk.prefetch.L2.global [%rd2], %r2;",
        "cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group 0;",
        "cp.async.bulk.wait_group 2;",
        "cp.async.bulk.wait_group.read 0;",
        "cp.async.bulk.wait_group.read 1;",
    ],
}


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
    lines = [r.stderr.strip()] if r.stderr.strip() else []
    for ln in out.splitlines():
        s = ln.strip()
        if s.startswith(".L_x_"):
            lines.append(s)
        elif s.startswith("/*") and "*/" in s and not s.endswith("*/"):
            text = s.split("*/", 1)[1].strip().rstrip(";").strip()
            if text and text != "NOP":
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
