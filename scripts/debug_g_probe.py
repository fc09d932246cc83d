#!/usr/bin/env python3
"""``openptxas -g`` against ``ptxas -g`` (sm_90), per file:

* sections: the debug sections (``.debug_*``, ``.nv_debug_*``) ours has are ptxas's;
* read back: ``nvdisasm -g -c`` and ``cuobjdump -elf`` accept our cubin (exit 0, no error),
  and ``readelf --debug-dump=info,abbrev,loc,frames`` warns of nothing;
* fields: each DWARF section the PTX carries equals ptxas's outside the fields our layout
  decides (code labels, variables, frame offsets), and both relocate the same fields the
  same way (offset, type);
* runs (tests/kernels sources, through nvcc -G): every launch spec's outputs in the emulator
  (hazard checker on) equal to ptxas -g's cubin's (where the emulator cannot run ptxas's -g
  code, e.g. its S2R SR_LMEMHIOFF: to the kernel's numpy reference).

Inputs: tests/elf/ptx/*.G.ptx (nvcc -G PTX) and the tests/kernels sources named with
``--kernels`` (default: a handful of t1 kernels). Files -g refuses are listed with the
diagnostic.

    python scripts/debug_g_probe.py [--kernels t1/int32_arith,...] [--corpus PolyBench]

(``--corpus``: the public corpus's sm_90 PTX, without nvcc -G's DWARF: ptxas -g warns that
.debug_abbrev/.debug_info are missing and writes the other sections.)

Needs nvcc, ptxas, nvdisasm, cuobjdump, readelf.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openptxas.diag import OpenPtxasError  # noqa: E402
from openptxas.driver import compile_ptx  # noqa: E402
from openptxas.elf.model import RelocTable  # noqa: E402
from openptxas.elf.reader import read_cubin  # noqa: E402
from openptxas.options import Options  # noqa: E402
from openptxas.ptx.parser import parse  # noqa: E402
from openptxas.ptxdwarf import debug_sections, param_offsets  # noqa: E402
from openptxas.targets import get_target  # noqa: E402
from openptxas.testing.tools import find_tool  # noqa: E402

KERNELS = (
    "t1/int32_arith,t1/f32_arith,t1/divergent_if,t1/loops_dynamic,t1/shared_static,"
    "t1/reduce_tree,t1/grid_stride,t1/int64_arith"
)


def _debug_names(cubin: bytes) -> list[str]:
    return [
        s.name for s in read_cubin(cubin).sections if s.name.startswith((".debug", ".nv_debug"))
    ]


def _relocs(cubin: bytes, name: str) -> list[tuple[int, str]]:
    c = read_cubin(cubin)
    idx = c.section_index(name)
    return sorted(
        (r.offset, r.type_name)
        for t in c.sections
        if isinstance(t.content, RelocTable) and t.info == idx
        for r in t.content.relocs
    )


def _readelf(p: Path) -> tuple[int, list[str]]:
    r = subprocess.run(
        ["readelf", "--debug-dump=info,abbrev,loc,frames", str(p)],
        capture_output=True,
        text=True,
        check=False,
    )
    # (the CUDA sh_info values; the location lists' holes and unused bytes: readelf does not
    # apply the CUDA relocations, its warnings on ptxas's cubin are the same kind)
    skip = ("Unexpected value", "hole", "unused bytes")
    return r.returncode, [ln for ln in r.stderr.splitlines() if not any(k in ln for k in skip)]


def read_back(cubin: bytes, tmp: Path, theirs: bytes) -> list[str]:
    """The tools' errors on our cubin; readelf's warnings that ptxas's cubin does not get."""
    p = tmp / "ours.cubin"
    p.write_bytes(cubin)
    problems = []
    for tool, args in (("nvdisasm", ["-g", "-c"]), ("cuobjdump", ["-elf"])):
        exe = find_tool(tool)
        assert exe is not None, tool
        r = subprocess.run([exe, *args, str(p)], capture_output=True, text=True, check=False)
        if r.returncode != 0 or "error" in r.stderr.lower():
            problems.append(f"{tool}: {r.returncode} {r.stderr.strip()[:200]}")
    rc, bad = _readelf(p)
    q = tmp / "theirs_readelf.cubin"
    q.write_bytes(theirs)
    known = set(_readelf(q)[1])
    bad = [ln for ln in bad if ln not in known]
    if rc != 0 or bad:
        problems.append(f"readelf: {bad[:2]}")
    return problems


def fields(ptx: str, name: str, ours: bytes, theirs: bytes) -> list[str]:
    """The PTX-carried DWARF sections: equal outside the layout's fields, relocated alike."""
    module = parse(ptx, name)
    problems = []
    for s in debug_sections(module, param_offsets(module, get_target("sm_90").param_base)):
        a = read_cubin(ours).section(s.name).data()
        b = read_cubin(theirs).section(s.name).data()
        if len(a) != len(b):
            problems.append(f"{s.name}: size {len(a)} vs {len(b)}")
            continue
        mask = bytearray(len(b))
        for r in s.code_refs:
            start = r.offset - (r.kind == "local")
            mask[start : r.offset + r.width] = b"\1" * (r.offset + r.width - start)
        diff = [k for k in range(len(a)) if not mask[k] and a[k] != b[k]]
        if diff:
            problems.append(f"{s.name}: {len(diff)} bytes differ, first at {diff[0]:#x}")
        ra, rb = _relocs(ours, s.name), _relocs(theirs, s.name)
        if ra != rb:
            problems.append(f"{s.name}: relocations {len(ra)} vs ptxas {len(rb)}")
    return problems


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default=KERNELS)
    ap.add_argument(
        "--corpus",
        default="",
        help="also the public corpus's sm_90 PTX files whose path contains this text",
    )
    ap.add_argument("files", nargs="*", type=Path)
    a = ap.parse_args(argv)
    files = a.files or sorted((ROOT / "tests/elf/ptx").glob("*.G.ptx"))
    inputs: list[tuple[str, str, object]] = [(f.name, f.read_text(), None) for f in files]
    if a.corpus:
        base = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))
        for f in sorted((base / "build/sm_90").rglob("*.ptx")):
            if a.corpus in str(f):
                inputs.append((f.name, f.read_text(), None))
    from openptxas.testing.corpus import discover
    from openptxas.testing.oracle import Oracle

    oracle = Oracle()
    wanted = [k for k in a.kernels.split(",") if k]
    for ks in discover():
        if ks.name in wanted:
            ptx = oracle.cu_to_ptx(ks.cu_path, "sm_90", [*ks.nvcc_flags, "-G"], subject=ks.name)
            inputs.append((ks.name, ptx, ks))
    n = dict.fromkeys(("files", "compiled", "sections", "read", "fields", "runs", "ran", "ref"), 0)
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        for name, ptx, ks in inputs:
            src = tmp / "in.ptx"
            src.write_text(ptx)
            out = tmp / "theirs.cubin"
            p = subprocess.run(
                ["ptxas", "-arch=sm_90", "-g", str(src), "-o", str(out)],
                capture_output=True,
                text=True,
                check=False,
            )
            if p.returncode != 0:
                print(f"{name:24} ptxas -g fails: {p.stderr.strip().splitlines()[-1]}")
                continue
            theirs = out.read_bytes()
            n["files"] += 1
            try:
                ours = compile_ptx(ptx, Options(arch="sm_90", device_debug=True), name).cubin
            except OpenPtxasError as exc:
                print(f"{name:24} refused: {str(exc).splitlines()[0][:150]}")
                continue
            n["compiled"] += 1
            notes = []
            same = _debug_names(ours) == _debug_names(theirs)
            n["sections"] += same
            if not same:
                notes.append(f"sections {_debug_names(ours)} vs {_debug_names(theirs)}")
            rb = read_back(ours, tmp, theirs)
            n["read"] += not rb
            notes += rb
            fp = fields(ptx, name, ours, theirs)
            n["fields"] += not fp
            notes += fp
            if ks is not None:
                notes += _runs(ks, ours, theirs, n)
            print(f"{name:24} {'ok' if not notes else '; '.join(notes)}")
    c = n["compiled"]
    print(
        f"files {n['files']} (ptxas -g compiles), openptxas -g compiles {c}/{n['files']}; "
        f"debug sections as ptxas's {n['sections']}/{c}; read back by nvdisasm -g, cuobjdump "
        f"-elf, readelf {n['read']}/{c}; PTX DWARF fields equal outside layout, relocations "
        f"alike {n['fields']}/{c}; emulator outputs equal to ptxas -g's {n['ran']}/{n['runs']} "
        f"(of which {n['ref']} against the numpy reference: the emulator cannot run ptxas's)"
    )
    ok = c == n["sections"] == n["read"] == n["fields"] and n["ran"] == n["runs"]
    return 0 if ok else 1


def _runs(ks: object, ours: bytes, theirs: bytes, n: dict[str, int]) -> list[str]:
    from openptxas.emu import run_launch

    sys.path.insert(0, str(ROOT / "tests"))
    from openptxas.emu import Unsupported
    from openptxas.testing.corpus import compare_outputs
    from tests.emu.harness import Case, differences, expected

    notes = []
    for spec in getattr(ks, "specs", []):
        n["runs"] += 1
        try:
            a = run_launch(ours, spec, hazards=True)
        except Exception as exc:  # reported per launch
            notes.append(f"{spec.kernel}: emulator: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        if a.hazards:
            notes.append(f"{spec.kernel}: hazards {a.hazards[0]}")
            continue
        try:
            d = differences(a, run_launch(theirs, spec))
        except Unsupported as exc:  # ptxas's -g code: against the kernel's numpy reference
            n["ref"] += 1
            want, _text = expected(Case(ks, "sm_90", spec))  # type: ignore[arg-type]
            d = compare_outputs(spec, a.outputs, want)
            notes.append(f"{spec.kernel}: ptxas's cubin: {str(exc)[:60]}; ours vs reference")
        if d:
            notes.append(f"{spec.kernel}: outputs differ: {d[0][:120]}")
        else:
            n["ran"] += 1
    return notes


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
