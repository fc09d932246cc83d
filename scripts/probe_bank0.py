#!/usr/bin/env python3
"""Learn a target's constant bank 0 layout (what the driver writes there before a launch, as
ptxas 13.0.88's code reads it) from ptxas's SASS for one PTX snippet per value, and print it as
the ``[bank0]`` table of openptxas/targets/data/<target>.toml.

Each snippet runs in scripts/probe_warp.py's kernel; the offsets of ``c[0x0][...]`` a snippet's
listing reads and the bare kernel's does not are the value's. ``--check`` compares the result
with the data file instead of printing it (exit 1 on a difference).

Blackwell (sm_100, sm_120) reads some values per CGA: ``CS2R.32 R5, SR_CgaSize; IMAD R5, R5,
-0xa0, RZ; LDC R5, c[0x0][R5+0x2ac]``. Such a value's offset is the read's (0x2ac) and the
table adds ``cga_stride`` (the IMAD's factor, -0xa0) and ``cga_indexed`` (the values read so);
the emulator puts each at offset + stride * its SR_CgaSize (emu/abi.py). Targets without such
reads print neither key.

    python scripts/probe_bank0.py --arch sm_80 [--check]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from probe_warp import listing  # noqa: E402

_CB = re.compile(r"c\[0x0\]\[(0x[0-9a-f]+|RZ)\]")
# Blackwell's per-CGA reads: SR_CgaSize scaled by the stride, then c[0x0][Rx+offset] (or, moved
# to a uniform register, c[0x0][URx+offset])
_CGA_SCALE = re.compile(r"SR_CgaSize\n\s*IMAD (R\d+), \1, (-?0x[0-9a-f]+), RZ")
_CB_INDEXED = re.compile(r"c\[0x0\]\[U?R\d+\+(0x[0-9a-f]+)\]")

# value -> (snippet, how many offsets it reads: the first is the table's)
SNIPPETS: dict[str, str] = {
    "ntid": "mov.u32 %r3, %ntid.x; mov.u32 %r4, %ntid.y; mov.u32 %r5, %ntid.z; "
    "add.u32 %r3, %r3, %r4; add.u32 %r3, %r3, %r5;",
    "nctaid": "mov.u32 %r3, %nctaid.x; mov.u32 %r4, %nctaid.y; mov.u32 %r5, %nctaid.z; "
    "add.u32 %r3, %r3, %r4; add.u32 %r3, %r3, %r5;",
    "local_window": "cvta.local.u64 %rd3, %rd2;",
    "param_window": "cvta.param.u64 %rd3, %rd2;",
    "shared_window": "cvta.to.shared.u64 %rd3, %rd2;",
    "dynamic_smem_size": "mov.u32 %r3, %dynamic_smem_size;",
    "gridid": "mov.u64 %rd3, %gridid;",
    "envreg": "mov.u32 %r3, %envreg0;",
    "reserved_smem_offset_end": "mov.u32 %r3, %reserved_smem_offset_end;",
    "reserved_smem_offset_1": "mov.u32 %r3, %reserved_smem_offset_1;",
    "nsmid": "mov.u32 %r3, %nsmid;",
    "reserved_smem_size": "mov.u32 %r3, %total_smem_size;",
    "explicit_cluster": "mov.pred %p2, %is_explicit_cluster; selp.u32 %r3, 1, 0, %p2;",
    "cluster_nctaid": "mov.u32 %r3, %cluster_nctaid.x;",
    "cluster_rcp": "mov.u32 %r3, %clusterid.x;",
    "nclusterid": "mov.u32 %r3, %nclusterid.x;",
    "cluster_nctarank": "mov.u32 %r3, %cluster_nctarank;",
}


def _offsets(text: str) -> set[int]:
    return {0 if m == "RZ" else int(m, 16) for m in _CB.findall(text)} | _cga_offsets(text)


def _cga_stride(text: str) -> int | None:
    """The bytes per unit of SR_CgaSize of the listing's per-CGA reads (None: no such read)."""
    m = _CGA_SCALE.search(text)
    return int(m.group(2), 16) if m else None


def _cga_offsets(text: str) -> set[int]:
    """The offsets of the listing's per-CGA reads (``c[0x0][R5+0x2ac]``)."""
    if _cga_stride(text) is None:
        return set()
    return {int(m, 16) for m in _CB_INDEXED.findall(text)}


def learn(arch: str, param_base: int) -> dict[str, object]:
    base_text = listing("", arch)
    base = _offsets(base_text)
    out: dict[str, object] = {}
    # the stack pointer: R1's load at entry
    r1 = r"(?:MOV|IMAD\.MOV\.U32|LDC) R1, (?:RZ, RZ, )?c\[0x0\]\[(0x[0-9a-f]+)\]"
    m = re.search(r1, base_text)
    out["stack"] = int(m.group(1), 16) if m else -1
    # the 64-bit global memory descriptor (ULDC.64 UR4 that LDG/STG name or imply; Blackwell
    # loads it with LDCU.64)
    m = re.search(r"(?:ULDC|LDCU)\.64 UR4, c\[0x0\]\[(0x[0-9a-f]+)\]", base_text)
    desc = int(m.group(1), 16) if m else -1
    out["global_desc"] = desc if desc != param_base else -1  # (sm_75: that is the parameter)
    stride = 0
    indexed: list[str] = []
    for name, snip in SNIPPETS.items():
        text = listing(snip, arch)
        if "error" in text.lower():
            out[name] = -1  # the target has no such value (ptxas refuses the snippet)
            continue
        new = sorted(_offsets(text) - base)
        cga = _cga_stride(text)
        if cga is not None and set(new) & _cga_offsets(text):
            stride = cga
            indexed.append(name)
        if name in ("ntid", "nctaid"):
            got = sorted(_offsets(text))
            # (%ntid.x may be read as c[0x0][RZ]/0x0 that the bare kernel never reads; Blackwell
            # keeps them at 0x360 and 0x370: the three offsets the snippet adds)
            low = [o for o in got if o in (0x0, 0x4, 0x8, 0xC, 0x10, 0x14)][:3]
            out[name] = low or (new if len(new) == 3 else [-1] * 3)
            continue
        if name == "cluster_nctaid":
            # sm_90 reads the reciprocal (f32 1/n) for %clusterid and n itself here
            out[name] = new[0] if new else -1
            continue
        if name == "param_window":
            # sm_90: the generic address of the first parameter; sm_80: of bank 0's byte 0,
            # plus the parameter base (an immediate in the listing)
            out[name] = new[0] if new else -1
            adds_base = re.search(rf"(?<!\[){param_base:#x}\b(?!\])", text) is not None
            out["param_window_base"] = 0 if adds_base else param_base
            continue
        out[name] = new[0] if new else -1
    text = listing("mov.u32 %r3, smem;", arch)
    m = re.search(r"MOV R\d+, (0x[0-9a-f]+)", text)
    out["shared_base"] = int(m.group(1), 16) if m else 0
    if indexed:
        out["cga_stride"] = stride
        out["cga_indexed"] = indexed
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    from openptxas.targets import get_target

    if a.check:
        n, bad = differences(a.arch)
        for k, (v, w) in sorted(bad.items()):
            print(f"{a.arch} {k}: ptxas reads {_fmt(v)}, the data file says {_fmt(w)}")
        print(f"{a.arch}: {n - len(bad)} of {n} values as the data file says")
        sys.exit(1 if bad else 0)
    got = learn(a.arch, get_target(a.arch).param_base)
    print(f"[bank0]  # scripts/probe_bank0.py --arch {a.arch} (ptxas 13.0.88)")
    for k, v in got.items():
        print(f"{k} = {_fmt(v)}")


def differences(arch: str) -> tuple[int, dict[str, tuple[object, object]]]:
    """The values learned for ``arch``, and those that differ from its data file's ``[bank0]``
    (name -> (ptxas's, the file's))."""
    import dataclasses

    from openptxas.targets import get_target

    t = get_target(arch)
    got = learn(arch, t.param_base)
    want = dataclasses.asdict(t.bank0)
    bad = {k: (v, want.get(k)) for k, v in got.items() if _norm(want.get(k)) != _norm(v)}
    return len(got), bad


def _norm(v: object) -> object:
    return list(v) if isinstance(v, tuple | list) else v


def _fmt(v: object) -> str:
    if isinstance(v, tuple | list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, str):
        return f'"{v}"'
    assert isinstance(v, int)
    return str(v) if v < 0 else hex(v)  # (TOML has no signed hexadecimal)


if __name__ == "__main__":
    main()
