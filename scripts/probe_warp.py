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
    "ldst": ["ld.global.cs.v4.u32 {%r3,%r4,%r5,%r6}, [%rd2]; add.u32 %r3,%r3,%r6;",
             "ld.global.lu.u32 %r3, [%rd2];", "ld.volatile.global.u32 %r3, [%rd2];",
             "ld.global.L1::evict_last.u32 %r3, [%rd2];",
             "ld.global.nc.L1::no_allocate.v4.u32 {%r3,%r4,%r5,%r6}, [%rd2]; add.u32 %r3,%r3,%r6;",
             "st.global.cs.v4.u32 [%rd2], {%r1,%r2,%r1,%r2};"],
    "warp": ["redux.sync.add.u32 %r3, %r1, -1;", "redux.sync.min.s32 %r3, %r1, %r2;",
             "match.any.sync.b64 %r3, %rd2, %r2;", "match.all.sync.b32 %r3|%p2, %r1, -1;",
             "elect.sync %r3|%p2, -1;", "bar.arrive 1, 64;", "bar.red.popc.u32 %r3, 1, 64, %p1;"],
    "fence": ["membar.cta;", "membar.gl;", "fence.acq_rel.gpu;", "fence.sc.sys;",
              "fence.proxy.async.shared::cta;", "fence.proxy.async.global;",
              "fence.mbarrier_init.release.cluster;"],
    "cluster": ["barrier.cluster.arrive; barrier.cluster.wait;",
                "barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;",
                "mapa.shared::cluster.u32 %r3, %r1, %r2;", "getctarank.u64 %r3, %rd2;",
                "ld.shared::cluster.u32 %r3, [%r1];",
                "atom.shared::cluster.add.u32 %r3, [%r1], %r2;",
                "cvta.shared.u64 %rd3, %rd2;", "cvta.to.shared.u64 %rd3, %rd2;"],
    "mbarrier": ["mbarrier.init.shared.b64 [%r1], %r2;", "mbarrier.arrive.shared.b64 %rd3, [%r1];",
                 "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r1], %r2;",
                 "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;",
                 "mbarrier.complete_tx.shared::cta.b64 [%r1], %r2;",
                 "mbarrier.test_wait.shared.b64 %p2, [%r1], %rd2; selp.u32 %r3, 1, 0, %p2;",
                 "mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], %r2, 1000; "
                 "selp.u32 %r3, 1, 0, %p2;", "mbarrier.inval.shared.b64 [%r1];",
                 "mbarrier.pending_count.b64 %r3, %rd2;"],
    "cp_async": ["cp.async.cg.shared.global [%r1+16], [%rd2+32], 16;",
                 "cp.async.ca.shared.global [%r1], [%rd2], 8, %r2;",
                 "cp.async.cg.shared.global.L2::128B [%r1], [%rd2], 16, 8;",
                 "cp.async.commit_group; cp.async.wait_group 1;", "cp.async.wait_all;",
                 "cp.async.mbarrier.arrive.shared.b64 [%r1];"],
    "matrix": ["ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r3,%r4}, [%r1]; "
               "add.u32 %r3,%r3,%r4;",
               "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], {%r2};",
               "movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r1;",
               "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%r3,%r4,%r5,%r6}, {%r1,%r2}, "
               "{%r1}, {%r1,%r2,%r1,%r2}; add.u32 %r3,%r3,%r6;",
               "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.u8.s32 {%r3,%r4}, {%r1}, {%r2}, "
               "{%r1,%r2}; add.u32 %r3,%r3,%r4;"],
    "atom": ["atom.global.add.f64 %rd3, [%rd2], %rd2;",
             "atom.global.add.noftz.f16x2 %r3, [%rd2], %r1;",
             "atom.acq_rel.gpu.global.add.u32 %r3, [%rd2], %r1;",
             "atom.sys.global.add.u32 %r3, [%rd2], %r1;",
             "atom.acq_rel.cta.global.add.u32 %r3, [%rd2], %r1;",
             "atom.cas.b32 %r3, [%rd2+20], %r1, %r2;"],
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
