# ruff: noqa: E501  (one probe snippet per line)
"""Probe ptxas 13.0's operand checks of the instructions whose operands the table leaves to code
(tex, tld4, txq, istypep, suld, sust, sured, suq, the video instructions, cp.async.bulk.tensor,
wgmma.mma_async, elect, tcgen05.ld/mma, call) and compare openptxas's answer line by line.

Each family is a list of one-line snippets. They are placed, one per line, in a kernel that
declares registers of every common type, a texref/samplerref/surfref, a tensor-map parameter and
shared memory; ptxas and openptxas each check the file, and every line whose messages differ is
printed (``=`` lines agree). Wrong-typed, wrong-count and wrong-kind operands teach the rules.

    python scripts/ptx_probe_operands.py [FAMILY ...] [--all]   # --all: print agreeing lines too
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openptxas.ptx import diagnose  # noqa: E402

PRELUDE = """\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\t.reg .b16 %rs<8>;
\t.reg .f32 %f<8>;
\t.reg .f64 %fd<8>;
\t.reg .pred %p<8>;
\t.reg .s32 %s<8>;
\t.reg .u32 %u<8>;
\t.reg .u64 %ud<8>;
\t.reg .s64 %sd<8>;
\t.reg .u16 %h<8>;
\t.reg .f16 %hf<8>;
\t.reg .f16x2 %hh<8>;
\t.reg .b128 %q<4>;
\t.shared .align 16 .b8 smem[1024];
\t.local .align 16 .b8 lmem[64];
"""

HEADER = """.version {version}
.target {target}
.address_size 64
.global .texref tx;
.global .surfref sf;
.global .u32 gvar;
{extra}.visible .entry k(.param .u64 p0, .param .align 64 .b8 tmap[128])
{{
"""

# family -> (target, version, extra module text, extra kernel declarations, snippets)
FAMILIES: dict[str, tuple[str, str, str, str, list[str]]] = {}


def family(
    name: str, target: str = "sm_90a", version: str = "9.0", extra: str = "", body: str = ""
) -> list[str]:
    snippets: list[str] = []
    FAMILIES[name] = (target, version, extra, body, snippets)
    return snippets


# ---- textures ---------------------------------------------------------------------------------
family("tex").extend(
    [
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%s2}];",
        "tex.2d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%s2}];",
        "tex.2d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%u1,%u2}];",
        "tex.2d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%rd1,%rd2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%fd1,%fd2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, %f1];",
        "tex.1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1}];",
        "tex.1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, %f1];",
        "tex.1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.3d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tex.3d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.3d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3}];",
        "tex.a1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%f2}];",
        "tex.a1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.a1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%f2,%f3,%f4}];",
        "tex.a2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%f2,%f3,%f4}];",
        "tex.a2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tex.a2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%f2,%f3}];",
        "tex.cube.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tex.cube.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.acube.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%f2,%f3,%f4}];",
        "tex.2dms.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%s2,%s3,%s4}];",
        "tex.2dms.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%s2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%r1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%rd1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%ud1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%sd1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%fd1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [sf, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [gvar, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, %rd1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx];",
        "tex.2d.v4.f32.f32 {%s1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%rd1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.s32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.s32.f32 {%u1,%u2,%u3,%u4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 %f1, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, tx, {%f1,%f2};",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %s1;",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1,%s2};",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%f1,%f2};",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}|%p1, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}|%r1, [tx, {%f1,%f2}];",
        "tex.level.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %f3;",
        "tex.level.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %s3;",
        "tex.level.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.level.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %fd3;",
        "tex.base.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.grad.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%f1,%f2}, {%f3,%f4};",
        "tex.grad.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%f1}, {%f3};",
        "tex.grad.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1,%s2}, {%f3,%f4};",
        "tex.grad.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.grad.3d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}], {%f1,%f2,%f3,%f4}, {%f1,%f2,%f3,%f4};",
        "tex.grad.3d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}], {%f1,%f2,%f3}, {%f1,%f2,%f3};",
        "tex.2d.v2.f16x2.f32 {%hh1,%hh2}, [tx, {%f1,%f2}];",
        "tex.2d.v2.f16x2.f32 {%r1,%r2}, [tx, {%f1,%f2}];",
        "tex.2d.v2.f16x2.f32 {%f1,%f2}, [tx, {%f1,%f2}];",
        "tex.2d.v2.f16x2.f32 {%hh1,%hh2,%hh3,%hh4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f16.f32 {%hf1,%hf2,%hf3,%hf4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f16.f32 {%rs1,%rs2,%rs3,%rs4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f16.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,_}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,_}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,1.0}];",
        "tex.2d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%s1,1}];",
    ]
)
family("tld4").extend(
    [
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%s2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3}, [tx, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 %f1, [tx, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [sf, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%r1, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%rd1, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1,%s2};",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%f1,%f2};",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1,%s2}, %f1;",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %s1;",
        "tld4.r.a2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1,%f2,%f3,%f4}];",
        "tld4.r.a2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tld4.r.cube.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tld4.r.2d.v4.s32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%rd1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}|%p1, [tx, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, tx, {%f1,%f2};",
    ]
)
family("txq").extend(
    [
        "txq.width.b32 %r1, [tx];",
        "txq.width.b32 %rd1, [tx];",
        "txq.width.b32 %s1, [tx];",
        "txq.width.b32 %f1, [tx];",
        "txq.width.b32 %rs1, [tx];",
        "txq.width.b32 %r1, [%rd1];",
        "txq.width.b32 %r1, [%r1];",
        "txq.width.b32 %r1, [sf];",
        "txq.width.b32 %r1, [gvar];",
        "txq.width.b32 %r1, tx;",
        "txq.width.b32 %r1, %rd1;",
        "txq.width.b32 {%r1,%r2}, [tx];",
        "txq.level.width.b32 %r1, [tx], %r2;",
        "txq.level.width.b32 %r1, [tx], %rd2;",
        "txq.level.width.b32 %r1, [tx], %f2;",
        "txq.level.width.b32 %r1, [tx], 1;",
        "txq.level.width.b32 %r1, [tx];",
        "txq.width.b32 %r1, [tx], %r2;",
        "txq.width.b32 %r1;",
        "txq.filter_mode.b32 %r1, [tx];",
        "txq.num_samples.b32 %r1, [tx];",
        "txq.width.b32 _, [tx];",
    ]
)
family("istypep").extend(
    [
        "istypep.texref %p1, %rd1;",
        "istypep.texref %p1, %r1;",
        "istypep.texref %p1, %ud1;",
        "istypep.texref %p1, %f1;",
        "istypep.texref %p1, tx;",
        "istypep.texref %p1, [%rd1];",
        "istypep.texref %r1, %rd1;",
        "istypep.samplerref %p1, %rd1;",
        "istypep.surfref %p1, %fd1;",
        "istypep.texref %p1, 1;",
        "istypep.texref %p1, %sd1;",
    ]
)
family("suld").extend(
    [
        "suld.b.2d.b32.trap %r1, [sf, {%r1,%r2}];",
        "suld.b.2d.b32.trap %r1, [sf, {%f1,%f2}];",
        "suld.b.2d.b32.trap %r1, [sf, {%rd1,%rd2}];",
        "suld.b.2d.b32.trap %r1, [sf, {%s1,%s2}];",
        "suld.b.2d.b32.trap %r1, [sf, {%r1}];",
        "suld.b.2d.b32.trap %r1, [sf, {%r1,%r2,%r3,%r4}];",
        "suld.b.2d.b32.trap %r1, [sf, %r1];",
        "suld.b.1d.b32.trap %r1, [sf, %r1];",
        "suld.b.1d.b32.trap %r1, [sf, {%r1}];",
        "suld.b.1d.b32.trap %r1, [sf, {%r1,%r2}];",
        "suld.b.3d.b32.trap %r1, [sf, {%r1,%r2,%r3,%r4}];",
        "suld.b.3d.b32.trap %r1, [sf, {%r1,%r2,%r3}];",
        "suld.b.a1d.b32.trap %r1, [sf, {%r1,%r2}];",
        "suld.b.a2d.b32.trap %r1, [sf, {%r1,%r2,%r3,%r4}];",
        "suld.b.a2d.b32.trap %r1, [sf, {%r1,%r2,%r3}];",
        "suld.b.2d.b32.trap %r1, [tx, {%r1,%r2}];",
        "suld.b.2d.b32.trap %r1, [%rd1, {%r1,%r2}];",
        "suld.b.2d.b32.trap %r1, [%r1, {%r1,%r2}];",
        "suld.b.2d.b32.trap %r1, [gvar, {%r1,%r2}];",
        "suld.b.2d.b32.trap %rd1, [sf, {%r1,%r2}];",
        "suld.b.2d.b32.trap %rs1, [sf, {%r1,%r2}];",
        "suld.b.2d.b32.trap %f1, [sf, {%r1,%r2}];",
        "suld.b.2d.b8.trap %rs1, [sf, {%r1,%r2}];",
        "suld.b.2d.b8.trap %r1, [sf, {%r1,%r2}];",
        "suld.b.2d.b64.trap %r1, [sf, {%r1,%r2}];",
        "suld.b.2d.v2.b32.trap {%r1,%r2}, [sf, {%r1,%r2}];",
        "suld.b.2d.v2.b32.trap %r1, [sf, {%r1,%r2}];",
        "suld.b.2d.v2.b32.trap {%r1,%r2,%r3,%r4}, [sf, {%r1,%r2}];",
        "suld.b.2d.v4.b32.trap {%r1,%r2,%r3,%r4}, [sf, {%r1,%r2}];",
        "suld.b.2d.b32.trap {%r1,%r2}, [sf, {%r1,%r2}];",
        "suld.b.2d.b32.trap %r1, sf, {%r1,%r2};",
        "suld.b.2d.b32.trap %r1, [sf];",
        "suld.b.2d.b32.trap %r1, [sf, {%r1,%r2}], %r3;",
        "suld.b.2d.b32.trap %p1, [sf, {%r1,%r2}];",
        "suld.b.2d.b32.trap %r1, [sf, {%r1,1}];",
    ]
)
family("sust").extend(
    [
        "sust.b.2d.b32.trap [sf, {%r1,%r2}], %r3;",
        "sust.b.2d.b32.trap [sf, {%f1,%f2}], %r3;",
        "sust.b.2d.b32.trap [sf, {%rd1,%rd2}], %r3;",
        "sust.b.2d.b32.trap [sf, {%r1}], %r3;",
        "sust.b.2d.b32.trap [sf, {%r1,%r2,%r3,%r4}], %r3;",
        "sust.b.2d.b32.trap [sf, %r1], %r3;",
        "sust.b.1d.b32.trap [sf, %r1], %r3;",
        "sust.b.3d.b32.trap [sf, {%r1,%r2,%r3}], %r3;",
        "sust.b.2d.b32.trap [tx, {%r1,%r2}], %r3;",
        "sust.b.2d.b32.trap [%rd1, {%r1,%r2}], %r3;",
        "sust.b.2d.b32.trap [%r1, {%r1,%r2}], %r3;",
        "sust.b.2d.b32.trap [sf, {%r1,%r2}], %rd3;",
        "sust.b.2d.b32.trap [sf, {%r1,%r2}], %f3;",
        "sust.b.2d.b32.trap [sf, {%r1,%r2}], %rs3;",
        "sust.b.2d.b32.trap [sf, {%r1,%r2}], 5;",
        "sust.b.2d.v2.b32.trap [sf, {%r1,%r2}], {%r3,%r4};",
        "sust.b.2d.v2.b32.trap [sf, {%r1,%r2}], %r3;",
        "sust.b.2d.v4.b32.trap [sf, {%r1,%r2}], {%r3,%r4};",
        "sust.b.2d.b32.trap [sf, {%r1,%r2}], {%r3,%r4};",
        "sust.p.2d.b32.trap [sf, {%r1,%r2}], %r3;",
        "sust.p.2d.v4.b32.trap [sf, {%r1,%r2}], {%f1,%f2,%f3,%f4};",
        "sust.b.2d.b32.trap sf, {%r1,%r2}, %r3;",
        "sust.b.2d.b32.trap [sf, {%r1,%r2}];",
        "sust.b.2d.b32.trap %r1, [sf, {%r1,%r2}];",
    ]
)
family("sured").extend(
    [
        "sured.b.add.2d.u32.trap [sf, {%r1,%r2}], %r3;",
        "sured.b.add.2d.u32.trap [sf, {%f1,%f2}], %r3;",
        "sured.b.add.2d.u32.trap [sf, {%r1}], %r3;",
        "sured.b.add.2d.u32.trap [sf, {%r1,%r2,%r3,%r4}], %r3;",
        "sured.b.add.1d.u32.trap [sf, %r1], %r3;",
        "sured.b.add.2d.u32.trap [tx, {%r1,%r2}], %r3;",
        "sured.b.add.2d.u32.trap [%rd1, {%r1,%r2}], %r3;",
        "sured.b.add.2d.u32.trap [sf, {%r1,%r2}], %rd3;",
        "sured.b.add.2d.u64.trap [sf, {%r1,%r2}], %rd3;",
        "sured.b.add.2d.u64.trap [sf, {%r1,%r2}], %r3;",
        "sured.b.add.2d.u32.trap [sf, {%r1,%r2}], %f3;",
        "sured.b.add.2d.u32.trap [sf, {%r1,%r2}], {%r3,%r4};",
        "sured.p.add.2d.u32.trap [sf, {%r1,%r2}], %r3;",
        "sured.b.add.2d.u32.trap [sf, {%r1,%r2}];",
        "sured.b.add.2d.u32.trap sf, {%r1,%r2}, %r3;",
        "sured.b.add.2d.u32.trap [sf, {%rd1,%rd2}], %r3;",
    ]
)
family("suq").extend(
    [
        "suq.width.b32 %r1, [sf];",
        "suq.width.b32 %rd1, [sf];",
        "suq.width.b32 %f1, [sf];",
        "suq.width.b32 %r1, [%rd1];",
        "suq.width.b32 %r1, [%r1];",
        "suq.width.b32 %r1, [tx];",
        "suq.width.b32 %r1, [gvar];",
        "suq.width.b32 %r1, sf;",
        "suq.width.b32 %r1, [sf], %r2;",
        "suq.width.b32 {%r1,%r2}, [sf];",
        "suq.width.b32 %r1;",
    ]
)
family("video").extend(
    [
        "vadd.u32.u32.u32 %r1, %r2, %r3;",
        "vadd.u32.u32.u32 %r1, %r2.b0, %r3.h1;",
        "vadd.u32.u32.u32 %r1.b0, %r2, %r3;",
        "vadd.u32.u32.u32 %r1.h0, %r2, %r3;",
        "vadd.u32.u32.u32 %r1, %r2.b4, %r3;",
        "vadd.u32.u32.u32 %r1, %r2.h2, %r3;",
        "vadd.u32.u32.u32 %r1, %r2.x, %r3;",
        "vadd.u32.u32.u32 %r1, %r2.b0b1, %r3;",
        "vadd.u32.u32.u32 %r1, %rd2, %r3;",
        "vadd.u32.u32.u32 %rd1, %r2, %r3;",
        "vadd.u32.u32.u32 %r1, %r2, %rd3;",
        "vadd.u32.u32.u32 %r1, %f2, %r3;",
        "vadd.u32.u32.u32 %r1, %rs2, %r3;",
        "vadd.u32.u32.u32 %f1, %r2, %r3;",
        "vadd.u32.u32.u32 %r1, %s2, %r3;",
        "vadd.s32.u32.u32 %s1, %u2, %s3;",
        "vadd.u32.u32.u32 %r1, 5, %r3;",
        "vadd.u32.u32.u32 %r1, %r2, 5;",
        "vadd.u32.u32.u32.add %r1, %r2, %r3, %r4;",
        "vadd.u32.u32.u32.add %r1, %r2, %r3, %rd4;",
        "vadd.u32.u32.u32.add %r1, %r2, %r3, 7;",
        "vadd.u32.u32.u32.add %r1, %r2, %r3;",
        "vadd.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "vadd.u32.u32.u32 %r1, %r2;",
        "vadd.u32.u32.u32.add %r1.b0, %r2, %r3, %r4;",
        "vadd.u32.u32.u32.add %r1, %r2, %r3, %r4.b0;",
        "vadd.u32.u32.u32 %r1, %r2, %r3, %r4.b0;",
        "vadd.u32.u32.u32 %r1.b0, %r2, %r3, %r4;",
        "vadd.u32.u32.u32 %r1.b1, %r2, %r3, %r4;",
        "vadd.u32.u32.u32 %r1.h1, %r2, %r3, %r4;",
        "vadd.u32.u32.u32 %p1, %r2, %r3;",
        "vadd.u32.u32.u32 %r1|%p1, %r2, %r3;",
        "vadd.u32.u32.u32 %r1, -%r2, %r3;",
        "vadd.u32.u32.u32 %r1, %r2, [%rd3];",
        "vadd.u32.u32.u32 %r1, {%r2,%r3}, %r3;",
        "vadd.u32.u32.u32 _, %r2, %r3;",
        "vshl.u32.u32.u32.clamp %r1, %r2, %r3;",
        "vshl.u32.u32.u32.clamp %r1, %r2.b1, %r3;",
        "vshl.u32.u32.u32.clamp %r1, %r2, %r3.b1;",
        "vshl.u32.u32.u32.clamp %r1, %r2, %rd3;",
        "vshr.u32.u32.u32.clamp %r1, %r2, 31;",
        "vshr.u32.u32.u32.clamp.add %r1, %r2, %r3, %r4;",
        "vmad.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "vmad.u32.u32.u32 %r1, %r2.h0, %r3.h1, %r4;",
        "vmad.u32.u32.u32 %r1, %r2, %r3, %r4.b0;",
        "vmad.u32.u32.u32 %r1, %r2, %r3;",
        "vmad.u32.u32.u32 %r1, %r2, %r3, %rd4;",
        "vmad.u32.u32.u32 %r1.b0, %r2, %r3, %r4;",
        "vmad.u32.u32.u32 %r1, -%r2, %r3, %r4;",
        "vmad.u32.u32.u32 %r1, %r2, -%r3, -%r4;",
        "vset.u32.u32.lt %r1, %r2, %r3;",
        "vset.u32.u32.lt %p1, %r2, %r3;",
        "vset.u32.u32.lt %r1, %r2.b1, %r3.b2;",
        "vset.u32.u32.lt %r1.b0, %r2, %r3;",
        "vset.u32.u32.lt.add %r1, %r2, %r3, %r4;",
        "vset.u32.u32.lt %r1, %r2, %rd3;",
        "vset.u32.u32.lt %r1, %r2;",
        "vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "vadd2.u32.u32.u32 %r1, %r2, %r3;",
        "vadd2.u32.u32.u32 %r1.h0, %r2, %r3, %r4;",
        "vadd2.u32.u32.u32 %r1.h10, %r2.h10, %r3.h01, %r4;",
        "vadd2.u32.u32.u32 %r1, %r2.b0, %r3, %r4;",
        "vadd2.u32.u32.u32 %r1, %r2.h2, %r3, %r4;",
        "vadd2.u32.u32.u32 %r1, %r2.h1, %r3, %r4;",
        "vadd2.u32.u32.u32 %r1, %r2, %r3, %rd4;",
        "vadd2.u32.u32.u32 %rd1, %r2, %r3, %r4;",
        "vadd2.u32.u32.u32 %r1, %r2, %r3, %r4.h1;",
        "vadd4.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "vadd4.u32.u32.u32 %r1.b3210, %r2.b3210, %r3.b7654, %r4;",
        "vadd4.u32.u32.u32 %r1, %r2.b0, %r3, %r4;",
        "vadd4.u32.u32.u32 %r1, %r2.h10, %r3, %r4;",
        "vadd4.u32.u32.u32 %r1, %r2.b321, %r3, %r4;",
        "vadd4.u32.u32.u32 %r1, %r2.b8765, %r3, %r4;",
        "vadd4.u32.u32.u32 %r1, %r2, %r3;",
        "vset2.u32.u32.lt %r1, %r2, %r3, %r4;",
        "vset4.u32.u32.lt %r1, %r2, %r3, %rd4;",
        "vset4.u32.u32.lt %p1, %r2, %r3, %r4;",
        "vavrg2.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "vmin4.s32.s32.s32 %f1, %r2, %r3, %r4;",
    ]
)
_TM = "[tmap, {%r1, %r2}]"
family("bulk_tensor").extend(
    [
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%r1, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3}], [smem+8];",
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1}], [smem+8];",
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, %r1], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%rd1, %rd2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%f1, %f2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%rs1, %rs2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, 5}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%s1, %u2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes %r1, [tmap, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [tmap, {%r1, %r2}], [%rd2];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [tmap, {%r1, %r2}], [%r2];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2}], %rd2;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2}];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], tmap, {%r1, %r2}, [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [smem, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [gvar, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [gvar], [tmap, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2}], [gvar];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2}], [smem+8], %rs1;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [smem], [tmap, {%r1, %r2}], [smem+8], %rs1;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [smem], [tmap, {%r1, %r2}], [smem+8], %r1;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [smem], [tmap, {%r1, %r2}], [smem+8], %rd1;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [smem], [tmap, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [smem], [tmap, {%r1, %r2}], [smem+8], %rd1;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [smem], [tmap, {%r1, %r2}], [smem+8], %r1;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [smem], [tmap, {%r1, %r2}], [smem+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [smem], [tmap, {%r1, %r2}], [smem+8], %rs1, %rd1;",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3}], [smem+8], {%rs1};",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3}], [smem+8];",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3}], [smem+8], {%rs1, %rs2};",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3}], [smem+8], {%r1};",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3}], [smem+8], %rs1;",
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3, %r4}], [smem+8], {%rs1, %rs2};",
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3, %r4}], [smem+8], {%rs1};",
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2, %r3, %r4, %r5}], [smem+8], {%rs1, %rs2, %rs3};",
        "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [smem], [tmap, {%r1, %r2}], [smem+8], {%rs1};",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {%r1, %r2}], [smem];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {%r1}], [smem];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {%f1, %f2}], [smem];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [smem];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [smem], [tmap, {%r1, %r2}];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {%r1, %r2}], %rd1;",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [tmap, {%r1, %r2}], [smem], %rd1;",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [tmap, {%r1, %r2}], [smem];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {%r1, %r2}], [smem], %rd1;",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [tmap, {%r1, %r2}], [smem];",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [tmap, {%r1}], [smem];",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [tmap, {%f1, %f2}], [smem];",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [%r1, {%r1, %r2}], [smem];",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [tmap, {%r1, %r2}], %r1;",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [tmap, {%r1, %r2}];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [tmap, {%r1, %r2}];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [tmap, {%r1}];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [tmap, {%rd1, %rd2}];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r2}];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [%r1, {%r1, %r2}];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global tmap, {%r1, %r2};",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [tmap, {%r1, %r2}], %rd1;",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.L2::cache_hint [tmap, {%r1, %r2}], %rd1;",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.L2::cache_hint [tmap, {%r1, %r2}], %r1;",
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [tmap, {%r1, %r2, %r3}], {%rs1};",
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [tmap, {%r1, %r2, %r3}];",
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [tmap, {%r1, %r2, %r3}], {%rs1, %rs2};",
    ]
)
_D8 = "{%f1,%f2,%f3,%f4}"
_D16 = "{%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f0}"
family("wgmma").extend(
    [
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 2, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1, 2, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, -1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, %r1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %r1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %r2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %ud1, %ud2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %fd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, {{%r1,%r2,%r3,%r4}}, %rd2, %p1, 1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, {{%r1,%r2,%r3,%r4}}, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, {{%r1,%r2}}, %rd2, %p1, 1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, {{%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}}, %rd2, %p1, 1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, {{%f1,%f2,%f3,%f4}}, %rd2, %p1, 1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, {{%rd1,%rd2,%rd3,%rd4}}, %rd2, %p1, 1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D8}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%rd1,%rd2,%rd3,%rd4,%rd5,%rd6,%rd7,%rd0}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 %f1, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %r1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, 1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, !%p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%r1,%r2}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%hh1,%hh2,%hh3,%hh4}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, %rd1, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, %rd1, %rd2, %p1, 1, 1;",
        "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f0}, %rd1, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, {%r1,%r2,%r3,%r4}, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, %r1, %rd2, %p1;",
        f"wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {_D16}, %rd1, %rd2, %p1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {_D16}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {_D16}, {{%r1,%r2,%r3,%r4}}, %rd2, %p1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {_D16}, %rd1, %rd2, %p1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {_D16}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {_D16}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {_D16}, {{%r1,%r2,%r3,%r4}}, %rd2, %p1, 1, 1, 0;",
        "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, %rd2, %p1;",
    ]
)
family("elect").extend(
    [
        "elect.sync %r1|%p1, %r2;",
        "elect.sync _|%p1, %r2;",
        "elect.sync %r1|%p1, 0xffffffff;",
        "elect.sync %r1, %r2;",
        "elect.sync %p1, %r2;",
        "elect.sync %rd1|%p1, %r2;",
        "elect.sync %f1|%p1, %r2;",
        "elect.sync %s1|%p1, %r2;",
        "elect.sync %r1|%r3, %r2;",
        "elect.sync %r1|%p1, %rd2;",
        "elect.sync %r1|%p1, %p2;",
        "elect.sync %r1|_, %r2;",
        "elect.sync _|_, %r2;",
        "elect.sync %r1|%p1;",
        "elect.sync %r1|%p1, %r2, %r3;",
        "elect.sync {%r1,%r2}|%p1, %r2;",
    ]
)


# second rounds: mixed vectors, optional operands, immediates
family("tex2").extend(
    [
        "tex.base.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1}];",
        "tex.2d.v4.f32.f32 {%f1,%rd2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%s3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%s1,%s2,%s3,%s4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%r2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.s32.f32 {%rd1,%rd2,%rd3,%rd4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%s2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%rd2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %s1, %f1;",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1,%s2}, %f1;",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1,%s2}, %s1;",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1}, %f1;",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %rd1;",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%s1,%s2}, %f1, %f2;",
        "tex.3d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}], {%s1,%s2};",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, %r1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%rd1, %rd2, {%f1,%f2}];",
        "tex.a1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%rd1,%f2}];",
        "tex.a1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%s1}];",
        "tex.a1d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, %s1];",
        "tex.acube.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2,%f3,%f4}];",
        "tex.a2dms.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%s2,%s3,%s4}];",
        "tex.level.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %r3;",
        "tex.level.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], 1;",
        "tex.grad.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%f1,%f2,%f3,%f4}, {%f3,%f4,%f1,%f2};",
        "tex.grad.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], %f1, %f2;",
        "tex.grad.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], {%r1,%r2}, {%f3,%f4};",
    ]
)
_W = "wgmma.mma_async.sync.aligned"
_R8 = "{%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}"
family("wgmma2").extend(
    [
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, 1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, !%p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, %rd1, %fd2, %p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, %rd1, {{%rd2}}, %p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 3, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1, 0, 5;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 0, 0, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, {{%r1,%r2,%r3,%r4}}, %rd2, %p1, 1, 1, 2;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, {{%hh1,%hh2,%hh3,%hh4}}, %rd2, %p1, 1, 1, 1;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, {{%s1,%s2,%s3,%s4}}, %rd2, %p1, 1, 1, 1;",
        f"{_W}.m64n16k16.f32.f16.f16 {_D16}, {{%r1,%r2,%r3}}, %rd2, %p1, 1, 1, 1;",
        f"{_W}.m64n16k16.f32.f16.f16 {{%f1,%f2,%f3,%f4,%f5,%f6,%f7,%rd0}}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {{%f1,%f2,%f3,%f4,%f5,%f6,%f7,%s0}}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {{%f1,%f2,%f3,%f4,%f5,%f6,%f7,_}}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f32.f16.f16 {{%f1,%f2,%f3,%f4,%f5,%f6,%f7,1.0}}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k16.f16.f16.f16 {{%s1,%s2,%s3,%s4}}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"{_W}.m64n16k8.f32.tf32.tf32 {_D16}, %r1, %rd2, %p1, 1, 1;",
        f"{_W}.m64n16k8.f32.tf32.tf32 {_D16}, %fd1, %rd2, %p1, 1, 1;",
        f"{_W}.m64n16k8.f32.tf32.tf32 {_D16}, {{%f1,%f2,%f3,%f4}}, %rd2, %p1, 1, 1;",
        f"{_W}.m64n16k8.f32.tf32.tf32 {_D16}, {{%r1,%r2}}, %rd2, %p1, 1, 1;",
        f"{_W}.m64n16k32.f32.e4m3.e4m3 {_D16}, %rd1, %rd2, %p1, 2, 1;",
        f"{_W}.m64n16k32.f16.e4m3.e4m3 {{%r1,%r2,%r3,%r4}}, %rd1, %rd2, %p1, 1, 1;",
        f"{_W}.m64n16k32.s32.s8.s8 {_R8}, %rd1, %rd2, %p1, 1;",
        f"{_W}.m64n16k32.s32.s8.s8 {_R8}, {{%r1,%r2}}, %rd2, %p1;",
        f"{_W}.m64n16k32.s32.s8.s8 {{%r1,%r2,%r3,%r4,%r5,%r6,%r7,%f0}}, %rd1, %rd2, %p1;",
        f"{_W}.m64n8k256.s32.b1.b1.and.popc {{%r1,%r2}}, %rd1, %rd2, %p1;",
        f"{_W}.m64n8k256.s32.b1.b1.and.popc {{%r1,%r2,%r3,%r4}}, %r1, %rd2, %p1;",
        f"{_W}.m64n16k32.s32.s8.s8 %r1, %rd1, %rd2, %p1;",
    ]
)
_C2 = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
family("bulk_tensor2", extra=".global .align 64 .b8 gtm[128];\n").extend(
    [
        f"{_C2} [smem], [%rd1, {{%r1, %r2}}], [smem+8];",
        f"{_C2} [smem], [gtm, {{%r1, %r2}}], [smem+8];",
        f"{_C2} [%r1], [%rd1, {{%r1, %r2}}], [%r2];",
        f"{_C2} [smem], [%r1, {{%r1, %r2}}], [smem];",
        f"{_C2} [smem], [%fd1, {{%r1, %r2}}], [smem];",
        f"{_C2} [lmem], [%rd1, {{%r1, %r2}}], [smem];",
        f"{_C2} [smem], [%rd1, {{%r1, %r2}}], [lmem];",
        f"{_C2} [smem], [lmem, {{%r1, %r2}}], [smem];",
        f"{_C2} [smem], [tx, {{%r1, %r2}}], [smem];",
        f"{_C2} [smem], [%rd1, {{%r1, %r2}}], [smem], %rs1;",
        f"{_C2} 5, [%rd1, {{%r1, %r2}}], [smem];",
        f"{_C2} [smem], [%rd1, {{%r1, 4}}], [smem];",
        f"{_C2} [smem], [%rd1, {{%r1, _}}], [smem];",
        f"{_C2} [smem], [%rd1, {{%r1, %r2}}], [smem], %rd1;",
        f"{_C2}.multicast::cluster [smem], [gtm, {{%r1, %r2}}], [smem+8], %r1;",
        f"{_C2}.L2::cache_hint [smem], [gtm, {{%r1, %r2}}], [smem+8], %r1;",
    ]
)

family("negation", target="sm_90").extend(
    [
        "vmad.u32.u32.u32 %r1, -%r2, %r3, %r4;",
        "vmad.u32.u32.u32 %r1, -%r2, -%r3, %r4;",
        "vmad.u32.u32.u32 %r1, %r2, %r3, -%r4;",
        "vmad.u32.u32.u32 %r1, -%r2, %r3, -%r4;",
        "vmad.u32.u32.u32 -%r1, %r2, %r3, %r4;",
        "vmad.u32.u32.u32.po %r1, -%r2, %r3, %r4;",
        "vadd.u32.u32.u32 %r1.b0, -%r2, %r3;",
        "vadd.u32.u32.u32 %r1, -%r2, %rd3;",
        "vadd.u32.u32.u32 %r1, -%r2, %r3;",
        "add.s32 %r1, -%r9, %r3;",
        "add.s32 %r1, -%tid.x, %r3;",
        "add.s32 %r1, - %r2, %r3;",
        "setp.eq.s32 %p1, -%r2, %r3;",
        "add.s32 %r1, -%r2, 5;",
        "add.foo.s32 %r1, -%r2, 5;",
        "add.s32 %r1, -%p2, 5;",
        "mov.b32 %r1, -%r2;",
        "add.s32 %r1, -5, %r2;",
        "add.f32 %f1, -%f2, %f3;",
        "add.s64 %rd1, -%rd2, %rd3;",
        "mov.b32 %f1, -%f2;",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}], -%f1;",
        "vadd.u32.u32.u32 %r1, -%f2, %r3;",
        "vadd.u32.u32.u32 %r1, -%rd2, %r3;",
        "vmad.u32.u32.u32 %r1, -%f2, %r3, %r4;",
        "vadd.u32.u32.u32 %r1, -%p2, %r3;",
    ]
)
family("gates", target="sm_100a").extend(
    [
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1;",
        "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1;",
    ]
)

family(
    "call",
    extra=".func (.param .b32 r) f(.param .b64 a, .param .b32 b)\n{\n\tret;\n}\n"
    ".func g()\n{\n\tret;\n}\n",
    body="\t.param .b64 pa;\n\t.param .b32 pb;\n\t.param .b32 pr;\n\t.param .b16 ph;\n"
    "\t.param .align 8 .b8 parr[8];\n\t.param .f32 pf;\n\t.const .b64 cv;\n",
).extend(
    [
        "call (pr), f, (pa, pb);",
        "call (pr), f, (pb, pb);",
        "call (pr), f, (pa, pa);",
        "call (pa), f, (pa, pb);",
        "call (ph), f, (pa, pb);",
        "call (pr), f, (parr, pb);",
        "call (pr), f, (pa, pf);",
        "call (%r1), f, (pa, pb);",
        "call (pr), f, (%rd1, %r1);",
        "call (pr), f, (%r1, %rd1);",
        "call (pr), f, (%rs1, pb);",
        "call (pr), f, (pa, 5);",
        "call (pr), f, (pa, %f1);",
        "call (pr), f, (smem, pb);",
        "call (pr), f, (lmem, pb);",
        "call (pr), f, (cv, pb);",
        "call (pr), f, (gvar, pb);",
        "call (pr), f, (pa);",
        "call f, (pa, pb);",
        "call g, (pa);",
        "call g;",
        "call (pr), %rd1, (pa, pb);",
        "call.uni (pr), f, (pa, pb);",
        "call (pr, pb), f, (pa, pb);",
        "call (_), f, (pa, pb);",
        "call (pr), f, (pa, _);",
        "call (pr), f, ({%r1,%r2}, pb);",
        "call (pr), f, (pa+4, pb);",
        "call (pr), f, (pa, pb-4);",
        "call (pr), f, (pa, -4);",
        "call (pr+4), f, (pa, pb);",
        "call (pr), tx, (pa, pb);",
        "call (pr), p0, (pa, pb);",
        "call (pr), f, (p0, pb);",
    ]
)

_M1 = "tcgen05.mma.cta_group::1.kind::f16"
family("tcgen05_mma", target="sm_100a").extend(
    [
        f"{_M1} [%r1], %rd1, %rd2, %r3, %p1;",
        f"{_M1} [%r1], [%r2], %rd2, %r3, %p1;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, {{%r1,%r2,%r3,%r4}}, %p1;",
        f"{_M1} [%r1], %rd1, %rd2, %r3;",
        f"{_M1} %r1, %rd1, %rd2, %r3, %p1;",
        f"{_M1} [%rd1], %rd1, %rd2, %r3, %p1;",
        f"{_M1} [%r1], %r1, %rd2, %r3, %p1;",
        f"{_M1} [%r1], %rd1, %r2, %r3, %p1;",
        f"{_M1} [%r1], %rd1, %rd2, %rd3, %p1;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, %r4;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, 1;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, !%p1;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, %p1, %r5;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, {{%r1,%r2}}, %p1;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, {{%rd1,%rd2,%rd3,%rd4}}, %p1;",
        f"{_M1} [smem], %rd1, %rd2, %r3, %p1;",
        f"{_M1} [%r1], [smem], %rd2, %r3, %p1;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, %p1, 5;",
        f"{_M1} [%r1], %rd1, %rd2, %r3, %p1, 5, 6;",
        f"{_M1} [%r1], %rd1, %rd2, 7, %p1;",
        f"{_M1} [%r1], %rd1, 7, %r3, %p1;",
        "tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r3, {%r1,%r2,%r3,%r4}, %p1;",
        "tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r3, {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, %p1;",
        "tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r3, %p1, 5;",
        "tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r3, %p1;",
        "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r3, %p1;",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%r5], %p1;",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r3, %r4, [%r5], %p1;",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], [%rd5], %p1;",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r3, [%r4], %p1;",
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1;",
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1, %rd4;",
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r3, %p1, %r4;",
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r4], %r3, %p1;",
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r4, %r3, %p1;",
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r4], %r3, {%r1,%r2,%r3,%r4}, %p1;",
    ]
)
family("tcgen05_ld", target="sm_103a").extend(
    [
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, %r3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, %rd3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, {%f3}, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r1,%r2}, %r3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r1,%r2}, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2,%f3}, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2,%f3,%f4}, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, %f3, [%rd1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, %f3, %r1;",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%rd1,%rd2}, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 %f1, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.f32 {%f1,%f2}, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.f32 {%f1,%f2}, %f3, [%r1], 4;",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, %f3, [%r1], 4;",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, [%r1];",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,%r2}, [%r1];",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,%r2,%r3,%r4}, [%r1];",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,%r2}, [%rd1];",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%rd1,%rd2}, [%r1];",
        "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r1,%r2}, [%r1];",
        "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r1,%r2}, [%r1], 4;",
    ]
)
family("tcgen05_ld_gate", target="sm_100a").extend(
    [
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1,%f2}, %f3, [%r1];",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.max.u32 {%r1,%r2}, %r3, [%r1];",
    ]
)

family("tcgen05_st", target="sm_100a").extend(
    [
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], {%r1,%r2};",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], {%r1,%r2,%r3,%r4};",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%rd1], {%r1,%r2};",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], {%rd1,%rd2};",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], {%f1,%f2};",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], %r1;",
        "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r1], %r1;",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 %r1, {%r1,%r2};",
        "tcgen05.st.sync.aligned.16x128b.x1.b32 [%r1], {%r1,%r2};",
        "tcgen05.st.sync.aligned.16x256b.x1.b32 [%r1], {%r1,%r2};",
        "tcgen05.st.sync.aligned.16x64b.x2.b32 [%r1], {%r1,%r2};",
        "tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%r1], 4, {%r1,%r2};",
        "tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%r1], {%r1,%r2};",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], 4, {%r1,%r2};",
        "tcgen05.st.sync.aligned.16x32bx2.x2.b32 [%r1], %r2, {%r1,%r2};",
        "tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%r1], {%r1,%r2};",
        "tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%r1], {%r1};",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], {%r1,_};",
        "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r1,%r2}, [%r1];",
        "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r1}, [%r1];",
        "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r1,%r2,%r3,%r4}, [%r1];",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,_}, [%r1];",
        "tcgen05.ld.sync.aligned.16x64b.x4.b32 {%r1,%r2,%r3,%r4}, [%r1];",
        "tcgen05.ld.sync.aligned.16x256b.x1.b32 {%r1,%r2,%r3,%r4}, [%r1];",
        "tcgen05.ld.sync.aligned.16x256b.x1.b32 {%r1,%r2}, [%r1];",
    ]
)

_WS = "wgmma.mma_async.sp.sync.aligned"
family("wgmma_sp").extend(
    [
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, {{%r1,%r2,%r3,%r4}}, %rd2, %r3, 0, %p1, 1, 1, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %rd3, 0, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, %r4, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 4, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 1, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 0, %p1, 2, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, 1, 0, 3;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, 1;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 0, %r1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %r1, %rd2, %r3, 0, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D8}, %rd1, %rd2, %r3, 0, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 %f1, %rd1, %rd2, %r3, 0, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k64.s32.s8.s8 {_R8}, %rd1, %rd2, %r3, 0, %p1;",
        f"{_WS}.m64n16k64.s32.s8.s8 {_R8}, %rd1, %rd2, %r3, 0, %p1, 1, 1;",
        f"{_WS}.m64n16k64.s32.s8.s8 {_R8}, %rd1, %rd2, %r3, 2, %p1;",
        f"{_WS}.m64n16k64.s32.s8.s8 {_R8}, %r1, %rd2, %r3, 0, %p1;",
        f"{_WS}.m64n16k16.f32.tf32.tf32 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, 1;",
        f"{_WS}.m64n16k16.f32.tf32.tf32 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k64.f32.e4m3.e4m3 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, -1;",
        f"{_WS}.m64n16k64.f32.e4m3.e4m3 {_D16}, %rd1, %rd2, %r3, 1, %p1, 1, -1;",
        f"{_WS}.m64n16k16.f32.tf32.tf32 {_D16}, %rd1, %rd2, %r3, 1, %p1, 1, 1;",
        f"{_WS}.m64n16k16.f32.tf32.tf32 {_D16}, %rd1, %rd2, %r3, 2, %p1, 1, 1;",
        f"{_WS}.m64n16k32.f32.bf16.bf16 {_D16}, %rd1, %rd2, %r3, 2, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 0, %p1, 0, 1, 2, 0;",
        "wgmma.mma_async.sync.aligned.m64n16k64.s32.s8.s8 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, %rd1, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n16k16.s32.s8.s8 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0}, %rd1, %rd2, %p1;",
        "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r0,%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1;",
        f"wgmma.mma_async.sync.aligned.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k8.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.tf32.tf32 {_D16}, %rd1, %rd2, %p1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.e4m3.e4m3 {_D16}, %rd1, %rd2, %p1, 1, 1;",
        "wgmma.mma_async.sync.aligned.m64n8k128.s32.b1.b1.and.popc {%r1,%r2,%r3,%r4}, %rd1, %rd2, %p1;",
        f"{_WS}.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, 1, 0, 0;",
        f"{_WS}.m64n16k32.f32.e4m3.e4m3 {_D16}, %rd1, %rd2, %r3, 0, %p1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k32.f32.f16.f16 {_D16}, %rd1, %rd2, %p1, 1, 1;",
    ]
)

family(
    "tex_independent",
    target="sm_90, texmode_independent",
    extra=".global .samplerref smp;\n",
).extend(
    [
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, smp, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, %rd1, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, tx, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [smp, smp, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, sf, {%f1,%f2}];",
        "tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, %r1, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, smp, {%f1,%f2}];",
        "tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tx, {%f1,%f2}];",
        "txq.width.b32 %r1, [smp];",
        "txq.filter_mode.b32 %r1, [smp];",
        "txq.width.b32 %r1, [tx];",
        "istypep.samplerref %p1, %rd1;",
    ]
)

family(
    "tex_param_handles",
    extra=".visible .entry k2(.param .texref ptr, .param .surfref psf, .param .samplerref psm)\n"
    "{\n\t.reg .f32 %f<8>;\n\t.reg .b32 %r<8>;\n"
    "\ttex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [ptr, {%f1,%f2}];\n"
    "\tsuld.b.2d.b32.trap %r1, [psf, {%r1,%r2}];\n"
    "\ttxq.width.b32 %r1, [ptr];\n"
    "\ttex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [psf, {%f1,%f2}];\n"
    "\tret;\n}\n",
).extend(["ret;"])

_MSG = re.compile(r"^ptxas (?:\S+, line (\d+); )?(\w+)\s*: (.*)$")


def ptxas_lines(text: str, target: str) -> dict[int, list[str]]:
    target = target.split(",")[0]
    arch = target if int(target[3:].rstrip("af")) >= 75 else "sm_75"
    with tempfile.TemporaryDirectory() as td:
        (Path(td) / "t.ptx").write_text(text)
        r = subprocess.run(
            ["ptxas", f"-arch={arch}", "t.ptx", "-o", "t.cubin"],
            cwd=td,
            capture_output=True,
            text=True,
            check=False,
        )
    out: dict[int, list[str]] = defaultdict(list)
    for ln in (r.stdout + r.stderr).splitlines():
        m = _MSG.match(ln)
        if m and m.group(1) and "Ptx assembly aborted" not in ln:
            out[int(m.group(1))].append(f"{m.group(2)}: {m.group(3)}")
    return out


def ours_lines(text: str, target: str) -> dict[int, list[str]]:
    out: dict[int, list[str]] = defaultdict(list)
    for d in diagnose(text, "t.ptx", None):
        m = _MSG.match(d.render())
        if m and m.group(1):
            out[int(m.group(1))].append(f"{m.group(2)}: {m.group(3)}")
    return out


def _one(head: str, snippet: str, target: str) -> tuple[list[str], list[str]]:
    text = head + f"\t{snippet}\n\tret;\n}}\n"
    ln = head.count("\n") + 1

    def flat(d: dict[int, list[str]]) -> list[str]:
        return [m if k == ln else f"line {k - ln:+d}: {m}" for k in sorted(d) for m in d[k]]

    return flat(ptxas_lines(text, target)), flat(ours_lines(text, target))


def run_family(name: str, show_all: bool) -> tuple[int, int]:
    """Each snippet in its own file (a fatal error or a syntax error ends ptxas's checks)."""
    target, version, extra, body, snippets = FAMILIES[name]
    head = HEADER.format(version=version, target=target, extra=extra) + PRELUDE + body
    with ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda s: _one(head, s, target), snippets))
    agree = 0
    for s, (a, b) in zip(snippets, results, strict=True):
        if a == b:
            agree += 1
            if show_all:
                print(f"= {s}\n    {a or 'ok'}")
        else:
            print(f"! {s}\n    ptxas: {a or 'ok'}\n    ours : {b or 'ok'}")
    return agree, len(snippets)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("families", nargs="*")
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    total = [0, 0]
    for name in args.families or list(FAMILIES):
        print(f"== {name}")
        a, n = run_family(name, args.all)
        print(f"   {name}: {a}/{n} lines agree")
        total[0] += a
        total[1] += n
    print(f"total: {total[0]}/{total[1]} lines agree")
    return 0 if total[0] == total[1] else 1


if __name__ == "__main__":
    sys.exit(main())
