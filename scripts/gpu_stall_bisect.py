"""Which stall counts of our cubin the hardware needs longer: one variant per instruction, its
stall count 2 more (``--extra N``: N more, 15 at most, with the yield bit at 12 and more; and one
with every stall but its own that much more), each run against ptxas's cubin on a GPU.

scripts/gpu_control_probe.py showed that our cubins that differ from ptxas's on hardware are
mostly right once every stall count is 2 more. With a single hazard in a kernel, the variants
that fix it are exactly the instructions from its producer up to the one before its reader: the
hazard is read off the listing. Each case (a gpu_control_probe.py prep directory entry: ptxas's
cubin, ours, the launch specs) runs in one process; a faulting variant resets the context.

    python scripts/gpu_stall_bisect.py prep PROBE_DIR OUT CASE... [--extra N]  # here
    python scripts/gpu_stall_bisect.py run OUT [--json R.json]        # on the GPU machine
    python scripts/gpu_stall_bisect.py report OUT R.json              # here: the listing
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

_STALL = 0xF << 105
_YIELD_OFF = 1 << 109  # set: the warp is kept (no yield)


def text_offsets(blob: bytes) -> list[tuple[str, int, int]]:
    """(section, offset in the section, offset in the file) of every instruction."""
    from openptxas.elf.elffile import parse_elf

    raw = parse_elf(blob)
    out = []
    for i, sh in enumerate(raw.sections):
        name = raw.name_of(i)
        if name.startswith(".text"):
            out += [(name, o - sh.offset, o) for o in range(sh.offset, sh.offset + sh.size, 16)]
    return out


def bump(blob: bytes, file_offset: int, extra: int = 2) -> bytes:
    """The instruction's stall count ``extra`` more (at most 15); a count of 12 or more gets the
    yield bit "Y", as ptxas always writes it (scripts/gpu_control_probe.py, stall15 and
    stall15n)."""
    out = bytearray(blob)
    w = int.from_bytes(out[file_offset : file_offset + 16], "little")
    stall = min(15, (w >> 105 & 0xF) + extra)
    w = (w & ~_STALL) | stall << 105
    if stall >= 12:
        w &= ~_YIELD_OFF
    out[file_offset : file_offset + 16] = w.to_bytes(16, "little")
    return bytes(out)


def prep(probe: Path, out: Path, cases: list[str], extra: int = 2) -> int:
    for c in cases:
        src, dst = probe / c, out / c
        dst.mkdir(parents=True, exist_ok=True)
        (dst / "extra.txt").write_text(f"{extra}\n")
        for f in ("ptxas.cubin", "specs.json", "in.ptx"):
            if (src / f).exists():
                shutil.copy(src / f, dst / f)
        ours = (src / "ours.orig.cubin").read_bytes()
        (dst / "ours.cubin").write_bytes(ours)
        offs = text_offsets(ours)
        (dst / "offsets.json").write_text(json.dumps(offs))
        print(f"{c}: {len(offs)} instructions")
    (out / "cases.json").write_text(json.dumps(cases))
    return 0


_CHILD = r"""
import json, sys
import numpy as np
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from scripts.gpu_stall_bisect import bump
from openptxas.testing.derived_launch import buffer_bytes, case_specs
from tests.gpu.runner import Driver, run_on_gpu

d = Path(sys.argv[1])
specs = case_specs(str(d))
drv = Driver()
bufs = buffer_bytes
ref = [bufs(run_on_gpu(drv, (d / "ptxas.cubin").read_bytes(), s)[1], s) for s in specs]
ours = (d / "ours.cubin").read_bytes()
offs = json.loads((d / "offsets.json").read_text())
x = int((d / "extra.txt").read_text()) if (d / "extra.txt").exists() else 2
every = ours
for o in offs:
    every = bump(every, o[2], x)
def all_but(i):
    b = ours
    for j, o in enumerate(offs):
        if j != i:
            b = bump(b, o[2], x)
    return b
# variant n: 0 orig, 1 every stall +x, 2.. one instruction +x, then every one but one
n_off = len(offs)
def variant(n):
    if n == 0:
        return ours
    if n == 1:
        return every
    if n < 2 + n_off:
        return bump(ours, offs[n - 2][2], x)
    return all_but(n - 2 - n_off)
# a faulting launch leaves a sticky error no later launch of this process survives: report it
# and end; the parent starts a new process at the next variant
for n in range(int(sys.argv[3]), 2 + 2 * n_off):
    bad = 0
    for s, r in zip(specs, ref):
        try:
            got = bufs(run_on_gpu(drv, variant(n), s)[1], s)
        except Exception:
            print(f"V {n} error", flush=True)
            sys.exit(3)
        bad += sum(int(np.count_nonzero(x != y)) for x, y in zip(got, r))
    print(f"V {n} " + ("same" if not bad else f"DIFF {bad}"), flush=True)
"""


def run(src: Path, jobs: int, timeout: float, json_out: str | None) -> int:
    cases = json.loads((src / "cases.json").read_text())
    env = dict(os.environ, PYTHONPATH=str(REPO))

    def one(c: str) -> dict[str, Any]:
        n_off = len(json.loads((src / c / "offsets.json").read_text()))
        got: dict[int, str] = {}
        start = 0
        while start < 2 + 2 * n_off:
            try:
                r = subprocess.run([sys.executable, "-c", _CHILD, str(src / c), str(REPO),
                                    str(start)], capture_output=True, text=True,
                                   timeout=timeout, env=env, check=False)  # fmt: skip
                out = r.stdout
            except subprocess.TimeoutExpired as exc:
                out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
            for ln in out.splitlines():
                if ln.startswith("V "):
                    n, _, v = ln[2:].partition(" ")
                    got[int(n)] = v
            if not got or max(got) < start:
                got[start] = "crash"  # the reference itself failed, or the process: skip one
            start = max(got) + 1
        return {
            "orig": got.get(0),
            "all": got.get(1),
            "single": [got.get(2 + i, "?") for i in range(n_off)],
            "allbut": [got.get(2 + n_off + i, "?") for i in range(n_off)],
        }

    out: dict[str, Any] = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for c, res in zip(cases, pool.map(one, cases), strict=True):
            out[c] = res
            print(c, res.get("orig"), res.get("error", ""), flush=True)
            if json_out:
                Path(json_out).write_text(json.dumps(out))
    return 0


def report(src: Path, results: dict[str, Any]) -> int:
    from openptxas.emu.decode import isa_decoder
    from openptxas.emu.program import load_module
    from openptxas.isa.control import format_control

    for c, res in sorted(results.items()):
        if "single" not in res:
            print(f"{c}: {res}")
            continue
        d = src / c
        offs = json.loads((d / "offsets.json").read_text())
        mod = load_module((d / "ours.cubin").read_bytes(), isa_decoder("sm90"))
        by_sec: dict[tuple[str, int], str] = {}
        for k in mod.kernels.values():
            for pc, ins in mod.instructions(k).items():
                by_sec[(f".text.{k.name}", pc)] = f"{format_control(ins.control)} {ins}"
        name = json.loads((d / "specs.json").read_text())["file"]
        print(f"== {c} {name}: orig {res['orig']}, every stall +2 {res['all']}")
        for (sec, pc, _o), v, w in zip(offs, res["single"], res["allbut"], strict=True):
            mark = ("FIX " if v == "same" else "    ") + ("NEED " if w != "same" else "     ")
            print(f"{mark}{v:10s} {sec[6:][:20]:20s} {pc:#06x} {by_sec.get((sec, pc), '?')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep")
    p.add_argument("probe")
    p.add_argument("out")
    p.add_argument("cases", nargs="+")
    p.add_argument("--extra", type=int, default=2, help="cycles added to a stall (default 2)")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--jobs", type=int, default=12)
    r.add_argument("--timeout", type=float, default=150.0)
    r.add_argument("--json")
    q = sub.add_parser("report")
    q.add_argument("dir")
    q.add_argument("json")
    args = ap.parse_args(argv)
    if args.cmd == "prep":
        return prep(Path(args.probe), Path(args.out), args.cases, args.extra)
    if args.cmd == "run":
        return run(Path(args.dir), args.jobs, args.timeout, args.json)
    return report(Path(args.dir), json.loads(Path(args.json).read_text()))


if __name__ == "__main__":
    sys.exit(main())
